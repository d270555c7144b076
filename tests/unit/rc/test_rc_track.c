/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The receive tracker (rc/rc_track.c), alone: the test includes the .c
 * (SPDK's way). PSNs are 24-bit: every case also runs across the 2^24 wrap.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "../../../drivers/rdma/blue/rc/rc_track.c"

static struct rc_resp rs;

/* Start points: the middle of the space, and just short of the 2^24 wrap. */
#define NEAR_WRAP (BLUE_PSN_MASK - 5u)

static void
reset(uint32_t epsn)
{
	memset(&rs, 0, sizeof(rs));
	rc_rx_reset(&rs, epsn);
}

ParameterizedTestParameters(rc_track, in_order_moves_epsn)
{
	static uint32_t start[] = { 1000u, NEAR_WRAP };

	return cr_make_param_array(uint32_t, start, 2);
}

ParameterizedTest(uint32_t *start, rc_track, in_order_moves_epsn)
{
	reset(*start);
	for (uint32_t i = 0; i < 20; i++)
		cr_assert_eq(rc_rx_mark(&rs, blue_psn_add(*start, i)), RC_RX_NEW);
	cr_assert_eq(rs.epsn, blue_psn_add(*start, 20), "epsn 0x%06x", rs.epsn);
	cr_assert_eq(rs.rx_top, rs.epsn);
	cr_assert(rs.epsn <= BLUE_PSN_MASK, "epsn stays 24-bit");
	/* what arrived before epsn is a duplicate now */
	cr_assert_eq(rc_rx_mark(&rs, *start), RC_RX_DUP);
	cr_assert_eq(rc_rx_mark(&rs, blue_psn_add(*start, 19)), RC_RX_DUP);
}

ParameterizedTestParameters(rc_track, hole_then_fill)
{
	static uint32_t start[] = { 77u, NEAR_WRAP };

	return cr_make_param_array(uint32_t, start, 2);
}

ParameterizedTest(uint32_t *start, rc_track, hole_then_fill)
{
	uint32_t s = *start;

	reset(s);
	/* s+1 .. s+9 arrive, s is missing: epsn stays, the rest is recorded */
	for (uint32_t i = 1; i < 10; i++)
		cr_assert_eq(rc_rx_mark(&rs, blue_psn_add(s, i)), RC_RX_NEW);
	cr_assert_eq(rs.epsn, s);
	cr_assert(rc_rx_seen(&rs, blue_psn_add(s, 9)));
	cr_assert_not(rc_rx_seen(&rs, s));
	cr_assert_eq(rs.rx_top, blue_psn_add(s, 10));
	/* the same PSN again, beyond the hole: a duplicate, and reported as new
	 * (the tracker cannot tell; rc_resp.c's message queue catches it) */
	cr_assert_eq(rc_rx_mark(&rs, blue_psn_add(s, 5)), RC_RX_NEW);
	/* the first PSN after the hole that arrived */
	cr_assert_eq(rc_rx_first_seen_after(&rs, blue_psn_add(s, ORDK_RECV_WINDOW)),
		     blue_psn_add(s, 1));
	cr_assert_eq(rc_rx_first_seen_after(&rs, blue_psn_add(s, 1)), blue_psn_add(s, 1),
		     "nothing before the limit: the limit");
	/* the hole fills: epsn runs over everything recorded, bits cleared */
	cr_assert_eq(rc_rx_mark(&rs, s), RC_RX_NEW);
	cr_assert_eq(rs.epsn, blue_psn_add(s, 10));
	for (uint32_t i = 0; i < 10; i++)
		cr_assert_not(rc_rx_seen(&rs, blue_psn_add(s, i)), "bit %u left behind", i);
}

Test(rc_track, beyond_the_window_is_not_recorded)
{
	reset(NEAR_WRAP);
	cr_assert_eq(rc_rx_mark(&rs, blue_psn_add(NEAR_WRAP, ORDK_RECV_WINDOW)), RC_RX_BEYOND);
	cr_assert_eq(rc_rx_mark(&rs, blue_psn_add(NEAR_WRAP, ORDK_RECV_WINDOW - 1)), RC_RX_NEW);
	cr_assert_eq(rs.epsn, NEAR_WRAP);
	/* a PSN half the space behind is old, not new (24-bit serial arithmetic) */
	cr_assert_eq(rc_rx_mark(&rs, blue_psn_add(NEAR_WRAP, (BLUE_PSN_MASK + 1) / 2 + 1)),
		     RC_RX_DUP);
}

Test(rc_track, mark_range_from_epsn_and_beyond_a_hole)
{
	uint32_t s = BLUE_PSN_MASK - 2; /* the range crosses the wrap */

	reset(s);
	/* [s+4, s+8) arrived: recorded one by one behind the hole */
	cr_assert_eq(rc_rx_mark_range(&rs, blue_psn_add(s, 4), blue_psn_add(s, 8)), 0);
	cr_assert_eq(rs.epsn, s);
	/* [s-10, s+4): only what is at or after epsn counts; epsn jumps over the rest */
	cr_assert_eq(rc_rx_mark_range(&rs, blue_psn_add(s, BLUE_PSN_MASK + 1 - 10),
				      blue_psn_add(s, 4)),
		     0);
	cr_assert_eq(rs.epsn, blue_psn_add(s, 8), "epsn 0x%06x", rs.epsn);
	/* an empty or backwards range changes nothing */
	cr_assert_eq(rc_rx_mark_range(&rs, blue_psn_add(s, 20), blue_psn_add(s, 20)), 0);
	cr_assert_eq(rs.epsn, blue_psn_add(s, 8));
}

Test(rc_track, mark_range_longer_than_the_window)
{
	reset(500);
	cr_assert_eq(rc_rx_mark(&rs, 600), RC_RX_NEW);
	cr_assert_eq(rc_rx_mark_range(&rs, 500, 500 + 2 * ORDK_RECV_WINDOW), 0);
	cr_assert_eq(rs.epsn, 500 + 2 * ORDK_RECV_WINDOW);
	cr_assert_not(rc_rx_seen(&rs, 600 + 2 * ORDK_RECV_WINDOW), "stale bit cleared");
}

Test(rc_track, merge_a_card_bitmap)
{
	struct blue_bitmap128 b = { .lo = 0, .hi = 0 };
	uint32_t base = BLUE_PSN_MASK - 63; /* bit 64 is PSN 0 after the wrap */

	reset(base);
	b.lo = ~0ull & ~(1ull << 3); /* PSN base+3 missing */
	b.hi = 1ull;		     /* base+64 = PSN 0 */
	cr_assert_eq(rc_rx_merge_window(&rs, base, &b), 0);
	cr_assert_eq(rs.epsn, blue_psn_add(base, 3));
	cr_assert(rc_rx_seen(&rs, 0), "bit 64 is PSN 0");
	cr_assert_eq(rc_rx_first_seen_after(&rs, blue_psn_add(rs.epsn, ORDK_RECV_WINDOW)),
		     blue_psn_add(base, 4));
	b.lo = 1ull << 3;
	b.hi = 0;
	rc_rx_merge_window(&rs, base, &b);
	cr_assert_eq(rs.epsn, 1, "filled: epsn past PSN 0, epsn 0x%06x", rs.epsn);
}

Test(rc_track, card_window_base_is_seven_strides_back)
{
	cr_assert_eq(RC_CARD_WINDOW_BEHIND, 112u);
	cr_assert_eq(rc_card_window_base(0x200), 0x200 - 112);
	cr_assert_eq(rc_card_window_base(0x10), BLUE_PSN_MASK + 1 + 0x10 - 112, "wraps");
}

/* rc.h's small FIFO, as the READ FIFO and the message queue use it, across its wrap. */
Test(rc_fifo, push_pop_insert_remove_across_the_wrap)
{
	struct rc_fifo f;
	uint32_t a[4];

	rc_fifo_init(&f, 4);

	a[rc_fifo_push(&f)] = 10;
	a[rc_fifo_push(&f)] = 20;
	rc_fifo_pop(&f);
	rc_fifo_pop(&f); /* head at 2 */
	a[rc_fifo_push(&f)] = 1;
	a[rc_fifo_push(&f)] = 3; /* slots 2, 3 */
	a[rc_fifo_insert(&f, a, 1)] = 2; /* 1 2 3: the 3 moves to slot 0 */
	cr_assert_eq(f.count, 3);
	cr_assert_eq(a[0], 3);
	for (uint32_t i = 0; i < 3; i++)
		cr_assert_eq(a[rc_fifo_at(&f, i)], i + 1);
	a[rc_fifo_insert(&f, a, 3)] = 4; /* at the end: nothing moves */
	cr_assert_eq(f.count, 4);
	rc_fifo_remove(&f, a, 1); /* 1 3 4 */
	cr_assert_eq(f.count, 3);
	cr_assert_eq(a[rc_fifo_at(&f, 0)], 1);
	cr_assert_eq(a[rc_fifo_at(&f, 1)], 3);
	cr_assert_eq(a[rc_fifo_at(&f, 2)], 4);
	rc_fifo_pop(&f);
	cr_assert_eq(a[f.head], 3);
	rc_fifo_clear(&f);
	cr_assert_eq(f.count, 0);
	cr_assert_eq(f.size, 4, "the size stays");
}

/*
 * A card bitmap shows the hole at epsn only when a later PSN arrived: with
 * the window base before the wrap and the set bits after it, the comparison
 * is 24-bit serial, not plain integer.
 */
Test(rc_track, window_shows_a_hole_only_past_it_across_the_wrap)
{
	uint32_t base = rc_card_window_base(0x000020); /* 0xffffb0: bits 0x50.. are PSN 0.. */
	struct blue_bitmap128 b = { 0, 0 };

	reset(0xFFFFF0);
	cr_assert_eq(base, 0xFFFFB0);
	cr_assert_not(rc_rx_window_shows_hole(&rs, base, &b), "nothing seen: no hole");
	b.lo = 1ull << 0x3F; /* PSN 0xffffef: before epsn */
	cr_assert_not(rc_rx_window_shows_hole(&rs, base, &b), "only old PSNs: no hole");
	b.hi = 1ull << (0x55 - 64); /* PSN 0x000005: after the wrap, after epsn */
	cr_assert(rc_rx_window_shows_hole(&rs, base, &b));
	/* merged, epsn stays on the hole; the first PSN seen after it is past the wrap */
	rc_rx_merge_window(&rs, base, &b);
	cr_assert_eq(rs.epsn, 0xFFFFF0);
	cr_assert_eq(rc_rx_first_seen_after(&rs, blue_psn_add(rs.epsn, ORDK_RECV_WINDOW)), 5);
	cr_assert_eq(rs.rx_top, 6);
	/* the hole at epsn itself set: the next bitmap shows none */
	reset(0x000005);
	cr_assert_not(rc_rx_window_shows_hole(&rs, base, &b), "the top bit is epsn: no hole");
}

/*
 * A FIFO of 3 elements keeps 4 slots (a power of two: a slot is a mask
 * away); it still holds 3 at most, and its order survives the slots' wrap
 * many times over.
 */
Test(rc_fifo, a_size_not_a_power_of_two_takes_the_next_power_of_slots)
{
	struct rc_fifo f;
	uint32_t a[4], next = 0, expect = 0;

	rc_fifo_init(&f, 3);
	cr_assert_eq(rc_fifo_slots(&f), 4);
	cr_assert_eq(f.size, 3);
	for (int round = 0; round < 100; round++) {
		while (f.count < f.size)
			a[rc_fifo_push(&f)] = next++;
		for (int k = 0; k < 2; k++) {
			cr_assert_eq(a[rc_fifo_at(&f, 0)], expect++);
			rc_fifo_pop(&f);
		}
		cr_assert_lt(f.head, rc_fifo_slots(&f));
	}
	cr_assert_eq(a[rc_fifo_at(&f, 0)], expect);
}
