/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the driver takes on trust (issue 32): a stranger's CNPs neither keep a
 * dead peer alive nor move a QP's rate; a QP's access flags gate the peer's
 * WRITEs, READs and atomics where the card cannot; a WR whose source MR was
 * deregistered fails with LOC_PROT_ERR at once instead of being resent to a
 * card that skips it.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "wire_common.h"

#define LEN (1u << 20)

/* A stranger on the network: neither side's addresses. */
#define STRANGER_IP  0x0A0000FEu
#define STRANGER_MAC 0x0200000000FEull

/* Counter @p name of side @p side's QP (by name: the test runs against code without it); -1: none. */
static int64_t
qp_stat(const struct wire_env *w, int side, const char *name)
{
	struct ordk_stats st = wire_qp_stats(w, side);

	for (unsigned int i = 0; ordk_stats_name(i) != NULL; i++)
		if (strcmp(ordk_stats_name(i), name) == 0)
			return (int64_t)ordk_stats_value(&st, i);
	return -1;
}

/* A CNP for side @p to's QP naming @p msn, from the stranger (the card's CNP: ECN 01, port 0x100). */
static void
inject_stranger_cnp(struct wire_env *w, int to, uint16_t msn)
{
	struct blue_wire_rdma c = { 0 };
	uint8_t frame[BLUE_WIRE_MAX_FRAME];
	int n;

	wire_l3_to(w, to, BLUE_WIRE_ROCE_UDP_PORT, &c.l3);
	c.l3.src_ip = STRANGER_IP;
	c.l3.src_mac = STRANGER_MAC;
	c.l3.src_port = 0x100;
	c.l3.ecn = 1;
	c.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_CNP, .opcode = 0, .msn = msn,
					.dqpn = ordk_qp_num(w->p.s[to].qp) };
	n = blue_wire_rdma_build(frame, sizeof(frame), &c, NULL, 0);
	cr_assert_gt(n, 0, "cnp build: %s", blue_wire_strerror(n));
	wire_inject(w, to, frame, (uint32_t)n);
}

static void
poll_both(struct wire_env *w)
{
	ordk_dev_poll(w->p.s[0].dev, 64);
	ordk_dev_poll(w->p.s[1].dev, 64);
}

/* Poll until side @p side's CQ gives a completion (the test fails after @p seconds). */
static struct ordk_wc
wait_wc(struct wire_env *w, int side, double seconds)
{
	struct ordk_wc wc;

	for (double end = test_now_s() + seconds; test_now_s() < end;) {
		poll_both(w);
		if (ordk_cq_poll(w->p.s[side].cq, &wc, 1) == 1)
			return wc;
	}
	struct ordk_qp_info in;

	cr_assert_eq(ordk_qp_info(w->p.s[side].qp, &in), 0);
	cr_assert_fail("no completion on side %d in %.1f s (QP %s, req %s, comp %s, next_psn 0x%06x, "
		       "acked 0x%06x, %u WRs outstanding, %lu resends)", side, seconds,
		       ordk_qp_state_str(in.state), in.req_state, in.comp_state, in.next_psn,
		       in.acked_psn, in.send_outstanding,
		       (unsigned long)wire_qp_stats(w, side).retransmits);
	return wc;
}

/*
 * A SEND waits for the RECV of a peer that is gone (every frame of side 0
 * lost): with timeout 7 it ends in RETRY_EXC_ERR after about 0.13 s. A
 * stranger's CNP naming the QP every 2 ms kept it waiting for good: every
 * report counted as hearing from the peer.
 */
Test(wire_trust, strangers_cnps_keep_no_dead_peer_alive, .timeout = 60)
{
	struct ordk_send_wr wr = { .wr_id = 1, .opcode = ORDK_WR_SEND, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	struct wire_env w;
	struct ordk_wc wc;
	bool done = false;

	if (test_sim_rtl())
		cr_skip_test("rtl=1 reports no CNP it receives");
	func_qp_timeout = 7;
	wire_open(&w, LEN, "cnp=1,fault=drop-tx:1|cnp=1", 64);
	func_qp_timeout = 10;
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)w.p.s[0].buf, 64, w.p.s[0].mr->lkey };
	cr_assert_eq(ordk_qp_post_send(w.p.s[0].qp, &wr, 1), 1);
	/* bounded: 5 s is about 40 times the retry budget */
	for (double end = test_now_s() + 5, next = 0; !done && test_now_s() < end;) {
		if (test_now_s() >= next) {
			inject_stranger_cnp(&w, 0, 0);
			next = test_now_s() + 0.002;
		}
		poll_both(&w);
		done = ordk_cq_poll(w.p.s[0].cq, &wc, 1) == 1;
	}
	cr_assert(done, "the SEND still waits after 5 s of a stranger's CNPs (%lu injected, %lu reported)",
		  (unsigned long)w.injected[0], (unsigned long)func_xstat(w.p.s[0].dev, "rx_cnp_reported"));
	cr_assert_eq(wc.status, ORDK_WC_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_gt(func_xstat(w.p.s[0].dev, "rx_cnp_reported"), 0, "no CNP reached the driver");
	wire_close(&w);
}

