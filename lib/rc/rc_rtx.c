/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Retransmission. The card leaves it to the driver (HW-INTERFACE.md 5.1/5.2):
 * - the peer card's loss ACK (NakRemoteHw) names the holes of its old window:
 *   exactly those PSNs go out again;
 * - the peer driver's NAK (NakRemoteDriver) names [first missing, next received);
 * - a per-QP timer (IBA: 4.096 us << timeout; ~1 ms when timeout is 0) with
 *   exponential backoff asks the peer what arrived (see send_probe()); after
 *   retry_cnt timeouts without progress the oldest WR fails with
 *   RETRY_EXC_ERR, the QP goes to ERR and every other WR is flushed.
 * Retransmitted packets go one per item with is_retry = 1, so the card reports
 * even MIDDLE packets and the responder can fill its holes.
 */
#include <string.h>

#include <rte_cycles.h>

#include "verbs_internal.h"

#define RC_MAX_BACKOFF 64u

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
rc_qp_set_timeout(struct ordk_qp *qp)
{
	unsigned int t = qp->attr.timeout ? qp->attr.timeout : 8;
	uint64_t max = (uint64_t)ORDK_HOLD_MAX_US * qp->dev->tsc_hz / 1000000;

	if (t > 24)
		t = 24; /* 68 s: longer waits look like a hang to every user */
	qp->timeout_tsc = (4096ull << t) * qp->dev->tsc_hz / 1000000000ull;
	qp->hold_tsc = qp->timeout_tsc / 2 < max ? qp->timeout_tsc / 2 : max;
}

/* ------------------------------------------------------------ the wheel */

void
rc_wheel_init(struct ordk_dev *dev)
{
	uint64_t tick = dev->tsc_hz / 65536; /* about 15 us */

	for (unsigned int i = 0; i < RC_WHEEL_SLOTS; i++)
		TAILQ_INIT(&dev->wheel[i]);
	dev->wheel_shift = 0;
	while ((1ull << dev->wheel_shift) < tick)
		dev->wheel_shift++;
	dev->wheel_tick = rte_get_tsc_cycles() >> dev->wheel_shift;
	dev->wheel_count = 0;
	dev->stall_tsc = dev->tsc_hz / 5000; /* 200 us without a poll is a gap */
	dev->last_poll_tsc = rte_get_tsc_cycles();
	dev->resume_tsc = 0;
}

static void
wheel_remove(struct ordk_qp *qp)
{
	struct ordk_dev *dev = qp->dev;

	if (!qp->on_wheel)
		return;
	TAILQ_REMOVE(&dev->wheel[(qp->rtx_deadline >> dev->wheel_shift) & (RC_WHEEL_SLOTS - 1)],
		     qp, tlink);
	qp->on_wheel = false;
	dev->wheel_count--;
}

/* Set (or with 0 clear) the QP's retransmission deadline, on the wheel. */
void
rc_timer_set(struct ordk_qp *qp, uint64_t deadline)
{
	struct ordk_dev *dev = qp->dev;

	wheel_remove(qp);
	qp->rtx_deadline = deadline;
	qp->rtx_set_tsc = qp->dev->last_poll_tsc; /* the poll it was set in (no clock read) */
	if (deadline == 0)
		return;
	TAILQ_INSERT_TAIL(&dev->wheel[(deadline >> dev->wheel_shift) & (RC_WHEEL_SLOTS - 1)], qp,
			  tlink);
	qp->on_wheel = true;
	dev->wheel_count++;
}

/*
 * Visit the slots of the ticks since the last run (at most one turn; the
 * last run's slot again, as deadlines later in that tick may sit in it). A
 * QP whose deadline is due leaves the wheel and goes back on the active
 * list, where rc_timer_check() acts; a deadline a turn or more away stays
 * for a later turn. @return QPs woken.
 */
