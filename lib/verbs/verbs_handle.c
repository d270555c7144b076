/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handles that never alias. Every PD, MR, CQ and QP is carved from one
 * per-process arena whose addresses are never handed out twice: a large
 * range of address space is reserved once (PROT_NONE, no memory behind it),
 * made writable as a bump pointer advances, and a page whose objects are all
 * freed is given back (MADV_DONTNEED), so it reads as zeros. A handle is live
 * while its object's magic is there; a stale one (freed, even with other
 * objects created since) finds zero and gets EINVAL, and never reaches the
 * object that a reused address would otherwise have put under it.
 * Only pages holding live objects cost memory.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_common.h>

#include "verbs_internal.h"

#define ARENA_PAGE     4096ull
#define ARENA_GROW     (2ull << 20) /* made writable in steps of this */

static struct {
	pthread_mutex_t lock;
	uint8_t *base;
	uint64_t size;	  /* bytes reserved */
	uint64_t bump;	  /* next free offset: [0, bump) handed out at some time */
	uint64_t rw;	  /* [0, rw) writable */
	uint16_t *live;	  /* per page: live objects touching it */
	bool tried;
} arena = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int
arena_init(void)
{
	/* the largest reservation the system grants: 1 TiB lasts for billions of objects */
	static const uint64_t sizes[] = { 1ull << 40, 64ull << 30, 4ull << 30 };

	arena.tried = true;
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		uint64_t npages = sizes[i] / ARENA_PAGE;
		void *b = mmap(NULL, sizes[i], PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		void *l;

		if (b == MAP_FAILED)
			continue;
		l = mmap(NULL, npages * sizeof(uint16_t), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (l == MAP_FAILED) {
			munmap(b, sizes[i]);
			continue;
		}
		arena.base = b;
		arena.live = l;
		arena.size = sizes[i];
		return 0;
	}
	VERBS_LOG(ERR, "handles: no address range could be reserved for the object arena");
	return -ENOMEM;
}

/* Give back pages [first, last) that no live object touches. */
static void
arena_release(uint64_t first, uint64_t last)
{
	for (uint64_t p = first; p < last; p++)
		if (arena.live[p] == 0)
			madvise(arena.base + p * ARENA_PAGE, ARENA_PAGE, MADV_DONTNEED);
}

void *
verbs_handle_alloc(size_t size, size_t align)
{
	uint64_t off, end, old_page;
	void *obj = NULL;

	if (align < 16)
		align = 16;
	pthread_mutex_lock(&arena.lock);
	if (arena.base == NULL && (arena.tried || arena_init() != 0))
		goto out;
	off = RTE_ALIGN_CEIL(arena.bump, (uint64_t)align);
	end = off + size;
	if (end > arena.size) {
		VERBS_LOG(ERR, "handles: the %" PRIu64 " GiB object arena is used up (addresses "
			       "of destroyed objects are never reused)", arena.size >> 30);
		goto out;
	}
	if (end > arena.rw) {
		uint64_t rw = RTE_MIN(RTE_ALIGN_CEIL(end, ARENA_GROW), arena.size);

		if (mprotect(arena.base + arena.rw, rw - arena.rw, PROT_READ | PROT_WRITE) != 0) {
			VERBS_LOG(ERR, "handles: arena cannot grow: %s", strerror(errno));
			goto out;
		}
		arena.rw = rw;
	}
	/* pages the bump pointer leaves behind with nothing live in them go back */
	old_page = arena.bump / ARENA_PAGE;
	arena_release(old_page, off / ARENA_PAGE);
	for (uint64_t p = off / ARENA_PAGE; p <= (end - 1) / ARENA_PAGE; p++)
		arena.live[p]++;
	__atomic_store_n(&arena.bump, end, __ATOMIC_RELEASE);
	obj = arena.base + off; /* zero: never handed out before */
out:
	pthread_mutex_unlock(&arena.lock);
	return obj;
}

void
verbs_handle_free(void *obj, size_t size)
{
	uint64_t off, first, last;

	if (obj == NULL)
		return;
	pthread_mutex_lock(&arena.lock);
	off = (uint64_t)((uint8_t *)obj - arena.base);
	memset(obj, 0, size); /* the magic goes first: stale handles see zero from now on */
	first = off / ARENA_PAGE;
	last = (off + size - 1) / ARENA_PAGE;
	for (uint64_t p = first; p <= last; p++)
		arena.live[p]--;
	/* pages the bump pointer has left; the one it is in goes when it moves on */
	arena_release(first, RTE_MIN(last + 1, arena.bump / ARENA_PAGE));
	pthread_mutex_unlock(&arena.lock);
}

bool
verbs_handle_live(const void *h, size_t magic_off, uint32_t magic)
{
	uint64_t off;

	if (h == NULL || arena.base == NULL || (const uint8_t *)h < arena.base)
		return false;
	off = (uint64_t)((const uint8_t *)h - arena.base);
	/* bump only grows, and [0, bump) stays readable */
	if (off % 16 != 0 || off + magic_off + sizeof(uint32_t) >
			      __atomic_load_n(&arena.bump, __ATOMIC_ACQUIRE))
		return false;
	return *(const volatile uint32_t *)((const uint8_t *)h + magic_off) == magic;
}
