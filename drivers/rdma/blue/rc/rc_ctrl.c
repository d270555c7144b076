/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ORDK control frames (UDP frames the card hands to the SimpleNic RX ring,
 * doc/guides/prog_guide/wire_formats.md): one send path for all of them, the
 * demux of received ones to the QP's parts, and the RECV adverts in both
 * directions (so the peer can place SENDs in posted buffers with standard
 * semantics).
 */
#include "blue_verbs.h"

/* ------------------------------------------------------------ sending */

struct blue_ctrl_msg
rc_ctrl_msg(const struct blue_qp *qp, enum blue_ctrl_type type)
{
	return (struct blue_ctrl_msg){ .type = type, .src_qpn = qp->vqp.qpn,
				       .dst_qpn = qp->vqp.attr.dest_qp_num };
}

/* An ORDK control frame to the QP's peer through SimpleNic TX. */
bool
rc_send_ctrl(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct blue_dev *dev = blue_qp_dev(qp);
	struct blue_wire_l3 l3 = { .dst_mac = qp->vqp.attr.dest_mac, .src_mac = dev->hw.mac,
				   .src_ip = dev->hw.ip, .dst_ip = qp->vqp.attr.dest_ip, .df = 1,
				   .ttl = 64 };
	uint8_t frame[BLUE_SNIC_TX_SLOT];
	int len = blue_wire_ctrl_build(frame, sizeof(frame), &l3, m);

	return len > 0 && blue_snic_tx_room(&dev->hw) &&
	       blue_snic_tx(&dev->hw, frame, (uint32_t)len) == 0;
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
bool
rc_probe(struct blue_qp *qp)
{
	struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_ACK_REQ);

	m.ack_req.psn = qp->req.next_psn;
	if (!rc_send_ctrl(qp, &m))
		return false;
	blue_snic_tx_flush(&blue_qp_dev(qp)->hw);
	return true;
}

/* ------------------------------------------------------------ receiving */

/*
 * May @p qp, in ERR, answer the peer's question? Its first RC_ERR_ANSWERS
 * only, its last words (the ACK of a too long SEND's announcement may have
 * been lost); then it is silent as IBA's QP in ERR: a peer that waits for it
 * (an RNR wait with rnr_retry 7, to which any answer shows the peer there)
 * runs out of its retry budget (RETRY_EXC_ERR) instead of waiting for good.
 */
static bool
may_answer(struct blue_qp *qp)
{
	if (qp->resp.err_answers >= RC_ERR_ANSWERS)
		return false;
	qp->resp.err_answers++;
	return true;
}

/*
 * The QP a control frame is for, if its sender may talk to it, else NULL
 * (counted). In ERR a QP still says what arrived before (may_answer()): a
 * requester whose SEND made this QP fail (recv_len_error) learns it though
 * both ACKs were lost.
 */
static struct blue_qp *
ctrl_qp(struct blue_dev *dev, const struct blue_ctrl_msg *m)
{
	struct ordk_qp *h = verbs_qp_lookup(blue_dev_handle(dev), m->dst_qpn);
	struct blue_qp *qp = h != NULL && !verbs_qp_is_ud(vqp(h)) ? to_bqp(h) : NULL;

	if (qp != NULL && qp->vqp.attr.qp_state == ORDK_QPS_ERR && m->type == BLUE_CTRL_ACK_REQ &&
	    m->src_qpn == qp->vqp.attr.dest_qp_num) {
		if (may_answer(qp))
			(void)rc_ack_frame(qp, false, qp->resp.epsn);
		return NULL;
	}
	if (qp == NULL || qp->vqp.attr.qp_state == ORDK_QPS_ERR) {
		dev->vdev.st.ctrl_bad++;
		return NULL;
	}
	if (qp->vqp.attr.qp_state < ORDK_QPS_RTR) {
		/*
		 * The peer may connect and advertise before this QP knows it (both
		 * sides move to RTR after the out-of-band exchange): keep the adverts
		 * of one sender, checked against the peer's QPN at RTR.
		 */
		if (qp->req.adv_q.count > 0 && m->src_qpn != qp->req.adv_src) {
			dev->vdev.st.ctrl_bad++;
			return NULL;
		}
		qp->req.adv_src = m->src_qpn;
	} else if (m->src_qpn != qp->vqp.attr.dest_qp_num) {
		dev->vdev.st.ctrl_bad++;
		return NULL;
	}
	return qp;
}

