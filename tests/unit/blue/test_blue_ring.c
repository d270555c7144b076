/* SPDX-License-Identifier: BSD-3-Clause */
/* The PMD's ring producer and consumer (blue_ring.h) against hand-made ring images. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "blue_desc.h"
#include "blue_ring.h"

static uint8_t bar[BLUE_BAR0_SIZE] __attribute__((aligned(64)));
static uint8_t *mem;
static struct blue_hring r;

static volatile uint32_t *
reg(uint32_t off)
{
	return (volatile uint32_t *)(bar + off);
}

static void
setup(void)
{
	memset(bar, 0, sizeof(bar));
	mem = aligned_alloc(4096, BLUE_RING_BYTES);
	memset(mem, 0, BLUE_RING_BYTES);
	blue_hring_init(&r, mem, 0x1000, bar, BLUE_META_RING_BASE(0));
}

static void
teardown(void)
{
	free(mem);
}

TestSuite(blue_ring, .init = setup, .fini = teardown);

static void
desc_at(uint32_t idx, uint8_t tag, bool valid, bool has_next)
{
	uint8_t *d = mem + (size_t)(idx % 4096) * 32;

	memset(d, tag, 30);
	d[30] = 0x11;
	d[31] = (uint8_t)((valid ? 0x80 : 0) | (has_next ? 0x40 : 0));
}

Test(blue_ring, producer_one_head_write_per_burst_and_tail_cache)
{
	volatile uint32_t *head = reg(BLUE_RING_REG(BLUE_META_RING_BASE(0), BLUE_CSR_REG_HEAD));
	volatile uint32_t *tail = reg(BLUE_RING_REG(BLUE_META_RING_BASE(0), BLUE_CSR_REG_TAIL));

	cr_assert_eq(blue_hring_free(&r, 1), 4096);
	for (uint32_t i = 0; i < 3; i++)
		memset(blue_hring_prod_slot(&r, i), (int)i + 1, 32);
	blue_hring_produce(&r, 3);
	cr_assert_eq(*head, 0, "HEAD written only by the doorbell");
	blue_hring_doorbell(&r);
	cr_assert_eq(*head, 3);
	cr_assert_eq(mem[0], 1);
	cr_assert_eq(mem[64], 3);
	/* fill to full: the cached TAIL (0) says 4093 free without reading TAIL */
	blue_hring_produce(&r, 4093);
	cr_assert_eq(blue_hring_free(&r, 1), 0, "full");
	*tail = 100;
	cr_assert_eq(blue_hring_free(&r, 1), 100, "TAIL re-read when full");
	*tail = 5000; /* ahead of HEAD (4096) in 13-bit space: a count above 4096, not believed */
	cr_assert_eq(blue_hring_free(&r, 200), 100);
	/* wrap: slot of pointer 4096 is index 0 */
	cr_assert_eq(blue_hring_prod_slot(&r, 0), mem);
	blue_hring_doorbell(&r);
	cr_assert_eq(*head, 4096, "free-running HEAD (the RTL keeps 13 bits)");
}

Test(blue_ring, consumer_pairs_valid_bits_zeroing_and_tail)
{
	volatile uint32_t *tail = reg(BLUE_RING_REG(BLUE_META_RING_BASE(0), BLUE_CSR_REG_TAIL));
	const uint8_t *d0, *d1;

	cr_assert_eq(blue_hring_ready(&r, &d0, &d1), 0, "empty");
	desc_at(0, 0xA1, true, false);
	desc_at(1, 0xB1, true, true); /* first of a pair ... */
	desc_at(2, 0xB2, false, false); /* ... whose second is not valid yet */
	cr_assert_eq(blue_hring_ready(&r, &d0, &d1), 1);
	cr_assert_eq(d0[0], 0xA1);
	cr_assert_null(d1);
	blue_hring_consume(&r, 1);
	cr_assert_eq(mem[0], 0, "consumed slot zeroed");
	cr_assert_eq(mem[31], 0);
	cr_assert_eq(blue_hring_ready(&r, &d0, &d1), 0, "half a pair is not ready");
	desc_at(2, 0xB2, true, false);
	cr_assert_eq(blue_hring_ready(&r, &d0, &d1), 2);
	cr_assert_eq(d0[0], 0xB1);
	cr_assert_eq(d1[0], 0xB2);
	blue_hring_consume(&r, 2);
	cr_assert_eq(*tail, 0, "TAIL is written per batch, not per item");
	blue_hring_commit(&r);
	cr_assert_eq(*tail, 3);
	blue_hring_commit(&r);
	cr_assert_eq(*tail, 3);
}

Test(blue_ring, consumer_pair_across_the_wrap)
{
	volatile uint32_t *tail = reg(BLUE_RING_REG(BLUE_META_RING_BASE(0), BLUE_CSR_REG_TAIL));
	const uint8_t *d0, *d1;

	r.tail = 4095 + 4096; /* guard bit set, last index */
	desc_at(4095, 0xC1, true, true);
	desc_at(0, 0xC2, true, false);
	cr_assert_eq(blue_hring_ready(&r, &d0, &d1), 2);
	cr_assert_eq(d0, mem + 4095 * 32);
	cr_assert_eq(d1, mem);
	blue_hring_consume(&r, 2);
	blue_hring_commit(&r);
	cr_assert_eq(*tail, (4095 + 4096 + 2) & 0x1FFF, "13-bit TAIL wraps to 1");
	cr_assert_eq(*tail, 1);
}
