/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The requester (rc/rc_req.c) alone: the packetizer (items of at most
 * 64 KiB split on PMTU boundaries of the remote address, PSNs across the
 * 2^24 wrap), the requester's states and the READ resources it keeps. The
 * test includes the .c; the Send ring's put is stubbed and records items.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_req.c"

int ordk_rc_logtype;

/* ------------------------------------------------------------ stubs */

#include "rc_stubs.h"

static bool cc_gate_open = true;
static unsigned int cc_sent_pkts;

bool
blue_cc_gate(struct blue_qp *qp, uint32_t pmtu, uint32_t *cap)
{
	(void)qp;
	*cap = RTE_MIN(*cap, 4 * pmtu); /* a paced QP's items are a few packets */
	return cc_gate_open;
}

void
blue_cc_sent(struct blue_qp *qp, uint32_t bytes, uint32_t pkts)
{
	(void)qp;
	(void)bytes;
	cc_sent_pkts += pkts;
}

RC_STUB(blue_send_item_put);
RC_STUB(rc_read_keys_ahead);
RC_STUB(rc_read_key_ready);
RC_STUB(rc_push_retries);
RC_STUB(rc_atomic_send);
RC_STUB(rc_timer_arm);
RC_STUB(rc_complete_sends);
RC_STUB(rc_mr_check);
RC_STUB(rc_sgl_item_len);
RC_STUB(rc_sgl_source);
RC_STUB(rc_sgl_ok);

static unsigned int fails;
static enum ordk_wc_status fail_status;

void
rc_qp_fail(struct blue_qp *qp, enum ordk_wc_status status)
{
	fail_status = status;
	qp->vqp.attr.qp_state = ORDK_QPS_ERR;
	fails++;
}

RC_STUB(rc_probe);
RC_STUB(rc_rnr_ask);

/* the WQE's one writer, without its table (test_rc_comp.c checks that): the moves asked */
static struct {
	uint8_t from, to;
} moves[16];
static unsigned int nmoves;

bool
rc_wqe_to(struct blue_qp *qp, struct rc_wqe *w, enum rc_wqe_state next)
{
	(void)qp;
	cr_assert_lt(nmoves, RTE_DIM(moves));
	moves[nmoves].from = w->state;
	moves[nmoves++].to = (uint8_t)next;
	w->state = (uint8_t)next;
	return true;
}

/* ------------------------------------------------------------ fixture */

static struct blue_dev dev;
static struct blue_qp qp;
static struct rc_wqe sq[16];
static uint32_t reads[16];
static struct blue_ctrl_advert adv[4];
static volatile uint32_t tail_reg;

static void
setup(void)
{
	memset(&dev, 0, sizeof(dev));
	memset(&qp, 0, sizeof(qp));
	memset(sq, 0, sizeof(sq));
	nitems = ut_rc_probe_calls = fails = ut_rc_atomic_send_calls = ut_rc_timer_arm_calls = 0;
	ut_rc_rnr_ask_calls = 0;
	dev.hw.ring[BLUE_RING_SEND0].tail_reg = &tail_reg;
	dev.rc.tsc_hz = 1000000000;
	dev.rc.ptime = 5000;
	qp.vqp.dev = blue_dev_handle(&dev);
	qp.vqp.attr.qp_state = ORDK_QPS_RTS;
	qp.vqp.attr.path_mtu = ORDK_MTU_1024;
	qp.vqp.attr.max_rd_atomic = 2;
	qp.vqp.attr.rnr_retry = 7;
	qp.vqp.attr.retry_cnt = 7;
	qp.comp.timeout_tsc = 1000;
	qp.req.sq = sq;
	qp.req.sq_size = 16;
	qp.req.sq_mask = 15;
	qp.req.reads = reads;
	rc_fifo_init(&qp.req.rd_q, 16);
	rc_fifo_init(&qp.req.at_q, ORDK_MAX_RD_ATOMIC);
	qp.req.adv = adv;
	rc_fifo_init(&qp.req.adv_q, 4);
	qp.req.next_psn = qp.req.pushed_psn = qp.comp.acked_psn = BLUE_PSN_MASK - 10;
}

TestSuite(rc_req, .init = setup);

