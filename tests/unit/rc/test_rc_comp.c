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

#include "rc_stub_cmd.h"

static unsigned int events, probes;
static struct ordk_wc cqe[16];
static unsigned int ncqe;

void
verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc)
{
	(void)cq;
	cr_assert_lt(ncqe, 16);
	cqe[ncqe++] = *wc;
}

void
verbs_event_raise(struct ordk_dev *dev, enum ordk_event_type type, struct ordk_qp *qp,
		  struct ordk_cq *cq)
{
	(void)dev;
	(void)qp;
	(void)cq;
	cr_assert_eq(type, ORDK_EVENT_QP_FATAL);
	events++;
}

struct blue_mr *
blue_mr_lookup(struct blue_dev *dev, uint32_t key)
{
	(void)dev;
	(void)key;
	return NULL;
}

const char *
ordk_wc_status_str(enum ordk_wc_status status)
{
	(void)status;
	return "status";
}

const char *
rc_state_name(enum rc_sm sm, unsigned int s)
{
	(void)sm;
	(void)s;
	return "state";
}

enum rc_step
rc_recv_retire(struct blue_qp *qp, bool force)
{
	(void)qp;
	(void)force;
	return RC_DONE;
}

void
rc_recv_keys_release(struct blue_qp *qp, bool push)
{
	(void)qp;
	(void)push;
}

void
rc_timer_set(struct blue_qp *qp, uint64_t deadline)
{
	qp->comp.rtx_deadline = deadline;
}

void
rc_activate(struct blue_qp *qp)
{
	qp->sched.on_active = true;
}

uint32_t
rc_retransmit_card(struct blue_qp *qp, uint32_t from, uint32_t to)
{
	(void)qp;
	(void)from;
	(void)to;
	return 0;
}

void
rc_retransmit(struct blue_qp *qp, uint32_t from, uint32_t to)
{
	(void)qp;
	(void)from;
	(void)to;
}

bool
rc_rtx_unfetched(struct blue_qp *qp)
{
	(void)qp;
	return false;
}

bool
rc_atomic_send(struct blue_qp *qp, struct rc_wqe *w)
{
	(void)qp;
	(void)w;
	return true;
}

bool
rc_probe(struct blue_qp *qp)
{
	(void)qp;
	probes++;
	return true;
}

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
	ncqe = submits = events = probes = 0;
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
	qp.req.reads = reads;
	qp.req.rd_q.size = 8;
	/*
	 * A READ (PSN 10, its answer never came), our too long SEND's
	 * announcement (PSN 11, acknowledged: the peer took it and is in ERR),
	 * and a WRITE not sent yet.
	 */
	sq[0] = (struct rc_wqe){ .wr_id = 1, .opcode = BLUE_WR_RDMA_READ, .signaled = 1,
				 .psn = 10, .npkts = 1, .len = 64, .started = true };
	sq[1] = (struct rc_wqe){ .wr_id = 2, .opcode = BLUE_WR_SEND, .signaled = 1,
				 .flags = RC_WQE_LEN_ERR, .psn = 11, .npkts = 1, .started = true };
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
	cr_assert_eq(probes, 0, "no timeout counted: the peer is in ERR");
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
	cr_assert_eq(events, 1);
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
	sq[0].flags |= RC_WQE_READ_DONE;
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
	cr_assert_eq(probes, 2, "an ordinary timeout: the peer is asked");
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
	cr_assert_eq(probes, 0, "not before its deadline");
	rc_timer_check(&qp, dev.rc.ptime + t);
	cr_assert_eq(probes, 2, "the peer is asked (twice)");
	cr_assert_eq(qp.comp.rtx_deadline, dev.rc.ptime + 3 * t, "backed off from then");
}
