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
rc_qp_init(struct blue_qp *qp)
{
	rc_qp_set_timeout(qp);
	/* READ answers have their own ring; a READ takes a WQE per SGE it scatters over */
	qp->req.sq_size = qp->vqp.init.max_send_wr * qp->vqp.init.max_send_sge;
	qp->req.sq_mask = rte_align32pow2(qp->req.sq_size) - 1;
	/* on an SRQ: the window of RECVs lent from its pool */
	uint32_t rq = qp->vqp.srq != NULL ? RC_SRQ_WINDOW : qp->vqp.init.max_recv_wr;

	rc_fifo_init(&qp->resp.rq_q, rq);
	rc_fifo_init(&qp->resp.rdone_q, rq);
	rc_fifo_init(&qp->req.rd_q, qp->req.sq_size);
	rc_fifo_init(&qp->req.at_q, ORDK_MAX_RD_ATOMIC);
	rc_fifo_init(&qp->req.adv_q, ORDK_ADVERT_RING);
	rc_fifo_init(&qp->resp.msg_q, ORDK_MSG_QUEUE);
	qp->req.sq = rte_zmalloc("ordk_sq", sizeof(*qp->req.sq) * (qp->req.sq_mask + 1),
				 RTE_CACHE_LINE_SIZE);
	qp->resp.ans = rte_zmalloc("ordk_ans", sizeof(*qp->resp.ans) * ORDK_ANS_RING, RTE_CACHE_LINE_SIZE);
	qp->req.reads = rte_zmalloc("ordk_rd", sizeof(*qp->req.reads) * rc_fifo_slots(&qp->req.rd_q), 0);
	qp->resp.rq = rte_zmalloc("ordk_rq", sizeof(*qp->resp.rq) * rc_fifo_slots(&qp->resp.rq_q),
				  RTE_CACHE_LINE_SIZE);
	qp->resp.rdone = rte_zmalloc("ordk_rdone", sizeof(*qp->resp.rdone) * rc_fifo_slots(&qp->resp.rdone_q), 0);
	qp->req.adv = rte_zmalloc("ordk_adv", sizeof(*qp->req.adv) * rc_fifo_slots(&qp->req.adv_q), 0);
	qp->resp.msgs = rte_zmalloc("ordk_msg", sizeof(*qp->resp.msgs) * rc_fifo_slots(&qp->resp.msg_q), 0);
	qp->req.rtx_stamp = rte_zmalloc("ordk_rtx", sizeof(*qp->req.rtx_stamp) * ORDK_RECV_WINDOW, 0);
	if (!qp->req.sq || !qp->resp.ans || !qp->req.reads || !qp->resp.rq || !qp->resp.rdone || !qp->req.adv || !qp->resp.msgs ||
	    !qp->req.rtx_stamp)
		return -ENOMEM;
	return 0;
}

