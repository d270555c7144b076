/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport's own card keys (struct rc_key): an MR-table entry covering
 * exactly one buffer, for as long as one operation may be written there: a
 * RECV's buffer (rc_recv.c, SENDs land through it) and a READ's (rc_read.c,
 * its answer lands through it). The card checks a packet's key, the entry's
 * access and bounds and nothing else (no PSN, no QP, no PD:
 * doc/guides/drivers/blue_hw_interface.md section 5.1), so a key the peer
 * was given lends it the whole entry for as long as the entry lives: the
 * entry is made as small and as short-lived as the operation.
 *
 * Commands are pipelined (blue_cmd_submit()): nothing here waits for the
 * card. A key is created (PENDING) and used once confirmed (READY); when its
 * operation ends the revocation (UpdateMrTable length 0) waits for room on
 * the command ring (REVOKE), then for the card (REVOKING), and the owner
 * reports its completion only once the key is gone (rc_key_gone()). The card
 * executes commands in order, so a slot is reused only after its revocation
 * (and a reused slot always gets another key part: mem_keys.c). A key whose
 * owner went away (flushed, reset, destroyed) is revoked at once or, while
 * the ring is full, from the engine's queue (rc_key_revoke_run()). A key is
 * freed only once its revocation went.
 */
#include <errno.h>

#include "blue_verbs.h"

uint32_t
rc_key_pgt(const struct blue_mr *m, uint64_t addr)
{
	/* the key's entry translates through the user MR's PGT run */
	return m->pgt_start +
	       (uint32_t)((addr >> BLUE_PAGE_SHIFT) - ((uintptr_t)m->vmr.pub.addr >> BLUE_PAGE_SHIFT));
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
		RC_LOG(ERR, "the card did not take the revocation of key 0x%x", key);
	mem_keys_free(&dev->mr_keys, key);
	return seq;
}

/* A key whose owner is gone: revoked now, or by a later poll while the ring is full. */
static void
revoke_orphan(struct blue_dev *dev, uint32_t key)
{
	struct rc_engine *e = &dev->rc;

	if (e->revoke_q.count == 0 && revoke_submit(dev, key) != -EAGAIN)
		return;
	if (e->revoke_q.count == e->revoke_q.size) {
		/* cannot happen: each of the BLUE_MAX_MR keys waits in one place at most */
		RC_LOG(ERR, "key 0x%x: no room to queue its revocation: the key is kept", key);
		return;
	}
	e->revoke_keys[rc_fifo_push(&e->revoke_q)] = key;
}

void
rc_key_revoke_run(struct blue_dev *dev)
{
	struct rc_engine *e = &dev->rc;

	while (e->revoke_q.count > 0 &&
	       revoke_submit(dev, e->revoke_keys[e->revoke_q.head]) != -EAGAIN)
		rc_fifo_pop(&e->revoke_q);
}

/*
 * Has the card answered command @p seq? The owner waits for it (@p wait):
 * a model's command unit runs now (blue_cmd_kick()), so a key made or
 * revoked in this poll is confirmed in it, as a card's unit, running beside
 * the host, confirms it while the host goes on. (Not for a key just
 * submitted, which its owner does not wait for yet: a READ's key made
 * ahead is asked for again when its READ is next; one kick then takes every
 * command of the batch.)
 */
static bool
cmd_done(struct blue_dev *dev, uint32_t seq, bool wait)
{
	if (blue_cmd_done(&dev->hw, seq, NULL))
		return true;
	return wait && blue_cmd_kick(&dev->hw) && blue_cmd_done(&dev->hw, seq, NULL);
}

bool
rc_key_ready(struct blue_qp *qp, struct rc_key *k, uint64_t addr, uint32_t len, uint8_t acc,
	     uint64_t *short_count)
{
	struct blue_dev *dev = blue_qp_dev(qp);
	bool fresh = k->state == RC_KEY_NONE;

	if (k->state == RC_KEY_READY)
		return true;
	if (k->state == RC_KEY_NONE) {
		struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };
		int64_t key = mem_keys_alloc(&dev->mr_keys), seq;

		if (key < 0) {
			(*short_count)++; /* every MR-table slot in use: the owner waits */
			return false;
		}
		k->key = (uint32_t)key;
		c.mr = (struct blue_cmd_update_mr_table){
			.mr_base_va = addr, .mr_length = len, .mr_key = k->key,
			.pd_handle = qp->vqp.pd->handle, .acc_flags = acc, .pgt_offset = k->pgt_offset };
		seq = blue_cmd_submit(&dev->hw, &c);
		if (seq < 0) {
			mem_keys_free(&dev->mr_keys, k->key);
			return false; /* the command ring is full: next poll */
		}
		k->seq = (uint32_t)seq;
		k->state = RC_KEY_PENDING;
	}
	if (k->state != RC_KEY_PENDING || !cmd_done(dev, k->seq, !fresh))
		return false;
	k->state = RC_KEY_READY;
	return true;
}

bool
rc_key_revoke_step(struct blue_dev *dev, struct rc_key *k)
{
	int64_t seq;

	if (k->state != RC_KEY_REVOKE)
		return true;
	seq = revoke_submit(dev, k->key);
	if (seq == -EAGAIN)
		return false;
	k->state = seq < 0 ? RC_KEY_NONE : RC_KEY_REVOKING;
	k->seq = (uint32_t)seq;
	return true;
}

void
rc_key_revoke(struct blue_dev *dev, struct rc_key *k)
{
	/* a key still PENDING is revoked after its creation: the card keeps the order */
	if (k->state != RC_KEY_PENDING && k->state != RC_KEY_READY)
		return;
	k->state = RC_KEY_REVOKE;
	(void)rc_key_revoke_step(dev, k);
}

bool
rc_key_gone(struct blue_dev *dev, struct rc_key *k)
{
	if (k->state == RC_KEY_NONE)
		return true;
	if (k->state != RC_KEY_REVOKING || !cmd_done(dev, k->seq, true))
		return k->state == RC_KEY_NONE;
	k->state = RC_KEY_NONE;
	return true;
}

void
rc_key_orphan(struct blue_dev *dev, struct rc_key *k)
{
	/* REVOKING: the revocation went (the key was freed then) */
	if (k->state == RC_KEY_PENDING || k->state == RC_KEY_READY || k->state == RC_KEY_REVOKE)
		revoke_orphan(dev, k->key);
	k->state = RC_KEY_NONE;
}
