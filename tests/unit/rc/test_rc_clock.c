/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Polling time, end to end through the engine (drivers/rdma/blue/rc): the
 * clock (rc_engine.c poll_clock(), rc_idle()), the wheel, the
 * retransmission timer (rc_comp.c), and the hole and probe holds (rc_ack.c),
 * under a stubbed clock driving rc_poll(). A poller that sleeps 2 ms between
 * polls and says so must see every timer and hold run on wall time, none
 * early or late; a 2 ms pause it did not declare must not pass for the
 * peer's silence. The test includes the four .c files and stubs their
 * neighbours: the card's rings, the requester, control frames, the commands.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_engine.c"
#include "../../../drivers/rdma/blue/rc/rc_comp.c"
#include "../../../drivers/rdma/blue/rc/rc_ack.c"
#include "../../../drivers/rdma/blue/rc/rc_track.c"
#include "rc_stubs.h"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

static uint64_t clock_now;
static unsigned int naks, acks;

static uint64_t
fake_clock(void)
{
	return clock_now;
}

int
blue_snic_tx(struct blue_hw *dev, const void *frame, uint32_t len)
{
	struct blue_wire_rdma p;

	(void)dev;
	cr_assert_eq(blue_wire_rdma_parse(frame, len, 0, &p), 0, "an ACK frame");
	if (p.aeth.is_packet_lost)
		naks++;
	else
		acks++;
	return 0;
}

RC_STUB(rc_qp_fails);
RC_STUB(rc_key_revoke);
RC_STUB(rc_key_gone);
RC_STUB(rc_key_revoke_step);
RC_STUB(rc_read_keys_retire);

bool
rc_qp_err_cmd_reaped(struct blue_qp *qp, bool *ok)
{
	(void)qp;
	*ok = true;
	return true;
}

RC_STUB(verbs_trace_add);
RC_STUB(rc_probe);
RC_STUB(blue_snic_tx_room);
RC_STUB(rc_qp_error_reap);
RC_STUB(rc_qp_err_cmd_start);
RC_STUB(verbs_cq_push);
RC_STUB(ordk_wc_status_str);
RC_STUB(rc_retransmit_card);
RC_STUB(rc_retransmit);
RC_STUB(rc_rtx_unfetched);
RC_STUB(rc_atomic_send);
RC_STUB(rc_atomic_resend);
RC_STUB(blue_cc_cnp);
RC_STUB(verbs_qp_lookup);
RC_STUB(rc_resp_rx_report);
RC_STUB(rc_rx_read);
RC_STUB(rc_resp_complete);
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
RC_STUB(rc_key_revoke_run);
RC_STUB(rc_advert_pending);
RC_STUB(rc_push);

/* ------------------------------------------------------------ fixture */

#define US 1000ull /* the clock: 1 GHz */
#define MS (1000ull * US)
#define TIMEOUT (5 * MS) /* the QP's ACK timeout */
#define HOLD (500 * US)	 /* its reordering hold */
#define SLEEP (2 * MS)	 /* the sleeping poller's declared sleep ... */
#define OVER (40 * US)	 /* ... and how much longer it takes */
static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_wqe sq[4];
static volatile uint32_t send_tail_reg;

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sq, 0, sizeof(sq));
	ut_rc_probe_calls = naks = acks = fails = 0;
	clock_now = 1000 * MS;
	dev.rc.tsc_hz = 1000 * MS;
	dev.rc.clock = fake_clock;
	dev.hw.ring[BLUE_RING_SEND0].tail_reg = &send_tail_reg;
	TAILQ_INIT(&dev.rc.active);
	rc_wheel_init(&dev);
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.vqp.attr.retry_cnt = 7;
	qp.comp.timeout_tsc = TIMEOUT;
	qp.comp.hold_tsc = HOLD;
	qp.req.sq = sq;
	qp.req.sq_size = 4;
	qp.req.sq_mask = 3;
	rc_rx_reset(&qp.resp, 0x100);
}

TestSuite(rc_clock, .init = setup);

/*
 * Polls until @p len passed or *@p what changed: every @p every, or when
 * @p sleep, every SLEEP + OVER with SLEEP declared before each. @return the
 * clock then.
 */
