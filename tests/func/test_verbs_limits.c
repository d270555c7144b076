/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The limits are what ordk_dev_query() says: up to each one, objects are
 * created; one more is refused with ENOSPC (counts: max_qp, max_mr, max_cq,
 * max_pd, pgt_entries) or EINVAL (sizes of one object: max_cqe, max_qp_wr,
 * as ibverbs does), never at some lower, undocumented number.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_errno.h>

#include "func_common.h"
#include "sim_host.h"

FUNC_PAIR_SUITE(verbs_limits, 1 << 20, 120);

/* max_mr MRs, each on its own page (each its own DMA mapping in the model). */
Test(verbs_limits, max_mr_on_separate_pages)
{
	struct func_side *s = &p.s[0];
	uint32_t max = s->attr.max_mr, n = 0;
	uint8_t *m = test_aligned(4096, (size_t)max * 4096);
	struct ordk_mr **mrs = calloc(max, sizeof(*mrs));

	cr_assert(m && mrs);
	/* the pair's own MR holds one slot */
	while (n < max && (mrs[n] = ordk_mr_reg(s->pd, m + (size_t)n * 4096, 64, 7)) != NULL)
		n++;
	cr_assert_eq(n, max - 1, "%u of %u MRs on separate pages: %s", n, max - 1,
		     rte_strerror(rte_errno));
	cr_assert_eq(rte_errno, ENOSPC);
	while (n > 0)
		cr_assert_eq(ordk_mr_dereg(mrs[--n]), 0);
	free(mrs);
	free(m);
}

static void
count_limit(const char *what, uint32_t max, uint32_t held, void *(*make)(void), int (*undo)(void *))
{
	void **objs = calloc(max + 1, sizeof(*objs));
	uint32_t n = 0;

	cr_assert_not_null(objs);
	while (n <= max && (objs[n] = make()) != NULL)
		n++;
	cr_assert_eq(n + held, max, "%s: %u created, the device says %u", what, n + held, max);
	cr_assert_eq(rte_errno, ENOSPC, "%s: %s", what, rte_strerror(rte_errno));
	while (n > 0)
		cr_assert_eq(undo(objs[--n]), 0);
	objs[0] = make();
	cr_assert_not_null(objs[0], "%s: one more after freeing", what);
	cr_assert_eq(undo(objs[0]), 0);
	free(objs);
}

static void *
make_cq(void)
{
	return ordk_cq_create(p.s[0].dev, 1);
}

static int
undo_cq(void *cq)
{
	return ordk_cq_destroy(cq);
}

static void *
make_pd(void)
{
	return ordk_pd_alloc(p.s[0].dev);
}

static int
undo_pd(void *pd)
{
	return ordk_pd_free(pd);
}

static void *
make_qp(void)
{
	struct ordk_qp_init_attr ia = { .send_cq = p.s[0].cq, .recv_cq = p.s[0].cq,
					.max_send_wr = 1, .max_recv_wr = 1 };

	return ordk_qp_create(p.s[0].pd, &ia);
}

static int
undo_qp(void *qp)
{
	return ordk_qp_destroy(qp);
}

Test(verbs_limits, max_cq)
{
	count_limit("max_cq", p.s[0].attr.max_cq, 1, make_cq, undo_cq);
}

Test(verbs_limits, max_pd)
{
	count_limit("max_pd", p.s[0].attr.max_pd, 1, make_pd, undo_pd);
}

Test(verbs_limits, max_qp)
{
	count_limit("max_qp", p.s[0].attr.max_qp, 0, make_qp, undo_qp);
}

Test(verbs_limits, max_cqe_and_max_qp_wr)
{
	struct func_side *s = &p.s[0];
	struct ordk_cq *cq = ordk_cq_create(s->dev, s->attr.max_cqe);
	struct ordk_qp_init_attr ia = { .send_cq = s->cq, .recv_cq = s->cq,
					.max_send_wr = s->attr.max_qp_wr,
					.max_recv_wr = s->attr.max_qp_wr };
	struct ordk_qp *qp;

	cr_assert_not_null(cq, "a CQ of max_cqe %u: %s", s->attr.max_cqe, rte_strerror(rte_errno));
	cr_assert_eq(ordk_cq_destroy(cq), 0);
	cr_assert_null(ordk_cq_create(s->dev, s->attr.max_cqe + 1));
	cr_assert_eq(rte_errno, EINVAL);
	qp = ordk_qp_create(s->pd, &ia);
	cr_assert_not_null(qp, "a QP of max_qp_wr %u: %s", s->attr.max_qp_wr,
			   rte_strerror(rte_errno));
	cr_assert_eq(ordk_qp_destroy(qp), 0);
	ia.max_send_wr++;
	cr_assert_null(ordk_qp_create(s->pd, &ia));
	cr_assert_eq(rte_errno, EINVAL);
	ia.max_send_wr--;
	ia.max_recv_wr++;
	cr_assert_null(ordk_qp_create(s->pd, &ia));
	cr_assert_eq(rte_errno, EINVAL);
}

/*
 * pgt_entries: every MR takes one entry per 2 MiB page it spans, so MRs over
 * 128 MiB (64 entries) fill the table after 2047. The 128 MiB are one 2 MiB
 * memfd mapped 64 times side by side: address space, not memory.
 */
Test(verbs_limits, pgt_entries)
{
	struct func_side *s = &p.s[0];
	const size_t page = 2u << 20, npages = 64, span = page * npages;
	uint32_t per_mr = (uint32_t)npages, max_n = (s->attr.pgt_entries - 1) / per_mr, n = 0;
	int fd = memfd_create("ordk_pgt", 0);
	uint8_t *raw, *base;
	struct ordk_mr **mrs;

	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, (off_t)page), 0);
	raw = mmap(NULL, span + page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(raw, MAP_FAILED);
	base = (uint8_t *)(((uintptr_t)raw + page - 1) & ~(uintptr_t)(page - 1));
	for (size_t i = 0; i < npages; i++)
		cr_assert_neq(mmap(base + i * page, page, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_FIXED, fd, 0), MAP_FAILED);
	mrs = calloc(max_n + 1, sizeof(*mrs));
	cr_assert_not_null(mrs);
	mrs[0] = ordk_mr_reg(s->pd, base, span, ORDK_ACCESS_LOCAL_WRITE);
	if (mrs[0] == NULL && rte_errno == EFAULT)
		cr_skip_test("cannot mlock 128 MiB here (RLIMIT_MEMLOCK)");
	/* the pair's own MR holds one entry */
	n = mrs[0] != NULL;
	while (n <= max_n && (mrs[n] = ordk_mr_reg(s->pd, base, span, 1)) != NULL)
		n++;
	cr_assert_eq(n, max_n, "%u MRs of %u pages fit in %u entries, not %u", max_n, per_mr,
		     s->attr.pgt_entries, n);
	cr_assert_eq(rte_errno, ENOSPC, "%s", rte_strerror(rte_errno));
	/* a smaller one still fits the rest */
	mrs[n] = ordk_mr_reg(s->pd, base, page, 1);
	cr_assert_not_null(mrs[n]);
	n++;
	while (n > 0)
		cr_assert_eq(ordk_mr_dereg(mrs[--n]), 0);
	free(mrs);
	munmap(raw, span + page);
	close(fd);
}
