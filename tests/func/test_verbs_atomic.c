/* SPDX-License-Identifier: BSD-3-Clause */
/* Software atomics: semantics, ordering, and every error. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "func_common.h"

static struct func_pair p;

static void
setup(void)
{
	func_pair_open(&p, 1 << 20, NULL);
	func_pair_qps(&p, ORDK_MTU_1024, 64);
}

static void
teardown(void)
{
	func_pair_close(&p);
}

TestSuite(verbs_atomic, .init = setup, .fini = teardown, .timeout = 60);

static struct ordk_wc
atomic(enum ordk_wr_opcode op, uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	struct func_side *a = &p.s[0];
	struct ordk_send_wr wr = { .wr_id = 77, .opcode = op, .send_flags = ORDK_SEND_SIGNALED,
				   .num_sge = 1 };
	struct ordk_wc wc;

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf + 4096, 8, a->mr->lkey };
	wr.atomic.remote_addr = raddr;
	wr.atomic.rkey = rkey;
	wr.atomic.compare_add = cmp_add;
	wr.atomic.swap = swap;
	memset(a->buf + 4096, 0xAB, 8);
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1, "%s", rte_strerror(rte_errno));
	func_wait(&p, 0, &wc, 1, 10);
	return wc;
}

static uint64_t
local_result(void)
{
	uint64_t v;

	memcpy(&v, p.s[0].buf + 4096, 8);
	return v;
}

Test(verbs_atomic, cmp_and_swp_and_fetch_and_add)
{
	uint64_t *target = (uint64_t *)(p.s[1].buf + 64);
	uint64_t raddr = (uint64_t)(uintptr_t)target;
	uint32_t rkey = p.s[1].mr->rkey;
	struct ordk_wc wc;

	*target = 1000;
	wc = atomic(ORDK_WR_ATOMIC_FETCH_AND_ADD, raddr, rkey, 5, 0);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc.opcode, ORDK_WC_FETCH_ADD);
	cr_assert_eq(wc.byte_len, 8);
	cr_assert_eq(local_result(), 1000, "the original value lands in the local buffer");
	cr_assert_eq(*target, 1005);
	wc = atomic(ORDK_WR_ATOMIC_CMP_AND_SWP, raddr, rkey, 999, 7); /* no match */
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc.opcode, ORDK_WC_COMP_SWAP);
	cr_assert_eq(local_result(), 1005);
	cr_assert_eq(*target, 1005, "no swap when the compare fails");
	wc = atomic(ORDK_WR_ATOMIC_CMP_AND_SWP, raddr, rkey, 1005, 7);
	cr_assert_eq(local_result(), 1005);
	cr_assert_eq(*target, 7, "swap when it matches");
	wc = atomic(ORDK_WR_ATOMIC_FETCH_AND_ADD, raddr, rkey, (uint64_t)-8, 0);
	cr_assert_eq(*target, UINT64_MAX, "wraps as 64-bit arithmetic");
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, atomics_executed), 4);
}

Test(verbs_atomic, ordered_after_earlier_writes)
{
	/* a WRITE then an atomic on the same word: the atomic sees the written value */
	uint64_t *target = (uint64_t *)(p.s[1].buf + 128);
	struct ordk_send_wr w = { .wr_id = 1, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1 };
	struct ordk_wc wc;
	uint64_t v = 40;

	*target = 0;
	memcpy(p.s[0].buf + 8192, &v, 8);
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf + 8192, 8, p.s[0].mr->lkey };
	w.rdma.remote_addr = (uint64_t)(uintptr_t)target;
	w.rdma.rkey = p.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &w, 1), 1);
	wc = atomic(ORDK_WR_ATOMIC_FETCH_AND_ADD, (uint64_t)(uintptr_t)target, p.s[1].mr->rkey, 2, 0);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(local_result(), 40);
	cr_assert_eq(*target, 42);
}

Test(verbs_atomic, bad_rkey_is_a_remote_access_error)
{
	struct ordk_wc wc = atomic(ORDK_WR_ATOMIC_FETCH_AND_ADD,
				   (uint64_t)(uintptr_t)p.s[1].buf, p.s[1].mr->rkey ^ 0x80, 1, 0);
	struct ordk_qp_attr a;

	cr_assert_eq(wc.status, ORDK_WC_REM_ACCESS_ERR, "%s", ordk_wc_status_str(wc.status));
	ordk_qp_query(p.s[0].qp, &a, NULL);
	cr_assert_eq(a.qp_state, ORDK_QPS_ERR, "the QP goes to ERR");
	cr_assert_eq(local_result(), 0xABABABABABABABABull, "no value written back");
}

Test(verbs_atomic, misaligned_and_out_of_bounds_are_invalid_requests)
{
	struct ordk_wc wc = atomic(ORDK_WR_ATOMIC_CMP_AND_SWP,
				   (uint64_t)(uintptr_t)p.s[1].buf + 4, p.s[1].mr->rkey, 0, 1);

	cr_assert_eq(wc.status, ORDK_WC_REM_INV_REQ_ERR, "misaligned");
}

