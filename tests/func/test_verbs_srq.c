/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues: one pool of RECVs lent to many QPs (architecture.md,
 * shared receive queues). Every SEND lands in one RECV exactly once, on its own
 * QP, in that QP's order; a busy QP does not starve the others; the limit event
 * fires once when armed; a QP that dies gives its lent RECVs back and raises
 * LAST_WQE_REACHED; an SRQ in use is not destroyed; bad input is refused.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "func_common.h"

#define NQP 8
#define MSG 64u	      /* bytes of a SEND: its QP and sequence number, then a pattern */
#define RECVS 32u     /* the SRQ's RECVs: fewer than NQP x RC_SRQ_WINDOW */

FUNC_PAIR_SUITE(verbs_srq, 1u << 20, 120);

static struct ordk_srq *
srq_new(struct func_side *s, uint32_t max_wr, uint32_t limit)
{
	struct ordk_srq_attr a = { .max_wr = max_wr, .max_sge = 1, .srq_limit = limit };
	struct ordk_srq *srq = ordk_srq_create(s->pd, &a, s);

	cr_assert_not_null(srq, "ordk_srq_create: %s", rte_strerror(rte_errno));
	return srq;
}

/* A QP of side @p s, on @p srq or (NULL) with RECVs of its own */
static struct ordk_qp *
qp_new(struct func_side *s, struct ordk_srq *srq)
{
	struct ordk_qp_init_attr ia = { .send_cq = s->cq, .recv_cq = s->cq, .max_send_wr = 16,
					.max_recv_wr = 1, .srq = srq };
	struct ordk_qp *qp = ordk_qp_create(s->pd, &ia);

	cr_assert_not_null(qp, "ordk_qp_create: %s", rte_strerror(rte_errno));
	return qp;
}

/* RECV slot @p slot of side @p s's buffer into the SRQ (wr_id: the slot) */
static void
srq_post(struct func_side *s, struct ordk_srq *srq, uint32_t slot)
{
	struct ordk_recv_wr rr = { .wr_id = slot, .num_sge = 1 };

	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)s->buf + slot * MSG, MSG, s->mr->lkey };
	cr_assert_eq(ordk_srq_post_recv(srq, &rr, 1), 1, "srq_post_recv: %s",
		     rte_strerror(rte_errno));
}

/* SEND number @p seq of QP index @p q: its tag, then bytes the receiver checks */
static void
send_one(struct func_side *s, struct ordk_qp *qp, uint32_t q, uint32_t seq)
{
	uint8_t *b = s->buf + (q * 64u + seq % 64u) * MSG; /* at most 8 in flight per QP */
	struct ordk_send_wr wr = { .wr_id = (uint64_t)q << 32 | seq, .opcode = ORDK_WR_SEND,
				   .num_sge = 1, .send_flags = ORDK_SEND_SIGNALED };

	memcpy(b, &q, 4);
	memcpy(b + 4, &seq, 4);
	for (uint32_t i = 8; i < MSG; i++)
		b[i] = (uint8_t)(q * 7 + seq + i);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)b, MSG, s->mr->lkey };
	cr_assert_eq(ordk_qp_post_send(qp, &wr, 1), 1, "post_send: %s", rte_strerror(rte_errno));
}

static int
qp_index(struct ordk_qp *const *qps, int n, uint32_t qpn)
{
	for (int i = 0; i < n; i++)
		if (ordk_qp_num(qps[i]) == qpn)
			return i;
	return -1;
}

/*
 * Eight QPs share 32 RECVs, QP 0 sending 400 SENDs, the others 3 to 24: every
 * SEND lands exactly once, in a RECV its own QP was lent (wc.qp_num, and the
 * tag in the buffer), in order per QP; the light QPs finish although the heavy
 * one keeps its window busy the whole time.
 */
