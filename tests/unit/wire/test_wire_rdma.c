/* SPDX-License-Identifier: BSD-3-Clause */
/* The card's RDMA frames: golden bytes, round trips per opcode class, every reject. */
#include <criterion/criterion.h>
#include <string.h>

#include "blue_wire.h"
#include "wire_test_util.h"

/*
 * RDMA_WRITE_ONLY_WITH_IMMEDIATE, 8 bytes at va ...1002 (2 filler bytes),
 * written out by hand from doc/guides/drivers/blue_hw_interface.md
 * section 6. IPv4 checksum computed
 * by hand: 4500+005C+0001+4011+1122+330A+1122+330B = 0x10DC7 -> 0x0DC8 -> ~ = 0xF237.
 */
static const uint8_t golden[106] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
	/* IPv4 */
	0x45, 0x00, 0x00, 0x5C, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11, 0xF2, 0x37,
	0x11, 0x22, 0x33, 0x0A, 0x11, 0x22, 0x33, 0x0B,
	/* UDP 0x0123 -> 4791, length 72, checksum 0 */
	0x01, 0x23, 0x12, 0xB7, 0x00, 0x48, 0x00, 0x00,
	/* BTH: opcode 0x0B, SE, MSN 5, dqpn 0x301, A, psn 0x10 */
	0x0B, 0x80, 0x00, 0x05, 0x00, 0x00, 0x03, 0x01, 0x80, 0x00, 0x00, 0x10,
	/* RETH: va, rkey, dlen */
	0x00, 0x00, 0x7F, 0x00, 0x00, 0x00, 0x10, 0x02, 0x00, 0x00, 0x12, 0x34,
	0x00, 0x00, 0x00, 0x08,
	/* ImmDt */
	0xDE, 0xAD, 0xBE, 0xEF,
	/* rest of the 42-byte area */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* filler (va & 3 = 2), payload */
	0x00, 0x00, 'p', 'a', 'y', 'l', 'o', 'a', 'd', '!',
};

static struct blue_wire_rdma
base_pkt(uint8_t op)
{
	struct blue_wire_rdma p = { 0 };

	p.l3 = (struct blue_wire_l3){ .dst_mac = 0x020000000002ull, .src_mac = 0x020000000001ull,
				      .src_ip = 0x1122330A, .dst_ip = 0x1122330B,
				      .src_port = 0x0123, .dst_port = BLUE_WIRE_ROCE_UDP_PORT,
				      .ip_id = BLUE_WIRE_CARD_IP_ID, .ttl = BLUE_WIRE_CARD_TTL };
	p.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = op, .solicited = 1,
					.msn = 5, .dqpn = 0x301, .ack_req = 1, .psn = 0x10 };
	return p;
}


Test(wire_rdma, golden_write_only_with_imm)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_WRITE_ONLY_WITH_IMM), o;
	uint8_t buf[256];
	int n;

	p.reth = (struct blue_wire_reth){ .va = 0x00007F0000001002ull, .rkey = 0x1234, .dlen = 8 };
	p.imm = 0xDEADBEEF;
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, "payload!", 8);
	cr_assert_eq(n, (int)sizeof(golden));
	for (int i = 0; i < n; i++)
		cr_assert_eq(buf[i], golden[i], "byte %d: 0x%02x, want 0x%02x", i, buf[i], golden[i]);

	cr_assert_eq(blue_wire_rdma_parse(golden, sizeof(golden), 0, &o), 0);
	cr_assert_eq(o.bth.opcode, BLUE_OP_WRITE_ONLY_WITH_IMM);
	cr_assert_eq(o.bth.msn, 5);
	cr_assert_eq(o.bth.dqpn, 0x301);
	cr_assert_eq(o.bth.psn, 0x10);
	cr_assert_eq(o.bth.solicited, 1);
	cr_assert_eq(o.bth.ack_req, 1);
	cr_assert_eq(o.bth.is_retry, 0);
	cr_assert_eq(o.reth.va, 0x00007F0000001002ull);
	cr_assert_eq(o.reth.rkey, 0x1234);
	cr_assert_eq(o.reth.dlen, 8);
	cr_assert_eq(o.imm, 0xDEADBEEF);
	cr_assert_eq(o.pad, 2);
	cr_assert_eq(o.payload_off, 98);
	cr_assert_eq(o.payload_len, 8);
	cr_assert_eq(memcmp(golden + o.payload_off, "payload!", 8), 0);
	cr_assert_eq(o.l3.src_ip, 0x1122330A);
	cr_assert_eq(o.l3.dst_ip, 0x1122330B);
	cr_assert_eq(o.l3.src_mac, 0x020000000001ull);
	cr_assert_eq(o.l3.dst_mac, 0x020000000002ull);
	cr_assert_eq(o.l3.src_port, 0x0123);
	cr_assert_eq(o.l3.ttl, 64);
	cr_assert_eq(o.l3.ip_id, 1);
	cr_assert_eq(blue_wire_classify(golden, sizeof(golden)), BLUE_WIRE_CLASS_RDMA);
}