Test(verbs_atomic, out_of_bounds)
{
	struct ordk_wc wc = atomic(ORDK_WR_ATOMIC_FETCH_AND_ADD,
				   (uint64_t)(uintptr_t)p.s[1].buf + p.s[1].len, p.s[1].mr->rkey, 1, 0);

	cr_assert_eq(wc.status, ORDK_WC_REM_INV_REQ_ERR);
}

Test(verbs_atomic, mr_without_remote_atomic)
{
	struct ordk_mr *m = ordk_mr_reg(p.s[1].pd, p.s[1].buf + 65536, 4096,
					ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE);
	struct ordk_wc wc = atomic(ORDK_WR_ATOMIC_FETCH_AND_ADD,
				   (uint64_t)(uintptr_t)p.s[1].buf + 65536, m->rkey, 1, 0);

	cr_assert_eq(wc.status, ORDK_WC_REM_ACCESS_ERR);
	cr_assert_eq(ordk_mr_dereg(m), 0);
}

Test(verbs_atomic, post_checks)
{
	struct ordk_send_wr wr = { .opcode = ORDK_WR_ATOMIC_FETCH_AND_ADD, .num_sge = 1 };

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, 4, p.s[0].mr->lkey };
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0);
	cr_assert_eq(rte_errno, EINVAL, "an atomic needs an 8-byte local buffer");
	wr.sge.length = 8;
	wr.sge.addr += 4;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0);
	cr_assert_eq(rte_errno, EINVAL, "8-byte aligned");
}

/* Post @p n atomics on one word at once (max_rd_atomic in flight), results at 8192 + 8 i. */
static void
post_many(enum ordk_wr_opcode op, uint64_t *target, uint32_t n, bool chain)
{
	for (uint32_t i = 0; i < n; i++) {
		struct ordk_send_wr wr = { .wr_id = i, .opcode = op, .num_sge = 1,
					   .send_flags = ORDK_SEND_SIGNALED };

		wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf + 8192 + 8 * i, 8,
					    p.s[0].mr->lkey };
		wr.atomic.remote_addr = (uint64_t)(uintptr_t)target;
		wr.atomic.rkey = p.s[1].mr->rkey;
		wr.atomic.compare_add = chain ? i : i + 1;
		wr.atomic.swap = i + 1;
		cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1, "WR %u", i);
	}
}

static void
wait_in_order(uint32_t n, enum ordk_wc_opcode op)
{
	struct ordk_wc wc[64];

	func_wait(&p, 0, wc, (int)n, 20);
	for (uint32_t i = 0; i < n; i++) {
		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS, "WR %u: %s", i,
			     ordk_wc_status_str(wc[i].status));
		cr_assert_eq(wc[i].wr_id, i, "in posting order");
		cr_assert_eq(wc[i].opcode, op);
	}
}

static uint64_t
result(uint32_t i)
{
	uint64_t v;

	memcpy(&v, p.s[0].buf + 8192 + 8 * i, 8);
	return v;
}

Test(verbs_atomic, many_outstanding_each_result_checked)
{
	uint64_t *target = (uint64_t *)(p.s[1].buf + 256);
	uint32_t n = 60;

	/* FETCH_AND_ADD i + 1: each sees the sum of the adds before it */
	*target = 0;
	post_many(ORDK_WR_ATOMIC_FETCH_AND_ADD, target, n, false);
	wait_in_order(n, ORDK_WC_FETCH_ADD);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(result(i), (uint64_t)i * (i + 1) / 2, "add %u: %lu", i,
			     (unsigned long)result(i));
	cr_assert_eq(*target, (uint64_t)n * (n + 1) / 2);
	/* a CMP_AND_SWP chain: i -> i + 1, only in order does every one swap */
	*target = 0;
	post_many(ORDK_WR_ATOMIC_CMP_AND_SWP, target, n, true);
	wait_in_order(n, ORDK_WC_COMP_SWAP);
	for (uint32_t i = 0; i < n; i++)
		cr_assert_eq(result(i), i, "cas %u: %lu", i, (unsigned long)result(i));
	cr_assert_eq(*target, n, "every CAS swapped");
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, atomics_executed), 2 * n);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, atomics_ignored), 0);
}

Test(verbs_atomic, a_read_after_atomics_sees_them_all)
{
	uint64_t *target = (uint64_t *)(p.s[1].buf + 512), v;
	struct ordk_send_wr rd = { .wr_id = 16, .opcode = ORDK_WR_RDMA_READ, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc[17];

	*target = 100;
	post_many(ORDK_WR_ATOMIC_FETCH_AND_ADD, target, 16, false);
	rd.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf + 12288, 8, p.s[0].mr->lkey };
	rd.rdma.remote_addr = (uint64_t)(uintptr_t)target;
	rd.rdma.rkey = p.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &rd, 1), 1);
	func_wait(&p, 0, wc, 17, 20);
	cr_assert_eq(wc[16].opcode, ORDK_WC_RDMA_READ);
	cr_assert_eq(wc[16].status, ORDK_WC_SUCCESS);
	memcpy(&v, p.s[0].buf + 12288, 8);
	cr_assert_eq(v, 100 + 16 * 17 / 2, "the READ read after every add: %lu", (unsigned long)v);
}
