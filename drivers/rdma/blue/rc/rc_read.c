/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA READ, both ends.
 * Requester: an answer comes in the peer's PSN space (the card reports its
 * FIRST and LAST only); the READ's timer moves with that answer and nothing
 * else, and a READ completes when its answer's last PSN arrived, if the
 * answer has the READ's length (its PSN count, the lengths its FIRST and
 * LAST or ONLY say): else it fails (BAD_RESP_ERR) and the QP goes to ERR.
 * Each READ's buffer gets a card key of its own (rc_key.c), which the
 * request carries: the card places the answer through it, so an answer lands
 * only in that buffer, and only while the READ is outstanding (the key is
 * revoked as the READ ends; its completion waits for the card's word).
 * Responder: a READ request becomes an answer in the QP's answer ring (its
 * max_dest_rd_atomic resources), answered in request order once every
 * earlier PSN arrived (rc_push); a request it cannot serve is refused with
 * a READ_NAK control frame.
 */
#include "blue_verbs.h"

/* ------------------------------------------------------------ requester */

/* A READ's answer is coming: its timer moves to @p deadline, never earlier. */
static void
read_timer_extend(struct blue_qp *qp, uint64_t deadline)
{
	if (qp->comp.rtx_deadline != 0 && deadline > qp->comp.rtx_deadline)
		rc_timer_set(qp, deadline);
}

/*
 * The oldest READ's answer is streaming (its first packet came at or before
 * @p now): the card reports no MIDDLE packet of a stream that flows (only
 * idle and loss reports name them), so nothing marks progress until the
 * LAST. The timer allows for the transfer at RC_READ_MIN_BPS on top of the
 * ACK timeout; a stalled or lossy stream is caught earlier by the card's
 * idle and loss reports.
 */
static void
read_answer_timer(struct blue_qp *qp, const struct rc_wqe *w, uint64_t now)
{
	read_timer_extend(qp, now + rc_timeout_tsc(qp) * (qp->comp.rtx_backoff ? qp->comp.rtx_backoff : 1) +
				      (uint64_t)w->len * blue_qp_dev(qp)->rc.tsc_hz / RC_READ_MIN_BPS);
}

/* PSNs the answer to READ @p w takes in the peer's space (the responder's packets). */
static uint32_t
read_answer_pkts(const struct blue_qp *qp, const struct rc_wqe *w)
{
	return rc_pkts(w->laddr, w->len, blue_pmtu_bytes(qp->vqp.attr.path_mtu));
}

/*
 * The answer to READ @p w (the @p i th outstanding) is not as long as the
 * READ: the peer is broken or hostile. IBA's requester takes a response it
 * cannot match to its request as a bad response: the READ completes with
 * BAD_RESP_ERR (not REM_OP_ERR: that one reports the responder's own NAK,
 * and no NAK came), then the QP goes to ERR (rc_complete_sends()).
 */
static void
answer_length_error(struct blue_qp *qp, struct rc_wqe *w, uint32_t i, const char *what)
{
	RC_LOG(WARNING, "qp 0x%06x: the answer to READ msn %u (%u B) %s: QP to ERR", qp->vqp.qpn,
	       w->msn, w->len, what);
	qp->vqp.st.read_resp_len_errors++;
	w->flags |= RC_WQE_FATAL;
	w->status = ORDK_WC_BAD_RESP_ERR;
	rc_wqe_to(qp, w, RC_WQE_ERROR);
	rc_fifo_remove(&qp->req.rd_q, qp->req.reads, i);
	rc_complete_sends(qp);
}