Test(verbs_srq, many_qps_uneven_load_every_send_once)
{
	struct ordk_qp *qa[NQP], *qb[NQP];
	uint32_t want[NQP], sent[NQP] = { 0 }, done[NQP] = { 0 }, got[NQP] = { 0 }, total = 0;
	uint32_t recvd = 0;
	struct ordk_srq *srq = srq_new(&p.s[1], RECVS, 0);
	struct ordk_wc wc[64];
	struct ordk_stats st;

	for (int i = 0; i < NQP; i++) {
		qa[i] = qp_new(&p.s[0], NULL);
		qb[i] = qp_new(&p.s[1], srq);
		func_connect(&p.s[0], qa[i], &p.s[1], qb[i], ORDK_MTU_1024);
		want[i] = i == 0 ? 400 : 3u * (uint32_t)i;
		total += want[i];
	}
	for (uint32_t s = 0; s < RECVS; s++)
		srq_post(&p.s[1], srq, s);
	for (int it = 0; recvd < total; it++) {
		int k;

		cr_assert_lt(it, 4000000, "%u of %u SENDs received", recvd, total);
		for (int i = 0; i < NQP; i++)
			while (sent[i] < want[i] && sent[i] - done[i] < 8)
				send_one(&p.s[0], qa[i], (uint32_t)i, sent[i]++);
		k = ordk_cq_poll(p.s[0].cq, wc, 64);
		for (int j = 0; j < k; j++) {
			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "%s",
				     ordk_wc_status_str(wc[j].status));
			done[wc[j].wr_id >> 32]++;
		}
		k = ordk_cq_poll(p.s[1].cq, wc, 64);
		for (int j = 0; j < k; j++) {
			const uint8_t *b = p.s[1].buf + wc[j].wr_id * MSG;
			int q = qp_index(qb, NQP, wc[j].qp_num);
			uint32_t tq, seq;

			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "%s",
				     ordk_wc_status_str(wc[j].status));
			cr_assert_eq(wc[j].opcode, ORDK_WC_RECV);
			cr_assert_eq(wc[j].byte_len, MSG);
			cr_assert_geq(q, 0, "wc.qp_num 0x%x: none of the SRQ's", wc[j].qp_num);
			memcpy(&tq, b, 4);
			memcpy(&seq, b + 4, 4);
			cr_assert_eq(tq, (uint32_t)q, "QP %d's RECV holds QP %u's SEND", q, tq);
			cr_assert_eq(seq, got[q], "QP %d: SEND %u, %u next (once, in order)", q,
				     seq, got[q]);
			for (uint32_t i = 8; i < MSG; i++)
				cr_assert_eq(b[i], (uint8_t)(q * 7 + seq + i));
			got[q]++;
			recvd++;
			srq_post(&p.s[1], srq, (uint32_t)wc[j].wr_id); /* the slot goes back */
		}
	}
	for (int i = 0; i < NQP; i++)
		cr_assert_eq(got[i], want[i], "QP %d: %u of %u", i, got[i], want[i]);
	func_idle(&p, 0.05);
	cr_assert_eq(ordk_cq_poll(p.s[1].cq, wc, 64), 0, "no SEND twice");
	cr_assert_eq(ordk_dev_stats(p.s[1].dev, &st), 0);
	cr_assert_geq(st.srq_lent, total);
	cr_assert_eq(st.srq_overrun, 0);
	cr_assert_eq(st.recv_completed, total);
	for (int i = 0; i < NQP; i++) {
		cr_assert_eq(ordk_qp_destroy(qa[i]), 0);
		cr_assert_eq(ordk_qp_destroy(qb[i]), 0);
	}
	cr_assert_eq(ordk_srq_destroy(srq), 0);
}

static int
events_of(struct ordk_dev *dev, enum ordk_event_type type, struct ordk_async_event *last)
{
	struct ordk_async_event ev = { .event_type = ORDK_EVENT_COUNT };
	int n = 0;

	while (ordk_dev_get_async_event(dev, &ev) == 0)
		if (ev.event_type == type) {
			n++;
			*last = ev;
		}
	return n;
}

