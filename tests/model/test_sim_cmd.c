/* SPDX-License-Identifier: BSD-3-Clause */
/* bluesim command unit through the CmdReq/CmdResp rings
 * (doc/guides/drivers/blue_hw_interface.md section 3.1). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "blue_regs.h"
#include "sim_host.h"

static struct sim_host h;

static void
setup(void)
{
	struct bluesim_config cfg;

	test_eal_init(NULL);
	bluesim_config_defaults(&cfg);
	sim_host_init(&h, &cfg);
}

static void
teardown(void)
{
	sim_host_fini(&h);
}

TestSuite(sim_cmd, .init = setup, .fini = teardown);

Test(sim_cmd, responses_echo_the_request)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_SET_NETWORK_PARAM, .valid = 1 },
			      .user_data = 0x5A };
	uint8_t req[32], resp[32];

	c.net = (struct blue_cmd_set_network_param){ .local_mac = 0x020000000001ull,
						     .local_ip = 0x0A000001, .netmask = 0xFFFFFF00,
						     .gateway = 0x0A0000FE };
	cr_assert_eq(blue_cmd_encode(&c, req), 0);
	cr_assert_eq(sim_host_cmd_raw(&h, req, resp), 1);
	/* identical except valid = 1, has_next = 0, is_success = 1 */
	for (int i = 0; i < 32; i++) {
		uint8_t want = req[i];

		if (i == 29)
			want |= 1;
		if (i == 31)
			want = (want | 0x80) & ~0x40;
		cr_assert_eq(resp[i], want, "byte %d", i);
	}
	cr_assert_eq(bluesim_xstat(h.sim, "cmd_ok"), 1);
}

Test(sim_cmd, a_bad_descriptor_gets_a_failed_response)
{
	uint8_t req[32] = { 0 }, resp[32];

	req[30] = 0x09; /* unknown command opcode */
	req[31] = 0x80;
	cr_assert_eq(sim_host_cmd_raw(&h, req, resp), 0);
	cr_assert_eq(resp[30], 0x09);
	req[30] = BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT;
	cr_assert_eq(sim_host_cmd_raw(&h, req, resp), 0);
	req[30] = BLUE_CMD_SET_NETWORK_PARAM;
	req[8] = 1; /* reserved bits */
	cr_assert_eq(sim_host_cmd_raw(&h, req, resp), 0);
	cr_assert_eq(bluesim_xstat(h.sim, "cmd_bad_descriptor"), 3);
	cr_assert_eq(bluesim_xstat(h.sim, "cmd_failed"), 3);
}

Test(sim_cmd, mr_table_and_pgt)
{
	static uint8_t buf[8192] __attribute__((aligned(4096)));
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };

	cr_assert(sim_host_reg_mr(&h, 0x1234, buf, sizeof(buf), BLUE_ACC_ALL, 10));
	/* index beyond the table */
	c.mr = (struct blue_cmd_update_mr_table){ .mr_key = BLUE_MAX_MR << 8, .mr_length = 1,
						  .mr_base_va = 0x1000 };
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0);
	/* PGT run beyond the table */
	c.mr = (struct blue_cmd_update_mr_table){ .mr_key = 0x100, .mr_length = 4 << 20,
						  .mr_base_va = 0, .pgt_offset = BLUE_PGT_ENTRIES - 1 };
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0);
	/* length 0 invalidates */
	c.mr = (struct blue_cmd_update_mr_table){ .mr_key = 0x1234, .mr_length = 0 };
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 1);

	/* UpdatePGT constraints */
	c = (struct blue_cmd){ .hdr = { .opcode = BLUE_CMD_UPDATE_PGT, .valid = 1 } };
	c.pgt = (struct blue_cmd_update_pgt){ .dma_addr = (uint64_t)(uintptr_t)h.staging + 8,
					      .zero_based_entry_count = 0 };
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0, "dma_addr not 512-aligned");
	c.pgt.dma_addr = (uint64_t)(uintptr_t)h.staging;
	c.pgt.zero_based_entry_count = 64;
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0, "65 entries > one 512 B burst");
	c.pgt.dma_addr = (uint64_t)(uintptr_t)h.staging + 3584;
	c.pgt.zero_based_entry_count = 63;
	/* 512-aligned and at most 512 bytes never crosses 4 KiB: ending at 4096 is fine */
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 1, "64 entries ending at a 4 KiB boundary");
	c.pgt.dma_addr = (uint64_t)(uintptr_t)h.staging;
	c.pgt.start_index = BLUE_PGT_ENTRIES - 10;
	c.pgt.zero_based_entry_count = 10;
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0, "past the PGT");
	c.pgt.start_index = 0;
	c.pgt.dma_addr = 0x10000000000ull; /* never mapped */
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0, "DMA refused");
	cr_assert_geq(bluesim_xstat(h.sim, "dma_refused"), 1);
}

Test(sim_cmd, manage_qp)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } };

	cr_assert(sim_host_qp(&h, 0x1AB, 0x2CD, 0x0A000002, 0x020000000002ull, BLUE_PMTU_1024, 7));
	c.qp = (struct blue_cmd_manage_qp){ .is_valid = 1, .qpn = 1024 << 8, .pmtu = 5 };
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0, "index 1024");
	c.qp = (struct blue_cmd_manage_qp){ .is_valid = 1, .qpn = 0x300, .pmtu = 0 };
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0, "PMTU code 0");
	c.qp = (struct blue_cmd_manage_qp){ .is_valid = 0, .qpn = 0x1AB };
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 1, "clear");
}

