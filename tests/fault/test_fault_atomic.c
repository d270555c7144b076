/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Exactly-once atomics and a vanished peer:
 * - several requesters (QPs) add to one address under drops and duplicates:
 *   the sum equals the number of adds (no double execution, no loss);
 * - the peer stops answering: RETRY_EXC_ERR after the configured retries,
 *   within the expected time, the QP in ERR, every other WR flushed.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <time.h>

#include "func_common.h"
#include "sim_host.h"

#define NREQ 4
#define ADDS 150

Test(fault_atomic, many_requesters_add_exactly_once, .timeout = 300)
{
	struct func_pair p;
	struct ordk_qp *qa[NREQ], *qb[NREQ];
	uint64_t *target;
	int posted[NREQ] = { 0 }, done[NREQ] = { 0 }, total = 0;
	double end;

	func_pair_open(&p, 1 << 20, "fault=drop:0.03,dup:0.03,seed=5");
	target = (uint64_t *)(p.s[1].buf + 4096);
	*target = 0;
	for (int i = 0; i < NREQ; i++) {
		struct ordk_qp_init_attr ia = { .max_send_wr = 8, .max_recv_wr = 8 };

		ia.send_cq = ia.recv_cq = p.s[0].cq;
		qa[i] = ordk_qp_create(p.s[0].pd, &ia);
		ia.send_cq = ia.recv_cq = p.s[1].cq;
		qb[i] = ordk_qp_create(p.s[1].pd, &ia);
		func_connect(&p.s[0], qa[i], &p.s[1], qb[i], ORDK_MTU_1024);
	}
	end = test_now_s() + 200;
	while (total < NREQ * ADDS && test_now_s() < end) {
		struct ordk_wc wc[16];
		int k;

		for (int i = 0; i < NREQ; i++) {
			if (posted[i] < ADDS && posted[i] - done[i] < 4) {
				struct ordk_send_wr wr = { .wr_id = (uint64_t)i, .num_sge = 1,
							   .opcode = ORDK_WR_ATOMIC_FETCH_AND_ADD,
							   .send_flags = ORDK_SEND_SIGNALED };

				wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf + 8 * i, 8,
							    p.s[0].mr->lkey };
				wr.atomic.remote_addr = (uint64_t)(uintptr_t)target;
				wr.atomic.rkey = p.s[1].mr->rkey;
				wr.atomic.compare_add = 1;
				if (ordk_qp_post_send(qa[i], &wr, 1) == 1)
					posted[i]++;
			}
		}
		ordk_dev_poll(p.s[1].dev, 64);
		k = ordk_cq_poll(p.s[0].cq, wc, 16);
		for (int j = 0; j < k; j++) {
			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc[j].status));
			done[wc[j].wr_id]++;
			total++;
		}
	}
	cr_assert_eq(total, NREQ * ADDS);
	cr_assert_eq(*target, NREQ * ADDS, "the sum of the adds: none lost, none twice");
	cr_assert_gt(FUNC_DEV_STAT(p.s[1].dev, atomics_replayed), 0, "duplicates and resends were replayed");
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, atomics_executed), NREQ * ADDS);
	for (int i = 0; i < NREQ; i++) {
		cr_assert_eq(ordk_qp_destroy(qa[i]), 0);
		cr_assert_eq(ordk_qp_destroy(qb[i]), 0);
	}
	func_pair_close(&p);
}

