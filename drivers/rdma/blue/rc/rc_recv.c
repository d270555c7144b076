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
 * Commands are pipelined (blue_cmd_submit): creating a key delays the RECV's
 * advert by one command round trip, revoking one delays its completion by
 * one. The card executes commands in order, so a slot is reused only after
 * its revocation (and a reused slot always gets another key part). Nothing
 * here waits for the card: a revocation that finds the command ring full
 * waits in RC_KEY_REVOKE for a later poll, beside its completion (rdone), or
 * when its RECV is gone (flushed, reset, destroyed), in the engine's queue
 * (rc_recv_revoke_run()). A key is freed only once its revocation went.
 */
#include <errno.h>

#include "blue_verbs.h"

static struct blue_cmd
key_cmd(const struct blue_qp *qp, const struct rc_rwqe *r)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };

	c.mr = (struct blue_cmd_update_mr_table){
		.mr_base_va = r->addr, .mr_length = r->len, .mr_key = r->key,
		.pd_handle = qp->vqp.pd->handle, .acc_flags = BLUE_ACC_LOCAL_WRITE,
		.pgt_offset = r->pgt_offset };
	return c;
}

/* Submit the revocation of @p key (length 0 invalidates the entry). @return its seq,
 * -EAGAIN while the command ring is full (the key stays allocated), or < 0. */
static int64_t
revoke_submit(struct blue_dev *dev, uint32_t key)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };
	int64_t seq;

	c.mr.mr_key = key;
	seq = blue_cmd_submit(&dev->hw, &c);
	if (seq == -EAGAIN)
		return seq;
	if (seq < 0)
		RC_LOG(ERR, "the card did not take the revocation of RECV key 0x%x", key);
	mem_keys_free(&dev->mr_keys, key);
	return seq;
}

/* A key whose RECV is gone: revoked now, or by a later poll while the ring is full. */
static void
revoke_orphan(struct blue_dev *dev, uint32_t key)
{
	struct rc_engine *e = &dev->rc;

	if (e->revoke_q.count == 0 && revoke_submit(dev, key) != -EAGAIN)
		return;
	if (e->revoke_q.count == e->revoke_q.size) {
		/* cannot happen: each of the BLUE_MAX_MR keys waits in one place at most */
		RC_LOG(ERR, "RECV key 0x%x: no room to queue its revocation: the key is kept", key);
		return;
	}
	e->revoke_keys[rc_fifo_push(&e->revoke_q)] = key;
}

void
rc_recv_revoke_run(struct blue_dev *dev)
{
	struct rc_engine *e = &dev->rc;

	while (e->revoke_q.count > 0 &&
	       revoke_submit(dev, e->revoke_keys[e->revoke_q.head]) != -EAGAIN)
		rc_fifo_pop(&e->revoke_q);
}

/*
 * Make sure @p r has a key the card knows. @return true when it has (or needs
 * none: a RECV without a buffer), false while it must wait.
 */
bool
rc_recv_key_ready(struct blue_qp *qp, struct rc_rwqe *r)
{
	struct blue_dev *dev = blue_qp_dev(qp);

	if (r->len == 0 || r->kstate == RC_KEY_READY)
		return true;
	if (r->kstate == RC_KEY_NONE) {
		struct blue_cmd c;
		int64_t key = mem_keys_alloc(&dev->mr_keys), seq;

		if (key < 0) {
			qp->vqp.st.recv_keys_short++; /* every MR-table slot in use: the advert waits */
			return false;
		}
		r->key = (uint32_t)key;
		c = key_cmd(qp, r);
		seq = blue_cmd_submit(&dev->hw, &c);
		if (seq < 0) {
			mem_keys_free(&dev->mr_keys, r->key);
			return false; /* the command ring is full: next poll */
		}
		r->key_seq = (uint32_t)seq;
		r->kstate = RC_KEY_PENDING;
	}
	if (!blue_cmd_done(&dev->hw, r->key_seq, NULL))
		return false;
	r->kstate = RC_KEY_READY;
	return true;
}

/*
 * A completed RECV's revocation (RC_KEY_REVOKE): submitted when the ring has
 * room. @return false while it waits for room.
 */
static bool
revoke_step(struct blue_qp *qp, struct rc_rwqe *r)
{
	int64_t seq;

	if (r->kstate != RC_KEY_REVOKE)
		return true;
	seq = revoke_submit(blue_qp_dev(qp), r->key);
	if (seq == -EAGAIN)
		return false;
	r->kstate = seq < 0 ? RC_KEY_NONE : RC_KEY_REVOKING;
	r->key_seq = (uint32_t)seq;
	return true;
}

/* A RECV completed: its key is revoked, and its completion waits for that. */
void
rc_recv_done(struct blue_qp *qp, struct rc_rwqe *r, const struct ordk_wc *wc)
{
	struct rc_rdone *d;

	if (r->kstate == RC_KEY_NONE && qp->resp.rdone_q.count == 0) {
		verbs_cq_push(qp->vqp.rcq, wc);
		return;
	}
	d = &qp->resp.rdone[rc_fifo_push(&qp->resp.rdone_q)];
	*d = (struct rc_rdone){ .wc = *wc, .r = *r };
	if (r->kstate != RC_KEY_NONE) {
		d->r.kstate = RC_KEY_REVOKE;
		(void)revoke_step(qp, &d->r);
	}
	r->kstate = RC_KEY_NONE;
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

	for (uint32_t i = 0; i < rs->rdone_q.count; i++)
		if (!revoke_step(qp, &rs->rdone[rc_fifo_at(&rs->rdone_q, i)].r))
			break;
	while (rs->rdone_q.count > 0) {
		struct rc_rdone *d = &rs->rdone[rs->rdone_q.head];

		if (!force && (d->r.kstate == RC_KEY_REVOKE ||
			       (d->r.kstate == RC_KEY_REVOKING &&
				!blue_cmd_done(&blue_qp_dev(qp)->hw, d->r.key_seq, NULL))))
			return RC_MORE;
		if (d->r.kstate == RC_KEY_REVOKE)
			revoke_orphan(blue_qp_dev(qp), d->r.key);
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
	for (uint32_t i = 0; i < rs->rdone_q.count; i++) {
		const struct rc_rwqe *r = &rs->rdone[rc_fifo_at(&rs->rdone_q, i)].r;

		if (r->kstate == RC_KEY_REVOKE)
			revoke_orphan(blue_qp_dev(qp), r->key);
	}
	rc_fifo_clear(&rs->rdone_q);
	for (uint32_t i = 0; i < rs->rq_q.count; i++) {
		struct rc_rwqe *r = &rs->rq[rc_fifo_at(&rs->rq_q, i)];

		if (r->kstate != RC_KEY_NONE)
			revoke_orphan(blue_qp_dev(qp), r->key);
		r->kstate = RC_KEY_NONE;
	}
}
