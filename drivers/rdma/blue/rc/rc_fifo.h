/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport's small FIFOs (the READ FIFO, the received messages, the
 * RECV queue and its completions, the adverts, the keys to revoke): indices
 * only, over arrays their owners keep.
 */
#ifndef RC_FIFO_H
#define RC_FIFO_H

#include <stdint.h>

#include <rte_common.h>

/*
 * The indices of a FIFO of at most size elements over an array its owner
 * keeps with rc_fifo_slots() slots (a power of two, so a slot is a mask
 * away): position i (0 is the oldest) is slot rc_fifo_at(f, i).
 */
struct rc_fifo {
	uint32_t head, count, size, mask;
};

/** An empty FIFO of at most @p size elements (@p size > 0). */
static inline void
rc_fifo_init(struct rc_fifo *f, uint32_t size)
{
	*f = (struct rc_fifo){ .size = size, .mask = rte_align32pow2(size) - 1 };
}

/** The slots the owner's array needs. */
static inline uint32_t
rc_fifo_slots(const struct rc_fifo *f)
{
	return f->mask + 1;
}

static inline uint32_t
rc_fifo_at(const struct rc_fifo *f, uint32_t i)
{
	return (f->head + i) & f->mask;
}

/** The slot of a new element at the end (the caller checked there is room). */
static inline uint32_t
rc_fifo_push(struct rc_fifo *f)
{
	return rc_fifo_at(f, f->count++);
}

static inline void
rc_fifo_pop(struct rc_fifo *f)
{
	f->head = (f->head + 1) & f->mask;
	f->count--;
}

static inline void
rc_fifo_clear(struct rc_fifo *f)
{
	f->head = f->count = 0;
}

/* Open position @p at of FIFO @p f over array @p a (later elements move back one): its slot. */
#define rc_fifo_insert(f, a, at)                                                         \
	__extension__({                                                                   \
		for (uint32_t i_ = (f)->count; i_ > (at); i_--)                           \
			(a)[rc_fifo_at((f), i_)] = (a)[rc_fifo_at((f), i_ - 1)];          \
		(f)->count++;                                                             \
		rc_fifo_at((f), (at));                                                    \
	})

/* Remove position @p at of FIFO @p f over array @p a (later elements move up one). */
#define rc_fifo_remove(f, a, at)                                                         \
	do {                                                                              \
		for (uint32_t i_ = (at); i_ + 1 < (f)->count; i_++)                       \
			(a)[rc_fifo_at((f), i_)] = (a)[rc_fifo_at((f), i_ + 1)];          \
		(f)->count--;                                                             \
	} while (0)

#endif /* RC_FIFO_H */
