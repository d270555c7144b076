/* SPDX-License-Identifier: BSD-3-Clause */
/* 64 QPs in parallel with interleaved traffic. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "func_common.h"

#define NQP 64
#define SLICE (256u << 10)

Test(verbs_scale, sixty_four_qps_interleaved, .timeout = 120)
{
	struct func_pair p;
	struct ordk_qp *qa[NQP], *qb[NQP];
	struct ordk_wc wc[256];
	int expect_a = 0, expect_b = 0, got_a = 0, got_b = 0;

	func_pair_open(&p, NQP * SLICE, NULL);
	for (int i = 0; i < NQP; i++) {
		struct ordk_qp_init_attr ia = { .max_send_wr = 16, .max_recv_wr = 16 };

		ia.send_cq = ia.recv_cq = p.s[0].cq;
		qa[i] = ordk_qp_create(p.s[0].pd, &ia);
		ia.send_cq = ia.recv_cq = p.s[1].cq;
		qb[i] = ordk_qp_create(p.s[1].pd, &ia);
		cr_assert(qa[i] && qb[i]);
		func_connect(&p.s[0], qa[i], &p.s[1], qb[i],
			     (enum ordk_mtu)(ORDK_MTU_256 + i % 5));
	}
	for (uint32_t i = 0; i < NQP * SLICE; i++)
		p.s[0].buf[i] = (uint8_t)(i * 31 + i / 4099);
	/* per QP: a WRITE of half its slice and a SEND of the other half, interleaved */
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < NQP; i++) {
			uint32_t off = (uint32_t)i * SLICE + round * (SLICE / 2), len = SLICE / 2 - i * 97;
			struct ordk_send_wr wr = { .wr_id = (uint64_t)i << 8 | round, .num_sge = 1,
						   .send_flags = ORDK_SEND_SIGNALED };

			wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf + off, len,
						    p.s[0].mr->lkey };
			if (round == 0) {
				wr.opcode = ORDK_WR_RDMA_WRITE;
				wr.rdma.remote_addr = (uint64_t)(uintptr_t)p.s[1].buf + off;
				wr.rdma.rkey = p.s[1].mr->rkey;
			} else {
				struct ordk_recv_wr rr = { .wr_id = (uint64_t)i, .num_sge = 1 };

				rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[1].buf + off, len,
							    p.s[1].mr->lkey };
				cr_assert_eq(ordk_qp_post_recv(qb[i], &rr, 1), 1);
				wr.opcode = ORDK_WR_SEND;
				expect_b++;
			}
			cr_assert_eq(ordk_qp_post_send(qa[i], &wr, 1), 1);
			expect_a++;
		}
	}
	for (int it = 0; it < 2000000 && (got_a < expect_a || got_b < expect_b); it++) {
		int k = ordk_cq_poll(p.s[0].cq, wc, 256);

		for (int j = 0; j < k; j++)
			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "wr %lx: %s",
				     (unsigned long)wc[j].wr_id, ordk_wc_status_str(wc[j].status));
		got_a += k;
		k = ordk_cq_poll(p.s[1].cq, wc, 256);
		for (int j = 0; j < k; j++) {
			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS);
			cr_assert_eq(wc[j].qp_num, ordk_qp_num(qb[wc[j].wr_id]), "RECV on its own QP");
		}
		got_b += k;
	}
	cr_assert_eq(got_a, expect_a);
	cr_assert_eq(got_b, expect_b);
	for (int i = 0; i < NQP; i++) {
		uint32_t base = (uint32_t)i * SLICE;

		cr_assert_eq(memcmp(p.s[1].buf + base, p.s[0].buf + base, SLICE / 2 - i * 97), 0,
			     "QP %d WRITE", i);
		cr_assert_eq(memcmp(p.s[1].buf + base + SLICE / 2, p.s[0].buf + base + SLICE / 2,
				    SLICE / 2 - i * 97), 0, "QP %d SEND", i);
		cr_assert_eq(ordk_qp_destroy(qa[i]), 0);
		cr_assert_eq(ordk_qp_destroy(qb[i]), 0);
	}
	func_pair_close(&p);
}
