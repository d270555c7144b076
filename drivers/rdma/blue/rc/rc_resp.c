/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Responder: what the peer sends us.
 *
 * Header reports (FIRST, LAST, ONLY) and the card's bitmap reports feed the
 * receive tracker (rc_track.c). A local AckLocalHw whose window starts at B
 * implies every PSN before B arrived: a gap sliding out of the card's window
 * would have made a loss report instead. A message completes when epsn passes
 * its last PSN; then RECVs are consumed, READs finish (rc_read.c), and an ACK
 * is due (rc_ack.c sends it). READ requests are rc_read.c's, atomics
 * rc_atomic.c's.
 */
#include <string.h>

#include "blue_verbs.h"

/* ------------------------------------------------------------- messages */

/*
 * A SEND longer than the RECV it was matched to (IBA 9.7.5.2.2): the RECV
 * completes with LOC_LEN_ERR and the QP goes to ERR. The ACK of what arrived
 * goes first (twice: nothing resends it), so the requester fails its WR with
 * REM_INV_REQ_ERR; a copy lost is answered later from ERR (rc_ctrl.c ctrl_qp()).
 */
static void
recv_len_error(struct blue_qp *qp)
{
	RC_LOG(WARNING, "qp 0x%06x: a SEND longer than its RECV; QP to ERR", qp->vqp.qpn);
	qp->vqp.st.recv_len_errors++;
	/* requests before this one were handled: their READ answers go first */
	rc_push_owed_answers(qp);
	(void)rc_ack_frame(qp, false, qp->resp.epsn);
	(void)rc_ack_frame(qp, false, qp->resp.epsn);
	blue_snic_tx_flush(&blue_qp_dev(qp)->hw);
	rc_qp_error(qp);
}

static void
recv_cqe(struct blue_qp *qp, const struct rc_msg *m, enum ordk_wc_opcode op, bool imm)
{
	struct ordk_wc wc = { .opcode = op, .byte_len = m->len, .qp_num = qp->vqp.qpn };
	bool too_long;
	struct rc_rwqe *r;

	if (qp->resp.rq_q.count == 0) {
		/* a SEND the peer had no advert for: cannot come from an ORDK peer */
		RC_LOG(DEBUG, "qp 0x%06x: a message ending at 0x%06x finds no RECV", qp->vqp.qpn,
		       m->end_psn);
		qp->vqp.st.adverts_unexpected++;
		return;
	}
	r = &qp->resp.rq[qp->resp.rq_q.head];
	rc_fifo_pop(&qp->resp.rq_q);
	if (qp->vqp.srq != NULL) {
		/* lent by the SRQ: consumed there (its limit), and the window is refilled */
		verbs_srq_consumed(qp->vqp.srq);
		rc_activate(qp);
	}
	if (qp->resp.rq_advertised > 0)
		qp->resp.rq_advertised--;
	/* a buffer the peer used was advertised and arrived there: acknowledged */
	if ((int32_t)(r->recv_seq + 1 - qp->resp.rq_acked) > 0)
		qp->resp.rq_acked = r->recv_seq + 1;
	wc.wr_id = r->wr_id;
	if (imm) {
		wc.imm_data = m->imm;
		wc.wc_flags = ORDK_WC_WITH_IMM;
	}
	too_long = op == ORDK_WC_RECV && m->len > r->len;
	RC_LOG(DEBUG, "qp 0x%06x: RECV %u (%u B) takes the message of %u B ending at 0x%06x",
	       qp->vqp.qpn, r->recv_seq, r->len, m->len, m->end_psn);
	if (too_long)
		wc.status = ORDK_WC_LOC_LEN_ERR;
	rc_recv_done(qp, r, &wc); /* reported once the card forgot the RECV's key */
	qp->vqp.st.recv_completed++;
	if (too_long)
		recv_len_error(qp);
}

void
rc_resp_complete(struct blue_qp *qp)
{
	/* the peer's packets in (each PSN once, in order): the PSNs epsn passed since */
	if (blue_psn_diff(qp->resp.epsn, qp->resp.counted_epsn) > 0)
		qp->vqp.st.rx_packets += (uint32_t)blue_psn_diff(qp->resp.epsn, qp->resp.counted_epsn);
	qp->resp.counted_epsn = qp->resp.epsn;
	rc_read_progress(qp);
	if (qp->resp.atomic_nheld > 0)
		rc_atomic_progress(qp); /* atomics waiting for the PSNs before them */
	while (qp->resp.msg_q.count > 0) {
		struct rc_msg *m = &qp->resp.msgs[qp->resp.msg_q.head];

		if (blue_psn_diff(qp->resp.epsn, m->end_psn) <= 0)
			break;
		if (m->len == RC_MSG_LEN_AT_FIRST && !blue_op_is_read_resp(m->opcode))
			m->len = qp->resp.first_len[m->msn % ORDK_FIRST_LEN_SLOTS];
		if (m->opcode != BLUE_OP_READ_RESPONSE_LAST && m->opcode != BLUE_OP_READ_RESPONSE_ONLY)
			qp->vqp.st.rx_bytes += m->len; /* (a READ's answer: at rc_read_done()) */
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
			rc_read_done(qp, m);
			break;
		default:
			break; /* a plain WRITE completes nothing at the responder */
		}
		/* a READ the peer refused (rc_read_done) or a length error ended the
		 * QP: its queues are reset, everything else was flushed */
		if (qp->vqp.attr.qp_state == ORDK_QPS_ERR)
			return;
		if (m->ack_req)
			qp->resp.ack_due = true;
		rc_fifo_pop(&qp->resp.msg_q);
	}
}