Test(fault_atomic, the_peer_vanishes, .timeout = 120)
{
	struct func_pair p;
	struct ordk_wc wc[8];
	struct ordk_qp_attr a;
	double t0, t;
	int got = 0;
	bool slept = false;

	/* everything B sends is lost: A hears nothing back */
	func_pair_open(&p, 1 << 20, "|fault=drop:1.0,seed=3");
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	t0 = test_now_s();
	for (int i = 0; i < 5; i++) {
		struct ordk_send_wr wr = { .wr_id = (uint64_t)i, .opcode = ORDK_WR_RDMA_WRITE,
					   .num_sge = 1, .send_flags = ORDK_SEND_SIGNALED };

		wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, 4096, p.s[0].mr->lkey };
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)p.s[1].buf;
		wr.rdma.rkey = p.s[1].mr->rkey;
		cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1);
	}
	while (got < 5 && test_now_s() - t0 < 30) {
		int k = ordk_cq_poll(p.s[0].cq, wc + got, 5 - got);
		struct ordk_qp_info in;

		ordk_dev_poll(p.s[1].dev, 64);
		got += k;
		/* between timeouts the QP sleeps on the timer wheel, off the active list */
		cr_assert_eq(ordk_qp_info(p.s[0].qp, &in), 0);
		if (got == 0 && test_now_s() - t0 > 0.05 && !in.active)
			slept = true;
	}
	cr_assert(slept, "a QP waiting only for an ACK left the active list");
	t = test_now_s() - t0;
	cr_assert_eq(got, 5, "every WR completes");
	cr_assert_eq(wc[0].status, ORDK_WC_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc[0].status));
	cr_assert_eq(wc[0].wr_id, 0);
	for (int i = 1; i < 5; i++) {
		cr_assert_eq(wc[i].status, ORDK_WC_WR_FLUSH_ERR);
		cr_assert_eq(wc[i].wr_id, (uint64_t)i, "in order");
	}
	ordk_qp_query(p.s[0].qp, &a, NULL);
	cr_assert_eq(a.qp_state, ORDK_QPS_ERR);
	/* timeout 10 = 4.2 ms; 7 retries with backoff 2..64: about 0.8 s */
	cr_assert_lt(t, 5.0, "gave up in %.2f s", t);
	cr_assert_gt(t, 0.1, "gave up too early: %.2f s", t);
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, retry_exceeded), 1);
	cr_assert_geq(FUNC_DEV_STAT(p.s[0].dev, timeouts), 8);
	func_pair_close(&p);
}

/* The same failure also flushes the RECVs posted on the failing QP, in order. */
Test(fault_atomic, the_peer_vanishes_recvs_flushed, .timeout = 120)
{
	struct func_pair p;
	struct ordk_wc wc[4];
	struct ordk_send_wr wr = { .wr_id = 7, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	double t0;
	int got = 0, recvs = 0;

	func_pair_open(&p, 1 << 20, "|fault=drop:1.0,seed=4");
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	for (int i = 0; i < 2; i++) {
		struct ordk_recv_wr r = { .wr_id = 100 + (uint64_t)i, .num_sge = 1 };

		r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf + 8192, 64, p.s[0].mr->lkey };
		cr_assert_eq(ordk_qp_post_recv(p.s[0].qp, &r, 1), 1);
	}
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, 4096, p.s[0].mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)p.s[1].buf;
	wr.rdma.rkey = p.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1);
	t0 = test_now_s();
	while (got < 3 && test_now_s() - t0 < 30) {
		int k = ordk_cq_poll(p.s[0].cq, wc + got, 3 - got);

		ordk_dev_poll(p.s[1].dev, 64);
		got += k > 0 ? k : 0;
	}
	cr_assert_eq(got, 3, "the WRITE and both RECVs complete");
	for (int i = 0; i < got; i++) {
		if (wc[i].opcode == ORDK_WC_RECV) {
			cr_assert_eq(wc[i].status, ORDK_WC_WR_FLUSH_ERR, "%s",
				     ordk_wc_status_str(wc[i].status));
			cr_assert_eq(wc[i].wr_id, 100 + (uint64_t)recvs, "RECVs flushed in order");
			recvs++;
		} else {
			cr_assert_eq(wc[i].wr_id, 7);
			cr_assert_eq(wc[i].status, ORDK_WC_RETRY_EXC_ERR, "%s",
				     ordk_wc_status_str(wc[i].status));
		}
	}
	cr_assert_eq(recvs, 2);
	func_pair_close(&p);
}

/*
 * Atomics pipelined on one QP (up to max_rd_atomic in flight) under every
 * fault: WRITE a word, FETCH_AND_ADD it (the atomic must see the WRITE
 * posted before it), and a CMP_AND_SWP chain on another word (each swaps
 * the value the one before it left, so a lost, repeated or reordered
 * execution breaks the chain). Every result is checked, in posting order.
 */
#define PIPE_WRS 480

