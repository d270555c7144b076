/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-RECV card keys: where SENDs may land.
 *
 * The card places a SEND packet into any MR-table entry with LOCAL_WRITE, at
 * any offset (HW-INTERFACE.md 5.1): it has no receive queue. So the user's
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
 * its revocation (and a reused slot always gets another key part).
 */
#include <errno.h>

#include <rte_cycles.h>

#include "verbs_internal.h"

/* Submit a command, waiting only while the command ring is full. @return its seq, or < 0. */
static int64_t
submit(struct ordk_dev *dev, const struct blue_cmd *c)
{
	uint64_t deadline = dev->rc.clock() + dev->hw.cmd_timeout_tsc;
	int64_t seq;

	while ((seq = blue_cmd_submit(&dev->hw, c)) == -EAGAIN && dev->rc.clock() < deadline) {
		blue_backend_poll(&dev->hw, 64);
		blue_cmd_poll(&dev->hw);
	}
	return seq;
}

static struct blue_cmd
key_cmd(const struct ordk_qp *qp, const struct rc_rwqe *r, bool valid)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };

	c.mr = (struct blue_cmd_update_mr_table){
		.mr_base_va = r->addr, .mr_length = valid ? r->len : 0, .mr_key = r->key,
		.pd_handle = qp->pd->handle, .acc_flags = BLUE_ACC_LOCAL_WRITE,
		.pgt_offset = r->pgt_offset };
	return c;
}

/*
 * Make sure @p r has a key the card knows. @return true when it has (or needs
 * none: a RECV without a buffer), false while it must wait.
 */
bool
rc_recv_key_ready(struct ordk_qp *qp, struct rc_rwqe *r)
{
	struct ordk_dev *dev = qp->dev;

	if (r->len == 0 || r->kstate == RC_KEY_READY)
		return true;
	if (r->kstate == RC_KEY_NONE) {
		struct blue_cmd c;
		int64_t key = mem_keys_alloc(&dev->mr_keys), seq;

		if (key < 0) {
			qp->st.recv_keys_short++; /* every MR-table slot in use: the advert waits */
			dev->st.recv_keys_short++;
			return false;
		}
		r->key = (uint32_t)key;
		c = key_cmd(qp, r, true);
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

/* Revoke @p r's key. @return the command's seq, or -1 when it had none. */
static int64_t
key_revoke(struct ordk_qp *qp, struct rc_rwqe *r)
{
	struct blue_cmd c;
	int64_t seq;

	if (r->kstate == RC_KEY_NONE)
		return -1;
	c = key_cmd(qp, r, false);
	seq = submit(qp->dev, &c);
	if (seq < 0)
		RC_LOG(ERR, "qp 0x%06x: the card did not take the revocation of RECV key 0x%x (%s)",
		       qp->qpn, r->key, rc_state_name(RC_SM_KEY, r->kstate));
	mem_keys_free(&qp->dev->mr_keys, r->key);
	r->kstate = RC_KEY_NONE;
	return seq;
}

/* A RECV completed: its key is revoked, and its completion waits for that. */
void
rc_recv_done(struct ordk_qp *qp, struct rc_rwqe *r, const struct ordk_wc *wc)
{
	int64_t seq = key_revoke(qp, r);
	struct rc_rdone *d;

	if (seq < 0 && qp->resp.rdone_q.count == 0) {
		verbs_cq_push(qp->rcq, wc);
		return;
	}
	d = &qp->resp.rdone[rc_fifo_push(&qp->resp.rdone_q)];
	*d = (struct rc_rdone){ .wc = *wc, .seq = seq < 0 ? 0 : (uint32_t)seq, .wait = seq >= 0 };
}

/*
 * Report the completions whose keys the card no longer knows, in order;
 * @p force: all of them (the QP's context on the card is invalid already).
 * @return RC_MORE while some still wait.
 */
enum rc_step
rc_recv_retire(struct ordk_qp *qp, bool force)
{
	while (qp->resp.rdone_q.count > 0) {
		struct rc_rdone *d = &qp->resp.rdone[qp->resp.rdone_q.head];

		if (!force && d->wait && !blue_cmd_done(&qp->dev->hw, d->seq, NULL))
			return RC_MORE;
		verbs_cq_push(qp->rcq, &d->wc);
		rc_fifo_pop(&qp->resp.rdone_q);
	}
	return RC_DONE;
}

/*
 * The QP leaves RTR/RTS (or goes away): completions that waited are reported
 * (@p push) or dropped, and every posted RECV's key is revoked.
 */
void
rc_recv_keys_release(struct ordk_qp *qp, bool push)
{
	if (push)
		rc_recv_retire(qp, true);
	rc_fifo_clear(&qp->resp.rdone_q);
	for (uint32_t i = 0; i < qp->resp.rq_q.count; i++)
		key_revoke(qp, &qp->resp.rq[rc_fifo_at(&qp->resp.rq_q, i)]);
}
