/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-RECV card keys: where SENDs may land.
 *
 * The card places a SEND packet into any MR-table entry with LOCAL_WRITE, at
 * any offset (doc/guides/drivers/blue_hw_interface.md section 5.1): it has
 * no receive queue. So the user's
 * MRs go to the card without LOCAL_WRITE (verbs_mr.c: the card uses that bit
 * for nothing else), and each posted RECV with a buffer gets an MR-table
 * entry of its own, covering exactly that buffer with LOCAL_WRITE only and a
 * fresh key part; that key travels in the RECV's advert. The entry is revoked
 * (UpdateMrTable length 0) when the RECV completes, and the completion is
 * reported only once the card confirmed it: a late or spoofed packet can
 * never write into a buffer the application got back.
 *
 * The key itself (create, revoke, orphan) is rc_key.c's, shared with the
 * READs' keys: creating one delays the RECV's advert by one command round
 * trip, revoking it delays its completion by one. Nothing here waits for the
 * card: a revocation that finds the command ring full waits in RC_KEY_REVOKE
 * for a later poll, beside its completion (rdone), or when its RECV is gone
 * (flushed, reset, destroyed), in the engine's queue.
 */
#include "blue_verbs.h"

/*
 * Make sure @p r has a key the card knows. @return true when it has (or needs
 * none: a RECV without a buffer), false while it must wait.
 */
bool
rc_recv_key_ready(struct blue_qp *qp, struct rc_rwqe *r)
{
	return r->len == 0 || rc_key_ready(qp, &r->k, r->addr, r->len, BLUE_ACC_LOCAL_WRITE,
					    &qp->vqp.st.recv_keys_short);
}

/* A RECV completed: its key is revoked, and its completion waits for that. */
void
rc_recv_done(struct blue_qp *qp, struct rc_rwqe *r, const struct ordk_wc *wc)
{
	struct rc_rdone *d;

	if (r->k.state == RC_KEY_NONE && qp->resp.rdone_q.count == 0) {
		verbs_cq_push(qp->vqp.rcq, wc);
		return;
	}
	d = &qp->resp.rdone[rc_fifo_push(&qp->resp.rdone_q)];
	*d = (struct rc_rdone){ .wc = *wc, .r = *r };
	rc_key_revoke(blue_qp_dev(qp), &d->r.k);
	r->k.state = RC_KEY_NONE;
}

/*
 * Submit the revocations that waited for room, then report the completions
 * whose keys the card no longer knows, in order; @p force: all of them (the
 * QP's context on the card is invalid already; a revocation still waiting
 * goes to the engine's queue). @return RC_MORE while some still wait.
 */
enum rc_step
rc_recv_retire(struct blue_qp *qp, bool force)
{
	struct rc_resp *rs = &qp->resp;
	struct blue_dev *dev = blue_qp_dev(qp);

	for (uint32_t i = 0; i < rs->rdone_q.count; i++)
		if (!rc_key_revoke_step(dev, &rs->rdone[rc_fifo_at(&rs->rdone_q, i)].r.k))
			break;
	while (rs->rdone_q.count > 0) {
		struct rc_rdone *d = &rs->rdone[rs->rdone_q.head];

		if (!force && !rc_key_gone(dev, &d->r.k))
			return RC_MORE;
		rc_key_orphan(dev, &d->r.k); /* (force) a revocation still waiting: queued */
		verbs_cq_push(qp->vqp.rcq, &d->wc);
		rc_fifo_pop(&rs->rdone_q);
	}
	return RC_DONE;
}

/*
 * The QP leaves RTR/RTS (or goes away): completions that waited are reported
 * (@p push) or dropped, and every posted RECV's key is revoked.
 */
void
rc_recv_keys_release(struct blue_qp *qp, bool push)
{
	struct rc_resp *rs = &qp->resp;

	if (push)
		rc_recv_retire(qp, true);
	for (uint32_t i = 0; i < rs->rdone_q.count; i++)
		rc_key_orphan(blue_qp_dev(qp), &rs->rdone[rc_fifo_at(&rs->rdone_q, i)].r.k);
	rc_fifo_clear(&rs->rdone_q);
	for (uint32_t i = 0; i < rs->rq_q.count; i++)
		rc_key_orphan(blue_qp_dev(qp), &rs->rq[rc_fifo_at(&rs->rq_q, i)].k);
}

