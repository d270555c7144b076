/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software atomics. The card has none (doc/guides/drivers/blue_hw_interface.md
 * section 5.3), so CMP_AND_SWP and FETCH_AND_ADD travel as ORDK control
 * frames and the responder's CPU executes them on its host memory.
 * - Requester: up to max_rd_atomic atomics (less the READs outstanding) are
 *   in flight per QP, each with the next request id and the QP's next PSN
 *   (its place in the PSN stream, which atomics take none of). They do not
 *   wait for the earlier WRs' ACKs, and later WRITEs and SENDs do not wait
 *   for them (IBA: only a fenced WR waits for earlier READs and atomics);
 *   READs and atomics wait for each other (rc_req.c wqe_hold()). The
 *   budget counts the span of ids from the oldest unanswered atomic to the
 *   newest, answered ones between them included (rc_req.at_q): the
 *   responder's window and replay cache cover that span, so a lost answer
 *   can always be asked for again. The unanswered requests are resent on
 *   timeout with the same ids, and at once when a later one's answer comes
 *   (the responder answers in id order: theirs were lost). An answer
 *   completes its WR in posting order (rc_complete_sends()) and acknowledges
 *   the PSNs before it: the responder executed it only once they had all
 *   arrived.
 * - Responder: executes the requests in id order, each once every PSN
 *   before its psn arrived (it sees the WRITEs posted before it); a request
 *   that came early (an earlier id lost or late, or those PSNs) waits among
 *   the ORDK_MAX_RD_ATOMIC held, counted in atomics_held. It checks rkey,
 *   PD, REMOTE_ATOMIC access, bounds and 8-byte alignment in its own MR
 *   table, executes with CPU atomics, and keeps the last ORDK_ATOMIC_CACHE
 *   results: a resent request gets the saved result and is never executed
 *   twice. An id neither in the cache nor in the window of the next
 *   ORDK_MAX_RD_ATOMIC is ignored and counted (atomics_ignored).
 */
#include <errno.h>
#include <string.h>

#include "blue_verbs.h"

_Static_assert((ORDK_MAX_RD_ATOMIC & (ORDK_MAX_RD_ATOMIC - 1)) == 0,
	       "the atomics FIFO (rc_req.atomics) holds ORDK_MAX_RD_ATOMIC slots");
/* a resend of any atomic in flight (at most ORDK_MAX_RD_ATOMIC) finds its saved answer */
_Static_assert(ORDK_ATOMIC_CACHE >= 2 * ORDK_MAX_RD_ATOMIC, "the replay cache covers the window");

/* ------------------------------------------------------------ requester */

bool
rc_atomic_send(struct blue_qp *qp, struct rc_wqe *w)
{
	struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_ATOMIC_REQ);

	m.atomic_req.req_id = w->atomic_id;
	m.atomic_req.op = w->opcode == ORDK_WR_ATOMIC_CMP_AND_SWP ? BLUE_CTRL_ATOMIC_CMP_AND_SWP
								    : BLUE_CTRL_ATOMIC_FETCH_AND_ADD;
	m.atomic_req.raddr = w->raddr;
	m.atomic_req.rkey = w->rkey;
	m.atomic_req.psn = w->psn;
	m.atomic_req.compare_add = w->compare_add;
	m.atomic_req.swap = w->swap;
	return rc_send_ctrl(qp, &m);
}

/* Is @p w, one of the atomics FIFO, answered (done, or refused)? */
static bool
answered(const struct rc_wqe *w)
{
	return w->state == RC_WQE_DONE || w->state == RC_WQE_ERROR;
}

static struct rc_wqe *
at_wqe(struct blue_qp *qp, uint32_t i)
{
	return &qp->req.sq[qp->req.atomics[rc_fifo_at(&qp->req.at_q, i)]];
}

void
rc_atomic_resend(struct blue_qp *qp)
{
	for (uint32_t i = 0; i < qp->req.at_q.count; i++)
		if (!answered(at_wqe(qp, i)))
			rc_atomic_send(qp, at_wqe(qp, i));
}

/*
 * The answer to the atomic at position @p i came: the responder answers in
 * id order, so the unanswered ones before it lost theirs. Each is asked
 * again now (once: later answers do not ask again), not after the timeout.
 */
