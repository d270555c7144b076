/* SPDX-License-Identifier: BSD-3-Clause */
/* ORDK control frames: round trip of each type, golden header, every reject. */
#include <criterion/criterion.h>
#include <string.h>

#include "blue_wire.h"

static const struct blue_wire_l3 addrs = {
	.dst_mac = 0x020000000002ull, .src_mac = 0x020000000001ull, .src_ip = 0x0A000001,
	.dst_ip = 0x0A000002, .ttl = 64,
};

static void
roundtrip(const struct blue_ctrl_msg *m)
{
	uint8_t buf[1500];
	struct blue_ctrl_msg o;
	struct blue_wire_l3 l3;
	int n, rc;

	n = blue_wire_ctrl_build(buf, sizeof(buf), &addrs, m);
	cr_assert_gt(n, 0, "%s: %s", blue_ctrl_type_name(m->type), blue_wire_strerror(n));
	cr_assert_eq(blue_wire_classify(buf, (uint32_t)n), BLUE_WIRE_CLASS_OTHER,
		     "control frames take the SimpleNic path");
	rc = blue_wire_ctrl_parse(buf, (uint32_t)n, &l3, &o);
	cr_assert_eq(rc, 0, "%s", blue_wire_strerror(rc));
	cr_assert_eq(l3.src_port, BLUE_WIRE_CTRL_UDP_PORT);
	cr_assert_eq(l3.dst_port, BLUE_WIRE_CTRL_UDP_PORT);
	cr_assert_eq(l3.dst_ip, addrs.dst_ip);
	cr_assert_eq(o.type, m->type);
	cr_assert_eq(o.flags, m->flags);
	cr_assert_eq(o.src_qpn, m->src_qpn);
	cr_assert_eq(o.dst_qpn, m->dst_qpn);
	cr_assert_eq(o.seq, m->seq);
	cr_assert_eq(o.ack, m->ack);
	switch (m->type) {
	case BLUE_CTRL_RECV_ADVERT:
		cr_assert_eq(o.advert.count, m->advert.count);
		for (unsigned int i = 0; i < m->advert.count; i++) {
			cr_assert_eq(o.advert.e[i].recv_seq, m->advert.e[i].recv_seq);
			cr_assert_eq(o.advert.e[i].length, m->advert.e[i].length);
			cr_assert_eq(o.advert.e[i].addr, m->advert.e[i].addr);
			cr_assert_eq(o.advert.e[i].rkey, m->advert.e[i].rkey);
		}
		break;
	case BLUE_CTRL_RECV_ADVERT_ACK:
		cr_assert_eq(o.advert_ack.recv_seq, m->advert_ack.recv_seq);
		cr_assert_eq(o.advert_ack.want, m->advert_ack.want);
		break;
	case BLUE_CTRL_ATOMIC_REQ:
		cr_assert_eq(o.atomic_req.req_id, m->atomic_req.req_id);
		cr_assert_eq(o.atomic_req.op, m->atomic_req.op);
		cr_assert_eq(o.atomic_req.raddr, m->atomic_req.raddr);
		cr_assert_eq(o.atomic_req.rkey, m->atomic_req.rkey);
		cr_assert_eq(o.atomic_req.psn, m->atomic_req.psn);
		cr_assert_eq(o.atomic_req.compare_add, m->atomic_req.compare_add);
		cr_assert_eq(o.atomic_req.swap, m->atomic_req.swap);
		break;
	case BLUE_CTRL_ACK_REQ:
		cr_assert_eq(o.ack_req.psn, m->ack_req.psn);
		break;
	case BLUE_CTRL_READ_NAK:
		cr_assert_eq(o.read_nak.psn, m->read_nak.psn);
		cr_assert_eq(o.read_nak.status, m->read_nak.status);
		break;
	case BLUE_CTRL_RECV_STATE:
		cr_assert_eq(o.recv_state.posted, m->recv_state.posted);
		break;
	default:
		cr_assert_eq(o.atomic_resp.req_id, m->atomic_resp.req_id);
		cr_assert_eq(o.atomic_resp.status, m->atomic_resp.status);
		cr_assert_eq(o.atomic_resp.orig, m->atomic_resp.orig);
	}
}