#define EQ(a, b, f) cr_assert_eq((a).f, (b).f, "field " #f " (opcode 0x%x)", p->bth.opcode)

static void
roundtrip(const struct blue_wire_rdma *p, uint32_t plen)
{
	static uint8_t payload[BLUE_WIRE_MAX_PAYLOAD], buf[BLUE_WIRE_MAX_FRAME];
	struct blue_wire_rdma o;
	int n, rc;

	for (uint32_t i = 0; i < plen; i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	n = blue_wire_rdma_build(buf, sizeof(buf), p, payload, plen);
	cr_assert_gt(n, 0, "build opcode 0x%x: %s", p->bth.opcode, blue_wire_strerror(n));
	rc = blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o);
	cr_assert_eq(rc, 0, "parse opcode 0x%x: %s", p->bth.opcode, blue_wire_strerror(rc));
	EQ(o.l3, p->l3, dst_mac); EQ(o.l3, p->l3, src_mac); EQ(o.l3, p->l3, src_ip);
	EQ(o.l3, p->l3, dst_ip); EQ(o.l3, p->l3, src_port); EQ(o.l3, p->l3, dst_port);
	EQ(o.l3, p->l3, ip_id); EQ(o.l3, p->l3, ttl); EQ(o.l3, p->l3, dscp); EQ(o.l3, p->l3, ecn);
	EQ(o.l3, p->l3, df);
	EQ(o.bth, p->bth, trans); EQ(o.bth, p->bth, opcode); EQ(o.bth, p->bth, solicited);
	EQ(o.bth, p->bth, is_retry); EQ(o.bth, p->bth, msn); EQ(o.bth, p->bth, dqpn);
	EQ(o.bth, p->bth, ack_req); EQ(o.bth, p->bth, psn);
	EQ(o.reth, p->reth, va); EQ(o.reth, p->reth, rkey); EQ(o.reth, p->reth, dlen);
	EQ(o.rreth, p->rreth, va); EQ(o.rreth, p->rreth, lkey);
	EQ(o.aeth, p->aeth, pre_bitmap.lo); EQ(o.aeth, p->aeth, pre_bitmap.hi);
	EQ(o.aeth, p->aeth, now_bitmap.lo); EQ(o.aeth, p->aeth, now_bitmap.hi);
	EQ(o.aeth, p->aeth, is_packet_lost); EQ(o.aeth, p->aeth, is_window_slided);
	EQ(o.aeth, p->aeth, is_send_by_driver); EQ(o.aeth, p->aeth, pre_psn);
	cr_assert_eq(o.imm, p->imm);
	cr_assert_eq(o.payload_len, plen);
	cr_assert_eq(memcmp(buf + o.payload_off, payload, plen), 0, "payload bytes");

	/* with an FCS trailer */
	n = blue_wire_fcs_append(buf, (uint32_t)n, sizeof(buf));
	cr_assert_gt(n, 0);
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, BLUE_WIRE_F_FCS, &o), 0);
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o), BLUE_WIRE_E_TRAILING);
}

Test(wire_rdma, roundtrip_every_data_opcode)
{
	for (uint8_t op = 0; op <= BLUE_OP_READ_RESPONSE_ONLY; op++) {
		struct blue_wire_rdma p;
		uint32_t plen;

		if (op == BLUE_OP_READ_REQUEST)
			continue;
		p = base_pkt(op);
		plen = blue_op_pos(op) == BLUE_POS_MIDDLE ? 4096 : 1000 + op;
		p.reth.va = 0x7F0000002000ull + op; /* every filler size */
		p.reth.rkey = 0xA0B0C0 + op;
		p.reth.dlen = blue_op_pos(op) == BLUE_POS_FIRST ? 1u << 20 : plen;
		p.bth.is_retry = op & 1;
		p.bth.msn = (uint16_t)(0xFFF0 + op);
		p.bth.psn = (0xFFFFF0u + op) & BLUE_PSN_MASK; /* wraps */
		p.l3.ecn = op & 3;
		if (blue_op_has_imm(op))
			p.imm = 0x11223344u * op;
		roundtrip(&p, plen);
	}
}

