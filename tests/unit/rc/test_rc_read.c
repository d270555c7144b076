/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * READ resources (rc/rc_read.c) alone: the responder's answer ring
 * (max_dest_rd_atomic in progress, answers kept until acknowledged, request
 * order), its refusals, and the requester's FIFO of outstanding READs. The
 * test includes the .c with the tracker; the rest is stubbed.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_read.c"
#include "../../../drivers/rdma/blue/rc/rc_track.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

static int mr_rc;
static unsigned int naks, acks;
static uint8_t nak_status;

int
rc_mr_check(const struct blue_qp *qp, uint32_t key, uint64_t addr, uint64_t len,
	    unsigned int access)
{
	(void)qp;
	(void)key;
	(void)addr;
	(void)len;
	cr_assert_eq(access, ORDK_ACCESS_REMOTE_READ);
	return mr_rc;
}

RC_STUB(rc_ctrl_msg);

bool
rc_send_ctrl(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	(void)qp;
	cr_assert_eq(m->type, BLUE_CTRL_READ_NAK);
	nak_status = m->read_nak.status;
	naks++;
	return true;
}

/* rc_resp.c's, counter and all */
enum rc_rx_result
rc_resp_mark(struct blue_qp *qp, uint32_t psn)
{
	enum rc_rx_result res = rc_rx_mark(&qp->resp, psn);

	if (res == RC_RX_BEYOND)
		qp->vqp.st.out_of_window++;
	return res;
}

RC_STUB(rc_hole_open);
RC_STUB(rc_activate);
RC_STUB(rc_timer_set);
RC_STUB(rc_timer_arm);

void
rc_comp_acked(struct blue_qp *qp, uint32_t psn)
{
	qp->comp.acked_psn = psn;
	acks++;
}

RC_STUB(rc_complete_sends);
RC_STUB(rc_wqe_to);
RC_STUB(rc_key_ready);
RC_STUB(rc_key_revoke);
RC_STUB(rc_key_gone);
RC_STUB(rc_key_revoke_step);
RC_STUB(rc_key_orphan);

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_wqe ans[ORDK_ANS_RING], sq[8];
static uint32_t reads[8];
#define E0 (BLUE_PSN_MASK - 1u) /* the requests cross the 2^24 wrap */

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(ans, 0, sizeof(ans));
	memset(sq, 0, sizeof(sq));
	mr_rc = 0;
	naks = acks = ut_rc_complete_sends_calls = 0;
	dev.rc.ptime = 100;
	dev.rc.tsc_hz = 1000000;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.vqp.attr.qp_access_flags = ORDK_ACCESS_REMOTE_READ; /* READs are answered */
	qp.vqp.attr.max_dest_rd_atomic = 4;
	qp.vqp.attr.path_mtu = ORDK_MTU_1024;
	qp.resp.ans = ans;
	qp.req.sq = sq;
	qp.req.sq_size = 8;
	qp.req.sq_mask = 7;
	qp.req.reads = reads;
	rc_fifo_init(&qp.req.rd_q, 8);
	rc_rx_reset(&qp.resp, E0);
}

TestSuite(rc_read, .init = setup);

static void
request(uint32_t psn, uint16_t msn)
{
	struct blue_meta_report r = { .kind = BLUE_META_HEADER_READ };

	r.basic = (struct blue_meta_basic){ .psn = psn, .msn = msn, .raddr = 0x5000,
					    .rkey = 0x105 };
	r.read_ext = (struct blue_meta_read_ext){ .total_len = 2048, .laddr = 0x9000,
						  .lkey = 0x207 };
	rc_rx_read(&qp, &r);
}

static uint32_t
queued(void)
{
	return qp.resp.ans_tail - qp.resp.ans_next;
}

/* ------------------------------------------------------------ responder */

Test(rc_read, answers_go_in_request_order)
{
	request(blue_psn_add(E0, 0), 1);
	request(blue_psn_add(E0, 2), 3); /* E0+1 lost */
	cr_assert_eq(rc_hole_state(&qp.resp), RC_HOLE_SETTLED, "a request beyond a hole opens it");
	request(blue_psn_add(E0, 3), 4);
	request(blue_psn_add(E0, 1), 2); /* resent: answered before the later ones */
	cr_assert_eq(queued(), 4);
	for (uint32_t i = 0; i < 4; i++) {
		cr_assert_eq(ans[i].req_psn, blue_psn_add(E0, i), "answer %u", i);
		cr_assert_eq(ans[i].msn, i + 1);
		cr_assert(ans[i].flags & RC_WQE_INTERNAL);
		cr_assert_eq(ans[i].len, 2048);
		cr_assert_eq(ans[i].raddr, 0x9000, "to the requester's buffer");
		cr_assert_eq(ans[i].laddr, 0x5000, "from ours");
	}
	cr_assert_eq(qp.resp.epsn, blue_psn_add(E0, 4));
	cr_assert_eq(qp.vqp.st.read_resp_posted, 4);
}

