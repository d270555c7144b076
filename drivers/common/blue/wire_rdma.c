/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The card's RDMA frames (doc/guides/drivers/blue_hw_interface.md section 6): builders and a strict
 * parser, plus the Ethernet/IPv4/UDP layer shared with control frames.
 */
#include <string.h>

#include <isa-l/crc.h>

#include "blue_wire.h"
#include "wire_bytes.h"
#include "wire_internal.h"

#define BTH_OFF	 WIRE_L4_PAYLOAD_OFF		      /* 42 */
#define EXT_OFF	 (BTH_OFF + BLUE_WIRE_BTH_LEN)	      /* 54 */
#define AREA_END (BTH_OFF + BLUE_WIRE_RDMA_AREA_LEN)  /* 96 */

const char *
blue_wire_strerror(int err)
{
	static const char *const names[BLUE_WIRE_E_COUNT] = {
		[0] = "ok",
		[-BLUE_WIRE_E_TRUNCATED] = "truncated",
		[-BLUE_WIRE_E_NOT_IPV4] = "not IPv4",
		[-BLUE_WIRE_E_IP_VERSION] = "bad IP version",
		[-BLUE_WIRE_E_IP_IHL] = "bad IHL",
		[-BLUE_WIRE_E_IP_LEN] = "bad IP total length",
		[-BLUE_WIRE_E_IP_FRAGMENT] = "IP fragment",
		[-BLUE_WIRE_E_IP_CSUM] = "bad IPv4 checksum",
		[-BLUE_WIRE_E_NOT_UDP] = "not UDP",
		[-BLUE_WIRE_E_UDP_LEN] = "bad UDP length",
		[-BLUE_WIRE_E_NOT_ROCE_PORT] = "not UDP 4791",
		[-BLUE_WIRE_E_BTH] = "BTH reserved bits set",
		[-BLUE_WIRE_E_OPCODE] = "unknown opcode",
		[-BLUE_WIRE_E_LENGTH] = "length mismatch",
		[-BLUE_WIRE_E_EXT_NONZERO] = "unused header bytes not zero",
		[-BLUE_WIRE_E_TRAILING] = "trailing bytes",
		[-BLUE_WIRE_E_NOT_CTRL_PORT] = "not UDP 4792",
		[-BLUE_WIRE_E_CTRL_MAGIC] = "bad control magic",
		[-BLUE_WIRE_E_CTRL_VERSION] = "unknown control version",
		[-BLUE_WIRE_E_CTRL_TYPE] = "unknown control type",
		[-BLUE_WIRE_E_CTRL_LEN] = "bad control length",
		[-BLUE_WIRE_E_CTRL_FIELD] = "bad control field",
		[-BLUE_WIRE_E_FCS] = "bad FCS",
		[-BLUE_WIRE_E_NOSPACE] = "no space",
		[-BLUE_WIRE_E_ARG] = "bad argument",
		[-BLUE_WIRE_E_NOT_UD_PORT] = "not UDP 4793",
	};

	if (err > 0 || err <= -BLUE_WIRE_E_COUNT)
		return "unknown error";
	return names[-err];
}

/* ---------------------------------------------------- Ethernet/IPv4/UDP */

