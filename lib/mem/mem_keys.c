/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Slot + key allocator: key = slot << 8 | rand8
 * (doc/guides/drivers/blue_hw_interface.md sections 4, 5.3).
 *
 * The card checks no PD (doc/guides/drivers/blue_hw_interface.md, card limits): a peer
 * that knows a key reaches that MR through any QP. So a key must not follow
 * from the keys a peer was given: the slot and the key part both come from
 * the kernel's CSPRNG (getrandom), not from a PRNG whose state a few
 * observed keys reveal. 8 bits of key part still fall to 256 guesses; see
 * the card-limits table for what that leaves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mem_internal.h"

/* A random byte: getrandom() in batches; xorshift only if the kernel refuses. */
static uint8_t
rand8(struct mem_keys *k)
{
	if (k->pool_left == 0) {
		ssize_t n = getrandom(k->pool, sizeof(k->pool), GRND_NONBLOCK);

		if (n == (ssize_t)sizeof(k->pool)) {
			k->pool_left = (uint32_t)n;
		} else {
			k->rng ^= k->rng << 13;
			k->rng ^= k->rng >> 7;
			k->rng ^= k->rng << 17;
			return (uint8_t)(k->rng >> 24);
		}
	}
	return k->pool[--k->pool_left];
}

int
mem_keys_init(struct mem_keys *k, uint32_t nslots, uint32_t first, uint64_t seed)
{
	memset(k, 0, sizeof(*k));
	if (nslots == 0 || first >= nslots)
		return -EINVAL;
	k->nslots = nslots;
	k->first = first;
	k->rng = seed ? seed : 0x853C49E6748FEA9Bull;
	k->bitmap = calloc((nslots + 63) / 64, sizeof(uint64_t));
	k->gen = calloc(nslots, 1);
	if (k->bitmap == NULL || k->gen == NULL) {
		mem_keys_fini(k);
		return -ENOMEM;
	}
	return 0;
}

void
mem_keys_fini(struct mem_keys *k)
{
	free(k->bitmap);
	free(k->gen);
	k->bitmap = NULL;
	k->gen = NULL;
}

static bool
in_use(const struct mem_keys *k, uint32_t s)
{
	return (k->bitmap[s / 64] >> (s % 64)) & 1;
}

int64_t
mem_keys_alloc(struct mem_keys *k)
{
	uint32_t span = k->nslots - k->first;

	if (k->used >= span)
		return -1;
	/* the search starts at a random slot: a slot says nothing about the next one */
	uint32_t start = (uint32_t)((uint32_t)rand8(k) << 8 | rand8(k)) % span;

	for (uint32_t i = 0; i < span; i++) {
		uint32_t s = k->first + (start + i) % span;
		uint8_t part;

		if (in_use(k, s))
			continue;
		/* a fresh key part, never the slot's previous one: stale keys stay stale */
		part = rand8(k);
		if (part == k->gen[s])
			part++;
		k->gen[s] = part;
		k->bitmap[s / 64] |= 1ull << (s % 64);
		k->used++;
		return (int64_t)s << 8 | part;
	}
	return -1;
}

bool
mem_keys_valid(const struct mem_keys *k, uint32_t key)
{
	uint32_t s = key >> 8;

	return s >= k->first && s < k->nslots && in_use(k, s) && k->gen[s] == (uint8_t)key;
}

int
mem_keys_free(struct mem_keys *k, uint32_t key)
{
	uint32_t s = key >> 8;

	if (!mem_keys_valid(k, key))
		return -1;
	k->bitmap[s / 64] &= ~(1ull << (s % 64));
	k->used--;
	return 0;
}
