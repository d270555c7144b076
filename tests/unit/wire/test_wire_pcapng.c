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

/* The comments of each EPB in the file at @p path, in order: "c1|c2" per frame (its first 255 bytes), into @p out[i]. */
static int
epb_comments(const char *path, char out[][256], int max)
{
	FILE *fp = fopen(path, "rb");
	uint32_t hdr[2];
	int n = 0;

	cr_assert_not_null(fp);
	while (fread(hdr, 4, 2, fp) == 2) {
		static uint8_t body[32768];
		uint32_t blen = hdr[1] - 8, at, caplen;

		cr_assert(blen <= sizeof(body) && blen >= 4, "block length %u", hdr[1]);
		cr_assert_eq(fread(body, 1, blen, fp), blen);
		if (hdr[0] != 6)
			continue;
		cr_assert_lt(n, max);
		out[n][0] = '\0';
		memcpy(&caplen, body + 12, 4);
		/* options: after the 20 bytes of fields and the padded frame, up to the trailing length */
		for (at = 20 + ((caplen + 3) & ~3u); at + 4 <= blen - 4;) {
			uint16_t code, len;

			memcpy(&code, body + at, 2);
			memcpy(&len, body + at + 2, 2);
			if (code == 0)
				break;
			if (code == 1) {
				size_t have = strlen(out[n]);

				/* at most 255 bytes kept: enough to compare the short ones */
				snprintf(out[n] + have, 256 - have, "%s%.*s", have ? "|" : "", (int)len,
					 (const char *)body + at + 4);
			}
			at += 4 + ((len + 3u) & ~3u);
		}
		n++;
	}
	fclose(fp);
	return n;
}

/* Notes ride on the next frame as its comments; libpcap still reads every frame. */
Test(wire_pcapng, notes_become_the_next_frames_comments)
{
	char path[] = "/tmp/ordk-pcapng-XXXXXX";
	int fd = mkstemp(path);
	char comments[4][256], err[PCAP_ERRBUF_SIZE], big[1100];
	uint8_t frame[61] = { 0 };
	struct ordk_pcapng *w;
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *p;

	cr_assert_geq(fd, 0);
	close(fd);
	w = ordk_pcapng_open(path, NULL);
	cr_assert_not_null(w);
	cr_assert_eq(ordk_pcapng_add_interface(w, "bluesim0", NULL), 0);
	cr_assert_eq(ordk_pcapng_write(w, 0, frame, sizeof(frame), 1, ORDK_PCAPNG_DIR_IN), 0);
	cr_assert_eq(ordk_pcapng_note(w, "qp 0x000011 nak_sent"), 0);
	cr_assert_eq(ordk_pcapng_note(w, "qp 0x000011 retransmit, 3"), 0);
	cr_assert_eq(ordk_pcapng_write(w, 0, frame, 60, 2, ORDK_PCAPNG_DIR_UNKNOWN), 0);
	cr_assert_eq(ordk_pcapng_note(w, "odd"), 0);
	cr_assert_eq(ordk_pcapng_write(w, 0, frame, 59, 3, ORDK_PCAPNG_DIR_OUT), 0);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cr_assert_eq(ordk_pcapng_note(w, big), -EINVAL, "a note longer than 1024 bytes");
	cr_assert_eq(ordk_pcapng_note(NULL, "x"), -EINVAL);
	big[1000] = '\0';
	for (int i = 0; i < 16; i++)
		cr_assert_eq(ordk_pcapng_note(w, big), 0, "note %d", i);
	cr_assert_eq(ordk_pcapng_note(w, big), -ENOBUFS, "the 17th KiB note finds the buffer full");
	cr_assert_eq(ordk_pcapng_notes_lost(w), 17, "1 dropped, 16 waiting");
	cr_assert_eq(ordk_pcapng_write(w, 0, frame, 60, 4, ORDK_PCAPNG_DIR_IN), 0);
	cr_assert_eq(ordk_pcapng_notes_lost(w), 1);
	cr_assert_eq(ordk_pcapng_count(w), 4);
	cr_assert_eq(ordk_pcapng_close(w), 0);

	cr_assert_eq(epb_comments(path, comments, 4), 4);
	cr_assert_str_eq(comments[0], "");
	cr_assert_str_eq(comments[1], "qp 0x000011 nak_sent|qp 0x000011 retransmit, 3");
	cr_assert_str_eq(comments[2], "odd");
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	cr_assert_not_null(p, "libpcap: %s", err);
	for (uint32_t i = 0, lens[4] = { 61, 60, 59, 60 }; i < 4; i++) {
		cr_assert_eq(pcap_next_ex(p, &h, &data), 1, "frame %u: %s", i, pcap_geterr(p));
		cr_assert_eq(h->caplen, lens[i]);
	}
	cr_assert_eq(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
	unlink(path);
}
