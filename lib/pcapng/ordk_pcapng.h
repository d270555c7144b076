/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A small pcapng writer for raw Ethernet frames (Wireshark reads the files).
 * No DPDK, no mbufs: bluesim captures its wire with it.
 */
#ifndef ORDK_PCAPNG_H
#define ORDK_PCAPNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ordk_pcapng;

enum ordk_pcapng_dir {
	ORDK_PCAPNG_DIR_UNKNOWN = 0,
	ORDK_PCAPNG_DIR_IN = 1,
	ORDK_PCAPNG_DIR_OUT = 2,
};

/**
 * Create a pcapng file (Wireshark reads it) with a section header.
 * @return the writer, or NULL with errno set.
 */
struct ordk_pcapng *ordk_pcapng_open(const char *path, const char *app);

/** Add an Ethernet interface; @return its id (0, 1, ...) or a negative errno. */
int ordk_pcapng_add_interface(struct ordk_pcapng *w, const char *name, const char *descr);

/**
 * Write one frame seen on interface @p ifid at @p ts_ns (ns since the epoch).
 * @return 0 or a negative errno.
 */
int ordk_pcapng_write(struct ordk_pcapng *w, uint32_t ifid, const void *frame, uint32_t len,
		      uint64_t ts_ns, enum ordk_pcapng_dir dir);

/**
 * Note @p text (a line, at most 1024 bytes) on the next frame written: it
 * becomes one of that frame's comments (opt_comment: Wireshark's "Packet
 * comments", tshark's frame.comment), so it sits in the capture in time
 * order, and files stay single-link-type for libpcap's readers (tcpdump).
 * Notes wait in a 16 KiB buffer; a note that finds it full, or that no
 * frame follows before ordk_pcapng_close(), is counted lost.
 * @return 0, -EINVAL, or -ENOBUFS (counted lost).
 */
int ordk_pcapng_note(struct ordk_pcapng *w, const char *text);

/** Notes lost so far: dropped (the buffer was full) or still waiting for a frame. */
uint64_t ordk_pcapng_notes_lost(const struct ordk_pcapng *w);

/** Frames written so far. */
uint64_t ordk_pcapng_count(const struct ordk_pcapng *w);

/** Flush and close; @return 0 or a negative errno. */
int ordk_pcapng_close(struct ordk_pcapng *w);

#ifdef __cplusplus
}
#endif

#endif /* ORDK_PCAPNG_H */
