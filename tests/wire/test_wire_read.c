/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * READs against a peer that is busy itself: the READ's timer answers only
 * to its own answer (issue 12 item 4), READ resources (item 5), and no
 * recovery on a clean wire when READ answers and WRITEs interleave (item 14).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "wire_common.h"

#define LEN	 (8u << 20)
#define PEER_OFF (4u << 20) /* side 1 writes into side 0's upper half */
#define WR_LEN	 4096u

/*
 * Side 1 keeps up to 16 WRITEs in flight to side 0 while side 0 waits for
 * one completion; @return whether it came within @p seconds (in *wc).
 */
static bool
wait_while_peer_writes(struct wire_env *w, struct ordk_wc *wc, double seconds)
{
	uint64_t posted = 0, done = 0;
	struct ordk_wc c[16];

	for (double end = test_now_s() + seconds; test_now_s() < end;) {
		int k;

		while (posted - done < 16) {
			size_t off = PEER_OFF + (posted % 64) * WR_LEN;

			cr_assert_eq(wire_post(w, 1, ORDK_WR_RDMA_WRITE, off, off, WR_LEN, posted, 0), 1);
			posted++;
		}
		ordk_dev_poll(w->p.s[0].dev, 64);
		ordk_dev_poll(w->p.s[1].dev, 64);
		k = ordk_cq_poll(w->p.s[1].cq, c, 16);
		cr_assert_geq(k, 0);
		for (int i = 0; i < k; i++)
			cr_assert_eq(c[i].status, ORDK_WC_SUCCESS, "the peer's WRITE: %s",
				     ordk_wc_status_str(c[i].status));
		done += (uint64_t)k;
		if (ordk_cq_poll(w->p.s[0].cq, wc, 1) == 1)
			return true;
	}
	return false;
}

/* A READ with a bad rkey fails, also while the peer's WRITEs keep arriving. */
Test(read_timer, bad_rkey_during_peer_writes, .timeout = 60)
{
	struct wire_env w;
	struct ordk_wc wc;

	wire_open(&w, LEN, NULL, 256);
	cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_READ, 0, 0, 4096, 77,
			       w.p.s[1].mr->rkey ^ 0x5A),
		     1);
	cr_assert(wait_while_peer_writes(&w, &wc, 10), "the READ never completed");
	cr_assert_eq(wc.wr_id, 77);
	cr_assert_neq(wc.status, ORDK_WC_SUCCESS);
	wire_close(&w);
}

/* A lost READ request is asked for again, also while the peer's WRITEs keep arriving. */
Test(read_timer, lost_request_during_peer_writes, .timeout = 60)
{
	struct wire_env w;
	struct ordk_wc wc;
	struct ordk_stats st;

	wire_open(&w, LEN, NULL, 256);
	for (uint32_t i = 0; i < 4096; i++)
		w.p.s[1].buf[i] = (uint8_t)(i * 7 + 3);
	/* the READ request (and nothing else of side 0) is lost on the wire */
	cr_assert_eq(ordk_dev_set_faults(w.p.s[0].dev, "drop-tx:1"), 0);
	cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_READ, 0, 0, 4096, 78, 0), 1);
	for (int i = 0; i < 50; i++)
		ordk_dev_poll(w.p.s[0].dev, 64);
	cr_assert_eq(ordk_dev_set_faults(w.p.s[0].dev, "drop-tx:0"), 0);
	cr_assert(wait_while_peer_writes(&w, &wc, 10), "the READ never completed");
	cr_assert_eq(wc.wr_id, 78);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	for (uint32_t i = 0; i < 4096; i++)
		cr_assert_eq(w.p.s[0].buf[i], (uint8_t)(i * 7 + 3), "byte %u", i);
	st = wire_qp_stats(&w, 0);
	cr_assert_geq(st.timeouts, 1, "recovered without the timer?");
	wire_close(&w);
}

/*
 * Both sides keep @p depth WRs in flight, READs and WRITEs alternating
 * (sizes cycling through @p sizes), until each side completed @p n.
 */
