/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ACK and NAK generation (the responder's answers), sent as the card's ACK
 * frame with is_send_by_driver = 1 through SimpleNic TX. Two state machines
 * decide when: the hole at the expected PSN (enum rc_hole_state: when to NAK
 * it, backing off, giving up) and the peer's question (enum rc_probe_state:
 * an ACK_REQ is answered once the tracker is up to date).
 */
#include "blue_verbs.h"

static const char *const req_names[] = { RC_REQ_STATES(RC_NAME_ITEM) };
static const char *const comp_names[] = { RC_COMP_STATES(RC_NAME_ITEM) };
static const char *const hole_names[] = { RC_HOLE_STATES(RC_NAME_ITEM) };
static const char *const probe_names[] = { RC_PROBE_STATES(RC_NAME_ITEM) };
static const char *const key_names[] = { RC_KEY_STATES(RC_NAME_ITEM) };
static const char *const wqe_names[] = { RC_WQE_STATES(RC_NAME_ITEM) };

const char *
rc_state_name(enum rc_sm sm, unsigned int s)
{
	static const struct {
		const char *const *names;
		unsigned int n;
	} t[] = {
		[RC_SM_REQ] = { req_names, RC_REQ_NSTATES },
		[RC_SM_COMP] = { comp_names, RC_COMP_NSTATES },
		[RC_SM_HOLE] = { hole_names, RC_HOLE_NSTATES },
		[RC_SM_PROBE] = { probe_names, RC_PROBE_NSTATES },
		[RC_SM_KEY] = { key_names, RC_KEY_NSTATES },
		[RC_SM_WQE] = { wqe_names, RC_WQE_NSTATES },
	};

	if ((unsigned int)sm >= RTE_DIM(t) || s >= t[sm].n)
		return "?";
	return t[sm].names[s];
}

/* ----------------------------------------------------------------- ACKs */

/*
 * The card's ACK frame, sent by the driver (is_send_by_driver = 1):
 * ACK: psn = epsn (everything before it arrived);
 * NAK: lost = slided = 1, pre_psn = epsn (the first missing PSN) and
 *      psn = the first PSN after the hole that did arrive.
 */
bool
rc_ack_frame(struct blue_qp *qp, bool nak, uint32_t psn)
{
	struct blue_dev *dev = blue_qp_dev(qp);
	struct blue_wire_rdma p = { 0 };
	uint8_t frame[BLUE_WIRE_RDMA_HLEN];
	int n;

	if (!blue_snic_tx_room(&dev->hw))
		return false;
	p.l3 = (struct blue_wire_l3){ .dst_mac = qp->vqp.attr.dest_mac, .src_mac = dev->hw.mac,
				      .src_ip = dev->hw.ip, .dst_ip = qp->vqp.attr.dest_ip,
				      .src_port = BLUE_WIRE_ROCE_UDP_PORT,
				      .dst_port = BLUE_WIRE_ROCE_UDP_PORT, .df = 1, .ttl = 64 };
	p.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = BLUE_OP_ACKNOWLEDGE,
					.dqpn = qp->vqp.attr.dest_qp_num, .psn = psn };
	p.aeth = (struct blue_wire_aeth){ .now_bitmap = { ~0ull, ~0ull }, .is_send_by_driver = 1,
					  .is_packet_lost = nak, .is_window_slided = nak,
					  .pre_psn = qp->resp.epsn };
	n = blue_wire_rdma_build_hdr(frame, sizeof(frame), &p, 0);
	return n > 0 && blue_snic_tx(&dev->hw, frame, (uint32_t)n) == 0;
}

static enum rc_step
send_ack(struct blue_qp *qp)
{
	if (!rc_ack_frame(qp, false, qp->resp.epsn))
		return RC_MORE;
	RC_LOG(DEBUG, "qp 0x%06x: ACK psn 0x%06x to 0x%06x", qp->vqp.qpn, qp->resp.epsn,
	       qp->vqp.attr.dest_qp_num);
	qp->resp.ack_due = false;
	qp->vqp.st.acks_sent++;
	return RC_DONE;
}