void
rc_qp_fini(struct blue_qp *qp)
{
	if (qp->resp.rq != NULL && qp->resp.rdone != NULL) {
		rc_srq_return(qp);
		rc_recv_keys_release(qp, false);
	}
	if (qp->req.sq != NULL)
		rc_read_keys_release(qp);
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

static void flush_wrs(struct blue_qp *qp);

/* Every queue and transport state back to empty, but the completer's. */
static void
reset_queues(struct blue_qp *qp)
{
	rc_srq_return(qp); /* lent and unused: back to the SRQ's pool */
	rc_recv_keys_release(qp, true); /* the card's QP context is invalid already */
	rc_read_keys_release(qp);
	qp->req.sq_head = qp->req.sq_next = qp->req.sq_tail = qp->req.sq_user = qp->req.wr_n = 0;
	qp->resp.ans_head = qp->resp.ans_next = qp->resp.ans_tail = 0; /* answers of a QP in error: dropped */
	rc_fifo_clear(&qp->req.rd_q);
	rc_fifo_clear(&qp->req.adv_q);
	qp->req.adv_expect = 0;
	qp->req.adv_wanted = qp->req.want_sent = 0;
	qp->resp.srq_want = 0;
	rc_fifo_clear(&qp->resp.rq_q);
	qp->resp.rq_advertised = qp->resp.next_recv_seq = 0;
	qp->resp.rq_acked = 0;
	qp->req.adv_ack_due = false;
	rc_fifo_clear(&qp->resp.msg_q);
	qp->resp.ack_due = false;
	qp->resp.rx_open = false;
	qp->req.state = RC_REQ_IDLE;
	qp->req.prot_err = false;
	rc_fifo_clear(&qp->req.at_q);
	qp->req.next_atomic_id = qp->req.atomic_resent_to = qp->resp.atomic_expect = 0;
	memset(qp->resp.atomic_cache, 0, sizeof(qp->resp.atomic_cache));
	memset(qp->resp.atomic_held, 0, sizeof(qp->resp.atomic_held));
	qp->resp.atomic_nheld = 0;
	qp->resp.atomic_refused = false;
	memset(qp->resp.rbits, 0, sizeof(qp->resp.rbits));
}

void
rc_qp_reset(struct blue_qp *qp)
{
	if (qp->comp.state == RC_COMP_FLUSH) {
		/* left ERR before the card confirmed it: what was owed completes now */
		rc_comp_to(qp, RC_COMP_ERROR);
		flush_wrs(qp);
		verbs_event_raise(qp->vqp.dev, ORDK_EVENT_QP_FATAL, blue_qp_handle(qp), NULL);
		rc_srq_last_wqe(qp);
	}
	reset_queues(qp);
	rc_comp_to(qp, RC_COMP_IDLE);
}

void
rc_qp_to_rtr(struct blue_qp *qp)
{
	/* adverts that came before the peer was known must be the peer's */
	if (qp->req.adv_q.count > 0 && qp->req.adv_src != qp->vqp.attr.dest_qp_num) {
		RC_LOG(WARNING, "qp 0x%06x: %u early adverts from 0x%06x, not the peer 0x%06x: dropped",
		       qp->vqp.qpn, qp->req.adv_q.count, qp->req.adv_src, qp->vqp.attr.dest_qp_num);
		qp->vqp.st.adverts_unexpected += qp->req.adv_q.count;
		rc_fifo_clear(&qp->req.adv_q);
		qp->req.adv_expect = 0;
	}
	rc_rx_reset(&qp->resp, qp->vqp.attr.rq_psn);
	qp->resp.err_answers = 0;
	rc_srq_join(qp);
	rc_activate(qp); /* RECVs posted in INIT are advertised now */
}

void
rc_qp_to_rts(struct blue_qp *qp)
{
	qp->req.next_psn = qp->vqp.attr.sq_psn;
	qp->req.pushed_psn = qp->req.next_psn;
	qp->comp.acked_psn = qp->vqp.attr.sq_psn;
}

void
rc_flush_cqe(struct ordk_cq *cq, uint64_t wr_id, enum ordk_wc_opcode op, uint32_t qpn)
{
	struct ordk_wc wc = { .wr_id = wr_id, .status = ORDK_WC_WR_FLUSH_ERR, .opcode = op,
			      .qp_num = qpn };

	verbs_cq_push(cq, &wc);
}

/*
 * IBA: a WR posted to a QP in ERR is accepted and completes with
 * WR_FLUSH_ERR. Once the QP's queues are flushed (RC_COMP_ERROR) it does so
 * at once, in order after them; while the flush is still to come (the card
 * has not confirmed the context invalid) it queues and is flushed with them.
 */
static bool
flushed_now(const struct blue_qp *qp)
{
	return qp->vqp.attr.qp_state == ORDK_QPS_ERR && qp->comp.state == RC_COMP_ERROR;
}

/* Every outstanding WR completes with WR_FLUSH_ERR. */
static void
flush_wrs(struct blue_qp *qp)
{
	rc_recv_retire(qp, true); /* RECVs completed before come first */
	for (uint32_t i = qp->req.sq_head; i != qp->req.sq_tail; i++) {
		struct rc_wqe *w = &qp->req.sq[i & qp->req.sq_mask];

		if (w->flags & (RC_WQE_INTERNAL | RC_WQE_SILENT))
			continue;
		if (w->flags & RC_WQE_FAILED) {
			/* rc_qp_fail()'s oldest WR, a READ: its error, now its key is gone */
			struct ordk_wc wc = { .wr_id = w->wr_id, .status = w->status, .qp_num = qp->vqp.qpn,
					      .opcode = rc_wc_opcode(w->opcode) };

			verbs_cq_push(qp->vqp.scq, &wc);
			rc_wr_silence(&qp->req, i);
		} else if (!(w->flags & RC_WQE_PART)) { /* a WR's parts: its last one reports */
			rc_flush_cqe(qp->vqp.scq, w->wr_id, rc_wc_opcode(w->opcode), qp->vqp.qpn);
		}
	}
	/* RECVs lent by an SRQ are not flushed: they go back for the other QPs */
	rc_srq_return(qp);
	for (uint32_t i = 0; i < qp->resp.rq_q.count; i++)
		rc_flush_cqe(qp->vqp.rcq, qp->resp.rq[rc_fifo_at(&qp->resp.rq_q, i)].wr_id, ORDK_WC_RECV,
			  qp->vqp.qpn);
}

/* QP to ERR: every outstanding WR completes with WR_FLUSH_ERR. */
void
rc_qp_flush(struct blue_qp *qp)
{
	bool owed = qp->comp.state == RC_COMP_FLUSH; /* rc_qp_error() raises QP_FATAL here */
	bool again = qp->comp.state == RC_COMP_ERROR; /* ERR -> ERR: flushed before */

	rc_comp_to(qp, RC_COMP_ERROR);
	flush_wrs(qp);
	reset_queues(qp);
	if (owed)
		verbs_event_raise(qp->vqp.dev, ORDK_EVENT_QP_FATAL, blue_qp_handle(qp), NULL);
	if (!again)
		rc_srq_last_wqe(qp);
}

int
rc_mr_check(const struct blue_qp *qp, uint32_t key, uint64_t addr, uint64_t len,
	    unsigned int access)
{
	return rc_mr_check_pd(blue_qp_dev(qp), qp->vqp.pd, key, addr, len, access);
}

int
rc_mr_check_pd(struct blue_dev *dev, const struct ordk_pd *pd, uint32_t key, uint64_t addr,
	       uint64_t len, unsigned int access)
{
	const struct blue_mr *m = blue_mr_lookup(dev, key);
	uint64_t base;

	if (m == NULL || m->vmr.pub.pd != pd || (m->vmr.pub.access & access) != access)
		return -EPERM;
	base = (uint64_t)(uintptr_t)m->vmr.pub.addr;
	if (addr < base || addr - base > m->vmr.pub.length || len > m->vmr.pub.length - (addr - base))
		return -ERANGE;
	return 0;
}

/*
 * Inline: SEND and WRITE (with or without immediate) only, as in rdma-core;
 * a READ or an atomic has a local buffer the card writes. @return 0 or -EINVAL.
 */
int
rc_inline_check(struct blue_qp *qp, const struct ordk_send_wr *wr, uint32_t len)
{
	if (wr->opcode != ORDK_WR_SEND && wr->opcode != ORDK_WR_SEND_WITH_IMM &&
	    wr->opcode != ORDK_WR_RDMA_WRITE && wr->opcode != ORDK_WR_RDMA_WRITE_WITH_IMM) {
		RC_LOG(ERR, "qp 0x%06x: post_send: ORDK_SEND_INLINE on a READ or an atomic",
		       qp->vqp.qpn);
		qp->vqp.st.inline_refused++;
		return -EINVAL;
	}
	if (len > qp->vqp.init.max_inline_data) {
		RC_LOG(ERR, "qp 0x%06x: post_send: %u inline bytes, the QP's max_inline_data is %u",
		       qp->vqp.qpn, len, qp->vqp.init.max_inline_data);
		qp->vqp.st.inline_refused++;
		return -EINVAL;
	}
	return 0;
}

/* What a send WR may not be, before anything is queued. @return 0 or a negative errno. */
static int
send_check(struct blue_qp *qp, const struct ordk_send_wr *wr, uint64_t len, bool inl)
{
	const struct ordk_sge *g = verbs_wr_sgl(wr);
	bool atomic = wr->opcode == ORDK_WR_ATOMIC_CMP_AND_SWP ||
		      wr->opcode == ORDK_WR_ATOMIC_FETCH_AND_ADD;

	if ((unsigned int)wr->opcode > ORDK_WR_ATOMIC_FETCH_AND_ADD || wr->num_sge < 0 ||
	    (wr->send_flags & ~(unsigned int)(ORDK_SEND_FENCE | ORDK_SEND_SIGNALED |
					      ORDK_SEND_SOLICITED | ORDK_SEND_INLINE)))
		return -EINVAL;
	/* an atomic returns the original 8 bytes into a local buffer */
	if (atomic && (wr->num_sge != 1 || g[0].length != 8 || g[0].addr % 8 != 0))
		return -EINVAL;
	if (len > (1u << 31) || (inl && rc_inline_check(qp, wr, (uint32_t)len) != 0))
		return -EINVAL;
	/* a READ request without a length the card does not send; a zero-length
	 * WRITE it does (IBA allows it, no R_Key is checked: UCX's flush) */
	if (len == 0 && wr->opcode == ORDK_WR_RDMA_READ)
		return -EINVAL;
	/* a READ's answer lands through its own key (rc_read.c): the MR needs
	 * only LOCAL_WRITE, as in IBA, and no REMOTE_WRITE a peer could use */
	if (len > 0 && !inl)
		return rc_sgl_check(qp, wr, wr->opcode == ORDK_WR_RDMA_READ || atomic
						    ? ORDK_ACCESS_LOCAL_WRITE : 0);
	return 0;
}

/* @p wr's SGEs of non-zero length: how many, the first in *@p first ({0} if none). */
static uint32_t
sgl_used(const struct ordk_send_wr *wr, struct ordk_sge *first)
{
	const struct ordk_sge *g = verbs_wr_sgl(wr);
	uint32_t n = 0;

	*first = (struct ordk_sge){ 0 };
	for (int i = 0; i < wr->num_sge; i++)
		if (g[i].length > 0 && n++ == 0)
			*first = g[i];
	return n;
}

/*
 * A READ that scatters over several SGEs: a READ request per SGE, to
 * consecutive remote addresses, each a WQE of its own with its own card key
 * (so every answer lands only in its SGE); @p w (the first, filled in) and
 * the parts after it carry RC_WQE_PART but the last, which completes the WR.
 * @return the WQEs queued.
 */
static uint32_t
read_parts(struct blue_qp *qp, const struct ordk_send_wr *wr, struct rc_wqe *w)
{
	const struct ordk_sge *g = verbs_wr_sgl(wr);
	struct rc_wqe first = *w;
	uint64_t raddr = wr->rdma.remote_addr;
	uint32_t n = 0;

	for (int i = 0; i < wr->num_sge; i++) {
		if (g[i].length == 0)
			continue;
		if (n > 0) { /* the previous one has parts after it */
			w->flags |= RC_WQE_PART;
			w->signaled = 0;
			w = &qp->req.sq[(qp->req.sq_tail + n) & qp->req.sq_mask];
			*w = first;
			w->flags &= (uint16_t)~RC_WQE_FENCE; /* the first part waited */
		}
		w->laddr = g[i].addr;
		w->lkey = g[i].lkey;
		w->len = g[i].length;
		w->raddr = raddr;
		w->k.pgt_offset = rc_key_pgt(blue_mr_lookup(blue_qp_dev(qp), g[i].lkey), w->laddr);
		raddr += g[i].length;
		n++;
	}
	return n;
}

int
rc_post_send(struct blue_qp *qp, const struct ordk_send_wr *wr)
{
	uint64_t len = verbs_wr_len(wr);
	bool inl = (wr->send_flags & ORDK_SEND_INLINE) != 0, atomic;
	struct ordk_sge sge;
	uint32_t nsge = sgl_used(wr, &sge), wqes;
	struct rc_wqe *w;
	int rc;

	if (qp->vqp.attr.qp_state != ORDK_QPS_RTS && qp->vqp.attr.qp_state != ORDK_QPS_ERR)
		return -EINVAL;
	rc = send_check(qp, wr, len, inl);
	if (rc != 0)
		return rc;
	if (flushed_now(qp)) {
		rc_flush_cqe(qp->vqp.scq, wr->wr_id, rc_wc_opcode((uint8_t)wr->opcode), qp->vqp.qpn);
		qp->vqp.st.wr_posted++;
		return 0;
	}
	wqes = !inl && nsge > 1 && wr->opcode == ORDK_WR_RDMA_READ ? nsge : 1;
	if (qp->req.sq_user >= qp->vqp.init.max_send_wr ||
	    qp->req.sq_tail - qp->req.sq_head + wqes > qp->req.sq_size)
		return -ENOMEM;
	/* the copy waits in this WR's slot until the WR completes */
	if (inl && len > 0)
		verbs_qp_inline(&qp->vqp, qp->req.wr_n, wr, &sge);
	if (inl)
		qp->vqp.st.inline_posted++;
	atomic = rc_is_atomic((uint8_t)wr->opcode);
	/* in ERR with the flush still to come, it queues behind the rest (the requester starts nothing) */
	w = &qp->req.sq[qp->req.sq_tail & qp->req.sq_mask];
	*w = (struct rc_wqe){
		.wr_id = wr->wr_id, .opcode = (uint8_t)wr->opcode, /* ordk == blue WR opcodes 0-4 */
		.state = RC_WQE_QUEUED,
		.flags = (wr->send_flags & ORDK_SEND_FENCE) ? RC_WQE_FENCE : 0,
		.signaled = (wr->send_flags & ORDK_SEND_SIGNALED) != 0,
		.solicited = (wr->send_flags & ORDK_SEND_SOLICITED) != 0, .imm = wr->imm_data,
		.laddr = sge.addr, .lkey = sge.lkey, .len = (uint32_t)len, .wr_n = qp->req.wr_n,
		.raddr = atomic ? wr->atomic.remote_addr : wr->rdma.remote_addr,
		.rkey = atomic ? wr->atomic.rkey : wr->rdma.rkey,
		.compare_add = atomic ? wr->atomic.compare_add : 0,
		.swap = atomic ? wr->atomic.swap : 0 };
	if (wqes > 1)
		read_parts(qp, wr, w);
	else if (wr->opcode == ORDK_WR_RDMA_READ)
		w->k.pgt_offset = rc_key_pgt(blue_mr_lookup(blue_qp_dev(qp), sge.lkey), w->laddr);
	else if (!inl && nsge > 1) /* its SGEs wait in its slot (rc_sgl.c) */
		w->nsge = (uint8_t)verbs_qp_sgl_save(&qp->vqp, qp->req.wr_n, wr);
	qp->req.sq_tail += wqes;
	qp->req.wr_n++;
	qp->req.sq_user++;
	qp->vqp.st.wr_posted++;
	/* it takes one of the peer's RECVs: said in the advert ACKs (rc_want_due()) */
	if (wr->opcode == ORDK_WR_SEND || wr->opcode == ORDK_WR_SEND_WITH_IMM ||
	    wr->opcode == ORDK_WR_RDMA_WRITE_WITH_IMM)
		qp->req.adv_wanted++;
	return 0;
}

int
rc_rwqe_make(struct blue_qp *qp, const struct ordk_pd *pd, const struct ordk_recv_wr *wr,
	     struct rc_rwqe *r)
{
	struct blue_dev *dev = blue_qp_dev(qp);
	struct blue_mr *m;

	*r = (struct rc_rwqe){ .wr_id = wr->wr_id };
	if (wr->num_sge != 1 || wr->sge.length == 0)
		return 0;
	if (rc_mr_check_pd(dev, pd, wr->sge.lkey, wr->sge.addr, wr->sge.length,
			   ORDK_ACCESS_LOCAL_WRITE) != 0)
		return -EPERM;
	m = blue_mr_lookup(dev, wr->sge.lkey);
	r->addr = wr->sge.addr;
	r->len = wr->sge.length;
	r->lkey = wr->sge.lkey;
	r->k.pgt_offset = rc_key_pgt(m, r->addr);
	return 0;
}

int
rc_post_recv(struct blue_qp *qp, const struct ordk_recv_wr *wr)
{
	struct rc_rwqe made;
	int rc;

	if (qp->vqp.attr.qp_state == ORDK_QPS_RESET)
		return -EINVAL;
	if (wr->num_sge < 0 || wr->num_sge > 1)
		return -EINVAL;
	rc = rc_rwqe_make(qp, qp->vqp.pd, wr, &made);
	if (rc != 0)
		return rc;
	if (flushed_now(qp)) {
		rc_flush_cqe(qp->vqp.rcq, wr->wr_id, ORDK_WC_RECV, qp->vqp.qpn);
		return 0;
	}
	/* in ERR with the flush still to come it queues too: only RTR and RTS advertise */
	/* a completion waiting for its key's revocation still holds its slot */
	if (qp->resp.rq_q.count + qp->resp.rdone_q.count >= qp->resp.rq_q.size)
		return -ENOMEM;
	made.recv_seq = qp->resp.next_recv_seq++;
	qp->resp.rq[rc_fifo_push(&qp->resp.rq_q)] = made;
	return 0;
}

void
rc_qp_fail(struct blue_qp *qp, enum ordk_wc_status status)
{
	/* the oldest user WR carries the error; everything else is flushed */
	while (qp->req.sq_head != qp->req.sq_tail) {
		struct rc_wqe *w = &qp->req.sq[qp->req.sq_head & qp->req.sq_mask];

		if (!(w->flags & RC_WQE_INTERNAL) && w->k.state != RC_KEY_NONE) {
			/* a READ whose key the card may still know: its error comes with
			 * the flush, once the revocation is confirmed (rc_qp_error_reap()) */
			w->status = (uint8_t)status;
			w->flags |= RC_WQE_FAILED;
			break;
		}
		qp->req.sq_head++;
		if (w->flags & RC_WQE_INTERNAL)
			continue;
		if (!(w->flags & RC_WQE_PART))
			qp->req.sq_user--;
		if (w->flags & RC_WQE_SILENT)
			continue; /* its WR's error was reported: the next WR carries this one */
		struct ordk_wc wc = { .wr_id = w->wr_id, .status = status, .qp_num = qp->vqp.qpn,
				      .opcode = rc_wc_opcode(w->opcode) };

		verbs_cq_push(qp->vqp.scq, &wc);
		rc_wr_silence(&qp->req, qp->req.sq_head - 1);
		break;
	}
	RC_LOG(WARNING, "qp 0x%06x: %s; QP to ERR", qp->vqp.qpn, ordk_wc_status_str(status));
	verbs_trace(blue_qp_handle(qp), VERBS_TRACE_error, status, 0);
	rc_qp_error(qp);
}

/* Submit the ManageQp that invalidates the QP's context on the card (no wait). */
static void
error_submit(struct blue_qp *qp)
{
	struct blue_cmd c = blue_manage_qp_cmd(qp, false, true);
	int64_t seq = blue_cmd_submit(&blue_qp_dev(qp)->hw, &c);

	if (seq < 0)
		return; /* the command ring is full: the engine tries again */
	qp->comp.err_seq = (uint32_t)seq;
	qp->comp.err_submitted = true;
}

void
rc_qp_err_cmd_start(struct blue_qp *qp)
{
	qp->comp.err_submitted = false;
	qp->comp.err_deadline = rc_ptime(&blue_qp_dev(qp)->rc) + blue_qp_dev(qp)->hw.cmd_timeout_tsc;
	error_submit(qp);
}

bool
rc_qp_err_cmd_reaped(struct blue_qp *qp, bool *ok)
{
	struct rc_comp *c = &qp->comp;

	*ok = false;
	if (!c->err_submitted)
		error_submit(qp);
	if (c->err_submitted && blue_cmd_done(&blue_qp_dev(qp)->hw, c->err_seq, ok))
		return true;
	return rc_ptime(&blue_qp_dev(qp)->rc) >= c->err_deadline;
}

void
rc_qp_error(struct blue_qp *qp)
{
	/* SETTLE told the card already (or is telling it): that command serves */
	bool told = qp->comp.state == RC_COMP_SETTLE;

	if (qp->vqp.attr.qp_state != ORDK_QPS_ERR) /* (an application's modify was traced already) */
		verbs_trace(blue_qp_handle(qp), VERBS_TRACE_state, qp->vqp.attr.qp_state, ORDK_QPS_ERR);
	qp->vqp.attr.qp_state = ORDK_QPS_ERR;
	rc_fifo_clear(&qp->req.at_q);
	/*
	 * The card's context goes invalid first: nothing lands through it from
	 * then on, so the RECVs can be flushed. The engine reaps the command
	 * (rc_qp_error_reap()) instead of this poll waiting for it.
	 */
	rc_comp_to(qp, RC_COMP_FLUSH);
	rc_timer_set(qp, 0); /* after: the timer leaves a failing state alone */
	memset(qp->req.rtx_bits, 0, sizeof(qp->req.rtx_bits));
	qp->req.rtx_count = 0;
	qp->req.rtx_fetch_until = 0;
	/* the READs' keys go first: the card runs commands in order, so by its
	 * word on the ManageQp they are gone too (rc_qp_error_reap() checks) */
	rc_read_keys_revoke_all(qp);
	if (!told)
		rc_qp_err_cmd_start(qp);
	rc_activate(qp);
}

enum rc_step
rc_qp_error_reap(struct blue_qp *qp)
{
	bool ok;

	if (!rc_qp_err_cmd_reaped(qp, &ok))
		return RC_MORE;
	/* no READ completes while the card may know its key (one that waited for
	 * room on the command ring), unless the card stopped answering */
	if (rc_read_keys_wait(qp) == RC_MORE && rc_ptime(&blue_qp_dev(qp)->rc) < qp->comp.err_deadline)
		return RC_MORE;
	/* best effort: the QP is in error whatever the card answers */
	if (!ok)
		RC_LOG(ERR, "qp 0x%06x: the card did not confirm ManageQp (error): flushed anyway",
		       qp->vqp.qpn);
	rc_timer_set(qp, 0);
	rc_qp_flush(qp);
	return RC_DONE;
}
