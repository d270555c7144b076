/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software atomics (rc/rc_atomic.c) alone, several in flight: the
 * responder executes them in id order, each once the PSNs before it
 * arrived, answers a resent request from its saved result, holds early
 * ones and ignores what is outside its window; the requester matches the
 * answers, in any order, to its outstanding atomics. The rest is stubbed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_atomic.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

static int mr_rc;
static struct blue_ctrl_msg sent[64];
static unsigned int nsent, acks;
static uint32_t acked_to;

int
rc_mr_check(const struct blue_qp *qp, uint32_t key, uint64_t addr, uint64_t len,
	    unsigned int access)
{
	(void)qp;
	(void)key;
	(void)addr;
	cr_assert_eq(len, 8);
	cr_assert_eq(access, ORDK_ACCESS_REMOTE_ATOMIC);
	return mr_rc;
}

/* lib/verbs' CPU atomics, on the test's own word */
int
verbs_mr_atomic(uint64_t *p, bool cas, uint64_t compare_add, uint64_t swap, uint64_t *orig)
{
	*orig = *p;
	if (!cas)
		*p += compare_add;
	else if (*p == compare_add)
		*p = swap;
	return 0;
}

RC_STUB(rc_ctrl_msg);

bool
rc_send_ctrl(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	(void)qp;
	cr_assert_lt(nsent, RTE_DIM(sent));
	sent[nsent++] = *m;
	return true;
}

void
rc_comp_acked(struct blue_qp *qp, uint32_t psn)
{
	(void)qp;
	acked_to = psn;
	acks++;
}

RC_STUB(rc_activate);
RC_STUB(rc_timer_arm);
RC_STUB(rc_complete_sends);
RC_STUB(rc_wqe_to);

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_wqe sq[16];
static uint64_t word, results[16];
#define E0 (BLUE_PSN_MASK - 1u) /* the responder's PSNs cross the 2^24 wrap */

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sq, 0, sizeof(sq));
	memset(results, 0, sizeof(results));
	mr_rc = 0;
	nsent = acks = acked_to = 0;
	ut_rc_complete_sends_calls = 0;
	word = 0;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.vqp.attr.qp_access_flags = ORDK_ACCESS_REMOTE_ATOMIC;
	qp.req.sq = sq;
	qp.req.sq_size = 16;
	qp.req.sq_mask = 15;
	rc_fifo_init(&qp.req.at_q, ORDK_MAX_RD_ATOMIC);
	qp.resp.epsn = E0;
}

TestSuite(rc_atomic, .init = setup);

/* The peer's request @p id: CMP_AND_SWP @p cmp -> @p swap (or FETCH_AND_ADD @p cmp), after @p psn. */
static void
request(uint32_t id, bool cas, uint64_t cmp, uint64_t swap, uint32_t psn)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_ATOMIC_REQ };

	m.atomic_req = (typeof(m.atomic_req)){
		.req_id = id, .op = cas ? BLUE_CTRL_ATOMIC_CMP_AND_SWP : BLUE_CTRL_ATOMIC_FETCH_AND_ADD,
		.raddr = (uint64_t)(uintptr_t)&word, .rkey = 0x105, .psn = psn,
		.compare_add = cmp, .swap = swap };
	rc_atomic_rx_req(&qp, &m);
}

/* A CAS chain: request k swaps k for k + 1, so only in-order execution gets through. */
static void
chain(uint32_t id)
{
	request(id, true, id, id + 1, E0);
}

static void
assert_answer(unsigned int i, uint32_t id, uint8_t status, uint64_t orig)
{
	cr_assert_lt(i, nsent, "answer %u sent", i);
	cr_assert_eq(sent[i].type, BLUE_CTRL_ATOMIC_RESP);
	cr_assert_eq(sent[i].atomic_resp.req_id, id, "answer %u: id %u, not %u", i, id,
		     sent[i].atomic_resp.req_id);
	cr_assert_eq(sent[i].atomic_resp.status, status);
	cr_assert_eq(sent[i].atomic_resp.orig, orig, "answer %u: orig %lu", i,
		     (unsigned long)sent[i].atomic_resp.orig);
}

/* ------------------------------------------------------------ responder */

Test(rc_atomic, several_in_flight_execute_in_id_order)
{
	/* the wire reorders: 2, 0, 3, 1 */
	chain(2);
	cr_assert_eq(nsent, 0, "id 2 waits for 0 and 1");
	chain(0);
	chain(3);
	chain(1);
	cr_assert_eq(word, 4, "the chain went through: every CAS in order, once");
	cr_assert_eq(nsent, 4);
	for (unsigned int i = 0; i < 4; i++)
		assert_answer(i, i, BLUE_CTRL_ATOMIC_OK, i);
	cr_assert_eq(qp.vqp.st.atomics_executed, 4);
	cr_assert_eq(qp.vqp.st.atomics_held, 2, "ids 2 and 3 came early");
	cr_assert_eq(qp.resp.atomic_expect, 4);
	cr_assert_eq(qp.resp.atomic_nheld, 0);
}