Test(wire_rdma, roundtrip_zero_length_imm)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_WRITE_ONLY_WITH_IMM);

	p.reth = (struct blue_wire_reth){ .va = 0x1000, .rkey = 7, .dlen = 0 };
	p.imm = 42;
	roundtrip(&p, 0);
	p.bth.opcode = BLUE_OP_SEND_ONLY_WITH_IMM;
	roundtrip(&p, 0);
}

Test(wire_rdma, roundtrip_read_request)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_READ_REQUEST);

	p.reth = (struct blue_wire_reth){ .va = 0x7F0000000003ull, .rkey = 0x5566, .dlen = 1u << 30 };
	p.rreth = (struct blue_wire_rreth){ .va = 0x7F1111111111ull, .lkey = 0x7788 };
	roundtrip(&p, 0);
}

Test(wire_rdma, roundtrip_ack_and_cnp)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_ACKNOWLEDGE);

	p.l3.src_port = BLUE_WIRE_ROCE_UDP_PORT;
	p.l3.ip_id = 0;
	p.l3.df = 1;
	p.aeth = (struct blue_wire_aeth){ .pre_bitmap = { 0x0102030405060708ull, 0x1112131415161718ull },
					  .now_bitmap = { ~0ull, ~0ull }, .is_packet_lost = 1,
					  .is_window_slided = 1, .is_send_by_driver = 1,
					  .pre_psn = 0xABCDEF };
	roundtrip(&p, 0);

	p = base_pkt(0);
	p.bth.trans = BLUE_TRANS_CNP;
	roundtrip(&p, 0);
}

Test(wire_rdma, ack_layout)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_ACKNOWLEDGE);
	uint8_t buf[128];
	int n;

	p.aeth.pre_bitmap = (struct blue_bitmap128){ .lo = 1, .hi = 0x8000000000000000ull };
	p.aeth.is_send_by_driver = 1;
	p.aeth.pre_psn = 0x123456;
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, NULL, 0);
	cr_assert_eq(n, 96);
	cr_assert_eq(buf[42], 0x11);
	cr_assert_eq(buf[54], 0x80, "bitmap bit 127 first on the wire");
	cr_assert_eq(buf[69], 0x01, "bitmap bit 0 last");
	cr_assert_eq(buf[86], 0x20, "by_driver flag in bit 5");
	cr_assert_eq(buf[87], 0x12);
	cr_assert_eq(buf[89], 0x56);
}

static int
build_good(uint8_t *buf, uint32_t cap)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_WRITE_MIDDLE);

	p.reth = (struct blue_wire_reth){ .va = 0x10000, .rkey = 1, .dlen = 256 };
	memset(buf, 0x5A, cap);
	return blue_wire_rdma_build(buf, cap, &p, buf + 1024, 256);
}

