/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Completer: the peer's ACKs and NAKs, and the retransmission timer.
 *
 * A cumulative ACK (the peer driver's AckRemoteDriver) retires WRs in order;
 * a READ also needs its response, an atomic its answer; completions are in
 * posting order. The peer card's loss report (NakRemoteHw) and the peer
 * driver's NAK (NakRemoteDriver) mark PSNs for retransmission (rc_rtx.c).
 * A per-QP timer (IBA: 4.096 us << timeout; ~1 ms when timeout is 0, in
 * polling time: a pause in polling is not the peer's silence) with
 * exponential backoff asks the peer what arrived (rc_probe()); after
 * retry_cnt timeouts without progress the oldest WR fails with
 * RETRY_EXC_ERR, the QP goes to ERR and every other WR is flushed.
 * The completer's state and each send WQE's have one writer here
 * (rc_comp_to(), rc_wqe_to()), which takes what its table allows.
 */
#include "blue_verbs.h"

#define RC_MAX_BACKOFF 64u

/* ------------------------------------------------------------ state tables */

/* Is @p from -> @p to allowed by @p next_of (by state, a bit per next state)? */
static bool
sm_allows(const uint8_t *next_of, unsigned int n, unsigned int from, unsigned int to)
{
	return from < n && to < n && ((next_of[from] >> to) & 1);
}

/* A transition the table refuses is a bug: logged and counted, the state stays. */
static void
sm_refused(struct blue_qp *qp, enum rc_sm sm, unsigned int from, unsigned int to, uint32_t psn)
{
	RC_LOG(ERR, "qp 0x%06x: %s %s -> %s refused (psn 0x%06x)", qp->vqp.qpn,
	       sm == RC_SM_COMP ? "completer" : "WQE", rc_state_name(sm, from), rc_state_name(sm, to),
	       psn);
	qp->vqp.st.state_refused++;
}

#define COMP_TO(s)  (1u << RC_COMP_##s)
#define COMP_TIMER  (COMP_TO(IDLE) | COMP_TO(WAIT_ACK) | COMP_TO(RETRY))
#define COMP_FAIL   (COMP_TO(FLUSH) | COMP_TO(ERROR))

/*
 * The completer (doc/guides/prog_guide/architecture.md, "State machines"):
 * the timer's states follow its deadline and retries (rc_timer_set()); a
 * timeout after our length error settles; anything but error fails (flush,
 * again while the card is told) or is flushed at once (the application's
 * modify to ERR); reset goes to idle, after flush's owed flush (error).
 */
static const uint8_t comp_next[RC_COMP_NSTATES] = {
	[RC_COMP_IDLE] = COMP_TIMER | COMP_FAIL,
	[RC_COMP_WAIT_ACK] = COMP_TIMER | COMP_TO(SETTLE) | COMP_FAIL,
	[RC_COMP_RETRY] = COMP_TIMER | COMP_TO(SETTLE) | COMP_FAIL,
	[RC_COMP_SETTLE] = COMP_TO(IDLE) | COMP_FAIL,
	[RC_COMP_FLUSH] = COMP_FAIL,
	[RC_COMP_ERROR] = COMP_TO(IDLE) | COMP_TO(ERROR),
};

bool
rc_comp_to(struct blue_qp *qp, enum rc_comp_state next)
{
	if (!sm_allows(comp_next, RC_COMP_NSTATES, qp->comp.state, next)) {
		sm_refused(qp, RC_SM_COMP, qp->comp.state, next, qp->comp.acked_psn);
		return false;
	}
	qp->comp.state = next;
	return true;
}

#define WQE_TO(s) (1u << RC_WQE_##s)
/* what the peer's answers make of a WQE with PSNs: a READ's answer comes, it is answered, it fails */
#define WQE_PEER  (WQE_TO(ANSWERING) | WQE_TO(DONE) | WQE_TO(ERROR))

/*
 * A send WQE: the requester takes it from queued (bound first when it needs
 * an advert) to sending and, its items gone, to sent; the peer's answers
 * take it on. They may come while it is still sending: a READ is in the
 * READ FIFO from its start, and an answer or refusal matched to it counts
 * even before its one item left; an item the ring refuses fails it. Done
 * and error are final: the slot's next WR starts queued again (a new WQE).
 */
static const uint8_t wqe_next[RC_WQE_NSTATES] = {
	[RC_WQE_QUEUED] = WQE_TO(BOUND) | WQE_TO(SENDING),
	[RC_WQE_BOUND] = WQE_TO(SENDING),
	[RC_WQE_SENDING] = WQE_TO(SENT) | WQE_PEER,
	[RC_WQE_SENT] = WQE_PEER,
	[RC_WQE_ANSWERING] = WQE_TO(DONE) | WQE_TO(ERROR),
};

bool
rc_wqe_to(struct blue_qp *qp, struct rc_wqe *w, enum rc_wqe_state next)
{
	if (!sm_allows(wqe_next, RC_WQE_NSTATES, w->state, next)) {
		sm_refused(qp, RC_SM_WQE, w->state, next, w->psn);
		return false;
	}
	w->state = (uint8_t)next;
	/* a READ that ends, however, gives its card key back (its completion waits for that) */
	if (next == RC_WQE_DONE || next == RC_WQE_ERROR)
		rc_key_revoke(blue_qp_dev(qp), &w->k);
	return true;
}

/* ------------------------------------------------------------ completions */

/* Is every PSN of @p w acknowledged? */
static bool
wqe_acked(const struct blue_qp *qp, const struct rc_wqe *w)
{
	return blue_psn_diff(qp->comp.acked_psn, blue_psn_add(w->psn, w->npkts)) >= 0;
}

/*
 * May @p w, the oldest of its ring, complete? A READ answer once
 * acknowledged; a failed WR at once; any other once acknowledged, and then
 * a READ or an atomic once answered (done), a WRITE or SEND once the card
 * fetched the resends that read its buffer. Our too long SEND's
 * announcement, acknowledged, completes by failing the QP. A READ, done or
 * failed, also once the card confirmed its key's revocation: nothing lands
 * in a buffer the application got back (the engine asks again meanwhile,
 * rc_read_keys_retire()).
 */
static bool
key_gone(struct blue_qp *qp, struct rc_wqe *w)
{
	(void)rc_key_revoke_step(blue_qp_dev(qp), &w->k); /* one that waited for room */
	return rc_key_gone(blue_qp_dev(qp), &w->k);
}

static bool
wqe_may_complete(struct blue_qp *qp, struct rc_wqe *w)
{
	if (w->flags & RC_WQE_INTERNAL)
		return wqe_acked(qp, w);
	if (w->state == RC_WQE_ERROR)
		return key_gone(qp, w);
	if (!wqe_acked(qp, w))
		return false;
	if (w->flags & RC_WQE_LEN_ERR)
		return true;
	if (w->opcode == BLUE_WR_RDMA_READ || rc_is_atomic(w->opcode))
		return w->state == RC_WQE_DONE && key_gone(qp, w);
	return !rc_rtx_unfetched(qp);
}

/* Retire, in order, every WR the ACKs (and READ responses) have finished. */
void
rc_complete_sends(struct blue_qp *qp)
{
	/* READ answers: their own order, their own ring */
	while (qp->resp.ans_head != qp->resp.ans_next &&
	       wqe_may_complete(qp, &qp->resp.ans[qp->resp.ans_head % ORDK_ANS_RING]))
		qp->resp.ans_head++;
	while (qp->req.sq_head != qp->req.sq_next) {
		struct rc_wqe *w = &qp->req.sq[qp->req.sq_head & qp->req.sq_mask];
		bool failed = w->state == RC_WQE_ERROR;

		if (!wqe_may_complete(qp, w))
			break;
		/* the peer has the announcement of its too small RECV: both QPs fail */
		if (!failed && (w->flags & RC_WQE_LEN_ERR)) {
			rc_qp_fail(qp, ORDK_WC_REM_INV_REQ_ERR);
			return;
		}
		/* a WR of several WQEs (a READ's parts) completes with its last, or with
		 * the first part that fails (the parts after it are silent) */
		if (!(w->flags & (RC_WQE_INTERNAL | RC_WQE_SILENT)) &&
		    (failed || (w->signaled && !(w->flags & RC_WQE_PART)))) {
			struct ordk_wc wc = {
				.wr_id = w->wr_id, .opcode = rc_wc_opcode(w->opcode),
				.status = failed ? w->status : ORDK_WC_SUCCESS,
				.byte_len = w->len, .qp_num = qp->vqp.qpn };
			/* ibverbs: an atomic's byte_len is 8 */

			verbs_cq_push(qp->vqp.scq, &wc);
			if (failed)
				rc_wr_silence(&qp->req, qp->req.sq_head);
		}
		if (!(w->flags & (RC_WQE_INTERNAL | RC_WQE_PART))) {
			qp->req.sq_user--;
			qp->vqp.st.wr_completed++;
		}
		qp->req.sq_head++;
		if (failed && (w->flags & RC_WQE_FATAL)) {
			/* the responder refused it (READ_NAK): IBA's NAK ends the QP */
			RC_LOG(WARNING, "qp 0x%06x: %s; QP to ERR", qp->vqp.qpn,
			       ordk_wc_status_str((enum ordk_wc_status)w->status));
			rc_qp_error(qp);
			return;
		}
	}
}

/* Everything before @p psn is acknowledged. */
void
rc_comp_acked(struct blue_qp *qp, uint32_t psn)
{
	/* only forward, and never past what was sent */
	if (blue_psn_diff(psn, qp->comp.acked_psn) <= 0 || blue_psn_diff(psn, qp->req.next_psn) > 0)
		return;
	qp->comp.acked_psn = psn;
	/* progress: the retry count and the backoff start again */
	qp->comp.rtx_retries = 0;
	qp->comp.rtx_backoff = 1;
	rc_complete_sends(qp);
	rc_timer_arm(qp);
}

/*
 * Resend the PSNs the peer card's old window misses (zero bits of pre_bitmap),
 * after half the QP's timeout: the card reports a hole as soon as it slides
 * out of its window, and a delayed original overtaking the resend would be
 * placed after completion (see rc_ack.c hole_decide()).
 */
static uint32_t
nak_holes(struct blue_qp *qp, const struct blue_meta_ack *a)
{
	uint32_t base = rc_card_window_base(a->psn_before_slide);
	uint32_t named = 0;
	int start = -1;

	if (qp->req.rtx_count == 0)
		qp->req.rtx_not_before = rc_ptime(&blue_qp_dev(qp)->rc) + rc_hold_tsc(qp);

	for (int i = 0; i <= 128; i++) {
		bool have = i == 128 || ((i < 64 ? a->pre_bitmap.lo >> i : a->pre_bitmap.hi >> (i - 64)) & 1);

		if (!have && start < 0)
			start = i;
		if (have && start >= 0) {
			named += rc_retransmit_card(qp, blue_psn_add(base, (uint32_t)start),
						    blue_psn_add(base, (uint32_t)i));
			start = -1;
		}
	}
	if (named > 0)
		qp->comp.rtx_retries = 0;
	return named;
}

/* The sq index of the first too long SEND (RC_WQE_LEN_ERR), or sq_next when none. */
static uint32_t
len_err_wqe(const struct blue_qp *qp)
{
	uint32_t i;

	for (i = qp->req.sq_head; i != qp->req.sq_next; i++)
		if (qp->req.sq[i & qp->req.sq_mask].flags & RC_WQE_LEN_ERR)
			break;
	return i;
}

/*
 * The peer acknowledged our too long SEND's announcement (RC_WQE_LEN_ERR):
 * it is in ERR and answers nothing more. A READ or an atomic before that SEND whose
 * answer has not completed by the ACK timeout (lost, or never sent) cannot
 * be answered any more: it completes with WR_FLUSH_ERR instead of waiting
 * for the retry budget (RETRY_EXC_ERR); then the SEND fails the QP
 * (rc_complete_sends()). Our card's context goes invalid first, so no late
 * answer packet lands in a buffer given back: the QP waits in RC_COMP_SETTLE
 * for the card's answer, which the engine reaps (rc_len_err_reap()), instead
 * of this poll waiting for it. @return true when it started to settle.
 */
bool
rc_len_err_settle(struct blue_qp *qp)
{
	uint32_t i;

	if (qp->req.state != RC_REQ_LEN_ERR)
		return false;
	i = len_err_wqe(qp);
	if (i == qp->req.sq_next ||
	    blue_psn_diff(qp->comp.acked_psn,
			  blue_psn_add(qp->req.sq[i & qp->req.sq_mask].psn, 1)) < 0)
		return false;
	RC_LOG(DEBUG, "qp 0x%06x: the peer took our length error: %u READs unanswered to flush",
	       qp->vqp.qpn, qp->req.rd_q.count);
	if (!rc_comp_to(qp, RC_COMP_SETTLE))
		return false;
	rc_timer_set(qp, 0); /* after: the timer leaves a settling state alone */
	rc_qp_err_cmd_start(qp);
	rc_activate(qp);
	return true;
}

enum rc_step
rc_len_err_reap(struct blue_qp *qp)
{
	uint32_t i = len_err_wqe(qp);
	bool ok;

	if (!rc_qp_err_cmd_reaped(qp, &ok))
		return RC_MORE;
	for (uint32_t k = qp->req.sq_head; k != i; k++) {
		struct rc_wqe *w = &qp->req.sq[k & qp->req.sq_mask];

		if ((w->opcode == BLUE_WR_RDMA_READ || rc_is_atomic(w->opcode)) &&
		    w->state != RC_WQE_DONE && w->state != RC_WQE_ERROR) {
			w->status = ORDK_WC_WR_FLUSH_ERR;
			rc_wqe_to(qp, w, RC_WQE_ERROR);
		}
	}
	rc_fifo_clear(&qp->req.rd_q);
	rc_fifo_clear(&qp->req.at_q);
	/* up to the SEND, which fails the QP (FLUSH, on the command just reaped) */
	rc_complete_sends(qp);
	return RC_MORE;
}

/* The peer's ACKs and NAKs (meta reports of its driver's and its card's frames). */
void
rc_comp_rx_report(struct blue_qp *qp, const struct blue_meta_report *r)
{
	switch (r->kind) {
	case BLUE_META_ACK_REMOTE_DRIVER:
		qp->vqp.st.acks_received++;
		rc_comp_acked(qp, r->ack.psn_now);
		break;
	case BLUE_META_NAK_REMOTE_HW:
		/*
		 * The peer card's loss ACK: its old window's holes are lost PSNs,
		 * except those it never tracks (READ requests, zero-length SENDs:
		 * no payload) and those acknowledged meanwhile. A report naming no
		 * other is no NAK: on a clean wire, every window that held a READ
		 * request made one (issue 12 item 14).
		 */
		if (nak_holes(qp, &r->ack) > 0) {
			uint32_t base = rc_card_window_base(r->ack.psn_before_slide);

			qp->vqp.st.naks_received++;
			verbs_trace(blue_qp_handle(qp), VERBS_TRACE_nak_received, base,
				    blue_psn_add(base, 128));
		} else {
			qp->vqp.st.card_naks_untracked++;
		}
		break;
	default: /* BLUE_META_NAK_REMOTE_DRIVER */
		/* the peer driver: everything before psn_before_slide arrived,
		 * [psn_before_slide, psn_now) did not */
		qp->vqp.st.naks_received++;
		verbs_trace(blue_qp_handle(qp), VERBS_TRACE_nak_received, r->ack.psn_before_slide,
			    r->ack.psn_now);
		rc_comp_acked(qp, r->ack.psn_before_slide);
		rc_retransmit(qp, r->ack.psn_before_slide, r->ack.psn_now);
		break;
	}
}

/*
 * Derive the QP's timer lengths from attr.timeout, once per change (the
 * progress engine reads them for every active QP on every poll):
 * - the ACK timeout, IBA's 4.096 us << timeout (0: 8, about 1.05 ms);
 * - the hold: how long a hole may be a reordering before it is asked for,
 *   and how long a resent PSN is not resent again. Half the ACK timeout, but
 *   at most ORDK_HOLD_MAX_US: the timeout is for a silent peer; perftest-style
 *   QPs use timeout 14 (67 ms), and waiting 33 ms on every lost frame cut
 *   goodput under 1% loss to a few percent (bench_loss showed 0.02).
 */
void
rc_qp_set_timeout(struct blue_qp *qp)
{
	unsigned int t = qp->vqp.attr.timeout ? qp->vqp.attr.timeout : 8;
	uint64_t max = (uint64_t)ORDK_HOLD_MAX_US * blue_qp_dev(qp)->rc.tsc_hz / 1000000;

	if (t > 24)
		t = 24; /* 68 s: longer waits look like a hang to every user */
	qp->comp.timeout_tsc = (4096ull << t) * blue_qp_dev(qp)->rc.tsc_hz / 1000000000ull;
	qp->comp.hold_tsc = qp->comp.timeout_tsc / 2 < max ? qp->comp.timeout_tsc / 2 : max;
}

/* WRs pushed, or a WR partly pushed (it waits for the card window, rc_req.c) */
static bool
outstanding(const struct blue_qp *qp)
{
	return qp->req.sq_head != qp->req.sq_next || qp->resp.ans_head != qp->resp.ans_next ||
	       qp->req.pushed_psn != qp->comp.acked_psn;
}

void
rc_timer_arm(struct blue_qp *qp)
{
	/*
	 * A QP that went to ERR in the caller's rc_complete_sends() (rc_comp_acked(),
	 * rc_read_done()) has nothing outstanding: a deadline set now fired as
	 * soon as the QP was connected again (a timeout and a probe at the start
	 * of every new connection, on a clean wire).
	 */
	if (!outstanding(qp) || qp->comp.state == RC_COMP_FLUSH ||
	    qp->comp.state == RC_COMP_ERROR || qp->comp.state == RC_COMP_SETTLE ||
	    qp->vqp.attr.qp_state == ORDK_QPS_ERR ||
	    qp->vqp.attr.qp_state == ORDK_QPS_RESET) {
		rc_timer_set(qp, 0);
		return;
	}
	rc_timer_set(qp, rc_ptime(&blue_qp_dev(qp)->rc) +
			     rc_timeout_tsc(qp) * (qp->comp.rtx_backoff ? qp->comp.rtx_backoff : 1));
}

/*
 * The timeouts a QP asks the peer about before it gives up. retry_cnt is
 * the requester's (an RTS attribute): for READ answers alone, IBA's
 * responder has no budget and never fails; the requester recovers a lost
 * answer. Here the responder resends its answers itself, on the
 * requester's NAKs and its own timer, which asks the peer up to 7 times
 * and then stops, leaving the QP as it is. With retry_cnt, a responder in
 * RTR (perftest's bandwidth server never goes to RTS: retry_cnt 0) went to
 * ERR at the first timeout of an answer, and ignored every NAK after it
 * (ib_read_bw at 1% loss: RETRY_EXC_ERR at the requester).
 */
#define RC_ANSWER_RETRIES 7u /* IBA's largest retry_cnt */

static bool
only_answers(const struct blue_qp *qp)
{
	const struct rc_req *rq = &qp->req;

	return rq->sq_head == rq->sq_next &&
	       (rq->sq_next == rq->sq_tail || !rc_wqe_started(&rq->sq[rq->sq_next & rq->sq_mask]));
}

void
rc_timer_check(struct blue_qp *qp, uint64_t now)
{
	const struct rc_engine *e = &blue_qp_dev(qp)->rc;
	bool answers;

	if (qp->comp.rtx_deadline == 0 || now < qp->comp.rtx_deadline)
		return;
	/*
	 * While the card is still fetching items from the Send ring it is still
	 * transmitting, and the peer cannot have acknowledged what it has not
	 * received: the timeout counts from when the ring drained.
	 */
	if (e->send_busy_tsc + rc_timeout_tsc(qp) > now) {
		rc_timer_set(qp, e->send_busy_tsc +
				     rc_timeout_tsc(qp) * (qp->comp.rtx_backoff ? qp->comp.rtx_backoff : 1));
		return;
	}
	/* the peer took our too long SEND and is in ERR: nothing more will come */
	if (rc_len_err_settle(qp))
		return;
	qp->vqp.st.timeouts++;
	verbs_trace(blue_qp_handle(qp), VERBS_TRACE_timeout, qp->comp.acked_psn, qp->comp.rtx_retries);
	answers = only_answers(qp);
	if (qp->comp.rtx_retries >= (answers ? RC_ANSWER_RETRIES : qp->vqp.attr.retry_cnt)) {
		if (answers) {
			/* only READ answers: the requester's NAKs and probes still get resends */
			RC_LOG(DEBUG, "qp 0x%06x: READ answers unacknowledged after %u timeouts: "
				      "left to the requester", qp->vqp.qpn, qp->comp.rtx_retries);
			rc_timer_set(qp, 0);
			return;
		}
		qp->vqp.st.retry_exceeded++;
		rc_qp_fail(qp, ORDK_WC_RETRY_EXC_ERR);
		return;
	}
	/* intervals of polling time; wall less ptime: the polling gaps so far */
	RC_LOG(DEBUG, "qp 0x%06x: timer set %" PRIu64 " us ago, send ring busy %" PRIu64
		      " us ago, polling gaps %" PRIu64 " us",
	       qp->vqp.qpn, (now - qp->comp.rtx_set_tsc) * 1000000 / e->tsc_hz,
	       (now - e->send_busy_tsc) * 1000000 / e->tsc_hz,
	       (e->wall_tsc - e->ptime) * 1000000 / e->tsc_hz);
	qp->comp.rtx_retries++;
	qp->comp.rtx_backoff = qp->comp.rtx_backoff ? qp->comp.rtx_backoff * 2 : 2;
	if (qp->comp.rtx_backoff > RC_MAX_BACKOFF)
		qp->comp.rtx_backoff = RC_MAX_BACKOFF;
	/* the atomics in flight are asked again (same ids: the peer replays, never
	 * re-executes); PSNs outstanding, or nothing else: ask the peer what arrived
	 * (an atomic waits there for the PSNs before it) */
	/*
	 * Twice: a timeout means frames are being lost, and one round of
	 * recovery needs the question, the answer and the resend to arrive.
	 * Two copies of the small control frames cost nothing on a quiet link
	 * and make a round fail far less often (both are idempotent: the peer
	 * replays atomics from its cache, and a resend is never doubled within
	 * the hold).
	 */
	for (int copy = 0; copy < 2; copy++) {
		rc_atomic_resend(qp);
		if (qp->req.at_q.count == 0 || qp->req.pushed_psn != qp->comp.acked_psn)
			rc_probe(qp);
	}
	rc_timer_set(qp, now + rc_timeout_tsc(qp) * qp->comp.rtx_backoff);
	{
		const struct rc_wqe *w = &qp->req.sq[qp->req.sq_head & qp->req.sq_mask];

		RC_LOG(DEBUG, "qp 0x%06x: timeout %u (%s, requester %s), asking the peer about "
			      "0x%06x..0x%06x (head %u next %u tail %u op %u %s psn 0x%06x npkts %u flags %x)",
		       qp->vqp.qpn, qp->comp.rtx_retries, rc_state_name(RC_SM_COMP, qp->comp.state),
		       rc_state_name(RC_SM_REQ, qp->req.state), qp->comp.acked_psn,
		       qp->req.next_psn, qp->req.sq_head, qp->req.sq_next, qp->req.sq_tail,
		       w->opcode, rc_state_name(RC_SM_WQE, w->state), w->psn, w->npkts, w->flags);
	}
}
