/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester and completer.
 * Requester: a WR gets its MSN and PSN range when it starts, then goes to the
 * Send ring as items of at most 64 KiB whose boundaries fall on PMTU
 * boundaries of the remote address (so the card segments each item exactly as
 * it would the whole message). SEND, SEND_IMM and WRITE_IMM wait for one of
 * the peer's RECV adverts. The outstanding PSN range is bounded, and so are
 * the READs in flight (max_rd_atomic). READ answers (the responder's) go
 * first, from their own ring.
 * Completer: a cumulative ACK (the peer driver's AckRemoteDriver) retires WRs
 * in order; a READ also needs its response; completions are in posting order.
 */
#include <errno.h>

#include <rte_cycles.h>

#include "verbs_internal.h"

/*
 * PSNs a QP may have sent and not had acknowledged: the peer's receive
 * tracker records PSNs up to ORDK_RECV_WINDOW past its expected PSN; a
 * packet beyond that could arrive and still look missing.
 */
#define RC_MAX_OUTSTANDING_PSN (ORDK_RECV_WINDOW - 256u)

/*
 * The peer card's PSN bitmap covers 8 strides of 16 PSNs behind the newest
 * PSN it saw; on the open-rdma RTL a PSN further behind locks its bitmap unit
 * for good (blue_proto.h). So a packet goes out only while the oldest
 * unacknowledged PSN stays inside the window its own PSN makes: every
 * retransmission (at or after acked_psn) is then inside the window too.
 * Items carry at most RC_ITEM_PKTS packets so one fits; an item after which
 * another full one would not fit asks for an ACK (and the peer card's idle
 * report makes its driver ACK anyway once the sender waits). A resent PSN's
 * first copy may only have been late: for ORDK_LATE_COPY_US after a resend
 * the window also stays on the oldest PSN resent, so a late copy cannot land
 * behind the peer card's window either.
 */
#define RC_ITEM_PKTS 64u

static bool
card_window_fits(struct ordk_qp *qp, uint32_t last_psn)
{
	/*
	 * Only where the card's bitmap locks (the RTL). Elsewhere a late packet
	 * behind the window is only untracked, and the pacing costs READs under
	 * loss their recovery (wire_read::busy_responder_under_loss, ib_read_bw
	 * at 1% loss: RETRY_EXC_ERR when the CPU is shared): an open bug of the
	 * pacing, to be fixed before it can be on everywhere.
	 */
	if (!qp->dev->hw.be.window_locks)
		return true;
	if (qp->late_tsc != 0) {
		if (rte_get_tsc_cycles() >= qp->late_tsc)
			qp->late_tsc = 0;
		else if (!blue_psn_in_card_window(qp->late_psn, last_psn))
			return false;
	}
	return blue_psn_in_card_window(qp->acked_psn, last_psn);
}

static bool
needs_advert(uint8_t op)
{
	return op == BLUE_WR_SEND || op == BLUE_WR_SEND_WITH_IMM || op == BLUE_WR_RDMA_WRITE_WITH_IMM;
}

/* Retire, in order, every WR the ACKs (and READ responses) have finished. */
void
rc_complete_sends(struct ordk_qp *qp)
{
	/* READ answers: retired once acknowledged (their own order, their own ring) */
	while (qp->ans_head != qp->ans_next) {
		const struct rc_wqe *a = &qp->ans[qp->ans_head % ORDK_ANS_RING];

		if (blue_psn_diff(qp->acked_psn, blue_psn_add(a->psn, a->npkts)) < 0)
			break;
		qp->ans_head++;
	}
	while (qp->sq_head != qp->sq_next) {
		struct rc_wqe *w = &qp->sq[qp->sq_head % qp->sq_size];

		if (!(w->flags & RC_WQE_ERROR)) {
			if (blue_psn_diff(qp->acked_psn, blue_psn_add(w->psn, w->npkts)) < 0)
				break;
			/* the peer has the announcement of its too small RECV: both QPs fail */
			if (w->flags & RC_WQE_LEN_ERR) {
				rc_qp_fail(qp, ORDK_WC_REM_INV_REQ_ERR);
				return;
			}
			if (w->opcode == BLUE_WR_RDMA_READ && !(w->flags & RC_WQE_READ_DONE))
				break;
			if (rc_is_atomic(w->opcode) && !(w->flags & RC_WQE_ATOMIC_DONE))
				break;
			/* a resend of it may still be read from its buffer */
			if (!(w->flags & RC_WQE_INTERNAL) && w->opcode != BLUE_WR_RDMA_READ &&
			    !rc_is_atomic(w->opcode) && rc_rtx_unfetched(qp))
				break;
		}
		if (!(w->flags & RC_WQE_INTERNAL)) {
			if (w->signaled || (w->flags & RC_WQE_ERROR)) {
				struct ordk_wc wc = {
					.wr_id = w->wr_id, .opcode = rc_wc_opcode(w->opcode),
					.status = (w->flags & RC_WQE_ERROR) ? w->status
									    : ORDK_WC_SUCCESS,
					.byte_len = w->len, .qp_num = qp->qpn };
				/* ibverbs: an atomic's byte_len is 8 */

				verbs_cq_push(qp->scq, &wc);
			}
			qp->sq_user--;
			qp->st.wr_completed++;
			qp->dev->st.wr_completed++;
		}
		qp->sq_head++;
		if ((w->flags & (RC_WQE_ERROR | RC_WQE_FATAL)) == (RC_WQE_ERROR | RC_WQE_FATAL)) {
			/* the responder refused it (READ_NAK): IBA's NAK ends the QP */
			RC_LOG(WARNING, "qp 0x%06x: %s; QP to ERR", qp->qpn,
			       ordk_wc_status_str((enum ordk_wc_status)w->status));
			rc_qp_error(qp);
			return;
		}
	}
}

/* Everything before @p psn is acknowledged. */
void
rc_ack(struct ordk_qp *qp, uint32_t psn)
{
	/* only forward, and never past what was sent */
	if (blue_psn_diff(psn, qp->acked_psn) <= 0 || blue_psn_diff(psn, qp->next_psn) > 0)
		return;
	qp->acked_psn = psn;
	/* progress: the retry count and the backoff start again */
	qp->rtx_retries = 0;
	qp->rtx_backoff = 1;
	rc_complete_sends(qp);
	rc_timer_arm(qp);
}

/* IBA's min_rnr_timer encoding, in microseconds (0 means the longest, 655.36 ms). */
static const uint32_t rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
	2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
	163840, 245760, 327680, 491520,
};

/*
 * Waiting for an advert sends nothing, so no transport timer runs: a peer
 * that is not there would be waited for for good (rnr_retry 7). As IB's
 * requester, whose SEND gets neither an ACK nor an RNR NAK, the wait asks the
 * peer (ACK_REQ) while it has not been heard from, with the transport's
 * backoff (1, 2, 4 .. 64 ACK timeouts apart), and when retry_cnt + 1 questions
 * went unanswered ends with RETRY_EXC_ERR (about 255 timeouts: 17 s at 14).
 * Any frame from the peer starts the count again.
 */
static bool
peer_silent(struct ordk_qp *qp, const struct rc_wqe *w, uint64_t now)
{
	uint64_t t = rc_timeout_tsc(qp);
	uint64_t since = w->rnr_tsc > qp->heard_tsc ? w->rnr_tsc : qp->heard_tsc;

	if (t == 0 || t >= UINT64_MAX / 128)
		return false;
	if (qp->rnr_probe_tsc < since) { /* a new wait, or the peer spoke since */
		qp->rnr_probe_tsc = since;
		qp->rnr_probes = 0;
	}
	if (now - qp->rnr_probe_tsc < t << (qp->rnr_probes < 6 ? qp->rnr_probes : 6))
		return false;
	if (qp->rnr_probes > qp->attr.retry_cnt)
		return true;
	rc_probe(qp);
	qp->rnr_probe_tsc = now;
	qp->rnr_probes++;
	return false;
}

/*
 * No RECV advertised by the peer yet (receiver not ready): wait one RNR
 * period per retry, rnr_retry times (7 = forever), then RNR_RETRY_EXC_ERR;
 * a peer silent for the retry budget: RETRY_EXC_ERR (see peer_silent()).
 * @return true when the QP was failed.
 */
static bool
rnr_wait(struct ordk_qp *qp, struct rc_wqe *w)
{
	uint64_t now = rte_get_tsc_cycles();
	uint64_t period = (uint64_t)rnr_us[qp->attr.min_rnr_timer & 31] * qp->dev->tsc_hz / 1000000;

	if (w->rnr_tsc == 0) {
		w->rnr_tsc = now;
		qp->st.rnr_waits++;
		qp->dev->st.rnr_waits++;
		return false;
	}
	if (peer_silent(qp, w, now)) {
		qp->st.retry_exceeded++;
		qp->dev->st.retry_exceeded++;
		rc_qp_fail(qp, ORDK_WC_RETRY_EXC_ERR);
		return true;
	}
	if (qp->attr.rnr_retry == 7 || now - w->rnr_tsc < period * (qp->attr.rnr_retry + 1u))
		return false;
	rc_qp_fail(qp, ORDK_WC_RNR_RETRY_EXC_ERR);
	return true;
}

/* Give a WR its PSNs (and its advert); false when it must wait. */
static bool
start_wqe(struct ordk_qp *qp, struct rc_wqe *w)
{
	uint32_t pmtu = blue_pmtu_bytes(qp->attr.path_mtu), npk;

	if (needs_advert(w->opcode) && !(w->flags & RC_WQE_BOUND)) {
		const struct ordk_ctrl_advert *a;

		if (qp->adv_count == 0) {
			rnr_wait(qp, w); /* no RECV posted at the peer yet: wait */
			return false;
		}
		a = &qp->adv[qp->adv_head];
		qp->adv_head = (qp->adv_head + 1) % ORDK_ADVERT_RING;
		qp->adv_count--;
		w->flags |= RC_WQE_BOUND;
		RC_LOG(DEBUG, "qp 0x%06x: WR of %u B takes advert %u (%u B)", qp->qpn, w->len,
		       a->recv_seq, a->length);
		if (w->opcode != BLUE_WR_RDMA_WRITE_WITH_IMM) {
			if (w->len > a->length) {
				/*
				 * The peer's RECV is too small (IBA: a length error at the
				 * responder). No byte goes: one zero-length packet in the
				 * PSN stream tells the responder, which fails that RECV
				 * with LOC_LEN_ERR and goes to ERR; its ACK fails this WR
				 * with REM_INV_REQ_ERR and this QP. Nothing after it starts.
				 */
				w->flags |= RC_WQE_LEN_ERR;
				w->raddr = w->len;
				w->rkey = ORDK_WIRE_RKEY_LEN_ERR;
			} else {
				w->raddr = a->addr;
				w->rkey = a->rkey;
			}
		}
	}
	npk = w->opcode == BLUE_WR_RDMA_READ || (w->flags & RC_WQE_LEN_ERR)
		      ? 1
		      : rc_pkts(w->raddr, w->len, pmtu);
	/* a WR longer than the window goes once everything before it is acknowledged */
	if (blue_psn_diff(qp->next_psn, qp->acked_psn) > 0 &&
	    blue_psn_diff(qp->next_psn, qp->acked_psn) + (int32_t)npk > (int32_t)RC_MAX_OUTSTANDING_PSN)
		return false;
	w->npkts = npk;
	w->psn = qp->next_psn;
	if (w->flags & RC_WQE_LEN_ERR)
		qp->len_err_sent = true;
	if (!(w->flags & RC_WQE_INTERNAL))
		w->msn = qp->next_msn++; /* a READ response keeps its request's MSN */
	qp->next_psn = blue_psn_add(qp->next_psn, w->npkts);
	w->started = true;
	w->sent = 0;
	if (w->opcode == BLUE_WR_RDMA_READ) {
		qp->reads[(qp->rd_head + qp->rd_count) % qp->sq_size] = qp->sq_next % qp->sq_size;
		qp->rd_count++;
	}
	return true;
}

/*
 * The next item of @p w: its length *n, first PSN and packet count; false when
 * it must wait for the peer card's window (the timer is then armed).
 */
static bool
next_item(struct ordk_qp *qp, const struct rc_wqe *w, uint32_t pmtu, uint32_t *n, uint32_t *psn,
	  uint32_t *pk)
{
	uint32_t off = w->sent, cap = RTE_MIN(ORDK_ITEM_MAX, RC_ITEM_PKTS * pmtu);

	/* congestion control (lib/cc): items leave at the QP's rate, a few packets each */
	if (qp->cc_on && !verbs_cc_gate(qp, pmtu, &cap))
		return false; /* the QP stays active: the next poll asks again */

	*psn = off == 0 ? w->psn : blue_psn_add(w->psn, rc_pkts(w->raddr, off, pmtu));
	if (w->flags & RC_WQE_LEN_ERR)
		*n = 0; /* the announcement: no payload, the length in raddr */
	else if (w->opcode == BLUE_WR_RDMA_READ)
		*n = w->len; /* one READ_REQUEST for the whole length */
	else if (off == 0)
		*n = RTE_MIN(w->len, cap - (uint32_t)(w->raddr % pmtu));
	else
		*n = RTE_MIN(w->len - off, cap);
	*pk = w->opcode == BLUE_WR_RDMA_READ || (w->flags & RC_WQE_LEN_ERR)
		      ? 1
		      : rc_pkts(w->raddr + off, *n, pmtu);
	if (*pk == 0 || card_window_fits(qp, blue_psn_add(*psn, *pk - 1)))
		return true;
	if (qp->rtx_deadline == 0)
		rc_timer_arm(qp);
	return false;
}

/*
 * Push the items of started WQE @p w (from w->sent on) while the Send ring
 * has room and the peer card's window allows. @return items pushed;
 * w->sent == w->len (a READ: 1 item) when all went, else the ring filled, the
 * window is full (the timer is armed), or an item failed (RC_WQE_ERROR).
 */
static unsigned int
push_items(struct ordk_qp *qp, struct rc_wqe *w, bool want_ack)
{
	struct ordk_dev *dev = qp->dev;
	uint32_t pmtu = blue_pmtu_bytes(qp->attr.path_mtu);
	bool lerr = (w->flags & RC_WQE_LEN_ERR) != 0;
	unsigned int items = 0;

	do {
		struct blue_send_item it;
		uint32_t off = w->sent, n, psn, pk;

		if (blue_send_free(&dev->hw, 2) < 2) {
			dev->hw.st.send_ring_full++;
			return items;
		}
		if (!next_item(qp, w, pmtu, &n, &psn, &pk))
			return items; /* the ACKs move acked_psn; the timer asks for them */
		it = (struct blue_send_item){
			.opcode = (w->flags & RC_WQE_INTERNAL) ? BLUE_WR_RDMA_READ_RESP : w->opcode,
			.valid = 1, .msn = w->msn, .total_len = lerr ? 0 : w->len, .rkey = w->rkey,
			.dqp_ip = qp->attr.dest_ip, .raddr = w->raddr + off,
			.psn = psn, .qp_type = BLUE_QPT_RC, .dqpn = qp->attr.dest_qp_num,
			/* an ACK is asked for, too, before the peer card's window fills */
			.flags = (uint8_t)((want_ack || !card_window_fits(qp, blue_psn_add(psn, pk + 63))
						    ? BLUE_SEND_SIGNALED : 0) |
					   (w->solicited ? BLUE_SEND_SOLICITED : 0)),
			.pmtu = (uint8_t)qp->attr.path_mtu, .is_first = off == 0,
			.is_last = lerr || off + n == w->len, .sqpn = qp->qpn, .imm = w->imm,
			.dst_mac = qp->attr.dest_mac, .lkey = w->lkey, .len = n,
			.laddr = w->laddr + off, .enable_ecn = qp->cc_on };
		if (blue_send_item_put(&dev->hw, &it) != 0) {
			w->flags |= RC_WQE_ERROR;
			w->status = ORDK_WC_LOC_QP_OP_ERR;
			return items;
		}
		w->sent += n;
		if (qp->cc_on)
			verbs_cc_sent(qp, n, pk);
		if (blue_psn_diff(blue_psn_add(psn, pk), qp->pushed_psn) > 0)
			qp->pushed_psn = blue_psn_add(psn, pk);
		items++;
	} while (!lerr && w->sent < w->len && w->opcode != BLUE_WR_RDMA_READ);
	return items;
}

/* An application WQE started and only partly pushed: nothing may come between its items. */
static bool
sq_mid_wqe(const struct ordk_qp *qp)
{
	const struct rc_wqe *w = &qp->sq[qp->sq_next % qp->sq_size];

	return qp->sq_next != qp->sq_tail && w->started && !(w->flags & RC_WQE_ERROR) &&
	       w->sent < w->len;
}

/*
 * READ answers go before the application's queued WRs (they hold the
 * requester's READs), in request order, each once every PSN before its
 * request arrived (IBA's responder: the data read includes every WRITE
 * posted before the READ). @return items pushed; *more: an answer is left
 * half pushed (the ring is full).
 */
static unsigned int
push_answers(struct ordk_qp *qp, bool *more)
{
	unsigned int items = 0;

	*more = false;
	if (sq_mid_wqe(qp))
		return 0;
	while (qp->ans_next != qp->ans_tail) {
		struct rc_wqe *w = &qp->ans[qp->ans_next % ORDK_ANS_RING];

		if (!w->started && blue_psn_diff(qp->epsn, w->req_psn) <= 0)
			break;
		if (!w->started && !start_wqe(qp, w))
			break;
		items += push_items(qp, w, true);
		if (w->sent < w->len && !(w->flags & RC_WQE_ERROR)) {
			*more = true;
			return items;
		}
		qp->ans_next++;
		if (qp->rtx_deadline == 0)
			rc_timer_arm(qp);
	}
	return items;
}

/*
 * The responder is about to go to ERR for a request (recv_len_error): the
 * READ answers owed for the requests before it go first, as IBA's responder
 * handles requests in PSN order. Best effort: an answer that cannot go now
 * (a full ring, the card window) or is lost is settled at the requester
 * (rc_len_err_settle()).
 */
void
rc_push_owed_answers(struct ordk_qp *qp)
{
	bool more;

	if (push_answers(qp, &more) > 0)
		blue_send_doorbell(&qp->dev->hw);
}

/*
 * The peer acknowledged our too long SEND's announcement (RC_WQE_LEN_ERR):
 * it is in ERR and answers nothing more. A READ before that SEND whose
 * answer has not completed by the ACK timeout (lost, or never sent) cannot
 * be answered any more: it completes with WR_FLUSH_ERR instead of waiting
 * for the retry budget (RETRY_EXC_ERR); then the SEND fails the QP
 * (rc_complete_sends()). Our card's context goes invalid first, so no late
 * answer packet lands in a buffer given back. @return true when it settled.
 */
bool
rc_len_err_settle(struct ordk_qp *qp)
{
	uint32_t i;

	if (!qp->len_err_sent)
		return false;
	for (i = qp->sq_head; i != qp->sq_next; i++) {
		const struct rc_wqe *w = &qp->sq[i % qp->sq_size];

		if (w->flags & RC_WQE_LEN_ERR)
			break;
	}
	if (i == qp->sq_next ||
	    blue_psn_diff(qp->acked_psn, blue_psn_add(qp->sq[i % qp->sq_size].psn, 1)) < 0)
		return false;
	RC_LOG(DEBUG, "qp 0x%06x: the peer took our length error: %u READs unanswered flushed",
	       qp->qpn, qp->rd_count);
	(void)verbs_manage_qp(qp, false, true);
	for (uint32_t k = qp->sq_head; k != i; k++) {
		struct rc_wqe *w = &qp->sq[k % qp->sq_size];

		if (w->opcode == BLUE_WR_RDMA_READ && !(w->flags & (RC_WQE_READ_DONE | RC_WQE_ERROR))) {
			w->flags |= RC_WQE_ERROR;
			w->status = ORDK_WC_WR_FLUSH_ERR;
		}
	}
	qp->rd_count = 0;
	rc_complete_sends(qp);
	return true;
}

/* Push items of queued WRs while the Send ring has room; @return items pushed. */
unsigned int
rc_push(struct ordk_qp *qp)
{
	unsigned int items = rc_push_retries(qp); /* retransmissions first */
	/* READs in flight: never beyond max_rd_atomic (the peer's max_dest_rd_atomic) */
	uint32_t rd_max = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
	bool more;

	items += push_answers(qp, &more);
	if (more)
		return items;

	while (qp->sq_next != qp->sq_tail) {
		struct rc_wqe *w = &qp->sq[qp->sq_next % qp->sq_size];
		bool last_queued = qp->sq_next + 1 == qp->sq_tail;
		bool want_ack;

		/* atomics: a fence both ways (see rc_atomic.c) */
		if (qp->atomic_wqe != NULL || qp->len_err_sent)
			break;
		if (rc_is_atomic(w->opcode)) {
			if (qp->sq_head != qp->sq_next)
				break; /* earlier WRs not all acknowledged yet */
			w->atomic_id = qp->next_atomic_id++;
			w->psn = qp->next_psn;
			w->npkts = 0;
			w->started = true;
			qp->atomic_wqe = w;
			rc_atomic_send(qp, w); /* if it cannot go now, the timer resends it */
			qp->sq_next++;
			rc_timer_arm(qp);
			continue;
		}
		/* IBV_SEND_FENCE: not sent while an earlier READ is outstanding */
		if (!w->started && (w->flags & RC_WQE_FENCE) && qp->rd_count > 0)
			break;
		if (!w->started && w->opcode == BLUE_WR_RDMA_READ && qp->rd_count >= rd_max)
			break; /* it waits for an earlier READ's answer */
		if (!w->started && !start_wqe(qp, w))
			break;
		if (qp->attr.qp_state == ORDK_QPS_ERR)
			return items; /* RNR retries ran out: everything was flushed */
		if (w->flags & RC_WQE_ERROR) {
			qp->sq_next++;
			continue;
		}
		/* ask the responder for an ACK: signaled WRs, READ responses, every
		 * ORDK_ACK_EVERY WRs, and the last WR queued (so unsignaled ones retire) */
		want_ack = w->signaled || (w->flags & RC_WQE_INTERNAL) || last_queued ||
			   qp->since_ack_req + 1 >= ORDK_ACK_EVERY || (w->flags & RC_WQE_LEN_ERR);
		items += push_items(qp, w, want_ack);
		if (w->sent < w->len && !(w->flags & (RC_WQE_ERROR | RC_WQE_LEN_ERR)))
			return items; /* ring or window full: the rest next time */
		qp->since_ack_req = want_ack ? 0 : qp->since_ack_req + 1;
		qp->sq_next++;
		if (qp->rtx_deadline == 0)
			rc_timer_arm(qp);
	}
	return items;
}