/* The first packet of the answer to an outstanding READ: note where it starts. */
void
rc_read_answer_seen(struct blue_qp *qp, uint16_t msn, uint32_t psn, uint32_t total_len,
		    uint64_t now)
{
	for (uint32_t i = 0; i < qp->req.rd_q.count; i++) {
		struct rc_wqe *w = &qp->req.sq[qp->req.reads[rc_fifo_at(&qp->req.rd_q, i)]];

		if (w->msn != msn)
			continue;
		if (w->state == RC_WQE_ANSWERING)
			return;
		/* a FIRST says the whole answer's length; a one-packet READ has none */
		if (total_len != w->len || read_answer_pkts(qp, w) < 2) {
			answer_length_error(qp, w, i, total_len != w->len ? "says another length"
									  : "has more than one packet");
			return;
		}
		rc_wqe_to(qp, w, RC_WQE_ANSWERING);
		w->ans_psn = psn;
		if (i == 0)
			read_answer_timer(qp, w, now);
		return;
	}
}

/*
 * Progress of the expected PSN inside the oldest READ's answer restarts the
 * timer (IBA 9.7.6.1.1), or a READ longer than the ACK timeout times out
 * while it is being answered. Progress anywhere else in the peer's space
 * (its own WRITEs to us) says nothing about the READ: a READ nobody answers
 * must time out however busy the peer is.
 */
void
rc_read_progress(struct blue_qp *qp)
{
	uint32_t before = qp->comp.rd_seen_epsn;
	const struct rc_wqe *w;

	qp->comp.rd_seen_epsn = qp->resp.epsn;
	if (qp->req.rd_q.count == 0 || qp->resp.epsn == before)
		return;
	w = &qp->req.sq[qp->req.reads[qp->req.rd_q.head]];
	if (w->state != RC_WQE_ANSWERING || blue_psn_diff(qp->resp.epsn, w->ans_psn) <= 0 ||
	    blue_psn_diff(before, blue_psn_add(w->ans_psn, read_answer_pkts(qp, w))) >= 0)
		return;
	/* progress, as an ACK is: the retry count starts again (an answer paced by
	 * the card window, rc_req.c, may take several timeouts) */
	qp->comp.rtx_retries = 0;
	read_timer_extend(qp, rc_ptime(&blue_qp_dev(qp)->rc) + rc_timeout_tsc(qp) *
							     (qp->comp.rtx_backoff ? qp->comp.rtx_backoff : 1));
}

/*
 * Does the answer ending with @p m have READ @p w's length? An ONLY: one
 * packet expected, of the READ's length. A LAST: its FIRST was seen (and
 * said the READ's length, rc_read_answer_seen()), the PSNs from it are as
 * many as the READ's packets, and the LAST's own length is that of the
 * READ's last packet. (What the card placed in between, MIDDLE packets, it
 * bounded by the READ's key and its own length checks.)
 */
static bool
answer_len_ok(const struct blue_qp *qp, const struct rc_wqe *w, const struct rc_msg *m)
{
	uint32_t npk = read_answer_pkts(qp, w), off, n;

	if (m->opcode == BLUE_OP_READ_RESPONSE_ONLY)
		return npk == 1 && m->len == w->len;
	if (w->state != RC_WQE_ANSWERING || npk < 2 ||
	    m->end_psn != blue_psn_add(w->ans_psn, npk - 1))
		return false;
	rc_pkt_span(w->laddr, w->len, blue_pmtu_bytes(qp->vqp.attr.path_mtu), npk - 1, &off, &n);
	return m->len == n;
}

/*
 * A READ response completed. Responses carry their request's MSN, so a
 * response to a re-sent request whose READ already finished is recognised
 * and ignored instead of finishing the next READ (its key is revoked by
 * then: the card drops it, unless it came before the card confirmed that).
 */
