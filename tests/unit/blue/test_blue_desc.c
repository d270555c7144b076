/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor codecs against golden images. Each image below was written out by
 * hand from the byte columns of doc/guides/drivers/blue_hw_interface.md
 * section 3 (B0..B31, little-endian
 * multi-byte fields), not from the bit ranges the codec is generated from, with
 * field values chosen non-zero and distinct wherever the format allows.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "blue_desc.h"
#include "blue_desc_internal.h"

static void
assert_image(const uint8_t *got, const uint8_t *want, size_t n, const char *what)
{
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(got[i], want[i], "%s: byte %zu is 0x%02x, want 0x%02x", what, i, got[i],
			     want[i]);
}


#define EQ(a, b, f) cr_assert_eq((a)->f, (b)->f, "field " #f)

static void
assert_item_eq(const struct blue_send_item *a, const struct blue_send_item *b)
{
	EQ(a, b, opcode); EQ(a, b, valid); EQ(a, b, msn); EQ(a, b, total_len); EQ(a, b, rkey);
	EQ(a, b, dqp_ip); EQ(a, b, raddr); EQ(a, b, psn); EQ(a, b, qp_type); EQ(a, b, dqpn);
	EQ(a, b, flags); EQ(a, b, pmtu); EQ(a, b, is_first); EQ(a, b, is_last);
	EQ(a, b, is_retry); EQ(a, b, enable_ecn); EQ(a, b, sqpn); EQ(a, b, imm);
	EQ(a, b, dst_mac); EQ(a, b, lkey); EQ(a, b, len); EQ(a, b, laddr);
}

static void
assert_basic_eq(const struct blue_meta_basic *a, const struct blue_meta_basic *b)
{
	EQ(a, b, msn); EQ(a, b, psn); EQ(a, b, ecn_marked); EQ(a, b, solicited);
	EQ(a, b, ack_req); EQ(a, b, is_retry); EQ(a, b, dqpn); EQ(a, b, total_len);
	EQ(a, b, raddr); EQ(a, b, rkey); EQ(a, b, imm_data);
}

/* ------------------------------------------------------------- commands */

static const uint8_t img_update_mr[32] = {
	0x80, 0xE6, 0xD5,	/* B0-2: pgt_offset 0x1ABCD in [23:7] */
	0x0B,			/* B3: acc_flags */
	0x11, 0x22, 0x33, 0x44, /* B4-7: pd_handle 0x44332211 */
	0x5A, 0xFE, 0x1F, 0x00, /* B8-11: mr_key 0x001FFE5A */
	0xA9, 0xCB, 0xED, 0x7F, /* B12-15: mr_length 0x7FEDCBA9 */
	0x90, 0x78, 0x56, 0x34, 0x12, 0x7F, 0x00, 0x00, /* B16-23: base va */
	0, 0, 0, 0,		/* B24-27 reserved */
	0xC3,			/* B28 user_data */
	0x01,			/* B29 is_success */
	0x00,			/* B30 opcode UpdateMrTable */
	0x80,			/* B31 valid */
};

static const uint8_t img_update_pgt[32] = {
	0, 0, 0, 0, 0, 0, 0, 0,
	0x3F, 0x00, 0x00, 0x00, /* B8-11 zero_based_entry_count 63 */
	0xC0, 0xFF, 0x01, 0x00, /* B12-15 start_index 0x1FFC0 */
	0x00, 0x6E, 0x45, 0x23, 0x01, 0x00, 0x00, 0x00, /* B16-23 dma_addr 0x123456E00 */
	0, 0, 0, 0,
	0x07, 0x01, 0x01, 0x80,
};

static const uint8_t img_manage_qp[32] = {
	0x0A, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, /* B0-5 peer_mac aa:bb:cc:dd:ee:0a */
	0x34, 0x12,			    /* B6-7 local_udp_port 0x1234 */
	0x00, 0x00, 0xA0,		    /* B10 bits 5-7: pmtu 5 */
	0x20,				    /* B11 bits 4-7: qp_type 2 */
	0x07,				    /* B12 rq_access_flags */
	0xEF, 0xCD, 0xAB,		    /* B13-15 peer_qpn 0xABCDEF */
	0, 0, 0, 0,			    /* B16-19 reserved */
	0x21, 0xFF, 0x03,		    /* B20-22 qpn 0x03FF21 */
	0xC0,				    /* B23 is_valid, is_error */
	0x0B, 0x33, 0x22, 0x11,		    /* B24-27 peer_ip 17.34.51.11 */
	0x5A, 0x01, 0x02, 0x80,
};

static const uint8_t img_set_net[32] = {
	0x00, 0x00,			    /* B0-1 reserved */
	0xEF, 0xCD, 0xAB, 0x00, 0x00, 0x02, /* B2-7 local_mac 02:00:00:ab:cd:ef */
	0, 0, 0, 0,			    /* B8-11 reserved */
	0x0A, 0x33, 0x22, 0x11,		    /* B12-15 local ip 17.34.51.10 */
	0x00, 0xFF, 0xFF, 0xFF,		    /* B16-19 netmask /24 */
	0x01, 0x33, 0x22, 0x11,		    /* B20-23 gateway 17.34.51.1 */
	0, 0, 0, 0,
	0x11, 0x01, 0x03, 0x80,
};

static const uint8_t img_set_raw[32] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x00, 0xAD, 0xDE, 0x00, 0x7F, 0x00, 0x00, /* B16-23 write_base_addr */
	0, 0, 0, 0,
	0x22, 0x01, 0x04, 0x80,
};

