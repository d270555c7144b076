/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PGT run allocator: the card translates an MR through a contiguous run of
 * page-table entries (doc/guides/drivers/blue_hw_interface.md section 4).
 * First fit over a sorted list
 * of free extents; releasing merges with both neighbours.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mem_internal.h"

int
mem_pgt_init(struct mem_pgt *p, uint32_t total)
{
	memset(p, 0, sizeof(*p));
	if (total == 0)
		return -EINVAL;
	p->cap = 64;
	p->ext = malloc(p->cap * sizeof(*p->ext));
	if (p->ext == NULL)
		return -ENOMEM;
	p->total = total;
	p->ext[0] = (struct mem_extent){ 0, total };
	p->nfree = 1;
	p->free_entries = total;
	return 0;
}

void
mem_pgt_fini(struct mem_pgt *p)
{
	free(p->ext);
	p->ext = NULL;
}

int64_t
mem_pgt_alloc(struct mem_pgt *p, uint32_t n)
{
	if (n == 0)
		return -1;
	for (uint32_t i = 0; i < p->nfree; i++) {
		struct mem_extent *e = &p->ext[i];
		uint32_t start = e->start;

		if (e->len < n)
			continue;
		e->start += n;
		e->len -= n;
		if (e->len == 0) {
			memmove(e, e + 1, (p->nfree - i - 1) * sizeof(*e));
			p->nfree--;
		}
		p->free_entries -= n;
		return start;
	}
	return -1;
}

int
mem_pgt_free(struct mem_pgt *p, uint32_t start, uint32_t n)
{
	uint32_t i;

	if (n == 0 || start >= p->total || n > p->total - start)
		return -1;
	/* i = first free extent starting after start */
	for (i = 0; i < p->nfree && p->ext[i].start <= start; i++)
		;
	/* the run must not touch free space: it was allocated */
	if (i > 0 && p->ext[i - 1].start + p->ext[i - 1].len > start)
		return -1;
	if (i < p->nfree && start + n > p->ext[i].start)
		return -1;

	bool left = i > 0 && p->ext[i - 1].start + p->ext[i - 1].len == start;
	bool right = i < p->nfree && start + n == p->ext[i].start;

	if (left && right) {
		p->ext[i - 1].len += n + p->ext[i].len;
		memmove(&p->ext[i], &p->ext[i + 1], (p->nfree - i - 1) * sizeof(p->ext[0]));
		p->nfree--;
	} else if (left) {
		p->ext[i - 1].len += n;
	} else if (right) {
		p->ext[i].start = start;
		p->ext[i].len += n;
	} else {
		if (p->nfree == p->cap) {
			struct mem_extent *e = realloc(p->ext, 2 * p->cap * sizeof(*e));

			if (e == NULL)
				return -1;
			p->ext = e;
			p->cap *= 2;
		}
		memmove(&p->ext[i + 1], &p->ext[i], (p->nfree - i) * sizeof(p->ext[0]));
		p->ext[i] = (struct mem_extent){ start, n };
		p->nfree++;
	}
	p->free_entries += n;
	return 0;
}