unsigned int
rc_wheel_run(struct ordk_dev *dev, uint64_t now)
{
	uint64_t t = now >> dev->wheel_shift, from = dev->wheel_tick;
	unsigned int woken = 0;

	if (dev->wheel_count == 0) {
		dev->wheel_tick = t;
		return 0;
	}
	if (t - from >= RC_WHEEL_SLOTS)
		from = t - RC_WHEEL_SLOTS + 1;
	for (uint64_t k = from; k <= t; k++) {
		struct rc_wheel_slot *slot = &dev->wheel[k & (RC_WHEEL_SLOTS - 1)];
		struct ordk_qp *qp, *next;

		for (qp = TAILQ_FIRST(slot); qp != NULL; qp = next) {
			next = TAILQ_NEXT(qp, tlink);
			if (qp->rtx_deadline > now)
				continue;
			TAILQ_REMOVE(slot, qp, tlink);
			qp->on_wheel = false;
			dev->wheel_count--;
			rc_activate(qp);
			woken++;
		}
	}
	dev->wheel_tick = t;
	return woken;
}

/* WRs pushed, or a WR partly pushed (it waits for the card window, rc_req.c) */
static bool
outstanding(const struct ordk_qp *qp)
{
	return qp->sq_head != qp->sq_next || qp->ans_head != qp->ans_next ||
	       qp->pushed_psn != qp->acked_psn;
}

void
rc_timer_arm(struct ordk_qp *qp)
{
	/*
	 * A QP that went to ERR in the caller's rc_complete_sends() (rc_ack(),
	 * rc_read_done()) has nothing outstanding: a deadline set now fired as
	 * soon as the QP was connected again (a timeout and a probe at the start
	 * of every new connection, on a clean wire).
	 */
	if (!outstanding(qp) || qp->attr.qp_state == ORDK_QPS_ERR ||
	    qp->attr.qp_state == ORDK_QPS_RESET) {
		rc_timer_set(qp, 0);
		return;
	}
	rc_timer_set(qp, rte_get_tsc_cycles() +
			     rc_timeout_tsc(qp) * (qp->rtx_backoff ? qp->rtx_backoff : 1));
}

static bool
rtx_bit(const struct ordk_qp *qp, uint32_t psn)
{
	uint32_t i = psn % ORDK_RECV_WINDOW;

	return (qp->rtx_bits[i / 64] >> (i % 64)) & 1;
}

/*
 * Whether the peer card sets a bitmap bit for the packets of @p w: only for
 * packets with payload and zero-length *_ONLY_WITH_IMMEDIATE (section 5.1).
 * A READ request or a zero-length SEND is a 0 bit in its window for good.
 */
static bool
card_tracks(const struct rc_wqe *w)
{
	return w->opcode != BLUE_WR_RDMA_READ && (w->len > 0 || w->opcode != BLUE_WR_SEND);
}

/*
 * Mark [from, to) for retransmission: exactly those PSNs, never the gaps
 * between ranges. @p card: the range comes from the peer card's loss report,
 * whose zero bits include the PSNs it never tracks (card_tracks()): those
 * are not lost, and the peer driver's tracker asks for them if they are.
 * @return PSNs of the range that may be lost (sent, unacknowledged, tracked).
 */