Test(rc_read, beyond_max_dest_rd_atomic_is_refused)
{
	for (uint32_t i = 0; i < 4; i++)
		request(blue_psn_add(E0, i), (uint16_t)i);
	cr_assert_eq(naks, 0);
	request(blue_psn_add(E0, 4), 4);
	cr_assert_eq(naks, 1);
	cr_assert_eq(nak_status, BLUE_CTRL_ATOMIC_REM_INV_REQ);
	cr_assert_eq(queued(), 4);
	cr_assert_eq(qp.vqp.st.read_req_rejected, 1);
}

Test(rc_read, answers_kept_until_acknowledged_defer_new_requests)
{
	/* the ring full of answers sent and not acknowledged */
	qp.resp.ans_head = 0;
	qp.resp.ans_next = qp.resp.ans_tail = ORDK_ANS_RING;
	request(E0, 1);
	cr_assert_eq(qp.vqp.st.read_req_deferred, 1);
	cr_assert_eq(qp.resp.epsn, E0, "taken as not received: the requester asks again");
	cr_assert_eq(naks, 0, "never refused");
	/* an ACK frees one: the request is answered */
	qp.resp.ans_head = 1;
	request(E0, 1);
	cr_assert_eq(queued(), 1);
	cr_assert_eq(qp.resp.epsn, blue_psn_add(E0, 1));
}

Test(rc_read, a_duplicate_is_acked_not_answered_again)
{
	request(E0, 1);
	request(E0, 1);
	cr_assert_eq(queued(), 1);
	cr_assert_eq(qp.vqp.st.duplicates, 1);
	cr_assert(qp.resp.ack_due);
}

/*
 * The wire repeats a READ request while the ring is full of answers sent
 * and not acknowledged: a duplicate, not a deferral, and never a second
 * answer (a second one counts against max_dest_rd_atomic, and the
 * requester's next READ is refused).
 */
Test(rc_read, a_duplicate_while_the_ring_is_full_is_no_second_answer)
{
	qp.resp.ans_head = 0;
	qp.resp.ans_next = qp.resp.ans_tail = ORDK_ANS_RING - 1;
	request(E0, 1);
	cr_assert_eq(queued(), 1, "the last slot takes it");
	request(E0, 1);
	cr_assert_eq(queued(), 1);
	cr_assert_eq(qp.vqp.st.duplicates, 1);
	cr_assert_eq(qp.vqp.st.read_req_deferred, 0, "a duplicate is no new request");
	cr_assert_eq(naks, 0);
}

/*
 * A request deferred (the ring full) and its copies: the wire's duplicate
 * and the requester's resend. Whichever finds room first is the one answer.
 */
Test(rc_read, a_deferred_request_and_its_copies_are_answered_once)
{
	uint32_t i;

	qp.resp.ans_head = 0;
	qp.resp.ans_next = qp.resp.ans_tail = ORDK_ANS_RING;
	request(E0, 1);
	request(E0, 1); /* the wire's copy: still full */
	cr_assert_eq(qp.vqp.st.read_req_deferred, 2);
	cr_assert_eq(qp.resp.epsn, E0);
	qp.resp.ans_head = 3; /* ACKs free three slots */
	for (i = 0; i < 3; i++)
		request(blue_psn_add(E0, 1 + i), (uint16_t)(2 + i)); /* later READs */
	request(E0, 1); /* the resend */
	request(E0, 1); /* and its copy */
	cr_assert_eq(queued(), 3, "the ring has room for three: the fourth waits");
	cr_assert_eq(qp.vqp.st.read_req_deferred, 4);
	qp.resp.ans_head = 4;
	request(E0, 1);
	request(E0, 1);
	cr_assert_eq(queued(), 4);
	cr_assert_eq(ans[qp.resp.ans_next % ORDK_ANS_RING].req_psn, E0, "the oldest first");
	cr_assert_eq(qp.resp.epsn, blue_psn_add(E0, 4));
	cr_assert_eq(qp.vqp.st.duplicates, 1);
	cr_assert_eq(naks, 0, "never refused: the requester kept to max_dest_rd_atomic");
}

/*
 * Issue 32: a READ request beyond a hole (an earlier PSN late or lost) is
 * recorded, not passed by the expected PSN, and the wire repeats it. The
 * copy is no second answer: a second one counts against
 * max_dest_rd_atomic, and the requester's READ that fills the hole (it kept
 * to its limit) was refused with REM_INV_REQ_ERR.
 */
