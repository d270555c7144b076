/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The QP's lifecycle in rc/rc_qp.c: the asynchronous error transition
 * (ManageQp submitted, reaped by the engine, then the flush) and the MR range
 * check. The test includes the .c and stubs its neighbours: the command
 * queue, the CQ, the event queue, the MR table.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_qp.c"
#include "../../../drivers/rdma/blue/rc/rc_track.c"

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

RC_STUB(rc_sgl_check);
RC_STUB(verbs_trace_add);
RC_STUB(rc_key_pgt);
RC_STUB(rc_read_keys_revoke_all);
RC_STUB(rc_read_keys_wait);
RC_STUB(rc_read_keys_release);
RC_STUB(blue_cmd_manage_qp);
static unsigned int cqes, flush_cqes;
static struct blue_mr mr;

void
verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc)
{
	(void)cq;
	cqes++;
	flush_cqes += wc->status == ORDK_WC_WR_FLUSH_ERR;
}

RC_STUB(verbs_event_raise);

struct blue_mr *
blue_mr_lookup(struct blue_dev *dev, uint32_t key)
{
	(void)dev;
	return key == mr.vmr.pub.lkey ? &mr : NULL;
}

RC_STUB(ordk_wc_status_str);
RC_STUB(rc_recv_retire);
RC_STUB(rc_srq_join);
RC_STUB(rc_srq_return);
RC_STUB(rc_srq_last_wqe);
RC_STUB(rc_recv_keys_release);
RC_STUB(rc_timer_set);
RC_STUB(rc_activate);
RC_STUB(rc_qp_set_timeout);
RC_STUB(rc_comp_to);

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;
static struct ordk_pd pd;
static struct rc_wqe sq[8];
static struct rc_rwqe rq[8];

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sq, 0, sizeof(sq));
	memset(rq, 0, sizeof(rq));
	submit_rc = 42;
	submits = cqes = flush_cqes = 0;
	ut_verbs_event_raise_calls = ut_rc_recv_keys_release_calls = 0;
	cmd_done = cmd_ok = false;
	dev.rc.ptime = 1000;
	dev.hw.cmd_timeout_tsc = 500;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.pd = &pd;
	qp.vqp.qpn = 0x000101;
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.req.sq = sq;
	qp.req.sq_size = 8;
	qp.req.sq_mask = 7;
	qp.resp.rq = rq;
	rc_fifo_init(&qp.resp.rq_q, 8);
	rc_fifo_init(&qp.resp.rdone_q, 8);
	/* three WRs posted, two RECVs */
	qp.req.sq_tail = 3;
	qp.req.sq_user = 3;
	qp.req.sq_next = 1;
	qp.resp.rq_q.count = 2;
	qp.req.rtx_count = 5;
	qp.comp.rtx_deadline = 2000;
	mr = (struct blue_mr){ .vmr.pub = { .pd = &pd, .addr = (void *)(uintptr_t)0x10000,
					   .length = 0x1000, .lkey = 0x0107,
					   .access = ORDK_ACCESS_LOCAL_WRITE |
						     ORDK_ACCESS_REMOTE_READ } };
}

TestSuite(rc_qp, .init = setup);

/* ------------------------------------------------------------ errors */

Test(rc_qp, error_submits_and_returns_without_waiting)
{
	rc_qp_error(&qp);
	cr_assert_eq(qp.vqp.attr.qp_state, ORDK_QPS_ERR);
	cr_assert_eq(qp.comp.state, RC_COMP_FLUSH);
	cr_assert_eq(submits, 1);
	cr_assert(qp.comp.err_submitted);
	cr_assert_eq(qp.comp.rtx_deadline, 0, "timer stopped");
	cr_assert_eq(qp.req.rtx_count, 0, "resends dropped");
	cr_assert(qp.sched.on_active, "the engine reaps it");
	cr_assert_eq(cqes, 0, "nothing flushed before the card confirmed");
	cr_assert_eq(ut_verbs_event_raise_calls, 0);
	/* the card has not answered: the poll goes on, nothing flushed */
	cr_assert_eq(rc_qp_error_reap(&qp), RC_MORE);
	cr_assert_eq(cqes, 0);
	cmd_done = cmd_ok = true;
	cr_assert_eq(rc_qp_error_reap(&qp), RC_DONE);
	cr_assert_eq(flush_cqes, 3 + 2, "every WR and RECV flushed");
	cr_assert_eq(ut_verbs_event_raise_calls, 1, "QP_FATAL once");
	cr_assert_eq(qp.comp.state, RC_COMP_ERROR);
	cr_assert_eq(qp.req.sq_head, qp.req.sq_tail);
	cr_assert_eq(qp.resp.rq_q.count, 0);
	cr_assert_eq(submits, 1);
}