Test(wire_ctrl, roundtrip_every_type)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_RECV_ADVERT, .flags = 3, .src_qpn = 0x123456,
				   .dst_qpn = 0xABCDEF, .seq = 0xFFFFFFFE, .ack = 77 };

	for (unsigned int count = 1; count <= BLUE_CTRL_MAX_ADVERTS; count += 31) {
		m.advert.count = (uint16_t)count;
		for (unsigned int i = 0; i < count; i++)
			m.advert.e[i] = (struct blue_ctrl_advert){ .recv_seq = 1000 + i,
								   .length = 4096 * i + 1,
								   .addr = 0x7F0000000000ull + i,
								   .rkey = 0x100 + i };
		roundtrip(&m);
	}
	memset(&m, 0, sizeof(m));
	m.type = BLUE_CTRL_RECV_ADVERT_ACK;
	m.advert_ack.recv_seq = 0xDEADBEEF;
	roundtrip(&m);
	m.advert_ack.want = 0xFEEDF00D; /* what a sender to an SRQ wants advertised */
	roundtrip(&m);
	m.flags = BLUE_CTRL_F_ASK; /* its RNR budget ran out: what did you post? */
	roundtrip(&m);
	memset(&m, 0, sizeof(m));
	m.type = BLUE_CTRL_RECV_STATE; /* the answer */
	m.recv_state.posted = 0xFFFFFFFF;
	roundtrip(&m);
	cr_assert_str_eq(blue_ctrl_type_name(BLUE_CTRL_RECV_STATE), "RECV_STATE");
	{
		uint8_t buf[128];
		struct blue_ctrl_msg o;
		struct blue_wire_l3 l3;
		int n = blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m);

		cr_assert_eq(n, 42 + 24 + 8);
		buf[n - 1] = 1; /* its reserved word */
		cr_assert_eq(blue_wire_ctrl_parse(buf, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_FIELD);
	}
	m.type = BLUE_CTRL_ATOMIC_REQ;
	m.atomic_req.req_id = 9;
	m.atomic_req.op = BLUE_CTRL_ATOMIC_CMP_AND_SWP;
	m.atomic_req.raddr = 0x7F0000001008ull;
	m.atomic_req.rkey = 0x4321;
	m.atomic_req.psn = 0xFEDCBA;
	m.atomic_req.compare_add = 0x0102030405060708ull;
	m.atomic_req.swap = 0xF0E0D0C0B0A09080ull;
	roundtrip(&m);
	m.atomic_req.op = BLUE_CTRL_ATOMIC_FETCH_AND_ADD;
	roundtrip(&m);
	m.atomic_req.psn = 1u << 24;
	{
		uint8_t buf[128];

		cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), BLUE_WIRE_E_CTRL_FIELD,
			     "an atomic's PSN above 24 bits");
	}
	memset(&m, 0, sizeof(m));
	m.type = BLUE_CTRL_ATOMIC_RESP;
	m.atomic_resp.req_id = 10;
	m.atomic_resp.status = BLUE_CTRL_ATOMIC_REM_INV_REQ;
	m.atomic_resp.orig = 0x8877665544332211ull;
	roundtrip(&m);
	memset(&m, 0, sizeof(m));
	m.type = BLUE_CTRL_ACK_REQ;
	m.ack_req.psn = 0xABCDEF;
	roundtrip(&m);
	m.ack_req.psn = 1u << 24;
	{
		uint8_t buf[128];

		cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), BLUE_WIRE_E_CTRL_FIELD,
			     "PSN above 24 bits");
	}
}

Test(wire_ctrl, read_nak)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_READ_NAK, .src_qpn = 0x10, .dst_qpn = 0x20 };
	struct blue_wire_l3 l3;
	uint8_t buf[128];
	int n;

	m.read_nak.psn = 0xFEDCBA;
	m.read_nak.status = BLUE_CTRL_ATOMIC_REM_INV_REQ;
	roundtrip(&m);
	m.read_nak.status = BLUE_CTRL_ATOMIC_REM_ACCESS_ERR;
	roundtrip(&m);
	cr_assert_str_eq(blue_ctrl_type_name(BLUE_CTRL_READ_NAK), "READ_NAK");
	m.read_nak.status = BLUE_CTRL_ATOMIC_OK;
	cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), BLUE_WIRE_E_CTRL_FIELD,
		     "a READ_NAK says why");
	m.read_nak.status = BLUE_CTRL_ATOMIC_REM_INV_REQ;
	n = blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m);
	cr_assert_gt(n, 0);
	/* a reserved byte set */
	buf[n - 1] = 1;
	cr_assert_eq(blue_wire_ctrl_parse(buf, (uint32_t)n, &l3, &m), BLUE_WIRE_E_CTRL_FIELD);
}

