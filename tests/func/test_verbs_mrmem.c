/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MRs over memory the process cannot back: a write access over a read-only
 * mapping is refused (EFAULT); memory unmapped under a live MR makes the
 * model's accesses fail and be counted (xstat dma_fault), never SIGSEGV.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_errno.h>

#include "func_common.h"
#include "sim_host.h"

static struct func_pair p;

static void
setup(void)
{
	func_pair_open(&p, 1 << 20, NULL);
}

static void
teardown(void)
{
	func_pair_close(&p);
}

TestSuite(verbs_mrmem, .init = setup, .fini = teardown, .timeout = 60);

static uint8_t *
map(size_t len, int prot)
{
	void *m = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	cr_assert_neq(m, MAP_FAILED);
	return m;
}

static void
refused(struct ordk_pd *pd, void *addr, size_t len, unsigned int access, const char *what)
{
	struct ordk_mr *mr = ordk_mr_reg(pd, addr, len, access);

	cr_assert_null(mr, "%s: registered", what);
	cr_assert_eq(rte_errno, EFAULT, "%s: %s", what, rte_strerror(rte_errno));
}

Test(verbs_mrmem, write_access_to_read_only_memory_is_refused)
{
	struct ordk_pd *pd = p.s[1].pd;
	uint8_t *ro = map(3 * 4096, PROT_READ | PROT_WRITE), *none = map(4096, PROT_NONE);
	struct ordk_mr *mr;

	cr_assert_eq(mprotect(ro + 4096, 4096, PROT_READ), 0);
	refused(pd, ro + 4096, 4096, ORDK_ACCESS_LOCAL_WRITE, "LOCAL_WRITE on PROT_READ");
	refused(pd, ro + 4096, 64, ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE,
		"REMOTE_WRITE on PROT_READ");
	refused(pd, ro + 4096, 8, ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_ATOMIC,
		"REMOTE_ATOMIC on PROT_READ");
	/* a range that only ends in the read-only page */
	refused(pd, ro + 4000, 200, ORDK_ACCESS_LOCAL_WRITE, "partly PROT_READ");
	refused(pd, none, 4096, ORDK_ACCESS_REMOTE_READ, "REMOTE_READ on PROT_NONE");
	cr_assert_eq(munmap(none, 4096), 0);
	refused(pd, none, 4096, ORDK_ACCESS_REMOTE_READ, "unmapped");

	/* what the mapping allows is fine */
	mr = ordk_mr_reg(pd, ro + 4096, 4096, ORDK_ACCESS_REMOTE_READ);
	cr_assert_not_null(mr, "REMOTE_READ on PROT_READ: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	mr = ordk_mr_reg(pd, ro, 3 * 4096 - 4096, 0);
	cr_assert_not_null(mr, "no access on readable memory: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	mr = ordk_mr_reg(pd, ro + 8192, 4096, 15);
	cr_assert_not_null(mr, "every access on PROT_READ|PROT_WRITE: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	munmap(ro, 3 * 4096);
}

/* Ranges above 1 MiB are checked through /proc/self/maps: the same answers. */
Test(verbs_mrmem, large_ranges)
{
	struct ordk_pd *pd = p.s[1].pd;
	const size_t len = 4u << 20;
	uint8_t *m = map(len, PROT_READ | PROT_WRITE);
	struct ordk_mr *mr = ordk_mr_reg(pd, m, len, 15);

	cr_assert_not_null(mr, "4 MiB read-write: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	cr_assert_eq(mprotect(m + (2u << 20), 4096, PROT_READ), 0);
	refused(pd, m, len, ORDK_ACCESS_LOCAL_WRITE, "a PROT_READ page inside 4 MiB");
	mr = ordk_mr_reg(pd, m, len, ORDK_ACCESS_REMOTE_READ);
	cr_assert_not_null(mr, "4 MiB readable, REMOTE_READ: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	cr_assert_eq(munmap(m + (3u << 20), 4096), 0);
	refused(pd, m, len, ORDK_ACCESS_REMOTE_READ, "a hole inside 4 MiB");
	mr = ordk_mr_reg(pd, m, 2u << 20, 7);
	cr_assert_not_null(mr, "the writable first 2 MiB: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	munmap(m, len);
}

static uint64_t
xstat(struct ordk_dev *dev, const char *name)
{
	const char *names[128];
	uint64_t values[128];
	int n = ordk_dev_xstats(dev, names, values, 128);

	cr_assert_gt(n, 0);
	for (int i = 0; i < n && i < 128; i++)
		if (strcmp(names[i], name) == 0)
			return values[i];
	cr_assert_fail("no xstat %s", name);
	return 0;
}

static void
post(struct ordk_qp *qp, enum ordk_wr_opcode op, void *local, uint32_t lkey, void *remote,
     uint32_t rkey, uint32_t len)
{
	struct ordk_send_wr wr = { .wr_id = op, .opcode = op, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)local, len, lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)remote;
	wr.rdma.rkey = rkey;
	cr_assert_eq(ordk_qp_post_send(qp, &wr, 1), 1, "post: %s", rte_strerror(rte_errno));
}

/* The peer WRITEs into, and READs from, an MR whose memory was unmapped: the model's receive
 * copy and its READ-response read fail and are counted; the process lives. */
Test(verbs_mrmem, remote_access_to_unmapped_memory_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	const size_t len = 64 << 10;
	uint8_t *m = map(len, PROT_READ | PROT_WRITE);
	struct ordk_mr *mr = ordk_mr_reg(b->pd, m, len, 7);
	struct ordk_wc wc;

	cr_assert_not_null(mr);
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	cr_assert_eq(munmap(m, len), 0);
	post(a->qp, ORDK_WR_RDMA_WRITE, a->buf, a->mr->lkey, m, mr->rkey, 8192);
	func_wait(&p, 0, &wc, 1, 20);
	cr_assert_neq(wc.status, ORDK_WC_SUCCESS, "a WRITE into unmapped memory");
	cr_assert_geq(xstat(b->dev, "dma_fault"), 1);
	cr_assert_geq(xstat(b->dev, "rx_dma_error"), 1);
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}

Test(verbs_mrmem, read_from_unmapped_memory_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	const size_t len = 64 << 10;
	uint8_t *m = map(len, PROT_READ | PROT_WRITE);
	struct ordk_mr *mr = ordk_mr_reg(b->pd, m, len, 7);
	struct ordk_wc wc;

	cr_assert_not_null(mr);
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	cr_assert_eq(munmap(m, len), 0);
	post(a->qp, ORDK_WR_RDMA_READ, a->buf, a->mr->lkey, m, mr->rkey, 4096);
	func_wait(&p, 0, &wc, 1, 20);
	cr_assert_neq(wc.status, ORDK_WC_SUCCESS, "a READ of unmapped memory");
	cr_assert_geq(xstat(b->dev, "dma_fault"), 1);
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}

/* Our own WRITE's source unmapped: the model's transmit read fails and is counted. */
Test(verbs_mrmem, local_source_unmapped_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	const size_t len = 64 << 10;
	uint8_t *m = map(len, PROT_READ | PROT_WRITE);
	struct ordk_mr *mr = ordk_mr_reg(a->pd, m, len, 7);
	struct ordk_wc wc;

	cr_assert_not_null(mr);
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	cr_assert_eq(munmap(m, len), 0);
	post(a->qp, ORDK_WR_RDMA_WRITE, m, mr->lkey, b->buf, b->mr->rkey, 8192);
	func_wait(&p, 0, &wc, 1, 20);
	cr_assert_neq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_geq(xstat(a->dev, "dma_fault"), 1);
	cr_assert_geq(xstat(a->dev, "tx_dma_error"), 1);
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}

/* An atomic on unmapped MR memory (executed by the responder's CPU): REM_ACCESS_ERR, no crash. */
Test(verbs_mrmem, atomic_on_unmapped_memory_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	const size_t len = 64 << 10;
	uint8_t *m = map(len, PROT_READ | PROT_WRITE);
	struct ordk_mr *mr = ordk_mr_reg(b->pd, m, len, 15);
	struct ordk_send_wr wr = { .wr_id = 9, .opcode = ORDK_WR_ATOMIC_FETCH_AND_ADD,
				   .num_sge = 1, .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc;

	cr_assert_not_null(mr);
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	cr_assert_eq(munmap(m, len), 0);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, 8, a->mr->lkey };
	wr.atomic.remote_addr = (uint64_t)(uintptr_t)m + 64;
	wr.atomic.rkey = mr->rkey;
	wr.atomic.compare_add = 1;
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1);
	func_wait(&p, 0, &wc, 1, 20);
	cr_assert_eq(wc.status, ORDK_WC_REM_ACCESS_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}
