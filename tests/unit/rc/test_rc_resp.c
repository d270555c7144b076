/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The responder's report handling (drivers/rdma/blue/rc/rc_resp.c) with the
 * receive tracker, across the 2^24 wrap: header reports, the card's bitmap
 * reports (AckLocalHw, NakLocalHw) and the PSNs they imply, messages
 * completing in PSN order. The test includes both .c files and stubs their
 * neighbours; completions and hole checks are recorded.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_resp.c"
#include "../../../drivers/rdma/blue/rc/rc_track.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

static unsigned int hole_checks, hole_reports, recvs_done;
static struct ordk_wc last_wc;

RC_STUB(rc_read_progress);
RC_STUB(rc_atomic_progress);
RC_STUB(rc_read_answer_seen);
RC_STUB(rc_read_done);
RC_STUB(verbs_srq_consumed);

void
rc_recv_done(struct blue_qp *qp, struct rc_rwqe *r, const struct ordk_wc *wc)
{
	(void)qp;
	(void)r;
	last_wc = *wc;
	recvs_done++;
}

RC_STUB(rc_push_owed_answers);
RC_STUB(rc_ack_frame);

static unsigned int access_naks;

RC_STUB(rc_ctrl_msg);

/* only a WRITE's refusal goes as a control frame from here */
bool
rc_send_ctrl(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	(void)qp;
	cr_assert_eq(m->type, BLUE_CTRL_READ_NAK);
	cr_assert_eq(m->read_nak.status, BLUE_CTRL_ATOMIC_REM_ACCESS_ERR);
	access_naks++;
	return true;
}

void
rc_qp_error(struct blue_qp *qp)
{
	qp->vqp.attr.qp_state = ORDK_QPS_ERR;
}

RC_STUB(rc_hole_open);

void
rc_hole_check(struct blue_qp *qp, bool report)
{
	(void)qp;
	hole_checks++;
	hole_reports += report;
}

RC_STUB(rc_activate);

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_msg msgs[16];
static struct rc_rwqe rq[8];

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	hole_checks = hole_reports = ut_rc_hole_open_calls = recvs_done = ut_rc_read_done_calls = 0;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.vqp.attr.qp_access_flags = ORDK_ACCESS_REMOTE_WRITE; /* WRITEs are taken (write_refuse()) */
	qp.resp.msgs = msgs;
	rc_fifo_init(&qp.resp.msg_q, 16);
	qp.resp.rq = rq;
	rc_fifo_init(&qp.resp.rq_q, 8);
	dev.rc.ptime = 1000;
}

TestSuite(rc_resp, .init = setup);

/* A header report of packet @p op at @p psn. */
static void
header(uint8_t op, uint32_t psn, uint16_t msn, uint32_t total_len)
{
	struct blue_meta_report r = { .kind = BLUE_META_HEADER_WRITE, .opcode = op };

	r.basic = (struct blue_meta_basic){ .psn = psn, .msn = msn, .total_len = total_len };
	rc_resp_rx_report(&qp, &r);
}

/* Bits for PSNs [from, to) of the card window whose newest stride starts at @p now16. */
static struct blue_bitmap128
window_bits(uint32_t now16, uint32_t from, uint32_t to)
{
	uint32_t base = rc_card_window_base(now16);
	struct blue_bitmap128 b = { 0, 0 };

	for (uint32_t p = from; p != to; p = blue_psn_add(p, 1)) {
		uint32_t i = (uint32_t)blue_psn_diff(p, base);

		cr_assert_lt(i, 128u, "PSN 0x%06x is outside the window of 0x%06x", p, now16);
		if (i < 64)
			b.lo |= 1ull << i;
		else
			b.hi |= 1ull << (i - 64);
	}
	return b;
}

/* The card's idle report: window of newest stride @p now16, PSNs [from, to) set. */
static void
idle_report(uint32_t now16, uint32_t from, uint32_t to)
{
	struct blue_meta_report r = { .kind = BLUE_META_ACK_LOCAL_HW };

	r.ack.psn_now = now16;
	r.ack.now_bitmap = window_bits(now16, from, to);
	rc_resp_rx_report(&qp, &r);
}

