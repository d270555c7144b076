/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous events and CQ overflow, as ibverbs has them: a CQ that
 * overflows goes to error (CQ_ERR), its QPs to ERR (QP_FATAL each, their WRs
 * flushed), ordk_cq_poll() says so; a QP that fails on its own (retries
 * exhausted) raises QP_FATAL.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "func_common.h"
#include "sim_host.h"

FUNC_PAIR_SUITE(verbs_events, 1 << 20, 60);

/* Poll both devices until side 0 has an event (or fail after @p seconds). */
static void
wait_event(struct ordk_async_event *ev, double seconds)
{
	double end = test_now_s() + seconds;
	int rc;

	while ((rc = ordk_dev_get_async_event(p.s[0].dev, ev)) == -EAGAIN) {
		cr_assert_lt(test_now_s(), end, "no event after %.1f s", seconds);
		ordk_dev_poll(p.s[0].dev, 64);
		ordk_dev_poll(p.s[1].dev, 64);
	}
	cr_assert_eq(rc, 0);
}

static struct ordk_qp *
qp_with(struct func_side *s, struct ordk_cq *scq, struct ordk_cq *rcq, uint32_t wr)
{
	struct ordk_qp_init_attr ia = { .send_cq = scq, .recv_cq = rcq, .max_send_wr = wr,
					.max_recv_wr = wr };
	struct ordk_qp *qp = ordk_qp_create(s->pd, &ia);

	cr_assert_not_null(qp, "qp_create: %s", rte_strerror(rte_errno));
	return qp;
}

static void
post_writes(struct ordk_qp *qp, int n)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];

	for (int i = 0; i < n; i++) {
		struct ordk_send_wr wr = { .wr_id = (uint64_t)i, .opcode = ORDK_WR_RDMA_WRITE,
					   .num_sge = 1, .send_flags = ORDK_SEND_SIGNALED };

		wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf + 64u * i, 64, a->mr->lkey };
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf + 64u * i;
		wr.rdma.rkey = b->mr->rkey;
		cr_assert_eq(ordk_qp_post_send(qp, &wr, 1), 1, "post %d: %s", i,
			     rte_strerror(rte_errno));
	}
}

/* The case: a CQ of 4, 32 signalled WRITEs, nobody polling it. */
Test(verbs_events, cq_overflow_is_an_error)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	struct ordk_cq *small = ordk_cq_create(a->dev, 4), *rcq = ordk_cq_create(a->dev, 64);
	struct ordk_qp *qa = qp_with(a, small, rcq, 64), *qb = qp_with(b, b->cq, b->cq, 64);
	struct ordk_recv_wr rwr[2] = { { .wr_id = 1000 }, { .wr_id = 1001 } };
	struct ordk_async_event ev;
	struct ordk_qp_info info;
	struct ordk_stats st;
	struct ordk_wc wc[64];
	int k, got = 0;

	cr_assert(small && rcq);
	func_connect(a, qa, b, qb, ORDK_MTU_1024);
	cr_assert_eq(ordk_qp_post_recv(qa, rwr, 2), 2);
	post_writes(qa, 32);

	wait_event(&ev, 10);
	cr_assert_eq(ev.event_type, ORDK_EVENT_CQ_ERR, "%s", ordk_event_type_str(ev.event_type));
	cr_assert_eq(ev.element.cq, small);
	wait_event(&ev, 10);
	cr_assert_eq(ev.event_type, ORDK_EVENT_QP_FATAL, "%s", ordk_event_type_str(ev.event_type));
	cr_assert_eq(ev.element.qp, qa);
	cr_assert_eq(ev.qp_num, ordk_qp_num(qa));
	cr_assert_eq(ordk_dev_get_async_event(a->dev, &ev), -EAGAIN, "one QP, one QP event");

	cr_assert_eq(ordk_qp_info(qa, &info), 0);
	cr_assert_eq(info.state, ORDK_QPS_ERR, "the QP of a CQ in error is in ERR, not %s",
		     ordk_qp_state_str(info.state));
	cr_assert_eq(info.send_outstanding, 0, "its WRs are flushed");
	/* the 4 completions the CQ held, then the error, for good */
	while ((k = ordk_cq_poll(small, wc + got, 64 - got)) > 0)
		got += k;
	cr_assert_eq(k, -EOVERFLOW, "ordk_cq_poll of a CQ in error: %d", k);
	cr_assert_eq(got, 4);
	for (int i = 0; i < got; i++) {
		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS);
		cr_assert_eq(wc[i].wr_id, (uint64_t)i);
	}
	cr_assert_eq(ordk_cq_poll(small, wc, 1), -EOVERFLOW);
	/* the healthy receive CQ gets the RECVs flushed */
	k = ordk_cq_poll(rcq, wc, 64);
	cr_assert_eq(k, 2);
	cr_assert_eq(wc[0].status, ORDK_WC_WR_FLUSH_ERR);
	cr_assert_eq(wc[1].wr_id, 1001);
	cr_assert_eq(ordk_dev_stats(a->dev, &st), 0);
	cr_assert_geq(st.cq_overflow, 28, "every lost completion counted: %" PRIu64,
		      st.cq_overflow);
	/* a post to the QP in ERR is accepted and flushed into the CQ in error: lost, counted */
	{
		uint64_t before = st.cq_overflow;

		cr_assert_eq(ordk_qp_post_send(qa, &(struct ordk_send_wr){ .opcode = ORDK_WR_SEND }, 1),
			     1);
		cr_assert_eq(ordk_dev_stats(a->dev, &st), 0);
		cr_assert_eq(st.cq_overflow, before + 1);
	}

	cr_assert_eq(ordk_qp_destroy(qa), 0);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
	cr_assert_eq(ordk_cq_destroy(small), 0);
	cr_assert_eq(ordk_cq_destroy(rcq), 0);
}

