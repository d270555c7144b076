/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stale handles: a PD, MR, CQ or QP destroyed twice, or destroyed again after
 * a new object was created (which may get the old one's memory), gets EINVAL
 * and never touches the live object; nothing crashes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "func_common.h"
#include "sim_host.h"

FUNC_PAIR_SUITE(verbs_handles, 1 << 20, 60);

static struct ordk_qp *
qp_on(struct func_side *s, struct ordk_pd *pd, struct ordk_cq *cq)
{
	struct ordk_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .max_send_wr = 8,
					.max_recv_wr = 8 };
	struct ordk_qp *qp = ordk_qp_create(pd ? pd : s->pd, &ia);

	cr_assert_not_null(qp, "qp_create: %s", rte_strerror(rte_errno));
	return qp;
}

/*
 * Prove @p qa (side 0, completing on @p cqa) works: connect it to a fresh QP
 * of side 1 and WRITE 64 bytes from side 0's buffer (through @p lkey at
 * offset @p off) into side 1's; the completion and the bytes must arrive.
 */
static void
write_through(struct ordk_qp *qa, struct ordk_cq *cqa, uint32_t lkey, size_t off)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	struct ordk_qp *qb = qp_on(b, NULL, b->cq);
	struct ordk_send_wr wr = { .wr_id = 77, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc;
	double end = test_now_s() + 10;
	int k = 0;

	func_connect(a, qa, b, qb, ORDK_MTU_1024);
	memset(a->buf + off, 0x5A, 64);
	memset(b->buf + 4096, 0, 64);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)(a->buf + off), 64, lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b->buf + 4096);
	wr.rdma.rkey = b->mr->rkey;
	cr_assert_eq(ordk_qp_post_send(qa, &wr, 1), 1, "post: %s", rte_strerror(rte_errno));
	while (k == 0 && test_now_s() < end) {
		ordk_dev_poll(b->dev, 64);
		k = ordk_cq_poll(cqa, &wc, 1);
		cr_assert_geq(k, 0);
	}
	cr_assert_eq(k, 1, "the WRITE completed");
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, 77);
	cr_assert_arr_eq(b->buf + 4096, a->buf + off, 64);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
}

