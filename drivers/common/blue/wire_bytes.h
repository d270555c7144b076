/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Byte order on the wire, in one place: big-endian loads and stores of
 * 8/16/24/32/48/64-bit values at any alignment. Frame code never casts
 * raw bytes to structs.
 */
#ifndef WIRE_BYTES_H
#define WIRE_BYTES_H

#include <stdint.h>

static inline uint64_t
wire_get_be(const uint8_t *p, unsigned int nbytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < nbytes; i++)
		v = (v << 8) | p[i];
	return v;
}

static inline void
wire_put_be(uint8_t *p, unsigned int nbytes, uint64_t v)
{
	for (unsigned int i = nbytes; i-- > 0;) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static inline uint16_t
wire_get_be16(const uint8_t *p)
{
	return (uint16_t)wire_get_be(p, 2);
}

static inline uint32_t
wire_get_be24(const uint8_t *p)
{
	return (uint32_t)wire_get_be(p, 3);
}

static inline uint32_t
wire_get_be32(const uint8_t *p)
{
	return (uint32_t)wire_get_be(p, 4);
}

static inline uint64_t
wire_get_be48(const uint8_t *p)
{
	return wire_get_be(p, 6);
}

static inline uint64_t
wire_get_be64(const uint8_t *p)
{
	return wire_get_be(p, 8);
}

static inline void
wire_put_be16(uint8_t *p, uint16_t v)
{
	wire_put_be(p, 2, v);
}

static inline void
wire_put_be24(uint8_t *p, uint32_t v)
{
	wire_put_be(p, 3, v);
}

static inline void
wire_put_be32(uint8_t *p, uint32_t v)
{
	wire_put_be(p, 4, v);
}

static inline void
wire_put_be48(uint8_t *p, uint64_t v)
{
	wire_put_be(p, 6, v);
}

static inline void
wire_put_be64(uint8_t *p, uint64_t v)
{
	wire_put_be(p, 8, v);
}

/* 128-bit bitmaps go on the wire most significant byte first. */
static inline void
wire_put_bitmap(uint8_t *p, uint64_t hi, uint64_t lo)
{
	wire_put_be64(p, hi);
	wire_put_be64(p + 8, lo);
}

static inline void
wire_get_bitmap(const uint8_t *p, uint64_t *hi, uint64_t *lo)
{
	*hi = wire_get_be64(p);
	*lo = wire_get_be64(p + 8);
}

#endif /* WIRE_BYTES_H */
