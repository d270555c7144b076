/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of the descriptor codecs, shared with the unit tests: the bit
 * accessors over a 256-bit little-endian image and the field tables.
 */
#ifndef BLUE_DESC_INTERNAL_H
#define BLUE_DESC_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "blue_desc.h"

/* A descriptor image as four little-endian 64-bit chunks (chunk k = bytes 8k..8k+7). */
struct blue_desc_words {
	uint64_t w[4];
};
static_assert(sizeof(struct blue_desc_words) == BLUE_DESC_SIZE, "descriptor image size");

static inline uint64_t
blue_le64_load(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline void
blue_le64_store(uint8_t *p, uint64_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	memcpy(p, &v, 8);
}

static inline void
blue_desc_load(struct blue_desc_words *dw, const void *desc)
{
	for (int k = 0; k < 4; k++)
		dw->w[k] = blue_le64_load((const uint8_t *)desc + 8 * k);
}

static inline void
blue_desc_store(const struct blue_desc_words *dw, void *desc)
{
	for (int k = 0; k < 4; k++)
		blue_le64_store((uint8_t *)desc + 8 * k, dw->w[k]);
}

static inline uint64_t
blue_width_mask(unsigned int width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

/** Bits [lo + width - 1 : lo] of the image; width 1..64. */
static inline uint64_t
blue_bits_get(const struct blue_desc_words *dw, unsigned int lo, unsigned int width)
{
	unsigned int k = lo / 64, sh = lo % 64;
	uint64_t v = dw->w[k] >> sh;

	if (sh + width > 64)
		v |= dw->w[k + 1] << (64 - sh);
	return v & blue_width_mask(width);
}

static inline void
blue_bits_set(struct blue_desc_words *dw, unsigned int lo, unsigned int width, uint64_t v)
{
	unsigned int k = lo / 64, sh = lo % 64;
	uint64_t m = blue_width_mask(width);

	v &= m;
	dw->w[k] = (dw->w[k] & ~(m << sh)) | (v << sh);
	if (sh + width > 64) {
		unsigned int spill = 64 - sh;

		dw->w[k + 1] = (dw->w[k + 1] & ~(m >> spill)) | (v >> spill);
	}
}

/* One field of a descriptor layout, as the card's interface page writes it: [hi:lo]. */
struct blue_field {
	const char *name;
	uint16_t hi;
	uint16_t lo;
};

/* Every layout the codecs know, for tests and tools. */
enum blue_layout {
	BLUE_LAYOUT_HDR,
	BLUE_LAYOUT_CMD_HDR,
	BLUE_LAYOUT_CMD_MR,
	BLUE_LAYOUT_CMD_PGT,
	BLUE_LAYOUT_CMD_QP,
	BLUE_LAYOUT_CMD_NET,
	BLUE_LAYOUT_CMD_RAW,
	BLUE_LAYOUT_SEG0,
	BLUE_LAYOUT_SEG1,
	BLUE_LAYOUT_META_BASIC,
	BLUE_LAYOUT_META_READ_EXT,
	BLUE_LAYOUT_META_ACK,
	BLUE_LAYOUT_META_ACK_EXTRA,
	BLUE_LAYOUT_SNIC_TX,
	BLUE_LAYOUT_SNIC_RX,
	BLUE_LAYOUT_COUNT
};

/** Field table of a layout (without the common header unless LAYOUT_HDR). */
const struct blue_field *blue_layout_fields(enum blue_layout l, unsigned int *n);
/** Mask (4 words) of every bit a descriptor of layout @p l may set, header included. */
void blue_layout_mask(enum blue_layout l, struct blue_desc_words *mask);

#endif /* BLUE_DESC_INTERNAL_H */