/*
 * The QP goes away (its destroy): what it received is acknowledged once
 * more. A program that ends without a closing handshake (ibv_rc_pingpong)
 * destroys its QP right after its last completion; were the ACK of the
 * peer's last message lost, the peer's resend would find no QP here and
 * its last WR would end in RETRY_EXC_ERR, as on any RC NIC. The copy makes
 * that a double loss. A requester takes an ACK that acknowledges nothing
 * new as a duplicate and ignores it.
 */
void
rc_ack_last_word(struct blue_qp *qp)
{
	enum ordk_qp_state s = qp->vqp.attr.qp_state;

	if ((s != ORDK_QPS_RTR && s != ORDK_QPS_RTS) || (qp->vqp.st.acks_sent == 0 && !qp->resp.ack_due))
		return; /* not connected, or nothing of the peer's was acknowledged or due */
	if (rc_ack_frame(qp, false, qp->resp.epsn))
		qp->vqp.st.acks_sent++;
}

/* ------------------------------------------------------------- the hole */

void
rc_hole_open(struct rc_resp *rs, enum rc_hole_state s, uint64_t now)
{
	rs->hole = s;
	rs->hole_psn = rs->epsn;
	rs->hole_tsc = now;
}

/* What the hole at epsn calls for (hole_decide()). */
enum hole_action { HOLE_WAIT, HOLE_NAK };

/*
 * The hole's transitions, on the tracker alone: @p report (a bitmap report
 * came), polling time @p now (rc_ptime(): a hold does not run while input
 * piles up unseen) and the hold.
 *
 * PSNs arrived beyond a hole at epsn: ask for the hole, but only once it has
 * lasted the hold. A frame merely delayed or reordered fills it first; a
 * resend of it could otherwise be overtaken by the original, which the card
 * would place after the WR completed (it has no duplicate filter).
 */
static enum hole_action
hole_decide(struct rc_resp *rs, bool report, uint64_t now, uint64_t hold)
{
	enum rc_hole_state h = rc_hole_state(rs);

	if (h == RC_HOLE_NONE || h == RC_HOLE_GIVEN_UP) {
		/*
		 * Only a bitmap report opens a hole: between header reports,
		 * MIDDLE packets (never reported one by one) look like holes.
		 * Settled: a report opens a hole only when the card had seen a
		 * later PSN (rc_rx_window_shows_hole()), so it is no pause of the
		 * sender whose resumed stream's MIDDLE packets go unreported
		 * (verbs_tools_gap). Unsettled, a lost MIDDLE packet of a READ
		 * answer waited for a report that never came once the answers
		 * stopped (max_rd_atomic reached): ib_read_bw at 1% loss ended in
		 * RETRY_EXC_ERR (h-read).
		 */
		if (report)
			rc_hole_open(rs, RC_HOLE_SETTLED, now);
		return HOLE_WAIT;
	}
	if (now - rs->hole_tsc < hold)
		return HOLE_WAIT;
	if (rs->nak_epsn != rs->epsn)
		rs->nak_count = 0;
	/*
	 * NAKs for one hole are bounded and back off: the hold, then twice
	 * that, and so on. A hole nobody fills (a forged PSN beyond the
	 * expected one, or a sender that is gone) is given up after
	 * RC_NAK_MAX: the sender's own timers decide what follows; the QP may
	 * sleep, and a report opens the hole again.
	 */
	if (rs->nak_count >= RC_NAK_MAX) {
		rs->hole = RC_HOLE_GIVEN_UP;
		return HOLE_WAIT;
	}
	if (rs->nak_count > 0 && now - rs->nak_tsc < hold << (rs->nak_count - 1))
		return HOLE_WAIT;
	return HOLE_NAK;
}

/* A NAK for the hole went out at @p now. @return true when that was the last one allowed. */
static bool
hole_naked(struct rc_resp *rs, uint64_t now)
{
	rs->nak_epsn = rs->epsn;
	rs->nak_tsc = now;
	return ++rs->nak_count == RC_NAK_MAX;
}