/*
 * A stranger's CNP that names no message of the QP's (the card reports no
 * source: the MSN is all there is to check) leaves the rate alone and is
 * counted. One that names a recent message cuts it: an unauthenticated CNP
 * that guesses an MSN still can (doc/guides/prog_guide/congestion.md).
 */
Test(wire_trust, strangers_cnp_leaves_the_rate, .timeout = 60)
{
	enum { N = 4 };
	struct ordk_qp_cc cc0, cc;
	struct wire_env w;
	struct ordk_wc wc;
	int64_t ignored = 0;

	if (test_sim_rtl())
		cr_skip_test("rtl=1 reports no CNP it receives");
	wire_open(&w, LEN, "cnp=1,cc=1|cnp=1", 64);
	for (int i = 0; i < N; i++) /* msn 0 .. N - 1 */
		cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_WRITE, 0, 4096u * (unsigned int)i, 4096, (uint64_t)i, 0), 1);
	for (int i = 0; i < N; i++) {
		wc = wait_wc(&w, 0, 5);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	}
	cr_assert_eq(ordk_qp_cc_query(w.p.s[0].qp, &cc0), 0);
	cr_assert(cc0.on);
	inject_stranger_cnp(&w, 0, 0x4000 + N);
	for (double end = test_now_s() + 5; test_now_s() < end;) {
		poll_both(&w);
		cr_assert_eq(ordk_qp_cc_query(w.p.s[0].qp, &cc), 0);
		ignored = qp_stat(&w, 0, "cnp_ignored");
		if (cc.cnps > cc0.cnps || ignored > 0 || cc.rate_bps < cc0.rate_bps)
			break;
	}
	cr_assert_geq(cc.rate_bps, cc0.rate_bps, "a stranger's CNP cut the rate from %.0f to %.0f",
		      cc0.rate_bps, cc.rate_bps);
	cr_assert_eq(cc.cnps, cc0.cnps, "the reaction point took it");
	cr_assert_eq(ignored, 1, "not counted in cnp_ignored (%lld)", (long long)ignored);
	/* the same stranger naming the last WRITE's MSN: taken (the limit of the check) */
	inject_stranger_cnp(&w, 0, N - 1);
	for (double end = test_now_s() + 5; test_now_s() < end && cc.cnps == cc0.cnps;) {
		poll_both(&w);
		cr_assert_eq(ordk_qp_cc_query(w.p.s[0].qp, &cc), 0);
	}
	cr_assert_eq(cc.cnps, cc0.cnps + 1);
	cr_assert_lt(cc.rate_bps, cc0.rate_bps, "a plausible CNP did not cut the rate");
	wire_close(&w);
}