static uint64_t
poll_for(bool sleep, uint64_t every, uint64_t len, const unsigned int *what)
{
	uint64_t end = clock_now + len, step = sleep ? SLEEP + OVER : every;
	unsigned int was = what != NULL ? *what : 0;

	while (clock_now + step <= end) {
		if (sleep)
			rc_idle(&dev.rc, SLEEP); /* 1 GHz: ns are cycles */
		clock_now += step;
		rc_poll(&dev, 64);
		if (what != NULL && *what != was)
			break;
	}
	return clock_now;
}

/* A WRITE sent, its ACK awaited from a silent peer: the timer is armed in this poll. */
static uint64_t
send_one(void)
{
	qp.req.sq_next = qp.req.sq_tail = 1;
	sq[0] = (struct rc_wqe){ .opcode = BLUE_WR_RDMA_WRITE, .psn = 0x200, .npkts = 1, .len = 8 };
	qp.req.next_psn = qp.req.pushed_psn = 0x201;
	qp.comp.acked_psn = 0x200;
	rc_timer_arm(&qp);
	cr_assert_neq(qp.comp.rtx_deadline, 0);
	return clock_now;
}

/* PSNs after epsn arrived, and a bitmap report showed the hole: it opens now. */
static uint64_t
open_hole(void)
{
	rc_rx_mark(&qp.resp, blue_psn_add(qp.resp.epsn, 3));
	rc_hole_check(&qp, true);
	cr_assert_eq(rc_hole_state(&qp.resp), RC_HOLE_SETTLED);
	rc_activate(&qp);
	return clock_now;
}

/* The peer's ACK_REQ arrives in this poll (as rc_ctrl_rx() records it). */
static uint64_t
asked(void)
{
	rc_probe_asked(&qp.resp, qp.resp.epsn, rc_ptime(&dev.rc));
	rc_activate(&qp);
	return clock_now;
}

/* ------------------------------------------------------ a sleeping poller */

Test(rc_clock, a_poller_sleeping_2_ms_fires_the_timer_neither_early_nor_late)
{
	uint64_t armed, fired;

	poll_for(true, 0, 10 * MS, NULL); /* an idle progress thread */
	armed = send_one();
	fired = poll_for(true, 0, 4 * TIMEOUT, &ut_rc_probe_calls);
	cr_assert_eq(ut_rc_probe_calls, 2, "the timer fired (the question twice)");
	cr_assert_geq(fired - armed, TIMEOUT, "not early");
	cr_assert_lt(fired - armed, TIMEOUT + SLEEP + OVER, "in the first poll after its deadline");
	/* and again, backed off, on time */
	armed = fired;
	fired = poll_for(true, 0, 8 * TIMEOUT, &ut_rc_probe_calls);
	cr_assert_eq(qp.comp.rtx_retries, 2);
	cr_assert_geq(fired - armed, 2 * TIMEOUT);
	cr_assert_lt(fired - armed, 2 * TIMEOUT + SLEEP + OVER);
}

Test(rc_clock, a_poller_sleeping_2_ms_fails_a_silent_peer_on_time)
{
	uint64_t armed, failed;

	poll_for(true, 0, 10 * MS, NULL);
	armed = send_one();
	/* timeouts 1 + 2 + 4 + ... + 64, and the 8th ends it: 191 of them */
	failed = poll_for(true, 0, 2000 * MS, &fails);
	cr_assert_eq(fails, 1, "RETRY_EXC_ERR after retry_cnt timeouts");
	cr_assert_geq(failed - armed, 191 * TIMEOUT);
	cr_assert_lt(failed - armed, 191 * TIMEOUT + 8 * (SLEEP + OVER));
}

Test(rc_clock, a_poller_sleeping_2_ms_naks_a_hole_after_the_hold)
{
	uint64_t opened, naked;

	poll_for(true, 0, 10 * MS, NULL);
	opened = open_hole();
	naked = poll_for(true, 0, 20 * MS, &naks);
	cr_assert_eq(naks, 1, "the hole was asked for");
	cr_assert_geq(naked - opened, HOLD);
	cr_assert_lt(naked - opened, HOLD + SLEEP + OVER);
}