Test(blue_desc, update_mr_table_golden)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 },
			      .user_data = 0xC3, .is_success = 1 };
	uint8_t d[32];

	c.mr = (struct blue_cmd_update_mr_table){ .mr_base_va = 0x00007F1234567890ull,
						  .mr_length = 0x7FEDCBA9, .mr_key = 0x001FFE5A,
						  .pd_handle = 0x44332211, .acc_flags = 0x0B,
						  .pgt_offset = 0x1ABCD };
	cr_assert_eq(blue_cmd_encode(&c, d), 0);
	assert_image(d, img_update_mr, 32, "UpdateMrTable");

	struct blue_cmd o;
	cr_assert_eq(blue_cmd_decode(img_update_mr, &o), 0);
	cr_assert_eq(o.hdr.opcode, BLUE_CMD_UPDATE_MR_TABLE);
	cr_assert_eq(o.hdr.valid, 1);
	cr_assert_eq(o.hdr.has_next, 0);
	cr_assert_eq(o.user_data, 0xC3);
	cr_assert_eq(o.is_success, 1);
	cr_assert_eq(o.mr.mr_base_va, 0x00007F1234567890ull);
	cr_assert_eq(o.mr.mr_length, 0x7FEDCBA9);
	cr_assert_eq(o.mr.mr_key, 0x001FFE5A);
	cr_assert_eq(o.mr.pd_handle, 0x44332211);
	cr_assert_eq(o.mr.acc_flags, 0x0B);
	cr_assert_eq(o.mr.pgt_offset, 0x1ABCD);
}

Test(blue_desc, update_pgt_golden)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_PGT, .valid = 1 },
			      .user_data = 0x07, .is_success = 1 };
	struct blue_cmd o;
	uint8_t d[32];

	c.pgt = (struct blue_cmd_update_pgt){ .dma_addr = 0x123456E00ull, .start_index = 0x1FFC0,
					      .zero_based_entry_count = 63 };
	cr_assert_eq(blue_cmd_encode(&c, d), 0);
	assert_image(d, img_update_pgt, 32, "UpdatePGT");
	cr_assert_eq(blue_cmd_decode(img_update_pgt, &o), 0);
	cr_assert_eq(o.pgt.dma_addr, 0x123456E00ull);
	cr_assert_eq(o.pgt.start_index, 0x1FFC0);
	cr_assert_eq(o.pgt.zero_based_entry_count, 63);
	cr_assert_eq(o.user_data, 0x07);
}

Test(blue_desc, manage_qp_golden)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 },
			      .user_data = 0x5A, .is_success = 1 };
	struct blue_cmd o;
	uint8_t d[32];

	c.qp = (struct blue_cmd_manage_qp){ .peer_ip = 0x1122330B, .is_valid = 1, .is_error = 1,
					    .qpn = 0x03FF21, .peer_qpn = 0xABCDEF,
					    .rq_access_flags = 0x07, .qp_type = 2, .pmtu = 5,
					    .local_udp_port = 0x1234,
					    .peer_mac = 0xAABBCCDDEE0Aull };
	cr_assert_eq(blue_cmd_encode(&c, d), 0);
	assert_image(d, img_manage_qp, 32, "ManageQp");
	cr_assert_eq(blue_cmd_decode(img_manage_qp, &o), 0);
	cr_assert_eq(o.qp.peer_ip, 0x1122330B);
	cr_assert_eq(o.qp.is_valid, 1);
	cr_assert_eq(o.qp.is_error, 1);
	cr_assert_eq(o.qp.qpn, 0x03FF21);
	cr_assert_eq(o.qp.peer_qpn, 0xABCDEF);
	cr_assert_eq(o.qp.rq_access_flags, 7);
	cr_assert_eq(o.qp.qp_type, 2);
	cr_assert_eq(o.qp.pmtu, 5);
	cr_assert_eq(o.qp.local_udp_port, 0x1234);
	cr_assert_eq(o.qp.peer_mac, 0xAABBCCDDEE0Aull);
}

Test(blue_desc, set_network_param_golden)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_SET_NETWORK_PARAM, .valid = 1 },
			      .user_data = 0x11, .is_success = 1 };
	struct blue_cmd o;
	uint8_t d[32];

	c.net = (struct blue_cmd_set_network_param){ .gateway = 0x11223301,
						     .netmask = 0xFFFFFF00,
						     .local_ip = 0x1122330A,
						     .local_mac = 0x020000ABCDEFull };
	cr_assert_eq(blue_cmd_encode(&c, d), 0);
	assert_image(d, img_set_net, 32, "SetNetworkParam");
	cr_assert_eq(blue_cmd_decode(img_set_net, &o), 0);
	cr_assert_eq(o.net.gateway, 0x11223301);
	cr_assert_eq(o.net.netmask, 0xFFFFFF00);
	cr_assert_eq(o.net.local_ip, 0x1122330A);
	cr_assert_eq(o.net.local_mac, 0x020000ABCDEFull);
}

Test(blue_desc, set_raw_packet_receive_meta_golden)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_SET_RAW_PACKET_RECEIVE_META,
				       .valid = 1 },
			      .user_data = 0x22, .is_success = 1 };
	struct blue_cmd o;
	uint8_t d[32];

	c.raw.write_base_addr = 0x00007F00DEAD0000ull;
	cr_assert_eq(blue_cmd_encode(&c, d), 0);
	assert_image(d, img_set_raw, 32, "SetRawPacketReceiveMeta");
	cr_assert_eq(blue_cmd_decode(img_set_raw, &o), 0);
	cr_assert_eq(o.raw.write_base_addr, 0x00007F00DEAD0000ull);
}

