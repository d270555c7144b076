/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PSN arithmetic the transport stands on (blue_proto.h, rc.h): 24-bit
 * serial numbers, the card's 8-stride bitmap window and the first PSNs the
 * card can start from, each around the 2^24 wrap and the 2^23 edge where
 * "ahead" turns into "behind".
 */
#include <criterion/criterion.h>

#include "../../../drivers/rdma/blue/rc/rc.h"

#define WRAP (BLUE_PSN_MASK + 1u) /* 2^24 */
#define HALF (WRAP / 2u)

Test(rc_psn, add_wraps_at_2_24)
{
	cr_assert_eq(blue_psn_add(BLUE_PSN_MASK, 1), 0);
	cr_assert_eq(blue_psn_add(0xFFFFF0, 0x20), 0x10);
	cr_assert_eq(blue_psn_add(5, BLUE_PSN_MASK), 4, "adding 2^24 - 1 steps one back");
	cr_assert_eq(blue_psn_add(0x123456, WRAP), 0x123456, "a whole turn changes nothing");
	/* bits above 24 in the operand never leak into the result */
	cr_assert_eq(blue_psn_add(0xFF000001u, 0), 1);
}

Test(rc_psn, diff_is_signed_across_the_wrap)
{
	cr_assert_eq(blue_psn_diff(0, BLUE_PSN_MASK), 1, "PSN 0 is one after 0xffffff");
	cr_assert_eq(blue_psn_diff(BLUE_PSN_MASK, 0), -1);
	cr_assert_eq(blue_psn_diff(0x10, 0xFFFFF0), 0x20);
	cr_assert_eq(blue_psn_diff(0xFFFFF0, 0x10), -0x20);
	cr_assert_eq(blue_psn_diff(0x777777, 0x777777), 0);
	/* the edge: 2^23 - 1 ahead is ahead, 2^23 is behind (IBA 9.7.5.1.4 keeps half the space) */
	cr_assert_eq(blue_psn_diff(HALF - 1, 0), (int32_t)(HALF - 1));
	cr_assert_eq(blue_psn_diff(HALF, 0), -(int32_t)HALF);
	cr_assert_eq(blue_psn_diff(blue_psn_add(0xFFFF00, HALF - 1), 0xFFFF00), (int32_t)(HALF - 1));
	cr_assert_lt(blue_psn_diff(blue_psn_add(0xFFFF00, HALF), 0xFFFF00), 0);
	/* the same distances wherever they start */
	for (uint32_t base = 0xFFFF00; base != 0x100; base = blue_psn_add(base, 0x10)) {
		cr_assert_eq(blue_psn_diff(blue_psn_add(base, 300), base), 300, "base 0x%06x", base);
		cr_assert_eq(blue_psn_diff(base, blue_psn_add(base, 300)), -300, "base 0x%06x", base);
	}
}

Test(rc_psn, card_window_base_is_seven_strides_behind_across_the_wrap)
{
	cr_assert_eq(rc_card_window_base(0x000000), 0xFFFF90);
	cr_assert_eq(rc_card_window_base(0x000070), 0x000000);
	cr_assert_eq(rc_card_window_base(0xFFFFF0), 0xFFFF80);
	cr_assert_eq(rc_card_window_base(0x000050), 0xFFFFE0);
}

/*
 * A PSN is inside the card window of newest PSN n when its stride is at most
 * 7 strides behind n's, or ahead of it; the window's stride index is 20 bits
 * and wraps with the PSN.
 */
Test(rc_psn, card_window_membership_across_the_wrap)
{
	/* newest PSN 0x000005: strides 0xFFFF9..0xFFFFF and 0 are inside */
	cr_assert(blue_psn_in_card_window(0x000000, 0x000005));
	cr_assert(blue_psn_in_card_window(0xFFFFFF, 0x000005));
	cr_assert(blue_psn_in_card_window(0xFFFF90, 0x000005), "7 strides behind");
	cr_assert_not(blue_psn_in_card_window(0xFFFF8F, 0x000005), "8 strides behind");
	cr_assert_not(blue_psn_in_card_window(0xFFFF80, 0x000005));
	/* ahead of the window (not sent yet, from the window's point of view) */
	cr_assert(blue_psn_in_card_window(0x000100, 0x000005));
	cr_assert(blue_psn_in_card_window(0x000010, 0xFFFFFF), "PSN 0x10 is ahead of 0xffffff");
	/* newest PSN just before the wrap: PSN 0 after it is ahead, 0xffff70 behind */
	cr_assert(blue_psn_in_card_window(0xFFFF80, 0xFFFFF0));
	cr_assert_not(blue_psn_in_card_window(0xFFFF7F, 0xFFFFF0));
}

/*
 * The card's reset window (after ManageQp) is stride 0xFFFFF with every bit
 * set (doc/guides/drivers/blue_hw_interface.md section 5.1). A first PSN is
 * fine only when its stride lies
 * ahead of that window by fewer than 2^19 strides and outside it: strides
 * 0..0x7FFF7 (blue_proto.h says why each other range fails).
 */
Test(rc_psn, first_psns_the_card_can_start_from)
{
	static const uint32_t ok[] = { 0, 1, 0x6F, 0x70, 0x123456, 0x7FFF70, BLUE_PSN_FIRST_MAX };
	static const uint32_t refused[] = {
		0x7FFF80, 0x7FFFEF,		 /* ahead by 2^19 - 1 strides or more */
		0x7FFFF0, 0x800000, 0xFFFF7F,	 /* behind the reset window (RTL: locks) */
		0xFFFF80, 0xFFFFF0, BLUE_PSN_MASK, /* inside it: reported as arrived at once */
	};

	cr_assert_eq(BLUE_PSN_FIRST_MAX, 0x7FFF7Fu);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		cr_assert(blue_psn_first_ok(ok[i]), "0x%06x", ok[i]);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		cr_assert_not(blue_psn_first_ok(refused[i]), "0x%06x", refused[i]);
	/* every PSN of a refused stride is refused, every PSN of an allowed one allowed */
	for (uint32_t s = 0x7FFF0; s <= 0x7FFFF; s++)
		for (uint32_t k = 0; k < 16; k++)
			cr_assert_eq(blue_psn_first_ok(s << 4 | k), s <= 0x7FFF7u, "0x%06x",
				     s << 4 | k);
}