static void
resend_lost_answers(struct blue_qp *qp, uint32_t i)
{
	struct rc_req *rq = &qp->req;
	uint32_t id = at_wqe(qp, i)->atomic_id;

	for (uint32_t k = 0; k < i; k++) {
		struct rc_wqe *w = at_wqe(qp, k);

		if (!answered(w) && (int32_t)(w->atomic_id - rq->atomic_resent_to) >= 0) {
			rc_atomic_send(qp, w);
			qp->vqp.st.atomics_resent++;
		}
	}
	if ((int32_t)(id - rq->atomic_resent_to) > 0)
		rq->atomic_resent_to = id;
}

void
rc_atomic_rx_resp(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct rc_fifo *q = &qp->req.at_q;
	struct rc_wqe *w = NULL;
	uint32_t i;

	for (i = 0; i < q->count; i++) {
		w = at_wqe(qp, i);
		if (w->atomic_id == m->atomic_resp.req_id)
			break;
	}
	if (i == q->count || answered(w)) {
		qp->vqp.st.duplicates++; /* an answer to a request already answered */
		return;
	}
	if (m->atomic_resp.status != BLUE_CTRL_ATOMIC_OK) {
		/* IBA's NAK: the WR completes with the error, in order, then the QP fails */
		w->status = m->atomic_resp.status == BLUE_CTRL_ATOMIC_REM_ACCESS_ERR
				    ? ORDK_WC_REM_ACCESS_ERR : ORDK_WC_REM_INV_REQ_ERR;
		w->flags |= RC_WQE_FATAL;
		rc_wqe_to(qp, w, RC_WQE_ERROR);
	} else {
		/* the original value lands in the requester's local buffer */
		memcpy((void *)(uintptr_t)w->laddr, &m->atomic_resp.orig, 8);
		rc_wqe_to(qp, w, RC_WQE_DONE);
		qp->comp.rtx_retries = 0;
		qp->comp.rtx_backoff = 1;
		if (i > 0)
			resend_lost_answers(qp, i);
	}
	/*
	 * The FIFO spans from the oldest unanswered atomic to the newest: an
	 * answered one leaves it only from the front. Its length is the span
	 * of ids out, which the requester keeps within max_rd_atomic (rc_req.c
	 * wqe_hold()), so every id resent is in the responder's replay cache.
	 */
	while (q->count > 0 && answered(at_wqe(qp, 0)))
		rc_fifo_pop(q);
	if (w->state == RC_WQE_ERROR) {
		rc_complete_sends(qp);
		return;
	}
	/* executed once every PSN before it arrived: an ACK of those */
	rc_comp_acked(qp, w->psn);
	rc_complete_sends(qp);
	rc_timer_arm(qp);
	rc_activate(qp); /* a READ or an atomic held by the budget may go now */
}

/* ------------------------------------------------------------ responder */

static uint8_t
check_target(struct blue_qp *qp, uint64_t raddr, uint32_t rkey)
{
	int rc = rc_mr_check(qp, rkey, raddr, 8, ORDK_ACCESS_REMOTE_ATOMIC);

	/* the QP's access gates atomics as the MR's does (IBA) */
	if (!(qp->vqp.attr.qp_access_flags & ORDK_ACCESS_REMOTE_ATOMIC)) {
		qp->vqp.st.access_refused++;
		return BLUE_CTRL_ATOMIC_REM_ACCESS_ERR;
	}
	if (rc == -EPERM)
		return BLUE_CTRL_ATOMIC_REM_ACCESS_ERR;
	if (rc != 0 || raddr % 8 != 0)
		return BLUE_CTRL_ATOMIC_REM_INV_REQ;
	return BLUE_CTRL_ATOMIC_OK;
}

/* The saved answer @p c to the requester (lost: it asks again and gets it again). */
static void
answer(struct blue_qp *qp, const struct rc_atomic_saved *c)
{
	struct blue_ctrl_msg r = rc_ctrl_msg(qp, BLUE_CTRL_ATOMIC_RESP);

	r.atomic_resp.req_id = c->req_id;
	r.atomic_resp.status = c->status;
	r.atomic_resp.orig = c->orig;
	rc_send_ctrl(qp, &r);
}

