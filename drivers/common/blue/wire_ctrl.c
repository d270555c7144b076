/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ORDK control frames: UDP 4792, so the card hands them to the SimpleNic RX
 * ring. They carry what the card has no wire format for: RECV advertisements
 * (in-band SEND/RECV matching), software atomics, probes and READ refusals. Layout: blue_wire.h and
 * doc/guides/prog_guide/wire_formats.md.
 */
#include <string.h>

#include "blue_wire.h"
#include "wire_bytes.h"
#include "wire_internal.h"

#define ADVERT_HDR_LEN	   4u  /* count (u16) + reserved (u16) */
#define ADVERT_ACK_LEN	   8u  /* recv_seq (u32) + want (u32) */
#define ATOMIC_REQ_LEN	   40u /* req_id 4, op 1, rsvd 3, raddr 8, rkey 4, psn 4, cmp/add 8, swap 8 */
#define ATOMIC_RESP_LEN	   16u /* req_id 4, status 1, rsvd 3, orig 8 */
#define ACK_REQ_LEN	   8u  /* psn (u32) + reserved (u32) */
#define READ_NAK_LEN	   8u  /* psn (u32) + status (u8) + reserved (3) */
#define RECV_STATE_LEN	   8u  /* posted (u32) + reserved (u32) */

const char *
blue_ctrl_type_name(uint8_t type)
{
	switch (type) {
	case BLUE_CTRL_RECV_ADVERT:
		return "RECV_ADVERT";
	case BLUE_CTRL_RECV_ADVERT_ACK:
		return "RECV_ADVERT_ACK";
	case BLUE_CTRL_ATOMIC_REQ:
		return "ATOMIC_REQ";
	case BLUE_CTRL_ATOMIC_RESP:
		return "ATOMIC_RESP";
	case BLUE_CTRL_ACK_REQ:
		return "ACK_REQ";
	case BLUE_CTRL_READ_NAK:
		return "READ_NAK";
	case BLUE_CTRL_RECV_STATE:
		return "RECV_STATE";
	default:
		return "?";
	}
}

int
blue_ctrl_body_len(const struct blue_ctrl_msg *msg)
{
	if (msg == NULL)
		return BLUE_WIRE_E_ARG;
	switch (msg->type) {
	case BLUE_CTRL_RECV_ADVERT:
		if (msg->advert.count == 0 || msg->advert.count > BLUE_CTRL_MAX_ADVERTS)
			return BLUE_WIRE_E_CTRL_FIELD;
		return (int)(ADVERT_HDR_LEN + BLUE_CTRL_ADVERT_LEN * msg->advert.count);
	case BLUE_CTRL_RECV_ADVERT_ACK:
		return ADVERT_ACK_LEN;
	case BLUE_CTRL_ATOMIC_REQ:
		return ATOMIC_REQ_LEN;
	case BLUE_CTRL_ATOMIC_RESP:
		return ATOMIC_RESP_LEN;
	case BLUE_CTRL_ACK_REQ:
		return ACK_REQ_LEN;
	case BLUE_CTRL_READ_NAK:
		return READ_NAK_LEN;
	case BLUE_CTRL_RECV_STATE:
		return RECV_STATE_LEN;
	default:
		return BLUE_WIRE_E_CTRL_TYPE;
	}
}