Test(rc_read, a_duplicate_beyond_a_hole_is_no_second_answer)
{
	request(blue_psn_add(E0, 1), 2); /* E0 late */
	request(blue_psn_add(E0, 1), 2); /* the wire's copy */
	request(blue_psn_add(E0, 2), 3);
	request(blue_psn_add(E0, 3), 4);
	request(E0, 1); /* the fourth of max_dest_rd_atomic = 4 */
	cr_assert_eq(qp.vqp.st.read_req_rejected, 0, "the requester kept to max_dest_rd_atomic");
	cr_assert_eq(naks, 0);
	cr_assert_eq(qp.vqp.st.duplicates, 1);
	cr_assert(qp.resp.ack_due, "a duplicate is ACKed again");
	cr_assert_eq(queued(), 4, "one answer for each request");
	for (uint32_t i = 0; i < 4; i++)
		cr_assert_eq(ans[i].req_psn, blue_psn_add(E0, i), "answer %u in request order", i);
	cr_assert_eq(qp.resp.epsn, blue_psn_add(E0, 4));
}

/*
 * The same copy while the ring is full of answers sent and not
 * acknowledged: the original took the last slot; its copy is neither
 * deferred nor refused (the ring full, a new request would be).
 */
Test(rc_read, a_duplicate_beyond_a_hole_while_the_ring_is_full_is_not_refused)
{
	qp.resp.ans_head = 0;
	qp.resp.ans_next = qp.resp.ans_tail = ORDK_ANS_RING - 1;
	request(blue_psn_add(E0, 1), 2); /* E0 late; the last slot */
	cr_assert_eq(queued(), 1);
	request(blue_psn_add(E0, 1), 2);
	cr_assert_eq(naks, 0, "a copy of a request answered already is never refused");
	cr_assert_eq(queued(), 1);
	cr_assert_eq(qp.vqp.st.read_req_deferred, 0, "a duplicate is no new request");
	cr_assert_eq(qp.vqp.st.duplicates, 1);
	/* the late one, the ring still full: deferred, then answered once an ACK frees a slot */
	request(E0, 1);
	cr_assert_eq(qp.vqp.st.read_req_deferred, 1);
	qp.resp.ans_head = 1;
	request(E0, 1);
	cr_assert_eq(queued(), 2);
	cr_assert_eq(ans[qp.resp.ans_next % ORDK_ANS_RING].req_psn, E0, "the oldest first");
	cr_assert_eq(qp.resp.epsn, blue_psn_add(E0, 2));
	cr_assert_eq(naks, 0);
}

/*
 * A request past the tracked window cannot be one of the requester's (it
 * keeps its PSNs within the window, rc_req.c): a frame of an earlier
 * connection, or a corrupt one. Not answered (it would hold a slot of
 * max_dest_rd_atomic until the expected PSN reached it), counted.
 */
Test(rc_read, a_request_past_the_window_is_not_answered)
{
	request(blue_psn_add(E0, ORDK_RECV_WINDOW + 5), 9);
	cr_assert_eq(queued(), 0);
	cr_assert_eq(qp.vqp.st.out_of_window, 1);
	cr_assert_eq(naks, 0);
	for (uint32_t i = 0; i < 4; i++)
		request(blue_psn_add(E0, i), (uint16_t)(i + 1));
	cr_assert_eq(naks, 0);
	cr_assert_eq(queued(), 4);
}

Test(rc_read, no_access_is_refused)
{
	mr_rc = -EPERM;
	request(E0, 1);
	cr_assert_eq(naks, 1);
	cr_assert_eq(nak_status, BLUE_CTRL_ATOMIC_REM_ACCESS_ERR);
	cr_assert_eq(queued(), 0);
}

/* ------------------------------------------------------------ requester */

static void
outstanding_reads(unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		sq[i] = (struct rc_wqe){ .opcode = BLUE_WR_RDMA_READ, .msn = (uint16_t)(10 + i),
					 .psn = 100 + i, .npkts = 1, .len = 4096,
					 .state = RC_WQE_SENT };
		reads[i] = i;
	}
	qp.req.rd_q.count = n;
	qp.req.sq_next = qp.req.sq_tail = n;
}

/* The ONLY packet that answers READ msn @p msn, of @p len bytes. */
static struct rc_msg
only(uint16_t msn, uint32_t len)
{
	return (struct rc_msg){ .opcode = BLUE_OP_READ_RESPONSE_ONLY, .msn = msn, .len = len };
}

Test(rc_read, a_response_finishes_the_oldest_read_only)
{
	struct rc_msg m = only(11, 1024); /* not the oldest's MSN: nobody's */

	outstanding_reads(3);
	for (int i = 0; i < 3; i++)
		sq[i].len = 1024; /* one packet each */
	rc_read_done(&qp, &m);
	cr_assert_eq(qp.req.rd_q.count, 3);
	cr_assert_eq(qp.vqp.st.read_resp_unsolicited, 1);
	m = only(10, 1024);
	rc_read_done(&qp, &m);
	cr_assert_eq(qp.req.rd_q.count, 2);
	cr_assert_eq(qp.req.rd_q.head, 1);
	cr_assert_eq(sq[0].state, RC_WQE_DONE);
	cr_assert_eq(qp.comp.acked_psn, 101, "the response acknowledges its request");
}