static struct rc_wqe *
post(uint8_t op, uint64_t raddr, uint32_t len)
{
	struct rc_wqe *w = &sq[qp.req.sq_tail & qp.req.sq_mask];

	*w = (struct rc_wqe){ .opcode = op, .raddr = raddr, .len = len, .laddr = 0x100000,
			      .signaled = 1 };
	qp.req.sq_tail++;
	qp.req.sq_user++;
	return w;
}

/* ------------------------------------------------------------ packetizer */

Test(rc_req, packets_split_on_the_remote_address)
{
	uint32_t off, n, sum = 0;
	uint64_t raddr = 4096 - 100;

	cr_assert_eq(rc_pkts(raddr, 5000, 1024), 6, "100, 5 x 1024 (the last 804)");
	for (uint32_t k = 0; k < 6; k++) {
		rc_pkt_span(raddr, 5000, 1024, k, &off, &n);
		cr_assert_eq(off, sum, "packet %u starts where the last ended", k);
		if (k > 0)
			cr_assert_eq((raddr + off) % 1024, 0, "packet %u on a PMTU boundary", k);
		sum += n;
	}
	cr_assert_eq(sum, 5000);
	rc_pkt_span(raddr, 5000, 1024, 5, &off, &n);
	cr_assert_eq(n, 804);
	cr_assert_eq(rc_pkts(0, 1024, 1024), 1, "exactly one PMTU, aligned");
	cr_assert_eq(rc_pkts(1, 1024, 1024), 2, "one byte off: two packets");
	cr_assert_eq(rc_pkts(0, 1, 4096), 1);
}

Test(rc_req, packet_spans_cover_any_message)
{
	static const uint32_t pmtus[] = { 256, 512, 1024, 2048, 4096 };
	uint32_t seed = 12345;

	for (unsigned int i = 0; i < 2000; i++) {
		uint32_t pmtu = pmtus[i % 5], len, np, sum = 0, off, n;
		uint64_t raddr;

		seed = seed * 1103515245u + 12345u;
		len = 1 + seed % 300000;
		seed = seed * 1103515245u + 12345u;
		raddr = ((uint64_t)seed << 12) + seed % 8192;
		np = rc_pkts(raddr, len, pmtu);
		for (uint32_t k = 0; k < np; k++) {
			rc_pkt_span(raddr, len, pmtu, k, &off, &n);
			cr_assert(n > 0 && n <= pmtu && off == sum, "case %u packet %u", i, k);
			sum += n;
		}
		cr_assert_eq(sum, len, "case %u: %u bytes to 0x%lx at pmtu %u", i, len,
			     (unsigned long)raddr, pmtu);
	}
}

Test(rc_req, a_write_becomes_items_of_at_most_64k_on_pmtu_boundaries)
{
	uint64_t raddr = 0x7000000 + 300; /* not PMTU-aligned */
	uint32_t len = 200000, psn0 = qp.req.next_psn, sum = 0;
	struct rc_wqe *w = post(BLUE_WR_RDMA_WRITE, raddr, len);

	rc_push(&qp);
	cr_assert_eq(qp.req.state, RC_REQ_IDLE);
	cr_assert_eq(w->psn, psn0);
	cr_assert_eq(w->npkts, rc_pkts(raddr, len, 1024));
	cr_assert_eq(qp.req.next_psn, blue_psn_add(psn0, w->npkts), "PSNs wrap at 2^24");
	cr_assert(qp.req.next_psn < psn0, "the message crossed the wrap");
	cr_assert_eq(qp.req.pushed_psn, qp.req.next_psn);
	cr_assert_gt(nitems, 3);
	for (unsigned int i = 0; i < nitems; i++) {
		const struct blue_send_item *it = &items[i];

		cr_assert_leq(it->len, ORDK_ITEM_MAX, "item %u", i);
		cr_assert_eq(it->raddr, raddr + sum);
		cr_assert_eq(it->laddr, 0x100000 + sum);
		cr_assert_eq(it->total_len, len);
		cr_assert_eq(it->psn, blue_psn_add(psn0, sum ? rc_pkts(raddr, sum, 1024) : 0),
			     "item %u's first PSN", i);
		if (i > 0)
			cr_assert_eq(it->raddr % 1024, 0, "item %u starts on a PMTU boundary", i);
		cr_assert_eq(it->is_first, i == 0);
		cr_assert_eq(it->is_last, i + 1 == nitems);
		cr_assert_eq(it->is_retry, 0);
		sum += it->len;
	}
	cr_assert_eq(sum, len);
	cr_assert(items[nitems - 1].flags & BLUE_SEND_SIGNALED, "the last asks for an ACK");
	cr_assert_eq(qp.req.sq_next, 1);
}

