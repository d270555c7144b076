/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The completer (drivers/rdma/blue/rc/rc_comp.c) after our too long SEND:
 * once the peer took its announcement, READs before it that no answer will
 * complete end with WR_FLUSH_ERR after the card invalidated the QP's
 * context, and the SEND fails the QP. The completer waits for the card in
 * RC_COMP_SETTLE, reaped by later polls, never in the poll. The test
 * includes rc_comp.c with rc_qp.c (the error transition that reuses the
 * command) and stubs their neighbours: the command queue, the CQ, the wheel;
 * and that the timer runs in polling time.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_comp.c"
#include "../../../drivers/rdma/blue/rc/rc_qp.c"
#include "../../../drivers/rdma/blue/rc/rc_track.c"

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

RC_STUB(rc_sgl_check);
RC_STUB(verbs_trace_add);
RC_STUB(rc_key_revoke);
RC_STUB(rc_key_gone);
RC_STUB(rc_key_revoke_step);
RC_STUB(rc_key_pgt);
RC_STUB(rc_read_keys_revoke_all);
RC_STUB(rc_read_keys_wait);
RC_STUB(rc_read_keys_release);
RC_STUB(blue_cmd_manage_qp);
RC_STUB(verbs_cq_push);
RC_STUB(verbs_event_raise);
RC_STUB(blue_mr_lookup);
RC_STUB(ordk_wc_status_str);
RC_STUB(rc_state_name);
RC_STUB(rc_recv_retire);
RC_STUB(rc_srq_join);
RC_STUB(rc_srq_return);
RC_STUB(rc_srq_last_wqe);
RC_STUB(rc_recv_keys_release);
RC_STUB(rc_timer_set);
RC_STUB(rc_activate);
RC_STUB(rc_retransmit_card);
RC_STUB(rc_retransmit);
RC_STUB(rc_rtx_unfetched);
RC_STUB(rc_atomic_send);
RC_STUB(rc_atomic_resend);
RC_STUB(rc_probe);

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_wqe sq[8];
static uint32_t reads[8];

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sq, 0, sizeof(sq));
	memset(cqe, 0, sizeof(cqe));
	ncqe = submits = ut_verbs_event_raise_calls = ut_rc_probe_calls = 0;
	submit_rc = 42;
	cmd_done = cmd_ok = false;
	dev.rc.ptime = 100000;
	dev.rc.tsc_hz = 1000000000;
	dev.hw.cmd_timeout_tsc = 5000;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.qpn = 0x000101;
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.vqp.attr.retry_cnt = 7;
	qp.comp.timeout_tsc = 1000;
	qp.req.sq = sq;
	qp.req.sq_size = 8;
	qp.req.sq_mask = 7;
	qp.req.reads = reads;
	rc_fifo_init(&qp.req.rd_q, 8);
	/*
	 * A READ (PSN 10, its answer never came), our too long SEND's
	 * announcement (PSN 11, acknowledged: the peer took it and is in ERR),
	 * and a WRITE not sent yet.
	 */
	sq[0] = (struct rc_wqe){ .wr_id = 1, .opcode = BLUE_WR_RDMA_READ, .signaled = 1,
				 .psn = 10, .npkts = 1, .len = 64, .state = RC_WQE_SENT };
	sq[1] = (struct rc_wqe){ .wr_id = 2, .opcode = BLUE_WR_SEND, .signaled = 1,
				 .flags = RC_WQE_LEN_ERR, .psn = 11, .npkts = 1, .state = RC_WQE_SENT };
	sq[2] = (struct rc_wqe){ .wr_id = 3, .opcode = BLUE_WR_RDMA_WRITE, .signaled = 1 };
	qp.req.sq_next = 2;
	qp.req.sq_tail = qp.req.sq_user = 3;
	reads[rc_fifo_push(&qp.req.rd_q)] = 0;
	qp.req.next_psn = qp.req.pushed_psn = 12;
	qp.comp.acked_psn = 12;
	qp.req.state = RC_REQ_LEN_ERR;
	qp.comp.rtx_deadline = dev.rc.ptime;
	qp.comp.state = RC_COMP_WAIT_ACK;
}

TestSuite(rc_comp, .init = setup);

/* ------------------------------------------------------------ settle */

