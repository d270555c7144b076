/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder and the progress engine.
 *
 * The card reports FIRST, LAST and ONLY packets, READ requests, and bitmaps of
 * its 128-PSN window (HW-INTERFACE.md section 5.1). The receive tracker keeps
 * the expected PSN (epsn: every PSN before it arrived) and a bitmap of PSNs
 * seen after it. A local AckLocalHw whose window starts at B implies every PSN
 * before B arrived: a gap sliding out of the card's window would have made a
 * loss report instead. A message completes when epsn passes its last PSN;
 * then RECVs are consumed, READs finish (rc_read.c), and an ACK goes back through
 * SimpleNic TX as the card's ACK frame with is_send_by_driver = 1.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "verbs_internal.h"

/* ------------------------------------------------------ receive tracker */

bool
rc_rx_seen(const struct ordk_qp *qp, uint32_t psn)
{
	uint32_t i = psn % ORDK_RECV_WINDOW;

	return (qp->rbits[i / 64] >> (i % 64)) & 1;
}

static void
rbit_set(struct ordk_qp *qp, uint32_t psn, bool v)
{
	uint32_t i = psn % ORDK_RECV_WINDOW;

	if (v)
		qp->rbits[i / 64] |= 1ull << (i % 64);
	else
		qp->rbits[i / 64] &= ~(1ull << (i % 64));
}

static void
advance(struct ordk_qp *qp)
{
	while (rc_rx_seen(qp, qp->epsn)) {
		rbit_set(qp, qp->epsn, false);
		qp->epsn = blue_psn_add(qp->epsn, 1);
	}
}

/* Every PSN before @p psn arrived. */
static void
advance_to(struct ordk_qp *qp, uint32_t psn)
{
	int32_t d = blue_psn_diff(psn, qp->epsn);

	if (d <= 0)
		return;
	if (d >= (int32_t)ORDK_RECV_WINDOW) {
		memset(qp->rbits, 0, sizeof(qp->rbits));
	} else {
		for (int32_t i = 0; i < d; i++)
			rbit_set(qp, blue_psn_add(qp->epsn, (uint32_t)i), false);
	}
	qp->epsn = psn;
	advance(qp);
}

/* @return false for a PSN that arrived before (a duplicate). */
bool
rc_rx_mark(struct ordk_qp *qp, uint32_t psn)
{
	int32_t d = blue_psn_diff(psn, qp->epsn);

	if (d < 0)
		return false;
	if (d >= (int32_t)ORDK_RECV_WINDOW) {
		qp->st.out_of_window++; /* implied later by a bitmap report */
		return true;
	}
	rbit_set(qp, psn, true);
	if (blue_psn_diff(psn, qp->rx_top) >= 0)
		qp->rx_top = blue_psn_add(psn, 1);
	advance(qp);
	return true;
}

static void
merge_window(struct ordk_qp *qp, uint32_t base, const struct blue_bitmap128 *b)
{
	for (unsigned int w = 0; w < 2; w++) {
		uint64_t bits = w ? b->hi : b->lo;

		while (bits) {
			unsigned int i = (unsigned int)__builtin_ctzll(bits);
			uint32_t psn = blue_psn_add(base, w * 64 + i);

			bits &= bits - 1;
			if (blue_psn_diff(psn, qp->epsn) >= 0)
				rc_rx_mark(qp, psn);
		}
	}
}

static void maybe_nak(struct ordk_qp *qp, bool report);
static bool send_ack_frame(struct ordk_qp *qp, bool nak, uint32_t psn);

/* ------------------------------------------------------------- messages */

/*
 * A SEND longer than the RECV it was matched to (IBA 9.7.5.2.2): the RECV
 * completes with LOC_LEN_ERR and the QP goes to ERR. The ACK of what arrived
 * goes first (twice: nothing resends it), so the requester fails its WR with
 * REM_INV_REQ_ERR; a copy lost is answered later from ERR (see rx_ctrl).
 */
static void
recv_len_error(struct ordk_qp *qp)
{
	RC_LOG(WARNING, "qp 0x%06x: a SEND longer than its RECV; QP to ERR", qp->qpn);
	qp->st.recv_len_errors++;
	qp->dev->st.recv_len_errors++;
	/* requests before this one were handled: their READ answers go first */
	rc_push_owed_answers(qp);
	(void)send_ack_frame(qp, false, qp->epsn);
	(void)send_ack_frame(qp, false, qp->epsn);
	blue_snic_tx_flush(&qp->dev->hw);
	rc_qp_error(qp);
}

