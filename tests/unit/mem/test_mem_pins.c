/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "mem_internal.h"

#define PG 4096ull

/* a fake pinner that keeps a per-page lock count, as mlock would (0/1 per page) */
static uint8_t locked[1024];
static int ops, fail_at = -1;

static int
fake(void *arg, uint64_t addr, uint64_t len, bool pin)
{
	(void)arg;
	cr_assert_eq(addr % PG, 0);
	cr_assert_eq(len % PG, 0);
	if (pin && ops++ == fail_at)
		return -ENOMEM;
	for (uint64_t p = addr / PG; p < (addr + len) / PG; p++) {
		if (pin)
			cr_assert_eq(locked[p], 0, "page %lu pinned twice", (unsigned long)p);
		else
			cr_assert_eq(locked[p], 1, "page %lu unpinned but not pinned", (unsigned long)p);
		locked[p] = pin;
	}
	return 0;
}

static unsigned int
count_locked(void)
{
	unsigned int n = 0;

	for (int i = 0; i < 1024; i++)
		n += locked[i];
	return n;
}

static struct mem_pins s;

static void
init(void)
{
	memset(locked, 0, sizeof(locked));
	ops = 0;
	fail_at = -1;
	cr_assert_eq(mem_pins_init(&s, PG, fake, NULL), 0);
}

TestSuite(mem_pins, .init = init);

Test(mem_pins, shared_page_pinned_once_released_with_the_last)
{
	/* two MRs in the same page, as NCCL registers */
	cr_assert_eq(mem_pins_add(&s, 10 * PG + 100, 200, 1), 0);
	cr_assert_eq(mem_pins_add(&s, 10 * PG + 1000, 200, 2), 0);
	cr_assert_eq(count_locked(), 1);
	cr_assert_eq(mem_pins_del(&s, 1), 0);
	cr_assert_eq(locked[10], 1, "still used by MR 2");
	cr_assert_eq(mem_pins_del(&s, 2), 0);
	cr_assert_eq(count_locked(), 0);
	cr_assert_eq(s.pinned_bytes, 0);
}

Test(mem_pins, three_in_one_page_remove_the_middle)
{
	cr_assert_eq(mem_pins_add(&s, 5 * PG + 0, 100, 1), 0);
	cr_assert_eq(mem_pins_add(&s, 5 * PG + 1000, 100, 2), 0);
	cr_assert_eq(mem_pins_add(&s, 5 * PG + 3000, 100, 3), 0);
	cr_assert_eq(mem_pins_del(&s, 2), 0, "the reference driver underflowed here");
	cr_assert_eq(locked[5], 1);
	cr_assert_eq(mem_pins_del(&s, 1), 0);
	cr_assert_eq(mem_pins_del(&s, 3), 0);
	cr_assert_eq(count_locked(), 0);
}

Test(mem_pins, overlapping_ranges_are_legal)
{
	cr_assert_eq(mem_pins_add(&s, 0, 10 * PG, 1), 0);
	cr_assert_eq(mem_pins_add(&s, 5 * PG, 10 * PG, 2), 0);
	cr_assert_eq(mem_pins_add(&s, 2 * PG + 7, PG, 3), 0);
	cr_assert_eq(count_locked(), 15);
	cr_assert_eq(mem_pins_del(&s, 1), 0);
	cr_assert_eq(count_locked(), 12, "pages 0, 1 and 4 freed; 2, 3 kept by MR 3; 5-14 by MR 2");
	cr_assert_eq(locked[2] + locked[3], 2);
	cr_assert_eq(locked[4], 0);
	cr_assert_eq(mem_pins_del(&s, 2), 0);
	cr_assert_eq(mem_pins_del(&s, 3), 0);
	cr_assert_eq(count_locked(), 0);
	cr_assert_eq(mem_pins_del(&s, 3), -ENOENT);
}

Test(mem_pins, a_failed_pin_leaves_nothing_pinned)
{
	cr_assert_eq(mem_pins_add(&s, 4 * PG, PG, 1), 0);
	cr_assert_eq(mem_pins_add(&s, 8 * PG, PG, 2), 0);
	fail_at = ops + 2; /* third gap of the next add fails */
	cr_assert_eq(mem_pins_add(&s, 0, 12 * PG, 3), -ENOMEM);
	cr_assert_eq(count_locked(), 2, "rolled back to the two single pages");
	cr_assert_eq(s.n, 2);
	cr_assert_eq(mem_pins_add(&s, 0, 0, 4), -EINVAL);
	cr_assert_eq(mem_pins_add(&s, UINT64_MAX - 10, 100, 4), -EINVAL, "wraps");
}