Test(blue_desc, cmd_decode_rejects)
{
	struct blue_cmd o;
	uint8_t d[32];

	memcpy(d, img_update_mr, 32);
	d[25] = 0x01; /* B24-27 reserved in UpdateMrTable */
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_RESERVED);

	memcpy(d, img_update_mr, 32);
	d[0] |= 0x01; /* [6:0] reserved */
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_RESERVED);

	memcpy(d, img_update_mr, 32);
	d[29] |= 0x02; /* [239:233] reserved */
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_RESERVED);

	memcpy(d, img_update_mr, 32);
	d[31] |= 0x04; /* header [253:249] reserved */
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_RESERVED);

	memcpy(d, img_manage_qp, 32);
	d[16] = 0xFF; /* B16-19 reserved in ManageQp */
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_RESERVED);

	memcpy(d, img_update_mr, 32);
	d[30] = 0x06;
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_OPCODE);
	d[30] = 0xFF;
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_OPCODE);
	d[30] = BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT;
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_UNSUPPORTED);

	memcpy(d, img_update_mr, 32);
	d[31] |= 0x40; /* has_next on a command */
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_HAS_NEXT);

	memcpy(d, img_update_mr, 32);
	d[31] |= 0x01; /* is_extended_opcode */
	cr_assert_eq(blue_cmd_decode(d, &o), BLUE_DESC_E_EXTENDED);

	cr_assert_eq(blue_cmd_decode(NULL, &o), BLUE_DESC_E_ARG);
	cr_assert_eq(blue_cmd_decode(d, NULL), BLUE_DESC_E_ARG);
}

Test(blue_desc, cmd_encode_rejects_out_of_range)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE } };
	uint8_t d[32];

	c.mr.pgt_offset = 1u << 17; /* 17-bit field */
	cr_assert_eq(blue_cmd_encode(&c, d), BLUE_DESC_E_RANGE);
	c.mr.pgt_offset = 0;
	c.hdr.opcode = BLUE_CMD_MANAGE_QP;
	c.qp.pmtu = 8; /* 3-bit field */
	cr_assert_eq(blue_cmd_encode(&c, d), BLUE_DESC_E_RANGE);
	c.qp.pmtu = 5;
	c.qp.peer_mac = 1ull << 48;
	cr_assert_eq(blue_cmd_encode(&c, d), BLUE_DESC_E_RANGE);
	c.qp.peer_mac = 0;
	c.hdr.opcode = 0x09;
	cr_assert_eq(blue_cmd_encode(&c, d), BLUE_DESC_E_OPCODE);
	c.hdr.opcode = BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT;
	cr_assert_eq(blue_cmd_encode(&c, d), BLUE_DESC_E_UNSUPPORTED);
	c.hdr.opcode = BLUE_CMD_MANAGE_QP;
	c.hdr.has_next = 1;
	cr_assert_eq(blue_cmd_encode(&c, d), BLUE_DESC_E_HAS_NEXT);
}

/* -------------------------------------------------------------- send item */

static const uint8_t img_seg0[32] = {
	0x30,			/* B0 bits 3-7: flags SIGNALED|SOLICITED */
	0x0C, 0x0B, 0x0A,	/* B1-3 dqpn 0x0A0B0C */
	0x20,			/* B4 bits 4-7: qp_type 2 */
	0xBA, 0xDC, 0xFE,	/* B5-7 psn 0xFEDCBA */
	0x79, 0x56, 0x34, 0x12, 0xAB, 0x7F, 0x00, 0x00, /* B8-15 raddr */
	0x0B, 0x33, 0x22, 0x11, /* B16-19 dqp_ip */
	0x67, 0x45, 0x23, 0x00, /* B20-23 rkey 0x234567 */
	0x01, 0x00, 0x10, 0x00, /* B24-27 total_len 0x100001 */
	0xEF, 0xBE,		/* B28-29 msn 0xBEEF */
	0x01,			/* B30 RDMA_WRITE_WITH_IMM */
	0xC0,			/* B31 valid, has_next */
};

static const uint8_t img_seg1[32] = {
	0x44, 0x33, 0x22, 0x11, 0x00, 0x7F, 0x00, 0x00, /* B0-7 laddr */
	0x00, 0x00, 0x01, 0x00, /* B8-11 len 0x10000 */
	0x89, 0x67, 0x45, 0x00, /* B12-15 lkey 0x456789 */
	0xA5, 0x03,		/* B16-17 sqpn bits 23:8 = 0x03A5 */
	0x0B, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA, /* B18-23 dst mac */
	0x0D, 0xF0, 0xFE, 0xCA, /* B24-27 imm 0xCAFEF00D */
	0xC7,			/* B28 sqpn bits 7:0 */
	0x76,			/* B29 pmtu 3, is_first, is_retry, enable_ecn */
	0x01,			/* B30 opcode */
	0x80,			/* B31 valid */
};