/* Execute held request @p h (the expected id, its PSNs arrived), save and send its answer. */
static void
execute(struct blue_qp *qp, const struct rc_atomic_held *h)
{
	struct rc_atomic_saved *c = &qp->resp.atomic_cache[h->req_id % ORDK_ATOMIC_CACHE];
	uint8_t st = check_target(qp, h->raddr, h->rkey);
	uint64_t orig = 0;

	if (st == BLUE_CTRL_ATOMIC_OK &&
	    verbs_mr_atomic((uint64_t *)(uintptr_t)h->raddr, h->op == BLUE_CTRL_ATOMIC_CMP_AND_SWP,
			    h->compare_add, h->swap, &orig) != 0)
		st = BLUE_CTRL_ATOMIC_REM_ACCESS_ERR; /* the memory is gone */
	if (st == BLUE_CTRL_ATOMIC_OK) {
		qp->vqp.st.atomics_executed++;
	} else {
		qp->vqp.st.atomics_rejected++;
		qp->resp.atomic_refused = true; /* the requester's QP fails: nothing after it runs */
	}
	*c = (struct rc_atomic_saved){ .req_id = h->req_id, .valid = 1, .status = st,
				       .orig = orig };
	qp->resp.atomic_expect = h->req_id + 1;
	answer(qp, c);
}

void
rc_atomic_progress(struct blue_qp *qp)
{
	struct rc_resp *rs = &qp->resp;

	/* (after a refusal those held stay: the requester's QP failed) */
	while (rs->atomic_nheld > 0 && !rs->atomic_refused) {
		struct rc_atomic_held *h = &rs->atomic_held[rs->atomic_expect % ORDK_MAX_RD_ATOMIC];

		if (!h->valid || h->req_id != rs->atomic_expect ||
		    blue_psn_diff(rs->epsn, h->psn) < 0)
			return;
		h->valid = 0;
		rs->atomic_nheld--;
		execute(qp, h);
	}
}

/* Why request @p m is not taken: NULL if it is, else what is logged (counted as ignored). */
static const char *
not_taken(const struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	const struct rc_resp *rs = &qp->resp;

	/*
	 * A new request carries an id of the next ORDK_MAX_RD_ATOMIC (the most a
	 * requester has in flight), a resent one an id in the cache. Anything
	 * else is stale or forged: adopting its id would make every later
	 * legitimate request look old.
	 */
	if (m->atomic_req.req_id - rs->atomic_expect >= ORDK_MAX_RD_ATOMIC)
		return "outside the window";
	/* the requester keeps its PSNs within the receive window (rc_req.c) */
	if (blue_psn_diff(m->atomic_req.psn, rs->epsn) > (int32_t)ORDK_RECV_WINDOW)
		return "after a PSN beyond the receive window";
	if (rs->atomic_refused)
		return "after one refused";
	return NULL;
}

void
rc_atomic_rx_req(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct rc_resp *rs = &qp->resp;
	uint32_t id = m->atomic_req.req_id;
	const struct rc_atomic_saved *c = &rs->atomic_cache[id % ORDK_ATOMIC_CACHE];
	struct rc_atomic_held *h = &rs->atomic_held[id % ORDK_MAX_RD_ATOMIC];
	const char *why;

	if (c->valid && c->req_id == id) {
		/* a resent request: the saved result, never a second execution */
		qp->vqp.st.atomics_replayed++;
		answer(qp, c);
		return;
	}
	why = not_taken(qp, m);
	if (why != NULL) {
		RC_LOG(DEBUG, "qp 0x%06x: atomic request id %u psn 0x%06x ignored: %s (expected %u)",
		       qp->vqp.qpn, id, m->atomic_req.psn, why, rs->atomic_expect);
		qp->vqp.st.atomics_ignored++;
		return;
	}
	if (h->valid) {
		qp->vqp.st.duplicates++; /* held already: answered once it executes */
		return;
	}
	*h = (struct rc_atomic_held){ .req_id = id, .psn = m->atomic_req.psn, .valid = 1,
				      .op = m->atomic_req.op, .rkey = m->atomic_req.rkey,
				      .raddr = m->atomic_req.raddr,
				      .compare_add = m->atomic_req.compare_add,
				      .swap = m->atomic_req.swap };
	rs->atomic_nheld++;
	rc_atomic_progress(qp);
	if (h->valid)
		qp->vqp.st.atomics_held++; /* an earlier id, or PSNs before it, still to come */
}