void
rc_hole_check(struct blue_qp *qp, bool report)
{
	struct rc_resp *rs = &qp->resp;
	uint64_t now = rc_ptime(&blue_qp_dev(qp)->rc);
	uint32_t limit = blue_psn_add(rs->epsn, ORDK_RECV_WINDOW), psn;

	if (hole_decide(rs, report, now, rc_hold_tsc(qp)) != HOLE_NAK)
		return;
	psn = rc_rx_first_seen_after(rs, limit);
	if (psn == limit || !rc_ack_frame(qp, true, psn))
		return;
	RC_LOG(DEBUG, "qp 0x%06x: hole NAK 0x%06x..0x%06x (%s, %s)", qp->vqp.qpn, rs->epsn, psn,
	       report ? "report" : "held", rc_state_name(RC_SM_HOLE, rs->hole));
	qp->vqp.st.naks_sent++;
	verbs_trace(blue_qp_handle(qp), VERBS_TRACE_nak_sent, rs->epsn, psn);
	if (hole_naked(rs, now)) {
		RC_LOG(DEBUG, "qp 0x%06x: hole at 0x%06x NAKed %u times: given up", qp->vqp.qpn,
		       rs->epsn, RC_NAK_MAX);
		qp->vqp.st.naks_given_up++;
	}
}

/* ------------------------------------------------------------ the probe */

void
rc_probe_asked(struct rc_resp *rs, uint32_t psn, uint64_t now)
{
	if (rs->probe == RC_PROBE_NONE || blue_psn_diff(psn, rs->probe_psn) > 0)
		rs->probe_psn = psn;
	if (rs->probe == RC_PROBE_NONE) {
		rs->probe = RC_PROBE_ASKED;
		rs->probe_tsc = now;
	}
}

/*
 * The answer waits until the tracker is up to date: a bitmap report came
 * after the question, or the hold passed (polling time, so an idle poller
 * that declares its sleeps answers on time, and a pause in polling does not
 * pass for the report that never came). The card reports MIDDLE packets
 * only in its next bitmap report, and NAKing PSNs that did arrive would send
 * resends that land after completion.
 */
static bool
probe_due(const struct rc_resp *rs, uint64_t now, uint64_t hold)
{
	return rs->probe == RC_PROBE_REPORTED ||
	       (rs->probe == RC_PROBE_ASKED && now - rs->probe_tsc >= hold);
}

/*
 * ACK what arrived, or NAK the first hole: [epsn, the first PSN after it that
 * arrived, or the probe's PSN). Exactly the hole: a resent packet that had
 * arrived is placed again by the card, and for a READ response that can be
 * after the READ completed, in memory the application owns again. Later
 * holes are asked for once this one is filled.
 */
void
rc_probe_answer(struct blue_qp *qp)
{
	struct rc_resp *rs = &qp->resp;

	if (blue_psn_diff(rs->probe_psn, rs->epsn) > 0) {
		uint32_t to = rc_rx_first_seen_after(rs, rs->probe_psn);

		if (!rc_ack_frame(qp, true, to))
			return;
		/* a second copy: the peer asks because frames are being lost (see rc_timer_check) */
		(void)rc_ack_frame(qp, true, to);
		RC_LOG(DEBUG, "qp 0x%06x: probe answered: NAK 0x%06x..0x%06x", qp->vqp.qpn, rs->epsn, to);
		qp->vqp.st.naks_sent++;
		verbs_trace(blue_qp_handle(qp), VERBS_TRACE_nak_sent, rs->epsn, to);
	} else {
		rs->ack_due = true;
	}
	rs->probe = RC_PROBE_NONE;
}

enum rc_step
rc_ack_step(struct blue_qp *qp, uint64_t now)
{
	struct rc_resp *rs = &qp->resp;
	enum rc_hole_state h = rc_hole_state(rs);
	enum rc_step more = RC_DONE;

	if (rs->probe != RC_PROBE_NONE) {
		more = RC_MORE;
		if (probe_due(rs, now, rc_hold_tsc(qp)))
			rc_probe_answer(qp);
	}
	/*
	 * A hole a bitmap report showed, with PSNs beyond it: when the sender
	 * has stopped (a full queue, or the tail of a burst), no later report
	 * comes to ask for it; the engine does, after the hold.
	 */
	if (h == RC_HOLE_SETTLED &&
	    blue_psn_diff(rs->rx_top, rs->epsn) > 0 &&
	    (qp->vqp.attr.qp_state == ORDK_QPS_RTS || qp->vqp.attr.qp_state == ORDK_QPS_RTR)) {
		more = RC_MORE;
		rc_hole_check(qp, false);
	}
	if (rs->ack_due)
		more |= send_ack(qp);
	return more;
}
