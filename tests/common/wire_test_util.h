/* SPDX-License-Identifier: BSD-3-Clause */
/* Test-only helpers around the frame codec's internals (drivers/common/blue). */
#ifndef WIRE_TEST_UTIL_H
#define WIRE_TEST_UTIL_H

#include <stdint.h>

#include "wire_bytes.h"
#include "wire_internal.h"

/** Recompute the IPv4 header checksum of an Ethernet frame a test has edited. */
static inline void
test_fix_ipv4_csum(uint8_t *f, uint32_t len)
{
	if (len < BLUE_WIRE_ETH_HLEN + BLUE_WIRE_IPV4_HLEN)
		return;
	wire_put_be16(f + BLUE_WIRE_ETH_HLEN + 10, wire_ipv4_csum(f + BLUE_WIRE_ETH_HLEN));
}

#endif /* WIRE_TEST_UTIL_H */