static void
recv_cqe(struct ordk_qp *qp, const struct rc_msg *m, enum ordk_wc_opcode op, bool imm)
{
	struct ordk_wc wc = { .opcode = op, .byte_len = m->len, .qp_num = qp->qpn };
	bool too_long;
	struct rc_rwqe *r;

	if (qp->rq_count == 0) {
		/* a SEND the peer had no advert for: cannot come from an ORDK peer */
		RC_LOG(DEBUG, "qp 0x%06x: a message ending at 0x%06x finds no RECV", qp->qpn,
		       m->end_psn);
		qp->st.adverts_unexpected++;
		return;
	}
	r = &qp->rq[qp->rq_head];
	qp->rq_head = (qp->rq_head + 1) % qp->rq_size;
	qp->rq_count--;
	if (qp->rq_advertised > 0)
		qp->rq_advertised--;
	/* a buffer the peer used was advertised and arrived there: acknowledged */
	if ((int32_t)(r->recv_seq + 1 - qp->rq_acked) > 0)
		qp->rq_acked = r->recv_seq + 1;
	wc.wr_id = r->wr_id;
	if (imm) {
		wc.imm_data = m->imm;
		wc.wc_flags = ORDK_WC_WITH_IMM;
	}
	too_long = op == ORDK_WC_RECV && m->len > r->len;
	RC_LOG(DEBUG, "qp 0x%06x: RECV %u (%u B) takes the message of %u B ending at 0x%06x",
	       qp->qpn, r->recv_seq, r->len, m->len, m->end_psn);
	if (too_long)
		wc.status = ORDK_WC_LOC_LEN_ERR;
	rc_recv_done(qp, r, &wc); /* reported once the card forgot the RECV's key */
	qp->st.recv_completed++;
	qp->dev->st.recv_completed++;
	if (too_long)
		recv_len_error(qp);
}

static void
complete_msgs(struct ordk_qp *qp)
{
	rc_read_progress(qp);
	while (qp->msg_count > 0) {
		struct rc_msg *m = &qp->msgs[qp->msg_head];

		if (blue_psn_diff(qp->epsn, m->end_psn) <= 0)
			break;
		if (m->len == RC_MSG_LEN_AT_FIRST)
			m->len = qp->first_len[m->msn % ORDK_FIRST_LEN_SLOTS];
		switch (m->opcode) {
		case BLUE_OP_SEND_LAST:
		case BLUE_OP_SEND_ONLY:
			recv_cqe(qp, m, ORDK_WC_RECV, false);
			break;
		case BLUE_OP_SEND_LAST_WITH_IMM:
		case BLUE_OP_SEND_ONLY_WITH_IMM:
			recv_cqe(qp, m, ORDK_WC_RECV, true);
			break;
		case BLUE_OP_WRITE_LAST_WITH_IMM:
		case BLUE_OP_WRITE_ONLY_WITH_IMM:
			recv_cqe(qp, m, ORDK_WC_RECV_RDMA_WITH_IMM, true);
			break;
		case BLUE_OP_READ_RESPONSE_LAST:
		case BLUE_OP_READ_RESPONSE_ONLY:
			rc_read_done(qp, m->msn);
			break;
		default:
			break; /* a plain WRITE completes nothing at the responder */
		}
		/* a READ the peer refused (rc_read_done) or a length error ended the
		 * QP: its queues are reset, everything else was flushed */
		if (qp->attr.qp_state == ORDK_QPS_ERR)
			return;
		if (m->ack_req)
			qp->ack_due = true;
		qp->msg_head = (qp->msg_head + 1) % ORDK_MSG_QUEUE;
		qp->msg_count--;
	}
}