static struct blue_send_item
golden_item(void)
{
	return (struct blue_send_item){
		.opcode = BLUE_WR_RDMA_WRITE_WITH_IMM, .valid = 1, .msn = 0xBEEF,
		.total_len = 0x100001, .rkey = 0x234567, .dqp_ip = 0x1122330B,
		.raddr = 0x00007FAB12345679ull, .psn = 0xFEDCBA, .qp_type = 2, .dqpn = 0x0A0B0C,
		.flags = BLUE_SEND_SIGNALED | BLUE_SEND_SOLICITED, .pmtu = 3, .is_first = 1,
		.is_last = 0, .is_retry = 1, .enable_ecn = 1, .sqpn = 0x03A5C7,
		.imm = 0xCAFEF00D, .dst_mac = 0xAABBCCDDEE0Bull, .lkey = 0x456789,
		.len = 0x10000, .laddr = 0x00007F0011223344ull,
	};
}

Test(blue_desc, send_item_golden)
{
	struct blue_send_item it = golden_item(), o;
	uint8_t d[64];

	cr_assert_eq(blue_send_item_encode(&it, d), 0);
	assert_image(d, img_seg0, 32, "Seg0");
	assert_image(d + 32, img_seg1, 32, "Seg1");

	cr_assert_eq(blue_send_item_decode(img_seg0, img_seg1, &o), 0);
	assert_item_eq(&o, &it);
}

Test(blue_desc, send_item_is_last_bit)
{
	struct blue_send_item it = golden_item(), o;
	uint8_t d[64];

	it.is_first = 0;
	it.is_last = 1;
	cr_assert_eq(blue_send_item_encode(&it, d), 0);
	cr_assert_eq(d[32 + 29], 0x6E, "B29: pmtu 3 | is_last | is_retry | ecn");
	cr_assert_eq(blue_send_item_decode(d, d + 32, &o), 0);
	cr_assert_eq(o.is_last, 1);
	cr_assert_eq(o.is_first, 0);
}

Test(blue_desc, send_item_rejects)
{
	struct blue_send_item it = golden_item(), o;
	uint8_t d[64], s0[32], s1[32];

	memcpy(s0, img_seg0, 32);
	memcpy(s1, img_seg1, 32);
	s1[30] = BLUE_WR_SEND;
	cr_assert_eq(blue_send_item_decode(s0, s1, &o), BLUE_DESC_E_PAIR);

	memcpy(s1, img_seg1, 32);
	s1[31] |= 0x40;
	cr_assert_eq(blue_send_item_decode(s0, s1, &o), BLUE_DESC_E_HAS_NEXT);
	cr_assert_eq(blue_send_item_decode(img_seg1, img_seg1, &o), BLUE_DESC_E_HAS_NEXT,
		     "Seg1 (has_next=0) in Seg0's place");
	cr_assert_eq(blue_send_item_decode(img_seg0, NULL, &o), BLUE_DESC_E_NEED_NEXT);

	memcpy(s1, img_seg1, 32);
	s0[30] = s1[30] = BLUE_WR_ATOMIC_CMP_AND_SWP;
	cr_assert_eq(blue_send_item_decode(s0, s1, &o), BLUE_DESC_E_UNSUPPORTED);
	s0[30] = s1[30] = 0x20;
	cr_assert_eq(blue_send_item_decode(s0, s1, &o), BLUE_DESC_E_OPCODE);

	memcpy(s0, img_seg0, 32);
	memcpy(s1, img_seg1, 32);
	s0[0] |= 0x04; /* [2:0] reserved in Seg0 */
	cr_assert_eq(blue_send_item_decode(s0, s1, &o), BLUE_DESC_E_RESERVED);
	memcpy(s0, img_seg0, 32);
	s1[29] |= 0x01; /* [232] reserved in Seg1 */
	cr_assert_eq(blue_send_item_decode(s0, s1, &o), BLUE_DESC_E_RESERVED);

	memcpy(s1, img_seg1, 32);
	s1[29] = (uint8_t)((s1[29] & 0x1F) | (7 << 5)); /* pmtu 7 */
	cr_assert_eq(blue_send_item_decode(s0, s1, &o), BLUE_DESC_E_RANGE);

	it.len = it.total_len + 1;
	cr_assert_eq(blue_send_item_encode(&it, d), 0);
	cr_assert_eq(blue_send_item_decode(d, d + 32, &o), BLUE_DESC_E_RANGE, "item > WR");
	it = golden_item();
	it.is_last = 1; /* first and last but shorter than the WR */
	cr_assert_eq(blue_send_item_encode(&it, d), 0);
	cr_assert_eq(blue_send_item_decode(d, d + 32, &o), BLUE_DESC_E_COMBINATION);

	it = golden_item();
	it.psn = 1u << 24;
	cr_assert_eq(blue_send_item_encode(&it, d), BLUE_DESC_E_RANGE);
	it = golden_item();
	it.sqpn = 1u << 24;
	cr_assert_eq(blue_send_item_encode(&it, d), BLUE_DESC_E_RANGE);
	it = golden_item();
	it.flags = 0x20;
	cr_assert_eq(blue_send_item_encode(&it, d), BLUE_DESC_E_RANGE);
}

/* ----------------------------------------------------------- meta reports */

static const uint8_t img_meta_basic[32] = {
	0x78, 0x56, 0x34, 0x12, /* B0-3 imm_data */
	0x01, 0xCD, 0xAB, 0x00, /* B4-7 rkey 0xABCD01 */
	0x05, 0x04, 0x03, 0x02, 0x01, 0x7F, 0x00, 0x00, /* B8-15 raddr */
	0xFF, 0x0F, 0x00, 0x00, /* B16-19 total_len 4095 */
	0x00,			/* B20 reserved */
	0xB2, 0xA1, 0x00,	/* B21-23 dqpn 0xA1B2 */
	0x70,			/* B24 solicited, ack_req, is_retry */
	0x21, 0x43, 0x65,	/* B25-27 psn 0x654321 */
	0x57, 0x13,		/* B28-29 msn 0x1357 */
	0x09,			/* B30 RC RDMA_WRITE_LAST_WITH_IMMEDIATE */
	0x80,
};

