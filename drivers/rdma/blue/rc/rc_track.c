/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive tracker: which PSNs of the peer's send space arrived.
 *
 * It keeps the expected PSN (epsn: every PSN before it arrived) and a bitmap
 * of the ORDK_RECV_WINDOW PSNs from epsn on. The card reports FIRST, LAST and
 * ONLY packets and READ requests one by one, and the rest in bitmaps of its
 * 128-PSN window (doc/guides/drivers/blue_hw_interface.md section 5.1): rc_resp.c feeds both here.
 * PSN arithmetic is modulo 2^24 (blue_psn_add / blue_psn_diff).
 */
#include <string.h>

#include "rc.h"

static inline uint64_t *
rbit_word(uint64_t *rbits, uint32_t psn, uint64_t *bit)
{
	uint32_t i = psn % ORDK_RECV_WINDOW;

	*bit = 1ull << (i % 64);
	return &rbits[i / 64];
}

bool
rc_rx_seen(const struct rc_resp *rs, uint32_t psn)
{
	uint32_t i = psn % ORDK_RECV_WINDOW;

	return (rs->rbits[i / 64] >> (i % 64)) & 1;
}

static void
rbit_clear(struct rc_resp *rs, uint32_t psn)
{
	uint64_t bit, *w = rbit_word(rs->rbits, psn, &bit);

	*w &= ~bit;
}

/* epsn moves over every PSN that arrived. */
static void
advance(struct rc_resp *rs)
{
	while (rc_rx_seen(rs, rs->epsn)) {
		rbit_clear(rs, rs->epsn);
		rs->epsn = blue_psn_add(rs->epsn, 1);
	}
}

/* Every PSN before @p psn arrived. */
static void
advance_to(struct rc_resp *rs, uint32_t psn)
{
	int32_t d = blue_psn_diff(psn, rs->epsn);

	if (d <= 0)
		return;
	if (d >= (int32_t)ORDK_RECV_WINDOW) {
		memset(rs->rbits, 0, sizeof(rs->rbits));
	} else {
		for (int32_t i = 0; i < d; i++)
			rbit_clear(rs, blue_psn_add(rs->epsn, (uint32_t)i));
	}
	rs->epsn = psn;
	advance(rs);
}

void
rc_rx_reset(struct rc_resp *rs, uint32_t epsn)
{
	rs->epsn = epsn;
	rs->counted_epsn = epsn;
	rs->card_base = epsn;
	rs->rx_top = epsn;
	memset(rs->rbits, 0, sizeof(rs->rbits));
}

enum rc_rx_result
rc_rx_mark(struct rc_resp *rs, uint32_t psn)
{
	int32_t d = blue_psn_diff(psn, rs->epsn);
	uint64_t bit, *w;

	if (d < 0)
		return RC_RX_DUP;
	if (d >= (int32_t)ORDK_RECV_WINDOW)
		return RC_RX_BEYOND; /* implied later by a bitmap report */
	w = rbit_word(rs->rbits, psn, &bit);
	*w |= bit;
	if (blue_psn_diff(psn, rs->rx_top) >= 0)
		rs->rx_top = blue_psn_add(psn, 1);
	advance(rs);
	return RC_RX_NEW;
}

uint32_t
rc_rx_merge_window(struct rc_resp *rs, uint32_t base, const struct blue_bitmap128 *b)
{
	uint32_t beyond = 0;

	for (unsigned int w = 0; w < 2; w++) {
		uint64_t bits = w ? b->hi : b->lo;

		while (bits) {
			unsigned int i = (unsigned int)__builtin_ctzll(bits);
			uint32_t psn = blue_psn_add(base, w * 64 + i);

			bits &= bits - 1;
			if (blue_psn_diff(psn, rs->epsn) >= 0)
				beyond += rc_rx_mark(rs, psn) == RC_RX_BEYOND;
		}
	}
	return beyond;
}

uint32_t
rc_rx_mark_range(struct rc_resp *rs, uint32_t from, uint32_t to)
{
	uint32_t beyond = 0;

	if (blue_psn_diff(from, rs->epsn) < 0)
		from = rs->epsn;
	if (blue_psn_diff(to, from) <= 0)
		return 0;
	if (from == rs->epsn) {
		advance_to(rs, to);
		return 0;
	}
	for (uint32_t p = from; p != to; p = blue_psn_add(p, 1))
		beyond += rc_rx_mark(rs, p) == RC_RX_BEYOND;
	return beyond;
}

uint32_t
rc_rx_first_seen_after(const struct rc_resp *rs, uint32_t limit)
{
	for (uint32_t d = 1; d < ORDK_RECV_WINDOW; d++) {
		uint32_t psn = blue_psn_add(rs->epsn, d);

		if (blue_psn_diff(limit, psn) <= 0)
			break;
		if (rc_rx_seen(rs, psn))
			return psn;
	}
	return limit;
}

bool
rc_rx_window_shows_hole(const struct rc_resp *rs, uint32_t base, const struct blue_bitmap128 *b)
{
	int top = b->hi ? 127 - __builtin_clzll(b->hi) : b->lo ? 63 - __builtin_clzll(b->lo) : -1;

	return top >= 0 && blue_psn_diff(blue_psn_add(base, (uint32_t)top), rs->epsn) > 0;
}
