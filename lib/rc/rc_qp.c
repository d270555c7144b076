/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC queue pair lifecycle and the post path: validation of WRs against the
 * QP state and the MR table, the send and receive queues, and RECV
 * advertisements (ORDK control frames through SimpleNic TX) so the peer can
 * place SENDs in posted buffers with standard semantics.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "blue_verbs.h"

RTE_LOG_REGISTER(ordk_rc_logtype, ordk.rc, NOTICE);

int
rc_qp_init(struct ordk_qp *qp)
{
	rc_qp_set_timeout(qp);
	qp->req.sq_size = qp->init.max_send_wr; /* READ answers have their own ring */
	qp->resp.rq_size = qp->init.max_recv_wr;
	qp->req.sq = rte_zmalloc("ordk_sq", sizeof(*qp->req.sq) * qp->req.sq_size, RTE_CACHE_LINE_SIZE);
	qp->resp.ans = rte_zmalloc("ordk_ans", sizeof(*qp->resp.ans) * ORDK_ANS_RING, RTE_CACHE_LINE_SIZE);
	qp->req.reads = rte_zmalloc("ordk_rd", sizeof(*qp->req.reads) * qp->req.sq_size, 0);
	qp->resp.rq = rte_zmalloc("ordk_rq", sizeof(*qp->resp.rq) * qp->resp.rq_size, RTE_CACHE_LINE_SIZE);
	qp->resp.rdone = rte_zmalloc("ordk_rdone", sizeof(*qp->resp.rdone) * qp->resp.rq_size, 0);
	qp->req.adv = rte_zmalloc("ordk_adv", sizeof(*qp->req.adv) * ORDK_ADVERT_RING, 0);
	qp->resp.msgs = rte_zmalloc("ordk_msg", sizeof(*qp->resp.msgs) * ORDK_MSG_QUEUE, 0);
	qp->req.rtx_stamp = rte_zmalloc("ordk_rtx", sizeof(*qp->req.rtx_stamp) * ORDK_RECV_WINDOW, 0);
	if (!qp->req.sq || !qp->resp.ans || !qp->req.reads || !qp->resp.rq || !qp->resp.rdone || !qp->req.adv || !qp->resp.msgs ||
	    !qp->req.rtx_stamp)
		return -ENOMEM;
	return 0;
}

void
rc_qp_fini(struct ordk_qp *qp)
{
	if (qp->resp.rq != NULL && qp->resp.rdone != NULL)
		rc_recv_keys_release(qp, false);
	rte_free(qp->resp.rdone);
	qp->resp.rdone = NULL;
	rte_free(qp->req.sq);
	rte_free(qp->resp.ans);
	rte_free(qp->req.reads);
	rte_free(qp->resp.rq);
	rte_free(qp->req.adv);
	rte_free(qp->resp.msgs);
	rte_free(qp->req.rtx_stamp);
	qp->req.rtx_stamp = NULL;
	qp->req.sq = NULL;
	qp->resp.ans = NULL;
	qp->req.reads = NULL;
	qp->resp.rq = NULL;
	qp->req.adv = NULL;
	qp->resp.msgs = NULL;
}

void
rc_qp_reset(struct ordk_qp *qp)
{
	rc_recv_keys_release(qp, true); /* the card's QP context is invalid already */
	qp->req.sq_head = qp->req.sq_next = qp->req.sq_tail = qp->req.sq_user = 0;
	qp->resp.ans_head = qp->resp.ans_next = qp->resp.ans_tail = 0; /* answers of a QP in error: dropped */
	qp->req.rd_head = qp->req.rd_count = 0;
	qp->req.adv_head = qp->req.adv_count = qp->req.adv_expect = 0;
	qp->resp.rq_head = qp->resp.rq_count = qp->resp.rq_advertised = qp->resp.next_recv_seq = 0;
	qp->resp.rq_acked = 0;
	qp->req.adv_ack_due = false;
	qp->resp.msg_head = qp->resp.msg_count = 0;
	qp->resp.ack_due = false;
	qp->req.len_err_sent = false;
	qp->req.atomic_wqe = NULL;
	qp->req.next_atomic_id = qp->resp.atomic_expect = 0;
	memset(qp->resp.atomic_cache, 0, sizeof(qp->resp.atomic_cache));
	memset(qp->resp.rbits, 0, sizeof(qp->resp.rbits));
}

void
rc_activate(struct ordk_qp *qp)
{
	if (!qp->sched.on_active) {
		TAILQ_INSERT_TAIL(&qp->dev->rc.active, qp, sched.link);
		qp->sched.on_active = true;
	}
}

