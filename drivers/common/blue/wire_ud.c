/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ORDK's UD frames: RoCE v2's UD layout (BTH + DETH, IBA 9.2 and 9.3.2) on
 * UDP 4793, built and parsed by the driver on the card's SimpleNic path
 * (doc/guides/prog_guide/wire_formats.md), a message in one frame (IBA's) or,
 * longer than a SimpleNic slot takes, in fragments (FIRST, MIDDLE, LAST:
 * ORDK's own opcodes). The parser is strict: a frame it accepts rebuilds byte
 * for byte.
 */
#include <string.h>

#include "wire_bytes.h"
#include "wire_internal.h"

#define BTH_OFF	 WIRE_L4_PAYLOAD_OFF		   /* 42 */
#define DETH_OFF (BTH_OFF + BLUE_WIRE_BTH_LEN)	   /* 54 */
#define IMM_OFF	 (DETH_OFF + BLUE_WIRE_DETH_LEN)   /* 62 */
#define MASK24	 0xFFFFFFu

/* A FIRST or MIDDLE fragment: more of its message follows (no ImmDt, no SE, a payload). */
static bool
ud_opening(uint8_t frag)
{
	return frag == BLUE_WIRE_UD_FIRST || frag == BLUE_WIRE_UD_MIDDLE;
}

static uint8_t
ud_opcode(uint8_t frag, bool imm)
{
	static const uint8_t op[][2] = {
		[BLUE_WIRE_UD_ONLY] = { BLUE_WIRE_UD_SEND_ONLY, BLUE_WIRE_UD_SEND_ONLY_IMM },
		[BLUE_WIRE_UD_FIRST] = { BLUE_WIRE_UD_SEND_FIRST, 0 },
		[BLUE_WIRE_UD_MIDDLE] = { BLUE_WIRE_UD_SEND_MIDDLE, 0 },
		[BLUE_WIRE_UD_LAST] = { BLUE_WIRE_UD_SEND_LAST, BLUE_WIRE_UD_SEND_LAST_IMM },
	};

	return op[frag][imm];
}

/* The fragment and ImmDt of BTH opcode @p op. @return false: not a UD SEND opcode. */
static bool
ud_op_parse(uint8_t op, struct blue_wire_ud *u)
{
	for (uint8_t frag = BLUE_WIRE_UD_ONLY; frag <= BLUE_WIRE_UD_LAST; frag++)
		for (int imm = 0; imm < 2; imm++)
			if (ud_opcode(frag, imm) == op && op != 0) {
				u->frag = frag;
				u->imm = imm;
				return true;
			}
	return false;
}

/* RoCE v2's source port: from the sender's QPN, in the dynamic range (49152..65535) */
static uint16_t
ud_src_port(uint32_t sqpn)
{
	return (uint16_t)(0xC000u | (sqpn & 0x3FFFu));
}

int
blue_wire_ud_build(void *buf, uint32_t cap, const struct blue_wire_ud *u, const void *payload,
		   uint32_t payload_len)
{
	uint32_t hlen, total;
	struct blue_wire_l3 a;
	uint8_t *f = buf;

	if (buf == NULL || u == NULL || (payload == NULL && payload_len > 0) || u->dqpn > MASK24 ||
	    u->sqpn > MASK24 || u->psn > MASK24 || payload_len > BLUE_WIRE_MAX_PAYLOAD ||
	    u->frag > BLUE_WIRE_UD_LAST || (ud_opening(u->frag) &&
					    (u->imm || u->solicited || payload_len == 0)))
		return BLUE_WIRE_E_ARG;
	hlen = u->imm ? BLUE_WIRE_UD_HLEN_MAX : BLUE_WIRE_UD_HLEN;
	total = hlen + payload_len;
	if (cap < total)
		return BLUE_WIRE_E_NOSPACE;
	a = u->l3;
	a.src_port = ud_src_port(u->sqpn);
	a.dst_port = BLUE_WIRE_UD_UDP_PORT;
	wire_l3_build(f, &a, total - WIRE_L4_PAYLOAD_OFF);
	/* BTH: opcode; SE, M 0, pad 0, TVer 0; P_Key; reserved; DestQP; A 0; PSN */
	f[BTH_OFF] = ud_opcode(u->frag, u->imm);
	f[BTH_OFF + 1] = u->solicited ? 0x80 : 0;
	wire_put_be16(f + BTH_OFF + 2, BLUE_WIRE_PKEY_DEFAULT);
	wire_put_be32(f + BTH_OFF + 4, u->dqpn); /* byte 4 (reserved) is 0 */
	wire_put_be32(f + BTH_OFF + 8, u->psn);	 /* byte 8 (A, reserved) is 0 */
	/* DETH: Q_Key; reserved; SrcQP */
	wire_put_be32(f + DETH_OFF, u->qkey);
	wire_put_be32(f + DETH_OFF + 4, u->sqpn);
	if (u->imm)
		wire_put_be32(f + IMM_OFF, u->imm_data);
	if (payload_len > 0)
		memcpy(f + hlen, payload, payload_len);
	return (int)total;
}

bool
blue_wire_is_ud(const void *frame, uint32_t len)
{
	const uint8_t *f = frame;

	return f != NULL && len >= WIRE_L4_PAYLOAD_OFF &&
	       wire_get_be16(f + 12) == BLUE_WIRE_ETHERTYPE_IPV4 && (f[14] & 0xFu) == 5 &&
	       f[23] == BLUE_WIRE_IPPROTO_UDP && wire_get_be16(f + WIRE_L4_OFF + 2) == BLUE_WIRE_UD_UDP_PORT;
}

int
blue_wire_ud_parse(const void *frame, uint32_t len, struct blue_wire_ud *u, uint32_t *payload_off)
{
	const uint8_t *f = frame;
	uint32_t udp_payload, frame_end, hlen;
	uint8_t op;
	int rc;

	if (frame == NULL || u == NULL || payload_off == NULL)
		return BLUE_WIRE_E_ARG;
	memset(u, 0, sizeof(*u));
	rc = wire_l3_parse(f, len, &u->l3, &udp_payload, &frame_end);
	if (rc != 0)
		return rc;
	if (u->l3.dst_port != BLUE_WIRE_UD_UDP_PORT)
		return BLUE_WIRE_E_NOT_UD_PORT;
	rc = wire_check_trailer(f, len, frame_end, 0);
	if (rc != 0)
		return rc;
	if (udp_payload < BLUE_WIRE_BTH_LEN + BLUE_WIRE_DETH_LEN)
		return BLUE_WIRE_E_TRUNCATED;
	op = f[BTH_OFF];
	if (!ud_op_parse(op, u))
		return BLUE_WIRE_E_OPCODE;
	hlen = u->imm ? BLUE_WIRE_UD_HLEN_MAX : BLUE_WIRE_UD_HLEN;
	if (WIRE_L4_PAYLOAD_OFF + udp_payload < hlen)
		return BLUE_WIRE_E_TRUNCATED;
	/* M, pad count, TVer, the reserved byte and bits, a P_Key not the default, the
	 * DETH's reserved byte: none is ours to ignore */
	if ((f[BTH_OFF + 1] & 0x7F) != 0 || wire_get_be16(f + BTH_OFF + 2) != BLUE_WIRE_PKEY_DEFAULT ||
	    f[BTH_OFF + 4] != 0 || f[BTH_OFF + 8] != 0 || f[DETH_OFF + 4] != 0)
		return BLUE_WIRE_E_BTH;
	if (u->l3.src_port != ud_src_port(wire_get_be32(f + DETH_OFF + 4)))
		return BLUE_WIRE_E_BTH; /* the builder's port, so that a parse round-trips */
	u->solicited = (f[BTH_OFF + 1] & 0x80) != 0;
	u->dqpn = wire_get_be32(f + BTH_OFF + 4);
	u->psn = wire_get_be32(f + BTH_OFF + 8);
	u->qkey = wire_get_be32(f + DETH_OFF);
	u->sqpn = wire_get_be32(f + DETH_OFF + 4);
	if (u->imm)
		u->imm_data = wire_get_be32(f + IMM_OFF);
	u->payload_len = WIRE_L4_PAYLOAD_OFF + udp_payload - hlen;
	if (u->payload_len > BLUE_WIRE_MAX_PAYLOAD || (ud_opening(u->frag) && u->payload_len == 0))
		return BLUE_WIRE_E_LENGTH;
	if (ud_opening(u->frag) && u->solicited)
		return BLUE_WIRE_E_BTH; /* SE is the message's last packet's */
	*payload_off = hlen;
	return 0;
}
