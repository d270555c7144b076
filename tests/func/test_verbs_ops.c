/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every opcode x sizes {1, 7, 4095, 4096, 4097, 65536, 65537, 1 MiB, 16 MiB} x
 * PMTU {256, 1024, 4096} between two QPs over bluesim: data byte for byte,
 * every WR completed exactly once with the right opcode, length, imm and wr_id.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "func_common.h"

#define BUF (34u << 20)
static const uint32_t sizes[] = { 1, 7, 4095, 4096, 4097, 65536, 65537, 1u << 20, 16u << 20 };

static void
fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		b[i] = (uint8_t)((i * 2654435761u + seed) >> 13);
}

static uint64_t
va(const struct func_side *s, uint32_t off)
{
	return (uint64_t)(uintptr_t)s->buf + off;
}

static void
one(struct func_pair *p, enum ordk_wr_opcode op, uint32_t len, uint64_t id)
{
	struct func_side *a = &p->s[0], *b = &p->s[1];
	const uint32_t soff = 5, doff = 3; /* unaligned on both sides */
	struct ordk_send_wr wr = { .wr_id = id, .opcode = op, .send_flags = ORDK_SEND_SIGNALED,
				   .num_sge = 1, .imm_data = (uint32_t)id * 977 };
	struct ordk_recv_wr rr = { .wr_id = id + 1000000, .num_sge = 1 };
	bool recv = op == ORDK_WR_SEND || op == ORDK_WR_SEND_WITH_IMM ||
		    op == ORDK_WR_RDMA_WRITE_WITH_IMM;
	struct ordk_wc wc;
	uint8_t *src, *dst;

	/* the bytes travel from src to dst: READ pulls from b into a */
	src = op == ORDK_WR_RDMA_READ ? b->buf + doff : a->buf + soff;
	dst = op == ORDK_WR_RDMA_READ ? a->buf + soff : b->buf + doff;
	fill(src, len, (uint32_t)id);
	memset(dst, 0xEE, len + 1); /* and one guard byte past the end */
	wr.sge = (struct ordk_sge){ .addr = va(a, soff), .length = len, .lkey = a->mr->lkey };
	wr.rdma.remote_addr = va(b, doff);
	wr.rdma.rkey = b->mr->rkey;
	if (recv) {
		rr.sge = (struct ordk_sge){ .addr = va(b, doff), .length = len, .lkey = b->mr->lkey };
		if (op == ORDK_WR_RDMA_WRITE_WITH_IMM)
			rr.num_sge = 0;
		cr_assert_eq(ordk_qp_post_recv(b->qp, &rr, 1), 1);
	}
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1);
	func_wait(p, 0, &wc, 1, 30);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "op %d len %u: %s", op, len,
		     ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, id);
	cr_assert_eq(wc.qp_num, ordk_qp_num(a->qp));
	cr_assert_eq(wc.opcode, op == ORDK_WR_RDMA_READ ? ORDK_WC_RDMA_READ
				: (op == ORDK_WR_SEND || op == ORDK_WR_SEND_WITH_IMM) ? ORDK_WC_SEND
											 : ORDK_WC_RDMA_WRITE);
	if (recv) {
		func_wait(p, 1, &wc, 1, 30);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
		cr_assert_eq(wc.wr_id, id + 1000000);
		cr_assert_eq(wc.opcode, op == ORDK_WR_RDMA_WRITE_WITH_IMM ? ORDK_WC_RECV_RDMA_WITH_IMM
									    : ORDK_WC_RECV);
		cr_assert_eq(wc.qp_num, ordk_qp_num(b->qp));
		if (op != ORDK_WR_SEND) {
			cr_assert_eq(wc.wc_flags & ORDK_WC_WITH_IMM, ORDK_WC_WITH_IMM);
			cr_assert_eq(wc.imm_data, (uint32_t)id * 977);
		} else {
			cr_assert_eq(wc.wc_flags & ORDK_WC_WITH_IMM, 0);
		}
		cr_assert_eq(wc.byte_len, len, "op %d: byte_len %u, want %u", op, wc.byte_len, len);
	}
	if (memcmp(dst, src, len) != 0) {
		uint32_t first = 0, last = 0, n = 0;

		for (uint32_t i = 0; i < len; i++)
			if (dst[i] != src[i]) {
				if (n++ == 0)
					first = i;
				last = i;
			}
		cr_assert_fail("op %d len %u: %u bytes differ, from %u to %u (dst 0x%02x src 0x%02x)", op,
			       len, n, first, last, dst[first], src[first]);
	}
	cr_assert_eq(dst[len], 0xEE, "op %d len %u: wrote past the end", op, len);
}

static void
matrix(enum ordk_mtu mtu)
{
	struct func_pair p;
	struct ordk_wc extra;
	uint64_t id = 1;

	func_pair_open(&p, BUF, NULL);
	func_pair_qps(&p, mtu, 256);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (int op = ORDK_WR_RDMA_WRITE; op <= ORDK_WR_RDMA_READ; op++)
			one(&p, (enum ordk_wr_opcode)op, sizes[s], id++);
	/* nothing completed twice */
	func_idle(&p, 0.05);
	cr_assert_eq(ordk_cq_poll(p.s[0].cq, &extra, 1), 0);
	cr_assert_eq(ordk_cq_poll(p.s[1].cq, &extra, 1), 0);
	func_pair_close(&p);
}

Test(verbs_ops, pmtu_256, .timeout = 300)
{
	matrix(ORDK_MTU_256);
}

Test(verbs_ops, pmtu_1024, .timeout = 300)
{
	matrix(ORDK_MTU_1024);
}

Test(verbs_ops, pmtu_4096, .timeout = 300)
{
	matrix(ORDK_MTU_4096);
}