void
rc_qp_to_rtr(struct ordk_qp *qp)
{
	/* adverts that came before the peer was known must be the peer's */
	if (qp->req.adv_count > 0 && qp->req.adv_src != qp->attr.dest_qp_num) {
		RC_LOG(WARNING, "qp 0x%06x: %u early adverts from 0x%06x, not the peer 0x%06x: dropped",
		       qp->qpn, qp->req.adv_count, qp->req.adv_src, qp->attr.dest_qp_num);
		qp->st.adverts_unexpected += qp->req.adv_count;
		qp->req.adv_head = qp->req.adv_count = qp->req.adv_expect = 0;
	}
	qp->resp.epsn = qp->attr.rq_psn;
	qp->resp.card_base = qp->resp.epsn;
	qp->resp.rx_top = qp->resp.epsn;
	memset(qp->resp.rbits, 0, sizeof(qp->resp.rbits));
	rc_activate(qp); /* RECVs posted in INIT are advertised now */
}

void
rc_qp_to_rts(struct ordk_qp *qp)
{
	qp->req.next_psn = qp->attr.sq_psn;
	qp->req.pushed_psn = qp->req.next_psn;
	qp->comp.acked_psn = qp->attr.sq_psn;
}

static void
flush_cqe(struct ordk_cq *cq, uint64_t wr_id, enum ordk_wc_opcode op, uint32_t qpn)
{
	struct ordk_wc wc = { .wr_id = wr_id, .status = ORDK_WC_WR_FLUSH_ERR, .opcode = op,
			      .qp_num = qpn };

	verbs_cq_push(cq, &wc);
}

/* QP to ERR: every outstanding WR completes with WR_FLUSH_ERR. */
void
rc_qp_flush(struct ordk_qp *qp)
{
	rc_recv_retire(qp, true); /* RECVs completed before come first */
	for (uint32_t i = qp->req.sq_head; i != qp->req.sq_tail; i++) {
		struct rc_wqe *w = &qp->req.sq[i % qp->req.sq_size];

		if (!(w->flags & RC_WQE_INTERNAL))
			flush_cqe(qp->scq, w->wr_id, rc_wc_opcode(w->opcode), qp->qpn);
	}
	for (uint32_t i = 0; i < qp->resp.rq_count; i++)
		flush_cqe(qp->rcq, qp->resp.rq[(qp->resp.rq_head + i) % qp->resp.rq_size].wr_id, ORDK_WC_RECV,
			  qp->qpn);
	rc_qp_reset(qp);
}

/* The SGE must lie inside an MR of this device with the access the operation needs. */
static int
check_sge(struct ordk_qp *qp, const struct ordk_sge *sge, unsigned int need)
{
	struct ordk_mr_int *m = verbs_mr_lookup(qp->dev, sge->lkey);
	uint64_t base;

	if (m == NULL || m->pub.pd != qp->pd)
		return -EPERM;
	base = (uint64_t)(uintptr_t)m->pub.addr;
	if (sge->addr < base || sge->addr - base > m->pub.length ||
	    sge->length > m->pub.length - (sge->addr - base) || (m->pub.access & need) != need)
		return -EPERM;
	return 0;
}

