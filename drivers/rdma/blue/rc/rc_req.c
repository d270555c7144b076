/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requester: a WR gets its MSN and PSN range when it starts, then goes to the
 * Send ring as items of at most 64 KiB whose boundaries fall on PMTU
 * boundaries of the remote address (so the card segments each item exactly as
 * it would the whole message). SEND, SEND_IMM and WRITE_IMM wait for one of
 * the peer's RECV adverts. The outstanding PSN range is bounded, and so are
 * the READs and atomics in flight (max_rd_atomic). READ answers (the responder's) go
 * first, from their own ring. enum rc_req_state says why it stopped.
 */
#include <errno.h>
#include <inttypes.h>

#include "blue_verbs.h"

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

/*
 * Until when a late copy of the oldest PSN resent may still come, in polling
 * time (rc_ptime(); 0: not any more), as every deadline: a copy may wait in
 * a queue this process drives (bluesim's wire, the peer's RX) while it is
 * not scheduled; on a card that is only longer pacing. (The
 * failure first blamed on real-time counting, all_together_5_percent on
 * rtl=1 with the CPU shared, may have been a late network duplicate, which
 * no pacing prevents: fault_loss::late_duplicate.)
 */
static uint64_t
late_copy_until(struct blue_qp *qp)
{
	struct rc_req *rq = &qp->req;

	if (rq->late_tsc != 0 && rc_ptime(&blue_qp_dev(qp)->rc) >= rq->late_tsc)
		rq->late_tsc = 0;
	return rq->late_tsc;
}

void
rc_late_copy_sent(struct blue_qp *qp, uint32_t psn)
{
	const struct rc_engine *e = &blue_qp_dev(qp)->rc;

	if (late_copy_until(qp) == 0 || blue_psn_diff(psn, qp->req.late_psn) < 0)
		qp->req.late_psn = psn;
	qp->req.late_tsc = rc_ptime(e) + (uint64_t)ORDK_LATE_COPY_US * e->tsc_hz / 1000000;
}

static bool
card_window_fits(struct blue_qp *qp, uint32_t last_psn)
{
	/*
	 * Only where the card's bitmap locks (the RTL). Elsewhere a late packet
	 * behind the window is only untracked, and the pacing costs READs under
	 * loss their recovery (wire_read::busy_responder_under_loss, ib_read_bw
	 * at 1% loss: RETRY_EXC_ERR when the CPU is shared): an open bug of the
	 * pacing, to be fixed before it can be on everywhere.
	 */
	if (!blue_qp_dev(qp)->hw.be.window_locks)
		return true;
	if (late_copy_until(qp) != 0 && !blue_psn_in_card_window(qp->req.late_psn, last_psn))
		return false;
	return blue_psn_in_card_window(qp->comp.acked_psn, last_psn);
}

/* The requester stops in state @p s (a SEND announced as too long stays so). */
static void
req_hold(struct blue_qp *qp, enum rc_req_state s)
{
	if (qp->req.state != RC_REQ_LEN_ERR)
		qp->req.state = s;
}

static bool
needs_advert(uint8_t op)
{
	return op == BLUE_WR_SEND || op == BLUE_WR_SEND_WITH_IMM || op == BLUE_WR_RDMA_WRITE_WITH_IMM;
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
peer_silent(struct blue_qp *qp, const struct rc_wqe *w, uint64_t now)
{
	uint64_t t = rc_timeout_tsc(qp);
	uint64_t since = w->rnr_tsc > qp->comp.heard_tsc ? w->rnr_tsc : qp->comp.heard_tsc;

	if (t == 0 || t >= UINT64_MAX / 128)
		return false;
	if (qp->req.rnr_probe_tsc < since) { /* a new wait, or the peer spoke since */
		qp->req.rnr_probe_tsc = since;
		qp->req.rnr_probes = 0;
	}
	if (now - qp->req.rnr_probe_tsc < t << (qp->req.rnr_probes < 6 ? qp->req.rnr_probes : 6))
		return false;
	if (qp->req.rnr_probes > qp->vqp.attr.retry_cnt)
		return true;
	rc_probe(qp);
	qp->req.rnr_probe_tsc = now;
	qp->req.rnr_probes++;
	return false;
}

/*
 * No RECV advertised by the peer yet (receiver not ready): wait one RNR
 * period per retry, rnr_retry times (7 = forever), then ask the receiver
 * (rc_rnr_ask(): an advert may be lost or late) and end in RNR_RETRY_EXC_ERR
 * only when it answers that it posted no RECV beyond our adverts. The budget
 * runs only while every PSN sent before is acknowledged: IBA's responder says
 * RNR as the SEND arrives, after those, and until then the peer's RECVs may
 * be held by messages still being repaired (fio's SENDs at 1% loss: every
 * RECV consumed by SENDs behind a lost packet). A peer silent for the retry
 * budget: RETRY_EXC_ERR (see peer_silent()). @return true when the QP was failed.
 */
static bool
rnr_wait(struct blue_qp *qp, struct rc_wqe *w)
{
	struct rc_req *rq = &qp->req;
	uint64_t now = rc_ptime(&blue_qp_dev(qp)->rc), t = rc_timeout_tsc(qp);
	uint64_t period = (uint64_t)rnr_us[qp->vqp.attr.min_rnr_timer & 31] * blue_qp_dev(qp)->rc.tsc_hz / 1000000;

	if (w->rnr_tsc == 0) {
		w->rnr_tsc = now;
		rq->rnr_ask_tsc = 0;
		qp->vqp.st.rnr_waits++;
		return false;
	}
	if (peer_silent(qp, w, now)) {
		qp->vqp.st.retry_exceeded++;
		rc_qp_fail(qp, ORDK_WC_RETRY_EXC_ERR);
		return true;
	}
	if (qp->vqp.attr.rnr_retry == 7)
		return false;
	if (qp->comp.acked_psn != rq->next_psn) {
		w->rnr_tsc = now; /* the budget starts once the peer took every PSN before */
		rq->rnr_ask_tsc = 0;
		return false;
	}
	if (now - w->rnr_tsc < period * (qp->vqp.attr.rnr_retry + 1u))
		return false;
	if (rq->rnr_answer) {
		rq->rnr_answer = false;
		rq->rnr_ask_tsc = 0;
		if (rq->rnr_posted == rq->adv_expect) {
			rc_qp_fail(qp, ORDK_WC_RNR_RETRY_EXC_ERR);
			return true;
		}
		qp->vqp.st.rnr_averted++; /* it has RECVs we hold no advert for: they come */
		w->rnr_tsc = now;
		return false;
	}
	if (t == 0 || t >= UINT64_MAX / 128)
		t = period; /* no transport timeout: ask again each period */
	if (rq->rnr_ask_tsc == 0 || now - rq->rnr_ask_tsc >= t)
		(void)rc_rnr_ask(qp); /* again if the answer is lost */
	return false;
}

/* Give a WR its PSNs (and its advert); false when it must wait. */
static bool
start_wqe(struct blue_qp *qp, struct rc_wqe *w)
{
	uint32_t pmtu = blue_pmtu_bytes(qp->vqp.attr.path_mtu), npk;

	if (needs_advert(w->opcode) && w->state != RC_WQE_BOUND) {
		const struct blue_ctrl_advert *a;

		if (qp->req.adv_q.count == 0) {
			req_hold(qp, RC_REQ_WAIT_ADVERT);
			rnr_wait(qp, w); /* no RECV posted at the peer yet: wait */
			return false;
		}
		a = &qp->req.adv[qp->req.adv_q.head];
		rc_fifo_pop(&qp->req.adv_q);
		qp->req.rnr_ask_tsc = 0; /* an answer to a question asked before is no longer of use */
		qp->req.rnr_answer = false;
		rc_wqe_to(qp, w, RC_WQE_BOUND);
		RC_LOG(DEBUG, "qp 0x%06x: WR of %u B takes advert %u (%u B)", qp->vqp.qpn, w->len,
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
				w->rkey = BLUE_WIRE_RKEY_LEN_ERR;
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
	if (blue_psn_diff(qp->req.next_psn, qp->comp.acked_psn) > 0 &&
	    blue_psn_diff(qp->req.next_psn, qp->comp.acked_psn) + (int32_t)npk > (int32_t)RC_MAX_OUTSTANDING_PSN) {
		req_hold(qp, RC_REQ_WAIT_WINDOW);
		return false;
	}
	w->npkts = npk;
	w->psn = qp->req.next_psn;
	if (w->flags & RC_WQE_LEN_ERR)
		qp->req.state = RC_REQ_LEN_ERR;
	if (!(w->flags & RC_WQE_INTERNAL))
		w->msn = qp->req.next_msn++; /* a READ response keeps its request's MSN */
	qp->req.next_psn = blue_psn_add(qp->req.next_psn, w->npkts);
	rc_wqe_to(qp, w, RC_WQE_SENDING);
	w->sent = 0;
	if (w->opcode == BLUE_WR_RDMA_READ)
		qp->req.reads[rc_fifo_push(&qp->req.rd_q)] = qp->req.sq_next & qp->req.sq_mask;
	return true;
}

/*
 * The next item of @p w: its length *n, first PSN and packet count; false when
 * it must wait for the peer card's window (the timer is then armed).
 */
static bool
next_item(struct blue_qp *qp, const struct rc_wqe *w, uint32_t pmtu, uint32_t *n, uint32_t *psn,
	  uint32_t *pk)
{
	uint32_t off = w->sent, cap = RTE_MIN(ORDK_ITEM_MAX, RC_ITEM_PKTS * pmtu);

	/* congestion control (lib/cc): items leave at the QP's rate, a few packets each */
	if (qp->cc_on && !blue_cc_gate(qp, pmtu, &cap)) {
		req_hold(qp, RC_REQ_WAIT_RATE);
		return false; /* the QP stays active: the next poll asks again */
	}

	*psn = off == 0 ? w->psn : blue_psn_add(w->psn, rc_pkts(w->raddr, off, pmtu));
	if (w->flags & RC_WQE_LEN_ERR)
		*n = 0; /* the announcement: no payload, the length in raddr */
	else if (w->opcode == BLUE_WR_RDMA_READ)
		*n = w->len; /* one READ_REQUEST for the whole length */
	else if (off == 0)
		*n = RTE_MIN(w->len, cap - (uint32_t)(w->raddr % pmtu));
	else
		*n = RTE_MIN(w->len - off, cap);
	/* a gather WR's item is read from one SGE, or is a packet assembled from several */
	if (w->nsge > 1 && !(w->flags & RC_WQE_LEN_ERR))
		*n = rc_sgl_item_len(qp, w, off, *n, pmtu);
	*pk = w->opcode == BLUE_WR_RDMA_READ || (w->flags & RC_WQE_LEN_ERR)
		      ? 1
		      : rc_pkts(w->raddr + off, *n, pmtu);
	if (*pk == 0 || card_window_fits(qp, blue_psn_add(*psn, *pk - 1)))
		return true;
	req_hold(qp, RC_REQ_WAIT_WINDOW);
	if (qp->comp.rtx_deadline == 0)
		rc_timer_arm(qp);
	return false;
}

struct blue_send_item
rc_send_item(struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, uint32_t len,
	     uint32_t psn, bool signaled, bool last)
{
	/* a READ request carries the READ's own key, never the user MR's (rc_read.c) */
	uint32_t lkey = w->opcode == BLUE_WR_RDMA_READ ? w->k.key : w->lkey;
	uint64_t laddr = w->laddr + off;

	if (w->nsge > 1 && len > 0)
		rc_sgl_source(qp, w, off, len, &laddr, &lkey);
	return (struct blue_send_item){
		.opcode = (w->flags & RC_WQE_INTERNAL) ? BLUE_WR_RDMA_READ_RESP : w->opcode,
		.valid = 1, .msn = w->msn, .total_len = (w->flags & RC_WQE_LEN_ERR) ? 0 : w->len,
		.rkey = w->rkey, .dqp_ip = qp->vqp.attr.dest_ip, .raddr = w->raddr + off, .psn = psn,
		.qp_type = BLUE_QPT_RC, .dqpn = qp->vqp.attr.dest_qp_num,
		.flags = (uint8_t)((signaled ? BLUE_SEND_SIGNALED : 0) |
				   (w->solicited ? BLUE_SEND_SOLICITED : 0)),
		.pmtu = (uint8_t)qp->vqp.attr.path_mtu, .is_first = off == 0, .is_last = last,
		.sqpn = qp->vqp.qpn, .imm = w->imm, .dst_mac = qp->vqp.attr.dest_mac,
		.lkey = lkey, .len = len, .laddr = laddr, .enable_ecn = qp->cc_on };
}

bool
rc_source_ok(struct blue_qp *qp, struct rc_wqe *w, uint32_t off, uint32_t len)
{
	/* what rc_post_send() checked: a READ's answer lands through its own key
	 * (rc_read.c), so its MR needs LOCAL_WRITE only, as in IBA */
	unsigned int need = w->opcode == BLUE_WR_RDMA_READ ? ORDK_ACCESS_LOCAL_WRITE : 0;

	if ((w->flags & RC_WQE_INTERNAL) || len == 0 ||
	    (w->nsge > 1 ? rc_sgl_ok(qp, w, off, len)
			 : rc_mr_check(qp, w->lkey, w->laddr + off, len, need) == 0))
		return true;
	RC_LOG(WARNING, "qp 0x%06x: WR psn 0x%06x: lkey 0x%08x no longer covers [0x%" PRIx64 ", +%u): "
	       "LOC_PROT_ERR", qp->vqp.qpn, w->psn, w->lkey, w->laddr + off, len);
	qp->vqp.st.loc_prot_errors++;
	w->status = ORDK_WC_LOC_PROT_ERR;
	w->flags |= RC_WQE_FATAL;
	if (w->state != RC_WQE_ERROR)
		rc_wqe_to(qp, w, RC_WQE_ERROR);
	qp->req.prot_err = true; /* nothing new starts; rc_push() completes it */
	return false;
}

/*
 * The msn (16 bits) of the newest WRs a CNP may name: those the send queue
 * can hold, and as many again that may have been acknowledged while the
 * CNP was on its way.
 */
#define RC_CNP_MSN_SLACK 64u

bool
rc_cnp_plausible(const struct blue_qp *qp, uint16_t msn)
{
	const struct rc_req *rq = &qp->req;
	/* sq_next counts the WRs started since the last reset (each took an MSN, atomics none) */
	uint32_t back = RTE_MIN(rq->sq_next, RTE_MIN(rq->sq_size + RC_CNP_MSN_SLACK, 0x8000u));
	uint16_t age = (uint16_t)(rq->next_msn - 1u - msn);

	if (age < back)
		return true;
	/* our READ answers carry the MSN of the peer's READ */
	for (uint32_t i = qp->resp.ans_head; i != qp->resp.ans_next; i++)
		if (qp->resp.ans[i % ORDK_ANS_RING].msn == msn)
			return true;
	return false;
}

/*
 * Push the items of started WQE @p w (from w->sent on) while the Send ring
 * has room and the peer card's window allows. @return items pushed;
 * w->sent == w->len (a READ: 1 item) when all went, else the ring filled, the
 * window is full (the timer is armed), or an item failed (RC_WQE_ERROR).
 */
static unsigned int
push_items(struct blue_qp *qp, struct rc_wqe *w, bool want_ack)
{
	struct blue_dev *dev = blue_qp_dev(qp);
	uint32_t pmtu = blue_pmtu_bytes(qp->vqp.attr.path_mtu);
	bool lerr = (w->flags & RC_WQE_LEN_ERR) != 0;
	unsigned int items = 0;

	do {
		struct blue_send_item it;
		uint32_t off = w->sent, n, psn, pk;

		if (blue_send_free(&dev->hw, 2) < 2) {
			dev->hw.st.send_ring_full++;
			req_hold(qp, RC_REQ_RING_FULL);
			return items;
		}
		if (!next_item(qp, w, pmtu, &n, &psn, &pk))
			return items; /* the ACKs move acked_psn (or the rate allows more) */
		/* the card would skip an item whose lkey is gone and nothing would arrive */
		if (!lerr && !rc_source_ok(qp, w, off, n))
			return items;
		/* an ACK is asked for, too, before the peer card's window fills */
		it = rc_send_item(qp, w, off, n, psn,
				  want_ack || !card_window_fits(qp, blue_psn_add(psn, pk + 63)),
				  lerr || off + n == w->len);
		if (blue_send_item_put(&dev->hw, &it) != 0) {
			w->status = ORDK_WC_LOC_QP_OP_ERR;
			rc_wqe_to(qp, w, RC_WQE_ERROR);
			return items;
		}
		w->sent += n;
		qp->vqp.st.tx_packets += pk;
		if (w->opcode != BLUE_WR_RDMA_READ) /* (a READ request carries no payload) */
			qp->vqp.st.tx_bytes += n;
		if (qp->cc_on)
			blue_cc_sent(qp, n, pk);
		if (blue_psn_diff(blue_psn_add(psn, pk), qp->req.pushed_psn) > 0)
			qp->req.pushed_psn = blue_psn_add(psn, pk);
		items++;
	} while (!lerr && w->sent < w->len && w->opcode != BLUE_WR_RDMA_READ);
	return items;
}

/* An application WQE started and only partly pushed: nothing may come between its items. */
static bool
sq_mid_wqe(const struct blue_qp *qp)
{
	const struct rc_wqe *w = &qp->req.sq[qp->req.sq_next & qp->req.sq_mask];

	return qp->req.sq_next != qp->req.sq_tail && rc_wqe_started(w) &&
	       w->state != RC_WQE_ERROR && w->sent < w->len;
}

/* Every item of @p w went: it waits for the peer (failed, or a READ answered already, it stays). */
static void
wqe_pushed(struct blue_qp *qp, struct rc_wqe *w)
{
	if (w->state == RC_WQE_SENDING)
		rc_wqe_to(qp, w, RC_WQE_SENT);
}

/*
 * READ answers go before the application's queued WRs (they hold the
 * requester's READs), in request order, each once every PSN before its
 * request arrived (IBA's responder: the data read includes every WRITE
 * posted before the READ). @return items pushed; *more: an answer is left
 * half pushed (the ring is full).
 */
static unsigned int
push_answers(struct blue_qp *qp, bool *more)
{
	unsigned int items = 0;

	*more = false;
	if (sq_mid_wqe(qp))
		return 0;
	while (qp->resp.ans_next != qp->resp.ans_tail) {
		struct rc_wqe *w = &qp->resp.ans[qp->resp.ans_next % ORDK_ANS_RING];

		if (!rc_wqe_started(w) && blue_psn_diff(qp->resp.epsn, w->req_psn) <= 0)
			break;
		if (!rc_wqe_started(w) && !start_wqe(qp, w))
			break;
		items += push_items(qp, w, true);
		if (w->sent < w->len && w->state != RC_WQE_ERROR) {
			*more = true;
			return items;
		}
		wqe_pushed(qp, w);
		qp->resp.ans_next++;
		if (qp->comp.rtx_deadline == 0)
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
rc_push_owed_answers(struct blue_qp *qp)
{
	bool more;

	if (push_answers(qp, &more) > 0)
		blue_send_doorbell(&blue_qp_dev(qp)->hw);
}

/*
 * What holds the queued WR @p w back, RC_REQ_IDLE if nothing. READs and
 * atomics in flight stay within max_rd_atomic together (the peer's
 * max_dest_rd_atomic). They also wait for each other: an atomic executes as
 * its control frame arrives, while a READ's answer is read from memory
 * when the card fetches it, so neither could be ordered behind the other
 * at the responder (rc_atomic.c). IBV_SEND_FENCE waits for every earlier
 * READ and atomic; no other WR waits for them (IBA).
 */
static enum rc_req_state
wqe_hold(const struct blue_qp *qp, const struct rc_wqe *w)
{
	uint32_t rd_max = qp->vqp.attr.max_rd_atomic ? qp->vqp.attr.max_rd_atomic : 1;
	const struct rc_req *rq = &qp->req;

	/* nothing after a too long SEND; its announcement, held by a full ring or
	 * the card window, still goes */
	if (rq->state == RC_REQ_LEN_ERR)
		return (w->flags & RC_WQE_LEN_ERR) ? RC_REQ_IDLE : RC_REQ_LEN_ERR;
	if (rc_wqe_started(w))
		return RC_REQ_IDLE;
	if ((w->flags & RC_WQE_FENCE) && (rq->rd_q.count > 0 || rq->at_q.count > 0))
		return RC_REQ_WAIT_FENCE;
	if (w->opcode != BLUE_WR_RDMA_READ && !rc_is_atomic(w->opcode))
		return RC_REQ_IDLE;
	if (rq->rd_q.count + rq->at_q.count >= rd_max)
		return RC_REQ_WAIT_READS;
	if (w->opcode == BLUE_WR_RDMA_READ ? rq->at_q.count > 0 : rq->rd_q.count > 0)
		return RC_REQ_WAIT_ATOMIC;
	return RC_REQ_IDLE;
}

/*
 * An atomic goes as a control frame, with the next PSN: the responder
 * executes it once every PSN before that arrived (rc_atomic.c).
 */
static void
start_atomic(struct blue_qp *qp, struct rc_wqe *w)
{
	w->atomic_id = qp->req.next_atomic_id++;
	w->psn = qp->req.next_psn;
	w->npkts = 0;
	rc_wqe_to(qp, w, RC_WQE_SENDING);
	qp->req.atomics[rc_fifo_push(&qp->req.at_q)] = qp->req.sq_next & qp->req.sq_mask;
	rc_atomic_send(qp, w); /* if it cannot go now, the timer resends it */
	wqe_pushed(qp, w);
	qp->req.sq_next++;
	if (qp->comp.rtx_deadline == 0)
		rc_timer_arm(qp);
}

static unsigned int push_queued(struct blue_qp *qp);

/*
 * Push items of queued WRs while the Send ring has room; @return items
 * pushed. A WR whose source MR went (rc_source_ok()) completes now, as the
 * oldest, or once the WRs before it did (their resends still go); the QP
 * then goes to ERR, and no WR after it starts meanwhile.
 */
unsigned int
rc_push(struct blue_qp *qp)
{
	unsigned int items;

	if (qp->vqp.attr.qp_state == ORDK_QPS_ERR)
		return 0; /* failed in this poll: the engine flushes it (rc_qp_error_reap()) */
	items = push_queued(qp);
	if (qp->req.prot_err)
		rc_complete_sends(qp);
	return items;
}

static unsigned int
push_queued(struct blue_qp *qp)
{
	unsigned int items;
	bool more;

	items = rc_push_retries(qp); /* retransmissions first */
	items += push_answers(qp, &more);
	if (more)
		return items;
	req_hold(qp, RC_REQ_IDLE);
	rc_read_keys_ahead(qp);
	/* (a WR failed its source check: the QP fails with it) */
	while (qp->req.sq_next != qp->req.sq_tail && !qp->req.prot_err) {
		struct rc_wqe *w = &qp->req.sq[qp->req.sq_next & qp->req.sq_mask];
		bool last_queued = qp->req.sq_next + 1 == qp->req.sq_tail;
		enum rc_req_state hold = wqe_hold(qp, w);
		unsigned int pushed;
		bool want_ack;

		if (hold != RC_REQ_IDLE) {
			req_hold(qp, hold);
			break;
		}
		if (rc_is_atomic(w->opcode)) {
			start_atomic(qp, w);
			continue;
		}
		/* a READ goes once the card knows its key (made ahead: rc_read_keys_ahead()) */
		if (!rc_wqe_started(w) && w->opcode == BLUE_WR_RDMA_READ && !rc_read_key_ready(qp, w)) {
			req_hold(qp, RC_REQ_WAIT_KEY);
			break;
		}
		if (!rc_wqe_started(w) && !start_wqe(qp, w))
			break;
		if (qp->vqp.attr.qp_state == ORDK_QPS_ERR)
			return items; /* RNR retries ran out: everything was flushed */
		if (w->state == RC_WQE_ERROR) {
			qp->req.sq_next++;
			continue;
		}
		/* ask the responder for an ACK: signaled WRs, READ responses, every
		 * ORDK_ACK_EVERY WRs, and the last WR queued (so unsignaled ones retire) */
		want_ack = w->signaled || (w->flags & RC_WQE_INTERNAL) || last_queued ||
			   qp->req.since_ack_req + 1 >= ORDK_ACK_EVERY || (w->flags & RC_WQE_LEN_ERR);
		pushed = push_items(qp, w, want_ack);
		items += pushed;
		/* ring or window full: the rest next time (a length error's announcement
		 * and a WR of no bytes are one item without payload: it went when an
		 * item went; taken for sent before, one the card window held never went) */
		if (w->state != RC_WQE_ERROR &&
		    ((w->flags & RC_WQE_LEN_ERR) || w->len == 0 ? pushed == 0 : w->sent < w->len))
			return items;
		if (w->state == RC_WQE_ERROR && (w->flags & RC_WQE_FATAL)) {
			qp->req.sq_next++;
			return items; /* its source check failed: nothing after it goes */
		}
		qp->req.since_ack_req = want_ack ? 0 : qp->req.since_ack_req + 1;
		wqe_pushed(qp, w);
		qp->req.sq_next++;
		if (qp->comp.rtx_deadline == 0)
			rc_timer_arm(qp);
	}
	return items;
}