/* ------------------------------------------------------------ states and READs */

Test(rc_req, reads_stay_within_max_rd_atomic)
{
	for (int i = 0; i < 3; i++)
		post(BLUE_WR_RDMA_READ, 0x1000 * (i + 1), 8192);
	rc_push(&qp);
	cr_assert_eq(nitems, 2, "one READ request item per READ");
	cr_assert_eq(qp.req.rd_q.count, 2);
	cr_assert_eq(reads[0], 0);
	cr_assert_eq(reads[1], 1);
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_READS);
	cr_assert_eq(items[0].len, 8192, "the request covers the whole length");
	cr_assert_eq(blue_psn_add(items[0].psn, 1), items[1].psn, "a READ request takes one PSN");
	/* an answer frees one: the third goes */
	qp.req.rd_q.head = 1;
	qp.req.rd_q.count = 1;
	rc_push(&qp);
	cr_assert_eq(nitems, 3);
	cr_assert_eq(qp.req.rd_q.count, 2);
	cr_assert_eq(qp.req.state, RC_REQ_IDLE);
}

Test(rc_req, a_fenced_wr_waits_for_the_reads)
{
	post(BLUE_WR_RDMA_READ, 0x1000, 64);
	post(BLUE_WR_RDMA_WRITE, 0x2000, 64)->flags |= RC_WQE_FENCE;
	rc_push(&qp);
	cr_assert_eq(nitems, 1);
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_FENCE);
	qp.req.rd_q.count = 0;
	rc_push(&qp);
	cr_assert_eq(nitems, 2);
	cr_assert_eq(qp.req.state, RC_REQ_IDLE);
}

Test(rc_req, atomics_are_pipelined_within_max_rd_atomic)
{
	post(BLUE_WR_RDMA_WRITE, 0x2000, 64);
	post(BLUE_WR_ATOMIC_FETCH_AND_ADD, 0x3000, 8);
	post(BLUE_WR_ATOMIC_CMP_AND_SWP, 0x3000, 8);
	post(BLUE_WR_ATOMIC_FETCH_AND_ADD, 0x3000, 8);
	rc_push(&qp);
	cr_assert_eq(nitems, 1, "the WRITE");
	cr_assert_eq(ut_rc_atomic_send_calls, 2, "two atomics go without waiting for its ACK");
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_READS, "max_rd_atomic (2) in flight");
	cr_assert_eq(sq[1].psn, blue_psn_add(sq[0].psn, 1), "after the WRITE's PSN");
	cr_assert_eq(sq[2].psn, sq[1].psn, "atomics take no PSN");
	cr_assert_eq(sq[2].atomic_id, sq[1].atomic_id + 1, "consecutive ids");
	cr_assert_eq(qp.req.at_q.count, 2);
	cr_assert_eq(qp.req.atomics[0], 1);
	cr_assert_eq(qp.req.atomics[1], 2);
	/* an answer frees one: the third goes */
	rc_fifo_pop(&qp.req.at_q);
	rc_push(&qp);
	cr_assert_eq(ut_rc_atomic_send_calls, 3);
	cr_assert_eq(qp.req.state, RC_REQ_IDLE);
}

Test(rc_req, later_wrs_pass_an_atomic_unless_fenced)
{
	post(BLUE_WR_ATOMIC_FETCH_AND_ADD, 0x3000, 8);
	post(BLUE_WR_RDMA_WRITE, 0x4000, 64);
	post(BLUE_WR_RDMA_WRITE, 0x5000, 64)->flags |= RC_WQE_FENCE;
	rc_push(&qp);
	cr_assert_eq(ut_rc_atomic_send_calls, 1);
	cr_assert_eq(nitems, 1, "the WRITE after it goes (IBA: no fence)");
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_FENCE, "the fenced one waits for the atomic");
	qp.req.at_q.count = 0; /* answered */
	rc_push(&qp);
	cr_assert_eq(nitems, 2);
}