Test(blue_desc, meta_header_write_golden)
{
	struct blue_meta_report r = { .kind = BLUE_META_HEADER_WRITE,
				      .opcode = BLUE_OP_WRITE_LAST_WITH_IMM }, o;
	uint8_t d[32];

	r.basic = (struct blue_meta_basic){ .msn = 0x1357, .psn = 0x654321, .solicited = 1,
					    .ack_req = 1, .is_retry = 1, .dqpn = 0xA1B2,
					    .total_len = 4095, .raddr = 0x00007F0102030405ull,
					    .rkey = 0xABCD01, .imm_data = 0x12345678 };
	cr_assert_eq(blue_meta_encode(&r, d, NULL), 1);
	assert_image(d, img_meta_basic, 32, "PacketBasicInfo");
	cr_assert_eq(blue_meta_decode(img_meta_basic, NULL, &o), 1);
	cr_assert_eq(o.kind, BLUE_META_HEADER_WRITE);
	cr_assert_eq(o.ndesc, 1);
	cr_assert_eq(o.opcode, BLUE_OP_WRITE_LAST_WITH_IMM);
	assert_basic_eq(&o.basic, &r.basic);
}

Test(blue_desc, meta_cnp)
{
	struct blue_meta_report o;
	uint8_t d[32];

	memcpy(d, img_meta_basic, 32);
	d[24] |= 0x80; /* ecn_marked */
	cr_assert_eq(blue_meta_decode(d, NULL, &o), 1);
	cr_assert_eq(o.kind, BLUE_META_CNP);
	cr_assert_eq(o.basic.ecn_marked, 1);
}

static const uint8_t img_read_basic[32] = {
	0, 0, 0, 0,			/* B0-3 imm (none) */
	0x33, 0x22, 0x11, 0x00,		/* B4-7 rkey 0x112233 */
	0x00, 0x00, 0x00, 0x10, 0, 0, 0, 0, /* B8-15 raddr 0x10000000 */
	0x00, 0x00, 0x20, 0x00,		/* B16-19 total_len 2 MiB */
	0x00,
	0x01, 0x03, 0x00,		/* B21-23 dqpn 0x301 */
	0x20,				/* B24 ack_req */
	0x10, 0x00, 0x00,		/* B25-27 psn 0x10 */
	0x02, 0x00,			/* B28-29 msn 2 */
	0x0C, 0xC0,			/* READ_REQUEST, valid, has_next */
};

static const uint8_t img_read_ext[32] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x66, 0x55, 0x44, 0x00,		/* B12-15 lkey 0x445566 */
	0x00, 0x10, 0x00, 0x00, 0x00, 0x7F, 0x00, 0x00, /* B16-23 laddr */
	0x00, 0x00, 0x20, 0x00,		/* B24-27 total_len */
	0, 0,
	0x0C, 0x80,
};

Test(blue_desc, meta_header_read_golden)
{
	struct blue_meta_report r = { .kind = BLUE_META_HEADER_READ,
				      .opcode = BLUE_OP_READ_REQUEST }, o;
	uint8_t d0[32], d1[32];

	r.basic = (struct blue_meta_basic){ .msn = 2, .psn = 0x10, .ack_req = 1, .dqpn = 0x301,
					    .total_len = 0x200000, .raddr = 0x10000000,
					    .rkey = 0x112233 };
	r.read_ext = (struct blue_meta_read_ext){ .total_len = 0x200000,
						  .laddr = 0x00007F0000001000ull,
						  .lkey = 0x445566 };
	cr_assert_eq(blue_meta_encode(&r, d0, d1), 2);
	assert_image(d0, img_read_basic, 32, "PacketBasicInfo (READ)");
	assert_image(d1, img_read_ext, 32, "ReadReqExtendInfo");
	cr_assert_eq(blue_meta_decode(img_read_basic, img_read_ext, &o), 2);
	cr_assert_eq(o.kind, BLUE_META_HEADER_READ);
	assert_basic_eq(&o.basic, &r.basic);
	cr_assert_eq(o.read_ext.total_len, r.read_ext.total_len);
	cr_assert_eq(o.read_ext.laddr, r.read_ext.laddr);
	cr_assert_eq(o.read_ext.lkey, r.read_ext.lkey);
}

static const uint8_t img_ack[32] = {
	0xEF, 0xCD, 0xAB, 0x89, 0x67, 0x45, 0x23, 0x01, /* B0-7 now_bitmap bits 63:0 */
	0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE, /* B8-15 bits 127:64 */
	0x42, 0x00,		/* B16-17 msn */
	0xF3, 0x01, 0x00,	/* B18-20 qpn 0x1F3 */
	0x80, 0x00, 0x00,	/* B21-23 psn_now 0x80 */
	0x00,			/* B24 reserved */
	0x70, 0x00, 0x00,	/* B25-27 psn_before_slide 0x70 */
	0x00,			/* B28 reserved */
	0x03,			/* B29 slided, lost */
	0x11, 0xC0,
};

static const uint8_t img_ack_extra[32] = {
	0x22, 0x22, 0x22, 0x22, 0x11, 0x11, 0x11, 0x11, /* pre_bitmap lo */
	0x44, 0x44, 0x44, 0x44, 0x33, 0x33, 0x33, 0x33, /* pre_bitmap hi */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x11, 0x80,
};