static void
rx_header(struct ordk_qp *qp, const struct blue_meta_report *r)
{
	uint8_t op = BLUE_BTH_OP(r->opcode);
	const struct blue_meta_basic *b = &r->basic;
	enum blue_pkt_pos pos = blue_op_pos(op);

	qp->last_rx_tsc = rte_get_tsc_cycles();
	/*
	 * A FIRST's length is kept by MSN, even when a bitmap report already
	 * accounted for its PSN: a retransmitted FIRST may come after a later
	 * message's, or after the window report that covers it. Only the peer's
	 * requests: a READ answer carries the MSN of our READ (our numbering),
	 * and its length overwrote that of the peer's SEND of the same MSN
	 * (a SEND then taken for too long, or a RECV with a wrong byte_len).
	 */
	if (pos == BLUE_POS_FIRST && !blue_op_is_read_resp(op))
		qp->first_len[b->msn % ORDK_FIRST_LEN_SLOTS] = b->total_len;
	/* the first packet of the answer to one of our READs: where its answer starts */
	if (pos == BLUE_POS_FIRST && blue_op_is_read_resp(op))
		rc_read_answer_seen(qp, b->msn, b->psn, qp->last_rx_tsc);
	uint32_t epsn_before = qp->epsn;

	if (!rc_rx_mark(qp, b->psn)) {
		RC_LOG(DEBUG, "qp 0x%06x: header psn 0x%06x op 0x%x msn %u seen before (epsn 0x%06x)",
		       qp->qpn, b->psn, op, b->msn, qp->epsn);
		/* a duplicate: placed again by the card; ACK again, never complete twice */
		qp->st.duplicates++;
		if (b->ack_req)
			qp->ack_due = true;
		return;
	}
	/*
	 * A resend filled the hole and the expected PSN stopped again short of
	 * what arrived: that gap was sent before, so it is a hole too (or MIDDLE
	 * packets a report has not named yet). Start its clock; the engine asks
	 * for it after the hold unless a report fills it first. Without this, a
	 * lost ACK left it to the sender's timer (67 ms at timeout 14).
	 */
	if (b->is_retry && qp->epsn != epsn_before && blue_psn_diff(qp->rx_top, qp->epsn) > 0) {
		qp->hole_psn = qp->epsn;
		qp->hole_tsc = qp->last_rx_tsc;
		/* a recovery round: the stream that left it has been reported: a real hole */
		qp->hole_settled = true;
		rc_activate(qp);
	}
	if (pos == BLUE_POS_LAST || pos == BLUE_POS_ONLY) {
		uint32_t at = qp->msg_count;

		if (qp->msg_count == ORDK_MSG_QUEUE) {
			qp->st.reports_unexpected++;
			return;
		}
		/*
		 * Keep the queue in PSN order: a retransmitted LAST arrives after
		 * the LASTs of later messages, and completions go in message order.
		 */
		while (at > 0) {
			const struct rc_msg *prev = &qp->msgs[(qp->msg_head + at - 1) % ORDK_MSG_QUEUE];

			if (prev->end_psn == b->psn) {
				/* arrived before, beyond a hole still open: never twice */
				qp->st.duplicates++;
				return;
			}
			if (blue_psn_diff(prev->end_psn, b->psn) < 0)
				break;
			at--;
		}
		for (uint32_t i = qp->msg_count; i > at; i--)
			qp->msgs[(qp->msg_head + i) % ORDK_MSG_QUEUE] =
				qp->msgs[(qp->msg_head + i - 1) % ORDK_MSG_QUEUE];
		qp->msgs[(qp->msg_head + at) % ORDK_MSG_QUEUE] = (struct rc_msg){
			.end_psn = b->psn, .opcode = op, .ack_req = b->ack_req, .msn = b->msn,
			.imm = b->imm_data,
			/* a LAST may come before its FIRST: its length is read at completion;
			 * a too small RECV's announcement carries the SEND's length in raddr */
			.len = pos != BLUE_POS_ONLY ? RC_MSG_LEN_AT_FIRST
			       : blue_op_is_send(op) && b->total_len == 0 &&
					 b->rkey == ORDK_WIRE_RKEY_LEN_ERR
				       ? (uint32_t)RTE_MIN(b->raddr, (uint64_t)UINT32_MAX)
				       : b->total_len };
		qp->msg_count++;
	}
	complete_msgs(qp);
}

/* PSNs [from, to) arrived (only those at or after epsn are recorded). */
static void
mark_range(struct ordk_qp *qp, uint32_t from, uint32_t to)
{
	if (blue_psn_diff(from, qp->epsn) < 0)
		from = qp->epsn;
	if (blue_psn_diff(to, from) <= 0)
		return;
	if (from == qp->epsn) {
		advance_to(qp, to);
		return;
	}
	for (uint32_t p = from; p != to; p = blue_psn_add(p, 1))
		if (!rc_rx_mark(qp, p))
			continue;
}

/*
 * Whether a report's window shows the PSN at epsn missing: only when the card
 * had seen a later PSN (a set bit beyond epsn). A loss report comes as the
 * packet that slid the window arrives, so the PSNs after that one are not
 * missing but not sent yet: taking them for a hole NAKed the MIDDLE packets
 * of a stream still flowing (no report names those), on a clean wire
 * (issue 12 item 14).
 */
static bool
report_shows_hole(const struct ordk_qp *qp, uint32_t base, const struct blue_bitmap128 *b)
{
	int top = b->hi ? 127 - __builtin_clzll(b->hi) : b->lo ? 63 - __builtin_clzll(b->lo) : -1;

	return top >= 0 && blue_psn_diff(blue_psn_add(base, (uint32_t)top), qp->epsn) > 0;
}