Test(rc_qp, a_full_command_ring_is_tried_again)
{
	submit_rc = -EAGAIN;
	rc_qp_error(&qp);
	cr_assert_not(qp.comp.err_submitted);
	cr_assert_eq(rc_qp_error_reap(&qp), RC_MORE);
	cr_assert_eq(submits, 2);
	submit_rc = 42;
	cr_assert_eq(rc_qp_error_reap(&qp), RC_MORE);
	cr_assert(qp.comp.err_submitted);
	cmd_done = cmd_ok = true;
	cr_assert_eq(rc_qp_error_reap(&qp), RC_DONE);
	cr_assert_eq(flush_cqes, 5);
}

Test(rc_qp, a_card_that_never_answers_is_flushed_at_the_deadline)
{
	rc_qp_error(&qp);
	dev.rc.ptime = 1000 + 499;
	cr_assert_eq(rc_qp_error_reap(&qp), RC_MORE);
	dev.rc.ptime = 1000 + 500;
	cr_assert_eq(rc_qp_error_reap(&qp), RC_DONE);
	cr_assert_eq(flush_cqes, 5);
	cr_assert_eq(ut_verbs_event_raise_calls, 1);
}

Test(rc_qp, reset_before_the_reap_completes_what_was_owed)
{
	rc_qp_error(&qp);
	rc_qp_reset(&qp);
	cr_assert_eq(flush_cqes, 5);
	cr_assert_eq(ut_verbs_event_raise_calls, 1);
	cr_assert_eq(qp.comp.state, RC_COMP_IDLE);
	/* and a flush (modify to ERR) after the reap flushes nothing twice */
	rc_qp_flush(&qp);
	cr_assert_eq(flush_cqes, 5);
	cr_assert_eq(ut_verbs_event_raise_calls, 1);
}

Test(rc_qp, fail_completes_the_oldest_wr_with_the_status)
{
	rc_qp_fail(&qp, ORDK_WC_RETRY_EXC_ERR);
	cr_assert_eq(cqes, 1, "the oldest WR at once");
	cr_assert_eq(flush_cqes, 0);
	cmd_done = cmd_ok = true;
	rc_qp_error_reap(&qp);
	cr_assert_eq(flush_cqes, 2 + 2, "the other two WRs and the RECVs");
}

/* ------------------------------------------------------------ MR check */

Test(rc_qp, mr_range_check)
{
	unsigned int rd = ORDK_ACCESS_REMOTE_READ;

	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x10000, 0x1000, rd), 0, "the whole MR");
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x10ff8, 8, rd), 0, "its last 8 bytes");
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x11000, 0, rd), 0, "empty, at the end");
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x10ff9, 8, rd), -ERANGE, "one past the end");
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0xffff, 8, rd), -ERANGE, "before the start");
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x11001, 0, rd), -ERANGE);
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x10008, UINT64_MAX - 4, rd), -ERANGE,
		     "a length that wraps");
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x10000, 8, ORDK_ACCESS_REMOTE_ATOMIC), -EPERM,
		     "missing access");
	cr_assert_eq(rc_mr_check(&qp, 0x0207, 0x10000, 8, rd), -EPERM, "no such key");
	mr.vmr.pub.pd = NULL;
	cr_assert_eq(rc_mr_check(&qp, 0x0107, 0x10000, 8, rd), -EPERM, "another PD");
}
