/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC under injected faults (bluesim's seeded injection on both models' TX):
 * every opcode at 1 B .. 4 MiB; every WR completes exactly once with
 * success, the data is equal byte for byte, and the counters show the
 * recovery (retransmissions when frames were dropped).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "func_common.h"
#include "verbs_internal.h"

#define BUF (10u << 20)
static const uint32_t sizes[] = { 1, 4097, 65537, 1u << 20, 4u << 20 };

static void
fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)((i * 2654435761u + seed) >> 11);
}

static void
one(struct func_pair *p, enum ordk_wr_opcode op, uint32_t len, uint64_t id)
{
	struct func_side *a = &p->s[0], *b = &p->s[1];
	struct ordk_send_wr wr = { .wr_id = id, .opcode = op, .send_flags = ORDK_SEND_SIGNALED,
				   .num_sge = 1, .imm_data = (uint32_t)id };
	struct ordk_recv_wr rr = { .wr_id = id + 1000, .num_sge = op == ORDK_WR_RDMA_WRITE_WITH_IMM ? 0 : 1 };
	bool recv = op == ORDK_WR_SEND || op == ORDK_WR_SEND_WITH_IMM ||
		    op == ORDK_WR_RDMA_WRITE_WITH_IMM;
	uint8_t *src = op == ORDK_WR_RDMA_READ ? b->buf : a->buf;
	uint8_t *dst = op == ORDK_WR_RDMA_READ ? a->buf : b->buf;
	struct ordk_wc wc;

	fill(src, len, (uint32_t)id);
	memset(dst, 0xEE, len + 1);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, len, a->mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf;
	wr.rdma.rkey = b->mr->rkey;
	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)b->buf, len, b->mr->lkey };
	if (recv)
		cr_assert_eq(ordk_qp_post_recv(b->qp, &rr, 1), 1);
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1);
	func_wait(p, 0, &wc, 1, 60);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "op %d len %u: %s", op, len,
		     ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, id);
	if (recv) {
		func_wait(p, 1, &wc, 1, 60);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
		cr_assert_eq(wc.wr_id, id + 1000, "op %d len %u: RECV completed once, in order", op, len);
		if (op != ORDK_WR_RDMA_WRITE_WITH_IMM)
			cr_assert_eq(wc.byte_len, len);
	}
	cr_assert_eq(memcmp(dst, src, len), 0, "op %d len %u: data", op, len);
	cr_assert_eq(dst[len], 0xEE);
}

static void
run(const char *faults, bool expect_rtx)
{
	struct func_pair p;
	struct ordk_wc extra;
	uint64_t id = 1, rtx;

	func_pair_open(&p, BUF, faults);
	func_pair_qps(&p, ORDK_MTU_4096, 64);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int op = ORDK_WR_RDMA_WRITE; op <= ORDK_WR_RDMA_READ; op++)
			one(&p, (enum ordk_wr_opcode)op, sizes[s], id++);
	func_idle(&p, 0.05);
	cr_assert_eq(ordk_cq_poll(p.s[0].cq, &extra, 1), 0, "no WR completed twice");
	cr_assert_eq(ordk_cq_poll(p.s[1].cq, &extra, 1), 0);
	rtx = p.s[0].dev->st.retransmits + p.s[1].dev->st.retransmits;
	if (expect_rtx)
		cr_assert_gt(rtx, 0, "%s: frames were dropped, nothing was retransmitted", faults);
	printf("%s: %lu retransmissions, %lu timeouts, %lu NAKs\n", faults, (unsigned long)rtx,
	       (unsigned long)(p.s[0].dev->st.timeouts + p.s[1].dev->st.timeouts),
	       (unsigned long)(p.s[0].dev->st.naks_received + p.s[1].dev->st.naks_received));
	func_pair_close(&p);
}

Test(fault_loss, drop_0_1_percent, .timeout = 300)
{
	run("fault=drop:0.001,seed=11", false);
}

Test(fault_loss, drop_1_percent, .timeout = 300)
{
	run("fault=drop:0.01,seed=12", true);
}

Test(fault_loss, drop_5_percent, .timeout = 300)
{
	run("fault=drop:0.05,seed=13", true);
}
