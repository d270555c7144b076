/* SPDX-License-Identifier: BSD-3-Clause */
/* ORDK's UD frames (wire_ud.c): the layout byte by byte, round trips, every reject. */
#include <criterion/criterion.h>
#include <string.h>

#include "blue_wire.h"

static const struct blue_wire_ud hdr = {
	.l3 = { .dst_mac = 0x020000000002ull, .src_mac = 0x020000000001ull, .src_ip = 0x0A000001,
		.dst_ip = 0x0A000002, .ttl = 64, .df = 1 },
	.imm = true, .solicited = 1, .dqpn = 0x123456, .psn = 0xABCDEF, .qkey = 0x11111111,
	.sqpn = 0x000701, .imm_data = 0xDEADBEEF,
};

static int
build(uint8_t *buf, uint32_t cap, const struct blue_wire_ud *u, uint32_t len)
{
	uint8_t payload[4096];

	for (uint32_t i = 0; i < len; i++)
		payload[i] = (uint8_t)(i * 3 + 1);
	return blue_wire_ud_build(buf, cap, u, payload, len);
}

Test(wire_ud, layout)
{
	uint8_t f[256];
	int n = build(f, sizeof(f), &hdr, 10);
	static const uint8_t bth_deth_imm[] = {
		0x65, 0x80, 0xFF, 0xFF, 0x00, 0x12, 0x34, 0x56, 0x00, 0xAB, 0xCD, 0xEF, /* BTH */
		0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x07, 0x01,				/* DETH */
		0xDE, 0xAD, 0xBE, 0xEF,							/* ImmDt */
	};

	cr_assert_eq(n, BLUE_WIRE_UD_HLEN_MAX + 10);
	cr_assert_eq(f[36] << 8 | f[37], BLUE_WIRE_UD_UDP_PORT, "UDP destination port 4793");
	cr_assert_eq(f[34] << 8 | f[35], 0xC000 | 0x0701, "source port from the source QPN");
	cr_assert_eq(memcmp(f + 42, bth_deth_imm, sizeof(bth_deth_imm)), 0);
	cr_assert_eq(f[66], 1);
	cr_assert(blue_wire_is_ud(f, (uint32_t)n));
	cr_assert_eq(blue_wire_classify(f, (uint32_t)n), BLUE_WIRE_CLASS_OTHER,
		     "the card hands it to SimpleNic");
}

Test(wire_ud, round_trips)
{
	uint32_t lens[] = { 0, 1, 1982, 4096 };

	for (unsigned int k = 0; k < 2; k++)
		for (unsigned int i = 0; i < 4; i++) {
			static uint8_t f[5000], g[5000];
			struct blue_wire_ud u = hdr, o;
			uint32_t off;
			int n, m, rc;

			u.imm = k;
			u.imm_data = k ? hdr.imm_data : 0;
			n = build(f, sizeof(f), &u, lens[i]);
			cr_assert_gt(n, 0);
			rc = blue_wire_ud_parse(f, (uint32_t)n, &o, &off);
			cr_assert_eq(rc, 0, "%s", blue_wire_strerror(rc));
			cr_assert_eq(o.payload_len, lens[i]);
			cr_assert_eq(off, k ? BLUE_WIRE_UD_HLEN_MAX : BLUE_WIRE_UD_HLEN);
			cr_assert(o.dqpn == u.dqpn && o.sqpn == u.sqpn && o.psn == u.psn &&
				  o.qkey == u.qkey && o.imm == u.imm && o.imm_data == u.imm_data &&
				  o.solicited == u.solicited);
			cr_assert(o.l3.src_ip == u.l3.src_ip && o.l3.dst_mac == u.l3.dst_mac);
			m = blue_wire_ud_build(g, sizeof(g), &o, f + off, o.payload_len);
			cr_assert_eq(m, n);
			cr_assert_eq(memcmp(f, g, (size_t)n), 0, "rebuilt byte for byte");
		}
}

/* @p f (a good frame of @p n bytes) with byte @p at set to @p v: refused with @p err. */
static void
refused(const uint8_t *f, int n, int at, uint8_t v, int err)
{
	uint8_t g[256];
	struct blue_wire_ud o;
	uint32_t off;

	memcpy(g, f, (size_t)n);
	g[at] = v;
	cr_assert_eq(blue_wire_ud_parse(g, (uint32_t)n, &o, &off), err, "byte %d = 0x%02x", at, v);
}

