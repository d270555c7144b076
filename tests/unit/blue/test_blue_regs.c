/* SPDX-License-Identifier: BSD-3-Clause */
/* Register offsets and 13-bit ring pointers
 * (doc/guides/drivers/blue_hw_interface.md sections 1 and 2). */
#include <criterion/criterion.h>

#include "blue_regs.h"

Test(blue_regs, ring_offsets_match_the_table)
{
	/* BASE_LO, BASE_HI, HEAD, TAIL of each ring, from the section 1 table */
	static const struct {
		enum blue_ring_id ring;
		uint32_t base;
	} rows[] = {
		{ BLUE_RING_SEND0, 0x000 },	     { BLUE_RING_META0, 0x010 },
		{ BLUE_RING_CMD_REQ, 0x100 },	     { BLUE_RING_CMD_RESP, 0x110 },
		{ BLUE_RING_SIMPLE_NIC_TX, 0x140 }, { BLUE_RING_SIMPLE_NIC_RX, 0x150 },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint32_t b = blue_ring_csr_base(rows[i].ring);

		cr_assert_eq(b, rows[i].base, "%s", blue_ring_name(rows[i].ring));
		cr_assert_eq(BLUE_RING_REG(b, BLUE_CSR_REG_BASE_HI), rows[i].base + 4);
		cr_assert_eq(BLUE_RING_REG(b, BLUE_CSR_REG_HEAD), rows[i].base + 8);
		cr_assert_eq(BLUE_RING_REG(b, BLUE_CSR_REG_TAIL), rows[i].base + 0xC);
	}
	cr_assert_eq(BLUE_SEND_RING_BASE(1), 0x040);
	cr_assert_eq(BLUE_META_RING_BASE(1), 0x050);
	cr_assert_eq(BLUE_SEND_RING_BASE(2), 0x080);
	cr_assert_eq(BLUE_META_RING_BASE(3), 0x0D0);
	cr_assert(blue_ring_is_c2h(BLUE_RING_META0));
	cr_assert(blue_ring_is_c2h(BLUE_RING_CMD_RESP));
	cr_assert(blue_ring_is_c2h(BLUE_RING_SIMPLE_NIC_RX));
	cr_assert_not(blue_ring_is_c2h(BLUE_RING_SEND0));
	cr_assert_not(blue_ring_is_c2h(BLUE_RING_CMD_REQ));
	cr_assert_not(blue_ring_is_c2h(BLUE_RING_SIMPLE_NIC_TX));
	cr_assert_str_eq(blue_ring_name(BLUE_RING_CMD_REQ), "CmdReq");
}

Test(blue_regs, counter_offsets)
{
	cr_assert_eq(BLUE_REG_RQ_COUNTER(0, BLUE_RQ_CNT_INVALID_QP_ACCESS), 0x400);
	cr_assert_eq(BLUE_REG_RQ_COUNTER(3, BLUE_RQ_CNT_DEBUG), 0x1000 + 36);
	cr_assert_eq(BLUE_REG_RX_CLASS_COUNTER(0, BLUE_RX_CLASS_RDMA), 0x488);
	cr_assert_eq(BLUE_REG_PKTGEN_COUNTER(3, 3), 0x200C);
	cr_assert(BLUE_REG_PKTGEN_COUNTER(3, 3) < BLUE_BAR0_SIZE);
}

Test(blue_regs, pointer_edges)
{
	/* empty */
	cr_assert(blue_ring_empty(0, 0));
	cr_assert(blue_ring_empty(4095, 4095));
	cr_assert(blue_ring_empty(8191, 8191));
	cr_assert(blue_ring_empty(0x2000 + 5, 5), "bits above 13 are ignored");
	cr_assert_eq(blue_ring_count(0, 0), 0);
	cr_assert_eq(blue_ring_free(0, 0), 4096);

	/* full: equal index, different guard */
	cr_assert(blue_ring_full(4096, 0));
	cr_assert(blue_ring_full(0, 4096));
	cr_assert(blue_ring_full(8191, 4095));
	cr_assert(blue_ring_full(4095, 8191));
	cr_assert_not(blue_ring_empty(4096, 0));
	cr_assert_eq(blue_ring_count(4096, 0), 4096);
	cr_assert_eq(blue_ring_count(4095, 8191), 4096);
	cr_assert_eq(blue_ring_free(4096, 0), 0);
	cr_assert_not(blue_ring_full(4095, 0));
	cr_assert_eq(blue_ring_free(4095, 0), 1);

	/* one entry */
	cr_assert_eq(blue_ring_count(1, 0), 1);
	cr_assert_eq(blue_ring_count(4096, 4095), 1);
	cr_assert_eq(blue_ring_count(0, 8191), 1, "wrap of the 13-bit pointer");
	cr_assert_eq(blue_ring_count(8191, 8190), 1);
	cr_assert_eq(blue_ring_idx(4096), 0);
	cr_assert_eq(blue_ring_idx(8191), 4095);
	cr_assert_eq(blue_ring_idx(4095), 4095);
}

Test(blue_regs, advance_and_wrap)
{
	cr_assert_eq(blue_ring_advance(4095, 1), 4096);
	cr_assert_eq(blue_ring_advance(8191, 1), 0);
	cr_assert_eq(blue_ring_advance(8190, 4), 2);
	cr_assert_eq(blue_ring_idx(blue_ring_advance(4095, 1)), 0);
	/* a free-running producer counter written as is */
	uint32_t head = 0, tail = 0;

	for (uint32_t i = 0; i < 3 * 8192 + 17; i++) {
		head++;
		if (i % 3 == 0) {
			tail = blue_ring_advance(tail, 1);
		}
		cr_assert(blue_ring_ptrs_sane(head, tail));
		cr_assert_eq(blue_ring_count(head, tail) + blue_ring_free(head, tail), 4096);
		if (blue_ring_full(head, tail))
			break;
	}
	cr_assert(blue_ring_full(head, tail), "producer ran 4096 ahead");
}

Test(blue_regs, insane_pointers)
{
	/* more than 4096 apart cannot come from a sane producer */
	cr_assert_not(blue_ring_ptrs_sane(4097, 0));
	cr_assert_not(blue_ring_ptrs_sane(8191, 0));
	cr_assert_eq(blue_ring_free(4097, 0), 0);
	cr_assert(blue_ring_ptrs_sane(4096, 0));
}
