/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: every descriptor decoder. The first byte picks the ring,
 * the rest is one or two 32-byte descriptors. Oracle: what a decoder accepts
 * re-encodes to the same bytes (descriptors with valid=1, as the card writes them).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blue_desc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
same(const uint8_t *a, const uint8_t *b, size_t n)
{
	if (memcmp(a, b, n) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t d[64] = { 0 }, out[64];
	int rc;

	if (size < 1)
		return 0;
	memcpy(d, data + 1, size - 1 > 64 ? 64 : size - 1);

	switch (data[0] % 5) {
	case 0: {
		struct blue_cmd c;

		rc = blue_cmd_decode(d, &c);
		if (rc == 0) {
			if (blue_cmd_encode(&c, out) != 0)
				abort();
			same(out, d, 32);
		}
		break;
	}
	case 1: {
		struct blue_send_item it;

		rc = blue_send_item_decode(d, (data[0] & 0x80) ? NULL : d + 32, &it);
		if (rc == 0 && blue_desc_valid(d) == blue_desc_valid(d + 32)) {
			if (blue_send_item_encode(&it, out) != 0)
				abort();
			same(out, d, 64);
		}
		break;
	}
	case 2: {
		struct blue_meta_report r;

		rc = blue_meta_decode(d, (data[0] & 0x80) ? NULL : d + 32, &r);
		if (rc > 0) {
			if (rc != r.ndesc || r.kind >= BLUE_META_KIND_COUNT)
				abort();
			if (blue_desc_valid(d) && (rc == 1 || blue_desc_valid(d + 32))) {
				if (blue_meta_encode(&r, out, out + 32) != rc)
					abort();
				same(out, d, 32 * (size_t)rc);
			}
		} else if (blue_desc_strerror(rc) == NULL) {
			abort();
		}
		break;
	}
	case 3: {
		struct blue_simple_nic_tx tx;

		if (blue_simple_nic_tx_decode(d, &tx) == 0 && blue_desc_valid(d)) {
			if (blue_simple_nic_tx_encode(&tx, out) != 0)
				abort();
			same(out, d, 32);
		}
		break;
	}
	default: {
		struct blue_simple_nic_rx rx;

		if (blue_simple_nic_rx_decode(d, &rx) == 0 && blue_desc_valid(d)) {
			if (blue_simple_nic_rx_encode(&rx, out) != 0)
				abort();
			same(out, d, 32);
		}
		break;
	}
	}
	return 0;
}