/*
 * The card's bitmap reports. Between two reports the card's window slid
 * from the previous base to this one; the PSNs that slid out did arrive,
 * unless the card reported a loss (a NakLocalHw describes the window that
 * held the hole). So each report implies exactly [previous base, this
 * report's pre-slide base): never across a hole already reported lost.
 */
static void
rx_bitmap(struct ordk_qp *qp, const struct blue_meta_report *r)
{
	const struct blue_meta_ack *a = &r->ack;
	uint32_t base = blue_psn_add(a->psn_now, BLUE_PSN_MASK + 1 - 112);


	if (r->kind == BLUE_META_NAK_LOCAL_HW) {
		uint32_t pre = blue_psn_add(a->psn_before_slide, BLUE_PSN_MASK + 1 - 112);

		if (blue_psn_diff(pre, qp->card_base) > 0)
			mark_range(qp, qp->card_base, pre);
		merge_window(qp, pre, &a->pre_bitmap);
	} else if (blue_psn_diff(base, qp->card_base) > 0) {
		mark_range(qp, qp->card_base, base);
	}
	merge_window(qp, base, &a->now_bitmap);
	if (blue_psn_diff(base, qp->card_base) > 0)
		qp->card_base = base;
	complete_msgs(qp);
	if (qp->attr.qp_state == ORDK_QPS_ERR)
		return;
	qp->ack_due = true; /* bitmap reports come after quiet: ACK now */
	qp->probe_report = true;
	maybe_nak(qp, report_shows_hole(qp, base, &a->now_bitmap));
}

/* ----------------------------------------------------------------- ACKs */

/*
 * The card's ACK frame, sent by the driver (is_send_by_driver = 1):
 * ACK: psn = epsn (everything before it arrived);
 * NAK: lost = slided = 1, pre_psn = epsn (the first missing PSN) and
 *      psn = the first PSN after the hole that did arrive.
 */
static bool
send_ack_frame(struct ordk_qp *qp, bool nak, uint32_t psn)
{
	struct ordk_dev *dev = qp->dev;
	struct ordk_wire_rdma p = { 0 };
	uint8_t frame[ORDK_WIRE_RDMA_HLEN];
	int n;

	if (!blue_snic_tx_room(&dev->hw))
		return false;
	p.l3 = (struct ordk_wire_l3){ .dst_mac = qp->attr.dest_mac, .src_mac = dev->hw.mac,
				      .src_ip = dev->hw.ip, .dst_ip = qp->attr.dest_ip,
				      .src_port = ORDK_WIRE_ROCE_UDP_PORT,
				      .dst_port = ORDK_WIRE_ROCE_UDP_PORT, .df = 1, .ttl = 64 };
	p.bth = (struct ordk_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = BLUE_OP_ACKNOWLEDGE,
					.dqpn = qp->attr.dest_qp_num, .psn = psn };
	p.aeth = (struct ordk_wire_aeth){ .now_bitmap = { ~0ull, ~0ull }, .is_send_by_driver = 1,
					  .is_packet_lost = nak, .is_window_slided = nak,
					  .pre_psn = qp->epsn };
	n = ordk_wire_rdma_build_hdr(frame, sizeof(frame), &p, 0);
	return n > 0 && blue_snic_tx(&dev->hw, frame, (uint32_t)n) == 0;
}

static bool
send_ack(struct ordk_qp *qp)
{
	if (!send_ack_frame(qp, false, qp->epsn))
		return false;
	RC_LOG(DEBUG, "qp 0x%06x: ACK psn 0x%06x to 0x%06x", qp->qpn, qp->epsn,
	       qp->attr.dest_qp_num);
	qp->acked_epsn = qp->epsn;
	qp->ack_due = false;
	qp->st.acks_sent++;
	qp->dev->st.acks_sent++;
	return true;
}

/*
 * PSNs arrived beyond a hole at epsn: ask for the hole, but only once it has
 * lasted half the QP's timeout. A frame merely delayed or reordered fills it
 * first; a resend of it could otherwise be overtaken by the original, which
 * the card would place after the WR completed (it has no duplicate filter).
 */
