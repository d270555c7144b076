/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine (rc/rc_engine.c) on a stubbed clock: the timer wheel, the
 * completer state rc_timer_set() keeps, the one clock read per poll and
 * polling time (rc_ptime(): gaps and declared sleeps), and a QP's step. The test includes the .c and
 * stubs the parts it dispatches to.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_engine.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

RC_STUB(blue_cc_cnp);
RC_STUB(rc_read_keys_retire);
RC_STUB(rc_rtx_unfetched);
RC_STUB(rc_complete_sends);
RC_STUB(rc_resp_complete);
RC_STUB(verbs_qp_lookup);
RC_STUB(rc_resp_rx_report);
RC_STUB(rc_rx_read);
RC_STUB(rc_comp_rx_report);
RC_STUB(rc_ctrl_rx);
RC_STUB(blue_ud_rx);
RC_STUB(blue_ud_step);
RC_STUB(blue_meta_next);
RC_STUB(blue_snic_rx_next);
RC_STUB(blue_snic_rx_done);
RC_STUB(rc_advert_rewind);
RC_STUB(rc_send_advert_ack);
RC_STUB(rc_send_adverts);
RC_STUB(rc_send_recv_state);
RC_STUB(rc_recv_retire);
RC_STUB(rc_srq_refill);
RC_STUB(rc_want_due);
RC_STUB(rc_advert_pending);
RC_STUB(rc_timer_check);
RC_STUB(rc_push);
RC_STUB(rc_ack_step);
RC_STUB(rc_qp_error_reap);
RC_STUB(rc_len_err_reap);
RC_STUB(rc_key_revoke_run);
RC_STUB(rc_comp_to);

static uint64_t clock_now;
static unsigned int clock_reads;

static uint64_t
fake_clock(void)
{
	clock_reads++;
	return clock_now;
}

/* ------------------------------------------------------------ fixture */

#define TICK 16u /* tsc_hz / 65536 rounded up to a power of two */
static struct blue_dev dev;
static struct blue_qp qp[4];

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(qp, 0, sizeof(qp));
	clock_now = 1000000;
	clock_reads = ut_rc_qp_error_reap_calls = ut_rc_push_calls = ut_rc_ack_step_calls = 0;
	ut_rc_len_err_reap_calls = ut_rc_key_revoke_run_calls = 0;
	MOCK_SET(rc_qp_error_reap, RC_MORE);
	dev.rc.tsc_hz = 65536u * TICK;
	dev.rc.clock = fake_clock;
	TAILQ_INIT(&dev.rc.active);
	rc_wheel_init(&dev);
	for (unsigned int i = 0; i < RTE_DIM(qp); i++) {
		qp[i].vqp.dev = blue_dev_handle(&dev);
		qp[i].vqp.attr.qp_state = ORDK_QPS_RTS;
	}
}

TestSuite(rc_engine, .init = setup);

static bool
active(const struct blue_qp *q)
{
	return q->sched.on_active;
}

/* ------------------------------------------------------------ wheel */

Test(rc_engine, wheel_geometry_from_the_clock_rate)
{
	cr_assert_eq(1u << dev.rc.wheel_shift, TICK);
	cr_assert_eq(dev.rc.wheel_tick, 1000000 / TICK);
	cr_assert_eq(dev.rc.stall_tsc, dev.rc.tsc_hz / 5000);
	cr_assert_eq(clock_reads, 1, "the injected clock is the one read");
}

Test(rc_engine, due_deadlines_wake_their_qps_once)
{
	uint64_t t0 = clock_now;

	rc_timer_set(&qp[0], t0 + 5);		/* this tick or the next */
	rc_timer_set(&qp[1], t0 + 10 * TICK);	/* ten ticks on */
	rc_timer_set(&qp[2], t0 + (RC_WHEEL_SLOTS + 3) * TICK); /* more than one turn */
	cr_assert_eq(dev.rc.wheel_count, 3);
	cr_assert_eq(rc_wheel_run(&dev, t0 + 4), 0, "not due yet");
	cr_assert_eq(rc_wheel_run(&dev, t0 + 5), 1);
	cr_assert(active(&qp[0]) && !qp[0].sched.on_wheel);
	cr_assert_eq(rc_wheel_run(&dev, t0 + 10 * TICK - 1), 0);
	cr_assert_eq(rc_wheel_run(&dev, t0 + 10 * TICK), 1);
	cr_assert(active(&qp[1]));
	/* a turn later qp[2]'s slot comes round before its deadline: it stays */
	cr_assert_eq(rc_wheel_run(&dev, t0 + 3 * TICK + RC_WHEEL_SLOTS * TICK - 1), 0);
	cr_assert(qp[2].sched.on_wheel);
	cr_assert_eq(rc_wheel_run(&dev, t0 + (RC_WHEEL_SLOTS + 3) * TICK), 1);
	cr_assert_eq(dev.rc.wheel_count, 0);
	cr_assert_eq(rc_wheel_run(&dev, t0 + 100 * RC_WHEEL_SLOTS * TICK), 0);
}