Test(blue_desc, meta_nak_remote_hw_golden)
{
	struct blue_meta_report r = { .kind = BLUE_META_NAK_REMOTE_HW,
				      .opcode = BLUE_OP_ACKNOWLEDGE }, o;
	uint8_t d0[32], d1[32];

	r.ack = (struct blue_meta_ack){
		.is_packet_lost = 1, .psn_before_slide = 0x70, .psn_now = 0x80, .qpn = 0x1F3,
		.msn = 0x42, .now_bitmap = { 0x0123456789ABCDEFull, 0xFEDCBA9876543210ull },
		.pre_bitmap = { 0x1111111122222222ull, 0x3333333344444444ull } };
	cr_assert_eq(blue_meta_encode(&r, d0, d1), 2);
	assert_image(d0, img_ack, 32, "Ack");
	assert_image(d1, img_ack_extra, 32, "AckExtra");
	cr_assert_eq(blue_meta_decode(img_ack, img_ack_extra, &o), 2);
	cr_assert_eq(o.kind, BLUE_META_NAK_REMOTE_HW);
	cr_assert_eq(o.ack.is_window_slided, 1);
	cr_assert_eq(o.ack.is_packet_lost, 1);
	cr_assert_eq(o.ack.psn_before_slide, 0x70);
	cr_assert_eq(o.ack.psn_now, 0x80);
	cr_assert_eq(o.ack.qpn, 0x1F3);
	cr_assert_eq(o.ack.msn, 0x42);
	cr_assert_eq(o.ack.now_bitmap.lo, 0x0123456789ABCDEFull);
	cr_assert_eq(o.ack.now_bitmap.hi, 0xFEDCBA9876543210ull);
	cr_assert_eq(o.ack.pre_bitmap.lo, 0x1111111122222222ull);
	cr_assert_eq(o.ack.pre_bitmap.hi, 0x3333333344444444ull);
}

/* Section 3.3 classification table, every row. */
Test(blue_desc, meta_ack_classification)
{
	static const struct {
		uint8_t b29;
		uint8_t pair;
		int kind; /* -1: rejected */
	} rows[] = {
		{ 0x04, 0, BLUE_META_ACK_REMOTE_DRIVER },
		{ 0x08, 0, BLUE_META_ACK_LOCAL_HW },
		{ 0x07, 1, BLUE_META_NAK_REMOTE_DRIVER },
		{ 0x0B, 1, BLUE_META_NAK_LOCAL_HW },
		{ 0x03, 1, BLUE_META_NAK_REMOTE_HW },
		{ 0x00, 0, -1 }, /* alone, neither driver nor local hw */
		{ 0x0C, 0, -1 }, /* both flags */
		{ 0x0E, 1, -1 }, /* both flags, pair */
		{ 0x02, 0, -1 }, /* slided but no AckExtra */
		{ 0x04, 1, -1 }, /* AckExtra without slide */
	};
	struct blue_meta_report o;
	uint8_t d0[32];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int rc;

		memcpy(d0, img_ack, 32);
		d0[29] = rows[i].b29;
		d0[31] = rows[i].pair ? 0xC0 : 0x80;
		rc = blue_meta_decode(d0, img_ack_extra, &o);
		if (rows[i].kind < 0) {
			cr_assert_eq(rc, BLUE_DESC_E_COMBINATION, "row %zu: got %d", i, rc);
		} else {
			cr_assert_eq(rc, rows[i].pair ? 2 : 1, "row %zu: rc %d", i, rc);
			cr_assert_eq(o.kind, (enum blue_meta_kind)rows[i].kind, "row %zu", i);
		}
	}
}

Test(blue_desc, meta_rejects)
{
	struct blue_meta_report o;
	uint8_t d[32], e[32];

	memcpy(d, img_meta_basic, 32);
	d[20] = 1; /* B20 reserved */
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_RESERVED);
	memcpy(d, img_meta_basic, 32);
	d[24] |= 0x01; /* [195:192] reserved */
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_RESERVED);

	memcpy(d, img_meta_basic, 32);
	d[30] = 0x12; /* RC opcode beyond ACKNOWLEDGE */
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_OPCODE);
	d[30] = 0x80; /* CNP transport: the card never reports it */
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_OPCODE);
	d[30] = 0x29; /* trans 1 (UC) */
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_OPCODE);

	memcpy(d, img_meta_basic, 32);
	d[31] = 0xC0; /* WRITE report with has_next */
	memcpy(e, img_meta_basic, 32);
	cr_assert_eq(blue_meta_decode(d, e, &o), BLUE_DESC_E_HAS_NEXT);
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_NEED_NEXT);

	memcpy(d, img_read_basic, 32);
	d[31] = 0x80; /* READ request without its extend info */
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_COMBINATION);

	memcpy(e, img_read_ext, 32);
	e[30] = 0x0D; /* second descriptor of another opcode */
	cr_assert_eq(blue_meta_decode(img_read_basic, e, &o), BLUE_DESC_E_PAIR);
	memcpy(e, img_read_ext, 32);
	e[0] = 1; /* reserved in ReadReqExtendInfo */
	cr_assert_eq(blue_meta_decode(img_read_basic, e, &o), BLUE_DESC_E_RESERVED);
	memcpy(e, img_read_ext, 32);
	e[31] |= 0x40;
	cr_assert_eq(blue_meta_decode(img_read_basic, e, &o), BLUE_DESC_E_HAS_NEXT);

	memcpy(e, img_ack_extra, 32);
	e[20] = 1; /* reserved in AckExtra */
	cr_assert_eq(blue_meta_decode(img_ack, e, &o), BLUE_DESC_E_RESERVED);
	memcpy(d, img_ack, 32);
	d[24] = 1; /* B24 reserved in Ack */
	cr_assert_eq(blue_meta_decode(d, img_ack_extra, &o), BLUE_DESC_E_RESERVED);
	memcpy(d, img_ack, 32);
	d[29] |= 0x10; /* B29 bits 4-7 reserved */
	cr_assert_eq(blue_meta_decode(d, img_ack_extra, &o), BLUE_DESC_E_RESERVED);

	memcpy(d, img_meta_basic, 32);
	d[31] |= 0x01;
	cr_assert_eq(blue_meta_decode(d, NULL, &o), BLUE_DESC_E_EXTENDED);
}

