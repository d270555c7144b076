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

FUNC_PAIR_SUITE(verbs_mrmem, 1 << 20, 60);

#define UNMAPPED_LEN (64u << 10)

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

/* An MR of @p pd's over 64 KiB, with @p access, unmapped once the QPs are connected. */
static struct ordk_mr *
unmapped_mr(struct ordk_pd *pd, unsigned int access, uint8_t **m)
{
	struct ordk_mr *mr;

	*m = map(UNMAPPED_LEN, PROT_READ | PROT_WRITE);
	mr = ordk_mr_reg(pd, *m, UNMAPPED_LEN, access);
	cr_assert_not_null(mr, "%s", rte_strerror(rte_errno));
	func_pair_qps(&p, ORDK_MTU_1024, 16);
	cr_assert_eq(munmap(*m, UNMAPPED_LEN), 0);
	return mr;
}

/* One signaled WR on side 0's QP: @return its completion's status. */
static enum ordk_wc_status
post_wait(struct ordk_send_wr *wr)
{
	struct ordk_wc wc;

	wr->num_sge = 1;
	wr->send_flags = ORDK_SEND_SIGNALED;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, wr, 1), 1, "post: %s", rte_strerror(rte_errno));
	func_wait(&p, 0, &wc, 1, 20);
	return wc.status;
}

/* A WRITE or READ of @p len bytes between @p local and @p remote. */
static enum ordk_wc_status
rdma(enum ordk_wr_opcode op, void *local, uint32_t lkey, void *remote, uint32_t rkey,
     uint32_t len)
{
	struct ordk_send_wr wr = { .wr_id = op, .opcode = op };

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)local, len, lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)remote;
	wr.rdma.rkey = rkey;
	return post_wait(&wr);
}

/* The peer WRITEs into, and READs from, an MR whose memory was unmapped: the model's receive
 * copy and its READ-response read fail and are counted; the process lives. */
Test(verbs_mrmem, remote_access_to_unmapped_memory_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	uint8_t *m;
	struct ordk_mr *mr = unmapped_mr(b->pd, 7, &m);

	cr_assert_neq(rdma(ORDK_WR_RDMA_WRITE, a->buf, a->mr->lkey, m, mr->rkey, 8192),
		      ORDK_WC_SUCCESS, "a WRITE into unmapped memory");
	cr_assert_geq(func_xstat(b->dev, "dma_fault"), 1);
	cr_assert_geq(func_xstat(b->dev, "rx_dma_error"), 1);
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}

Test(verbs_mrmem, read_from_unmapped_memory_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	uint8_t *m;
	struct ordk_mr *mr = unmapped_mr(b->pd, 7, &m);

	cr_assert_neq(rdma(ORDK_WR_RDMA_READ, a->buf, a->mr->lkey, m, mr->rkey, 4096),
		      ORDK_WC_SUCCESS, "a READ of unmapped memory");
	cr_assert_geq(func_xstat(b->dev, "dma_fault"), 1);
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}

/* Our own WRITE's source unmapped: the model's transmit read fails and is counted. */
Test(verbs_mrmem, local_source_unmapped_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	uint8_t *m;
	struct ordk_mr *mr = unmapped_mr(a->pd, 7, &m);

	cr_assert_neq(rdma(ORDK_WR_RDMA_WRITE, m, mr->lkey, b->buf, b->mr->rkey, 8192),
		      ORDK_WC_SUCCESS);
	cr_assert_geq(func_xstat(a->dev, "dma_fault"), 1);
	cr_assert_geq(func_xstat(a->dev, "tx_dma_error"), 1);
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}

/* An atomic on unmapped MR memory (executed by the responder's CPU): REM_ACCESS_ERR, no crash. */
Test(verbs_mrmem, atomic_on_unmapped_memory_fails_cleanly)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	uint8_t *m;
	struct ordk_mr *mr = unmapped_mr(b->pd, 15, &m);
	struct ordk_send_wr wr = { .wr_id = 9, .opcode = ORDK_WR_ATOMIC_FETCH_AND_ADD };
	enum ordk_wc_status st;

	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, 8, a->mr->lkey };
	wr.atomic.remote_addr = (uint64_t)(uintptr_t)m + 64;
	wr.atomic.rkey = mr->rkey;
	wr.atomic.compare_add = 1;
	st = post_wait(&wr);
	cr_assert_eq(st, ORDK_WC_REM_ACCESS_ERR, "%s", ordk_wc_status_str(st));
	cr_assert_eq(ordk_mr_dereg(mr), 0);
}