static uint32_t
retransmit(struct ordk_qp *qp, uint32_t from, uint32_t to, bool card)
{
	uint32_t named = 0;

	/* only what was sent and is not acknowledged: a PSN never pushed is not
	 * resent ahead of its turn (it would move the peer card's window, see rc_req.c) */
	if (blue_psn_diff(from, qp->acked_psn) < 0)
		from = qp->acked_psn;
	if (blue_psn_diff(to, qp->pushed_psn) > 0)
		to = qp->pushed_psn;
	uint32_t now16 = (uint32_t)(rte_get_tsc_cycles() >> 16);
	uint32_t hold16 = (uint32_t)((rc_hold_tsc(qp)) >> 16);
	uint32_t wi = qp->sq_head; /* card: the WQE cursor, moving along with p */

	for (uint32_t p = from; blue_psn_diff(to, p) > 0; p = blue_psn_add(p, 1)) {
		uint32_t i = p % ORDK_RECV_WINDOW, st = qp->rtx_stamp[i];

		if (card) {
			const struct rc_wqe *w = NULL;

			for (; wi != qp->sq_next; wi++) {
				w = &qp->sq[wi % qp->sq_size];
				if (w->started && !(w->flags & RC_WQE_ERROR) &&
				    blue_psn_diff(blue_psn_add(w->psn, w->npkts), p) > 0)
					break;
			}
			if (wi != qp->sq_next && blue_psn_diff(p, w->psn) >= 0 && !card_tracks(w))
				continue;
		}
		named++;
		if (rtx_bit(qp, p))
			continue;
		/*
		 * Resent within the last half timeout: the copy may still be on its
		 * way. Two NAKs naming one hole must not send it twice, or the
		 * second copy can land after the first completed the WR.
		 */
		if (st != 0 && now16 - st < hold16)
			continue;
		qp->rtx_bits[i / 64] |= 1ull << (i % 64);
		qp->rtx_count++;
		if (qp->rtx_count == 1 || blue_psn_diff(p, qp->rtx_last) > 0)
			qp->rtx_last = p;
	}
	if (qp->rtx_count > 0)
		rc_activate(qp);
	return named;
}

void
rc_retransmit(struct ordk_qp *qp, uint32_t from, uint32_t to)
{
	(void)retransmit(qp, from, to, false);
}

uint32_t
rc_retransmit_card(struct ordk_qp *qp, uint32_t from, uint32_t to)
{
	return retransmit(qp, from, to, true);
}

/*
 * The WQE (the application's, or a READ answer) whose PSN range holds @p psn
 * (the one partly pushed too), or NULL.
 */
static struct rc_wqe *
wqe_of_psn(struct ordk_qp *qp, uint32_t psn)
{
	uint32_t end = qp->sq_next + (qp->sq_next != qp->sq_tail &&
				      qp->sq[qp->sq_next % qp->sq_size].started);

	for (uint32_t i = qp->sq_head; i != end; i++) {
		struct rc_wqe *w = &qp->sq[i % qp->sq_size];
		int32_t k = blue_psn_diff(psn, w->psn);

		if ((w->flags & RC_WQE_ERROR) || !w->started)
			continue;
		if (k >= 0 && (uint32_t)k < w->npkts)
			return w;
	}
	end = qp->ans_next + (qp->ans_next != qp->ans_tail &&
			      qp->ans[qp->ans_next % ORDK_ANS_RING].started);
	for (uint32_t i = qp->ans_head; i != end; i++) {
		struct rc_wqe *w = &qp->ans[i % ORDK_ANS_RING];
		int32_t k = blue_psn_diff(psn, w->psn);

		if (k >= 0 && (uint32_t)k < w->npkts)
			return w;
	}
	return NULL;
}