Test(rc_comp, the_timeout_after_a_length_error_does_not_wait_for_the_card)
{
	rc_timer_check(&qp, dev.rc.ptime);
	cr_assert_eq(qp.comp.state, RC_COMP_SETTLE);
	cr_assert_eq(submits, 1, "ManageQp (error) submitted");
	cr_assert_eq(ncqe, 0, "nothing completes before the card confirmed");
	cr_assert_eq(ut_rc_probe_calls, 0, "no timeout counted: the peer is in ERR");
	cr_assert_eq(qp.comp.rtx_deadline, 0);
	cr_assert(qp.sched.on_active, "the engine reaps it");
	/* later polls: the card has not answered */
	for (int i = 0; i < 3; i++) {
		dev.rc.ptime += 100;
		cr_assert_eq(rc_len_err_reap(&qp), RC_MORE);
	}
	cr_assert_eq(ncqe, 0);
	cr_assert_eq(qp.comp.state, RC_COMP_SETTLE);
	/* it answers: the READ is flushed, the SEND fails the QP */
	cmd_done = cmd_ok = true;
	cr_assert_eq(rc_len_err_reap(&qp), RC_MORE);
	cr_assert_eq(ncqe, 2);
	cr_assert_eq(cqe[0].wr_id, 1);
	cr_assert_eq(cqe[0].status, ORDK_WC_WR_FLUSH_ERR);
	cr_assert_eq(cqe[1].wr_id, 2);
	cr_assert_eq(cqe[1].status, ORDK_WC_REM_INV_REQ_ERR);
	cr_assert_eq(qp.comp.state, RC_COMP_FLUSH);
	cr_assert_eq(qp.req.rd_q.count, 0);
	cr_assert_eq(submits, 1, "the error transition reuses the command it reaped");
	/* the next poll flushes the rest */
	cr_assert_eq(rc_qp_error_reap(&qp), RC_DONE);
	cr_assert_eq(ncqe, 3);
	cr_assert_eq(cqe[2].wr_id, 3);
	cr_assert_eq(cqe[2].status, ORDK_WC_WR_FLUSH_ERR);
	cr_assert_eq(qp.comp.state, RC_COMP_ERROR);
	cr_assert_eq(ut_verbs_event_raise_calls, 1);
}

Test(rc_comp, a_full_command_ring_or_a_silent_card_only_delays_it)
{
	submit_rc = -EAGAIN;
	rc_timer_check(&qp, dev.rc.ptime);
	cr_assert_eq(qp.comp.state, RC_COMP_SETTLE);
	cr_assert_eq(rc_len_err_reap(&qp), RC_MORE);
	cr_assert_eq(submits, 2, "tried again on the next poll");
	cr_assert_eq(ncqe, 0);
	/* the card never answers: settled at the command timeout */
	dev.rc.ptime += dev.hw.cmd_timeout_tsc;
	cr_assert_eq(rc_len_err_reap(&qp), RC_MORE);
	cr_assert_eq(ncqe, 2);
	cr_assert_eq(qp.comp.state, RC_COMP_FLUSH);
	cr_assert_eq(rc_qp_error_reap(&qp), RC_DONE);
	cr_assert_eq(ncqe, 3);
}

Test(rc_comp, an_answer_while_settling_completes_the_read)
{
	rc_timer_check(&qp, dev.rc.ptime);
	cr_assert_eq(qp.comp.state, RC_COMP_SETTLE);
	/* the READ's answer arrives before the card confirmed */
	sq[0].state = RC_WQE_DONE;
	rc_fifo_pop(&qp.req.rd_q);
	rc_complete_sends(&qp);
	cr_assert_eq(ncqe, 2);
	cr_assert_eq(cqe[0].status, ORDK_WC_SUCCESS);
	cr_assert_eq(cqe[1].status, ORDK_WC_REM_INV_REQ_ERR);
	cr_assert_eq(qp.comp.state, RC_COMP_FLUSH, "failed on the settle's command");
	cr_assert_eq(submits, 1);
	cmd_done = cmd_ok = true;
	cr_assert_eq(rc_qp_error_reap(&qp), RC_DONE);
	cr_assert_eq(ncqe, 3);
}

