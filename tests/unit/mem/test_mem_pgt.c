/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "mem_internal.h"

Test(mem_pgt, first_fit_merge_and_exhaustion)
{
	struct mem_pgt p;

	cr_assert_eq(mem_pgt_init(&p, 131072), 0);
	cr_assert_eq(mem_pgt_alloc(&p, 10), 0);
	cr_assert_eq(mem_pgt_alloc(&p, 20), 10);
	cr_assert_eq(mem_pgt_alloc(&p, 30), 30);
	cr_assert_eq(mem_pgt_free(&p, 10, 20), 0);
	cr_assert_eq(mem_pgt_alloc(&p, 25), 60, "the 20-entry hole is too small");
	cr_assert_eq(mem_pgt_alloc(&p, 15), 10, "first fit takes the hole");
	cr_assert_eq(mem_pgt_free(&p, 0, 10), 0);
	cr_assert_eq(mem_pgt_free(&p, 10, 15), 0);
	cr_assert_eq(mem_pgt_free(&p, 30, 30), 0);
	cr_assert_eq(mem_pgt_free(&p, 60, 25), 0);
	cr_assert_eq(p.nfree, 1, "everything merged back");
	cr_assert_eq(p.free_entries, 131072);
	cr_assert_eq(mem_pgt_alloc(&p, 131073), -1, "more than the table");
	cr_assert_eq(mem_pgt_alloc(&p, 131072), 0);
	cr_assert_eq(mem_pgt_alloc(&p, 1), -1, "exhausted");
	cr_assert_eq(mem_pgt_free(&p, 0, 131072), 0);
	mem_pgt_fini(&p);
}

Test(mem_pgt, rejects_bad_frees)
{
	struct mem_pgt p;

	cr_assert_eq(mem_pgt_init(&p, 100), 0);
	cr_assert_eq(mem_pgt_alloc(&p, 50), 0);
	cr_assert_eq(mem_pgt_free(&p, 40, 20), -1, "overlaps free space");
	cr_assert_eq(mem_pgt_free(&p, 60, 1), -1, "never allocated");
	cr_assert_eq(mem_pgt_free(&p, 0, 0), -1);
	cr_assert_eq(mem_pgt_free(&p, 99, 5), -1, "past the end");
	cr_assert_eq(mem_pgt_free(&p, 0, 50), 0);
	cr_assert_eq(mem_pgt_free(&p, 0, 50), -1, "double free");
	mem_pgt_fini(&p);
}

Test(mem_pgt, fragmentation_many_extents)
{
	struct mem_pgt p;

	cr_assert_eq(mem_pgt_init(&p, 4096), 0);
	for (int i = 0; i < 4096; i++)
		cr_assert_eq(mem_pgt_alloc(&p, 1), i);
	for (int i = 0; i < 4096; i += 2)
		cr_assert_eq(mem_pgt_free(&p, (uint32_t)i, 1), 0);
	cr_assert_eq(p.nfree, 2048, "2048 holes (the list grew past its first capacity)");
	cr_assert_eq(mem_pgt_alloc(&p, 2), -1, "no two adjacent free entries");
	for (int i = 1; i < 4096; i += 2)
		cr_assert_eq(mem_pgt_free(&p, (uint32_t)i, 1), 0);
	cr_assert_eq(p.nfree, 1);
	mem_pgt_fini(&p);
}