Test(blue_desc, meta_encode_rejects)
{
	struct blue_meta_report r = { .kind = BLUE_META_HEADER_WRITE,
				      .opcode = BLUE_OP_ACKNOWLEDGE };
	uint8_t d0[32], d1[32];

	cr_assert_eq(blue_meta_encode(&r, d0, d1), BLUE_DESC_E_COMBINATION);
	r.kind = BLUE_META_HEADER_READ;
	r.opcode = BLUE_OP_READ_REQUEST;
	cr_assert_eq(blue_meta_encode(&r, d0, NULL), BLUE_DESC_E_NEED_NEXT);
	r.kind = BLUE_META_ACK_LOCAL_HW;
	cr_assert_eq(blue_meta_encode(&r, d0, d1), BLUE_DESC_E_COMBINATION);
	r.opcode = BLUE_OP_ACKNOWLEDGE;
	r.ack.psn_now = 1u << 24;
	cr_assert_eq(blue_meta_encode(&r, d0, d1), BLUE_DESC_E_RANGE);
}

/* ------------------------------------------------------------- simple NIC */

static const uint8_t img_snic_tx[32] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x40, 0x65, 0x87, 0x00, 0x00, 0x00, 0x00, /* B16-23 addr 0x87654000 */
	0x5A, 0x00, 0x00, 0x00,				/* B24-27 len 90 */
	0, 0, 0x00, 0x80,
};

static const uint8_t img_snic_rx[32] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0xFF, 0x03, 0x00, 0x00, /* B20-23 slot 1023 */
	0xEA, 0x05, 0x00, 0x00, /* B24-27 len 1514 */
	0, 0, 0x00, 0x81,	/* valid, is_extended_opcode */
};

Test(blue_desc, simple_nic_golden)
{
	struct blue_simple_nic_tx tx = { .len = 90, .addr = 0x87654000 }, otx;
	struct blue_simple_nic_rx rx = { .len = 1514, .slot_idx = 1023 }, orx;
	uint8_t d[32];

	cr_assert_eq(blue_simple_nic_tx_encode(&tx, d), 0);
	assert_image(d, img_snic_tx, 32, "SimpleNicTx");
	cr_assert_eq(blue_simple_nic_tx_decode(img_snic_tx, &otx), 0);
	cr_assert_eq(otx.len, 90);
	cr_assert_eq(otx.addr, 0x87654000);

	cr_assert_eq(blue_simple_nic_rx_encode(&rx, d), 0);
	assert_image(d, img_snic_rx, 32, "SimpleNicRx");
	cr_assert_eq(blue_simple_nic_rx_decode(img_snic_rx, &orx), 0);
	cr_assert_eq(orx.len, 1514);
	cr_assert_eq(orx.slot_idx, 1023);
}

Test(blue_desc, simple_nic_rejects)
{
	struct blue_simple_nic_tx otx;
	struct blue_simple_nic_rx orx, rx = { .len = 100, .slot_idx = 1024 };
	uint8_t d[32];

	memcpy(d, img_snic_rx, 32);
	d[31] = 0x80; /* RX descriptor without is_extended_opcode */
	cr_assert_eq(blue_simple_nic_rx_decode(d, &orx), BLUE_DESC_E_EXTENDED);
	memcpy(d, img_snic_rx, 32);
	d[21] = 0x04; /* slot 1024 */
	cr_assert_eq(blue_simple_nic_rx_decode(d, &orx), BLUE_DESC_E_RANGE);
	memcpy(d, img_snic_rx, 32);
	d[25] = 0x08; /* len 2282 > 2048 */
	cr_assert_eq(blue_simple_nic_rx_decode(d, &orx), BLUE_DESC_E_RANGE);
	memcpy(d, img_snic_rx, 32);
	d[0] = 1;
	cr_assert_eq(blue_simple_nic_rx_decode(d, &orx), BLUE_DESC_E_RESERVED);
	memcpy(d, img_snic_rx, 32);
	d[30] = 1;
	cr_assert_eq(blue_simple_nic_rx_decode(d, &orx), BLUE_DESC_E_OPCODE);
	cr_assert_eq(blue_simple_nic_rx_encode(&rx, d), BLUE_DESC_E_RANGE);

	memcpy(d, img_snic_tx, 32);
	d[24] = 0; /* len 0 */
	cr_assert_eq(blue_simple_nic_tx_decode(d, &otx), BLUE_DESC_E_RANGE);
	memcpy(d, img_snic_tx, 32);
	d[31] = 0x81;
	cr_assert_eq(blue_simple_nic_tx_decode(d, &otx), BLUE_DESC_E_EXTENDED);
	memcpy(d, img_snic_tx, 32);
	d[31] = 0xC0;
	cr_assert_eq(blue_simple_nic_tx_decode(d, &otx), BLUE_DESC_E_HAS_NEXT);
	memcpy(d, img_snic_tx, 32);
	d[8] = 0xFF;
	cr_assert_eq(blue_simple_nic_tx_decode(d, &otx), BLUE_DESC_E_RESERVED);
}