Test(rc_comp, no_settle_before_the_peer_took_the_announcement)
{
	qp.comp.acked_psn = 11;
	rc_timer_check(&qp, dev.rc.ptime);
	cr_assert_eq(qp.comp.state, RC_COMP_WAIT_ACK);
	cr_assert_eq(submits, 0);
	cr_assert_eq(ut_rc_probe_calls, 2, "an ordinary timeout: the peer is asked");
}

/* ------------------------------------------------------------ comp.state */

/* The completer's transitions, written out apart from rc_comp.c's table. */
static const bool comp_legal[RC_COMP_NSTATES][RC_COMP_NSTATES] = {
	/*                   idle wait-ack retry settle flush error */
	[RC_COMP_IDLE] = { 1, 1, 1, 0, 1, 1 },
	[RC_COMP_WAIT_ACK] = { 1, 1, 1, 1, 1, 1 },
	[RC_COMP_RETRY] = { 1, 1, 1, 1, 1, 1 },
	[RC_COMP_SETTLE] = { 1, 0, 0, 0, 1, 1 },
	[RC_COMP_FLUSH] = { 0, 0, 0, 0, 1, 1 },
	[RC_COMP_ERROR] = { 1, 0, 0, 0, 0, 1 },
};

Test(rc_comp, comp_to_takes_the_legal_transitions_and_counts_the_rest)
{
	uint64_t refused = 0;

	for (unsigned int from = 0; from < RC_COMP_NSTATES; from++) {
		for (unsigned int to = 0; to < RC_COMP_NSTATES; to++) {
			qp.comp.state = from;
			bool taken = rc_comp_to(&qp, to);

			refused += !comp_legal[from][to];
			cr_assert_eq(taken, comp_legal[from][to], "%u -> %u", from, to);
			cr_assert_eq(qp.comp.state, comp_legal[from][to] ? to : from, "%u -> %u",
				     from, to);
			cr_assert_eq(qp.vqp.st.state_refused, refused, "%u -> %u", from, to);
		}
	}
	cr_assert_eq(refused, 12);
	qp.comp.state = RC_COMP_IDLE;
	cr_assert_not(rc_comp_to(&qp, RC_COMP_NSTATES), "no such state");
	qp.comp.state = RC_COMP_NSTATES;
	cr_assert_not(rc_comp_to(&qp, RC_COMP_IDLE), "from no such state");
	cr_assert_eq(qp.vqp.st.state_refused, refused + 2);
}

Test(rc_comp, settle_flush_error_reset_are_legal_steps)
{
	rc_timer_check(&qp, dev.rc.ptime);
	cr_assert_eq(qp.comp.state, RC_COMP_SETTLE);
	cmd_done = cmd_ok = true;
	rc_len_err_reap(&qp);
	cr_assert_eq(qp.comp.state, RC_COMP_FLUSH);
	/* the application resets the QP before the engine reaped the flush */
	rc_qp_reset(&qp);
	cr_assert_eq(qp.comp.state, RC_COMP_IDLE, "through error: the owed flush went");
	cr_assert_eq(ncqe, 3);
	cr_assert_eq(ut_verbs_event_raise_calls, 1);
	cr_assert_eq(qp.vqp.st.state_refused, 0);
	/* the application's modify to ERR flushes at once, from any state */
	qp.comp.state = RC_COMP_SETTLE;
	rc_qp_flush(&qp);
	cr_assert_eq(qp.comp.state, RC_COMP_ERROR);
	rc_qp_flush(&qp);
	cr_assert_eq(qp.comp.state, RC_COMP_ERROR, "ERR to ERR");
	cr_assert_eq(qp.vqp.st.state_refused, 0);
}

Test(rc_comp, a_failure_after_the_flush_is_refused_not_asserted)
{
	qp.comp.state = RC_COMP_ERROR;
	rc_qp_error(&qp);
	cr_assert_eq(qp.comp.state, RC_COMP_ERROR, "error -> flush refused");
	cr_assert_eq(qp.vqp.st.state_refused, 1);
	/* a settle the table refuses starts nothing: the timeout is an ordinary one */
	setup();
	qp.comp.state = RC_COMP_IDLE;
	cr_assert_not(rc_len_err_settle(&qp));
	cr_assert_eq(qp.comp.state, RC_COMP_IDLE);
	cr_assert_eq(submits, 0);
	cr_assert_eq(qp.vqp.st.state_refused, 1);
}

/* ------------------------------------------------------------ WQE states */