Test(rc_engine, a_long_pause_wakes_everything_due)
{
	uint64_t t0 = clock_now;

	for (unsigned int i = 0; i < 3; i++)
		rc_timer_set(&qp[i], t0 + (i * 400 + 1) * TICK);
	/* five turns without a run: at most one turn of slots is visited */
	cr_assert_eq(rc_wheel_run(&dev, t0 + 5 * RC_WHEEL_SLOTS * TICK), 3);
	for (unsigned int i = 0; i < 3; i++)
		cr_assert(active(&qp[i]), "qp %u", i);
}

Test(rc_engine, clearing_or_moving_a_deadline)
{
	uint64_t t0 = clock_now;

	rc_timer_set(&qp[0], t0 + 2 * TICK);
	rc_timer_set(&qp[0], t0 + 50 * TICK); /* moved: one entry, in the new slot */
	cr_assert_eq(dev.rc.wheel_count, 1);
	cr_assert_eq(rc_wheel_run(&dev, t0 + 3 * TICK), 0);
	rc_timer_set(&qp[0], 0);
	cr_assert_eq(dev.rc.wheel_count, 0);
	cr_assert_not(qp[0].sched.on_wheel);
	cr_assert_eq(rc_wheel_run(&dev, t0 + 60 * TICK), 0);
	cr_assert_not(active(&qp[0]));
}

/* ------------------------------------------------------------ completer state */

Test(rc_engine, timer_set_keeps_the_completer_state)
{
	rc_timer_set(&qp[0], clock_now + 100);
	cr_assert_eq(qp[0].comp.state, RC_COMP_WAIT_ACK);
	qp[0].comp.rtx_retries = 2;
	rc_timer_set(&qp[0], clock_now + 200);
	cr_assert_eq(qp[0].comp.state, RC_COMP_RETRY);
	rc_timer_set(&qp[0], 0);
	cr_assert_eq(qp[0].comp.state, RC_COMP_IDLE);
	qp[0].comp.state = RC_COMP_SETTLE;
	rc_timer_set(&qp[0], 0);
	cr_assert_eq(qp[0].comp.state, RC_COMP_SETTLE, "settling waits for the card");
	qp[0].comp.state = RC_COMP_FLUSH;
	rc_timer_set(&qp[0], clock_now + 100);
	cr_assert_eq(qp[0].comp.state, RC_COMP_FLUSH, "a failed QP stays failed");
	qp[0].comp.state = RC_COMP_ERROR;
	rc_timer_set(&qp[0], 0);
	cr_assert_eq(qp[0].comp.state, RC_COMP_ERROR);
}

/* ------------------------------------------------------------ clock */

/* Polls @p n times, @p every apart. @return polling time then. */
static uint64_t
polls(uint64_t every, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		clock_now += every;
		poll_clock(&dev.rc);
	}
	return dev.rc.ptime;
}

/* @p ns in TSC cycles, as rc_idle() converts them. */
static uint64_t
ns_tsc(uint64_t ns)
{
	return ns * dev.rc.tsc_hz / 1000000000u;
}

Test(rc_engine, one_clock_read_per_poll)
{
	clock_now += 100 * dev.rc.stall_tsc; /* a gap: the two clocks part */
	poll_clock(&dev.rc);
	clock_reads = 0;
	clock_now += 100;
	cr_assert_eq(poll_clock(&dev.rc), rc_ptime(&dev.rc));
	cr_assert_eq(dev.rc.wall_tsc, clock_now);
	cr_assert_eq(clock_reads, 1, "one read per poll");
	/* a deadline set in this poll records the poll, not a clock read */
	rc_timer_set(&qp[0], rc_ptime(&dev.rc) + 10);
	cr_assert_eq(qp[0].comp.rtx_set_tsc, rc_ptime(&dev.rc));
	cr_assert_eq(clock_reads, 1);
}

Test(rc_engine, polling_time_is_wall_time_while_polling_goes_on)
{
	uint64_t p0 = rc_ptime(&dev.rc), w0 = clock_now;

	cr_assert_eq(p0, w0, "both start at the clock");
	polls(dev.rc.stall_tsc / 8, 100);
	polls(dev.rc.stall_tsc, 10); /* exactly the stall: still no gap */
	cr_assert_eq(rc_ptime(&dev.rc) - p0, clock_now - w0);
}

