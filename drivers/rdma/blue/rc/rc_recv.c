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
