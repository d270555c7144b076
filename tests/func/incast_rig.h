/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The incast rig in one process (issue 17): N senders and a victim, each a
 * bluesim device on its own port of the test switch, WRITE to one receiver
 * whose egress queue is the bottleneck (shaped, ECN-marking, tail drop). One
 * loop steps every device and the switch, so the rig needs one core. The same
 * QPs run a phase with congestion control off and one with it on.
 * Used by tests/perf/bench_incast (the figures) and tests/func/test_incast
 * (the directions only).
 */
#ifndef INCAST_RIG_H
#define INCAST_RIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "func_common.h"
#include "sw_switch.h"

#define INCAST_MAX_SENDERS 8

struct incast_cfg {
	unsigned int senders;	 /* 1..INCAST_MAX_SENDERS */
	uint32_t msg, depth;	 /* a sender keeps depth WRITEs of msg bytes in flight */
	uint64_t rate;		 /* bottleneck, bytes/s (0: unshaped) */
	char queue[256];	 /* more sw_queue keys for the bottleneck, "k=v,k=v" */
	char cc[256];		 /* DCQCN parameters, "k=v,k=v" (cc_params_parse keys), over the
				    rig's defaults: the paper's 40 Gb/s network slowed down to
				    the bottleneck (rates x s, T and K / s, bytes unchanged) */
	const char *name;	 /* ring and pool names: unique per process */
};

/** One phase's figures. */
struct incast_result {
	bool cc;
	double seconds, goodput_frac, goodput_bps;
	uint64_t drops, drops_late; /* late: after the first 100 ms */
	uint64_t retransmits, marked, cnps, rate_changes;
	uint64_t q_p50, q_p99;	/* after the first 100 ms */
	uint64_t q_p99_all, q_max; /* the whole phase */
	double jain;
	unsigned int windows, nlat;
	double lat_p50_us, lat_p99_us;
	bool failed; /* a QP failed (retries exceeded): the phase did not finish cleanly */
};

struct incast_flow {
	struct func_side s;  /* the sender's device */
	struct ordk_qp *rqp; /* its QP on the receiver */
	uint32_t outstanding;
	uint64_t bytes, win_bytes;
	uint64_t posted_ns; /* victim: when its WRITE left */
	bool failed;
};

struct incast_rig {
	struct incast_cfg c;
	struct func_side r;
	struct incast_flow fl[INCAST_MAX_SENDERS + 1]; /* the last flow is the victim */
	unsigned int nf;
	uint16_t sp[INCAST_MAX_SENDERS + 2], hp[INCAST_MAX_SENDERS + 2];
	struct sw_switch sw;
	struct sw_queue_cfg bq;
	struct rte_mempool *mp;
	uint64_t t0; /* the switch's clock starts at 0 here */
	uint64_t *lat;
};

/** Parse "k=v,k=v" bottleneck keys and check @p c. @return 0 or -1 (reason on stderr). */
int incast_cfg_check(struct incast_cfg *c);
/** Ports, devices, QPs, switch. @return 0, or -1 (reason on stderr). */
int incast_open(struct incast_rig *g, const struct incast_cfg *c);
/**
 * One phase of @p seconds with congestion control @p cc on every flow's QP:
 * counters restart, WRITEs go, then the phase drains (bounded). @p trace: the
 * CSV of doc/guides/prog_guide/congestion.md (queue depth and rates every 1 ms, goodput
 * every 10 ms), or NULL.
 */
void incast_run(struct incast_rig *g, bool cc, double seconds, FILE *trace,
		struct incast_result *res);
/** Print @p res as the benchmark's lines. */
void incast_print(const struct incast_rig *g, const struct incast_result *res, FILE *f);

#endif /* INCAST_RIG_H */