/* @p n SENDs from qa (QP index @p q, from sequence @p from), each completed at both ends. */
static void
exchange(struct ordk_qp *qa, uint32_t q, uint32_t from, uint32_t n)
{
	struct ordk_wc wc[16];

	for (uint32_t i = 0; i < n; i++) {
		send_one(&p.s[0], qa, q, from + i);
		func_wait(&p, 0, wc, 1, 10);
		cr_assert_eq(wc[0].status, ORDK_WC_SUCCESS);
		func_wait(&p, 1, wc, 1, 10);
		cr_assert_eq(wc[0].status, ORDK_WC_SUCCESS);
	}
}

/* Armed at 8 of 16, the limit fires as the 9th RECV is consumed, once; armed again, again. */
Test(verbs_srq, limit_fires_once_when_armed)
{
	struct ordk_srq *srq = srq_new(&p.s[1], 16, 0);
	struct ordk_srq_attr a = { .srq_limit = 8 };
	struct ordk_qp *qa = qp_new(&p.s[0], NULL), *qb = qp_new(&p.s[1], srq);
	struct ordk_async_event ev = { .event_type = ORDK_EVENT_COUNT };

	func_connect(&p.s[0], qa, &p.s[1], qb, ORDK_MTU_4096);
	for (uint32_t s = 0; s < 16; s++)
		srq_post(&p.s[1], srq, s);
	cr_assert_eq(ordk_srq_modify(srq, &a, ORDK_SRQ_LIMIT), 0);
	cr_assert_eq(ordk_srq_query(srq, &a), 0);
	cr_assert_eq(a.srq_limit, 8);
	exchange(qa, 0, 0, 8); /* 8 outstanding: not below */
	cr_assert_eq(events_of(p.s[1].dev, ORDK_EVENT_SRQ_LIMIT_REACHED, &ev), 0);
	exchange(qa, 0, 8, 1); /* 7 */
	cr_assert_eq(events_of(p.s[1].dev, ORDK_EVENT_SRQ_LIMIT_REACHED, &ev), 1);
	cr_assert_eq(ev.element.srq, srq);
	cr_assert_eq(ordk_srq_context(srq), &p.s[1]);
	cr_assert_eq(ordk_srq_query(srq, &a), 0);
	cr_assert_eq(a.srq_limit, 0, "fired: disarmed");
	exchange(qa, 0, 9, 3); /* 4: one-shot, nothing more */
	cr_assert_eq(events_of(p.s[1].dev, ORDK_EVENT_SRQ_LIMIT_REACHED, &ev), 0);
	a.srq_limit = 4;
	cr_assert_eq(ordk_srq_modify(srq, &a, ORDK_SRQ_LIMIT), 0);
	exchange(qa, 0, 12, 1); /* 3 */
	cr_assert_eq(events_of(p.s[1].dev, ORDK_EVENT_SRQ_LIMIT_REACHED, &ev), 1);
	cr_assert_eq(ordk_qp_destroy(qa), 0);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
	cr_assert_eq(ordk_srq_destroy(srq), 0);
}

/* Poll side @p side's device alone until @p qp holds @p n lent RECVs (or fail). */
static void
poll_until_lent(int side, struct ordk_qp *qp, uint32_t n)
{
	for (int i = 0; i < 200000 && FUNC_QP_INFO(qp, recv_posted) != n; i++)
		ordk_dev_poll(p.s[side].dev, 64);
	cr_assert_eq(FUNC_QP_INFO(qp, recv_posted), n);
}

/*
 * Two QPs share 16 RECVs. The first one's peer wants 8 and they are lent
 * (advertised, the peer not polled since); then that QP goes to ERR: its
 * RECVs are not flushed but given back, LAST_WQE_REACHED names it, and the
 * second QP receives 16 SENDs with nothing posted again.
 */
