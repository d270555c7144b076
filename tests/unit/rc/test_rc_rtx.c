/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Retransmission (drivers/rdma/blue/rc/rc_rtx.c) with the completer
 * (rc_comp.c) across the 2^24 wrap: the peer driver's NAK and the peer
 * card's loss report mark exactly the PSNs lost, resends go one packet per
 * item with is_retry and the right offset, ACKs retire WRs whose PSNs cross
 * the wrap. The test includes both .c files and stubs their neighbours; the
 * Send ring's put records items, the clock is the engine's now.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_comp.c"
#include "../../../drivers/rdma/blue/rc/rc_rtx.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

RC_STUB(verbs_trace_add);
RC_STUB(rc_key_revoke);
RC_STUB(rc_key_gone);
RC_STUB(rc_key_revoke_step);
RC_STUB(blue_send_item_put);
RC_STUB(rc_source_ok);

struct blue_send_item
rc_send_item(struct blue_qp *qp, const struct rc_wqe *w, uint32_t off, uint32_t len,
	     uint32_t psn, bool signaled, bool last)
{
	(void)qp;
	return (struct blue_send_item){ .opcode = w->opcode, .psn = psn, .len = len,
					.raddr = w->raddr + off, .is_first = off == 0,
					.is_last = last, .flags = signaled ? BLUE_SEND_SIGNALED : 0 };
}

RC_STUB(rc_activate);

/* the length error's ManageQp (rc_qp.c) is not reached here */
RC_STUB(rc_qp_err_cmd_start);

bool
rc_qp_err_cmd_reaped(struct blue_qp *qp, bool *ok)
{
	(void)qp;
	*ok = true;
	return true;
}

/* the card-window pacing after a resend (rc_req.c) is not under test here */
RC_STUB(rc_late_copy_sent);

RC_STUB(rc_timer_set);
RC_STUB(verbs_cq_push);


RC_STUB(rc_qp_fails);

RC_STUB(blue_manage_qp);
RC_STUB(rc_atomic_send);
RC_STUB(rc_atomic_resend);
RC_STUB(rc_probe);
RC_STUB(ordk_wc_status_str);
RC_STUB(rc_state_name);

/* ------------------------------------------------------------ fixture */

#define PMTU  256u
#define START 0xFFFFF8u /* the WRITE's first PSN: 8 packets before the wrap */
#define NPK   24u	/* ... and 16 after it */

static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_wqe sq[8];
static uint32_t stamps[ORDK_RECV_WINDOW];
static volatile uint32_t tail_reg;

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sq, 0, sizeof(sq));
	memset(stamps, 0, sizeof(stamps));
	nitems = ncqe = fails = 0;
	dev.hw.ring[BLUE_RING_SEND0].tail_reg = &tail_reg;
	dev.rc.tsc_hz = 1000000000;
	dev.rc.ptime = 1ull << 30;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.vqp.attr.path_mtu = ORDK_MTU_256;
	qp.comp.timeout_tsc = 1000000;
	qp.comp.hold_tsc = 100000;
	qp.req.sq = sq;
	qp.req.sq_size = 8;
	qp.req.sq_mask = 7;
	qp.req.rtx_stamp = stamps;
	/* one signaled WRITE of NPK packets, all pushed, nothing acknowledged */
	sq[0] = (struct rc_wqe){ .wr_id = 42, .opcode = BLUE_WR_RDMA_WRITE, .signaled = 1,
				 .len = NPK * PMTU, .raddr = 0x10000, .psn = START, .npkts = NPK,
				 .sent = NPK * PMTU, .state = RC_WQE_SENT };
	qp.req.sq_tail = qp.req.sq_next = 1;
	qp.req.sq_user = 1;
	qp.comp.acked_psn = START;
	qp.req.next_psn = qp.req.pushed_psn = blue_psn_add(START, NPK);
}

TestSuite(rc_rtx, .init = setup);

/* The resend items pushed: PSN @p psn is item @p i, one packet at its offset, a retry. */
static void
check_resend(unsigned int i, uint32_t psn)
{
	uint32_t k = (uint32_t)blue_psn_diff(psn, START);

	cr_assert_lt(i, nitems);
	cr_assert_eq(items[i].psn, psn, "item %u: psn 0x%06x, want 0x%06x", i, items[i].psn, psn);
	cr_assert_eq(items[i].is_retry, 1);
	cr_assert_eq(items[i].len, PMTU);
	cr_assert_eq(items[i].raddr, 0x10000 + (uint64_t)k * PMTU, "packet %u's bytes", k);
	cr_assert_eq(items[i].is_last, k + 1 == NPK);
}

/*
 * The peer driver's NAK: everything before 0xfffffc arrived, [0xfffffc,
 * 0x000003) did not. The ACK part moves acked_psn, the rest goes again,
 * from before the wrap to after it, in PSN order.
 */