Test(wire_rdma, every_reject_reason)
{
	uint8_t f[2048];
	struct blue_wire_rdma o;
	int n = build_good(f, sizeof(f));

	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), 0);
	cr_assert_eq(blue_wire_rdma_parse(f, 10, 0, &o), BLUE_WIRE_E_TRUNCATED);
	cr_assert_eq(blue_wire_rdma_parse(f, 30, 0, &o), BLUE_WIRE_E_TRUNCATED);

	n = build_good(f, sizeof(f));
	f[12] = 0x86, f[13] = 0xDD;
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_NOT_IPV4);

	n = build_good(f, sizeof(f));
	f[14] = 0x65, test_fix_ipv4_csum(f, sizeof(f));
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_IP_VERSION);
	n = build_good(f, sizeof(f));
	f[14] = 0x46, test_fix_ipv4_csum(f, sizeof(f));
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_IP_IHL);

	n = build_good(f, sizeof(f));
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n - 1, 0, &o), BLUE_WIRE_E_IP_LEN,
		     "frame shorter than the IP total length");
	f[16] = 0, f[17] = 20, test_fix_ipv4_csum(f, sizeof(f));
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_IP_LEN);

	n = build_good(f, sizeof(f));
	f[20] = 0x20, test_fix_ipv4_csum(f, sizeof(f)); /* MF */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_IP_FRAGMENT);
	n = build_good(f, sizeof(f));
	f[21] = 0x08, test_fix_ipv4_csum(f, sizeof(f)); /* offset */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_IP_FRAGMENT);

	n = build_good(f, sizeof(f));
	f[29] ^= 0x01; /* src ip changed, checksum stale */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_IP_CSUM);

	n = build_good(f, sizeof(f));
	f[23] = 6, test_fix_ipv4_csum(f, sizeof(f));
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_NOT_UDP);

	n = build_good(f, sizeof(f));
	f[39] ^= 1; /* UDP length */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_UDP_LEN);

	n = build_good(f, sizeof(f));
	f[37] = 0xB8; /* 4792 */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_NOT_ROCE_PORT);
	cr_assert_eq(blue_wire_classify(f, (uint32_t)n), BLUE_WIRE_CLASS_OTHER);

	n = build_good(f, sizeof(f));
	f[43] |= 0x30; /* pad count */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_BTH);
	n = build_good(f, sizeof(f));
	f[43] |= 0x01; /* tver */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_BTH);
	n = build_good(f, sizeof(f));
	f[46] = 0x80; /* F/B byte */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_BTH);
	n = build_good(f, sizeof(f));
	f[50] |= 0x01; /* resv7 */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_BTH);

	n = build_good(f, sizeof(f));
	f[42] = 0x12; /* RC opcode 0x12 */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_OPCODE);
	f[42] = 0x27; /* UC transport */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_OPCODE);
	f[42] = 0x81; /* RoCEv2's CNP code, not the card's */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_OPCODE);

	n = build_good(f, sizeof(f));
	f[69] = 0x01; /* RETH dlen != payload on a MIDDLE packet */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_LENGTH);
	n = build_good(f, sizeof(f));
	f[42] = BLUE_OP_ACKNOWLEDGE; /* an ACK carrying payload */
	memset(f + 54, 0, 42);
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_LENGTH);

	n = build_good(f, sizeof(f));
	f[80] = 1; /* unused part of the extension area */
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, 0, &o), BLUE_WIRE_E_EXT_NONZERO);

	n = build_good(f, sizeof(f));
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n + 3, 0, &o), BLUE_WIRE_E_TRAILING);
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n + 4, BLUE_WIRE_F_FCS, &o), BLUE_WIRE_E_FCS);
	cr_assert_eq(blue_wire_rdma_parse(f, (uint32_t)n, BLUE_WIRE_F_FCS, &o), BLUE_WIRE_E_FCS);

	cr_assert_eq(blue_wire_rdma_parse(NULL, 100, 0, &o), BLUE_WIRE_E_ARG);
}

Test(wire_rdma, length_rules)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_WRITE_FIRST), o;
	uint8_t buf[BLUE_WIRE_MAX_FRAME + 64], pay[4100] = { 0 };
	int n;

	/* FIRST: dlen is the whole message, larger than the packet */
	p.reth = (struct blue_wire_reth){ .va = 0x1000, .rkey = 1, .dlen = 1024 };
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 1024);
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o), BLUE_WIRE_E_LENGTH);
	p.reth.dlen = 1025;
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 1024);
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o), 0);
	/* MIDDLE with no payload */
	p.bth.opcode = BLUE_OP_WRITE_MIDDLE;
	p.reth.dlen = 0;
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 0);
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o), BLUE_WIRE_E_LENGTH);
	/* the builder refuses a payload above PMTU 4096 and payload on a READ request */
	cr_assert_eq(blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 4097), BLUE_WIRE_E_LENGTH);
	p.bth.opcode = BLUE_OP_READ_REQUEST;
	cr_assert_eq(blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 1), BLUE_WIRE_E_LENGTH);
	/* a frame claiming 4097 payload bytes */
	p.bth.opcode = BLUE_OP_WRITE_ONLY;
	p.reth.dlen = 4096;
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 4096);
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o), 0);
	buf[n] = 0;
	buf[16] = (uint8_t)((n - 14 + 1) >> 8), buf[17] = (uint8_t)(n - 14 + 1);
	buf[38] = (uint8_t)((n - 34 + 1) >> 8), buf[39] = (uint8_t)(n - 34 + 1);
	buf[66] = 0, buf[67] = 0, buf[68] = 0x10, buf[69] = 0x01;
	test_fix_ipv4_csum(buf, sizeof(buf));
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n + 1, 0, &o), BLUE_WIRE_E_LENGTH);
	/* filler bytes must be zero */
	p.reth.va = 0x1003;
	p.reth.dlen = 10;
	n = blue_wire_rdma_build(buf, sizeof(buf), &p, pay, 10);
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o), 0);
	cr_assert_eq(o.pad, 3);
	buf[97] = 1;
	cr_assert_eq(blue_wire_rdma_parse(buf, (uint32_t)n, 0, &o), BLUE_WIRE_E_EXT_NONZERO);
}