Test(verbs_srq, a_dead_qp_gives_back_its_recvs)
{
	struct ordk_srq *srq = srq_new(&p.s[1], 16, 0);
	struct ordk_qp *qa[2], *qb[2];
	struct ordk_qp_attr err = { .qp_state = ORDK_QPS_ERR };
	struct ordk_async_event ev = { .event_type = ORDK_EVENT_COUNT };
	struct ordk_wc wc[16];
	int flushed = 0;

	for (int i = 0; i < 2; i++) {
		qa[i] = qp_new(&p.s[0], NULL);
		qb[i] = qp_new(&p.s[1], srq);
		func_connect(&p.s[0], qa[i], &p.s[1], qb[i], ORDK_MTU_4096);
	}
	for (uint32_t s = 0; s < 16; s++)
		srq_post(&p.s[1], srq, s);
	func_idle(&p, 0.02);
	cr_assert_eq(FUNC_QP_INFO(qb[0], recv_posted), 0, "nothing lent before a SEND wants it");
	for (uint32_t i = 0; i < 8; i++)
		send_one(&p.s[0], qa[0], 0, i);
	for (int i = 0; i < 50; i++)
		ordk_dev_poll(p.s[0].dev, 64); /* its want goes out */
	poll_until_lent(1, qb[0], 8);
	cr_assert_eq(FUNC_QP_INFO(qb[1], recv_posted), 0);
	cr_assert_eq(ordk_qp_modify(qb[0], &err, ORDK_QP_STATE), 0);
	cr_assert_eq(ordk_qp_modify(qa[0], &err, ORDK_QP_STATE), 0); /* its 8 SENDs flushed */
	for (int i = 0; i < 100000 && flushed < 8; i++) {
		int k = ordk_cq_poll(p.s[0].cq, wc, 16);

		for (int j = 0; j < k; j++)
			cr_assert_eq(wc[j].status, ORDK_WC_WR_FLUSH_ERR);
		flushed += k;
	}
	cr_assert_eq(flushed, 8);
	func_idle(&p, 0.02);
	cr_assert_eq(ordk_cq_poll(p.s[1].cq, wc, 16), 0, "lent RECVs are not flushed");
	cr_assert_eq(events_of(p.s[1].dev, ORDK_EVENT_QP_LAST_WQE_REACHED, &ev), 1);
	cr_assert_eq(ev.element.qp, qb[0]);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, srq_returned), 8);
	exchange(qa[1], 1, 0, 16); /* all 16 through the survivor, none posted again */
	cr_assert_eq(FUNC_QP_INFO(qb[1], recv_posted), 0);
	/* ERR -> ERR: no second event */
	cr_assert_eq(ordk_qp_modify(qb[0], &err, ORDK_QP_STATE), 0);
	func_idle(&p, 0.01);
	cr_assert_eq(events_of(p.s[1].dev, ORDK_EVENT_QP_LAST_WQE_REACHED, &ev), 0);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(ordk_qp_destroy(qa[i]), 0);
		cr_assert_eq(ordk_qp_destroy(qb[i]), 0);
	}
	cr_assert_eq(ordk_srq_destroy(srq), 0);
}

/*
 * A QP on the SRQ keeps it alive, and the SRQ its PD (here another PD than the
 * QP's); once the QP is gone, the SRQ goes, and its handle is stale.
 */
Test(verbs_srq, destroy_while_in_use)
{
	struct ordk_pd *pd2 = ordk_pd_alloc(p.s[1].dev);
	struct ordk_srq_attr a = { .max_wr = 8, .max_sge = 1 };
	struct ordk_srq *srq;
	struct ordk_qp *qb;

	cr_assert_not_null(pd2);
	srq = ordk_srq_create(pd2, &a, NULL);
	cr_assert_not_null(srq);
	qb = qp_new(&p.s[1], srq);
	cr_assert_eq(ordk_srq_destroy(srq), -EBUSY);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
	cr_assert_eq(ordk_pd_free(pd2), -EBUSY, "the SRQ holds its PD");
	cr_assert_eq(ordk_srq_destroy(srq), 0);
	cr_assert_eq(ordk_pd_free(pd2), 0);
	cr_assert_eq(ordk_srq_destroy(srq), -EINVAL);
	cr_assert_eq(ordk_srq_post_recv(srq, &(struct ordk_recv_wr){ 0 }, 1), 0);
	cr_assert_eq(rte_errno, EINVAL);
	{
		struct ordk_qp_init_attr ia = { .send_cq = p.s[1].cq, .recv_cq = p.s[1].cq,
						.max_send_wr = 4, .srq = srq };

		cr_assert_null(ordk_qp_create(p.s[1].pd, &ia), "an SRQ destroyed");
		cr_assert_eq(rte_errno, EINVAL);
	}
}

