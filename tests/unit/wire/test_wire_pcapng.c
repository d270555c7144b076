/* SPDX-License-Identifier: BSD-3-Clause */
/* The pcapng writer, read back with libpcap (the reader Wireshark's tools share). */
#include <criterion/criterion.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ordk_pcapng.h"

Test(wire_pcapng, written_frames_read_back)
{
	char path[] = "/tmp/ordk-pcapng-XXXXXX";
	int fd = mkstemp(path);
	struct ordk_pcapng *w;
	uint8_t frames[3][200];
	uint32_t lens[3] = { 60, 199, 1 };
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;

	cr_assert_geq(fd, 0);
	close(fd);
	w = ordk_pcapng_open(path, "ordk-test");
	cr_assert_not_null(w);
	cr_assert_eq(ordk_pcapng_add_interface(w, "bluesim0", "model port"), 0);
	cr_assert_eq(ordk_pcapng_add_interface(w, "bluesim1", NULL), 1);
	for (int i = 0; i < 3; i++) {
		for (uint32_t j = 0; j < lens[i]; j++)
			frames[i][j] = (uint8_t)(i * 31 + j);
		cr_assert_eq(ordk_pcapng_write(w, (uint32_t)(i & 1), frames[i], lens[i],
					       1700000000123456789ull + (uint64_t)i * 1000,
					       i ? ORDK_PCAPNG_DIR_OUT : ORDK_PCAPNG_DIR_IN), 0);
	}
	cr_assert_eq(ordk_pcapng_write(w, 2, frames[0], 10, 0, 0), -EINVAL, "unknown interface");
	cr_assert_eq(ordk_pcapng_count(w), 3);
	cr_assert_eq(ordk_pcapng_close(w), 0);

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	cr_assert_not_null(p, "libpcap: %s", err);
	cr_assert_eq(pcap_datalink(p), DLT_EN10MB);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(pcap_next_ex(p, &h, &data), 1, "frame %d: %s", i, pcap_geterr(p));
		cr_assert_eq(h->caplen, lens[i]);
		cr_assert_eq(h->len, lens[i]);
		cr_assert_eq(memcmp(data, frames[i], lens[i]), 0);
		cr_assert_eq(h->ts.tv_sec, 1700000000);
		cr_assert_eq(h->ts.tv_usec, 123456789 + i * 1000, "ns timestamp");
	}
	cr_assert_eq(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}

Test(wire_pcapng, errors)
{
	cr_assert_null(ordk_pcapng_open("/nonexistent-dir/x.pcapng", NULL));
	cr_assert_eq(errno, ENOENT);
	cr_assert_null(ordk_pcapng_open(NULL, NULL));
	cr_assert_eq(ordk_pcapng_close(NULL), -EINVAL);
	cr_assert_eq(ordk_pcapng_write(NULL, 0, "x", 1, 0, 0), -EINVAL);
}