/* The peer's RECV adverts, in sequence; duplicates and gaps are dropped (counted). */
static void
rx_adverts(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct rc_req *rq = &qp->req;

	rq->adv_ack_due = true; /* even for duplicates: our last ACK may be lost */
	for (unsigned int i = 0; i < m->advert.count; i++) {
		const struct blue_ctrl_advert *a = &m->advert.e[i];

		if ((int32_t)(a->recv_seq - rq->adv_expect) < 0) {
			qp->vqp.st.duplicates++; /* a re-sent advert we already have */
			continue;
		}
		if (a->recv_seq != rq->adv_expect || rq->adv_q.count == rq->adv_q.size) {
			RC_LOG(DEBUG, "qp 0x%06x: advert %u unexpected (want %u)", qp->vqp.qpn,
			       a->recv_seq, rq->adv_expect);
			qp->vqp.st.adverts_unexpected++;
			continue;
		}
		RC_LOG(DEBUG, "qp 0x%06x: advert %u (%u B at 0x%" PRIx64 ")", qp->vqp.qpn, a->recv_seq,
		       a->length, a->addr);
		rq->adv[rc_fifo_push(&rq->adv_q)] = *a;
		rq->adv_expect++;
		qp->vqp.st.adverts_received++;
	}
}

static void advert_rewind_now(struct blue_qp *qp);

/*
 * The peer acknowledged our adverts before recv_seq. Asked (BLUE_CTRL_F_ASK:
 * its RNR budget ran out), the adverts it lacks go again now, not after our
 * timeout, and it is told what we posted (rc_send_recv_state()).
 */
static void
rx_advert_ack(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct rc_resp *rs = &qp->resp;

	if ((int32_t)(m->advert_ack.recv_seq - rs->rq_acked) > 0 &&
	    (int32_t)(m->advert_ack.recv_seq - rs->next_recv_seq) <= 0)
		rs->rq_acked = m->advert_ack.recv_seq;
	/* on an SRQ: lend what the sender wants (rc_srq_refill()) */
	if ((int32_t)(m->advert_ack.want - rs->srq_want) > 0) {
		rs->srq_want = m->advert_ack.want;
		if (qp->vqp.srq != NULL)
			rc_activate(qp);
	}
	if ((m->flags & BLUE_CTRL_F_ASK) && qp->vqp.attr.qp_state >= ORDK_QPS_RTR) {
		advert_rewind_now(qp);
		rs->state_due = true;
		rc_activate(qp);
	}
}

/*
 * The receiver's answer to our question (rc_rnr_ask()), kept for the SEND
 * that waits (rc_req.c rnr_wait()); one nobody asked for is dropped.
 */
static void
rx_recv_state(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct rc_req *rq = &qp->req;

	if (rq->rnr_ask_tsc == 0) {
		qp->vqp.st.duplicates++;
		return;
	}
	rq->rnr_posted = m->recv_state.posted;
	rq->rnr_answer = true;
}

/* One control frame from the SimpleNic RX ring, to the part of its QP that takes it. */
void
rc_ctrl_rx(struct blue_dev *dev, const uint8_t *f, uint32_t len)
{
	bool connected;
	struct blue_wire_l3 l3;
	struct blue_ctrl_msg m;
	struct blue_qp *qp;

	if (blue_wire_classify(f, len) == BLUE_WIRE_CLASS_RDMA)
		return; /* not ours */
	if (blue_wire_ctrl_parse(f, len, &l3, &m) != 0) {
		RC_LOG(DEBUG, "SimpleNic frame of %u B is not an ORDK control frame", len);
		dev->vdev.st.ctrl_bad++; /* ARP and friends are for lib/cm; counted for now */
		return;
	}
	qp = ctrl_qp(dev, &m);
	if (qp == NULL)
		return;
	/* the peer is there (an RNR wait asks): its QPN (ctrl_qp()), its addresses */
	if (l3.src_ip == qp->vqp.attr.dest_ip && l3.src_mac == qp->vqp.attr.dest_mac)
		qp->comp.heard_tsc = rc_ptime(&dev->rc);
	connected = qp->vqp.attr.qp_state >= ORDK_QPS_RTR;
	switch (m.type) {
	case BLUE_CTRL_ACK_REQ:
		/* the peer's timer asks what arrived: rc_ack.c answers */
		RC_LOG(DEBUG, "qp 0x%06x: the peer asks about PSNs before 0x%06x (epsn 0x%06x)",
		       qp->vqp.qpn, m.ack_req.psn, qp->resp.epsn);
		if (!connected)
			return;
		rc_probe_asked(&qp->resp, m.ack_req.psn, rc_ptime(&dev->rc));
		break;
	case BLUE_CTRL_READ_NAK:
		if (connected)
			rc_read_nak_rx(qp, &m);
		break;
	case BLUE_CTRL_ATOMIC_REQ:
	case BLUE_CTRL_ATOMIC_RESP:
		if (!connected)
			return;
		if (m.type == BLUE_CTRL_ATOMIC_REQ)
			rc_atomic_rx_req(qp, &m);
		else
			rc_atomic_rx_resp(qp, &m);
		break;
	case BLUE_CTRL_RECV_ADVERT_ACK:
		rx_advert_ack(qp, &m);
		return;
	case BLUE_CTRL_RECV_ADVERT:
		rx_adverts(qp, &m);
		break;
	case BLUE_CTRL_RECV_STATE:
		if (!connected)
			return;
		rx_recv_state(qp, &m);
		break;
	default:
		dev->vdev.st.ctrl_bad++;
		return;
	}
	rc_activate(qp);
}

