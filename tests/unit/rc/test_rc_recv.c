/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-RECV card keys (drivers/rdma/blue/rc/rc_recv.c, rc_key.c) on a command ring that
 * fills: a revocation never waits in the poll; it waits in its state
 * (RC_KEY_REVOKE) or in the engine's queue, and a later poll submits it. The
 * test includes the .c and stubs its neighbours: the command ring, the key
 * allocator, the CQ.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_recv.c"
#include "../../../drivers/rdma/blue/rc/rc_key.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

static unsigned int ring_room;	/* commands the ring takes before it is full */
static uint32_t next_seq, done_seq; /* commands [0, done_seq) are confirmed */
static unsigned int submits, cqes, frees;
static uint32_t revoked[16], freed[16]; /* keys revoked, freed, in order */
static uint64_t cqe_ids[16];

int64_t
blue_cmd_submit(struct blue_hw *dev, const struct blue_cmd *cmd)
{
	(void)dev;
	cr_assert_eq(cmd->hdr.opcode, BLUE_CMD_UPDATE_MR_TABLE);
	submits++;
	if (ring_room == 0)
		return -EAGAIN;
	ring_room--;
	if (cmd->mr.mr_length == 0) {
		cr_assert_lt(next_seq, 16);
		revoked[next_seq] = cmd->mr.mr_key;
	}
	return next_seq++;
}

bool
blue_cmd_done(const struct blue_hw *dev, uint32_t seq, bool *ok)
{
	(void)dev;
	if (ok != NULL)
		*ok = true;
	return seq < done_seq;
}

/*
 * blue_cmd_kick(): hardware's (unit_runs false) does nothing; a model's runs
 * its command unit, which answers everything submitted so far.
 */
static bool unit_runs;
static unsigned int kicks;

bool
blue_cmd_kick(struct blue_hw *dev)
{
	(void)dev;
	if (!unit_runs)
		return false;
	kicks++;
	done_seq = next_seq;
	return true;
}

RC_STUB(mem_keys_alloc);
RC_STUB(verbs_srq_take);
RC_STUB(verbs_srq_give_back);
RC_STUB(verbs_srq_consumed);
RC_STUB(rc_rwqe_make);
RC_STUB(verbs_event_raise);

int
mem_keys_free(struct mem_keys *k, uint32_t key)
{
	(void)k;
	cr_assert_lt(frees, 16);
	freed[frees++] = key;
	return 0;
}

void
verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc)
{
	(void)cq;
	cr_assert_lt(cqes, 16);
	cqe_ids[cqes++] = wc->wr_id;
}

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_rwqe rq[8];
static struct rc_rdone rdone[8];

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(rq, 0, sizeof(rq));
	memset(rdone, 0, sizeof(rdone));
	ring_room = 100;
	next_seq = done_seq = 0;
	submits = cqes = frees = kicks = 0;
	unit_runs = false;
	rc_fifo_init(&dev.rc.revoke_q, BLUE_MAX_MR);
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.resp.rq = rq;
	qp.resp.rdone = rdone;
	rc_fifo_init(&qp.resp.rq_q, 8);
	rc_fifo_init(&qp.resp.rdone_q, 8);
	/* four RECVs posted, each with its key on the card */
	for (uint32_t i = 0; i < 4; i++) {
		rq[rc_fifo_push(&qp.resp.rq_q)] = (struct rc_rwqe){
			.wr_id = 10 + i, .addr = 0x10000 + i * 0x1000, .len = 0x1000,
			.k = { .key = 0x200 + i, .state = RC_KEY_READY } };
	}
}

TestSuite(rc_recv, .init = setup);

/* The oldest posted RECV completes (what recv_cqe() does). */
static void
complete_oldest(void)
{
	struct rc_rwqe *r = &rq[qp.resp.rq_q.head];
	struct ordk_wc wc = { .wr_id = r->wr_id, .status = ORDK_WC_SUCCESS };

	rc_recv_done(&qp, r, &wc);
	rc_fifo_pop(&qp.resp.rq_q);
}

/* ------------------------------------------------------------ completions */

Test(rc_recv, a_completion_waits_for_its_revocation)
{
	complete_oldest();
	cr_assert_eq(submits, 1);
	cr_assert_eq(revoked[0], 0x200);
	cr_assert_eq(freed[0], 0x200, "the key is free once its revocation went");
	cr_assert_eq(cqes, 0, "not before the card confirmed");
	cr_assert_eq(rc_recv_retire(&qp, false), RC_MORE);
	done_seq = 1;
	cr_assert_eq(rc_recv_retire(&qp, false), RC_DONE);
	cr_assert_eq(cqes, 1);
	cr_assert_eq(cqe_ids[0], 10);
}