enum rc_rx_result
rc_resp_mark(struct blue_qp *qp, uint32_t psn)
{
	enum rc_rx_result res = rc_rx_mark(&qp->resp, psn);

	if (res == RC_RX_BEYOND)
		qp->vqp.st.out_of_window++;
	return res;
}

/*
 * Queue the message a LAST or ONLY packet ends, in PSN order: a retransmitted
 * LAST arrives after the LASTs of later messages, and completions go in
 * message order. @return false when it cannot be queued (counted).
 */
static bool
msg_queue(struct blue_qp *qp, const struct blue_meta_basic *b, uint8_t op, enum blue_pkt_pos pos)
{
	struct rc_resp *rs = &qp->resp;
	uint32_t at = rs->msg_q.count;

	if (rs->msg_q.count == rs->msg_q.size) {
		qp->vqp.st.reports_unexpected++;
		return false;
	}
	while (at > 0) {
		const struct rc_msg *prev = &rs->msgs[rc_fifo_at(&rs->msg_q, at - 1)];

		if (prev->end_psn == b->psn) {
			/* arrived before, beyond a hole still open: never twice */
			qp->vqp.st.duplicates++;
			return false;
		}
		if (blue_psn_diff(prev->end_psn, b->psn) < 0)
			break;
		at--;
	}
	rs->msgs[rc_fifo_insert(&rs->msg_q, rs->msgs, at)] = (struct rc_msg){
		.end_psn = b->psn, .opcode = op, .ack_req = b->ack_req, .msn = b->msn,
		.imm = b->imm_data,
		/* a LAST may come before its FIRST: its length is read at completion
		 * (a READ answer's LAST keeps its own, which rc_read_done() checks);
		 * a too small RECV's announcement carries the SEND's length in raddr */
		.len = pos != BLUE_POS_ONLY ? (blue_op_is_read_resp(op) ? b->total_len : RC_MSG_LEN_AT_FIRST)
		       : blue_op_is_send(op) && b->total_len == 0 && b->rkey == BLUE_WIRE_RKEY_LEN_ERR
			       ? (uint32_t)RTE_MIN(b->raddr, (uint64_t)UINT32_MAX)
			       : b->total_len };
	return true;
}

/*
 * A WRITE to a QP without REMOTE_WRITE in its access flags (IBA 9.7.5.1.3?:
 * the QP's and the MR's access both gate it). The card cannot refuse it: its
 * QP context needs REMOTE_WRITE for SENDs too (blue_qp.c), so the payload of
 * this packet was placed, into an MR with REMOTE_WRITE, before the report
 * came (doc/guides/drivers/blue_hw_interface.md section 8). IBA's NAK remote
 * access error: what arrived before it is acknowledged, the requester's WR
 * completes with REM_ACCESS_ERR and its QP goes to ERR (rc_read_nak_rx()),
 * and so does this one; ManageQp (error) stops the card placing the rest.
 */
static void
write_refuse(struct blue_qp *qp, uint32_t psn)
{
	struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_READ_NAK);

	RC_LOG(WARNING, "qp 0x%06x: a WRITE (psn 0x%06x) without REMOTE_WRITE access: refused; QP to ERR",
	       qp->vqp.qpn, psn);
	qp->vqp.st.access_refused++;
	m.read_nak.psn = psn;
	m.read_nak.status = BLUE_CTRL_ATOMIC_REM_ACCESS_ERR;
	rc_push_owed_answers(qp); /* requests before it were handled: their answers go first */
	(void)rc_ack_frame(qp, false, qp->resp.epsn);
	(void)rc_send_ctrl(qp, &m);
	(void)rc_send_ctrl(qp, &m); /* twice: nothing resends it, a QP in ERR answers little */
	qp->vqp.st.naks_sent++;
	blue_snic_tx_flush(&blue_qp_dev(qp)->hw);
	rc_qp_error(qp);
}

