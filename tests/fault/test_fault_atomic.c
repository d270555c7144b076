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