/* One packet of @p w again, as its own item with is_retry = 1. */
static int
push_packet(struct ordk_qp *qp, struct rc_wqe *w, uint32_t k, bool ack)
{
	uint32_t pmtu = blue_pmtu_bytes(qp->attr.path_mtu), first, off, len;
	struct blue_send_item it;

	if (w->opcode == BLUE_WR_RDMA_READ) {
		off = 0;
		len = w->len; /* the READ request covers the whole length */
	} else {
		first = pmtu - (uint32_t)(w->raddr % pmtu);
		off = k == 0 ? 0 : first + (k - 1) * pmtu;
		len = w->len - off;
		if (len > (k == 0 ? first : pmtu))
			len = k == 0 ? first : pmtu;
		if (w->flags & RC_WQE_LEN_ERR)
			len = 0; /* the announcement of a too small RECV (rc_req.c) */
	}
	it = (struct blue_send_item){
		.opcode = (w->flags & RC_WQE_INTERNAL) ? BLUE_WR_RDMA_READ_RESP : w->opcode,
		.valid = 1, .msn = w->msn,
		.total_len = (w->flags & RC_WQE_LEN_ERR) ? 0 : w->len, .rkey = w->rkey,
		.dqp_ip = qp->attr.dest_ip, .raddr = w->raddr + off,
		.psn = blue_psn_add(w->psn, k), .qp_type = BLUE_QPT_RC,
		.dqpn = qp->attr.dest_qp_num,
		.flags = (uint8_t)((ack ? BLUE_SEND_SIGNALED : 0) |
				   (w->solicited ? BLUE_SEND_SOLICITED : 0)),
		.pmtu = (uint8_t)qp->attr.path_mtu, .is_first = k == 0,
		.is_last = k + 1 == w->npkts, .is_retry = 1, .sqpn = qp->qpn, .imm = w->imm,
		.dst_mac = qp->attr.dest_mac, .lkey = w->lkey, .len = len,
		.laddr = w->laddr + off, .enable_ecn = qp->cc_on };
	if (blue_send_item_put(&qp->dev->hw, &it) != 0)
		return -1;
	qp->rtx_stamp[it.psn % ORDK_RECV_WINDOW] = (uint32_t)(rte_get_tsc_cycles() >> 16) | 1;
	/* the first copy was late, not lost, perhaps: keep the peer card's window on it */
	{
		uint64_t now = rte_get_tsc_cycles();

		if (qp->late_tsc == 0 || now >= qp->late_tsc ||
		    blue_psn_diff(it.psn, qp->late_psn) < 0)
			qp->late_psn = it.psn;
		qp->late_tsc = now + (uint64_t)ORDK_LATE_COPY_US * qp->dev->tsc_hz / 1000000;
	}
	qp->st.retransmits++;
	qp->dev->st.retransmits++;
	return 0;
}

unsigned int
rc_push_retries(struct ordk_qp *qp)
{
	struct blue_hring *r = &qp->dev->hw.ring[BLUE_RING_SEND0];
	unsigned int items = 0;

	if (qp->rtx_count == 0)
		return 0;
	/*
	 * The card places every packet it receives, duplicates too, with no PSN
	 * check: a retry that sits in a long Send ring could land after its WR
	 * completed and the application reused the memory. Retries therefore go
	 * out only when the card has fetched everything before them.
	 */
	if (blue_hring_free(r, BLUE_RING_DEPTH) < BLUE_RING_DEPTH)
		return 0;
	if (qp->rtx_not_before != 0) {
		if (rte_get_tsc_cycles() < qp->rtx_not_before)
			return 0;
		qp->rtx_not_before = 0;
	}
	for (uint32_t p = qp->acked_psn; qp->rtx_count > 0 && blue_psn_diff(qp->next_psn, p) > 0;
	     p = blue_psn_add(p, 1)) {
		uint32_t i = p % ORDK_RECV_WINDOW;
		struct rc_wqe *w;

		if (!rtx_bit(qp, p))
			continue;
		if (blue_send_free(&qp->dev->hw, 2) < 2)
			break;
		qp->rtx_bits[i / 64] &= ~(1ull << (i % 64));
		qp->rtx_count--;
		w = wqe_of_psn(qp, p);
		if (w == NULL)
			RC_LOG(DEBUG, "qp 0x%06x: PSN 0x%06x to resend belongs to no WQE (head %u next %u tail %u)",
			       qp->qpn, p, qp->sq_head, qp->sq_next, qp->sq_tail);
		if (w != NULL && push_packet(qp, w, (uint32_t)blue_psn_diff(p, w->psn),
					     qp->rtx_count == 0) == 0)
			items++;
	}
	/*
	 * The card reads each resend's payload when it emits it: until it has
	 * fetched these items, no WR may complete and give its buffer back
	 * (rc_complete_sends()), however soon the ACK comes.
	 */
	if (items > 0)
		qp->rtx_fetch_until = qp->dev->send_fetched +
				      blue_ring_count(r->head, qp->dev->send_tail_seen);
	/* bits left behind acked_psn (acknowledged meanwhile) are dropped */
	if (qp->rtx_count > 0 && items == 0 && blue_send_free(&qp->dev->hw, 2) >= 2) {
		memset(qp->rtx_bits, 0, sizeof(qp->rtx_bits));
		qp->rtx_count = 0;
	}
	return items;
}