Test(wire_rdma, builder_rejects)
{
	struct blue_wire_rdma p = base_pkt(BLUE_OP_WRITE_ONLY);
	uint8_t buf[256];

	cr_assert_eq(blue_wire_rdma_build(buf, 50, &p, NULL, 0), BLUE_WIRE_E_NOSPACE);
	cr_assert_eq(blue_wire_rdma_build(buf, 100, &p, buf, 10), BLUE_WIRE_E_NOSPACE);
	cr_assert_eq(blue_wire_rdma_build(buf, 256, &p, NULL, 10), BLUE_WIRE_E_ARG);
	p.bth.psn = 1u << 24;
	cr_assert_eq(blue_wire_rdma_build(buf, 256, &p, NULL, 0), BLUE_WIRE_E_ARG);
	p = base_pkt(0x13);
	cr_assert_eq(blue_wire_rdma_build(buf, 256, &p, NULL, 0), BLUE_WIRE_E_OPCODE);
	cr_assert_eq(blue_wire_rdma_build(NULL, 256, &p, NULL, 0), BLUE_WIRE_E_ARG);
	cr_assert_eq(blue_wire_fcs_append(buf, 100, 103), BLUE_WIRE_E_NOSPACE);
}

Test(wire_rdma, crc32_known_vector)
{
	cr_assert_eq(blue_wire_crc32("123456789", 9), 0xCBF43926u);
}

Test(wire_rdma, peek_and_classify)
{
	uint64_t mac;
	uint32_t ip;
	bool has_ip;
	uint8_t arp[42] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0, 0, 0, 0, 1, 0x08, 0x06 };

	cr_assert(blue_wire_peek_dst(golden, sizeof(golden), &mac, &ip, &has_ip));
	cr_assert(has_ip);
	cr_assert_eq(mac, 0x020000000002ull);
	cr_assert_eq(ip, 0x1122330B);
	cr_assert(blue_wire_peek_dst(arp, sizeof(arp), &mac, &ip, &has_ip));
	cr_assert_not(has_ip);
	cr_assert_eq(mac, BLUE_WIRE_BROADCAST_MAC);
	cr_assert_eq(blue_wire_classify(arp, sizeof(arp)), BLUE_WIRE_CLASS_OTHER);
	cr_assert_not(blue_wire_peek_dst(arp, 10, &mac, &ip, &has_ip));
	cr_assert_eq(blue_wire_classify(golden, 40), BLUE_WIRE_CLASS_OTHER);
}

Test(wire_rdma, strerror_covers_every_code)
{
	for (int e = 0; e > -BLUE_WIRE_E_COUNT; e--) {
		const char *s = blue_wire_strerror(e);

		cr_assert_not_null(s);
		cr_assert_str_neq(s, "unknown error", "code %d has no name", e);
	}
	cr_assert_str_eq(blue_wire_strerror(BLUE_WIRE_E_IP_CSUM), "bad IPv4 checksum");
	cr_assert_str_eq(blue_wire_strerror(-BLUE_WIRE_E_COUNT), "unknown error");
}