/* ------------------------------------------------ a QP on an SRQ */

/*
 * The QP's share of its SRQ: the RECVs outstanding there (pool and lent)
 * over the QPs on it in RTR or RTS, at least one, at most the window. A QP
 * whose RECVs are consumed is refilled to it; an idle one holds what it was lent.
 */
static uint32_t
srq_share(const struct blue_qp *qp)
{
	const struct ordk_srq *srq = qp->vqp.srq;
	uint32_t share = (srq->count + srq->lent) / (srq->nlive ? srq->nlive : 1);

	return RTE_MAX(1u, RTE_MIN(share, qp->resp.rq_q.size));
}

void
rc_srq_join(struct blue_qp *qp)
{
	if (qp->vqp.srq == NULL || qp->resp.srq_live)
		return;
	qp->resp.srq_live = true;
	qp->vqp.srq->nlive++;
}

void
rc_srq_refill(struct blue_qp *qp)
{
	struct rc_resp *rs = &qp->resp;
	struct ordk_srq *srq = qp->vqp.srq;
	uint32_t share = srq_share(qp);

	if (qp->vqp.attr.qp_state != ORDK_QPS_RTR && qp->vqp.attr.qp_state != ORDK_QPS_RTS)
		return;
	/* as many as the peer wants; a completion waiting for its key still holds its slot */
	while ((int32_t)(rs->srq_want - rs->next_recv_seq) > 0 && rs->rq_q.count < share &&
	       rs->rq_q.count + rs->rdone_q.count < rs->rq_q.size) {
		struct ordk_recv_wr wr;
		struct rc_rwqe r;

		if (!verbs_srq_take(srq, &wr)) {
			if (!rs->srq_starved)
				qp->vqp.st.srq_starved++;
			rs->srq_starved = true;
			return;
		}
		rs->srq_starved = false;
		qp->vqp.st.srq_lent++;
		if (rc_rwqe_make(qp, srq->pd, &wr, &r) != 0) {
			/* its MR went since the post: it fails here, on the QP it was lent to */
			struct ordk_wc wc = { .wr_id = wr.wr_id, .status = ORDK_WC_LOC_PROT_ERR,
					      .opcode = ORDK_WC_RECV, .qp_num = qp->vqp.qpn };

			qp->vqp.st.loc_prot_errors++;
			verbs_srq_consumed(srq);
			rc_recv_done(qp, &r, &wc);
			continue;
		}
		r.recv_seq = rs->next_recv_seq++;
		rs->rq[rc_fifo_push(&rs->rq_q)] = r;
	}
}

void
rc_srq_return(struct blue_qp *qp)
{
	struct rc_resp *rs = &qp->resp;

	if (qp->vqp.srq == NULL)
		return;
	if (qp->resp.srq_live) {
		qp->resp.srq_live = false;
		qp->vqp.srq->nlive--;
	}
	/* newest first, each to the pool's head: they keep their order there */
	for (uint32_t i = rs->rq_q.count; i-- > 0;) {
		struct rc_rwqe *r = &rs->rq[rc_fifo_at(&rs->rq_q, i)];
		struct ordk_recv_wr wr = { .wr_id = r->wr_id, .num_sge = r->len > 0,
					   .sge = { r->addr, r->len, r->lkey } };

		/* revoked before any new key of the same buffer: the card keeps the order */
		rc_key_orphan(blue_qp_dev(qp), &r->k);
		verbs_srq_give_back(qp->vqp.srq, &wr);
		qp->vqp.st.srq_returned++;
	}
	rc_fifo_clear(&rs->rq_q);
	rs->rq_advertised = 0;
}

void
rc_srq_last_wqe(struct blue_qp *qp)
{
	if (qp->vqp.srq != NULL)
		verbs_event_raise(qp->vqp.dev, ORDK_EVENT_QP_LAST_WQE_REACHED, blue_qp_handle(qp),
				  NULL);
}
