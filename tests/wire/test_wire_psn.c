/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A forged PSN beyond the expected one (issue 12 item 7): the victim asks
 * for the hole a bounded number of times, backing off, then gives it up
 * (counted); before, it sent about 2000 NAKs a second for good.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "wire_common.h"

/* NAKs for one hole before the responder gives it up (the transport's RC_NAK_MAX) */
#define NAK_MAX 8u

#define LEN (1u << 20)

Test(psn_forged, beyond_the_expected_psn)
{
	struct wire_env w;
	struct blue_wire_rdma pkt = { 0 };
	struct ordk_stats st;
	uint8_t data[64];
	struct ordk_wc wc;

	wire_open(&w, LEN, NULL, 64);
	memset(data, 0x3C, sizeof(data));
	pkt.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = BLUE_OP_WRITE_ONLY,
					  .psn = blue_psn_add(FUNC_QP_INFO(w.p.s[1].qp, expected_psn), 1000), .msn = 9 };
	pkt.reth = (struct blue_wire_reth){ .va = (uint64_t)(uintptr_t)w.p.s[1].buf + 8192,
					    .rkey = w.p.s[1].mr->rkey, .dlen = sizeof(data) };
	wire_inject_rdma(&w, 1, &pkt, data, sizeof(data));
	/* two seconds: the bounded NAKs back off from the hold (at most 500 us) */
	func_idle(&w.p, 2);
	st = wire_qp_stats(&w, 1);
	cr_assert_leq(st.naks_sent, NAK_MAX, "%lu NAKs for one forged PSN",
		      (unsigned long)st.naks_sent);
	cr_assert_geq(st.naks_sent, 1, "the hole was never asked for");
	cr_assert_eq(st.naks_given_up, 1);
	/* and it stays quiet */
	func_idle(&w.p, 0.5);
	cr_assert_eq(wire_qp_stats(&w, 1).naks_sent, st.naks_sent);
	/* the real sender's traffic (below the forged PSN) still goes through */
	for (uint64_t i = 0; i < 8; i++) {
		cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_WRITE, 0, 65536 + i * 4096, 4096, i, 0), 1);
		func_wait(&w.p, 0, &wc, 1, 10);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	}
	wire_close(&w);
}