/*
 * The open-rdma reference driver's ACK and NAK frames, byte by byte from its
 * source (rust-driver/src/workers/ack_responder.rs AckFrameBuilder, commit
 * 0db6daf): UDP payload PAYLOAD_SIZE = 48 (BTH 12, prev_bitmap 16, now_bitmap
 * 16, AethSeg0 4: pre_psn in bits 0-23, is_send_by_driver 29, is_window_slided
 * 30, is_packet_loss 31, big-endian), src = dst MAC CARD_MAC_ADDRESS_OCTETS
 * AA:BB:CC:DD:EE:0A, IPv4 id 0, DF, TTL 64, both checksums left 0 (its
 * set_checksum(get_checksum()) writes the zeroed field back), UDP 4791 both
 * ways. Here src IP 10.0.0.7, dst 10.0.0.5, dqpn 0x000301.
 */
static const uint8_t rd_ack[90] = {
	0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x0A, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0x0A, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x4C, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x00, 0x00,
	0x0A, 0x00, 0x00, 0x07, 0x0A, 0x00, 0x00, 0x05,
	0x12, 0xB7, 0x12, 0xB7, 0x00, 0x38, 0x00, 0x00,
	/* BTH: trans RC 0 << 5 | ACKNOWLEDGE 0x11, msn 0, dqpn, psn = last_psn 0x000123 */
	0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x01, 0x23,
	/* prev_bitmap 0, now_bitmap u128::MAX */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	/* AethSeg0: is_send_by_driver, pre_psn 0 */
	0x20, 0x00, 0x00, 0x00,
};

Test(wire_rdma, reference_driver_ack_frame_golden)
{
	uint8_t nak[90];
	struct blue_wire_rdma p;
	int rc;

	rc = blue_wire_rdma_parse(rd_ack, sizeof(rd_ack), 0, &p);
	cr_assert_eq(rc, 0, "%s", blue_wire_strerror(rc));
	cr_expect_eq(p.bth.trans, BLUE_TRANS_RC);
	cr_expect_eq(p.bth.opcode, BLUE_OP_ACKNOWLEDGE);
	cr_expect_eq(p.bth.dqpn, 0x000301);
	cr_expect_eq(p.bth.psn, 0x000123);
	cr_expect_eq(p.l3.dst_mac, 0xAABBCCDDEE0Aull);
	cr_expect_eq(p.l3.src_ip, 0x0A000007);
	cr_expect(p.aeth.is_send_by_driver && !p.aeth.is_packet_lost && !p.aeth.is_window_slided);
	cr_expect(p.aeth.now_bitmap.lo == ~0ull && p.aeth.now_bitmap.hi == ~0ull);
	cr_expect(p.aeth.pre_bitmap.lo == 0 && p.aeth.pre_bitmap.hi == 0);
	cr_expect_eq(p.payload_len, 0);
	{ /* rebuilt from the parsed fields: the same 90 bytes */
		uint8_t out[128];

		cr_assert_eq(blue_wire_rdma_build(out, sizeof(out), &p, NULL, 0), 90);
		cr_expect_eq(memcmp(out, rd_ack, sizeof(rd_ack)), 0);
	}
	/* its NAK: now_psn = ack_req_packet_psn + 1, pre_psn = base_psn, both flags */
	memcpy(nak, rd_ack, sizeof(nak));
	memset(nak + 70, 0, 16); /* now_bitmap 0 */
	nak[86] = 0xE0;
	nak[87] = 0x00, nak[88] = 0x01, nak[89] = 0x10; /* base_psn 0x000110 */
	nak[53] = 0x20;					/* psn 0x000120 */
	rc = blue_wire_rdma_parse(nak, sizeof(nak), 0, &p);
	cr_assert_eq(rc, 0, "%s", blue_wire_strerror(rc));
	cr_expect(p.aeth.is_packet_lost && p.aeth.is_window_slided && p.aeth.is_send_by_driver);
	cr_expect_eq(p.aeth.pre_psn, 0x000110);
	cr_expect_eq(p.bth.psn, 0x000120);
	/* a short area is an ACK's only: any other opcode with 48 bytes is truncated */
	nak[42] = BLUE_OP_WRITE_ONLY;
	cr_expect_eq(blue_wire_rdma_parse(nak, sizeof(nak), 0, &p), BLUE_WIRE_E_TRUNCATED);
	/* a wrong non-zero IPv4 checksum is still refused */
	memcpy(nak, rd_ack, sizeof(nak));
	nak[24] = 0x12;
	cr_expect_eq(blue_wire_rdma_parse(nak, sizeof(nak), 0, &p), BLUE_WIRE_E_IP_CSUM);
}
