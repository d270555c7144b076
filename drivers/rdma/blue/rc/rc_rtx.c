/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Retransmission. The card leaves it to the driver
 * (doc/guides/drivers/blue_hw_interface.md sections 5.1/5.2):
 * the completer (rc_comp.c) marks the PSNs a loss report or a NAK names, and
 * exactly those go out again, one packet per item with is_retry = 1, so the
 * card reports even MIDDLE packets and the responder can fill its holes.
 */
#include <string.h>

#include "blue_verbs.h"

static bool
rtx_bit(const struct blue_qp *qp, uint32_t psn)
{
	uint32_t i = psn % ORDK_RECV_WINDOW;

	return (qp->req.rtx_bits[i / 64] >> (i % 64)) & 1;
}

/*
 * Whether the peer card sets a bitmap bit for the packets of @p w: only for
 * packets with payload and zero-length *_ONLY_WITH_IMMEDIATE (section 5.1,
 * RQ.bsv's needUpdatePsnBitmap). A READ request, a zero-length SEND or WRITE
 * and the announcement of a too long SEND (sent without its payload) are a
 * 0 bit in their window for good.
 */
static bool
card_tracks(const struct rc_wqe *w)
{
	uint32_t sent_len = (w->flags & RC_WQE_LEN_ERR) ? 0 : w->len;

	if (w->opcode == BLUE_WR_RDMA_READ)
		return false;
	return sent_len > 0 || w->opcode == BLUE_WR_SEND_WITH_IMM ||
	       w->opcode == BLUE_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * Mark [from, to) for retransmission: exactly those PSNs, never the gaps
 * between ranges. @p card: the range comes from the peer card's loss report,
 * whose zero bits include the PSNs it never tracks (card_tracks()): those
 * are not lost, and the peer driver's tracker asks for them if they are.
 * @return PSNs of the range that may be lost (sent, unacknowledged, tracked).
 */
static uint32_t
retransmit(struct blue_qp *qp, uint32_t from, uint32_t to, bool card)
{
	uint32_t named = 0;

	/* only what was sent and is not acknowledged: a PSN never pushed is not
	 * resent ahead of its turn (it would move the peer card's window, see rc_req.c) */
	if (blue_psn_diff(from, qp->comp.acked_psn) < 0)
		from = qp->comp.acked_psn;
	if (blue_psn_diff(to, qp->req.pushed_psn) > 0)
		to = qp->req.pushed_psn;
	/* odd, as the stamps are (0 means none): a stamp of this tick is age 0, not 2^32 - 1 */
	uint32_t now16 = (uint32_t)(rc_ptime(&blue_qp_dev(qp)->rc) >> 16) | 1;
	uint32_t hold16 = (uint32_t)((rc_hold_tsc(qp)) >> 16);
	uint32_t wi = qp->req.sq_head; /* card: the WQE cursor, moving along with p */

	for (uint32_t p = from; blue_psn_diff(to, p) > 0; p = blue_psn_add(p, 1)) {
		uint32_t i = p % ORDK_RECV_WINDOW, st = qp->req.rtx_stamp[i];

		if (card) {
			const struct rc_wqe *w = NULL;

			for (; wi != qp->req.sq_next; wi++) {
				w = &qp->req.sq[wi & qp->req.sq_mask];
				if (rc_wqe_started(w) && w->state != RC_WQE_ERROR &&
				    blue_psn_diff(blue_psn_add(w->psn, w->npkts), p) > 0)
					break;
			}
			if (wi != qp->req.sq_next && blue_psn_diff(p, w->psn) >= 0 && !card_tracks(w))
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
		qp->req.rtx_bits[i / 64] |= 1ull << (i % 64);
		qp->req.rtx_count++;
	}
	if (qp->req.rtx_count > 0)
		rc_activate(qp);
	return named;
}

void
rc_retransmit(struct blue_qp *qp, uint32_t from, uint32_t to)
{
	(void)retransmit(qp, from, to, false);
}

uint32_t
rc_retransmit_card(struct blue_qp *qp, uint32_t from, uint32_t to)
{
	return retransmit(qp, from, to, true);
}

/*
 * The WQE (the application's, or a READ answer) whose PSN range holds @p psn
 * (the one partly pushed too), or NULL.
 */
static struct rc_wqe *
wqe_of_psn(struct blue_qp *qp, uint32_t psn)
{
	uint32_t end = qp->req.sq_next + (qp->req.sq_next != qp->req.sq_tail &&
				      rc_wqe_started(&qp->req.sq[qp->req.sq_next & qp->req.sq_mask]));

	for (uint32_t i = qp->req.sq_head; i != end; i++) {
		struct rc_wqe *w = &qp->req.sq[i & qp->req.sq_mask];
		int32_t k = blue_psn_diff(psn, w->psn);

		if (w->state == RC_WQE_ERROR || !rc_wqe_started(w))
			continue;
		if (k >= 0 && (uint32_t)k < w->npkts)
			return w;
	}
	end = qp->resp.ans_next + (qp->resp.ans_next != qp->resp.ans_tail &&
			      rc_wqe_started(&qp->resp.ans[qp->resp.ans_next % ORDK_ANS_RING]));
	for (uint32_t i = qp->resp.ans_head; i != end; i++) {
		struct rc_wqe *w = &qp->resp.ans[i % ORDK_ANS_RING];
		int32_t k = blue_psn_diff(psn, w->psn);

		if (k >= 0 && (uint32_t)k < w->npkts)
			return w;
	}
	return NULL;
}

/* One packet of @p w again, as its own item with is_retry = 1. */
static int
push_packet(struct blue_qp *qp, struct rc_wqe *w, uint32_t k, bool ack)
{
	uint32_t pmtu = blue_pmtu_bytes(qp->vqp.attr.path_mtu), off, len;
	uint64_t now = rc_ptime(&blue_qp_dev(qp)->rc);
	struct blue_send_item it;

	if (w->opcode == BLUE_WR_RDMA_READ) {
		off = 0;
		len = w->len; /* the READ request covers the whole length */
	} else {
		rc_pkt_span(w->raddr, w->len, pmtu, k, &off, &len);
		if (w->flags & RC_WQE_LEN_ERR)
			len = 0; /* the announcement of a too small RECV (rc_req.c) */
	}
	if (!(w->flags & RC_WQE_LEN_ERR) && !rc_source_ok(qp, w, off, len))
		return -1; /* its MR went: LOC_PROT_ERR, not resends the card skips */
	it = rc_send_item(qp, w, off, len, blue_psn_add(w->psn, k), ack, k + 1 == w->npkts);
	it.is_retry = 1;
	if (blue_send_item_put(&blue_qp_dev(qp)->hw, &it) != 0)
		return -1;
	qp->req.rtx_stamp[it.psn % ORDK_RECV_WINDOW] = (uint32_t)(now >> 16) | 1;
	/* the first copy was late, not lost, perhaps: keep the peer card's window on it */
	rc_late_copy_sent(qp, it.psn);
	qp->vqp.st.retransmits++;
	qp->vqp.st.tx_packets++;
	if (w->opcode != BLUE_WR_RDMA_READ)
		qp->vqp.st.tx_bytes += len;
	return 0;
}

unsigned int
rc_push_retries(struct blue_qp *qp)
{
	struct blue_hring *r = &blue_qp_dev(qp)->hw.ring[BLUE_RING_SEND0];
	bool prot_err = qp->req.prot_err; /* (a WR failed before: the older ones still go) */
	unsigned int items = 0;
	uint32_t first = 0;

	if (qp->req.rtx_count == 0)
		return 0;
	/*
	 * The card places every packet it receives, duplicates too, with no PSN
	 * check: a retry that sits in a long Send ring could land after its WR
	 * completed and the application reused the memory. Retries therefore go
	 * out only when the card has fetched everything before them.
	 */
	if (blue_hring_free(r, BLUE_RING_DEPTH) < BLUE_RING_DEPTH)
		return 0;
	if (qp->req.rtx_not_before != 0) {
		if (rc_ptime(&blue_qp_dev(qp)->rc) < qp->req.rtx_not_before)
			return 0;
		qp->req.rtx_not_before = 0;
	}
	for (uint32_t p = qp->comp.acked_psn; qp->req.rtx_count > 0 && blue_psn_diff(qp->req.next_psn, p) > 0;
	     p = blue_psn_add(p, 1)) {
		uint32_t i = p % ORDK_RECV_WINDOW;
		struct rc_wqe *w;

		if (!rtx_bit(qp, p))
			continue;
		if (blue_send_free(&blue_qp_dev(qp)->hw, 2) < 2)
			break;
		qp->req.rtx_bits[i / 64] &= ~(1ull << (i % 64));
		qp->req.rtx_count--;
		w = wqe_of_psn(qp, p);
		if (w == NULL)
			RC_LOG(DEBUG, "qp 0x%06x: PSN 0x%06x to resend belongs to no WQE (head %u next %u tail %u)",
			       qp->vqp.qpn, p, qp->req.sq_head, qp->req.sq_next, qp->req.sq_tail);
		if (w != NULL && push_packet(qp, w, (uint32_t)blue_psn_diff(p, w->psn),
					     qp->req.rtx_count == 0) == 0 && items++ == 0)
			first = p;
		if (qp->req.prot_err && !prot_err)
			break; /* a WR's source MR went: the QP fails with it (rc_push()) */
	}
	if (items > 0)
		verbs_trace(blue_qp_handle(qp), VERBS_TRACE_retransmit, first, items);
	/*
	 * The card reads each resend's payload when it emits it: until it has
	 * fetched these items, no WR may complete and give its buffer back
	 * (rc_complete_sends()), however soon the ACK comes.
	 */
	if (items > 0)
		qp->req.rtx_fetch_until = blue_qp_dev(qp)->rc.send_fetched +
					  blue_ring_count(r->head, blue_qp_dev(qp)->rc.send_tail_seen);
	/* bits left behind acked_psn (acknowledged meanwhile) are dropped */
	if (qp->req.rtx_count > 0 && items == 0 && blue_send_free(&blue_qp_dev(qp)->hw, 2) >= 2) {
		memset(qp->req.rtx_bits, 0, sizeof(qp->req.rtx_bits));
		qp->req.rtx_count = 0;
	}
	return items;
}

bool
rc_rtx_unfetched(struct blue_qp *qp)
{
	if (qp->req.rtx_fetch_until == 0)
		return false;
	if ((int64_t)(blue_qp_dev(qp)->rc.send_fetched - qp->req.rtx_fetch_until) < 0)
		return true;
	qp->req.rtx_fetch_until = 0;
	return false;
}