/* A send WQE's transitions, written out apart from rc_comp.c's table. */
static const bool wqe_legal[RC_WQE_NSTATES][RC_WQE_NSTATES] = {
	/*                   queued bound sending sent answering done error */
	[RC_WQE_QUEUED] = { 0, 1, 1, 0, 0, 0, 0 },
	[RC_WQE_BOUND] = { 0, 0, 1, 0, 0, 0, 0 },
	[RC_WQE_SENDING] = { 0, 0, 0, 1, 1, 1, 1 },
	[RC_WQE_SENT] = { 0, 0, 0, 0, 1, 1, 1 },
	[RC_WQE_ANSWERING] = { 0, 0, 0, 0, 0, 1, 1 },
	[RC_WQE_DONE] = { 0 },
	[RC_WQE_ERROR] = { 0 },
};

Test(rc_comp, wqe_to_takes_the_legal_transitions_and_counts_the_rest)
{
	struct rc_wqe w = { .opcode = BLUE_WR_RDMA_READ, .psn = 10 };
	uint64_t refused = 0;

	for (unsigned int from = 0; from < RC_WQE_NSTATES; from++) {
		for (unsigned int to = 0; to < RC_WQE_NSTATES; to++) {
			w.state = (uint8_t)from;
			bool taken = rc_wqe_to(&qp, &w, to);

			refused += !wqe_legal[from][to];
			cr_assert_eq(taken, wqe_legal[from][to], "%u -> %u", from, to);
			cr_assert_eq(w.state, wqe_legal[from][to] ? to : from, "%u -> %u", from, to);
			cr_assert_eq(qp.vqp.st.state_refused, refused, "%u -> %u", from, to);
		}
	}
	cr_assert_eq(refused, 37);
	w.state = RC_WQE_QUEUED;
	cr_assert_not(rc_wqe_to(&qp, &w, RC_WQE_NSTATES), "no such state");
	w.state = RC_WQE_NSTATES;
	cr_assert_not(rc_wqe_to(&qp, &w, RC_WQE_SENDING), "from no such state");
	cr_assert_eq(qp.vqp.st.state_refused, refused + 2);
}

/* A WQE of @p op in state @p s, PSNs 20 and 21. */
static struct rc_wqe
wqe(uint8_t op, enum rc_wqe_state s)
{
	return (struct rc_wqe){ .opcode = op, .state = (uint8_t)s, .psn = 20, .npkts = 2 };
}

Test(rc_comp, a_write_or_send_may_complete_once_acknowledged)
{
	for (uint8_t op = BLUE_WR_RDMA_WRITE; op <= BLUE_WR_SEND_WITH_IMM; op++) {
		struct rc_wqe w = wqe(op, RC_WQE_SENT);

		if (op == BLUE_WR_RDMA_READ)
			continue;
		qp.comp.acked_psn = 21;
		cr_assert_not(wqe_may_complete(&qp, &w), "op %u: its last PSN unacknowledged", op);
		qp.comp.acked_psn = 22;
		cr_assert(wqe_may_complete(&qp, &w), "op %u", op);
	}
}

Test(rc_comp, a_read_or_an_atomic_may_complete_once_answered)
{
	static const uint8_t ops[] = { BLUE_WR_RDMA_READ, BLUE_WR_ATOMIC_CMP_AND_SWP,
				       BLUE_WR_ATOMIC_FETCH_AND_ADD };

	qp.comp.acked_psn = 22;
	for (unsigned int i = 0; i < RTE_DIM(ops); i++) {
		struct rc_wqe w = wqe(ops[i], RC_WQE_SENT);

		cr_assert_not(wqe_may_complete(&qp, &w), "op %u: acknowledged, not answered", ops[i]);
		w.state = RC_WQE_ANSWERING;
		cr_assert_not(wqe_may_complete(&qp, &w), "op %u: its answer is coming", ops[i]);
		w.state = RC_WQE_DONE;
		cr_assert(wqe_may_complete(&qp, &w), "op %u", ops[i]);
		qp.comp.acked_psn = 21;
		cr_assert_not(wqe_may_complete(&qp, &w), "op %u: unacknowledged", ops[i]);
		qp.comp.acked_psn = 22;
	}
}