void
rc_read_done(struct blue_qp *qp, const struct rc_msg *m)
{
	struct rc_wqe *w;

	if (qp->req.rd_q.count == 0 || (w = &qp->req.sq[qp->req.reads[qp->req.rd_q.head]])->msn != m->msn) {
		qp->vqp.st.read_resp_unsolicited++; /* a READ response nobody waits for: dropped */
		RC_LOG(DEBUG, "qp 0x%06x: READ response msn %u, oldest READ msn %u (%u outstanding)",
		       qp->vqp.qpn, m->msn, qp->req.rd_q.count ? qp->req.sq[qp->req.reads[qp->req.rd_q.head]].msn : 0,
		       qp->req.rd_q.count);
		return;
	}
	if (!answer_len_ok(qp, w, m)) {
		answer_length_error(qp, w, 0, "is not as long as the READ");
		return;
	}
	rc_fifo_pop(&qp->req.rd_q);
	rc_wqe_to(qp, w, RC_WQE_DONE);
	qp->vqp.st.rx_bytes += w->len;
	/* the response proves the request arrived: an implicit ACK up to it */
	rc_comp_acked(qp, blue_psn_add(w->psn, 1));
	rc_complete_sends(qp);
	rc_timer_arm(qp);
	/* the next READ's answer may be streaming already */
	if (qp->req.rd_q.count > 0 &&
	    qp->req.sq[qp->req.reads[qp->req.rd_q.head]].state == RC_WQE_ANSWERING)
		read_answer_timer(qp, &qp->req.sq[qp->req.reads[qp->req.rd_q.head]], rc_ptime(&blue_qp_dev(qp)->rc));
}

/* ------------------------------------------------------------ READ keys */

/*
 * Keys are made a few WQEs ahead of the requester, so a READ's key is
 * usually confirmed by the time the READ may go: the command round trip
 * overlaps the READs before it instead of adding to each. The bound keeps
 * the MR-table slots a deep queue holds small (the table has BLUE_MAX_MR,
 * shared by every MR, RECV and READ of the device).
 */
#define RC_READ_KEYS_AHEAD 32u

bool
rc_read_key_ready(struct blue_qp *qp, struct rc_wqe *w)
{
	/* exactly the READ's buffer, with what the card checks for READ responses
	 * (REMOTE_WRITE in the entry, section 5.1), in the user MR's PGT run */
	return rc_key_ready(qp, &w->k, w->laddr, w->len, BLUE_ACC_REMOTE_WRITE,
			    &qp->vqp.st.read_keys_short);
}

void
rc_read_keys_ahead(struct blue_qp *qp)
{
	struct rc_req *rq = &qp->req;
	uint32_t i = (int32_t)(rq->key_next - rq->sq_next) > 0 ? rq->key_next : rq->sq_next;

	for (; i != rq->sq_tail && i - rq->sq_next < RC_READ_KEYS_AHEAD; i++) {
		struct rc_wqe *w = &rq->sq[i & rq->sq_mask];

		/* no slot, or no room on the command ring: a later poll goes on from here */
		if (w->opcode == BLUE_WR_RDMA_READ && w->k.state == RC_KEY_NONE &&
		    !rc_read_key_ready(qp, w) && w->k.state == RC_KEY_NONE)
			break;
	}
	rq->key_next = i;
}

void
rc_read_keys_revoke_all(struct blue_qp *qp)
{
	for (uint32_t i = qp->req.sq_head; i != qp->req.sq_tail; i++)
		rc_key_revoke(blue_qp_dev(qp), &qp->req.sq[i & qp->req.sq_mask].k);
}

enum rc_step
rc_read_keys_wait(struct blue_qp *qp)
{
	enum rc_step more = RC_DONE;

	for (uint32_t i = qp->req.sq_head; i != qp->req.sq_tail; i++) {
		struct rc_key *k = &qp->req.sq[i & qp->req.sq_mask].k;

		rc_key_revoke(blue_qp_dev(qp), k);
		(void)rc_key_revoke_step(blue_qp_dev(qp), k);
		if (!rc_key_gone(blue_qp_dev(qp), k))
			more = RC_MORE;
	}
	return more;
}

void
rc_read_keys_release(struct blue_qp *qp)
{
	for (uint32_t i = qp->req.sq_head; i != qp->req.sq_tail; i++)
		rc_key_orphan(blue_qp_dev(qp), &qp->req.sq[i & qp->req.sq_mask].k);
	qp->req.key_next = 0;
}