Test(rc_read, a_refused_read_leaves_the_fifo_in_order)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_READ_NAK };

	outstanding_reads(3);
	m.read_nak.psn = 101;
	m.read_nak.status = BLUE_CTRL_ATOMIC_REM_ACCESS_ERR;
	rc_read_nak_rx(&qp, &m);
	cr_assert_eq(qp.req.rd_q.count, 2);
	cr_assert_eq(reads[(qp.req.rd_q.head + 0) % 8], 0);
	cr_assert_eq(reads[(qp.req.rd_q.head + 1) % 8], 2);
	cr_assert_eq(sq[1].state, RC_WQE_ERROR);
	cr_assert(sq[1].flags & RC_WQE_FATAL);
	cr_assert_eq(sq[1].status, ORDK_WC_REM_ACCESS_ERR);
	cr_assert_eq(ut_rc_complete_sends_calls, 1);
	m.read_nak.psn = 555; /* no READ there */
	rc_read_nak_rx(&qp, &m);
	cr_assert_eq(qp.req.rd_q.count, 2);
	cr_assert_eq(qp.vqp.st.duplicates, 1);
}

/* An answer shorter than its READ (one packet, fewer bytes) fails it: BAD_RESP_ERR, QP to ERR. */
Test(rc_read, a_short_only_answer_fails_the_read)
{
	struct rc_msg m = only(10, 4095);

	outstanding_reads(2);
	sq[0].len = sq[1].len = 1024; /* one packet at PMTU 1024 */
	rc_read_done(&qp, &m);
	cr_assert_eq(sq[0].state, RC_WQE_ERROR);
	cr_assert(sq[0].flags & RC_WQE_FATAL);
	cr_assert_eq(sq[0].status, ORDK_WC_BAD_RESP_ERR);
	cr_assert_eq(qp.vqp.st.read_resp_len_errors, 1);
	cr_assert_eq(qp.req.rd_q.count, 1);
	cr_assert_eq(acks, 0, "no implicit ACK from a bad answer");
}

/*
 * A FIRST that says another length, a FIRST for a one-packet READ, and a
 * LAST whose PSN is not where the READ's packet count puts it: each fails
 * its READ; the answer of the right shape completes it.
 */
Test(rc_read, answers_of_the_wrong_shape_fail_the_read)
{
	struct rc_msg m;

	outstanding_reads(4); /* 4096 B at laddr 0, PMTU 1024: 4 packets */
	rc_read_answer_seen(&qp, 10, 500, 8192, 100);
	cr_assert_eq(sq[0].status, ORDK_WC_BAD_RESP_ERR, "a FIRST longer than the READ");
	sq[1].len = 512;
	rc_read_answer_seen(&qp, 11, 501, 512, 100);
	cr_assert_eq(sq[1].state, RC_WQE_ERROR, "a FIRST for a one-packet READ");
	rc_read_answer_seen(&qp, 12, 600, 4096, 100);
	cr_assert_eq(sq[2].state, RC_WQE_ANSWERING);
	cr_assert_eq(sq[2].ans_psn, 600);
	m = (struct rc_msg){ .opcode = BLUE_OP_READ_RESPONSE_LAST, .msn = 12, .end_psn = 602,
			     .len = 1024 };
	rc_read_done(&qp, &m);
	cr_assert_eq(sq[2].state, RC_WQE_ERROR, "3 PSNs for a READ of 4");
	rc_read_answer_seen(&qp, 13, 700, 4096, 100);
	m = (struct rc_msg){ .opcode = BLUE_OP_READ_RESPONSE_LAST, .msn = 13, .end_psn = 703,
			     .len = 512 };
	rc_read_done(&qp, &m);
	cr_assert_eq(sq[3].state, RC_WQE_ERROR, "a LAST shorter than the READ's last packet");
	cr_assert_eq(qp.vqp.st.read_resp_len_errors, 4);
	cr_assert_eq(qp.req.rd_q.count, 0);
}

Test(rc_read, an_answer_of_the_right_shape_completes)
{
	struct rc_msg m = { .opcode = BLUE_OP_READ_RESPONSE_LAST, .msn = 10, .end_psn = 503,
			    .len = 1024 };

	outstanding_reads(1);
	rc_read_answer_seen(&qp, 10, 500, 4096, 100);
	rc_read_done(&qp, &m);
	cr_assert_eq(sq[0].state, RC_WQE_DONE);
	cr_assert_eq(qp.vqp.st.read_resp_len_errors, 0);
}