Test(rc_atomic, a_resent_request_gets_the_saved_result)
{
	for (uint32_t i = 0; i < 4; i++)
		request(i, false, 10, 0, E0);
	cr_assert_eq(word, 40);
	nsent = 0;
	/* the answers to 1, 3 and 0 were lost: the requester asks again */
	request(1, false, 10, 0, E0);
	request(3, false, 10, 0, E0);
	request(0, false, 10, 0, E0);
	cr_assert_eq(word, 40, "never executed twice");
	assert_answer(0, 1, BLUE_CTRL_ATOMIC_OK, 10);
	assert_answer(1, 3, BLUE_CTRL_ATOMIC_OK, 30);
	assert_answer(2, 0, BLUE_CTRL_ATOMIC_OK, 0);
	cr_assert_eq(qp.vqp.st.atomics_replayed, 3);
	cr_assert_eq(qp.vqp.st.atomics_executed, 4);
}

Test(rc_atomic, a_copy_of_a_held_request_is_held_once)
{
	chain(0);
	chain(2); /* 1 lost */
	chain(2); /* and 2 resent */
	cr_assert_eq(qp.vqp.st.duplicates, 1);
	cr_assert_eq(qp.resp.atomic_nheld, 1);
	chain(1);
	cr_assert_eq(word, 3);
	cr_assert_eq(nsent, 3, "one answer each");
	assert_answer(2, 2, BLUE_CTRL_ATOMIC_OK, 2);
	cr_assert_eq(qp.vqp.st.atomics_executed, 3);
}

Test(rc_atomic, waits_for_the_psns_before_it)
{
	/* a WRITE at E0 and E0 + 1 (across the wrap) was posted before the atomic */
	request(0, false, 5, 0, blue_psn_add(E0, 2));
	cr_assert_eq(nsent, 0, "the WRITE has not arrived");
	cr_assert_eq(qp.vqp.st.atomics_held, 1);
	request(1, false, 7, 0, blue_psn_add(E0, 2)); /* the next one waits behind it */
	qp.resp.epsn = blue_psn_add(E0, 1);
	rc_atomic_progress(&qp);
	cr_assert_eq(nsent, 0);
	qp.resp.epsn = blue_psn_add(E0, 2);
	rc_atomic_progress(&qp);
	cr_assert_eq(word, 12);
	cr_assert_eq(nsent, 2);
	assert_answer(0, 0, BLUE_CTRL_ATOMIC_OK, 0);
	assert_answer(1, 1, BLUE_CTRL_ATOMIC_OK, 5);
}

Test(rc_atomic, outside_the_window_is_ignored)
{
	chain(0);
	chain(1 + ORDK_MAX_RD_ATOMIC); /* beyond the most a requester has in flight */
	chain(0xFFFFFFF0u);	       /* before the cache: stale or forged */
	request(1, true, 1, 2, blue_psn_add(E0, ORDK_RECV_WINDOW + 1)); /* after a PSN never sent */
	cr_assert_eq(qp.vqp.st.atomics_ignored, 3);
	cr_assert_eq(qp.resp.atomic_nheld, 0, "none held");
	cr_assert_eq(qp.resp.atomic_expect, 1, "none adopted");
	chain(1);
	cr_assert_eq(word, 2, "the legitimate ones still go through");
}

Test(rc_atomic, nothing_executes_after_a_refusal)
{
	chain(0);
	chain(2);
	mr_rc = -EPERM; /* id 1's key is bad */
	chain(1);
	mr_rc = 0;
	assert_answer(1, 1, BLUE_CTRL_ATOMIC_REM_ACCESS_ERR, 0);
	cr_assert_eq(nsent, 2, "the held id 2 does not run: the requester's QP fails");
	chain(3);
	cr_assert_eq(word, 1);
	cr_assert_eq(qp.vqp.st.atomics_rejected, 1);
	cr_assert_eq(qp.vqp.st.atomics_ignored, 1);
	/* a resend of the refused one still gets its answer */
	chain(1);
	assert_answer(2, 1, BLUE_CTRL_ATOMIC_REM_ACCESS_ERR, 0);
}

/* ------------------------------------------------------------ requester */

/* Atomic @p i of the send queue, outstanding with id 100 + i after PSN 0x40 + i. */
static struct rc_wqe *
outstanding(uint32_t i)
{
	struct rc_wqe *w = &sq[i];

	*w = (struct rc_wqe){ .opcode = BLUE_WR_ATOMIC_FETCH_AND_ADD, .state = RC_WQE_SENT,
			      .atomic_id = 100 + i, .psn = 0x40 + i, .compare_add = 1,
			      .laddr = (uint64_t)(uintptr_t)&results[i], .signaled = 1 };
	qp.req.atomics[rc_fifo_push(&qp.req.at_q)] = i;
	qp.req.sq_next = qp.req.sq_tail = i + 1;
	return w;
}