enum rc_step
rc_read_keys_retire(struct blue_qp *qp)
{
	const struct rc_wqe *w = &qp->req.sq[qp->req.sq_head & qp->req.sq_mask];

	uint32_t head = qp->req.sq_head;

	if (qp->req.sq_head == qp->req.sq_next || w->k.state == RC_KEY_NONE ||
	    (w->state != RC_WQE_DONE && w->state != RC_WQE_ERROR))
		return RC_DONE;
	rc_complete_sends(qp);
	/* completions are progress, as in rc_read_done(): with nothing left
	 * outstanding the timer stops (else it fired on a finished READ) */
	if (qp->req.sq_head != head && qp->comp.state != RC_COMP_FLUSH)
		rc_timer_arm(qp);
	return RC_MORE;
}

/* ------------------------------------------------------------ responder */

/*
 * Refuse a READ request (IBA's NAK): the requester's WR completes with the
 * status and its QP goes to ERR. A lost refusal leaves the requester's
 * READ to its timer (RETRY_EXC_ERR).
 */
static void
read_refuse(struct blue_qp *qp, uint32_t psn, uint8_t status)
{
	struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_READ_NAK);

	m.read_nak.psn = psn;
	m.read_nak.status = status;
	RC_LOG(DEBUG, "qp 0x%06x: READ request psn 0x%06x refused (%s)", qp->vqp.qpn, psn,
	       status == BLUE_CTRL_ATOMIC_REM_ACCESS_ERR ? "access" : "beyond max_dest_rd_atomic");
	qp->vqp.st.read_req_rejected++;
	(void)rc_send_ctrl(qp, &m);
}

/* The answer's source: rkey, PD, REMOTE_READ access, bounds (the card checks none of it). */
static bool
read_source_ok(const struct blue_qp *qp, const struct blue_meta_report *r)
{
	return rc_mr_check(qp, r->basic.rkey, r->basic.raddr, r->read_ext.total_len,
			   ORDK_ACCESS_REMOTE_READ) == 0;
}

/*
 * The ring also keeps answers sent and not acknowledged yet: full of those,
 * a new request is taken as not received (its sender asks again, and the
 * ACKs free the ring meanwhile); never refused, as the requester kept to its
 * limit. @return true when @p psn is deferred so.
 */
static bool
read_deferred(struct blue_qp *qp, uint32_t psn, uint32_t dest_max)
{
	const struct rc_resp *rs = &qp->resp;
	int32_t d = blue_psn_diff(psn, rs->epsn);

	if (d < 0 || (d < (int32_t)ORDK_RECV_WINDOW && rc_rx_seen(rs, psn)) ||
	    rs->ans_tail - rs->ans_head < ORDK_ANS_RING || rs->ans_tail - rs->ans_next >= dest_max)
		return false;
	qp->vqp.st.read_req_deferred++;
	return true;
}

/*
 * A READ request beyond the expected PSN, and the PSN right before it
 * missing: that one was a LAST, an ONLY or a READ request (each reported as
 * it arrives), so it is lost, or late. Requests carry no payload, so no
 * bitmap report names a lost one: open the hole here, and the engine asks
 * for it after the hold (it may only be late: items travel on the card's
 * four channels). With that PSN present, the hole is most likely MIDDLE
 * packets of a stream that flows, which the card names in its next report:
 * NAKing them on time resent what had arrived (issue 12 item 14), so the
 * reports decide.
 */
static void
read_hole(struct blue_qp *qp, uint32_t psn, uint64_t now)
{
	struct rc_resp *rs = &qp->resp;
	enum rc_hole_state h = rc_hole_state(rs);

	if (blue_psn_diff(psn, rs->epsn) > 0 && !rc_rx_seen(rs, blue_psn_add(psn, BLUE_PSN_MASK)) &&
	    (h == RC_HOLE_NONE || h == RC_HOLE_GIVEN_UP)) {
		rc_hole_open(rs, RC_HOLE_SETTLED, now);
		rc_activate(qp);
	}
}