static void
maybe_nak(struct ordk_qp *qp, bool report)
{
	uint64_t now = rte_get_tsc_cycles();

	if (qp->hole_psn != qp->epsn || qp->hole_tsc == 0) {
		/*
		 * Only a bitmap report opens a hole: between header reports,
		 * MIDDLE packets (never reported one by one) look like holes.
		 */
		if (!report)
			return;
		qp->hole_psn = qp->epsn;
		qp->hole_tsc = now;
		/*
		 * Settled: a report opens a hole only when the card had seen a
		 * later PSN (report_shows_hole()), so it is no pause of the sender
		 * whose resumed stream's MIDDLE packets go unreported
		 * (verbs_tools_gap). Unsettled, a lost MIDDLE packet of a READ
		 * answer waited for a report that never came once the answers
		 * stopped (max_rd_atomic reached): ib_read_bw at 1% loss ended in
		 * RETRY_EXC_ERR.
		 */
		qp->hole_settled = true;
		return;
	}
	/*
	 * No time-only verdicts while our READs are answered: the hole is then
	 * most likely MIDDLE response packets no report named yet (the card
	 * reports none while a stream flows), and a resent response packet that
	 * lands after the READ completed overwrites memory the application owns
	 * again (the card places every response packet). Reports still decide,
	 * and the card's own loss reports and the READ's timer cover the rest.
	 */
	if (!report && qp->rd_count > 0 && !qp->hole_settled)
		return;
	/*
	 * (A hole a resend left behind is judged on time even then: a probe's
	 * answer names only the first hole, and the next ones would each wait
	 * for the peer's timer: 67 ms a round at timeout 14.)
	 */
	/* a hole is judged on what was seen while polling (see resume_tsc) */
	if (now - RTE_MAX(qp->hole_tsc, qp->dev->resume_tsc) < rc_hold_tsc(qp))
		return;
	if (qp->nak_epsn != qp->epsn)
		qp->nak_count = 0;
	/*
	 * NAKs for one hole are bounded and back off: the hold, then twice
	 * that, and so on. A hole nobody fills (a forged PSN beyond the
	 * expected one, or a sender that is gone) is given up after
	 * RC_NAK_MAX: the sender's own timers decide what follows.
	 */
	if (qp->nak_count >= RC_NAK_MAX) {
		qp->hole_tsc = 0; /* the QP may sleep; a report opens it again */
		return;
	}
	if (qp->nak_count > 0 && now - qp->nak_tsc < rc_hold_tsc(qp) << (qp->nak_count - 1))
		return;
	for (uint32_t d = 1; d < ORDK_RECV_WINDOW; d++) {
		uint32_t psn = blue_psn_add(qp->epsn, d);

		if (rc_rx_seen(qp, psn)) {
			if (send_ack_frame(qp, true, psn)) {
				RC_LOG(DEBUG, "qp 0x%06x: hole NAK 0x%06x..0x%06x (%s)", qp->qpn,
				       qp->epsn, psn, report ? "report" : "held");
				qp->nak_epsn = qp->epsn;
				qp->nak_tsc = now;
				qp->st.naks_sent++;
				qp->dev->st.naks_sent++;
				if (++qp->nak_count == RC_NAK_MAX) {
					RC_LOG(DEBUG, "qp 0x%06x: hole at 0x%06x NAKed %u times: given up",
					       qp->qpn, qp->epsn, RC_NAK_MAX);
					qp->st.naks_given_up++;
					qp->dev->st.naks_given_up++;
				}
			}
			return;
		}
	}
}

/* ------------------------------------------------------- control frames */