static void
answer_of(uint32_t id, uint8_t status, uint64_t orig)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_ATOMIC_RESP };

	m.atomic_resp.req_id = id;
	m.atomic_resp.status = status;
	m.atomic_resp.orig = orig;
	rc_atomic_rx_resp(&qp, &m);
}

Test(rc_atomic, answers_in_any_order_find_their_wr)
{
	for (uint32_t i = 0; i < 3; i++)
		outstanding(i);
	answer_of(102, BLUE_CTRL_ATOMIC_OK, 72);
	cr_assert_eq(sq[2].state, RC_WQE_DONE);
	cr_assert_eq(sq[0].state, RC_WQE_SENT);
	cr_assert_eq(results[2], 72, "the original value in that WR's buffer");
	cr_assert_eq(acked_to, 0x42, "the PSNs before it arrived: acknowledged");
	cr_assert_eq(qp.req.at_q.count, 3, "the span from the oldest unanswered one");
	answer_of(100, BLUE_CTRL_ATOMIC_OK, 70);
	cr_assert_eq(qp.req.at_q.count, 2, "the answered front leaves");
	answer_of(100, BLUE_CTRL_ATOMIC_OK, 70); /* the wire repeated it */
	answer_of(102, BLUE_CTRL_ATOMIC_OK, 72); /* and that one */
	cr_assert_eq(qp.vqp.st.duplicates, 2);
	answer_of(101, BLUE_CTRL_ATOMIC_OK, 71);
	for (uint32_t i = 0; i < 3; i++) {
		cr_assert_eq(sq[i].state, RC_WQE_DONE);
		cr_assert_eq(results[i], 70 + i);
	}
	cr_assert_eq(qp.req.at_q.count, 0);
	cr_assert_eq(ut_rc_complete_sends_calls, 3, "each answer completes what it may, in order");
}

Test(rc_atomic, a_refusal_fails_that_wr_in_order)
{
	outstanding(0);
	outstanding(1);
	answer_of(101, BLUE_CTRL_ATOMIC_REM_INV_REQ, 0);
	cr_assert_eq(sq[1].state, RC_WQE_ERROR);
	cr_assert_eq(sq[1].status, ORDK_WC_REM_INV_REQ_ERR);
	cr_assert(sq[1].flags & RC_WQE_FATAL, "the QP fails once it completes");
	cr_assert_eq(sq[0].state, RC_WQE_SENT, "the earlier one still waits for its answer");
	cr_assert_eq(acks, 0, "a refusal acknowledges nothing");
}

Test(rc_atomic, the_timer_resends_every_outstanding_request)
{
	for (uint32_t i = 0; i < 3; i++)
		outstanding(i);
	answer_of(101, BLUE_CTRL_ATOMIC_OK, 1);
	nsent = 0;
	rc_atomic_resend(&qp);
	cr_assert_eq(nsent, 2, "the unanswered ones");
	cr_assert_eq(sent[0].atomic_req.req_id, 100);
	cr_assert_eq(sent[0].atomic_req.psn, 0x40);
	cr_assert_eq(sent[1].atomic_req.req_id, 102);
	cr_assert_eq(sent[1].atomic_req.op, BLUE_CTRL_ATOMIC_FETCH_AND_ADD);
}

/*
 * The answer to the oldest atomic is lost and the later ones' come: the
 * oldest still holds its place, so no new atomic starts beyond the span the
 * responder's window and replay cache cover (ib_atomic_bw at 1% loss: 87
 * more went, the responder's cache forgot the answer, the resends were
 * ignored until RETRY_EXC_ERR). It is asked again at once, once.
 */
Test(rc_atomic, a_lost_answer_keeps_its_place_and_is_asked_again)
{
	for (uint32_t i = 0; i < ORDK_MAX_RD_ATOMIC; i++)
		outstanding(i);
	for (uint32_t i = 1; i < ORDK_MAX_RD_ATOMIC; i++)
		answer_of(100 + i, BLUE_CTRL_ATOMIC_OK, i);
	cr_assert_eq(qp.req.at_q.count, ORDK_MAX_RD_ATOMIC,
		     "ids 100..115 still span the window: nothing more may start");
	cr_assert_eq(nsent, 1, "100 asked again once, not once per later answer");
	cr_assert_eq(sent[0].atomic_req.req_id, 100);
	cr_assert_eq(qp.vqp.st.atomics_resent, 1);
	cr_assert_eq(acks, ORDK_MAX_RD_ATOMIC - 1);
	answer_of(100, BLUE_CTRL_ATOMIC_OK, 0);
	cr_assert_eq(qp.req.at_q.count, 0);
	for (uint32_t i = 0; i < ORDK_MAX_RD_ATOMIC; i++)
		cr_assert_eq(sq[i].state, RC_WQE_DONE);
}