Test(rc_comp, a_read_answer_retires_once_acknowledged)
{
	struct rc_wqe a = wqe(BLUE_WR_RDMA_READ_RESP, RC_WQE_SENT);

	a.flags = RC_WQE_INTERNAL;
	qp.comp.acked_psn = 21;
	cr_assert_not(wqe_may_complete(&qp, &a));
	a.state = RC_WQE_ERROR;
	cr_assert_not(wqe_may_complete(&qp, &a), "failed, it still waits for its ACK");
	qp.comp.acked_psn = 22;
	cr_assert(wqe_may_complete(&qp, &a));
	a.state = RC_WQE_SENT;
	cr_assert(wqe_may_complete(&qp, &a));
}

Test(rc_comp, a_failed_wr_may_complete_at_once)
{
	static const uint8_t ops[] = { BLUE_WR_RDMA_WRITE, BLUE_WR_SEND, BLUE_WR_RDMA_READ,
				       BLUE_WR_ATOMIC_FETCH_AND_ADD };

	qp.comp.acked_psn = 10;
	for (unsigned int i = 0; i < RTE_DIM(ops); i++) {
		struct rc_wqe w = wqe(ops[i], RC_WQE_ERROR);

		cr_assert(wqe_may_complete(&qp, &w), "op %u, nothing acknowledged", ops[i]);
	}
	/* our too long SEND's announcement: once acknowledged, it fails the QP */
	struct rc_wqe w = wqe(BLUE_WR_SEND, RC_WQE_SENT);

	w.flags = RC_WQE_LEN_ERR;
	w.npkts = 1;
	cr_assert_not(wqe_may_complete(&qp, &w));
	qp.comp.acked_psn = 21;
	cr_assert(wqe_may_complete(&qp, &w));
}

Test(rc_comp, completions_follow_the_wqe_states)
{
	/* the READ answered, then a failed WRITE the responder refused as fatal */
	sq[0].state = RC_WQE_DONE;
	sq[1] = (struct rc_wqe){ .wr_id = 2, .opcode = BLUE_WR_RDMA_WRITE, .state = RC_WQE_ERROR,
				 .flags = RC_WQE_FATAL, .status = ORDK_WC_REM_ACCESS_ERR,
				 .psn = 11, .npkts = 1 };
	qp.comp.acked_psn = 11;
	rc_fifo_pop(&qp.req.rd_q);
	rc_complete_sends(&qp);
	cr_assert_eq(ncqe, 2);
	cr_assert_eq(cqe[0].status, ORDK_WC_SUCCESS);
	cr_assert_eq(cqe[1].wr_id, 2);
	cr_assert_eq(cqe[1].status, ORDK_WC_REM_ACCESS_ERR, "unacknowledged, it failed");
	cr_assert_eq(qp.comp.state, RC_COMP_FLUSH, "fatal: the QP goes to ERR");
	cr_assert_eq(qp.vqp.st.state_refused, 0);
}

Test(rc_comp, the_settle_fails_the_unanswered_reads)
{
	sq[0].state = RC_WQE_ANSWERING;
	rc_timer_check(&qp, dev.rc.ptime);
	cmd_done = cmd_ok = true;
	rc_len_err_reap(&qp);
	cr_assert_eq(sq[0].state, RC_WQE_ERROR, "answering -> error");
	cr_assert_eq(cqe[0].status, ORDK_WC_WR_FLUSH_ERR);
	cr_assert_eq(qp.vqp.st.state_refused, 0);
}

/* ------------------------------------------------------------ the clock */

/* The timer is set and judged in polling time, whatever the wall clock says. */
Test(rc_comp, the_timer_runs_in_polling_time)
{
	uint64_t t = qp.comp.timeout_tsc;

	qp.req.state = RC_REQ_IDLE;
	dev.rc.wall_tsc = dev.rc.ptime + 1000 * t; /* polling gaps so far */
	rc_timer_arm(&qp);
	cr_assert_eq(qp.comp.rtx_deadline, dev.rc.ptime + t);
	rc_timer_check(&qp, dev.rc.ptime + t - 1);
	cr_assert_eq(ut_rc_probe_calls, 0, "not before its deadline");
	rc_timer_check(&qp, dev.rc.ptime + t);
	cr_assert_eq(ut_rc_probe_calls, 2, "the peer is asked (twice)");
	cr_assert_eq(qp.comp.rtx_deadline, dev.rc.ptime + 3 * t, "backed off from then");
}
