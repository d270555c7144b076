/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/mem: the host's view of the card's memory tables.
 * - key allocator: 8192 MR slots, key = slot << 8 | rand8 (also used for QPNs
 *   with 1024 slots and slot 0 reserved);
 * - PGT run allocator: contiguous runs of the 131072 2 MiB-page entries,
 *   first fit over a sorted free-extent list, neighbours merged on release;
 * - pin bookkeeping: memory is pinned while any registered range covers it;
 *   a page shared by several MRs is pinned once and released with the last.
 * Pure data structures: no DPDK, no card; the caller does the pinning.
 */
#ifndef MEM_INTERNAL_H
#define MEM_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>

/* ----------------------------------------------------------------- guard */

/*
 * Accesses to application memory that may have gone (mem_guard.c). Install
 * once (mem_guard_init()), then around each access:
 *	sigjmp_buf env;
 *	if (sigsetjmp(env, 0) != 0)
 *		return -EFAULT;           (the memory faulted: count it)
 *	mem_guard_env = &env;
 *	... the access ...
 *	mem_guard_env = NULL;
 * About 6 ns per guarded access. Locals changed inside must be volatile.
 */
extern __thread sigjmp_buf *mem_guard_env;
void mem_guard_init(void);

/* ------------------------------------------------------------------ keys */

struct mem_keys {
	uint32_t nslots;
	uint32_t first;	   /* lowest usable slot (1 to reserve slot 0) */
	uint32_t used;
	uint64_t *bitmap;  /* 1 = in use */
	uint8_t *gen;	   /* last key part handed out per slot */
	uint64_t rng;	   /* fallback only: getrandom() failed */
	uint8_t pool[64];  /* random bytes from getrandom() */
	uint32_t pool_left;
};

int mem_keys_init(struct mem_keys *k, uint32_t nslots, uint32_t first, uint64_t seed);
void mem_keys_fini(struct mem_keys *k);
/** A free slot and a fresh key part: @return slot << 8 | part, or -1 when full. */
int64_t mem_keys_alloc(struct mem_keys *k);
/** Release the slot of @p key; @return 0 or -1 (not allocated / stale key). */
int mem_keys_free(struct mem_keys *k, uint32_t key);
/** Is @p key (slot and key part) the one currently handed out? */
bool mem_keys_valid(const struct mem_keys *k, uint32_t key);

/* -------------------------------------------------------------- PGT runs */

struct mem_extent {
	uint32_t start;
	uint32_t len;
};

struct mem_pgt {
	uint32_t total;
	uint32_t nfree;	 /* extents in the free list */
	uint32_t cap;
	uint32_t free_entries;
	struct mem_extent *ext; /* sorted by start, never adjacent */
};

int mem_pgt_init(struct mem_pgt *p, uint32_t total);
void mem_pgt_fini(struct mem_pgt *p);
/** First fit: @return the first entry of a run of @p n, or -1 (no run that long). */
int64_t mem_pgt_alloc(struct mem_pgt *p, uint32_t n);
/** @return 0, or -1 when [start, start + n) is not fully allocated. */
int mem_pgt_free(struct mem_pgt *p, uint32_t start, uint32_t n);

/* ----------------------------------------------------------------- pins */

/* Pages of @p page_size (4 KiB: mlock's unit) over registered byte ranges. */
typedef int (*mem_pin_fn)(void *arg, uint64_t addr, uint64_t len, bool pin);

struct mem_range {
	uint64_t start;
	uint64_t end; /* exclusive */
	uint64_t id;
};

struct mem_pins {
	struct mem_range *r; /* sorted by start, then id; overlaps allowed */
	uint32_t n, cap;
	uint64_t page;
	mem_pin_fn fn;
	void *arg;
	uint64_t pinned_bytes;
};

int mem_pins_init(struct mem_pins *s, uint64_t page_size, mem_pin_fn fn, void *arg);
void mem_pins_fini(struct mem_pins *s);
/**
 * Register [addr, addr + len) under @p id: pins the pages no other range
 * covered yet. @return 0, -EINVAL, -ENOMEM, or the pin function's error (then
 * nothing is recorded and nothing stays pinned).
 */
int mem_pins_add(struct mem_pins *s, uint64_t addr, uint64_t len, uint64_t id);
/** Unregister @p id: unpins the pages no remaining range covers. @return 0 or -ENOENT. */
int mem_pins_del(struct mem_pins *s, uint64_t id);

#endif /* MEM_INTERNAL_H */