/* ------------------------------------------------------------ adverts */

/* Ask the card for every new RECV's key at once (pipelined commands). */
static void
recv_keys_request(struct blue_qp *qp)
{
	struct rc_resp *rs = &qp->resp;

	for (uint32_t i = rs->rq_advertised; i < rs->rq_q.count; i++) {
		struct rc_rwqe *r = &rs->rq[rc_fifo_at(&rs->rq_q, i)];

		if (r->k.state == RC_KEY_NONE && !rc_recv_key_ready(qp, r) && r->k.state == RC_KEY_NONE)
			break; /* no slot, or the command ring is full: the next poll goes on */
	}
}

/* Advertise posted RECVs not advertised yet, up to 7 per control frame (fewer
 * when the card's SimpleNic RX slots are smaller than 256 bytes). */
enum rc_step
rc_send_adverts(struct blue_qp *qp)
{
	struct blue_dev *dev = blue_qp_dev(qp);
	struct rc_resp *rs = &qp->resp;
	/* 42 + 24 + 4 + 24 n bytes must fit a 256-byte SimpleNic TX slot (n <= 7)
	 * and an RX slot (snic_slot=, the same on both cards): 128 B, n <= 2 */
	uint32_t slot = dev->hw.snic_slot < 256u ? dev->hw.snic_slot : 256u;

	if (qp->vqp.attr.qp_state != ORDK_QPS_RTR && qp->vqp.attr.qp_state != ORDK_QPS_RTS)
		return RC_DONE;
	recv_keys_request(qp);
	while (rs->rq_advertised < rs->rq_q.count) {
		struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_RECV_ADVERT);
		uint32_t n = RTE_MIN(rs->rq_q.count - rs->rq_advertised, (slot - 70u) / 24u), ready = 0;

		/* adverts go in order, each once its RECV's card key is known */
		while (ready < n &&
		       rc_recv_key_ready(qp, &rs->rq[rc_fifo_at(&rs->rq_q, rs->rq_advertised + ready)]))
			ready++;
		n = ready;
		if (n == 0)
			return RC_MORE;
		for (uint32_t i = 0; i < n; i++) {
			const struct rc_rwqe *r =
				&rs->rq[rc_fifo_at(&rs->rq_q, rs->rq_advertised + i)];

			m.advert.e[i] = (struct blue_ctrl_advert){ .recv_seq = r->recv_seq,
								   .length = r->len, .addr = r->addr,
								   .rkey = r->k.key };
		}
		m.advert.count = (uint16_t)n;
		m.seq = m.advert.e[0].recv_seq;
		if (!rc_send_ctrl(qp, &m))
			return RC_MORE;
		rs->rq_advertised += n;
		qp->vqp.st.adverts_sent += n;
		rs->adv_tsc = rc_ptime(&dev->rc);
	}
	return RC_DONE;
}

/* Sender side: acknowledge the adverts that arrived (every one before adv_expect). */
static bool
advert_ack(struct blue_qp *qp, uint8_t flags)
{
	struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_RECV_ADVERT_ACK);

	m.flags = flags;
	m.advert_ack.recv_seq = qp->req.adv_expect;
	m.advert_ack.want = qp->req.adv_wanted;
	if (!rc_send_ctrl(qp, &m))
		return false;
	qp->req.adv_ack_due = false;
	qp->req.want_sent = qp->req.adv_wanted;
	qp->req.want_tsc = rc_ptime(&blue_qp_dev(qp)->rc);
	return true;
}