static void
rx_ctrl(struct ordk_dev *dev, const uint8_t *f, uint32_t len)
{
	struct ordk_wire_l3 l3;
	struct ordk_ctrl_msg m;
	struct ordk_qp *qp;

	if (ordk_wire_classify(f, len) == ORDK_WIRE_CLASS_RDMA)
		return; /* not ours */
	if (ordk_wire_ctrl_parse(f, len, &l3, &m) != 0) {
		RC_LOG(DEBUG, "SimpleNic frame of %u B is not an ORDK control frame", len);
		dev->st.ctrl_bad++; /* ARP and friends are for lib/cm; counted for now */
		return;
	}
	qp = verbs_qp_lookup(dev, m.dst_qpn);
	if (qp != NULL && qp->attr.qp_state == ORDK_QPS_ERR && m.type == ORDK_CTRL_ACK_REQ &&
	    m.src_qpn == qp->attr.dest_qp_num) {
		/*
		 * In ERR still say what arrived before: a requester whose SEND made
		 * this QP fail (recv_len_error) learns it though both ACKs were lost.
		 */
		(void)send_ack_frame(qp, false, qp->epsn);
		return;
	}
	if (qp == NULL || qp->attr.qp_state == ORDK_QPS_ERR) {
		dev->st.ctrl_bad++;
		return;
	}
	if (qp->attr.qp_state < ORDK_QPS_RTR) {
		/*
		 * The peer may connect and advertise before this QP knows it (both
		 * sides move to RTR after the out-of-band exchange): keep the adverts
		 * of one sender, checked against the peer's QPN at RTR.
		 */
		if (qp->adv_count > 0 && m.src_qpn != qp->adv_src) {
			dev->st.ctrl_bad++;
			return;
		}
		qp->adv_src = m.src_qpn;
	} else if (m.src_qpn != qp->attr.dest_qp_num) {
		dev->st.ctrl_bad++;
		return;
	}
	qp->heard_tsc = dev->last_poll_tsc; /* the peer is there (an RNR wait asks) */
	if (m.type == ORDK_CTRL_ACK_REQ) {
		/*
		 * The peer's timer asks what arrived. The answer waits until this
		 * tracker is up to date: the card reports MIDDLE packets only in its
		 * next bitmap report (after 20 us of quiet), and NAKing PSNs that did
		 * arrive would send resends that land after completion.
		 */
		RC_LOG(DEBUG, "qp 0x%06x: the peer asks about PSNs before 0x%06x (epsn 0x%06x)",
		       qp->qpn, m.ack_req.psn, qp->epsn);
		if (qp->attr.qp_state < ORDK_QPS_RTR)
			return;
		if (!qp->probe_pending || blue_psn_diff(m.ack_req.psn, qp->probe_psn) > 0)
			qp->probe_psn = m.ack_req.psn;
		if (!qp->probe_pending) {
			qp->probe_pending = true;
			qp->probe_report = false;
			qp->probe_tsc = rte_get_tsc_cycles();
		}
		rc_activate(qp);
		return;
	}
	if (m.type == ORDK_CTRL_READ_NAK) {
		if (qp->attr.qp_state >= ORDK_QPS_RTR)
			rc_read_nak_rx(qp, &m);
		rc_activate(qp);
		return;
	}
	if (m.type == ORDK_CTRL_ATOMIC_REQ || m.type == ORDK_CTRL_ATOMIC_RESP) {
		if (qp->attr.qp_state < ORDK_QPS_RTR)
			return;
		if (m.type == ORDK_CTRL_ATOMIC_REQ)
			rc_atomic_rx_req(qp, &m);
		else
			rc_atomic_rx_resp(qp, &m);
		rc_activate(qp);
		return;
	}
	if (m.type == ORDK_CTRL_RECV_ADVERT_ACK) {
		if ((int32_t)(m.advert_ack.recv_seq - qp->rq_acked) > 0 &&
		    (int32_t)(m.advert_ack.recv_seq - qp->next_recv_seq) <= 0)
			qp->rq_acked = m.advert_ack.recv_seq;
		return;
	}
	if (m.type != ORDK_CTRL_RECV_ADVERT) {
		dev->st.ctrl_bad++;
		return;
	}
	qp->adv_ack_due = true; /* even for duplicates: our last ACK may be lost */
	for (unsigned int i = 0; i < m.advert.count; i++) {
		const struct ordk_ctrl_advert *a = &m.advert.e[i];

		if ((int32_t)(a->recv_seq - qp->adv_expect) < 0) {
			qp->st.duplicates++; /* a re-sent advert we already have */
			continue;
		}
		if (a->recv_seq != qp->adv_expect || qp->adv_count == ORDK_ADVERT_RING) {
			RC_LOG(DEBUG, "qp 0x%06x: advert %u unexpected (want %u)", qp->qpn,
			       a->recv_seq, qp->adv_expect);
			qp->st.adverts_unexpected++;
			continue; /* duplicates and gaps: reliability comes with issue 5 */
		}
		RC_LOG(DEBUG, "qp 0x%06x: advert %u (%u B at 0x%" PRIx64 ")", qp->qpn, a->recv_seq,
		       a->length, a->addr);
		qp->adv[(qp->adv_head + qp->adv_count) % ORDK_ADVERT_RING] = *a;
		qp->adv_count++;
		qp->adv_expect++;
		qp->st.adverts_received++;
		dev->st.adverts_received++;
	}
	rc_activate(qp);
}

/*
 * Resend the PSNs the peer card's old window misses (zero bits of pre_bitmap),
 * after half the QP's timeout: the card reports a hole as soon as it slides
 * out of its window, and a delayed original overtaking the resend would be
 * placed after completion (see maybe_nak()).
 */
static uint32_t
nak_holes(struct ordk_qp *qp, const struct blue_meta_ack *a)
{
	if (qp->rtx_count == 0)
		qp->rtx_not_before = rte_get_tsc_cycles() + rc_hold_tsc(qp);
	uint32_t base = blue_psn_add(a->psn_before_slide, BLUE_PSN_MASK + 1 - 112);
	uint32_t named = 0;
	int start = -1;

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
		qp->rtx_retries = 0;
	return named;
}