static void
pipeline(const char *devargs)
{
	struct func_pair p;
	uint64_t want[PIPE_WRS], cas = 0, atomics = 0, *chain, *slot;
	uint32_t posted = 0, done = 0, clobbered = 0;
	double end;

	func_pair_open(&p, 1 << 20, devargs);
	func_pair_qps(&p, ORDK_MTU_1024, 32);
	chain = (uint64_t *)(void *)p.s[1].buf;
	slot = (uint64_t *)(void *)(p.s[1].buf + 4096);
	*chain = 0;
	end = test_now_s() + 200;
	while (done < PIPE_WRS && test_now_s() < end) {
		struct ordk_wc wc[16];
		int k;

		while (posted < PIPE_WRS && posted - done < 24) {
			uint32_t i = posted;
			uint8_t *res = p.s[0].buf + 8 * i, *src = p.s[0].buf + 65536 + 8 * i;
			struct ordk_send_wr wr = { .wr_id = i, .num_sge = 1,
						   .send_flags = ORDK_SEND_SIGNALED };
			uint64_t v = (i + 1) * 1000ull;

			wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)res, 8, p.s[0].mr->lkey };
			wr.atomic.rkey = p.s[1].mr->rkey;
			if (i % 4 == 0) {
				memcpy(src, &v, 8);
				wr.opcode = ORDK_WR_RDMA_WRITE;
				wr.sge.addr = (uint64_t)(uintptr_t)src;
				wr.rdma.remote_addr = (uint64_t)(uintptr_t)&slot[i / 4];
				wr.rdma.rkey = p.s[1].mr->rkey;
			} else if (i % 4 == 1) {
				wr.opcode = ORDK_WR_ATOMIC_FETCH_AND_ADD;
				wr.atomic.remote_addr = (uint64_t)(uintptr_t)&slot[i / 4];
				wr.atomic.compare_add = 1;
				want[i] = i * 1000ull; /* what the WRITE before it left */
			} else {
				wr.opcode = ORDK_WR_ATOMIC_CMP_AND_SWP;
				wr.atomic.remote_addr = (uint64_t)(uintptr_t)chain;
				wr.atomic.compare_add = cas;
				wr.atomic.swap = cas + 1;
				want[i] = cas++;
			}
			memset(res, 0xEE, 8);
			if (ordk_qp_post_send(p.s[0].qp, &wr, 1) != 1)
				break;
			atomics += i % 4 != 0;
			posted++;
		}
		ordk_dev_poll(p.s[1].dev, 64);
		k = ordk_cq_poll(p.s[0].cq, wc, 16);
		for (int j = 0; j < k; j++) {
			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "WR %u: %s", done,
				     ordk_wc_status_str(wc[j].status));
			cr_assert_eq(wc[j].wr_id, done, "completions in posting order");
			done++;
		}
	}
	cr_assert_eq(done, PIPE_WRS, "%u of %u WRs completed", done, PIPE_WRS);
	for (uint32_t i = 0; i < PIPE_WRS; i++) {
		uint64_t got;

		if (i % 4 == 0)
			continue;
		memcpy(&got, p.s[0].buf + 8 * i, 8);
		cr_assert_eq(got, want[i], "WR %u (%s): %lu, not %lu", i, i % 4 == 1 ? "add" : "cas",
			     (unsigned long)got, (unsigned long)want[i]);
	}
	cr_assert_eq(*chain, cas, "the CAS chain: each once, in order");
	/*
	 * The slots themselves are not checked: a late copy of a WRITE (dup with
	 * delay) is placed again by the card, which checks no PSN (verbs.md,
	 * Duplicates), and may land after the add; the add's result above shows
	 * it saw its WRITE and ran once.
	 */
	for (uint32_t k = 0; k < PIPE_WRS / 4; k++)
		clobbered += slot[k] != (k * 4 + 1) * 1000ull + 1;
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, atomics_executed), atomics, "none twice");
	cr_log_info("%s: replayed %lu, held %lu, timeouts %lu, slots a late WRITE copy overwrote %u",
		    devargs,
		    (unsigned long)FUNC_DEV_STAT(p.s[1].dev, atomics_replayed),
		    (unsigned long)FUNC_DEV_STAT(p.s[1].dev, atomics_held),
		    (unsigned long)FUNC_DEV_STAT(p.s[0].dev, timeouts), clobbered);
	func_pair_close(&p);
}