/* ------------------------------------------------------------ cases */

/*
 * One message of 0x80 packets from 0xffffc0 to 0x00003f: the card reports
 * FIRST and LAST, the MIDDLE packets only in its bitmaps, whose windows cross
 * the wrap. The RECV completes once epsn passed the LAST, not before.
 */
Test(rc_resp, a_message_across_the_wrap_completes_once_every_psn_arrived)
{
	const uint32_t first = 0xFFFFC0, last = 0x00003F;

	rc_rx_reset(&qp.resp, first);
	qp.resp.rq_q.count = 1;
	rq[0] = (struct rc_rwqe){ .wr_id = 7, .len = 1u << 20 };
	header(BLUE_OP_SEND_FIRST, first, 3, 0x80 * 256);
	cr_assert_eq(qp.resp.epsn, blue_psn_add(first, 1));
	/* window of newest stride 0x000030: PSNs 0xffffc0..0x00002f all arrived */
	idle_report(0x000030, first, 0x000030);
	cr_assert_eq(qp.resp.epsn, 0x000030, "epsn 0x%06x", qp.resp.epsn);
	cr_assert_eq(hole_reports, 0, "nothing beyond epsn was seen: no hole");
	header(BLUE_OP_SEND_LAST, last, 3, 0);
	cr_assert_eq(recvs_done, 0, "0x30..0x3e not reported yet: no completion");
	cr_assert_eq(qp.resp.msg_q.count, 1);
	idle_report(0x000030, 0x000030, 0x00003F);
	cr_assert_eq(qp.resp.epsn, 0x000040);
	cr_assert_eq(recvs_done, 1);
	cr_assert_eq(last_wc.wr_id, 7);
	cr_assert_eq(last_wc.byte_len, 0x80 * 256, "the FIRST's length, by MSN");
	cr_assert_eq(last_wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(qp.resp.msg_q.count, 0);
	/* a late copy of the FIRST, from before the wrap: a duplicate, never completed again */
	header(BLUE_OP_SEND_FIRST, first, 3, 0x80 * 256);
	cr_assert_eq(qp.vqp.st.duplicates, 1);
	cr_assert_eq(recvs_done, 1);
}

/*
 * Between two reports the card's window slid from 0xffffa0's to PSN 0's:
 * PSNs that slid out without a loss report arrived, across the wrap.
 */
Test(rc_resp, a_window_that_slid_across_the_wrap_implies_what_it_passed)
{
	rc_rx_reset(&qp.resp, 0xFFFF90);
	idle_report(0xFFFFF0, 0xFFFF90, 0xFFFFA0);
	cr_assert_eq(qp.resp.epsn, 0xFFFFA0);
	cr_assert_eq(qp.resp.card_base, 0xFFFF90, "a window behind the last base moves nothing");
	/* newest stride 0x70: base 0x000000; 0xffff80..0xffffff slid out unreported */
	idle_report(0x000070, 0x000000, 0x000005);
	cr_assert_eq(qp.resp.epsn, 0x000005, "epsn 0x%06x", qp.resp.epsn);
	cr_assert_eq(qp.resp.card_base, 0x000000);
	/* an older report after a newer one moves nothing back */
	idle_report(0xFFFFF0, 0xFFFF90, 0xFFFFA0);
	cr_assert_eq(qp.resp.card_base, 0x000000);
	cr_assert_eq(qp.resp.epsn, 0x000005);
}

/*
 * A loss report (NakLocalHw) whose old window holds the wrap and a hole at
 * 0xfffff5: everything before the hole is taken, the hole stays, what came
 * after it (across the wrap) is recorded, and the hole is checked as shown
 * by a report.
 */
Test(rc_resp, a_loss_report_across_the_wrap_keeps_exactly_its_hole)
{
	struct blue_meta_report r = { .kind = BLUE_META_NAK_LOCAL_HW };
	const uint32_t hole = 0xFFFFF5;

	rc_rx_reset(&qp.resp, 0xFFFF70);
	r.ack.is_packet_lost = 1;
	r.ack.is_window_slided = 1;
	r.ack.psn_before_slide = 0x000000; /* old window 0xffff90..0x00000f */
	r.ack.pre_bitmap = window_bits(0x000000, 0xFFFF90, hole);
	{
		struct blue_bitmap128 after = window_bits(0x000000, blue_psn_add(hole, 1), 0x000010);

		r.ack.pre_bitmap.lo |= after.lo;
		r.ack.pre_bitmap.hi |= after.hi;
	}
	r.ack.psn_now = 0x000080; /* new window 0x000010..0x00008f */
	r.ack.now_bitmap = window_bits(0x000080, 0x000010, 0x000081);
	rc_resp_rx_report(&qp, &r);
	cr_assert_eq(qp.resp.epsn, hole, "epsn 0x%06x", qp.resp.epsn);
	cr_assert(rc_rx_seen(&qp.resp, 0x000000), "PSN 0 arrived");
	cr_assert(rc_rx_seen(&qp.resp, 0x000080));
	cr_assert_eq(rc_rx_first_seen_after(&qp.resp, blue_psn_add(hole, ORDK_RECV_WINDOW)),
		     blue_psn_add(hole, 1));
	cr_assert_eq(hole_reports, 1, "the report shows the hole (a later PSN was seen)");
	cr_assert_eq(qp.resp.card_base, 0x000010);
	/* the resend fills it: epsn runs across the wrap to the end of what arrived */
	header(BLUE_OP_WRITE_ONLY, hole, 9, 256);
	cr_assert_eq(qp.resp.epsn, 0x000081, "epsn 0x%06x", qp.resp.epsn);
}

/*
 * Messages whose LASTs arrive out of order around the wrap complete in PSN
 * order: the queue compares PSNs as 24-bit serial numbers (0x000002 is after
 * 0xfffffe).
 */
Test(rc_resp, messages_complete_in_psn_order_across_the_wrap)
{
	rc_rx_reset(&qp.resp, 0xFFFFFE);
	qp.resp.rq_q.count = 3;
	for (int i = 0; i < 3; i++)
		rq[i] = (struct rc_rwqe){ .wr_id = 100 + (uint64_t)i, .len = 4096 };
	/* ONLYs at 0xffffff and 0x000000 arrive, the one at 0xfffffe is late */
	header(BLUE_OP_SEND_ONLY, 0x000000, 2, 30);
	header(BLUE_OP_SEND_ONLY, 0xFFFFFF, 1, 20);
	cr_assert_eq(recvs_done, 0);
	cr_assert_eq(qp.resp.msg_q.count, 2);
	cr_assert_eq(msgs[rc_fifo_at(&qp.resp.msg_q, 0)].end_psn, 0xFFFFFF, "queued in PSN order");
	header(BLUE_OP_SEND_ONLY, 0xFFFFFE, 0, 10);
	cr_assert_eq(recvs_done, 3);
	cr_assert_eq(last_wc.wr_id, 102);
	cr_assert_eq(last_wc.byte_len, 30, "the last RECV took the message at PSN 0");
	cr_assert_eq(qp.resp.epsn, 0x000001);
}

/*
 * A QP without REMOTE_WRITE: the card placed the WRITE (its QP context needs
 * REMOTE_WRITE for SENDs), the driver refuses it at the report: NAK remote
 * access error (twice), the PSN not taken, the QP to ERR. A SEND is no WRITE.
 */
Test(rc_resp, write_without_remote_write_refused)
{
	qp.vqp.attr.qp_access_flags = ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_READ;
	access_naks = 0;
	header(BLUE_OP_SEND_ONLY, 0, 0, 64);
	cr_assert_eq(access_naks, 0, "a SEND needs no remote access");
	cr_assert_eq(qp.resp.epsn, 1);
	header(BLUE_OP_WRITE_ONLY, 1, 1, 64);
	cr_assert_eq(access_naks, 2);
	cr_assert_eq(qp.vqp.st.access_refused, 1);
	cr_assert_eq(qp.resp.epsn, 1, "the refused PSN was taken");
	cr_assert_eq(qp.vqp.attr.qp_state, ORDK_QPS_ERR);
}