static void
mixed_both_ways(struct wire_env *w, uint32_t depth, uint64_t n, const uint32_t *sizes,
		unsigned int nsizes)
{
	uint64_t posted[2] = { 0 }, done[2] = { 0 };

	for (double end = test_now_s() + 60; done[0] < n || done[1] < n;) {
		cr_assert_lt(test_now_s(), end, "stalled: %lu and %lu of %lu done",
			     (unsigned long)done[0], (unsigned long)done[1], (unsigned long)n);
		for (int s = 0; s < 2; s++) {
			struct ordk_wc wc[32];
			int k;

			while (posted[s] < n && posted[s] - done[s] < depth) {
				uint64_t i = posted[s];
				uint32_t len = sizes[(i / 2) % nsizes];
				/* side s reads from and writes to its own slice of the peer's buffer */
				size_t off = (size_t)s * PEER_OFF + (i % 2) * (2u << 20);
				enum ordk_wr_opcode op = i % 2 ? ORDK_WR_RDMA_READ : ORDK_WR_RDMA_WRITE;

				cr_assert_eq(wire_post(w, s, op, off, off, len, i, 0), 1);
				posted[s]++;
			}
			ordk_dev_poll(w->p.s[s].dev, 64);
			k = ordk_cq_poll(w->p.s[s].cq, wc, 32);
			cr_assert_geq(k, 0);
			for (int j = 0; j < k; j++)
				cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "side %d: %s", s,
					     ordk_wc_status_str(wc[j].status));
			done[s] += (uint64_t)k;
		}
	}
}

/*
 * On a wire with no loss, READ answers interleaved with the answerer's own
 * WRITEs need no recovery: no NAK (driver or card), no resend, no timeout.
 * Timeout 14 (67 ms, perftest's and ordk_cm's): a READ's answer waits
 * behind what its answerer queued before it, a few ms at this load.
 */
Test(clean_wire, mixed_reads_and_writes_no_recovery, .timeout = 120)
{
	static const uint32_t small[] = { 64, 4096, 100, 2048 };
	static const uint32_t mixed[] = { 4096, 65536, 100, 16384, 128u << 10, 1500 };
	struct wire_env w;

	func_qp_timeout = 14;
	wire_open(&w, LEN, NULL, 256);
	mixed_both_ways(&w, 64, 10000, small, sizeof(small) / sizeof(small[0]));
	mixed_both_ways(&w, 32, 2000, mixed, sizeof(mixed) / sizeof(mixed[0]));
	for (int s = 0; s < 2; s++) {
		struct ordk_stats st = wire_qp_stats(&w, s);

		cr_log_info("side %d: NAKs sent %lu received %lu, retransmits %lu, timeouts %lu, "
			    "card loss reports naming only untracked PSNs %lu",
			    s, (unsigned long)st.naks_sent, (unsigned long)st.naks_received,
			    (unsigned long)st.retransmits, (unsigned long)st.timeouts,
			    (unsigned long)st.card_naks_untracked);
		cr_expect_eq(st.naks_sent, 0, "side %d: NAKs sent", s);
		cr_expect_eq(st.naks_received, 0, "side %d: NAKs received", s);
		cr_expect_eq(st.retransmits, 0, "side %d: retransmits", s);
		cr_expect_eq(st.timeouts, 0, "side %d: timeouts", s);
	}
	wire_close(&w);
}

/* What one side posts: @p n WRs of @p op and @p len, @p depth of them in flight. */
struct plan {
	enum ordk_wr_opcode op;
	uint64_t n;
	uint32_t depth, len;
};

/*
 * Both sides run their plan at once. A post must never fail while fewer
 * than depth (<= max_send_wr) of the side's own WRs are outstanding, and
 * every WR completes with success.
 */
static void
plans_loop(struct wire_env *w, const struct plan pl[2], double seconds)
{
	uint64_t posted[2] = { 0 }, done[2] = { 0 };

	for (double end = test_now_s() + seconds; done[0] < pl[0].n || done[1] < pl[1].n;) {
		cr_assert_lt(test_now_s(), end, "stalled: side 0 %lu of %lu, side 1 %lu of %lu",
			     (unsigned long)done[0], (unsigned long)pl[0].n, (unsigned long)done[1],
			     (unsigned long)pl[1].n);
		for (int s = 0; s < 2; s++) {
			struct ordk_wc wc[32];
			int k;

			while (posted[s] < pl[s].n && posted[s] - done[s] < pl[s].depth) {
				size_t off = (size_t)s * PEER_OFF + (posted[s] % 32) * (64u << 10);
				int rc = wire_post(w, s, pl[s].op, off, off, pl[s].len, posted[s], 0);

				cr_assert_eq(rc, 1, "side %d: post %lu with %lu outstanding: %d", s,
					     (unsigned long)posted[s],
					     (unsigned long)(posted[s] - done[s]), rc);
				posted[s]++;
			}
			ordk_dev_poll(w->p.s[s].dev, 64);
			k = ordk_cq_poll(w->p.s[s].cq, wc, 32);
			cr_assert_geq(k, 0);
			for (int j = 0; j < k; j++)
				cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "side %d wr %lu: %s", s,
					     (unsigned long)wc[j].wr_id,
					     ordk_wc_status_str(wc[j].status));
			done[s] += (uint64_t)k;
		}
	}
	cr_assert_eq(wire_qp_stats(w, 1).read_req_rejected, 0);
}

