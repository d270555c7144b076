/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pin bookkeeping. A page is pinned while the page span of at least one
 * registered range covers it. Registering pins only the pages no other range
 * covered; deregistering unpins only the pages no remaining range covers. So
 * two MRs over one page (NCCL does this) pin it once, overlapping MRs are
 * legal, and removing the middle of three MRs in one page unpins nothing
 * (the reference driver's underflow, doc/guides/drivers/blue_hw_interface.md section 4).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

int
mem_pins_init(struct mem_pins *s, uint64_t page_size, mem_pin_fn fn, void *arg)
{
	memset(s, 0, sizeof(*s));
	if (page_size == 0 || (page_size & (page_size - 1)) != 0 || fn == NULL)
		return -EINVAL;
	s->page = page_size;
	s->fn = fn;
	s->arg = arg;
	return 0;
}

void
mem_pins_fini(struct mem_pins *s)
{
	free(s->r);
	s->r = NULL;
	s->n = s->cap = 0;
}

static uint64_t
span_start(const struct mem_pins *s, const struct mem_range *r)
{
	return r->start & ~(s->page - 1);
}

static uint64_t
span_end(const struct mem_pins *s, const struct mem_range *r)
{
	return (r->end + s->page - 1) & ~(s->page - 1);
}

/*
 * Call fn for each piece of [lo, hi) not covered by any range's span except
 * @p skip. On failure (pinning), undo the pieces done. @return 0 or fn's error.
 */
static int
for_uncovered(struct mem_pins *s, uint64_t lo, uint64_t hi, int skip, bool pin)
{
	uint64_t cur = lo;
	uint64_t done_lo[64], done_hi[64];
	unsigned int ndone = 0;
	int rc = 0;

	for (uint32_t i = 0; i <= s->n && cur < hi; i++) {
		uint64_t a = hi, b = hi;

		if (i < s->n) {
			if ((int)i == skip)
				continue;
			a = span_start(s, &s->r[i]);
			b = span_end(s, &s->r[i]);
			if (b <= cur)
				continue;
			if (a >= hi)
				a = b = hi; /* sorted: nothing further overlaps */
		}
		if (a > cur) {
			rc = s->fn(s->arg, cur, (a < hi ? a : hi) - cur, pin);
			if (rc != 0)
				break;
			if (pin && ndone < 64) {
				done_lo[ndone] = cur;
				done_hi[ndone++] = a < hi ? a : hi;
			}
			s->pinned_bytes = pin ? s->pinned_bytes + ((a < hi ? a : hi) - cur)
					      : s->pinned_bytes - ((a < hi ? a : hi) - cur);
		}
		if (b > cur)
			cur = b;
	}
	if (rc != 0 && pin) {
		for (unsigned int j = 0; j < ndone; j++) {
			s->fn(s->arg, done_lo[j], done_hi[j] - done_lo[j], false);
			s->pinned_bytes -= done_hi[j] - done_lo[j];
		}
	}
	return rc;
}

int
mem_pins_add(struct mem_pins *s, uint64_t addr, uint64_t len, uint64_t id)
{
	struct mem_range nr = { .start = addr, .end = addr + len, .id = id };
	uint32_t i;
	int rc;

	if (len == 0 || addr + len < addr || addr + len > UINT64_MAX - s->page)
		return -EINVAL;
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 64;
		struct mem_range *r = realloc(s->r, cap * sizeof(*r));

		if (r == NULL)
			return -ENOMEM;
		s->r = r;
		s->cap = cap;
	}
	rc = for_uncovered(s, span_start(s, &nr), span_end(s, &nr), -1, true);
	if (rc != 0)
		return rc;
	for (i = 0; i < s->n && s->r[i].start <= addr; i++)
		;
	memmove(&s->r[i + 1], &s->r[i], (s->n - i) * sizeof(s->r[0]));
	s->r[i] = nr;
	s->n++;
	return 0;
}

int
mem_pins_del(struct mem_pins *s, uint64_t id)
{
	uint32_t i;
	uint64_t lo, hi;

	for (i = 0; i < s->n && s->r[i].id != id; i++)
		;
	if (i == s->n)
		return -ENOENT;
	lo = span_start(s, &s->r[i]);
	hi = span_end(s, &s->r[i]);
	/* unpin what the others do not cover; unpinning does not fail here */
	for_uncovered(s, lo, hi, (int)i, false);
	memmove(&s->r[i], &s->r[i + 1], (s->n - i - 1) * sizeof(s->r[0]));
	s->n--;
	return 0;
}