/*
 * Queue the answer to READ request @p r. Answers go out in request order: a
 * request that came again (it was lost) is answered before the later ones
 * already queued, which wait for it (the READ-order gate in rc_push).
 * Answered out of order, the requester takes the later answers for nobody's
 * and its READs hang.
 */
static void
answer_queue(struct blue_qp *qp, const struct blue_meta_report *r)
{
	const struct blue_meta_basic *b = &r->basic;
	struct rc_resp *rs = &qp->resp;
	uint32_t at = rs->ans_tail;

	for (uint32_t i = rs->ans_next; i != rs->ans_tail; i++) {
		const struct rc_wqe *q = &rs->ans[i % ORDK_ANS_RING];

		if (!rc_wqe_started(q) && blue_psn_diff(q->req_psn, b->psn) > 0) {
			at = i;
			break;
		}
	}
	for (uint32_t i = rs->ans_tail; i != at; i--)
		rs->ans[i % ORDK_ANS_RING] = rs->ans[(i - 1) % ORDK_ANS_RING];
	rs->ans[at % ORDK_ANS_RING] = (struct rc_wqe){
		.opcode = BLUE_WR_RDMA_READ_RESP, .state = RC_WQE_QUEUED, .flags = RC_WQE_INTERNAL,
		.signaled = 1,
		.msn = b->msn, .laddr = b->raddr, .lkey = b->rkey, .len = r->read_ext.total_len,
		.raddr = r->read_ext.laddr, .rkey = r->read_ext.lkey, .req_psn = b->psn };
	rs->ans_tail++;
	qp->vqp.st.read_resp_posted++;
}

/*
 * Record READ request @p psn. Beyond a hole, a PSN recorded already is a
 * copy too: the tracker takes a header report of a PSN a card bitmap
 * implied (rc_rx_mark()), but no bitmap ever implies a READ request's (it
 * carries no payload), so only an earlier copy of this request recorded it.
 * Taken for new, the copy was a second answer, one over max_dest_rd_atomic,
 * and the requester's next READ was refused (issue 32).
 */
static enum rc_rx_result
read_mark(struct blue_qp *qp, uint32_t psn)
{
	int32_t d = blue_psn_diff(psn, qp->resp.epsn);

	if (d > 0 && d < (int32_t)ORDK_RECV_WINDOW && rc_rx_seen(&qp->resp, psn))
		return RC_RX_DUP;
	return rc_resp_mark(qp, psn);
}

/*
 * A READ request: an answer in the QP's answer ring (its max_dest_rd_atomic
 * resources), never in the application's send queue.
 */