enum rc_step
rc_send_advert_ack(struct blue_qp *qp)
{
	return advert_ack(qp, 0) ? RC_DONE : RC_MORE;
}

/*
 * The sender's RNR budget ran out and it holds no advert. IBA's responder
 * says RNR when a SEND finds no RECV; here the sender only sees adverts, and
 * an advert may be lost or late (it goes again after the receiver's timeout,
 * 67 ms at timeout 14, where rdma_cm's min_rnr_timer 12 with rnr_retry 0 is a
 * budget of 0.64 ms): before it fails the SEND it asks
 * the receiver, which sends again what it advertised and we lack and says
 * how many RECVs it posted (RECV_STATE). Only an answer that names none
 * beyond our adverts makes the SEND fail (rc_req.c rnr_wait()).
 */
bool
rc_rnr_ask(struct blue_qp *qp)
{
	if (!advert_ack(qp, BLUE_CTRL_F_ASK))
		return false;
	blue_snic_tx_flush(&blue_qp_dev(qp)->hw);
	qp->req.rnr_answer = false;
	qp->req.rnr_ask_tsc = rc_ptime(&blue_qp_dev(qp)->rc);
	qp->vqp.st.rnr_asks++;
	return true;
}

/* Receiver side: the answer, once the RECVs lent (SRQ) and adverts made in this step count. */
enum rc_step
rc_send_recv_state(struct blue_qp *qp)
{
	struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_RECV_STATE);

	m.recv_state.posted = qp->resp.next_recv_seq;
	if (!rc_send_ctrl(qp, &m))
		return RC_MORE;
	qp->resp.state_due = false;
	return RC_DONE;
}

/*
 * A receiver on an SRQ lends its QP only the RECVs the sender wants (a RECV
 * lent ahead to a QP whose peer never sends would be lost to the other QPs):
 * the sender says how many it wants in all when it wants more than it was
 * advertised, and again after the ACK timeout while it waits for them (the
 * frame may be lost). A receiver with RECVs of its own ignores it, and a
 * sender to it says it only while its SENDs are ahead of the adverts.
 */
bool
rc_want_due(const struct blue_qp *qp, uint64_t now)
{
	const struct rc_req *rq = &qp->req;

	if ((int32_t)(rq->adv_wanted - rq->adv_expect) <= 0)
		return false; /* it has every advert it wants */
	if (rq->adv_wanted != rq->want_sent)
		return true;
	return rq->adv_q.count == 0 && now - rq->want_tsc >= rc_timeout_tsc(qp);
}

/* recv_seq of the oldest RECV still posted (the next one when none is). */
static uint32_t
adv_seq_head(const struct rc_resp *rs)
{
	return rs->rq_q.count ? rs->rq[rs->rq_q.head].recv_seq : rs->next_recv_seq;
}

enum rc_step
rc_advert_pending(const struct blue_qp *qp)
{
	const struct rc_resp *rs = &qp->resp;

	return (int32_t)(adv_seq_head(rs) + rs->rq_advertised - rs->rq_acked) > 0 ? RC_MORE
										   : RC_DONE;
}

/*
 * Receiver side: adverts the peer has not acknowledged within the QP's
 * timeout go out again (the peer drops the ones it already has by sequence).
 * The timeout counts polling time only: after a pause of the process (an
 * application checking its data between rounds) the peer's answer is still
 * unread, and the peer device of the same process was not polled either
 * (a resend of every advert after each pause, on a clean wire).
 */
static void
advert_rewind_now(struct blue_qp *qp)
{
	struct rc_resp *rs = &qp->resp;
	uint32_t seq_head = adv_seq_head(rs), from;

	if (rc_advert_pending(qp) == RC_DONE)
		return;
	from = (int32_t)(rs->rq_acked - seq_head) > 0 ? rs->rq_acked - seq_head : 0;
	RC_LOG(DEBUG, "qp 0x%06x: adverts from %u unacknowledged: again", qp->vqp.qpn,
	       seq_head + from);
	qp->vqp.st.retransmits += rs->rq_advertised - from;
	rs->rq_advertised = from; /* rc_send_adverts() sends them again */
}

void
rc_advert_rewind(struct blue_qp *qp)
{
	if (rc_ptime(&blue_qp_dev(qp)->rc) - qp->resp.adv_tsc >= rc_timeout_tsc(qp))
		advert_rewind_now(qp);
}