Test(rc_req, reads_and_atomics_wait_for_each_other)
{
	qp.vqp.attr.max_rd_atomic = 4;
	post(BLUE_WR_RDMA_READ, 0x1000, 64);
	post(BLUE_WR_ATOMIC_FETCH_AND_ADD, 0x3000, 8);
	post(BLUE_WR_RDMA_READ, 0x1000, 64);
	rc_push(&qp);
	cr_assert_eq(nitems, 1);
	cr_assert_eq(ut_rc_atomic_send_calls, 0, "the atomic waits for the READ before it");
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_ATOMIC);
	rc_fifo_clear(&qp.req.rd_q); /* answered */
	rc_push(&qp);
	cr_assert_eq(ut_rc_atomic_send_calls, 1);
	cr_assert_eq(nitems, 1, "the READ after it waits for it");
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_ATOMIC);
	rc_fifo_clear(&qp.req.at_q);
	rc_push(&qp);
	cr_assert_eq(nitems, 2);
}

Test(rc_req, a_send_waits_for_an_advert_then_takes_it)
{
	struct rc_wqe *w = post(BLUE_WR_SEND, 0, 100);

	rc_push(&qp);
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_ADVERT);
	cr_assert_eq(w->rnr_tsc, 5000, "the RNR wait started now");
	cr_assert_eq(nitems, 0);
	adv[0] = (struct blue_ctrl_advert){ .recv_seq = 0, .length = 4096, .addr = 0xabc000,
					    .rkey = 0x77 };
	qp.req.adv_q.count = 1;
	rc_push(&qp);
	cr_assert_eq(nitems, 1);
	cr_assert_eq(items[0].raddr, 0xabc000);
	cr_assert_eq(items[0].rkey, 0x77);
	cr_assert_eq(qp.req.adv_q.count, 0);
	cr_assert_eq(qp.req.state, RC_REQ_IDLE);
}

/* rnr_retry 0, min_rnr_timer 1 (10 us: 10000 cycles here); the peer heard from at each push */
static void
rnr_push_at(uint64_t t)
{
	dev.rc.ptime = t;
	qp.comp.heard_tsc = t;
	rc_push(&qp);
}

/*
 * fio's SENDs at 1% loss (rnr_retry 0): every RECV the receiver posted was
 * held by SENDs behind a lost packet, and the next SEND's RNR budget ran
 * out while they were repaired. IBA's responder says RNR only as the SEND
 * arrives, after those: the budget starts once every PSN sent is acknowledged.
 */
Test(rc_req, the_rnr_budget_starts_once_the_peer_took_every_psn)
{
	qp.vqp.attr.rnr_retry = 0;
	qp.vqp.attr.min_rnr_timer = 1;
	qp.comp.timeout_tsc = 100000000; /* 100 ms */
	qp.req.next_psn = blue_psn_add(qp.comp.acked_psn, 40); /* earlier SENDs unacknowledged */
	post(BLUE_WR_SEND, 0, 100);
	rnr_push_at(5000);
	for (uint64_t t = 5000; t <= 5000 + 2000000; t += 100000)
		rnr_push_at(t); /* 2 ms: 200 budgets */
	cr_assert_eq(fails, 0, "no RNR while the PSNs before are outstanding");
	cr_assert_eq(ut_rc_rnr_ask_calls, 0);
	qp.comp.acked_psn = qp.req.next_psn; /* the peer took them all (the last poll: 2.005 ms) */
	rnr_push_at(2006000);
	rnr_push_at(2014000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 0, "the budget runs from the last poll that saw them out");
	rnr_push_at(2015000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 1, "spent: the receiver is asked");
	cr_assert_eq(fails, 0, "not before its answer");
}

/*
 * A lost advert is not RNR: the budget spent, the receiver is asked; an
 * answer naming RECVs we hold no advert for starts the wait again, an
 * answer naming none fails the SEND RNR_RETRY_EXC_ERR; an unanswered
 * question is asked again after the transport's timeout.
 */