/* A FIRST, LAST or ONLY packet's report (HeaderWrite). */
static void
rx_header(struct blue_qp *qp, const struct blue_meta_report *r)
{
	uint8_t op = BLUE_BTH_OP(r->opcode);
	const struct blue_meta_basic *b = &r->basic;
	enum blue_pkt_pos pos = blue_op_pos(op);
	uint64_t now = rc_ptime(&blue_qp_dev(qp)->rc);
	uint32_t epsn_before = qp->resp.epsn;

	/* the QP's access gates WRITEs where the card cannot (blue_qp.c); before the
	 * tracker: the refused PSN is not acknowledged */
	if (blue_op_is_write(op) && !(qp->vqp.attr.qp_access_flags & ORDK_ACCESS_REMOTE_WRITE)) {
		write_refuse(qp, b->psn);
		return;
	}

	/*
	 * A FIRST's length is kept by MSN, even when a bitmap report already
	 * accounted for its PSN: a retransmitted FIRST may come after a later
	 * message's, or after the window report that covers it. Only the peer's
	 * requests: a READ answer carries the MSN of our READ (our numbering),
	 * and its length overwrote that of the peer's SEND of the same MSN
	 * (a SEND then taken for too long, or a RECV with a wrong byte_len).
	 */
	if (pos == BLUE_POS_FIRST && !blue_op_is_read_resp(op))
		qp->resp.first_len[b->msn % ORDK_FIRST_LEN_SLOTS] = b->total_len;
	/* the first packet of the answer to one of our READs: where its answer starts */
	if (pos == BLUE_POS_FIRST && blue_op_is_read_resp(op))
		rc_read_answer_seen(qp, b->msn, b->psn, b->total_len, now);
	if (rc_resp_mark(qp, b->psn) == RC_RX_DUP) {
		RC_LOG(DEBUG, "qp 0x%06x: header psn 0x%06x op 0x%x msn %u seen before (epsn 0x%06x)",
		       qp->vqp.qpn, b->psn, op, b->msn, qp->resp.epsn);
		/* a duplicate: placed again by the card; ACK again, never complete twice */
		qp->vqp.st.duplicates++;
		if (b->ack_req)
			qp->resp.ack_due = true;
		return;
	}
	/*
	 * A resend filled the hole and the expected PSN stopped again short of
	 * what arrived: that gap was sent before, so it is a hole too (or MIDDLE
	 * packets a report has not named yet). Start its clock; the engine asks
	 * for it after the hold unless a report fills it first. A recovery
	 * round: the stream that left it has been reported: a real hole.
	 */
	if (b->is_retry && qp->resp.epsn != epsn_before &&
	    blue_psn_diff(qp->resp.rx_top, qp->resp.epsn) > 0) {
		rc_hole_open(&qp->resp, RC_HOLE_SETTLED, now);
		rc_activate(qp);
	}
	/*
	 * Between a request's FIRST and LAST its MIDDLE packets are placed
	 * unreported: a poller that waits for the peer's request (the verbs
	 * library's linger) must not take a pause in them for its end.
	 */
	if (!blue_op_is_read_resp(op))
		qp->resp.rx_open = pos == BLUE_POS_FIRST;
	if ((pos == BLUE_POS_LAST || pos == BLUE_POS_ONLY) && !msg_queue(qp, b, op, pos))
		return;
	rc_resp_complete(qp);
}

/*
 * The card's bitmap reports. Between two reports the card's window slid
 * from the previous base to this one; the PSNs that slid out did arrive,
 * unless the card reported a loss (a NakLocalHw describes the window that
 * held the hole). So each report implies exactly [previous base, this
 * report's pre-slide base): never across a hole already reported lost.
 */
static void
rx_bitmap(struct blue_qp *qp, const struct blue_meta_report *r)
{
	const struct blue_meta_ack *a = &r->ack;
	struct rc_resp *rs = &qp->resp;
	uint32_t base = rc_card_window_base(a->psn_now), beyond = 0;

	if (r->kind == BLUE_META_NAK_LOCAL_HW) {
		uint32_t pre = rc_card_window_base(a->psn_before_slide);

		if (blue_psn_diff(pre, rs->card_base) > 0)
			beyond += rc_rx_mark_range(rs, rs->card_base, pre);
		beyond += rc_rx_merge_window(rs, pre, &a->pre_bitmap);
	} else if (blue_psn_diff(base, rs->card_base) > 0) {
		beyond += rc_rx_mark_range(rs, rs->card_base, base);
	}
	beyond += rc_rx_merge_window(rs, base, &a->now_bitmap);
	qp->vqp.st.out_of_window += beyond;
	if (blue_psn_diff(base, rs->card_base) > 0)
		rs->card_base = base;
	rc_resp_complete(qp);
	if (qp->vqp.attr.qp_state == ORDK_QPS_ERR)
		return;
	rs->ack_due = true; /* bitmap reports come after quiet: ACK now */
	if (rs->probe == RC_PROBE_ASKED)
		rs->probe = RC_PROBE_REPORTED; /* the tracker is up to date: answer now */
	rc_hole_check(qp, rc_rx_window_shows_hole(rs, base, &a->now_bitmap));
}

/* A report about the peer's packets: a header (FIRST, LAST, ONLY) or a bitmap. */
void
rc_resp_rx_report(struct blue_qp *qp, const struct blue_meta_report *r)
{
	if (r->kind == BLUE_META_HEADER_WRITE)
		rx_header(qp, r);
	else
		rx_bitmap(qp, r);
}