Test(verbs_srq, bad_input_refused_and_counted)
{
	struct ordk_dev_attr da;
	struct ordk_srq_attr a = { .max_wr = 0, .max_sge = 1 };
	struct ordk_srq *srq;
	struct ordk_qp *qb;
	struct ordk_recv_wr rr = { .wr_id = 1, .num_sge = 2 };

	cr_assert_eq(ordk_dev_query(p.s[1].dev, &da), 0);
	cr_assert_gt(da.max_srq, 0);
	cr_assert_gt(da.max_srq_wr, 0);
	cr_assert_eq(da.max_srq_sge, 1);
	cr_assert_null(ordk_srq_create(p.s[1].pd, &a, NULL));
	cr_assert_eq(rte_errno, EINVAL);
	a.max_wr = da.max_srq_wr + 1;
	cr_assert_null(ordk_srq_create(p.s[1].pd, &a, NULL));
	a = (struct ordk_srq_attr){ .max_wr = 4, .max_sge = 2 };
	cr_assert_null(ordk_srq_create(p.s[1].pd, &a, NULL));
	a = (struct ordk_srq_attr){ .max_wr = 4, .max_sge = 1, .srq_limit = 5 };
	cr_assert_null(ordk_srq_create(p.s[1].pd, &a, NULL));
	cr_assert_null(ordk_srq_create(NULL, &a, NULL));
	srq = srq_new(&p.s[1], 4, 0);
	/* num_sge 2, an lkey of another device, a buffer past the MR */
	cr_assert_eq(ordk_srq_post_recv(srq, &rr, 1), 0);
	cr_assert_eq(rte_errno, EINVAL);
	rr.num_sge = 1;
	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, MSG, p.s[0].mr->lkey ^ 0xff };
	cr_assert_eq(ordk_srq_post_recv(srq, &rr, 1), 0);
	cr_assert_eq(rte_errno, EPERM);
	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[1].buf + p.s[1].len - 8, MSG,
				    p.s[1].mr->lkey };
	cr_assert_eq(ordk_srq_post_recv(srq, &rr, 1), 0);
	cr_assert_eq(rte_errno, EPERM);
	/* an overrun: the fifth of four */
	for (uint32_t s = 0; s < 4; s++)
		srq_post(&p.s[1], srq, s);
	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[1].buf, MSG, p.s[1].mr->lkey };
	cr_assert_eq(ordk_srq_post_recv(srq, &rr, 1), 0);
	cr_assert_eq(rte_errno, ENOMEM);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, srq_overrun), 1);
	/* resizing, a limit above max_wr, unknown bits */
	a = (struct ordk_srq_attr){ .max_wr = 8, .srq_limit = 5 };
	cr_assert_eq(ordk_srq_modify(srq, &a, ORDK_SRQ_MAX_WR), -ENOTSUP);
	cr_assert_eq(ordk_srq_modify(srq, &a, ORDK_SRQ_LIMIT), -EINVAL);
	cr_assert_eq(ordk_srq_modify(srq, &a, 1u << 7), -EINVAL);
	cr_assert_eq(ordk_srq_query(srq, &a), 0);
	cr_assert_eq(a.max_wr, 4);
	cr_assert_eq(a.srq_limit, 0);
	/* a QP on it has no receive queue of its own; an SRQ of another device is refused */
	qb = qp_new(&p.s[1], srq);
	cr_assert_eq(ordk_qp_post_recv(qb, &rr, 1), 0);
	cr_assert_eq(rte_errno, EINVAL);
	{
		struct ordk_qp_init_attr ia = { .send_cq = p.s[0].cq, .recv_cq = p.s[0].cq,
						.max_send_wr = 4, .srq = srq };

		cr_assert_null(ordk_qp_create(p.s[0].pd, &ia));
		cr_assert_eq(rte_errno, EINVAL);
	}
	cr_assert_eq(ordk_qp_destroy(qb), 0);
	cr_assert_eq(ordk_srq_destroy(srq), 0);
}