/* Other QPs on other CQs go on working. */
Test(verbs_events, other_cqs_unaffected)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	struct ordk_cq *small = ordk_cq_create(a->dev, 2);
	struct ordk_qp *qa = qp_with(a, small, small, 16), *qb = qp_with(b, b->cq, b->cq, 16);
	struct ordk_async_event ev;
	struct ordk_wc wc[4];

	func_pair_qps(&p, ORDK_MTU_1024, 16);
	func_connect(a, qa, b, qb, ORDK_MTU_1024);
	post_writes(qa, 8);
	wait_event(&ev, 10);
	cr_assert_eq(ev.event_type, ORDK_EVENT_CQ_ERR);
	post_writes(a->qp, 3);
	func_wait(&p, 0, wc, 3, 10);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS);
	cr_assert_eq(ordk_qp_destroy(qa), 0);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
	cr_assert_eq(ordk_cq_destroy(small), 0);
}

struct seen {
	int n;
	struct ordk_async_event ev[8];
};

static void
on_event(struct ordk_dev *dev, const struct ordk_async_event *ev, void *arg)
{
	struct seen *s = arg;

	cr_assert_eq(dev, p.s[0].dev);
	if (s->n < 8)
		s->ev[s->n] = *ev;
	s->n++;
}

/* Retries exhausted: RETRY_EXC_ERR completes the WR and QP_FATAL tells the application, here
 * through the callback. */
Test(verbs_events, retry_exceeded_raises_qp_fatal)
{
	struct func_side *a = &p.s[0];
	struct seen seen = { 0 };
	struct ordk_async_event ev;
	struct ordk_wc wc;
	double end;

	func_pair_qps(&p, ORDK_MTU_1024, 16);
	cr_assert_eq(ordk_dev_set_async_cb(a->dev, on_event, &seen), 0);
	cr_assert_eq(ordk_dev_set_faults(a->dev, "drop-tx:1"), 0);
	post_writes(a->qp, 1);
	func_wait(&p, 0, &wc, 1, 20);
	cr_assert_eq(wc.status, ORDK_WC_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc.status));
	end = test_now_s() + 5;
	while (seen.n == 0 && test_now_s() < end)
		ordk_dev_poll(a->dev, 64);
	cr_assert_eq(seen.n, 1, "one event: %d", seen.n);
	cr_assert_eq(seen.ev[0].event_type, ORDK_EVENT_QP_FATAL);
	cr_assert_eq(seen.ev[0].element.qp, a->qp);
	cr_assert_eq(ordk_dev_get_async_event(a->dev, &ev), -EAGAIN, "the callback took it");
	cr_assert_eq(ordk_dev_set_async_cb(a->dev, NULL, NULL), 0);
	cr_assert_eq(ordk_dev_set_faults(a->dev, "drop-tx:0"), 0);
}

Test(verbs_events, names)
{
	cr_assert_str_eq(ordk_event_type_str(ORDK_EVENT_CQ_ERR), "CQ error");
	cr_assert_str_eq(ordk_event_type_str(ORDK_EVENT_QP_FATAL), "QP fatal error");
	cr_assert_str_eq(ordk_event_type_str(ORDK_EVENT_COUNT), "unknown");
	cr_assert_eq(ordk_dev_get_async_event(NULL, NULL), -EINVAL);
	cr_assert_eq(ordk_dev_get_async_event(p.s[0].dev, NULL), -EINVAL);
}