uint16_t
wire_ipv4_csum(const uint8_t *ip)
{
	uint32_t sum = 0;

	for (unsigned int i = 0; i < BLUE_WIRE_IPV4_HLEN; i += 2)
		if (i != 10) /* the checksum field itself */
			sum += wire_get_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

void
wire_l3_build(uint8_t *f, const struct blue_wire_l3 *l3, uint32_t udp_payload)
{
	uint8_t *ip = f + BLUE_WIRE_ETH_HLEN, *udp = f + WIRE_L4_OFF;

	wire_put_be48(f, l3->dst_mac);
	wire_put_be48(f + 6, l3->src_mac);
	wire_put_be16(f + 12, BLUE_WIRE_ETHERTYPE_IPV4);

	ip[0] = 0x45; /* version 4, IHL 5 */
	ip[1] = (uint8_t)((l3->dscp << 2) | (l3->ecn & 3));
	wire_put_be16(ip + 2, (uint16_t)(BLUE_WIRE_IPV4_HLEN + BLUE_WIRE_UDP_HLEN + udp_payload));
	wire_put_be16(ip + 4, l3->ip_id);
	wire_put_be16(ip + 6, l3->df ? 0x4000 : 0);
	ip[8] = l3->ttl;
	ip[9] = BLUE_WIRE_IPPROTO_UDP;
	wire_put_be16(ip + 10, 0);
	wire_put_be32(ip + 12, l3->src_ip);
	wire_put_be32(ip + 16, l3->dst_ip);
	if (!l3->ip_csum_zero)
		wire_put_be16(ip + 10, wire_ipv4_csum(ip));

	wire_put_be16(udp, l3->src_port);
	wire_put_be16(udp + 2, l3->dst_port);
	wire_put_be16(udp + 4, (uint16_t)(BLUE_WIRE_UDP_HLEN + udp_payload));
	wire_put_be16(udp + 6, 0); /* the card leaves the UDP checksum at 0 */
}

int
wire_l3_parse(const uint8_t *f, uint32_t len, struct blue_wire_l3 *l3, uint32_t *udp_payload,
	      uint32_t *frame_end)
{
	const uint8_t *ip = f + BLUE_WIRE_ETH_HLEN, *udp = f + WIRE_L4_OFF;
	uint32_t total, ulen;
	uint16_t frag;

	if (len < BLUE_WIRE_ETH_HLEN)
		return BLUE_WIRE_E_TRUNCATED;
	if (wire_get_be16(f + 12) != BLUE_WIRE_ETHERTYPE_IPV4)
		return BLUE_WIRE_E_NOT_IPV4;
	if (len < BLUE_WIRE_ETH_HLEN + BLUE_WIRE_IPV4_HLEN)
		return BLUE_WIRE_E_TRUNCATED;
	if (ip[0] >> 4 != 4)
		return BLUE_WIRE_E_IP_VERSION;
	if ((ip[0] & 0xF) != 5)
		return BLUE_WIRE_E_IP_IHL;
	total = wire_get_be16(ip + 2);
	if (total < BLUE_WIRE_IPV4_HLEN + BLUE_WIRE_UDP_HLEN || BLUE_WIRE_ETH_HLEN + total > len)
		return BLUE_WIRE_E_IP_LEN;
	frag = wire_get_be16(ip + 6);
	if (frag & 0xBFFF) /* anything but DF: reserved bit, MF, offset */
		return BLUE_WIRE_E_IP_FRAGMENT;
	/* 0: not computed, as the reference driver's frames come (its ACK frames keep
	 * the zeroed field); a wrong non-zero checksum is refused */
	if (wire_get_be16(ip + 10) != 0 && wire_get_be16(ip + 10) != wire_ipv4_csum(ip))
		return BLUE_WIRE_E_IP_CSUM;
	if (ip[9] != BLUE_WIRE_IPPROTO_UDP)
		return BLUE_WIRE_E_NOT_UDP;
	ulen = wire_get_be16(udp + 4);
	if (ulen != total - BLUE_WIRE_IPV4_HLEN)
		return BLUE_WIRE_E_UDP_LEN;

	l3->dst_mac = wire_get_be48(f);
	l3->src_mac = wire_get_be48(f + 6);
	l3->dscp = ip[1] >> 2;
	l3->ecn = ip[1] & 3;
	l3->ip_id = wire_get_be16(ip + 4);
	l3->df = (frag & 0x4000) != 0;
	l3->ttl = ip[8];
	l3->src_ip = wire_get_be32(ip + 12);
	l3->dst_ip = wire_get_be32(ip + 16);
	l3->src_port = wire_get_be16(udp);
	l3->dst_port = wire_get_be16(udp + 2);
	l3->udp_csum = wire_get_be16(udp + 6);
	l3->ip_csum_zero = wire_get_be16(ip + 10) == 0;
	*udp_payload = ulen - BLUE_WIRE_UDP_HLEN;
	*frame_end = BLUE_WIRE_ETH_HLEN + total;
	return BLUE_WIRE_OK;
}

uint32_t
blue_wire_crc32(const void *buf, uint32_t len)
{
	return crc32_gzip_refl(0, buf, len);
}

uint32_t
blue_wire_crc32_more(uint32_t crc, const void *buf, uint32_t len)
{
	return crc32_gzip_refl(crc, buf, len);
}

int
blue_wire_fcs_append(void *frame, uint32_t len, uint32_t cap)
{
	uint8_t *f = frame;
	uint32_t crc;

	if (frame == NULL || len > UINT32_MAX - 4)
		return BLUE_WIRE_E_ARG;
	if (cap < len + 4)
		return BLUE_WIRE_E_NOSPACE;
	crc = blue_wire_crc32(f, len);
	/* Transmitted least significant byte first, like Ethernet's FCS. */
	for (int i = 0; i < 4; i++)
		f[len + i] = (uint8_t)(crc >> (8 * i));
	return (int)(len + 4);
}

int
wire_check_trailer(const uint8_t *f, uint32_t len, uint32_t frame_end, unsigned int flags)
{
	uint32_t crc, got = 0;

	if (!(flags & BLUE_WIRE_F_FCS))
		return len == frame_end ? BLUE_WIRE_OK : BLUE_WIRE_E_TRAILING;
	if (len != frame_end + 4)
		return len < frame_end + 4 ? BLUE_WIRE_E_FCS : BLUE_WIRE_E_TRAILING;
	crc = blue_wire_crc32(f, frame_end);
	for (int i = 0; i < 4; i++)
		got |= (uint32_t)f[frame_end + i] << (8 * i);
	return got == crc ? BLUE_WIRE_OK : BLUE_WIRE_E_FCS;
}

/* --------------------------------------------------------------- classify */

enum blue_wire_class
blue_wire_classify(const void *frame, uint32_t len)
{
	const uint8_t *f = frame;
	uint32_t ihl;

	if (f == NULL || len < BLUE_WIRE_ETH_HLEN + BLUE_WIRE_IPV4_HLEN + BLUE_WIRE_UDP_HLEN)
		return BLUE_WIRE_CLASS_OTHER;
	if (wire_get_be16(f + 12) != BLUE_WIRE_ETHERTYPE_IPV4 || f[23] != BLUE_WIRE_IPPROTO_UDP)
		return BLUE_WIRE_CLASS_OTHER;
	ihl = (f[14] & 0xFu) * 4;
	if (ihl < BLUE_WIRE_IPV4_HLEN || len < BLUE_WIRE_ETH_HLEN + ihl + BLUE_WIRE_UDP_HLEN)
		return BLUE_WIRE_CLASS_OTHER;
	if (wire_get_be16(f + BLUE_WIRE_ETH_HLEN + ihl + 2) != BLUE_WIRE_ROCE_UDP_PORT)
		return BLUE_WIRE_CLASS_OTHER;
	return BLUE_WIRE_CLASS_RDMA;
}

bool
blue_wire_peek_dst(const void *frame, uint32_t len, uint64_t *dst_mac, uint32_t *dst_ip,
		   bool *has_ip)
{
	const uint8_t *f = frame;

	*has_ip = false;
	if (f == NULL || len < BLUE_WIRE_ETH_HLEN)
		return false;
	*dst_mac = wire_get_be48(f);
	if (wire_get_be16(f + 12) == BLUE_WIRE_ETHERTYPE_IPV4 &&
	    len >= BLUE_WIRE_ETH_HLEN + BLUE_WIRE_IPV4_HLEN) {
		*dst_ip = wire_get_be32(f + BLUE_WIRE_ETH_HLEN + 16);
		*has_ip = true;
	}
	return true;
}

/* ------------------------------------------------------------ RDMA frames */

/* Bytes of the 42-byte extension area an opcode uses (section 6 table). */
static int
ext_len(uint8_t trans, uint8_t op)
{
	if (trans == BLUE_TRANS_CNP)
		return op == 0 ? 0 : -1;
	if (trans != BLUE_TRANS_RC || op > BLUE_OP_MAX_RC)
		return -1;
	if (op == BLUE_OP_READ_REQUEST)
		return BLUE_WIRE_RETH_LEN + BLUE_WIRE_RRETH_LEN;
	if (op == BLUE_OP_ACKNOWLEDGE)
		return BLUE_WIRE_AETH_LEN;
	return BLUE_WIRE_RETH_LEN + (blue_op_has_imm(op) ? BLUE_WIRE_IMMDT_LEN : 0);
}

static void
put_reth(uint8_t *p, const struct blue_wire_reth *r)
{
	wire_put_be64(p, r->va);
	wire_put_be32(p + 8, r->rkey);
	wire_put_be32(p + 12, r->dlen);
}

static void
get_reth(const uint8_t *p, struct blue_wire_reth *r)
{
	r->va = wire_get_be64(p);
	r->rkey = wire_get_be32(p + 8);
	r->dlen = wire_get_be32(p + 12);
}

int
blue_wire_rdma_build_hdr(void *buf, uint32_t cap, const struct blue_wire_rdma *p,
			 uint32_t payload_len)
{
	uint8_t *f = buf, *bth, *ext;
	const struct blue_wire_bth *b;
	uint32_t pad, hlen;
	int elen;

	if (buf == NULL || p == NULL)
		return BLUE_WIRE_E_ARG;
	b = &p->bth;
	elen = ext_len(b->trans, b->opcode);
	if (elen < 0)
		return BLUE_WIRE_E_OPCODE;
	if (b->dqpn > BLUE_QPN_MASK || b->psn > BLUE_PSN_MASK ||
	    p->aeth.pre_psn > BLUE_PSN_MASK || p->l3.ecn > 3 || p->l3.dscp > 63)
		return BLUE_WIRE_E_ARG;
	if (b->trans == BLUE_TRANS_RC && blue_op_is_data(b->opcode)) {
		if (payload_len > BLUE_WIRE_MAX_PAYLOAD)
			return BLUE_WIRE_E_LENGTH;
	} else if (payload_len != 0) {
		return BLUE_WIRE_E_LENGTH;
	}
	if (p->short_ack && !(b->trans == BLUE_TRANS_RC && b->opcode == BLUE_OP_ACKNOWLEDGE))
		return BLUE_WIRE_E_ARG;
	pad = blue_wire_filler(p);
	hlen = p->short_ack ? EXT_OFF + BLUE_WIRE_AETH_LEN : BLUE_WIRE_RDMA_HLEN + pad;
	if (cap < hlen)
		return BLUE_WIRE_E_NOSPACE;

	memset(f, 0, hlen);
	wire_l3_build(f, &p->l3, hlen - BTH_OFF + payload_len);
	bth = f + BTH_OFF;
	bth[0] = BLUE_BTH_OPCODE(b->trans, b->opcode);
	bth[1] = (uint8_t)((b->solicited ? 0x80 : 0) | (b->is_retry ? 0x40 : 0));
	wire_put_be16(bth + 2, b->msn);
	wire_put_be24(bth + 5, b->dqpn);
	bth[8] = b->ack_req ? 0x80 : 0;
	wire_put_be24(bth + 9, b->psn);

	ext = f + EXT_OFF;
	if (b->trans == BLUE_TRANS_CNP)
		return (int)hlen;
	if (b->opcode == BLUE_OP_ACKNOWLEDGE) {
		const struct blue_wire_aeth *a = &p->aeth;

		wire_put_bitmap(ext, a->pre_bitmap.hi, a->pre_bitmap.lo);
		wire_put_bitmap(ext + 16, a->now_bitmap.hi, a->now_bitmap.lo);
		ext[32] = (uint8_t)((a->is_packet_lost ? 0x80 : 0) |
				    (a->is_window_slided ? 0x40 : 0) |
				    (a->is_send_by_driver ? 0x20 : 0));
		wire_put_be24(ext + 33, a->pre_psn);
		return (int)hlen;
	}
	put_reth(ext, &p->reth);
	if (b->opcode == BLUE_OP_READ_REQUEST) {
		wire_put_be64(ext + 16, p->rreth.va);
		wire_put_be32(ext + 24, p->rreth.lkey);
	} else if (blue_op_has_imm(b->opcode)) {
		wire_put_be32(ext + 16, p->imm);
	}
	return (int)hlen;
}

int
blue_wire_rdma_build(void *buf, uint32_t cap, const struct blue_wire_rdma *pkt,
		     const void *payload, uint32_t payload_len)
{
	int hlen;

	if (payload_len > 0 && payload == NULL)
		return BLUE_WIRE_E_ARG;
	hlen = blue_wire_rdma_build_hdr(buf, cap, pkt, payload_len);
	if (hlen < 0)
		return hlen;
	if (cap - (uint32_t)hlen < payload_len)
		return BLUE_WIRE_E_NOSPACE;
	if (payload_len > 0)
		memcpy((uint8_t *)buf + hlen, payload, payload_len);
	return hlen + (int)payload_len;
}

static int
get_aeth(const uint8_t *ext, struct blue_wire_aeth *a)
{
	wire_get_bitmap(ext, &a->pre_bitmap.hi, &a->pre_bitmap.lo);
	wire_get_bitmap(ext + 16, &a->now_bitmap.hi, &a->now_bitmap.lo);
	if (ext[32] & 0x1F)
		return -1; /* reserved flag bits */
	a->is_packet_lost = ext[32] >> 7;
	a->is_window_slided = (ext[32] >> 6) & 1;
	a->is_send_by_driver = (ext[32] >> 5) & 1;
	a->pre_psn = wire_get_be24(ext + 33);
	return 0;
}

static bool
all_zero(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* RETH dlen against the payload (section 6): whole message on FIRST, packet length otherwise. */
static bool
dlen_ok(uint8_t op, uint32_t dlen, uint32_t payload_len)
{
	switch (blue_op_pos(op)) {
	case BLUE_POS_FIRST:
		return payload_len > 0 && dlen > payload_len;
	case BLUE_POS_MIDDLE:
		return payload_len > 0 && dlen == payload_len;
	default:
		return dlen == payload_len;
	}
}

int
blue_wire_rdma_parse(const void *frame, uint32_t len, unsigned int flags,
		     struct blue_wire_rdma *p)
{
	const uint8_t *f = frame, *bth, *ext;
	uint32_t udp_payload, frame_end, rest;
	struct blue_wire_bth *b;
	bool short_ack;
	int rc, elen;

	if (frame == NULL || p == NULL)
		return BLUE_WIRE_E_ARG;
	memset(p, 0, sizeof(*p));
	rc = wire_l3_parse(f, len, &p->l3, &udp_payload, &frame_end);
	if (rc != 0)
		return rc;
	if (p->l3.dst_port != BLUE_WIRE_ROCE_UDP_PORT)
		return BLUE_WIRE_E_NOT_ROCE_PORT;
	if (udp_payload < BLUE_WIRE_BTH_LEN)
		return BLUE_WIRE_E_TRUNCATED;

	bth = f + BTH_OFF;
	b = &p->bth;
	b->trans = BLUE_BTH_TRANS(bth[0]);
	b->opcode = BLUE_BTH_OP(bth[0]);
	/* pad count and transport version are always 0; F, B and resv bits too */
	if ((bth[1] & 0x3F) || bth[4] || (bth[8] & 0x7F))
		return BLUE_WIRE_E_BTH;
	elen = ext_len(b->trans, b->opcode);
	if (elen < 0)
		return BLUE_WIRE_E_OPCODE;
	/* the reference driver's ACK frames end after the AETH: a 48-byte area */
	short_ack = udp_payload < BLUE_WIRE_RDMA_AREA_LEN;
	p->short_ack = short_ack;
	if (short_ack && !(b->trans == BLUE_TRANS_RC && b->opcode == BLUE_OP_ACKNOWLEDGE &&
			   udp_payload == BLUE_WIRE_BTH_LEN + BLUE_WIRE_AETH_LEN))
		return BLUE_WIRE_E_TRUNCATED;
	b->solicited = bth[1] >> 7;
	b->is_retry = (bth[1] >> 6) & 1;
	b->msn = wire_get_be16(bth + 2);
	b->dqpn = wire_get_be24(bth + 5);
	b->ack_req = bth[8] >> 7;
	b->psn = wire_get_be24(bth + 9);

	ext = f + EXT_OFF;
	if (!short_ack && !all_zero(ext + elen, BLUE_WIRE_EXT_AREA_LEN - (uint32_t)elen))
		return BLUE_WIRE_E_EXT_NONZERO;
	rest = short_ack ? 0 : udp_payload - BLUE_WIRE_RDMA_AREA_LEN;

	if (b->trans == BLUE_TRANS_CNP || !blue_op_is_data(b->opcode) ||
	    b->opcode == BLUE_OP_READ_REQUEST) {
		if (b->trans == BLUE_TRANS_RC && b->opcode == BLUE_OP_ACKNOWLEDGE) {
			if (get_aeth(ext, &p->aeth) != 0)
				return BLUE_WIRE_E_EXT_NONZERO;
		} else if (b->trans == BLUE_TRANS_RC) { /* READ request */
			get_reth(ext, &p->reth);
			p->rreth.va = wire_get_be64(ext + 16);
			p->rreth.lkey = wire_get_be32(ext + 24);
		}
		if (rest != 0)
			return BLUE_WIRE_E_LENGTH; /* these packets carry no payload */
		p->payload_off = short_ack ? EXT_OFF + BLUE_WIRE_AETH_LEN : AREA_END;
		return wire_check_trailer(f, len, frame_end, flags);
	}

	get_reth(ext, &p->reth);
	if (blue_op_has_imm(b->opcode))
		p->imm = wire_get_be32(ext + 16);
	p->pad = (uint8_t)(p->reth.va & 3);
	if (rest < p->pad)
		return BLUE_WIRE_E_LENGTH;
	if (!all_zero(f + AREA_END, p->pad))
		return BLUE_WIRE_E_EXT_NONZERO;
	p->payload_off = AREA_END + p->pad;
	p->payload_len = rest - p->pad;
	if (p->payload_len > BLUE_WIRE_MAX_PAYLOAD || !dlen_ok(b->opcode, p->reth.dlen, p->payload_len))
		return BLUE_WIRE_E_LENGTH;
	return wire_check_trailer(f, len, frame_end, flags);
}