int
rc_post_send(struct ordk_qp *qp, const struct ordk_send_wr *wr)
{
	uint32_t len = wr->num_sge == 1 ? wr->sge.length : 0;
	struct rc_wqe *w;
	int rc;

	if (qp->attr.qp_state != ORDK_QPS_RTS)
		return -EINVAL;
	bool atomic = wr->opcode == ORDK_WR_ATOMIC_CMP_AND_SWP ||
		      wr->opcode == ORDK_WR_ATOMIC_FETCH_AND_ADD;

	/* an atomic returns the original 8 bytes into a local buffer */
	if (atomic && (wr->num_sge != 1 || wr->sge.length != 8 || wr->sge.addr % 8 != 0))
		return -EINVAL;
	if ((unsigned int)wr->opcode > ORDK_WR_ATOMIC_FETCH_AND_ADD || wr->num_sge < 0 ||
	    wr->num_sge > 1 ||
	    (wr->send_flags & ~(unsigned int)(ORDK_SEND_FENCE | ORDK_SEND_SIGNALED |
					      ORDK_SEND_SOLICITED)))
		return -EINVAL;
	/* the card cannot send a zero-length plain WRITE or READ */
	if (len == 0 && (wr->opcode == ORDK_WR_RDMA_WRITE || wr->opcode == ORDK_WR_RDMA_READ))
		return -EINVAL;
	if (len > (1u << 31))
		return -EINVAL;
	if (len > 0) {
		/* a READ's buffer is written by the card as a remote write (section 5.3) */
		rc = check_sge(qp, &wr->sge,
			       wr->opcode == ORDK_WR_RDMA_READ
				       ? ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE
				       : atomic ? ORDK_ACCESS_LOCAL_WRITE : 0);
		if (rc != 0)
			return rc;
	}
	if (qp->req.sq_user >= qp->init.max_send_wr || qp->req.sq_tail - qp->req.sq_head >= qp->req.sq_size)
		return -ENOMEM;
	w = &qp->req.sq[qp->req.sq_tail % qp->req.sq_size];
	*w = (struct rc_wqe){
		.wr_id = wr->wr_id, .opcode = (uint8_t)wr->opcode, /* ordk == blue WR opcodes 0-4 */
		.flags = (wr->send_flags & ORDK_SEND_FENCE) ? RC_WQE_FENCE : 0,
		.signaled = (wr->send_flags & ORDK_SEND_SIGNALED) != 0,
		.solicited = (wr->send_flags & ORDK_SEND_SOLICITED) != 0, .imm = wr->imm_data,
		.laddr = wr->sge.addr, .lkey = wr->sge.lkey, .len = len,
		.raddr = atomic ? wr->atomic.remote_addr : wr->rdma.remote_addr,
		.rkey = atomic ? wr->atomic.rkey : wr->rdma.rkey,
		.compare_add = atomic ? wr->atomic.compare_add : 0,
		.swap = atomic ? wr->atomic.swap : 0 };
	qp->req.sq_tail++;
	qp->req.sq_user++;
	qp->st.wr_posted++;
	return 0;
}

int
rc_post_recv(struct ordk_qp *qp, const struct ordk_recv_wr *wr)
{
	struct rc_rwqe *r;
	struct ordk_mr_int *m = NULL;
	int rc;

	if (qp->attr.qp_state == ORDK_QPS_RESET || qp->attr.qp_state == ORDK_QPS_ERR)
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > 1)
		return -EINVAL;
	if (wr->num_sge == 1 && wr->sge.length > 0) {
		rc = check_sge(qp, &wr->sge, ORDK_ACCESS_LOCAL_WRITE);
		if (rc != 0)
			return rc;
		m = verbs_mr_lookup(qp->dev, wr->sge.lkey);
	}
	/* a completion waiting for its key's revocation still holds its slot */
	if (qp->resp.rq_count + qp->resp.rdone_count >= qp->resp.rq_size)
		return -ENOMEM;
	r = &qp->resp.rq[(qp->resp.rq_head + qp->resp.rq_count) % qp->resp.rq_size];
	*r = (struct rc_rwqe){ .wr_id = wr->wr_id, .recv_seq = qp->resp.next_recv_seq++ };
	if (m != NULL) {
		r->addr = wr->sge.addr;
		r->len = wr->sge.length;
		r->lkey = wr->sge.lkey;
		/* the RECV's own card entry translates through the MR's PGT run */
		r->pgt_offset = m->pgt_start + (uint32_t)((r->addr >> BLUE_PAGE_SHIFT) -
							  ((uintptr_t)m->pub.addr >> BLUE_PAGE_SHIFT));
	}
	qp->resp.rq_count++;
	return 0;
}

/* Advertise posted RECVs not advertised yet, up to 7 per control frame (fewer
 * when the card's SimpleNic RX slots are smaller than 256 bytes). */
