/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire of the one-model receive suites (test_sim_rx.c, test_sim_rtl.c):
 * a peer (A) sends to the model under test (B), whose QP QPN and MR (RKEY,
 * MR_LEN bytes) the suite sets up, and the RC frames the peer sends.
 */
#ifndef SIM_PEER_H
#define SIM_PEER_H

#include "sim_host.h"

#define MAC_A 0x020000000001ull /* the peer */
#define MAC_B 0x020000000002ull /* the model under test */
#define IP_A 0x0A000001u
#define IP_B 0x0A000002u
#define QPN 0x000301u
#define PEER_QPN 0x00A1B2u
#define RKEY 0x00004201u
#define MR_LEN (1u << 20)

/* The peer's frame to QP @p qpn: @p op at @p psn, RETH (@p va, RKEY, @p dlen), MSN 7, AckReq. */
static inline struct blue_wire_rdma
sim_peer_pkt(uint8_t op, uint32_t qpn, uint32_t psn, uint64_t va, uint32_t dlen)
{
	struct blue_wire_rdma p = { 0 };

	p.l3 = (struct blue_wire_l3){ .dst_mac = MAC_B, .src_mac = MAC_A, .src_ip = IP_A,
				      .dst_ip = IP_B, .src_port = (uint16_t)PEER_QPN,
				      .dst_port = BLUE_WIRE_ROCE_UDP_PORT, .ip_id = 1, .ttl = 64 };
	p.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = op, .msn = 7,
					.dqpn = qpn, .psn = psn, .ack_req = 1 };
	p.reth = (struct blue_wire_reth){ .va = va, .rkey = RKEY, .dlen = dlen };
	return p;
}

#endif /* SIM_PEER_H */
