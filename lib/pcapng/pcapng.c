/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small pcapng writer for raw frames (no mbufs needed): a Section Header
 * Block, one Interface Description Block per interface (Ethernet, ns
 * timestamps) and one Enhanced Packet Block per frame with its direction
 * and the notes waiting for it as comments.
 * Block layouts: the pcapng specification (draft-ietf-opsawg-pcapng).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordk_pcapng.h"

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 0x00000001u
#define BT_EPB 0x00000006u
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
#define LINKTYPE_ETHERNET 1u
#define NOTE_MAX 1024u
#define NOTES_BUF 16384u

#define OPT_END 0
#define OPT_COMMENT 1
#define SHB_USERAPPL 4
#define IF_NAME 2
#define IF_DESCRIPTION 3
#define IF_TSRESOL 9
#define EPB_FLAGS 2

struct ordk_pcapng {
	FILE *fp;
	uint32_t nif;
	uint64_t count;
	uint64_t notes_lost;
	uint32_t notes_n;	/* notes waiting */
	uint32_t notes_len;	/* bytes in notes: each note, then its NUL */
	uint32_t notes_opts;	/* their comment options' bytes in an EPB */
	int err;		/* first write error, sticky */
	char notes[NOTES_BUF];	/* for the next frame's comments */
};

/* Blocks are written in host byte order; the SHB's magic tells readers which. */
static void
put(struct ordk_pcapng *w, const void *p, size_t n)
{
	if (w->err == 0 && n > 0 && fwrite(p, 1, n, w->fp) != n)
		w->err = errno ? errno : EIO;
}

static void
put32(struct ordk_pcapng *w, uint32_t v)
{
	put(w, &v, 4);
}

static void
put16(struct ordk_pcapng *w, uint16_t v)
{
	put(w, &v, 2);
}

static uint32_t
pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

static uint32_t
opt_len(const char *s)
{
	return s == NULL ? 0 : 4 + pad4((uint32_t)strlen(s));
}

static void
put_opt(struct ordk_pcapng *w, uint16_t code, const void *v, uint32_t n)
{
	static const uint8_t zeros[4];

	put16(w, code);
	put16(w, (uint16_t)n);
	put(w, v, n);
	put(w, zeros, pad4(n) - n);
}

static void
put_str_opt(struct ordk_pcapng *w, uint16_t code, const char *s)
{
	if (s != NULL)
		put_opt(w, code, s, (uint32_t)strlen(s));
}

struct ordk_pcapng *
ordk_pcapng_open(const char *path, const char *app)
{
	struct ordk_pcapng *w;
	uint32_t len;

	if (path == NULL || (app != NULL && strlen(app) > 1024)) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->fp = fopen(path, "wb");
	if (w->fp == NULL) {
		int e = errno;

		free(w);
		errno = e;
		return NULL;
	}
	/* SHB: type, length, magic, version 1.0, section length -1, options, length */
	len = 28 + opt_len(app) + (app ? 4 : 0);
	put32(w, BT_SHB);
	put32(w, len);
	put32(w, BYTE_ORDER_MAGIC);
	put16(w, 1);
	put16(w, 0);
	put32(w, 0xFFFFFFFFu);
	put32(w, 0xFFFFFFFFu);
	if (app != NULL) {
		put_str_opt(w, SHB_USERAPPL, app);
		put32(w, OPT_END);
	}
	put32(w, len);
	if (w->err) {
		int e = w->err;

		fclose(w->fp);
		free(w);
		errno = e;
		return NULL;
	}
	return w;
}

int
ordk_pcapng_add_interface(struct ordk_pcapng *w, const char *name, const char *descr)
{
	const uint8_t tsresol = 9; /* nanoseconds */
	uint32_t len;

	if (w == NULL || (name && strlen(name) > 256) || (descr && strlen(descr) > 1024))
		return -EINVAL;
	len = 20 + opt_len(name) + opt_len(descr) + 4 + 4 + 4;
	put32(w, BT_IDB);
	put32(w, len);
	put16(w, LINKTYPE_ETHERNET);
	put16(w, 0);
	put32(w, 0); /* no snap length limit */
	put_str_opt(w, IF_NAME, name);
	put_str_opt(w, IF_DESCRIPTION, descr);
	put_opt(w, IF_TSRESOL, &tsresol, 1);
	put32(w, OPT_END);
	put32(w, len);
	if (w->err)
		return -w->err;
	return (int)w->nif++;
}

int
ordk_pcapng_write(struct ordk_pcapng *w, uint32_t ifid, const void *frame, uint32_t len,
		  uint64_t ts_ns, enum ordk_pcapng_dir dir)
{
	static const uint8_t zeros[4];
	uint32_t blen, flags = (uint32_t)dir & 3;

	if (w == NULL || (frame == NULL && len > 0) || ifid >= w->nif || len > 0x10000000u)
		return -EINVAL;
	blen = 28 + pad4(len) + (flags ? 8 : 0) + w->notes_opts + (flags || w->notes_opts ? 4 : 0) + 4;
	put32(w, BT_EPB);
	put32(w, blen);
	put32(w, ifid);
	put32(w, (uint32_t)(ts_ns >> 32));
	put32(w, (uint32_t)ts_ns);
	put32(w, len);
	put32(w, len);
	put(w, frame, len);
	put(w, zeros, pad4(len) - len);
	if (flags)
		put_opt(w, EPB_FLAGS, &flags, 4);
	for (uint32_t at = 0; at < w->notes_len; at += (uint32_t)strlen(&w->notes[at]) + 1)
		put_str_opt(w, OPT_COMMENT, &w->notes[at]);
	if (flags || w->notes_opts)
		put32(w, OPT_END);
	w->notes_n = 0;
	w->notes_len = 0;
	w->notes_opts = 0;
	put32(w, blen);
	if (w->err)
		return -w->err;
	w->count++;
	return 0;
}

int
ordk_pcapng_note(struct ordk_pcapng *w, const char *text)
{
	uint32_t n;

	if (w == NULL || text == NULL || (n = (uint32_t)strnlen(text, NOTE_MAX + 1)) > NOTE_MAX)
		return -EINVAL;
	if (w->notes_len + n + 1 > NOTES_BUF) {
		w->notes_lost++;
		return -ENOBUFS;
	}
	memcpy(&w->notes[w->notes_len], text, n + 1);
	w->notes_len += n + 1;
	w->notes_n++;
	w->notes_opts += opt_len(text);
	return 0;
}

uint64_t
ordk_pcapng_notes_lost(const struct ordk_pcapng *w)
{
	return w == NULL ? 0 : w->notes_lost + w->notes_n;
}

uint64_t
ordk_pcapng_count(const struct ordk_pcapng *w)
{
	return w == NULL ? 0 : w->count;
}

int
ordk_pcapng_close(struct ordk_pcapng *w)
{
	int rc;

	if (w == NULL)
		return -EINVAL;
	rc = w->err ? -w->err : 0;
	if (fclose(w->fp) != 0 && rc == 0)
		rc = -errno;
	free(w);
	return rc;
}
