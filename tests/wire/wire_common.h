/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `wire` suite's rig: two bluesim devices on a net_ring pair with
 * connected RC QPs (tests/func/func_common.h), canary bytes around both MRs,
 * and an injector per side: a third net_ring ethdev whose TX ring is that
 * side's RX ring, so a test puts crafted frames (drivers/common/blue's frame builders) on the
 * wire towards either device, interleaved with the real traffic.
 */
#ifndef WIRE_COMMON_H
#define WIRE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "func_common.h"
#include "blue_wire.h"
#include "sim_host.h"

/** Canary bytes before and after each side's MR. */
#define WIRE_GUARD 4096u

struct wire_env {
	struct func_pair p;
	uint16_t inj[2];	  /* inj[i] transmits into side i's RX ring */
	struct rte_mempool *mp;
	uint64_t injected[2];	  /* frames put on the wire towards side i */
};

/**
 * Open the pair (buffers of @p len, devargs as func_pair_open()), connect QPs
 * of @p wr WRs at PMTU 1024, and start both injectors.
 */
void wire_open(struct wire_env *w, size_t len, const char *devargs, uint32_t wr);
/** wire_open() with QPs of @p wr0 and @p wr1 WRs on sides 0 and 1. */
void wire_open_qps(struct wire_env *w, size_t len, const char *devargs, uint32_t wr0,
		   uint32_t wr1);
/** Check every canary (the test fails if one was overwritten), then close. */
void wire_close(struct wire_env *w);

/**
 * Ethernet/IPv4/UDP fields of a frame to side @p to, as if side 1 - to sent
 * it (its MAC and IP), UDP ports @p udp_port.
 */
void wire_l3_to(const struct wire_env *w, int to, uint16_t udp_port, struct blue_wire_l3 *l3);

/** Put a whole frame (no FCS: it is appended) on the wire towards side @p to. */
void wire_inject(struct wire_env *w, int to, const void *frame, uint32_t len);

/**
 * Build with blue_wire_rdma_build() and inject an RDMA frame towards side
 * @p to. pkt->l3 is filled as from the peer (wire_l3_to()) and bth.dqpn, when
 * 0, with side @p to's QPN.
 */
void wire_inject_rdma(struct wire_env *w, int to, struct blue_wire_rdma *pkt,
		      const void *payload, uint32_t payload_len);

/**
 * Build with blue_wire_ctrl_build() and inject an ORDK control frame towards
 * side @p to; src_qpn and dst_qpn, when 0, are the peer's and side @p to's.
 */
void wire_inject_ctrl(struct wire_env *w, int to, struct blue_ctrl_msg *m);

/**
 * Post one WR on side @p side's QP: local buffer at @p loff of its own
 * buffer, remote (READ, WRITE, atomics) at @p roff of the peer's, with the
 * peer MR's rkey unless @p rkey is non-zero. @return ordk_qp_post_send()'s.
 */
int wire_post(struct wire_env *w, int side, enum ordk_wr_opcode op, size_t loff, size_t roff,
	      uint32_t len, uint64_t wr_id, uint32_t rkey);

/** Counters of side @p side's QP. */
struct ordk_stats wire_qp_stats(const struct wire_env *w, int side);

#endif /* WIRE_COMMON_H */