Test(rc_req, an_rnr_question_decides_the_wait)
{
	qp.vqp.attr.rnr_retry = 0;
	qp.vqp.attr.min_rnr_timer = 1;
	qp.comp.timeout_tsc = 100000000;
	qp.req.adv_expect = 7;
	post(BLUE_WR_SEND, 0, 100);
	rnr_push_at(5000);
	rnr_push_at(15000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 1);
	rnr_push_at(50000000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 1, "asked once per timeout");
	rnr_push_at(115000);
	rnr_push_at(100015000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 2, "unanswered: asked again");
	qp.req.rnr_answer = true;
	qp.req.rnr_posted = 8; /* it posted RECV 7: its advert is late or lost */
	rnr_push_at(100020000);
	cr_assert_eq(fails, 0);
	cr_assert_eq(qp.vqp.st.rnr_averted, 1);
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_ADVERT, "the wait goes on");
	rnr_push_at(100029000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 2, "a new budget");
	rnr_push_at(100030000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 3);
	qp.req.rnr_answer = true;
	qp.req.rnr_posted = 7; /* none beyond our adverts: not ready */
	rnr_push_at(100031000);
	cr_assert_eq(fails, 1);
	cr_assert_eq(fail_status, ORDK_WC_RNR_RETRY_EXC_ERR);
	cr_assert_eq(nitems, 0);
}

/* An advert taken ends the question: a late answer to it decides nothing. */
Test(rc_req, an_advert_ends_the_rnr_question)
{
	qp.vqp.attr.rnr_retry = 0;
	qp.vqp.attr.min_rnr_timer = 1;
	qp.comp.timeout_tsc = 100000000;
	post(BLUE_WR_SEND, 0, 100);
	rnr_push_at(5000);
	rnr_push_at(15000);
	cr_assert_eq(ut_rc_rnr_ask_calls, 1);
	adv[0] = (struct blue_ctrl_advert){ .recv_seq = 0, .length = 4096, .addr = 0xabc000,
					    .rkey = 0x77 };
	qp.req.adv_q.count = 1;
	qp.req.adv_expect = 1;
	rnr_push_at(16000);
	cr_assert_eq(nitems, 1);
	cr_assert_eq(qp.req.rnr_ask_tsc, 0);
	cr_assert_eq(qp.req.rnr_answer, false);
}

Test(rc_req, a_send_longer_than_the_recv_is_announced_and_nothing_follows)
{
	post(BLUE_WR_SEND, 0, 5000);
	post(BLUE_WR_RDMA_WRITE, 0x2000, 64);
	adv[0] = (struct blue_ctrl_advert){ .length = 4096, .addr = 0xabc000, .rkey = 0x77 };
	qp.req.adv_q.count = 1;
	rc_push(&qp);
	cr_assert_eq(nitems, 1, "one announcement");
	cr_assert_eq(items[0].len, 0);
	cr_assert_eq(items[0].total_len, 0);
	cr_assert_eq(items[0].rkey, BLUE_WIRE_RKEY_LEN_ERR);
	cr_assert_eq(items[0].raddr, 5000, "the SEND's length in raddr");
	cr_assert_eq(qp.req.state, RC_REQ_LEN_ERR);
	rc_push(&qp);
	cr_assert_eq(nitems, 1, "LEN_ERR is sticky");
	cr_assert_eq(qp.req.state, RC_REQ_LEN_ERR);
}

Test(rc_req, the_psn_window_and_the_send_ring_hold_it_back)
{
	/* almost RC_MAX_OUTSTANDING_PSN unacknowledged: a 4-packet WRITE waits */
	qp.comp.acked_psn = blue_psn_add(qp.req.next_psn, BLUE_PSN_MASK + 1 -
						 (RC_MAX_OUTSTANDING_PSN - 2));
	post(BLUE_WR_RDMA_WRITE, 0, 4096);
	rc_push(&qp);
	cr_assert_eq(nitems, 0);
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_WINDOW);
	qp.comp.acked_psn = qp.req.next_psn;
	/* the Send ring full */
	dev.hw.ring[BLUE_RING_SEND0].head = BLUE_RING_DEPTH;
	rc_push(&qp);
	cr_assert_eq(nitems, 0);
	cr_assert_eq(qp.req.state, RC_REQ_RING_FULL);
	cr_assert_eq(dev.hw.st.send_ring_full, 1);
	dev.hw.ring[BLUE_RING_SEND0].head = 0;
	rc_push(&qp);
	cr_assert_eq(nitems, 1);
	cr_assert_eq(qp.req.state, RC_REQ_IDLE);
}