/* Side 1's QP, connected, keeps none of the remote access flags (RTS -> RTS, as IBA allows). */
static void
open_access0(struct wire_env *w)
{
	struct ordk_qp_attr at = { .qp_state = ORDK_QPS_RTS, .qp_access_flags = 0 };

	wire_open(w, LEN, NULL, 64);
	cr_assert_eq(ordk_qp_modify(w->p.s[1].qp, &at, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
}

/* Side 0's WR @p op to side 1's QP of access 0 (its MR has every access) is refused. */
static void
refused(enum ordk_wr_opcode op, uint32_t len)
{
	struct wire_env w;
	struct ordk_wc wc;

	open_access0(&w);
	memset(w.p.s[0].buf, 0x77, 4096);
	cr_assert_eq(wire_post(&w, 0, op, 0, 8192, len, 42, 0), 1);
	wc = wait_wc(&w, 0, 5);
	cr_assert_eq(wc.wr_id, 42);
	cr_assert_eq(wc.status, ORDK_WC_REM_ACCESS_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(FUNC_QP_INFO(w.p.s[0].qp, state), ORDK_QPS_ERR, "the requester goes to ERR");
	cr_assert_eq(qp_stat(&w, 1, "access_refused"), 1);
	if (op == ORDK_WR_ATOMIC_FETCH_AND_ADD)
		cr_assert_eq(*(uint64_t *)(w.p.s[1].buf + 8192), 0, "the atomic was executed");
	if (op == ORDK_WR_RDMA_WRITE)
		cr_assert_eq(FUNC_QP_INFO(w.p.s[1].qp, state), ORDK_QPS_ERR,
			     "the responder goes to ERR (the card placed the packet: its payload is "
			     "the card limit, doc/guides/drivers/blue_hw_interface.md section 8)");
	wire_close(&w);
}

Test(wire_trust, write_to_a_qp_without_remote_write_refused, .timeout = 60)
{
	refused(ORDK_WR_RDMA_WRITE, 256);
}

Test(wire_trust, read_from_a_qp_without_remote_read_refused, .timeout = 60)
{
	refused(ORDK_WR_RDMA_READ, 256);
}

Test(wire_trust, atomic_on_a_qp_without_remote_atomic_refused, .timeout = 60)
{
	refused(ORDK_WR_ATOMIC_FETCH_AND_ADD, 8);
}

/*
 * The source MR deregistered under WRITEs not sent yet: the card skips an
 * item whose lkey is gone and says nothing, so the WRs were resent 1,536
 * times and ended in RETRY_EXC_ERR. Now the first completes with
 * LOC_PROT_ERR when it is pushed, the rest flush, and nothing was resent.
 */
Test(wire_trust, dereg_under_outstanding_writes_is_loc_prot_err, .timeout = 60)
{
	enum { N = 4 };
	struct wire_env w;
	struct ordk_wc wc;

	wire_open(&w, LEN, NULL, 64);
	for (int i = 0; i < N; i++)
		cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_WRITE, 0, 4096u * (unsigned int)i, 4096, (uint64_t)i, 0), 1);
	cr_assert_eq(ordk_mr_dereg(w.p.s[0].mr), 0);
	w.p.s[0].mr = NULL;
	wc = wait_wc(&w, 0, 10);
	cr_assert_eq(wc.wr_id, 0);
	cr_assert_eq(wc.status, ORDK_WC_LOC_PROT_ERR, "%s", ordk_wc_status_str(wc.status));
	for (int i = 1; i < N; i++) {
		wc = wait_wc(&w, 0, 5);
		cr_assert_eq(wc.status, ORDK_WC_WR_FLUSH_ERR, "WR %d: %s", i, ordk_wc_status_str(wc.status));
	}
	cr_assert_eq(FUNC_QP_INFO(w.p.s[0].qp, state), ORDK_QPS_ERR);
	cr_assert_eq(qp_stat(&w, 0, "loc_prot_errors"), 1);
	cr_assert_eq(wire_qp_stats(&w, 0).retransmits, 0, "resent items the card skips");
	wire_close(&w);
}

/*
 * The same for resends: the WRITEs went (a fifth of side 0's frames lost),
 * then their MR was deregistered before any ACK came (side 1 not polled).
 * The first resend of a lost packet fails its WR with LOC_PROT_ERR; before,
 * every resend was skipped by the card until RETRY_EXC_ERR.
 */
Test(wire_trust, dereg_before_a_resend_is_loc_prot_err, .timeout = 60)
{
	enum { N = 4, WLEN = 64u << 10 };
	struct wire_env w;
	struct ordk_wc wc;
	int ok = 0;

	wire_open(&w, LEN, "fault=drop-tx:0.2|", 64);
	for (int i = 0; i < N; i++)
		cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_WRITE, 0, (size_t)WLEN * (unsigned int)i, WLEN, (uint64_t)i, 0), 1);
	for (int i = 0; i < 256 && FUNC_QP_INFO(w.p.s[0].qp, next_psn) != blue_psn_add(func_first_psn(), N * 64); i++)
		ordk_dev_poll(w.p.s[0].dev, 64);
	cr_assert_eq(FUNC_QP_INFO(w.p.s[0].qp, next_psn), blue_psn_add(func_first_psn(), N * 64),
		     "not every WRITE went before the dereg");
	cr_assert_eq(ordk_mr_dereg(w.p.s[0].mr), 0);
	w.p.s[0].mr = NULL;
	for (;;) {
		wc = wait_wc(&w, 0, 10);
		if (wc.status != ORDK_WC_SUCCESS)
			break;
		ok++;
	}
	cr_assert_lt(ok, N, "every WRITE completed");
	cr_assert_eq(wc.status, ORDK_WC_LOC_PROT_ERR, "WR %d: %s", ok, ordk_wc_status_str(wc.status));
	cr_assert_eq(qp_stat(&w, 0, "loc_prot_errors"), 1);
	cr_assert_lt(wire_qp_stats(&w, 0).retransmits, 64, "resent items the card skips");
	wire_close(&w);
}