bool
rc_send_adverts(struct ordk_qp *qp)
{
	struct ordk_dev *dev = qp->dev;
	struct ordk_wire_l3 l3 = { .dst_mac = qp->attr.dest_mac, .src_mac = dev->hw.mac,
				   .src_ip = dev->hw.ip, .dst_ip = qp->attr.dest_ip, .df = 1,
				   .ttl = 64 };
	uint8_t frame[BLUE_SNIC_TX_SLOT];

	if (qp->attr.qp_state != ORDK_QPS_RTR && qp->attr.qp_state != ORDK_QPS_RTS)
		return true;
	/* ask the card for every new RECV's key at once (pipelined commands) */
	for (uint32_t i = qp->resp.rq_advertised; i < qp->resp.rq_count; i++) {
		struct rc_rwqe *r = &qp->resp.rq[(qp->resp.rq_head + i) % qp->resp.rq_size];

		if (r->kstate == RC_KEY_NONE && !rc_recv_key_ready(qp, r) && r->kstate == RC_KEY_NONE)
			break; /* no slot, or the command ring is full: the next poll goes on */
	}
	while (qp->resp.rq_advertised < qp->resp.rq_count) {
		struct ordk_ctrl_msg m = { .type = ORDK_CTRL_RECV_ADVERT, .src_qpn = qp->qpn,
					   .dst_qpn = qp->attr.dest_qp_num };
		/* 42 + 24 + 4 + 24 n bytes must fit a 256-byte SimpleNic TX slot (n <= 7)
		 * and an RX slot (snic_slot=, the same on both cards): 128 B, n <= 2 */
		uint32_t slot = dev->hw.snic_slot < 256u ? dev->hw.snic_slot : 256u;
		uint32_t n = RTE_MIN(qp->resp.rq_count - qp->resp.rq_advertised, (slot - 70u) / 24u), ready = 0;
		int len;

		/* adverts go in order, each once its RECV's card key is known */
		while (ready < n &&
		       rc_recv_key_ready(qp, &qp->resp.rq[(qp->resp.rq_head + qp->resp.rq_advertised + ready) %
						     qp->resp.rq_size]))
			ready++;
		n = ready;
		if (n == 0 || !blue_snic_tx_room(&dev->hw))
			return false;
		for (uint32_t i = 0; i < n; i++) {
			const struct rc_rwqe *r =
				&qp->resp.rq[(qp->resp.rq_head + qp->resp.rq_advertised + i) % qp->resp.rq_size];

			m.advert.e[i] = (struct ordk_ctrl_advert){ .recv_seq = r->recv_seq,
								   .length = r->len, .addr = r->addr,
								   .rkey = r->key };
		}
		m.advert.count = (uint16_t)n;
		m.seq = m.advert.e[0].recv_seq;
		len = ordk_wire_ctrl_build(frame, sizeof(frame), &l3, &m);
		if (len < 0 || blue_snic_tx(&dev->hw, frame, (uint32_t)len) != 0)
			return false;
		qp->resp.rq_advertised += n;
		qp->st.adverts_sent += n;
		qp->resp.adv_tsc = rte_get_tsc_cycles();
	}
	return true;
}

/* Sender side: acknowledge the adverts that arrived (every one before adv_expect). */
bool
rc_send_advert_ack(struct ordk_qp *qp)
{
	struct ordk_dev *dev = qp->dev;
	struct ordk_wire_l3 l3 = { .dst_mac = qp->attr.dest_mac, .src_mac = dev->hw.mac,
				   .src_ip = dev->hw.ip, .dst_ip = qp->attr.dest_ip, .df = 1,
				   .ttl = 64 };
	struct ordk_ctrl_msg m = { .type = ORDK_CTRL_RECV_ADVERT_ACK, .src_qpn = qp->qpn,
				   .dst_qpn = qp->attr.dest_qp_num };
	uint8_t frame[BLUE_SNIC_TX_SLOT];
	int len;

	if (!blue_snic_tx_room(&dev->hw))
		return false;
	m.advert_ack.recv_seq = qp->req.adv_expect;
	len = ordk_wire_ctrl_build(frame, sizeof(frame), &l3, &m);
	if (len < 0 || blue_snic_tx(&dev->hw, frame, (uint32_t)len) != 0)
		return false;
	qp->req.adv_ack_due = false;
	return true;
}

/*
 * Receiver side: adverts the peer has not acknowledged within the QP's
 * timeout go out again (the peer drops the ones it already has by sequence).
 * @return true while some are still unacknowledged.
 */
bool
rc_advert_resend(struct ordk_qp *qp, uint64_t now, uint64_t timeout)
{
	uint32_t seq_head = qp->resp.rq_count ? qp->resp.rq[qp->resp.rq_head].recv_seq : qp->resp.next_recv_seq;
	uint32_t adv_end = seq_head + qp->resp.rq_advertised;

	if ((int32_t)(adv_end - qp->resp.rq_acked) <= 0)
		return false;
	if (timeout != UINT64_MAX && now - qp->resp.adv_tsc >= timeout) {
		uint32_t from = (int32_t)(qp->resp.rq_acked - seq_head) > 0 ? qp->resp.rq_acked - seq_head : 0;

		qp->st.retransmits += qp->resp.rq_advertised - from;
		qp->resp.rq_advertised = from; /* rc_send_adverts() sends them again */
	}
	return true;
}