Test(fault_atomic, pipelined_on_one_qp_exactly_once_in_order, .timeout = 600)
{
	for (unsigned int v = 0; v < func_fault_mixes(); v++) {
		char list[96], f[256];

		func_fault_mix(list, sizeof(list), "drop,dup,reorder,delay", "0.03", v);
		snprintf(f, sizeof(f), "fault=%s,seed=%u|fault=%s,seed=%u", list, 61 + v, list, 71 + v);
		pipeline(f);
	}
}

/*
 * A deep send queue of atomics only (ib_atomic_bw's shape: 128 posted, 16
 * in flight) with answers and requests lost: each FETCH_AND_ADD's result is
 * its place in posting order (executed once, in order). While the answer to
 * the oldest is lost, the later ones' answers come back; were an answered
 * one to free its place, ids would run ahead of the lost one beyond the
 * responder's replay cache, which then ignores its resends: RETRY_EXC_ERR
 * (perftest's ib_atomic_bw at 1% loss, before the fix).
 */
#define DEEP_WRS   1500
#define DEEP_QUEUE 128

static void
deep_queue(const char *devargs)
{
	struct func_pair p;
	uint64_t *word;
	uint32_t posted = 0, done = 0;
	double end;

	func_pair_open(&p, 1 << 20, devargs);
	func_pair_qps(&p, ORDK_MTU_1024, DEEP_QUEUE);
	word = (uint64_t *)(void *)p.s[1].buf;
	*word = 0;
	end = test_now_s() + 200;
	while (done < DEEP_WRS && test_now_s() < end) {
		struct ordk_wc wc[32];
		int k;

		while (posted < DEEP_WRS && posted - done < DEEP_QUEUE) {
			struct ordk_send_wr wr = { .wr_id = posted, .num_sge = 1,
						   .opcode = ORDK_WR_ATOMIC_FETCH_AND_ADD,
						   .send_flags = ORDK_SEND_SIGNALED };
			uint8_t *res = p.s[0].buf + 8 * posted;

			memset(res, 0xEE, 8);
			wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)res, 8, p.s[0].mr->lkey };
			wr.atomic.remote_addr = (uint64_t)(uintptr_t)word;
			wr.atomic.rkey = p.s[1].mr->rkey;
			wr.atomic.compare_add = 1;
			if (ordk_qp_post_send(p.s[0].qp, &wr, 1) != 1)
				break;
			posted++;
		}
		ordk_dev_poll(p.s[1].dev, 64);
		k = ordk_cq_poll(p.s[0].cq, wc, 32);
		for (int j = 0; j < k; j++) {
			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "%s: WR %u: %s", devargs, done,
				     ordk_wc_status_str(wc[j].status));
			cr_assert_eq(wc[j].wr_id, done, "completions in posting order");
			done++;
		}
	}
	cr_assert_eq(done, DEEP_WRS, "%s: %u of %u WRs completed", devargs, done, DEEP_WRS);
	for (uint32_t i = 0; i < DEEP_WRS; i++) {
		uint64_t got;

		memcpy(&got, p.s[0].buf + 8 * i, 8);
		cr_assert_eq(got, i, "%s: add %u saw %lu", devargs, i, (unsigned long)got);
	}
	cr_assert_eq(*word, DEEP_WRS);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, atomics_executed), DEEP_WRS, "none twice");
	cr_assert_gt(FUNC_DEV_STAT(p.s[0].dev, atomics_resent), 0, "%s: a lost answer was asked for early",
		     devargs);
	cr_log_info("%s: replayed %lu, ignored %lu, held %lu, resent early %lu, timeouts %lu", devargs,
		    (unsigned long)FUNC_DEV_STAT(p.s[1].dev, atomics_replayed),
		    (unsigned long)FUNC_DEV_STAT(p.s[1].dev, atomics_ignored),
		    (unsigned long)FUNC_DEV_STAT(p.s[1].dev, atomics_held),
		    (unsigned long)FUNC_DEV_STAT(p.s[0].dev, atomics_resent),
		    (unsigned long)FUNC_DEV_STAT(p.s[0].dev, timeouts));
	func_pair_close(&p);
}

Test(fault_atomic, a_deep_queue_of_atomics_under_loss, .timeout = 600)
{
	deep_queue("fault=drop:0.02,seed=11|fault=drop:0.02,seed=12");
	deep_queue("fault=drop:0.02,seed=13|fault=drop:0.02,seed=14");
}