bool
rc_rtx_unfetched(struct ordk_qp *qp)
{
	if (qp->rtx_fetch_until == 0)
		return false;
	if ((int64_t)(qp->dev->send_fetched - qp->rtx_fetch_until) < 0)
		return true;
	qp->rtx_fetch_until = 0;
	return false;
}

/*
 * Ask the peer's driver what arrived (an ORDK ACK_REQ control frame). It
 * answers with an ACK of its expected PSN, or a NAK [expected, psn) when
 * something is missing, and exactly that goes out again. Anything at or
 * after the peer's expected PSN cannot have completed there (completion is
 * in PSN order), so a retry can never land in memory the peer's application
 * already took back: a blind resend on timeout could, because the card
 * places duplicates with no PSN check (READ responses read the responder's
 * memory as it is now).
 */
static bool
send_probe(struct ordk_qp *qp)
{
	struct ordk_dev *dev = qp->dev;
	struct ordk_wire_l3 l3 = { .dst_mac = qp->attr.dest_mac, .src_mac = dev->hw.mac,
				   .src_ip = dev->hw.ip, .dst_ip = qp->attr.dest_ip, .df = 1,
				   .ttl = 64 };
	struct ordk_ctrl_msg m = { .type = ORDK_CTRL_ACK_REQ, .src_qpn = qp->qpn,
				   .dst_qpn = qp->attr.dest_qp_num };
	uint8_t frame[BLUE_SNIC_TX_SLOT];
	int len;

	m.ack_req.psn = qp->next_psn;
	len = ordk_wire_ctrl_build(frame, sizeof(frame), &l3, &m);
	if (len < 0 || !blue_snic_tx_room(&dev->hw) ||
	    blue_snic_tx(&dev->hw, frame, (uint32_t)len) != 0)
		return false;
	blue_snic_tx_flush(&dev->hw);
	return true;
}

void
rc_qp_fail(struct ordk_qp *qp, enum ordk_wc_status status)
{
	/* the oldest user WR carries the error; everything else is flushed */
	while (qp->sq_head != qp->sq_tail) {
		struct rc_wqe *w = &qp->sq[qp->sq_head % qp->sq_size];

		qp->sq_head++;
		if (w->flags & RC_WQE_INTERNAL)
			continue;
		struct ordk_wc wc = { .wr_id = w->wr_id, .status = status, .qp_num = qp->qpn,
				      .opcode = rc_wc_opcode(w->opcode) };

		verbs_cq_push(qp->scq, &wc);
		qp->sq_user--;
		break;
	}
	RC_LOG(WARNING, "qp 0x%06x: %s; QP to ERR", qp->qpn, ordk_wc_status_str(status));
	rc_qp_error(qp);
}

void
rc_qp_error(struct ordk_qp *qp)
{
	qp->attr.qp_state = ORDK_QPS_ERR;
	qp->atomic_wqe = NULL;
	rc_timer_set(qp, 0);
	memset(qp->rtx_bits, 0, sizeof(qp->rtx_bits));
	qp->rtx_count = 0;
	qp->rtx_fetch_until = 0;
	/* the card's context goes invalid first: nothing lands through it from
	 * now on, so the RECVs can be flushed (best effort: the QP is in error
	 * whatever the card answers) */
	verbs_manage_qp(qp, false, true);
	rc_qp_flush(qp);
	verbs_event_raise(qp->dev, ORDK_EVENT_QP_FATAL, qp, NULL);
}

bool
rc_timer_gap_shift(struct ordk_qp *qp)
{
	const struct ordk_dev *dev = qp->dev;

	/* the peer may have been stopped too (one process, two devices) */
	if (qp->rtx_deadline == 0 || qp->rtx_set_tsc >= dev->resume_tsc ||
	    qp->rtx_deadline <= dev->resume_tsc - dev->gap_tsc)
		return false;
	rc_timer_set(qp, qp->rtx_deadline + dev->gap_tsc);
	return true;
}