/* The body of @p msg at @p body (zeroed, long enough): 0 or BLUE_WIRE_E_CTRL_FIELD. */
static int
body_build(uint8_t *body, const struct blue_ctrl_msg *msg)
{
	switch (msg->type) {
	case BLUE_CTRL_RECV_ADVERT:
		wire_put_be16(body, msg->advert.count);
		for (unsigned int i = 0; i < msg->advert.count; i++) {
			uint8_t *e = body + ADVERT_HDR_LEN + i * BLUE_CTRL_ADVERT_LEN;

			wire_put_be32(e, msg->advert.e[i].recv_seq);
			wire_put_be32(e + 4, msg->advert.e[i].length);
			wire_put_be64(e + 8, msg->advert.e[i].addr);
			wire_put_be32(e + 16, msg->advert.e[i].rkey);
		}
		break;
	case BLUE_CTRL_RECV_ADVERT_ACK:
		wire_put_be32(body, msg->advert_ack.recv_seq);
		wire_put_be32(body + 4, msg->advert_ack.want);
		break;
	case BLUE_CTRL_ACK_REQ:
		if (msg->ack_req.psn > BLUE_PSN_MASK)
			return BLUE_WIRE_E_CTRL_FIELD;
		wire_put_be32(body, msg->ack_req.psn);
		break;
	case BLUE_CTRL_READ_NAK:
		if (msg->read_nak.psn > BLUE_PSN_MASK || msg->read_nak.status == BLUE_CTRL_ATOMIC_OK ||
		    msg->read_nak.status > BLUE_CTRL_ATOMIC_STATUS_MAX)
			return BLUE_WIRE_E_CTRL_FIELD;
		wire_put_be32(body, msg->read_nak.psn);
		body[4] = msg->read_nak.status;
		break;
	case BLUE_CTRL_RECV_STATE:
		wire_put_be32(body, msg->recv_state.posted);
		break;
	case BLUE_CTRL_ATOMIC_REQ:
		if (msg->atomic_req.psn > BLUE_PSN_MASK)
			return BLUE_WIRE_E_CTRL_FIELD;
		wire_put_be32(body, msg->atomic_req.req_id);
		body[4] = msg->atomic_req.op;
		wire_put_be64(body + 8, msg->atomic_req.raddr);
		wire_put_be32(body + 16, msg->atomic_req.rkey);
		wire_put_be32(body + 20, msg->atomic_req.psn);
		wire_put_be64(body + 24, msg->atomic_req.compare_add);
		wire_put_be64(body + 32, msg->atomic_req.swap);
		break;
	default: /* ATOMIC_RESP */
		wire_put_be32(body, msg->atomic_resp.req_id);
		body[4] = msg->atomic_resp.status;
		wire_put_be64(body + 8, msg->atomic_resp.orig);
		break;
	}
	return 0;
}

int
blue_wire_ctrl_build(void *buf, uint32_t cap, const struct blue_wire_l3 *l3,
		     const struct blue_ctrl_msg *msg)
{
	struct blue_wire_l3 a;
	uint8_t *f = buf, *h;
	uint32_t total;
	int blen, rc;

	if (buf == NULL || l3 == NULL || msg == NULL)
		return BLUE_WIRE_E_ARG;
	blen = blue_ctrl_body_len(msg);
	if (blen < 0)
		return blen;
	if (msg->src_qpn > BLUE_QPN_MASK || msg->dst_qpn > BLUE_QPN_MASK)
		return BLUE_WIRE_E_CTRL_FIELD;
	if (msg->type == BLUE_CTRL_ATOMIC_REQ &&
	    msg->atomic_req.op != BLUE_CTRL_ATOMIC_CMP_AND_SWP &&
	    msg->atomic_req.op != BLUE_CTRL_ATOMIC_FETCH_AND_ADD)
		return BLUE_WIRE_E_CTRL_FIELD;
	if (msg->type == BLUE_CTRL_ATOMIC_RESP &&
	    msg->atomic_resp.status > BLUE_CTRL_ATOMIC_STATUS_MAX)
		return BLUE_WIRE_E_CTRL_FIELD;
	total = WIRE_L4_PAYLOAD_OFF + BLUE_CTRL_HLEN + (uint32_t)blen;
	if (cap < total)
		return BLUE_WIRE_E_NOSPACE;

	memset(f, 0, total);
	a = *l3;
	a.src_port = BLUE_WIRE_CTRL_UDP_PORT;
	a.dst_port = BLUE_WIRE_CTRL_UDP_PORT;
	wire_l3_build(f, &a, BLUE_CTRL_HLEN + (uint32_t)blen);

	h = f + WIRE_L4_PAYLOAD_OFF;
	wire_put_be16(h, BLUE_CTRL_MAGIC);
	h[2] = BLUE_CTRL_VERSION;
	h[3] = msg->type;
	h[4] = msg->flags;
	wire_put_be16(h + 6, (uint16_t)blen);
	wire_put_be32(h + 8, msg->src_qpn);
	wire_put_be32(h + 12, msg->dst_qpn);
	wire_put_be32(h + 16, msg->seq);
	wire_put_be32(h + 20, msg->ack);
	rc = body_build(h + BLUE_CTRL_HLEN, msg);
	return rc != 0 ? rc : (int)total;
}