Test(verbs_handles, stale_pd)
{
	struct ordk_pd *a = ordk_pd_alloc(p.s[0].dev), *b;
	struct ordk_mr *mr;

	cr_assert_not_null(a);
	cr_assert_eq(ordk_pd_free(a), 0);
	b = ordk_pd_alloc(p.s[0].dev);
	cr_assert_not_null(b);
	cr_assert_eq(ordk_pd_free(a), -EINVAL, "a stale PD handle");
	/* b is intact: it takes an MR, and refuses to go while the MR is there */
	mr = ordk_mr_reg(b, p.s[0].buf, 4096, ORDK_ACCESS_LOCAL_WRITE);
	cr_assert_not_null(mr, "mr_reg on the live PD: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_pd_free(b), -EBUSY);
	cr_assert_null(ordk_mr_reg(a, p.s[0].buf, 4096, 1), "no MR on a stale PD");
	cr_assert_eq(rte_errno, EINVAL);
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	cr_assert_eq(ordk_pd_free(b), 0);
	cr_assert_eq(ordk_pd_free(b), -EINVAL, "double free");
}

Test(verbs_handles, stale_mr)
{
	struct func_side *s = &p.s[0];
	struct ordk_mr *a = ordk_mr_reg(s->pd, s->buf, 4096, 7), *b;
	struct ordk_qp *qp;

	cr_assert_not_null(a);
	cr_assert_eq(ordk_mr_dereg(a), 0);
	b = ordk_mr_reg(s->pd, s->buf + 8192, 4096, 7);
	cr_assert_not_null(b);
	cr_assert_eq(ordk_mr_dereg(a), -EINVAL, "a stale MR handle");
	/* b still works: a WRITE from its memory through its lkey */
	qp = qp_on(s, NULL, s->cq);
	write_through(qp, s->cq, b->lkey, 8192);
	cr_assert_eq(ordk_qp_destroy(qp), 0);
	cr_assert_eq(ordk_mr_dereg(b), 0);
	cr_assert_eq(ordk_mr_dereg(b), -EINVAL, "double dereg");
}

Test(verbs_handles, stale_cq)
{
	struct func_side *s = &p.s[0];
	struct ordk_cq *a = ordk_cq_create(s->dev, 16), *b;
	struct ordk_wc wc;
	struct ordk_qp *qp;

	cr_assert_not_null(a);
	cr_assert_eq(ordk_cq_destroy(a), 0);
	b = ordk_cq_create(s->dev, 16);
	cr_assert_not_null(b);
	cr_assert_eq(ordk_cq_destroy(a), -EINVAL, "a stale CQ handle");
	cr_assert_eq(ordk_cq_poll(a, &wc, 1), -EINVAL, "poll of a stale CQ");
	cr_assert_null(ordk_qp_create(s->pd, &(struct ordk_qp_init_attr){
					.send_cq = a, .recv_cq = a, .max_send_wr = 1,
					.max_recv_wr = 1 }),
		       "no QP on a stale CQ");
	cr_assert_eq(rte_errno, EINVAL);
	/* b still works: it takes a QP's completions */
	qp = qp_on(s, NULL, b);
	cr_assert_eq(ordk_cq_destroy(b), -EBUSY);
	write_through(qp, b, s->mr->lkey, 0);
	cr_assert_eq(ordk_qp_destroy(qp), 0);
	cr_assert_eq(ordk_cq_destroy(b), 0);
	cr_assert_eq(ordk_cq_destroy(b), -EINVAL, "double destroy");
}

Test(verbs_handles, stale_qp)
{
	struct func_side *s = &p.s[0];
	struct ordk_qp *a = qp_on(s, NULL, s->cq), *b;
	struct ordk_qp_attr at = { .qp_state = ORDK_QPS_ERR };
	struct ordk_qp_info info;

	cr_assert_eq(ordk_qp_destroy(a), 0);
	b = qp_on(s, NULL, s->cq);
	cr_assert_eq(ordk_qp_destroy(a), -EINVAL, "a stale QP handle");
	cr_assert_eq(ordk_qp_modify(a, &at, ORDK_QP_STATE), -EINVAL);
	cr_assert_eq(ordk_qp_info(a, &info), -EINVAL);
	cr_assert_eq(ordk_qp_info(b, &info), 0);
	cr_assert_eq(info.state, ORDK_QPS_RESET, "the live QP was not touched");
	write_through(b, s->cq, s->mr->lkey, 0);
	cr_assert_eq(ordk_qp_destroy(b), 0);
	cr_assert_eq(ordk_qp_destroy(b), -EINVAL, "double destroy");
}

/* Many rounds of create/destroy interleaved: every stale handle of every kind stays stale. */
Test(verbs_handles, churn)
{
	struct func_side *s = &p.s[0];
	struct ordk_pd *pd[4];
	struct ordk_cq *cq[4];
	struct ordk_mr *mr[4];
	struct ordk_qp *qp[4];

	for (int round = 0; round < 50; round++) {
		for (int i = 0; i < 4; i++) {
			pd[i] = ordk_pd_alloc(s->dev);
			cq[i] = ordk_cq_create(s->dev, 4);
			cr_assert(pd[i] && cq[i]);
			mr[i] = ordk_mr_reg(pd[i], s->buf + 4096 * i, 4096, 1);
			cr_assert_not_null(mr[i]);
			qp[i] = qp_on(s, pd[i], cq[i]);
		}
		for (int i = 0; i < 4; i++) {
			cr_assert_eq(ordk_qp_destroy(qp[i]), 0);
			cr_assert_eq(ordk_mr_dereg(mr[i]), 0);
			cr_assert_eq(ordk_cq_destroy(cq[i]), 0);
			cr_assert_eq(ordk_pd_free(pd[i]), 0);
		}
		for (int i = 0; i < 4; i++) {
			cr_assert_eq(ordk_qp_destroy(qp[i]), -EINVAL);
			cr_assert_eq(ordk_mr_dereg(mr[i]), -EINVAL);
			cr_assert_eq(ordk_cq_destroy(cq[i]), -EINVAL);
			cr_assert_eq(ordk_pd_free(pd[i]), -EINVAL);
		}
	}
}