Test(rc_clock, a_poller_sleeping_2_ms_answers_a_probe_after_the_hold)
{
	uint64_t at, answered;

	poll_for(true, 0, 10 * MS, NULL);
	at = asked();
	answered = poll_for(true, 0, 20 * MS, &acks);
	cr_assert_eq(acks, 1, "answered: everything before epsn arrived");
	cr_assert_geq(answered - at, HOLD);
	cr_assert_lt(answered - at, HOLD + SLEEP + OVER);
}

/* ------------------------------------------------- an undeclared 2 ms gap */

Test(rc_clock, an_undeclared_2_ms_gap_fires_no_timer)
{
	const uint64_t timeout = 1 * MS, gap = 2 * MS;
	uint64_t armed, fired;

	qp.comp.timeout_tsc = timeout;
	poll_for(false, 10 * US, 1 * MS, NULL); /* a busy application */
	armed = send_one();
	poll_for(false, 10 * US, 300 * US, NULL);
	clock_now += gap; /* descheduled: past the deadline in wall time */
	rc_poll(&dev, 64);
	cr_assert_eq(ut_rc_probe_calls, 0, "the gap is not the peer's silence");
	cr_assert(qp.sched.on_wheel && !qp.sched.on_active, "not woken: the wheel is in polling time");
	fired = poll_for(false, 10 * US, 5 * MS, &ut_rc_probe_calls);
	cr_assert_eq(ut_rc_probe_calls, 2, "the timer still fires");
	/* on the time polled, of which the gap's stall allowance */
	cr_assert_geq(fired - armed - gap, timeout - dev.rc.stall_tsc);
	cr_assert_leq(fired - armed - gap, timeout - dev.rc.stall_tsc + 10 * US);
}

Test(rc_clock, an_undeclared_2_ms_gap_naks_no_hole)
{
	const uint64_t gap = 2 * MS;
	uint64_t opened, naked;

	poll_for(false, 10 * US, 1 * MS, NULL);
	opened = open_hole();
	poll_for(false, 10 * US, 100 * US, NULL);
	clock_now += gap;
	rc_poll(&dev, 64);
	cr_assert_eq(naks, 0, "the hold counts polling time only");
	naked = poll_for(false, 10 * US, 5 * MS, &naks);
	cr_assert_eq(naks, 1);
	cr_assert_geq(naked - opened - gap, HOLD - dev.rc.stall_tsc);
	cr_assert_leq(naked - opened - gap, HOLD - dev.rc.stall_tsc + 10 * US);
}

Test(rc_clock, an_undeclared_2_ms_gap_answers_no_probe)
{
	const uint64_t gap = 2 * MS;
	uint64_t at, answered;

	poll_for(false, 10 * US, 1 * MS, NULL);
	at = asked();
	poll_for(false, 10 * US, 100 * US, NULL);
	clock_now += gap;
	rc_poll(&dev, 64);
	cr_assert_eq(acks, 0, "no report came in the gap: the hold still runs");
	answered = poll_for(false, 10 * US, 5 * MS, &acks);
	cr_assert_eq(acks, 1);
	cr_assert_geq(answered - at - gap, HOLD - dev.rc.stall_tsc);
	cr_assert_leq(answered - at - gap, HOLD - dev.rc.stall_tsc + 10 * US);
}

/* A declared sleep the poller overran by far: the excess is a gap all the same. */
Test(rc_clock, a_declared_sleep_overrun_by_far_fires_no_timer)
{
	const uint64_t timeout = 1 * MS;

	qp.comp.timeout_tsc = timeout;
	poll_for(false, 10 * US, 1 * MS, NULL);
	send_one();
	rc_idle(&dev.rc, 100 * US);
	clock_now += 20 * MS;
	rc_poll(&dev, 64);
	cr_assert_eq(ut_rc_probe_calls, 0, "only the declared 100 us and the stall counted");
	cr_assert_eq(rc_ptime(&dev.rc), dev.rc.wall_tsc - 20 * MS + 100 * US + dev.rc.stall_tsc);
}