static bool
zero(const uint8_t *p, unsigned int n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* The 24-byte header at @p h of a UDP payload of @p udp_payload bytes; *blen its body length. */
static int
hdr_parse(const uint8_t *h, uint32_t udp_payload, struct blue_ctrl_msg *msg, uint32_t *blen)
{
	if (wire_get_be16(h) != BLUE_CTRL_MAGIC)
		return BLUE_WIRE_E_CTRL_MAGIC;
	if (h[2] != BLUE_CTRL_VERSION)
		return BLUE_WIRE_E_CTRL_VERSION;
	msg->type = h[3];
	msg->flags = h[4];
	if (h[5] != 0)
		return BLUE_WIRE_E_CTRL_FIELD;
	*blen = wire_get_be16(h + 6);
	if (*blen != udp_payload - BLUE_CTRL_HLEN)
		return BLUE_WIRE_E_CTRL_LEN;
	msg->src_qpn = wire_get_be32(h + 8);
	msg->dst_qpn = wire_get_be32(h + 12);
	msg->seq = wire_get_be32(h + 16);
	msg->ack = wire_get_be32(h + 20);
	if (msg->src_qpn > BLUE_QPN_MASK || msg->dst_qpn > BLUE_QPN_MASK)
		return BLUE_WIRE_E_CTRL_FIELD;
	return 0;
}

/* The body at @p body, its length checked against the type: 0 or a reason. */
static int
body_parse(const uint8_t *body, struct blue_ctrl_msg *msg)
{
	switch (msg->type) {
	case BLUE_CTRL_RECV_ADVERT:
		for (unsigned int i = 0; i < msg->advert.count; i++) {
			const uint8_t *e = body + ADVERT_HDR_LEN + i * BLUE_CTRL_ADVERT_LEN;

			if (!zero(e + 20, 4))
				return BLUE_WIRE_E_CTRL_FIELD;
			msg->advert.e[i].recv_seq = wire_get_be32(e);
			msg->advert.e[i].length = wire_get_be32(e + 4);
			msg->advert.e[i].addr = wire_get_be64(e + 8);
			msg->advert.e[i].rkey = wire_get_be32(e + 16);
		}
		break;
	case BLUE_CTRL_RECV_ADVERT_ACK:
		msg->advert_ack.recv_seq = wire_get_be32(body);
		msg->advert_ack.want = wire_get_be32(body + 4);
		break;
	case BLUE_CTRL_ACK_REQ:
		msg->ack_req.psn = wire_get_be32(body);
		if (!zero(body + 4, 4) || msg->ack_req.psn > BLUE_PSN_MASK)
			return BLUE_WIRE_E_CTRL_FIELD;
		break;
	case BLUE_CTRL_READ_NAK:
		msg->read_nak.psn = wire_get_be32(body);
		msg->read_nak.status = body[4];
		if (!zero(body + 5, 3) || msg->read_nak.psn > BLUE_PSN_MASK ||
		    msg->read_nak.status == BLUE_CTRL_ATOMIC_OK ||
		    msg->read_nak.status > BLUE_CTRL_ATOMIC_STATUS_MAX)
			return BLUE_WIRE_E_CTRL_FIELD;
		break;
	case BLUE_CTRL_RECV_STATE:
		msg->recv_state.posted = wire_get_be32(body);
		if (!zero(body + 4, 4))
			return BLUE_WIRE_E_CTRL_FIELD;
		break;
	case BLUE_CTRL_ATOMIC_REQ:
		msg->atomic_req.psn = wire_get_be32(body + 20);
		if (!zero(body + 5, 3) || msg->atomic_req.psn > BLUE_PSN_MASK)
			return BLUE_WIRE_E_CTRL_FIELD;
		msg->atomic_req.req_id = wire_get_be32(body);
		msg->atomic_req.op = body[4];
		msg->atomic_req.raddr = wire_get_be64(body + 8);
		msg->atomic_req.rkey = wire_get_be32(body + 16);
		msg->atomic_req.compare_add = wire_get_be64(body + 24);
		msg->atomic_req.swap = wire_get_be64(body + 32);
		if (msg->atomic_req.op != BLUE_CTRL_ATOMIC_CMP_AND_SWP &&
		    msg->atomic_req.op != BLUE_CTRL_ATOMIC_FETCH_AND_ADD)
			return BLUE_WIRE_E_CTRL_FIELD;
		break;
	default: /* ATOMIC_RESP */
		if (!zero(body + 5, 3))
			return BLUE_WIRE_E_CTRL_FIELD;
		msg->atomic_resp.req_id = wire_get_be32(body);
		msg->atomic_resp.status = body[4];
		msg->atomic_resp.orig = wire_get_be64(body + 8);
		if (msg->atomic_resp.status > BLUE_CTRL_ATOMIC_STATUS_MAX)
			return BLUE_WIRE_E_CTRL_FIELD;
		break;
	}
	return BLUE_WIRE_OK;
}

int
blue_wire_ctrl_parse(const void *frame, uint32_t len, struct blue_wire_l3 *l3,
		     struct blue_ctrl_msg *msg)
{
	const uint8_t *f = frame, *body;
	uint32_t udp_payload, frame_end, blen;
	int rc, want;

	if (frame == NULL || l3 == NULL || msg == NULL)
		return BLUE_WIRE_E_ARG;
	memset(msg, 0, sizeof(*msg));
	memset(l3, 0, sizeof(*l3));
	rc = wire_l3_parse(f, len, l3, &udp_payload, &frame_end);
	if (rc != 0)
		return rc;
	/* both ports are 4792: the builder writes them so, and a parse must round-trip */
	if (l3->dst_port != BLUE_WIRE_CTRL_UDP_PORT || l3->src_port != BLUE_WIRE_CTRL_UDP_PORT)
		return BLUE_WIRE_E_NOT_CTRL_PORT;
	rc = wire_check_trailer(f, len, frame_end, 0);
	if (rc != 0)
		return rc;
	if (udp_payload < BLUE_CTRL_HLEN)
		return BLUE_WIRE_E_TRUNCATED;

	rc = hdr_parse(f + WIRE_L4_PAYLOAD_OFF, udp_payload, msg, &blen);
	if (rc != 0)
		return rc;
	body = f + WIRE_L4_PAYLOAD_OFF + BLUE_CTRL_HLEN;
	switch (msg->type) {
	case BLUE_CTRL_RECV_ADVERT:
		if (blen < ADVERT_HDR_LEN)
			return BLUE_WIRE_E_CTRL_LEN;
		msg->advert.count = wire_get_be16(body);
		if (!zero(body + 2, 2))
			return BLUE_WIRE_E_CTRL_FIELD;
		break;
	case BLUE_CTRL_ATOMIC_REQ:
	case BLUE_CTRL_RECV_ADVERT_ACK:
	case BLUE_CTRL_ATOMIC_RESP:
	case BLUE_CTRL_ACK_REQ:
	case BLUE_CTRL_READ_NAK:
	case BLUE_CTRL_RECV_STATE:
		break;
	default:
		return BLUE_WIRE_E_CTRL_TYPE;
	}
	want = blue_ctrl_body_len(msg);
	if (want < 0)
		return want;
	if ((uint32_t)want != blen)
		return BLUE_WIRE_E_CTRL_LEN;
	return body_parse(body, msg);
}