Test(rc_recv, a_model_confirms_the_revocation_within_the_poll_that_waits_for_it)
{
	unit_runs = true;
	complete_oldest();
	cr_assert_eq(kicks, 0, "the revocation is submitted; nothing waits for it yet");
	cr_assert_eq(cqes, 0);
	cr_assert_eq(rc_recv_retire(&qp, false), RC_DONE, "the wait ran the model's command unit");
	cr_assert_eq(kicks, 1);
	cr_assert_eq(cqes, 1);
	cr_assert_eq(cqe_ids[0], 10);
}

Test(rc_recv, a_key_is_confirmed_once_asked_for_again_not_when_made)
{
	struct rc_rwqe *r = &rq[qp.resp.rq_q.head];
	struct ordk_pd pd = { .handle = 1 };

	unit_runs = true;
	qp.vqp.pd = &pd;
	r->k.state = RC_KEY_NONE;
	cr_assert_not(rc_recv_key_ready(&qp, r), "made: not waited for in the same call");
	cr_assert_eq(r->k.state, RC_KEY_PENDING);
	cr_assert_eq(kicks, 0, "keys made in a batch are not kicked one by one");
	cr_assert(rc_recv_key_ready(&qp, r), "asked again: the model's unit answered it");
	cr_assert_eq(kicks, 1);
	cr_assert_eq(r->k.state, RC_KEY_READY);
}

Test(rc_recv, a_full_command_ring_does_not_hold_the_poll)
{
	ring_room = 0;
	complete_oldest();
	cr_assert_eq(submits, 1, "one try, no wait for room");
	cr_assert_eq(frees, 0, "the key stays allocated until its revocation went");
	cr_assert_eq(rdone[0].r.k.state, RC_KEY_REVOKE);
	/* a later poll, still full: one more try, and it returns */
	cr_assert_eq(rc_recv_retire(&qp, false), RC_MORE);
	cr_assert_eq(submits, 2);
	cr_assert_eq(cqes, 0);
	/* room: submitted, then confirmed, then reported */
	ring_room = 1;
	cr_assert_eq(rc_recv_retire(&qp, false), RC_MORE);
	cr_assert_eq(rdone[0].r.k.state, RC_KEY_REVOKING);
	cr_assert_eq(freed[0], 0x200);
	cr_assert_eq(cqes, 0, "submitted, not confirmed");
	done_seq = 1;
	cr_assert_eq(rc_recv_retire(&qp, false), RC_DONE);
	cr_assert_eq(cqes, 1);
}

Test(rc_recv, completions_stay_in_order_behind_a_waiting_revocation)
{
	ring_room = 0;
	complete_oldest();			/* 10: waits for room */
	rq[qp.resp.rq_q.head].k.state = RC_KEY_NONE; /* 11: no buffer, no key */
	rq[qp.resp.rq_q.head].len = 0;
	complete_oldest();
	cr_assert_eq(cqes, 0, "11 waits behind 10");
	ring_room = 1;
	cr_assert_eq(rc_recv_retire(&qp, false), RC_MORE); /* 10 submitted, not confirmed */
	cr_assert_eq(cqes, 0);
	done_seq = 1;
	cr_assert_eq(rc_recv_retire(&qp, false), RC_DONE);
	cr_assert_eq(cqes, 2);
	cr_assert_eq(cqe_ids[0], 10);
	cr_assert_eq(cqe_ids[1], 11);
}

/* ------------------------------------------------------------ RECVs gone */

Test(rc_recv, revocations_of_recvs_gone_wait_in_the_engine)
{
	ring_room = 0;
	complete_oldest();
	/* the QP leaves RTS: the completion is reported, every key goes to the engine */
	rc_recv_keys_release(&qp, true);
	cr_assert_eq(cqes, 1, "reported: the QP's context is invalid already");
	cr_assert_eq(qp.resp.rdone_q.count, 0);
	cr_assert_eq(dev.rc.revoke_q.count, 4, "the completed RECV's and the three posted");
	cr_assert_eq(frees, 0);
	for (uint32_t i = 1; i < 4; i++)
		cr_assert_eq(rq[i].k.state, RC_KEY_NONE);
	/* the engine's turns: nothing while full, then in order as room comes */
	rc_key_revoke_run(&dev);
	cr_assert_eq(dev.rc.revoke_q.count, 4);
	ring_room = 3;
	rc_key_revoke_run(&dev);
	cr_assert_eq(dev.rc.revoke_q.count, 1);
	cr_assert_eq(frees, 3);
	ring_room = 1;
	rc_key_revoke_run(&dev);
	cr_assert_eq(dev.rc.revoke_q.count, 0);
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_eq(revoked[i], 0x200 + i, "revocation %u", i);
		cr_assert_eq(freed[i], 0x200 + i);
	}
}

Test(rc_recv, with_room_a_release_revokes_at_once)
{
	rc_recv_keys_release(&qp, false);
	cr_assert_eq(dev.rc.revoke_q.count, 0);
	cr_assert_eq(frees, 4);
	cr_assert_eq(submits, 4);
}