/*
 * A WR of no bytes (UCX's flush: a zero-length WRITE) is one item without
 * payload: held by a full Send ring it stays queued, and goes once there is
 * room. Taken for sent before (no bytes left to push), it never went: on the
 * RTL, whose card window held it behind a 1 MiB WRITE, the peer never saw
 * its PSN and the WR ended in RETRY_EXC_ERR.
 */
Test(rc_req, a_wr_of_no_bytes_held_back_still_goes)
{
	struct rc_wqe *w = post(BLUE_WR_RDMA_WRITE, 0, 0);

	dev.hw.ring[BLUE_RING_SEND0].head = BLUE_RING_DEPTH;
	rc_push(&qp);
	cr_assert_eq(nitems, 0);
	cr_assert_eq(qp.req.state, RC_REQ_RING_FULL);
	cr_assert_eq(qp.req.sq_next, 0, "it did not go: still the next to push");
	cr_assert_neq(w->state, RC_WQE_SENT);
	dev.hw.ring[BLUE_RING_SEND0].head = 0;
	rc_push(&qp);
	cr_assert_eq(nitems, 1);
	cr_assert_eq(items[0].len, 0);
	cr_assert(items[0].is_first && items[0].is_last);
	cr_assert_eq(w->state, RC_WQE_SENT);
	cr_assert_eq(qp.req.sq_next, 1);
}

/* Packets in the items pushed so far (PMTU 1024, remote address 0). */
static uint32_t
pushed_pkts(void)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < nitems; i++)
		n += rc_pkts(items[i].raddr, items[i].len, 1024);
	return n;
}

/*
 * On the RTL (window_locks) a PSN resent keeps the peer card's window on it
 * while its first copy may still come, for ORDK_LATE_COPY_US of polling time:
 * a polling gap does not use that time up (a copy held across a gap arrived
 * 9 strides behind the window and locked the card's bitmap unit when the
 * allowance ran in wall time).
 */
Test(rc_req, a_resend_holds_the_card_window_across_a_polling_gap)
{
	const uint32_t base = 0x100000; /* a stride boundary */
	const uint64_t late = (uint64_t)ORDK_LATE_COPY_US * 1000; /* TSC at 1 GHz */

	dev.hw.be.window_locks = true;
	qp.req.next_psn = qp.req.pushed_psn = qp.comp.acked_psn = base + 64;
	rc_late_copy_sent(&qp, base); /* resent, acknowledged since */
	/* the process is not scheduled for twice the allowance: wall time only */
	dev.rc.wall_tsc += 2 * late;
	post(BLUE_WR_RDMA_WRITE, 0, 128u << 10);
	rc_push(&qp);
	cr_assert_eq(pushed_pkts(), 64, "the window stays on PSN 0x%x: %u packets went", base,
		     pushed_pkts());
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_WINDOW);
	/* polling time passes: the allowance ends, the window follows acked_psn */
	dev.rc.ptime += late;
	dev.rc.wall_tsc += late;
	rc_push(&qp);
	cr_assert_eq(pushed_pkts(), 128);
}

Test(rc_req, a_failed_qp_pushes_nothing)
{
	post(BLUE_WR_RDMA_WRITE, 0, 64);
	qp.vqp.attr.qp_state = ORDK_QPS_ERR;
	cr_assert_eq(rc_push(&qp), 0);
	cr_assert_eq(nitems, 0);
}

Test(rc_req, a_paced_qp_waits_for_its_rate)
{
	post(BLUE_WR_RDMA_WRITE, 0, 16384);
	qp.cc_on = true;
	cc_gate_open = false;
	rc_push(&qp);
	cr_assert_eq(nitems, 0);
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_RATE);
	cc_gate_open = true;
	rc_push(&qp);
	cr_assert_eq(nitems, 4, "items capped to the pacer's 4 packets");
	cr_assert_eq(cc_sent_pkts, 16);
	cr_assert(items[0].enable_ecn, "paced data goes out ECT(0)");
	cr_assert_eq(qp.req.state, RC_REQ_IDLE);
}