Test(sim_cmd, many_commands_pipelined)
{
	uint8_t d[32 * 100], resp[32];
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_SET_NETWORK_PARAM, .valid = 1 } };
	int got = 0;

	for (int i = 0; i < 100; i++) {
		c.user_data = (uint8_t)i;
		cr_assert_eq(blue_cmd_encode(&c, d + 32 * i), 0);
	}
	sim_host_push_raw(&h, BLUE_RING_CMD_REQ, d, 100);
	for (int round = 0; round < 100 && got < 100; round++) {
		uint8_t *slot;

		bluesim_poll(h.sim, 16);
		while ((slot = h.ring[BLUE_RING_CMD_RESP] + blue_ring_idx(h.tail[BLUE_RING_CMD_RESP]) * 32),
		       slot[31] & 0x80) {
			memcpy(resp, slot, 32);
			memset(slot, 0, 32);
			cr_assert_eq(resp[28], got, "responses in order");
			got++;
			h.tail[BLUE_RING_CMD_RESP] = blue_ring_advance(h.tail[BLUE_RING_CMD_RESP], 1);
		}
		sim_host_reg_write(&h, BLUE_RING_REG(BLUE_CMD_RESP_RING_BASE, BLUE_CSR_REG_TAIL),
				   h.tail[BLUE_RING_CMD_RESP]);
	}
	cr_assert_eq(got, 100);
	/* the model's TAIL of CmdReq followed the fetches */
	cr_assert_eq(sim_host_reg(&h, BLUE_RING_REG(BLUE_CMD_REQ_RING_BASE, BLUE_CSR_REG_TAIL)), 100);
}

/* bluesim_cmd_poll(): the command unit alone, everything on CmdReq answered in one call. */
Test(sim_cmd, the_command_unit_runs_alone)
{
	uint8_t d[32 * 3];
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_SET_NETWORK_PARAM, .valid = 1 } };

	for (int i = 0; i < 3; i++) {
		c.user_data = (uint8_t)i;
		cr_assert_eq(blue_cmd_encode(&c, d + 32 * i), 0);
	}
	sim_host_push_raw(&h, BLUE_RING_CMD_REQ, d, 3);
	cr_assert_eq(bluesim_cmd_poll(h.sim), 3);
	for (uint32_t i = 0; i < 3; i++) {
		const uint8_t *slot = h.ring[BLUE_RING_CMD_RESP] +
				      blue_ring_idx(blue_ring_advance(h.tail[BLUE_RING_CMD_RESP], i)) * 32;

		cr_assert(slot[31] & 0x80, "response %u written", i);
		cr_assert_eq(slot[28], i, "in order");
		cr_assert_eq(slot[29] & 1, 1);
	}
	cr_assert_eq(bluesim_cmd_poll(h.sim), 0, "nothing left");
	cr_assert_eq(bluesim_xstat(h.sim, "cmd_ok"), 3);
}

Test(sim_cmd, unmapped_ring_is_refused)
{
	struct bluesim_config cfg;
	struct bluesim *s;
	volatile uint32_t *bar;

	bluesim_config_defaults(&cfg);
	s = bluesim_create(&cfg);
	bar = bluesim_bar0(s);
	bar[BLUE_CMD_REQ_RING_BASE / 4] = 0x7000000; /* never mapped */
	bar[BLUE_RING_REG(BLUE_CMD_REQ_RING_BASE, BLUE_CSR_REG_HEAD) / 4] = 5;
	for (int i = 0; i < 10; i++)
		bluesim_poll(s, 64);
	cr_assert_eq(bar[BLUE_RING_REG(BLUE_CMD_REQ_RING_BASE, BLUE_CSR_REG_TAIL) / 4], 0);
	cr_assert_eq(bluesim_xstat(s, "dma_refused"), 1, "counted once, not per poll");
	/* a HEAD more than a ring ahead */
	bar[BLUE_RING_REG(BLUE_CMD_REQ_RING_BASE, BLUE_CSR_REG_HEAD) / 4] = 4097;
	bluesim_poll(s, 64);
	cr_assert_geq(bluesim_xstat(s, "ring_insane"), 1);
	bluesim_destroy(s);
}

Test(sim_cmd, dma_unmap_cuts_mappings)
{
	static uint8_t buf[5 * 4096] __attribute__((aligned(4096)));
	uint64_t a = (uint64_t)(uintptr_t)buf;
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_PGT, .valid = 1 } };

	cr_assert_eq(bluesim_dma_map(h.sim, a, buf, sizeof(buf)), 0);
	cr_assert_eq(bluesim_dma_map(h.sim, a + 4096, buf + 4096, 10), -EEXIST, "overlap refused");
	cr_assert_eq(bluesim_dma_unmap(h.sim, a + 4096, 4096), 0, "a hole in the middle");
	c.pgt.zero_based_entry_count = 0;
	c.pgt.dma_addr = a; /* head still mapped */
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 1);
	c.pgt.dma_addr = a + 4096; /* the hole */
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0);
	c.pgt.dma_addr = a + 2 * 4096; /* tail still mapped */
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 1);
	cr_assert_eq(bluesim_dma_unmap(h.sim, a, sizeof(buf)), 0, "both pieces");
	c.pgt.dma_addr = a;
	cr_assert_eq(sim_host_cmd(&h, &c).is_success, 0);
	cr_assert_eq(bluesim_dma_unmap(h.sim, a, sizeof(buf)), -ENOENT);
}