Test(rc_rtx, a_driver_nak_resends_from_before_the_wrap)
{
	struct blue_meta_report r = { .kind = BLUE_META_NAK_REMOTE_DRIVER };

	r.ack.psn_before_slide = 0xFFFFFC;
	r.ack.psn_now = 0x000003;
	rc_comp_rx_report(&qp, &r);
	cr_assert_eq(qp.comp.acked_psn, 0xFFFFFC);
	cr_assert_eq(qp.req.rtx_count, 7);
	cr_assert_eq(rc_push_retries(&qp), 7);
	for (uint32_t i = 0; i < 7; i++)
		check_resend(i, blue_psn_add(0xFFFFFC, i));
	cr_assert_eq(qp.req.rtx_count, 0);
	cr_assert_eq(qp.vqp.st.retransmits, 7);
	cr_assert_eq(ncqe, 0, "nothing completes before the ACK");
	/* the same NAK again within the hold: those PSNs are on their way already */
	rc_comp_rx_report(&qp, &r);
	cr_assert_eq(qp.req.rtx_count, 0, "no second copy within the hold");
}

/*
 * The peer card's loss report: its old window (newest stride 0x000000, base
 * 0xffff90) misses PSNs 0xfffffa and 0x000001. Exactly those two go again;
 * the zero bits before acked_psn (never sent by this WR) are not resent.
 */
Test(rc_rtx, a_card_loss_report_across_the_wrap_names_exactly_its_holes)
{
	struct blue_meta_report r = { .kind = BLUE_META_NAK_REMOTE_HW };
	uint32_t base = rc_card_window_base(0x000000);

	cr_assert_eq(base, 0xFFFF90);
	r.ack.psn_before_slide = 0x000000;
	r.ack.psn_now = 0x000080;
	r.ack.pre_bitmap.lo = ~0ull;
	r.ack.pre_bitmap.hi = ~0ull;
	/* bit i stands for base + i: 0xfffffa is bit 0x6a, 0x000001 bit 0x71 */
	r.ack.pre_bitmap.hi &= ~(1ull << (0x6a - 64));
	r.ack.pre_bitmap.hi &= ~(1ull << (0x71 - 64));
	r.ack.pre_bitmap.lo &= ~(1ull << 3); /* 0xffff93: long before this WR, acknowledged */
	rc_comp_rx_report(&qp, &r);
	cr_assert_eq(qp.vqp.st.naks_received, 1);
	cr_assert_eq(qp.req.rtx_count, 2);
	/* the card's loss reports wait out the hold (a delayed original may still come) */
	cr_assert_eq(rc_push_retries(&qp), 0);
	dev.rc.ptime += qp.comp.hold_tsc;
	cr_assert_eq(rc_push_retries(&qp), 2);
	check_resend(0, 0xFFFFFA);
	check_resend(1, 0x000001);
}

/* ACKs retire the WR only once its last PSN, after the wrap, is acknowledged. */
Test(rc_rtx, acks_across_the_wrap_retire_the_wr_once)
{
	uint32_t end = blue_psn_add(START, NPK);

	rc_comp_acked(&qp, 0x000000);
	cr_assert_eq(qp.comp.acked_psn, 0x000000, "an ACK across the wrap moves forward");
	cr_assert_eq(ncqe, 0);
	rc_comp_acked(&qp, 0xFFFFFE);
	cr_assert_eq(qp.comp.acked_psn, 0x000000, "an older ACK moves nothing back");
	rc_comp_acked(&qp, blue_psn_add(end, 1));
	cr_assert_eq(qp.comp.acked_psn, 0x000000, "never past what was sent");
	rc_comp_acked(&qp, end);
	cr_assert_eq(qp.comp.acked_psn, end);
	cr_assert_eq(ncqe, 1);
	cr_assert_eq(cqe[0].wr_id, 42);
	cr_assert_eq(cqe[0].status, ORDK_WC_SUCCESS);
	cr_assert_eq(qp.req.sq_head, 1);
	/* a NAK for PSNs now acknowledged resends nothing */
	rc_retransmit(&qp, 0xFFFFFC, end);
	cr_assert_eq(qp.req.rtx_count, 0);
}

/* A WRITE acknowledged while the card has not fetched a resend of it yet: it waits for the card. */
Test(rc_rtx, a_write_waits_for_its_resends_to_be_fetched)
{
	uint32_t end = blue_psn_add(START, NPK);

	/* a resend sits in the Send ring: the card has fetched 100 items, it is the 101st */
	dev.rc.send_fetched = 100;
	qp.req.rtx_fetch_until = 101;
	rc_comp_acked(&qp, end);
	cr_assert_not(wqe_may_complete(&qp, &sq[0]));
	cr_assert_eq(ncqe, 0, "the card may still read its buffer");
	/* our too long SEND's announcement carries no payload: it does not wait */
	sq[1] = (struct rc_wqe){ .opcode = BLUE_WR_SEND, .flags = RC_WQE_LEN_ERR, .psn = START,
				 .npkts = 1, .state = RC_WQE_SENT };
	cr_assert(wqe_may_complete(&qp, &sq[1]));
	dev.rc.send_fetched = qp.req.rtx_fetch_until;
	cr_assert(wqe_may_complete(&qp, &sq[0]));
	rc_complete_sends(&qp);
	cr_assert_eq(ncqe, 1);
	cr_assert_eq(sq[0].state, RC_WQE_SENT, "a WRITE completes from sent");
}