/* ------------------------------------------------------------ WQE states */

Test(rc_req, the_requester_takes_each_wqe_from_queued_to_sent)
{
	static const uint8_t want[][2] = {
		{ RC_WQE_QUEUED, RC_WQE_SENDING }, { RC_WQE_SENDING, RC_WQE_SENT },  /* WRITE */
		{ RC_WQE_QUEUED, RC_WQE_SENDING }, { RC_WQE_SENDING, RC_WQE_SENT },  /* READ */
		{ RC_WQE_QUEUED, RC_WQE_BOUND },   { RC_WQE_BOUND, RC_WQE_SENDING }, /* SEND */
		{ RC_WQE_SENDING, RC_WQE_SENT },
		{ RC_WQE_QUEUED, RC_WQE_SENDING }, { RC_WQE_SENDING, RC_WQE_SENT },  /* atomic */
	};

	post(BLUE_WR_RDMA_WRITE, 0x2000, 64);
	post(BLUE_WR_RDMA_READ, 0x3000, 64);
	post(BLUE_WR_SEND, 0, 100);
	adv[0] = (struct blue_ctrl_advert){ .length = 4096, .addr = 0xabc000, .rkey = 0x77 };
	qp.req.adv_q.count = 1;
	rc_push(&qp);
	cr_assert_eq(nmoves, 7);
	/* an atomic, once the READ before it was answered: its request went as a frame */
	rc_fifo_clear(&qp.req.rd_q);
	post(BLUE_WR_ATOMIC_FETCH_AND_ADD, 0x4000, 8);
	rc_push(&qp);
	cr_assert_eq(nmoves, RTE_DIM(want));
	for (unsigned int i = 0; i < RTE_DIM(want); i++) {
		cr_assert_eq(moves[i].from, want[i][0], "move %u", i);
		cr_assert_eq(moves[i].to, want[i][1], "move %u", i);
	}
	for (unsigned int i = 0; i < 4; i++)
		cr_assert_eq(sq[i].state, RC_WQE_SENT, "WQE %u", i);
}

Test(rc_req, a_wqe_held_back_keeps_its_state)
{
	/* a SEND takes its advert, then the PSN window holds it: bound, once */
	qp.comp.acked_psn = blue_psn_add(qp.req.next_psn, BLUE_PSN_MASK + 1 - RC_MAX_OUTSTANDING_PSN);
	post(BLUE_WR_SEND, 0, 100);
	adv[0] = (struct blue_ctrl_advert){ .recv_seq = 0, .length = 4096, .addr = 0xabc000 };
	adv[1] = (struct blue_ctrl_advert){ .recv_seq = 1, .length = 4096, .addr = 0xdef000 };
	qp.req.adv_q.count = 2;
	rc_push(&qp);
	cr_assert_eq(sq[0].state, RC_WQE_BOUND);
	cr_assert_eq(qp.req.state, RC_REQ_WAIT_WINDOW);
	qp.comp.acked_psn = qp.req.next_psn;
	rc_push(&qp);
	cr_assert_eq(sq[0].state, RC_WQE_SENT);
	cr_assert_eq(qp.req.adv_q.count, 1, "bound once");
	cr_assert_eq(items[0].raddr, 0xabc000);
	/* a WRITE started as the Send ring fills: sending until its items all went */
	post(BLUE_WR_RDMA_WRITE, 0, 200000);
	dev.hw.ring[BLUE_RING_SEND0].head = BLUE_RING_DEPTH;
	rc_push(&qp);
	cr_assert_eq(sq[1].state, RC_WQE_SENDING);
	cr_assert_eq(qp.req.state, RC_REQ_RING_FULL);
	dev.hw.ring[BLUE_RING_SEND0].head = 0;
	rc_push(&qp);
	cr_assert_eq(sq[1].state, RC_WQE_SENT);
	cr_assert_eq(sq[1].sent, 200000);
}