void
rc_rx_read(struct blue_qp *qp, const struct blue_meta_report *r)
{
	const struct blue_meta_basic *b = &r->basic;
	uint32_t dest_max = qp->vqp.attr.max_dest_rd_atomic ? qp->vqp.attr.max_dest_rd_atomic : 1;
	enum rc_rx_result res;

	if (read_deferred(qp, b->psn, dest_max))
		return;
	res = read_mark(qp, b->psn);
	/*
	 * Past the tracked window: no request of our peer's (it keeps its PSNs
	 * within it, rc_req.c), but a frame of an earlier connection or a
	 * corrupt one (counted, out_of_window). Answered, it would hold a slot
	 * of max_dest_rd_atomic until the expected PSN reached it.
	 */
	if (res == RC_RX_BEYOND)
		return;
	if (res == RC_RX_DUP) {
		/*
		 * A duplicate (the wire repeated it): it was answered. Answering again
		 * could land after the requester completed the READ, as the card
		 * places every response packet it gets. A lost response is resent by
		 * this side's own recovery instead. ACK again.
		 */
		qp->vqp.st.duplicates++;
		qp->resp.ack_due = true;
		return;
	}
	if (b->ack_req)
		qp->resp.ack_due = true;
	read_hole(qp, b->psn, rc_ptime(&blue_qp_dev(qp)->rc));
	/* the QP's access gates READs as the MR's does (IBA); the card checks neither */
	if (!(qp->vqp.attr.qp_access_flags & ORDK_ACCESS_REMOTE_READ)) {
		qp->vqp.st.access_refused++;
		read_refuse(qp, b->psn, BLUE_CTRL_ATOMIC_REM_ACCESS_ERR);
		return;
	}
	if (!read_source_ok(qp, r)) {
		read_refuse(qp, b->psn, BLUE_CTRL_ATOMIC_REM_ACCESS_ERR);
		return;
	}
	/* more READs in progress than max_dest_rd_atomic: the requester overran us */
	if (qp->resp.ans_tail - qp->resp.ans_next >= dest_max ||
	    qp->resp.ans_tail - qp->resp.ans_head >= ORDK_ANS_RING) {
		read_refuse(qp, b->psn, BLUE_CTRL_ATOMIC_REM_INV_REQ);
		return;
	}
	answer_queue(qp, r);
}

/*
 * The WRITE of ours (sending or sent, not acknowledged) whose PSNs hold
 * @p psn, or NULL: the responder refused it (its QP's access, rc_resp.c).
 */
static struct rc_wqe *
refused_write(struct blue_qp *qp, uint32_t psn)
{
	uint32_t end = qp->req.sq_next + (qp->req.sq_next != qp->req.sq_tail &&
				      rc_wqe_started(&qp->req.sq[qp->req.sq_next & qp->req.sq_mask]));

	for (uint32_t i = qp->req.sq_head; i != end; i++) {
		struct rc_wqe *w = &qp->req.sq[i & qp->req.sq_mask];
		int32_t k = blue_psn_diff(psn, w->psn);

		if ((w->opcode == BLUE_WR_RDMA_WRITE || w->opcode == BLUE_WR_RDMA_WRITE_WITH_IMM) &&
		    (w->state == RC_WQE_SENDING || w->state == RC_WQE_SENT) && k >= 0 &&
		    (uint32_t)k < w->npkts && blue_psn_diff(qp->comp.acked_psn, psn) <= 0)
			return w;
	}
	return NULL;
}

/*
 * The peer refused one of our READs or WRITEs (READ_NAK names the request's
 * PSN): that WR completes with the error, in order, and then the QP goes to
 * ERR (rc_complete_sends()). Unlike IBA's NAK it acknowledges nothing: the
 * responder refuses a READ as it arrives, holes before it or not (a WRITE's
 * refusal comes after an ACK of what arrived before it, rc_resp.c).
 */
void
rc_read_nak_rx(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	uint32_t i;
	struct rc_wqe *w = NULL;

	for (i = 0; i < qp->req.rd_q.count; i++) {
		w = &qp->req.sq[qp->req.reads[rc_fifo_at(&qp->req.rd_q, i)]];
		if (w->psn == m->read_nak.psn)
			break;
	}
	if (i == qp->req.rd_q.count) {
		w = refused_write(qp, m->read_nak.psn);
		if (w == NULL) {
			qp->vqp.st.duplicates++; /* no READ or WRITE of ours outstanding there */
			return;
		}
	} else {
		rc_fifo_remove(&qp->req.rd_q, qp->req.reads, i);
	}
	w->flags |= RC_WQE_FATAL;
	w->status = m->read_nak.status == BLUE_CTRL_ATOMIC_REM_ACCESS_ERR ? ORDK_WC_REM_ACCESS_ERR
									  : ORDK_WC_REM_INV_REQ_ERR;
	rc_wqe_to(qp, w, RC_WQE_ERROR);
	qp->vqp.st.naks_received++;
	rc_complete_sends(qp);
}