/*
 * ACK what arrived, or NAK the first hole: [epsn, the first PSN after it that
 * arrived, or the probe's PSN). Exactly the hole: a resent packet that had
 * arrived is placed again by the card, and for a READ response that can be
 * after the READ completed, in memory the application owns again. Later
 * holes are asked for once this one is filled.
 */
static void
answer_probe(struct ordk_qp *qp)
{
	if (blue_psn_diff(qp->probe_psn, qp->epsn) > 0) {
		uint32_t to = qp->probe_psn;

		for (uint32_t d = 1; d < ORDK_RECV_WINDOW; d++) {
			uint32_t psn = blue_psn_add(qp->epsn, d);

			if (blue_psn_diff(to, psn) <= 0)
				break;
			if (rc_rx_seen(qp, psn)) {
				to = psn;
				break;
			}
		}
		if (!send_ack_frame(qp, true, to))
			return;
		/* a second copy: the peer asks because frames are being lost (see rc_timer_check) */
		(void)send_ack_frame(qp, true, to);
		RC_LOG(DEBUG, "qp 0x%06x: probe answered: NAK 0x%06x..0x%06x", qp->qpn, qp->epsn, to);
		qp->st.naks_sent++;
		qp->dev->st.naks_sent++;
	} else {
		qp->ack_due = true;
	}
	qp->probe_pending = false;
}

/* --------------------------------------------------------- the engine */

static void
dispatch(struct ordk_dev *dev, const struct blue_meta_report *r)
{
	uint32_t qpn = r->kind <= BLUE_META_HEADER_READ ? r->basic.dqpn : r->ack.qpn;
	struct ordk_qp *qp = verbs_qp_lookup(dev, qpn);

	if (qp == NULL || (qp->attr.qp_state != ORDK_QPS_RTR && qp->attr.qp_state != ORDK_QPS_RTS)) {
		RC_LOG(DEBUG, "%s report for an unknown QPN or one not in RTR/RTS 0x%06x",
		       blue_meta_kind_name(r->kind), qpn);
		dev->st.reports_unexpected++; /* a stale QPN, a QP not connected or in ERR */
		return;
	}
	RC_LOG(DEBUG, "qp 0x%06x: %s psn 0x%06x op 0x%x msn %u", qpn, blue_meta_kind_name(r->kind),
	       r->kind <= BLUE_META_HEADER_READ ? r->basic.psn : r->ack.psn_now,
	       r->kind <= BLUE_META_HEADER_READ ? BLUE_BTH_OP(r->opcode) : 0,
	       r->kind <= BLUE_META_HEADER_READ ? r->basic.msn : 0);
	qp->heard_tsc = dev->last_poll_tsc; /* every report comes from the peer's frames */
	switch (r->kind) {
	case BLUE_META_HEADER_WRITE:
		rx_header(qp, r);
		break;
	case BLUE_META_HEADER_READ:
		rc_rx_read(qp, r);
		/*
		 * A READ request that filled the hole at epsn moves it past
		 * messages already in: they complete now. Before, they waited for
		 * the next report, and with both sides idle (everything else
		 * acknowledged) a READ answer that had arrived never completed
		 * (RETRY_EXC_ERR at 1% loss).
		 */
		if (qp->attr.qp_state == ORDK_QPS_RTR || qp->attr.qp_state == ORDK_QPS_RTS)
			complete_msgs(qp);
		break;
	case BLUE_META_ACK_LOCAL_HW:
	case BLUE_META_NAK_LOCAL_HW:
		rx_bitmap(qp, r);
		break;
	case BLUE_META_ACK_REMOTE_DRIVER:
		qp->st.acks_received++;
		dev->st.acks_received++;
		rc_ack(qp, r->ack.psn_now);
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
			qp->st.naks_received++;
			dev->st.naks_received++;
		} else {
			qp->st.card_naks_untracked++;
			dev->st.card_naks_untracked++;
		}
		break;
	case BLUE_META_NAK_REMOTE_DRIVER:
		/* the peer driver: everything before psn_before_slide arrived,
		 * [psn_before_slide, psn_now) did not */
		qp->st.naks_received++;
		dev->st.naks_received++;
		rc_ack(qp, r->ack.psn_before_slide);
		rc_retransmit(qp, r->ack.psn_before_slide, r->ack.psn_now);
		break;
	default:
		dev->st.cnps++;
		break;
	}
	rc_activate(qp);
}

