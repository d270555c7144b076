/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The wire rig itself: a crafted frame reaches the device it is aimed at and
 * is handled like the peer's; one aimed past the end of the MR is refused by
 * the card, and the canaries around the MR show it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "wire_common.h"

#define LEN (1u << 20)

static struct blue_wire_rdma
write_only(const struct wire_env *w, int to, uint64_t va, uint32_t len)
{
	const struct ordk_qp *qp = w->p.s[to].qp;
	struct blue_wire_rdma pkt = { 0 };

	pkt.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = BLUE_OP_WRITE_ONLY,
					  .psn = FUNC_QP_INFO(qp, expected_psn), .msn = 7 };
	pkt.reth = (struct blue_wire_reth){ .va = va, .rkey = w->p.s[to].mr->rkey, .dlen = len };
	return pkt;
}

Test(wire_inject, write_lands)
{
	struct wire_env w;
	uint8_t data[256];
	uint32_t epsn;

	wire_open(&w, LEN, NULL, 64);
	epsn = FUNC_QP_INFO(w.p.s[1].qp, expected_psn);
	memset(data, 0x5C, sizeof(data));
	struct blue_wire_rdma pkt = write_only(&w, 1, (uint64_t)(uintptr_t)w.p.s[1].buf + 4096,
					       sizeof(data));

	wire_inject_rdma(&w, 1, &pkt, data, sizeof(data));
	for (double end = test_now_s() + 5; test_now_s() < end && FUNC_QP_INFO(w.p.s[1].qp, expected_psn) == epsn;)
		func_idle(&w.p, 0.001);
	cr_assert_eq(memcmp(w.p.s[1].buf + 4096, data, sizeof(data)), 0, "not placed");
	cr_assert_eq(FUNC_QP_INFO(w.p.s[1].qp, expected_psn), blue_psn_add(epsn, 1), "the tracker did not see it");
	wire_close(&w);
}

Test(wire_inject, past_the_mr_refused)
{
	struct wire_env w;
	uint8_t data[256];
	uint64_t oob = 0;

	wire_open(&w, LEN, NULL, 64);
	memset(data, 0x5C, sizeof(data));
	/* the last 128 bytes of the MR and 128 bytes of the canary after it */
	struct blue_wire_rdma pkt = write_only(&w, 1, (uint64_t)(uintptr_t)w.p.s[1].buf + LEN - 128,
					       sizeof(data));

	wire_inject_rdma(&w, 1, &pkt, data, sizeof(data));
	for (double end = test_now_s() + 5; test_now_s() < end && oob == 0;) {
		func_idle(&w.p, 0.001);
		oob = func_xstat(w.p.s[1].dev, "drop_mem_out_of_bound");
	}
	cr_assert_eq(oob, 1, "the card did not refuse the frame");
	wire_close(&w);
}