Test(wire_ud, rejects)
{
	uint8_t f[256], g[256];
	struct blue_wire_ud o, big = hdr;
	uint32_t off;
	int n = build(f, sizeof(f), &hdr, 16);

	refused(f, n, 42, 0x04, BLUE_WIRE_E_OPCODE);	/* RC SEND_ONLY */
	refused(f, n, 42, 0x66, BLUE_WIRE_E_OPCODE);	/* UD, not a SEND */
	refused(f, n, 43, 0xC0, BLUE_WIRE_E_BTH);	/* MigReq */
	refused(f, n, 43, 0x81, BLUE_WIRE_E_BTH);	/* TVer */
	refused(f, n, 44, 0x7F, BLUE_WIRE_E_BTH);	/* a P_Key not the default */
	refused(f, n, 46, 0x01, BLUE_WIRE_E_BTH);	/* reserved */
	refused(f, n, 50, 0x80, BLUE_WIRE_E_BTH);	/* the AckReq bit */
	refused(f, n, 58, 0x01, BLUE_WIRE_E_BTH);	/* DETH reserved */
	refused(f, n, 60, 0x08, BLUE_WIRE_E_BTH);	/* a source QPN its port does not say */
	refused(f, n, 37, 0xB7, BLUE_WIRE_E_NOT_UD_PORT); /* 4791 */
	cr_assert_eq(blue_wire_ud_parse(f, (uint32_t)n - 1, &o, &off), BLUE_WIRE_E_IP_LEN);
	memcpy(g, f, (size_t)n);
	g[n] = 0;
	cr_assert_eq(blue_wire_ud_parse(g, (uint32_t)n + 1, &o, &off), BLUE_WIRE_E_TRAILING);
	cr_assert_eq(blue_wire_ud_parse(f, 12, &o, &off), BLUE_WIRE_E_TRUNCATED);
	cr_assert_eq(blue_wire_ud_parse(NULL, 40, &o, &off), BLUE_WIRE_E_ARG);
	/* a UDP payload too short for BTH + DETH + ImmDt: SEND_ONLY without payload, made IMM */
	big.imm = false;
	n = build(f, sizeof(f), &big, 0);
	cr_assert_eq(blue_wire_ud_parse(f, (uint32_t)n, &o, &off), 0);
	refused(f, n, 42, BLUE_WIRE_UD_SEND_ONLY_IMM, BLUE_WIRE_E_TRUNCATED);
	big = hdr;
	big.dqpn = 1u << 24;
	cr_assert_eq(build(g, sizeof(g), &big, 0), BLUE_WIRE_E_ARG, "a 25-bit QPN");
	cr_assert_eq(build(g, 60, &hdr, 0), BLUE_WIRE_E_NOSPACE);
	cr_assert_eq(blue_wire_ud_build(g, sizeof(g), &hdr, NULL, 4097), BLUE_WIRE_E_ARG);
}

/* ORDK's fragments of a message longer than a frame: FIRST, MIDDLE, LAST (0x60-0x63). */
Test(wire_ud, fragments)
{
	static const struct { uint8_t frag; bool imm; uint8_t op; } ops[] = {
		{ BLUE_WIRE_UD_FIRST, false, 0x60 }, { BLUE_WIRE_UD_MIDDLE, false, 0x61 },
		{ BLUE_WIRE_UD_LAST, false, 0x62 },  { BLUE_WIRE_UD_LAST, true, 0x63 },
		{ BLUE_WIRE_UD_ONLY, false, 0x64 },  { BLUE_WIRE_UD_ONLY, true, 0x65 },
	};
	uint8_t f[256], g[256];
	struct blue_wire_ud u = hdr, o;
	uint32_t off;
	int n;

	for (unsigned int i = 0; i < 6; i++) {
		u.frag = ops[i].frag;
		u.imm = ops[i].imm;
		u.solicited = ops[i].frag == BLUE_WIRE_UD_LAST || ops[i].frag == BLUE_WIRE_UD_ONLY;
		n = build(f, sizeof(f), &u, 100);
		cr_assert_gt(n, 0, "fragment %u", i);
		cr_assert_eq(f[42], ops[i].op);
		cr_assert_eq(blue_wire_ud_parse(f, (uint32_t)n, &o, &off), 0);
		cr_assert(o.frag == u.frag && o.imm == u.imm && o.solicited == u.solicited);
		cr_assert_eq(blue_wire_ud_build(g, sizeof(g), &o, f + off, o.payload_len), n);
		cr_assert_eq(memcmp(f, g, (size_t)n), 0, "rebuilt byte for byte");
	}
	/* ImmDt, SE and an empty payload belong to the message's end */
	u = hdr;
	u.frag = BLUE_WIRE_UD_FIRST;
	cr_assert_eq(build(g, sizeof(g), &u, 100), BLUE_WIRE_E_ARG, "a FIRST with ImmDt");
	u.imm = false;
	cr_assert_eq(build(g, sizeof(g), &u, 100), BLUE_WIRE_E_ARG, "a FIRST with SE");
	u.solicited = 0;
	cr_assert_eq(build(g, sizeof(g), &u, 0), BLUE_WIRE_E_ARG, "a FIRST without payload");
	u.frag = BLUE_WIRE_UD_LAST + 1;
	cr_assert_eq(build(g, sizeof(g), &u, 100), BLUE_WIRE_E_ARG, "no such fragment");
	u.frag = BLUE_WIRE_UD_MIDDLE;
	n = build(f, sizeof(f), &u, 100);
	cr_assert_gt(n, 0);
	refused(f, n, 43, 0x80, BLUE_WIRE_E_BTH);	/* SE on a MIDDLE */
	refused(f, n, 42, 0x66, BLUE_WIRE_E_OPCODE);
	refused(f, n, 42, 0x67, BLUE_WIRE_E_OPCODE);
	u.frag = BLUE_WIRE_UD_LAST;
	n = build(f, sizeof(f), &u, 0); /* a LAST may be empty: a MIDDLE may not */
	cr_assert_gt(n, 0);
	refused(f, n, 42, BLUE_WIRE_UD_SEND_MIDDLE, BLUE_WIRE_E_LENGTH);
}