unsigned int
rc_poll(struct ordk_dev *dev, unsigned int budget)
{
	struct blue_meta_report rep;
	unsigned int work = 0, items = 0;
	const uint8_t *f;
	uint32_t len;
	struct ordk_qp *qp, *tmp;
	bool snic = false;
	uint64_t now;

	now = rte_get_tsc_cycles();
	if (now - dev->last_poll_tsc > dev->stall_tsc) {
		/* a polling gap: input may have piled up (see resume_tsc) */
		dev->resume_tsc = now;
		dev->gap_tsc = now - dev->last_poll_tsc;
	}
	dev->last_poll_tsc = now;
	for (unsigned int i = 0; i < budget; i++) {
		int rc = blue_meta_next(&dev->hw, &rep);

		if (rc == 0)
			break;
		work++;
		if (rc < 0) {
			dev->st.reports_unexpected++;
			continue;
		}
		dispatch(dev, &rep);
	}
	blue_meta_commit(&dev->hw);

	for (unsigned int i = 0; i < budget && (f = blue_snic_rx_next(&dev->hw, &len)) != NULL; i++) {
		rx_ctrl(dev, f, len);
		blue_snic_rx_done(&dev->hw);
		work++;
	}
	blue_snic_rx_commit(&dev->hw);

	/* now: read once at the start of this poll */
	{
		/* is the card still fetching our Send items? (timers wait for it) */
		struct blue_hring *sr = &dev->hw.ring[BLUE_RING_SEND0];
		uint32_t t = *sr->tail_reg;

		if (t != dev->send_tail_seen || blue_ring_ptr(sr->head) != blue_ring_ptr(t)) {
			dev->send_tail_seen = t;
			dev->send_busy_tsc = now;
		}
	}
	rc_wheel_run(dev, now);
	for (qp = TAILQ_FIRST(&dev->active); qp != NULL; qp = tmp) {
		bool idle = true;

		tmp = TAILQ_NEXT(qp, link);
		if (qp->attr.qp_state == ORDK_QPS_RTS || qp->attr.qp_state == ORDK_QPS_RTR) {
			/* unacknowledged adverts rewind after a timeout ... */
			rc_advert_resend(qp, now, rc_timeout_tsc(qp));
			if (qp->adv_ack_due) {
				snic = true;
				idle &= rc_send_advert_ack(qp);
			}
		}
		if (qp->rq_advertised < qp->rq_count) {
			snic = true;
			idle &= rc_send_adverts(qp);
		}
		if (qp->rdone_count > 0)
			idle &= !rc_recv_retire(qp, false);
		/* ... and keep the QP polled until the peer has them all */
		if (qp->attr.qp_state == ORDK_QPS_RTS || qp->attr.qp_state == ORDK_QPS_RTR)
			idle &= !rc_advert_resend(qp, now, UINT64_MAX);
		if (qp->attr.qp_state == ORDK_QPS_RTS || qp->attr.qp_state == ORDK_QPS_RTR) {
			rc_timer_check(qp, now);
			items += rc_push(qp);
			/* a QP that only waits for an ACK sleeps on the wheel */
			idle &= qp->sq_next == qp->sq_tail && qp->ans_next == qp->ans_tail &&
				qp->rtx_count == 0 &&
				(qp->rtx_deadline == 0 || qp->on_wheel);
		}
		if (qp->probe_pending) {
			idle = false;
			if (qp->probe_report ||
			    now - RTE_MAX(qp->probe_tsc, dev->resume_tsc) >= rc_hold_tsc(qp)) {
				snic = true;
				answer_probe(qp);
			}
		}
		/*
		 * A hole a bitmap report showed, with PSNs beyond it: when the
		 * sender has stopped (a full queue, or the tail of a burst), no
		 * later report comes to ask for it; the engine does, after the hold.
		 */
		if (qp->hole_tsc != 0 && qp->hole_psn == qp->epsn &&
		    blue_psn_diff(qp->rx_top, qp->epsn) > 0 &&
		    (qp->attr.qp_state == ORDK_QPS_RTS || qp->attr.qp_state == ORDK_QPS_RTR)) {
			idle = false;
			snic = true;
			maybe_nak(qp, false);
		}
		if (qp->ack_due) {
			snic = true;
			idle &= send_ack(qp);
		}
		if (idle) {
			TAILQ_REMOVE(&dev->active, qp, link);
			qp->on_active = false;
		}
	}
	/* every frame and item queued anywhere in this poll is published once */
	(void)snic;
	blue_send_doorbell(&dev->hw);
	blue_snic_tx_flush(&dev->hw);
	return work + items;
}
