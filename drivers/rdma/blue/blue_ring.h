/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Host side of the card's rings (doc/guides/drivers/blue_hw_interface.md section 2).
 * Producer (host-to-card): write descriptors at head, then one HEAD write per
 * burst after a write barrier; free space from a cached TAIL, re-read only
 * when the cache says the ring is full.
 * Consumer (card-to-host): a descriptor is ready when its valid bit is set;
 * for has_next pairs both must be valid before either is used; consumed slots
 * are zeroed; TAIL is written once per batch.
 */
#ifndef BLUE_RING_H
#define BLUE_RING_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_atomic.h>

#include "blue_regs.h"

struct blue_hring {
	uint8_t *base;			/* BLUE_RING_BYTES of DMA memory */
	uint64_t iova;
	volatile uint32_t *head_reg;
	volatile uint32_t *tail_reg;
	uint32_t head;			/* producer: free-running */
	uint32_t tail;			/* consumer: free-running */
	uint32_t hw_tail;		/* producer: last TAIL read */
	uint32_t db_head;		/* producer: last HEAD written */
	uint32_t pending;		/* consumer: consumed since the last TAIL write */
};

/* "descriptors visible before the HEAD write" */
static inline void
blue_wmb_before_doorbell(void)
{
	rte_io_wmb();
}

/* "valid bit read before the body" */
static inline void
blue_rmb_after_valid(void)
{
	rte_io_rmb();
}

static inline void
blue_hring_init(struct blue_hring *r, uint8_t *base, uint64_t iova, volatile uint8_t *bar,
		uint32_t csr)
{
	memset(r, 0, sizeof(*r));
	r->base = base;
	r->iova = iova;
	r->head_reg = (volatile uint32_t *)(bar + BLUE_RING_REG(csr, BLUE_CSR_REG_HEAD));
	r->tail_reg = (volatile uint32_t *)(bar + BLUE_RING_REG(csr, BLUE_CSR_REG_TAIL));
}

static inline uint8_t *
blue_hring_slot(const struct blue_hring *r, uint32_t ptr)
{
	return r->base + (size_t)blue_ring_idx(ptr) * BLUE_DESC_SIZE;
}

/* ---------------------------------------------------------------- producer */

/** Free slots; TAIL is re-read only when the cached value is not enough for @p want. */
static inline uint32_t
blue_hring_free(struct blue_hring *r, uint32_t want)
{
	uint32_t f = blue_ring_free(r->head, r->hw_tail);

	if (f < want) {
		uint32_t t = *r->tail_reg;

		/* a TAIL that is not within a ring behind HEAD is not believed */
		if (blue_ring_ptrs_sane(r->head, t))
			r->hw_tail = t;
		f = blue_ring_free(r->head, r->hw_tail);
	}
	return f;
}

/** Slot @p i after head (caller checked the room). */
static inline uint8_t *
blue_hring_prod_slot(const struct blue_hring *r, uint32_t i)
{
	return blue_hring_slot(r, r->head + i);
}

static inline void
blue_hring_produce(struct blue_hring *r, uint32_t n)
{
	r->head += n;
}

/** One HEAD write for everything produced so far (none when nothing is new). */
static inline void
blue_hring_doorbell(struct blue_hring *r)
{
	if (r->head == r->db_head)
		return;
	blue_wmb_before_doorbell();
	*r->head_reg = r->head;
	r->db_head = r->head;
}

/* ---------------------------------------------------------------- consumer */

/* A descriptor's last byte (valid 0x80, has_next 0x40): a volatile read, the card writes it. */
static inline uint8_t
blue_hring_flags(const uint8_t *d)
{
	return *(const volatile uint8_t *)&d[BLUE_DESC_SIZE - 1];
}

/**
 * The next item: 1 or 2 descriptors when ready (pairs only complete), 0 when
 * nothing (or only the first half of a pair) is there.
 */
static inline unsigned int
blue_hring_ready(const struct blue_hring *r, const uint8_t **d0, const uint8_t **d1)
{
	const uint8_t *a = blue_hring_slot(r, r->tail), *b;

	if (!(blue_hring_flags(a) & 0x80))
		return 0;
	*d0 = a;
	*d1 = NULL;
	if (blue_hring_flags(a) & 0x40) { /* has_next */
		b = blue_hring_slot(r, r->tail + 1);
		if (!(blue_hring_flags(b) & 0x80))
			return 0;
		*d1 = b;
		blue_rmb_after_valid();
		return 2;
	}
	blue_rmb_after_valid();
	return 1;
}

/** Zero @p n consumed slots and move past them (TAIL written by blue_hring_commit()). */
static inline void
blue_hring_consume(struct blue_hring *r, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		memset(blue_hring_slot(r, r->tail + i), 0, BLUE_DESC_SIZE);
	r->tail += n;
	r->pending += n;
}

static inline void
blue_hring_commit(struct blue_hring *r)
{
	if (r->pending == 0)
		return;
	rte_io_wmb(); /* zeroed slots before the card may reuse them */
	*r->tail_reg = blue_ring_ptr(r->tail);
	r->pending = 0;
}

#endif /* BLUE_RING_H */
