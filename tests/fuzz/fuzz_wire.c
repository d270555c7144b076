/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the frame parsers (RDMA and control) and the classifier.
 *
 * Oracle beyond "no crash": a frame the strict parser accepts must be rebuilt
 * byte for byte from the parsed fields (only the UDP checksum, which the
 * builders always write as 0, is masked). So the parser neither drops nor
 * invents information. The first input byte selects options; bit 0 asks the
 * harness to fix the IPv4 checksum first, so the fuzzer gets past it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blue_wire.h"
#include "wire_test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


static void
check_same(const uint8_t *a, const uint8_t *b, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (a[i] != b[i] && i != 40 && i != 41) /* UDP checksum */
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[70000], out[70000];
	struct blue_wire_rdma p;
	struct blue_wire_l3 l3;
	struct blue_ctrl_msg m;
	uint32_t len;
	uint8_t opt;
	uint64_t mac;
	uint32_t ip;
	bool has_ip;
	int rc, n;

	if (size < 1 || size > sizeof(frame))
		return 0;
	opt = data[0];
	len = (uint32_t)size - 1;
	memcpy(frame, data + 1, len);
	if (opt & 1)
		test_fix_ipv4_csum(frame, len);

	(void)blue_wire_classify(frame, len);
	(void)blue_wire_peek_dst(frame, len, &mac, &ip, &has_ip);

	rc = blue_wire_rdma_parse(frame, len, (opt & 2) ? BLUE_WIRE_F_FCS : 0, &p);
	if (rc == 0) {
		if (p.payload_off + p.payload_len > len)
			abort();
		n = blue_wire_rdma_build(out, sizeof(out), &p, frame + p.payload_off, p.payload_len);
		if (n < 0 || (uint32_t)n != p.payload_off + p.payload_len)
			abort();
		check_same(out, frame, (uint32_t)n);
	} else if (blue_wire_strerror(rc) == NULL) {
		abort();
	}

	rc = blue_wire_ctrl_parse(frame, len, &l3, &m);
	if (rc == 0) {
		n = blue_wire_ctrl_build(out, sizeof(out), &l3, &m);
		if (n < 0 || (uint32_t)n != len)
			abort();
		check_same(out, frame, (uint32_t)n);
	}
	return 0;
}