/* ------------------------------------------------------------ the tables */

/* No two fields of a layout overlap, and the mask is exactly their union. */
static unsigned int
append_fields(struct blue_field *all, unsigned int na, enum blue_layout l)
{
	unsigned int n;
	const struct blue_field *f = blue_layout_fields(l, &n);

	for (unsigned int i = 0; i < n; i++)
		all[na++] = f[i];
	return na;
}

Test(blue_desc, layouts_do_not_overlap)
{
	for (int l = 0; l < BLUE_LAYOUT_COUNT; l++) {
		struct blue_desc_words seen = { { 0 } }, mask;
		struct blue_field all[64];
		unsigned int na = 0, bits = 0, mbits = 0;

		if (l != BLUE_LAYOUT_HDR)
			na = append_fields(all, na, BLUE_LAYOUT_HDR);
		if (l >= BLUE_LAYOUT_CMD_MR && l <= BLUE_LAYOUT_CMD_RAW)
			na = append_fields(all, na, BLUE_LAYOUT_CMD_HDR);
		na = append_fields(all, na, (enum blue_layout)l);

		for (unsigned int i = 0; i < na; i++) {
			for (unsigned int b = all[i].lo; b <= all[i].hi; b++) {
				cr_assert_eq((seen.w[b / 64] >> (b % 64)) & 1, 0,
					     "layout %d: field %s overlaps at bit %u", l,
					     all[i].name, b);
				seen.w[b / 64] |= 1ull << (b % 64);
			}
			bits += all[i].hi - all[i].lo + 1u;
		}
		blue_layout_mask((enum blue_layout)l, &mask);
		for (int k = 0; k < 4; k++) {
			cr_assert_eq(mask.w[k], seen.w[k], "layout %d: mask word %d", l, k);
			mbits += (unsigned int)__builtin_popcountll(mask.w[k]);
		}
		cr_assert_eq(mbits, bits, "layout %d", l);
	}
}

Test(blue_desc, bit_accessors_cross_words)
{
	struct blue_desc_words w = { { 0 } };

	blue_bits_set(&w, 60, 10, 0x3FF);
	cr_assert_eq(w.w[0], 0xF000000000000000ull);
	cr_assert_eq(w.w[1], 0x3Full);
	cr_assert_eq(blue_bits_get(&w, 60, 10), 0x3FF);
	blue_bits_set(&w, 128, 64, ~0ull);
	cr_assert_eq(w.w[2], ~0ull);
	cr_assert_eq(blue_bits_get(&w, 127, 2), 0x2);
}

Test(blue_desc, names)
{
	cr_assert_str_eq(blue_desc_strerror(BLUE_DESC_E_RESERVED), "reserved bits set");
	cr_assert_str_eq(blue_desc_strerror(1), "unknown error");
	cr_assert_str_eq(blue_desc_strerror(-100), "unknown error");
	for (int e = 0; e > -BLUE_DESC_E_COUNT; e--)
		cr_assert_not_null(blue_desc_strerror(e));
	cr_assert_str_eq(blue_meta_kind_name(BLUE_META_NAK_REMOTE_HW), "NakRemoteHw");
	cr_assert_str_eq(blue_cmd_opcode_name(BLUE_CMD_MANAGE_QP), "ManageQp");
	cr_assert_str_eq(blue_pkt_opcode_name(BLUE_OP_READ_REQUEST), "RDMA_READ_REQUEST");
	cr_assert_str_eq(blue_pkt_opcode_name(0x1F), "?");
	cr_assert_str_eq(blue_wr_opcode_name(BLUE_WR_RDMA_READ_RESP), "RDMA_READ_RESP");
}

/*
 * The open-rdma reference driver's SetNetworkParam, from its source
 * (rust-driver/src/ring/descriptors/cmd.rs CmdQueueReqDescSetNetworkParam and
 * cmd/configurator.rs set_network, commit 0db6daf): four little-endian 64-bit
 * chunks: mac_addr in bits 16-63 of chunk 0 (always CARD_MAC_ADDRESS
 * 0xAABBCCDDEE0A), ip_addr in bits 32-63 of chunk 1, netmask then gateway in
 * chunk 2 (the host's, gateway 0 when it has none), chunk 3: user_data 0,
 * op_code SetNetworkParam 0x03, valid. Here 10.0.0.7/24, no gateway.
 */
Test(blue_desc, reference_driver_set_network_param_golden)
{
	static const uint8_t d[32] = {
		0x00, 0x00, 0x0A, 0xEE, 0xDD, 0xCC, 0xBB, 0xAA,
		0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x0A,
		0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x80,
	};
	struct blue_cmd c;

	cr_assert_eq(blue_cmd_decode(d, &c), 0);
	cr_expect_eq(c.hdr.opcode, BLUE_CMD_SET_NETWORK_PARAM);
	cr_expect_eq(c.net.local_mac, 0xAABBCCDDEE0Aull);
	cr_expect_eq(c.net.local_ip, 0x0A000007);
	cr_expect_eq(c.net.netmask, 0xFFFFFF00);
	cr_expect_eq(c.net.gateway, 0);
}