/* plans_loop() on a rig of @p devargs with QPs of @p wr0 and @p wr1 WRs. */
static void
run_plans(const struct plan pl[2], const char *devargs, uint32_t wr0, uint32_t wr1,
	  double seconds)
{
	struct wire_env w;

	wire_open_qps(&w, LEN, devargs, wr0, wr1);
	plans_loop(&w, pl, seconds);
	wire_close(&w);
}

/* 128 READs in flight against a responder whose own 128 WRITEs are in flight. */
Test(read_resources, reads_against_a_busy_responder, .timeout = 60)
{
	const struct plan pl[2] = { { ORDK_WR_RDMA_READ, 128, 128, 4096 },
				    { ORDK_WR_RDMA_WRITE, 128, 128, 65536 } };

	run_plans(pl, NULL, 128, 128, 30);
}

/* 200 READs posted at once against an idle responder whose send queue holds 8 WRs. */
Test(read_resources, many_reads_small_responder, .timeout = 60)
{
	const struct plan pl[2] = { { ORDK_WR_RDMA_READ, 200, 200, 4096 },
				    { ORDK_WR_RDMA_WRITE, 0, 8, 4096 } };

	run_plans(pl, NULL, 256, 8, 30);
}

/* Under READ load, the responder's own posts never find their queue taken (ENOMEM). */
Test(read_resources, responder_posts_keep_their_slots, .timeout = 60)
{
	const struct plan pl[2] = { { ORDK_WR_RDMA_READ, 2000, 128, 4096 },
				    { ORDK_WR_RDMA_WRITE, 2000, 32, 4096 } };

	run_plans(pl, NULL, 128, 32, 30);
}

/* The same at 1% loss both ways: a lost packet never leaves the answers stuck. */
Test(read_resources, busy_responder_under_loss, .timeout = 120)
{
	const struct plan pl[2] = { { ORDK_WR_RDMA_READ, 1000, 128, 4096 },
				    { ORDK_WR_RDMA_WRITE, 1000, 64, 16384 } };

	run_plans(pl, "fault=drop:0.01,seed=7|fault=drop:0.01,seed=8", 128, 64, 90);
}

/*
 * A READ beyond the responder's max_dest_rd_atomic (the requester allows
 * more) is refused: it completes with REM_INV_REQ_ERR and the QP goes to
 * ERR; nothing hangs. The answers wait behind a lost WRITE packet, so the
 * READs pile up at the responder.
 */
Test(read_resources, beyond_the_peer_resources_fails, .timeout = 60)
{
	struct wire_env w;
	struct ordk_wc wc[32];
	int got = 0, inv = 0;

	func_max_dest_rd_atomic = 2; /* the responder takes 2; the requester says 16 */
	wire_open(&w, LEN, NULL, 64);
	func_max_dest_rd_atomic = 16;
	cr_assert_eq(ordk_dev_set_faults(w.p.s[0].dev, "drop-tx:1"), 0);
	cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_WRITE, 0, 0, 4096, 100, 0), 1);
	for (int i = 0; i < 50; i++)
		ordk_dev_poll(w.p.s[0].dev, 64);
	cr_assert_eq(ordk_dev_set_faults(w.p.s[0].dev, "drop-tx:0"), 0);
	for (uint64_t i = 0; i < 8; i++)
		cr_assert_eq(wire_post(&w, 0, ORDK_WR_RDMA_READ, 65536 + i * 4096, i * 4096, 4096, i, 0),
			     1);
	for (double end = test_now_s() + 5; got < 9;) {
		int k;

		cr_assert_lt(test_now_s(), end, "%d of 9 completions", got);
		ordk_dev_poll(w.p.s[1].dev, 64);
		k = ordk_cq_poll(w.p.s[0].cq, wc + got, 9 - got);
		cr_assert_geq(k, 0);
		got += k;
	}
	for (int i = 0; i < 9; i++) {
		cr_assert(wc[i].status == ORDK_WC_SUCCESS || wc[i].status == ORDK_WC_REM_INV_REQ_ERR ||
				  wc[i].status == ORDK_WC_WR_FLUSH_ERR,
			  "wr %lu: %s", (unsigned long)wc[i].wr_id, ordk_wc_status_str(wc[i].status));
		inv += wc[i].status == ORDK_WC_REM_INV_REQ_ERR;
	}
	cr_assert_eq(inv, 1, "one READ refused, the later ones flushed");
	cr_assert_geq(wire_qp_stats(&w, 1).read_req_rejected, 1);
	cr_assert_eq(FUNC_QP_INFO(w.p.s[0].qp, state), ORDK_QPS_ERR);
	wire_close(&w);
}