/* Header bytes written out from blue_wire.h's layout comment. */
Test(wire_ctrl, golden_header)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_RECV_ADVERT_ACK, .flags = 0x5A,
				   .src_qpn = 0x010203, .dst_qpn = 0x040506, .seq = 0x0708090A,
				   .ack = 0x0B0C0D0E };
	static const uint8_t want[32] = {
		0x4F, 0x52, 0x01, 0x02, 0x5A, 0x00, 0x00, 0x08, 0x00, 0x01, 0x02, 0x03,
		0x00, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
		0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0,
	};
	uint8_t buf[128];

	m.advert_ack.recv_seq = 0x11223344;
	cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), 42 + 32);
	for (int i = 0; i < 32; i++)
		cr_assert_eq(buf[42 + i], want[i], "byte %d", i);
	cr_assert_eq(buf[36], 0x12);
	cr_assert_eq(buf[37], 0xB8, "UDP 4792");
}

static int
good_frame(uint8_t *buf)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_ATOMIC_REQ };

	m.atomic_req.op = BLUE_CTRL_ATOMIC_FETCH_AND_ADD;
	return blue_wire_ctrl_build(buf, 256, &addrs, &m);
}

Test(wire_ctrl, every_reject_reason)
{
	uint8_t f[256];
	struct blue_ctrl_msg o;
	struct blue_wire_l3 l3;
	int n = good_frame(f);

	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), 0);
	f[37] = 0xB7;
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_NOT_CTRL_PORT);
	n = good_frame(f);
	f[42] = 0;
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_MAGIC);
	n = good_frame(f);
	f[44] = 2;
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_VERSION);
	n = good_frame(f);
	f[45] = 9; /* beyond ACK_REQ (5) */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_TYPE);
	n = good_frame(f);
	f[45] = BLUE_CTRL_ATOMIC_RESP; /* 40-byte body for a 16-byte type */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_LEN);
	n = good_frame(f);
	f[49] = 41; /* body_len disagrees with UDP */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_LEN);
	n = good_frame(f);
	f[70] = 3; /* atomic op 3 */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_FIELD);
	n = good_frame(f);
	f[71] = 1; /* reserved after op */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_FIELD);
	n = good_frame(f);
	f[86] = 1; /* the atomic's PSN above 24 bits */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_FIELD);
	n = good_frame(f);
	f[47] = 1; /* reserved header byte */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_FIELD);
	n = good_frame(f);
	f[50] = 1; /* src_qpn above 24 bits */
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_FIELD);
	n = good_frame(f);
	cr_assert_eq(blue_wire_ctrl_parse(f, 60, &l3, &o), BLUE_WIRE_E_IP_LEN);
	cr_assert_eq(blue_wire_ctrl_parse(f, (uint32_t)n + 1, &l3, &o), BLUE_WIRE_E_TRAILING);
}

Test(wire_ctrl, advert_count_limits)
{
	struct blue_ctrl_msg m = { .type = BLUE_CTRL_RECV_ADVERT };
	uint8_t buf[2048];
	struct blue_ctrl_msg o;
	struct blue_wire_l3 l3;
	int n;

	m.advert.count = 0;
	cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), BLUE_WIRE_E_CTRL_FIELD);
	m.advert.count = BLUE_CTRL_MAX_ADVERTS + 1;
	cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), BLUE_WIRE_E_CTRL_FIELD);
	m.advert.count = 2;
	n = blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m);
	cr_assert_gt(n, 0);
	buf[67] = 3; /* count says 3, body holds 2 */
	cr_assert_eq(blue_wire_ctrl_parse(buf, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_LEN);
	buf[67] = 2;
	buf[66 + 4 + 20] = 1; /* reserved bytes of the first entry */
	cr_assert_eq(blue_wire_ctrl_parse(buf, (uint32_t)n, &l3, &o), BLUE_WIRE_E_CTRL_FIELD);
	cr_assert_eq(blue_wire_ctrl_build(buf, 60, &addrs, &m), BLUE_WIRE_E_NOSPACE);
	m.type = 0;
	cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), BLUE_WIRE_E_CTRL_TYPE);
	m.type = BLUE_CTRL_ATOMIC_RESP;
	m.atomic_resp.status = 7;
	cr_assert_eq(blue_wire_ctrl_build(buf, sizeof(buf), &addrs, &m), BLUE_WIRE_E_CTRL_FIELD);
	cr_assert_str_eq(blue_ctrl_type_name(BLUE_CTRL_ATOMIC_REQ), "ATOMIC_REQ");
	cr_assert_str_eq(blue_ctrl_type_name(0), "?");
}