bool
rc_probe(struct ordk_qp *qp)
{
	return send_probe(qp);
}

void
rc_timer_check(struct ordk_qp *qp, uint64_t now)
{
	if (qp->rtx_deadline == 0 || now < qp->rtx_deadline)
		return;
	/*
	 * What the peer said during a polling gap is still unread. First: the
	 * send-busy rule below sets a deadline from a time before the gap, and
	 * as set after the gap it could not be shifted any more (a timeout on
	 * a clean wire after every 4 ms the process was not scheduled).
	 */
	if (rc_timer_gap_shift(qp))
		return;
	/*
	 * While the card is still fetching items from the Send ring it is still
	 * transmitting, and the peer cannot have acknowledged what it has not
	 * received: the timeout counts from when the ring drained.
	 */
	if (qp->dev->send_busy_tsc + rc_timeout_tsc(qp) > now) {
		rc_timer_set(qp, qp->dev->send_busy_tsc +
				     rc_timeout_tsc(qp) * (qp->rtx_backoff ? qp->rtx_backoff : 1));
		return;
	}
	/* the peer took our too long SEND and is in ERR: nothing more will come */
	if (rc_len_err_settle(qp))
		return;
	qp->st.timeouts++;
	qp->dev->st.timeouts++;
	if (qp->rtx_retries >= qp->attr.retry_cnt) {
		qp->st.retry_exceeded++;
		qp->dev->st.retry_exceeded++;
		rc_qp_fail(qp, ORDK_WC_RETRY_EXC_ERR);
		return;
	}
	RC_LOG(DEBUG, "qp 0x%06x: timer set %" PRIu64 " us ago, send ring busy %" PRIu64 " us ago, gap %" PRIu64 " us %" PRIu64 " us ago",
	       qp->qpn, (now - qp->rtx_set_tsc) * 1000000 / qp->dev->tsc_hz,
	       (now - qp->dev->send_busy_tsc) * 1000000 / qp->dev->tsc_hz,
	       qp->dev->gap_tsc * 1000000 / qp->dev->tsc_hz,
	       (now - qp->dev->resume_tsc) * 1000000 / qp->dev->tsc_hz);
	qp->rtx_retries++;
	qp->rtx_backoff = qp->rtx_backoff ? qp->rtx_backoff * 2 : 2;
	if (qp->rtx_backoff > RC_MAX_BACKOFF)
		qp->rtx_backoff = RC_MAX_BACKOFF;
	/* an atomic in flight is asked again (same id: the peer replays, never re-executes);
	 * otherwise nothing said what is missing: ask the peer */
	/*
	 * Twice: a timeout means frames are being lost, and one round of
	 * recovery needs the question, the answer and the resend to arrive.
	 * Two copies of the small control frames cost nothing on a quiet link
	 * and make a round fail far less often (both are idempotent: the peer
	 * replays atomics from its cache, and a resend is never doubled within
	 * the hold).
	 */
	for (int copy = 0; copy < 2; copy++) {
		if (qp->atomic_wqe != NULL)
			rc_atomic_send(qp, qp->atomic_wqe);
		else
			send_probe(qp);
	}
	rc_timer_set(qp, now + rc_timeout_tsc(qp) * qp->rtx_backoff);
	RC_LOG(DEBUG, "qp 0x%06x: timeout %u, asking the peer about 0x%06x..0x%06x (head %u next %u tail %u op %u psn 0x%06x npkts %u flags %x)", qp->qpn,
	       qp->rtx_retries, qp->acked_psn, qp->next_psn, qp->sq_head, qp->sq_next, qp->sq_tail,
	       qp->sq[qp->sq_head % qp->sq_size].opcode, qp->sq[qp->sq_head % qp->sq_size].psn,
	       qp->sq[qp->sq_head % qp->sq_size].npkts, qp->sq[qp->sq_head % qp->sq_size].flags);
}