Test(rc_engine, an_undeclared_pause_counts_only_the_stall)
{
	uint64_t p0 = rc_ptime(&dev.rc);

	polls(dev.rc.stall_tsc + 1, 1);
	cr_assert_eq(rc_ptime(&dev.rc) - p0, dev.rc.stall_tsc, "one cycle over: a gap");
	p0 = rc_ptime(&dev.rc);
	polls(100 * dev.rc.stall_tsc, 1);
	cr_assert_eq(rc_ptime(&dev.rc) - p0, dev.rc.stall_tsc);
	p0 = rc_ptime(&dev.rc);
	polls(10, 5);
	cr_assert_eq(rc_ptime(&dev.rc) - p0, 50, "polling again counts again");
	/* a clock that steps back (another core's TSC) adds nothing */
	clock_now -= 5;
	p0 = rc_ptime(&dev.rc);
	poll_clock(&dev.rc);
	cr_assert_eq(rc_ptime(&dev.rc), p0);
}

Test(rc_engine, a_declared_sleep_counts_with_the_stall_once)
{
	uint64_t sleep = ns_tsc(2000000), p0; /* 2 ms */

	rc_idle(&dev.rc, 2000000);
	p0 = rc_ptime(&dev.rc);
	polls(sleep + dev.rc.stall_tsc, 1); /* overslept by the stall: all of it counts */
	cr_assert_eq(rc_ptime(&dev.rc) - p0, sleep + dev.rc.stall_tsc);
	p0 = rc_ptime(&dev.rc);
	polls(sleep, 1);
	cr_assert_eq(rc_ptime(&dev.rc) - p0, dev.rc.stall_tsc, "the next poll consumed it");
	rc_idle(&dev.rc, 2000000);
	p0 = rc_ptime(&dev.rc);
	polls(25 * sleep, 1); /* slept far longer than it said */
	cr_assert_eq(rc_ptime(&dev.rc) - p0, sleep + dev.rc.stall_tsc);
	/* a later declaration replaces an earlier one */
	rc_idle(&dev.rc, 2000000);
	rc_idle(&dev.rc, 1000000);
	p0 = rc_ptime(&dev.rc);
	polls(sleep, 1);
	cr_assert_eq(rc_ptime(&dev.rc) - p0, ns_tsc(1000000) + dev.rc.stall_tsc);
}

/* ------------------------------------------------------------ a QP's step */

Test(rc_engine, a_failed_qp_only_waits_for_its_reap)
{
	unsigned int items = 0;

	qp[0].vqp.attr.qp_state = ORDK_QPS_ERR;
	qp[0].comp.state = RC_COMP_FLUSH;
	cr_assert_eq(qp_step(&qp[0], clock_now, &items), RC_MORE);
	cr_assert_eq(ut_rc_qp_error_reap_calls, 1);
	cr_assert_eq(ut_rc_push_calls + ut_rc_ack_step_calls, 0, "nothing else runs for it");
	MOCK_SET(rc_qp_error_reap, RC_DONE);
	cr_assert_eq(qp_step(&qp[0], clock_now, &items), RC_DONE);
}

Test(rc_engine, a_settling_qp_only_waits_for_its_reap)
{
	unsigned int items = 0;

	qp[0].comp.state = RC_COMP_SETTLE;
	cr_assert_eq(qp_step(&qp[0], clock_now, &items), RC_MORE);
	cr_assert_eq(ut_rc_len_err_reap_calls, 1);
	cr_assert_eq(ut_rc_push_calls + ut_rc_ack_step_calls + ut_rc_qp_error_reap_calls, 0,
		     "nothing else runs for it");
}

Test(rc_engine, an_idle_qp_leaves_the_list_a_busy_one_stays)
{
	unsigned int items = 0;

	cr_assert_eq(qp_step(&qp[0], clock_now, &items), RC_DONE);
	cr_assert_eq(ut_rc_push_calls, 1);
	cr_assert_eq(ut_rc_ack_step_calls, 1);
	qp[1].req.sq_tail = 1; /* a WR queued that did not go */
	cr_assert_eq(qp_step(&qp[1], clock_now, &items), RC_MORE);
	/* waiting only for an ACK, on the wheel: it sleeps */
	rc_timer_set(&qp[2], clock_now + 100);
	cr_assert_eq(qp_step(&qp[2], clock_now, &items), RC_DONE);
	/* a deadline not on the wheel keeps it awake */
	qp[3].comp.rtx_deadline = clock_now + 100;
	cr_assert_eq(qp_step(&qp[3], clock_now, &items), RC_MORE);
}
