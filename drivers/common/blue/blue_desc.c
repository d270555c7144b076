/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor layouts (doc/guides/drivers/blue_hw_interface.md section 3): the per-field asserts,
 * reserved-bit masks and field tables made of blue_desc_fields.h's lists,
 * the names of opcodes, kinds and rings, and the common header. The codecs
 * are in one file per descriptor family (blue_desc_cmd.c, blue_desc_send.c,
 * blue_desc_meta.c, blue_desc_snic.c).
 */
#include <stddef.h>

#include "blue_desc_fields.h"

/* Every field lies inside the 256-bit descriptor and is at most 64 bits wide. */
#define FIELD_ASSERT(f, hi, lo)                                                     \
	static_assert((hi) < 256 && (lo) <= (hi) && (hi) - (lo) < 64,                \
		      "field " #f " [" #hi ":" #lo "] does not fit a 32-byte descriptor");
HDR_FIELDS(FIELD_ASSERT)
CMD_HDR_FIELDS(FIELD_ASSERT)
CMD_MR_FIELDS(FIELD_ASSERT)
CMD_PGT_FIELDS(FIELD_ASSERT)
CMD_QP_FIELDS(FIELD_ASSERT)
CMD_NET_FIELDS(FIELD_ASSERT)
CMD_RAW_FIELDS(FIELD_ASSERT)
SEG0_FIELDS(FIELD_ASSERT)
SEG1_FIELDS(FIELD_ASSERT)
SEG1_SQPN_FIELDS(FIELD_ASSERT)
META_BASIC_FIELDS(FIELD_ASSERT)
META_READ_EXT_FIELDS(FIELD_ASSERT)
META_ACK_FIELDS(FIELD_ASSERT)
META_ACK_EXTRA_FIELDS(FIELD_ASSERT)
SNIC_TX_FIELDS(FIELD_ASSERT)
SNIC_RX_FIELDS(FIELD_ASSERT)

/* The image of every descriptor type is exactly 32 bytes. */
struct blue_desc_image {
	uint8_t b[BLUE_DESC_SIZE];
};
static_assert(sizeof(struct blue_desc_image) == 32, "command descriptor size");
static_assert(2 * sizeof(struct blue_desc_image) == 64, "send item (Seg0 + Seg1) size");
static_assert(sizeof(struct blue_desc_image) == BLUE_DESC_SIZE, "meta report descriptor size");
static_assert(BLUE_RING_BYTES == 128 * 1024, "ring buffer size");

/* ------------------------------------------------------- masks and tables */

/* Mask words: bits [hi:lo] that fall in chunk k (shift counts masked so the
 * untaken branch of the conditional is well-formed too). */
#define MAX_(a, b) ((a) > (b) ? (a) : (b))
#define MIN_(a, b) ((a) < (b) ? (a) : (b))
#define CHUNK_MASK(k, hi, lo)                                                              \
	(((lo) > 64 * (k) + 63 || (hi) < 64 * (k))                                         \
		 ? 0ULL                                                                    \
		 : ((~0ULL >> ((63 - (MIN_((hi), 64 * (k) + 63) - MAX_((lo), 64 * (k)))) & 63)) \
		    << ((MAX_((lo), 64 * (k)) - 64 * (k)) & 63)))
#define M0(f, hi, lo) | CHUNK_MASK(0, hi, lo)
#define M1(f, hi, lo) | CHUNK_MASK(1, hi, lo)
#define M2(f, hi, lo) | CHUNK_MASK(2, hi, lo)
#define M3(f, hi, lo) | CHUNK_MASK(3, hi, lo)
#define LAYOUT_MASK(LIST) { { 0 LIST(M0), 0 LIST(M1), 0 LIST(M2), 0 LIST(M3) } }

#define TAB(f, hi, lo) { #f, hi, lo },

/* Full masks (header included) per layout. */
#define L_HDR(X) HDR_FIELDS(X)
#define L_CMD_HDR(X) HDR_FIELDS(X) CMD_HDR_FIELDS(X)
#define L_CMD_MR(X) L_CMD_HDR(X) CMD_MR_FIELDS(X)
#define L_CMD_PGT(X) L_CMD_HDR(X) CMD_PGT_FIELDS(X)
#define L_CMD_QP(X) L_CMD_HDR(X) CMD_QP_FIELDS(X)
#define L_CMD_NET(X) L_CMD_HDR(X) CMD_NET_FIELDS(X)
#define L_CMD_RAW(X) L_CMD_HDR(X) CMD_RAW_FIELDS(X)
#define L_SEG0(X) HDR_FIELDS(X) SEG0_FIELDS(X)
#define L_SEG1(X) HDR_FIELDS(X) SEG1_FIELDS(X) SEG1_SQPN_FIELDS(X)
#define L_META_BASIC(X) HDR_FIELDS(X) META_BASIC_FIELDS(X)
#define L_META_READ_EXT(X) HDR_FIELDS(X) META_READ_EXT_FIELDS(X)
#define L_META_ACK(X) HDR_FIELDS(X) META_ACK_FIELDS(X)
#define L_META_ACK_EXTRA(X) HDR_FIELDS(X) META_ACK_EXTRA_FIELDS(X)
#define L_SNIC_TX(X) HDR_FIELDS(X) SNIC_TX_FIELDS(X)
#define L_SNIC_RX(X) HDR_FIELDS(X) SNIC_RX_FIELDS(X)

const struct blue_desc_words blue_layout_masks[BLUE_LAYOUT_COUNT] = {
	[BLUE_LAYOUT_HDR] = LAYOUT_MASK(L_HDR),
	[BLUE_LAYOUT_CMD_HDR] = LAYOUT_MASK(L_CMD_HDR),
	[BLUE_LAYOUT_CMD_MR] = LAYOUT_MASK(L_CMD_MR),
	[BLUE_LAYOUT_CMD_PGT] = LAYOUT_MASK(L_CMD_PGT),
	[BLUE_LAYOUT_CMD_QP] = LAYOUT_MASK(L_CMD_QP),
	[BLUE_LAYOUT_CMD_NET] = LAYOUT_MASK(L_CMD_NET),
	[BLUE_LAYOUT_CMD_RAW] = LAYOUT_MASK(L_CMD_RAW),
	[BLUE_LAYOUT_SEG0] = LAYOUT_MASK(L_SEG0),
	[BLUE_LAYOUT_SEG1] = LAYOUT_MASK(L_SEG1),
	[BLUE_LAYOUT_META_BASIC] = LAYOUT_MASK(L_META_BASIC),
	[BLUE_LAYOUT_META_READ_EXT] = LAYOUT_MASK(L_META_READ_EXT),
	[BLUE_LAYOUT_META_ACK] = LAYOUT_MASK(L_META_ACK),
	[BLUE_LAYOUT_META_ACK_EXTRA] = LAYOUT_MASK(L_META_ACK_EXTRA),
	[BLUE_LAYOUT_SNIC_TX] = LAYOUT_MASK(L_SNIC_TX),
	[BLUE_LAYOUT_SNIC_RX] = LAYOUT_MASK(L_SNIC_RX),
};

static const struct blue_field f_hdr[] = { HDR_FIELDS(TAB) };
static const struct blue_field f_cmd_hdr[] = { CMD_HDR_FIELDS(TAB) };
static const struct blue_field f_cmd_mr[] = { CMD_MR_FIELDS(TAB) };
static const struct blue_field f_cmd_pgt[] = { CMD_PGT_FIELDS(TAB) };
static const struct blue_field f_cmd_qp[] = { CMD_QP_FIELDS(TAB) };
static const struct blue_field f_cmd_net[] = { CMD_NET_FIELDS(TAB) };
static const struct blue_field f_cmd_raw[] = { CMD_RAW_FIELDS(TAB) };
static const struct blue_field f_seg0[] = { SEG0_FIELDS(TAB) };
static const struct blue_field f_seg1[] = { SEG1_FIELDS(TAB) SEG1_SQPN_FIELDS(TAB) };
static const struct blue_field f_meta_basic[] = { META_BASIC_FIELDS(TAB) };
static const struct blue_field f_meta_read_ext[] = { META_READ_EXT_FIELDS(TAB) };
static const struct blue_field f_meta_ack[] = { META_ACK_FIELDS(TAB) };
static const struct blue_field f_meta_ack_extra[] = { META_ACK_EXTRA_FIELDS(TAB) };
static const struct blue_field f_snic_tx[] = { SNIC_TX_FIELDS(TAB) };
static const struct blue_field f_snic_rx[] = { SNIC_RX_FIELDS(TAB) };

#define NF(a) (unsigned int)(sizeof(a) / sizeof((a)[0]))

const struct blue_field *
blue_layout_fields(enum blue_layout l, unsigned int *n)
{
	static const struct {
		const struct blue_field *f;
		unsigned int n;
	} tab[BLUE_LAYOUT_COUNT] = {
		[BLUE_LAYOUT_HDR] = { f_hdr, NF(f_hdr) },
		[BLUE_LAYOUT_CMD_HDR] = { f_cmd_hdr, NF(f_cmd_hdr) },
		[BLUE_LAYOUT_CMD_MR] = { f_cmd_mr, NF(f_cmd_mr) },
		[BLUE_LAYOUT_CMD_PGT] = { f_cmd_pgt, NF(f_cmd_pgt) },
		[BLUE_LAYOUT_CMD_QP] = { f_cmd_qp, NF(f_cmd_qp) },
		[BLUE_LAYOUT_CMD_NET] = { f_cmd_net, NF(f_cmd_net) },
		[BLUE_LAYOUT_CMD_RAW] = { f_cmd_raw, NF(f_cmd_raw) },
		[BLUE_LAYOUT_SEG0] = { f_seg0, NF(f_seg0) },
		[BLUE_LAYOUT_SEG1] = { f_seg1, NF(f_seg1) },
		[BLUE_LAYOUT_META_BASIC] = { f_meta_basic, NF(f_meta_basic) },
		[BLUE_LAYOUT_META_READ_EXT] = { f_meta_read_ext, NF(f_meta_read_ext) },
		[BLUE_LAYOUT_META_ACK] = { f_meta_ack, NF(f_meta_ack) },
		[BLUE_LAYOUT_META_ACK_EXTRA] = { f_meta_ack_extra, NF(f_meta_ack_extra) },
		[BLUE_LAYOUT_SNIC_TX] = { f_snic_tx, NF(f_snic_tx) },
		[BLUE_LAYOUT_SNIC_RX] = { f_snic_rx, NF(f_snic_rx) },
	};

	if ((unsigned int)l >= BLUE_LAYOUT_COUNT) {
		*n = 0;
		return NULL;
	}
	*n = tab[l].n;
	return tab[l].f;
}

void
blue_layout_mask(enum blue_layout l, struct blue_desc_words *mask)
{
	if ((unsigned int)l >= BLUE_LAYOUT_COUNT)
		l = BLUE_LAYOUT_HDR;
	*mask = blue_layout_masks[l];
}

/* ------------------------------------------------------------------ names */

const char *
blue_desc_strerror(int err)
{
	static const char *const names[BLUE_DESC_E_COUNT] = {
		[0] = "ok",
		[-BLUE_DESC_E_RESERVED] = "reserved bits set",
		[-BLUE_DESC_E_OPCODE] = "unknown opcode",
		[-BLUE_DESC_E_UNSUPPORTED] = "opcode not executed by the card",
		[-BLUE_DESC_E_HAS_NEXT] = "has_next does not match the item layout",
		[-BLUE_DESC_E_PAIR] = "the two descriptors of an item disagree",
		[-BLUE_DESC_E_COMBINATION] = "impossible combination of flags",
		[-BLUE_DESC_E_RANGE] = "field value out of range",
		[-BLUE_DESC_E_EXTENDED] = "wrong is_extended_opcode for this ring",
		[-BLUE_DESC_E_NEED_NEXT] = "second descriptor of the item missing",
		[-BLUE_DESC_E_NOT_VALID] = "valid bit clear",
		[-BLUE_DESC_E_ARG] = "bad argument",
	};

	if (err > 0 || err <= -BLUE_DESC_E_COUNT)
		return "unknown error";
	return names[-err];
}

const char *
blue_cmd_opcode_name(uint8_t op)
{
	static const char *const names[] = {
		[BLUE_CMD_UPDATE_MR_TABLE] = "UpdateMrTable",
		[BLUE_CMD_UPDATE_PGT] = "UpdatePGT",
		[BLUE_CMD_MANAGE_QP] = "ManageQp",
		[BLUE_CMD_SET_NETWORK_PARAM] = "SetNetworkParam",
		[BLUE_CMD_SET_RAW_PACKET_RECEIVE_META] = "SetRawPacketReceiveMeta",
		[BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT] = "UpdateErrorPsnRecoverPoint",
	};

	return op < NF(names) ? names[op] : "?";
}

const char *
blue_meta_kind_name(enum blue_meta_kind kind)
{
	static const char *const names[BLUE_META_KIND_COUNT] = {
		[BLUE_META_HEADER_WRITE] = "HeaderWrite",
		[BLUE_META_CNP] = "Cnp",
		[BLUE_META_HEADER_READ] = "HeaderRead",
		[BLUE_META_ACK_REMOTE_DRIVER] = "AckRemoteDriver",
		[BLUE_META_ACK_LOCAL_HW] = "AckLocalHw",
		[BLUE_META_NAK_REMOTE_DRIVER] = "NakRemoteDriver",
		[BLUE_META_NAK_LOCAL_HW] = "NakLocalHw",
		[BLUE_META_NAK_REMOTE_HW] = "NakRemoteHw",
	};

	return (unsigned int)kind < BLUE_META_KIND_COUNT ? names[kind] : "?";
}

const char *
blue_pkt_opcode_name(uint8_t op)
{
	static const char *const names[] = {
		"SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE",
		"SEND_ONLY", "SEND_ONLY_WITH_IMMEDIATE", "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE",
		"RDMA_WRITE_LAST", "RDMA_WRITE_LAST_WITH_IMMEDIATE", "RDMA_WRITE_ONLY",
		"RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RDMA_READ_REQUEST", "RDMA_READ_RESPONSE_FIRST",
		"RDMA_READ_RESPONSE_MIDDLE", "RDMA_READ_RESPONSE_LAST", "RDMA_READ_RESPONSE_ONLY",
		"ACKNOWLEDGE",
	};

	return op < NF(names) ? names[op] : "?";
}

const char *
blue_wr_opcode_name(uint8_t op)
{
	static const char *const names[] = {
		"RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "SEND", "SEND_WITH_IMM", "RDMA_READ",
		"ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD", "LOCAL_INV", "BIND_MW",
		"SEND_WITH_INV", "TSO", "DRIVER1", "RDMA_READ_RESP", "RDMA_ACK", "FLUSH",
		"ATOMIC_WRITE",
	};

	return op < NF(names) ? names[op] : "?";
}

enum blue_pkt_pos
blue_op_pos(uint8_t op)
{
	switch (op) {
	case BLUE_OP_SEND_FIRST:
	case BLUE_OP_WRITE_FIRST:
	case BLUE_OP_READ_RESPONSE_FIRST:
		return BLUE_POS_FIRST;
	case BLUE_OP_SEND_MIDDLE:
	case BLUE_OP_WRITE_MIDDLE:
	case BLUE_OP_READ_RESPONSE_MIDDLE:
		return BLUE_POS_MIDDLE;
	case BLUE_OP_SEND_LAST:
	case BLUE_OP_SEND_LAST_WITH_IMM:
	case BLUE_OP_WRITE_LAST:
	case BLUE_OP_WRITE_LAST_WITH_IMM:
	case BLUE_OP_READ_RESPONSE_LAST:
		return BLUE_POS_LAST;
	default:
		return BLUE_POS_ONLY;
	}
}

unsigned int
blue_pmtu_code(uint32_t bytes)
{
	for (unsigned int c = BLUE_PMTU_256; c <= BLUE_PMTU_4096; c++)
		if (blue_pmtu_bytes(c) == bytes)
			return c;
	return 0;
}

uint32_t
blue_ring_csr_base(enum blue_ring_id ring)
{
	static const uint32_t base[BLUE_RING_COUNT] = {
		[BLUE_RING_SEND0] = BLUE_SEND_RING_BASE(0),
		[BLUE_RING_META0] = BLUE_META_RING_BASE(0),
		[BLUE_RING_CMD_REQ] = BLUE_CMD_REQ_RING_BASE,
		[BLUE_RING_CMD_RESP] = BLUE_CMD_RESP_RING_BASE,
		[BLUE_RING_SIMPLE_NIC_TX] = BLUE_SIMPLE_NIC_TX_RING_BASE,
		[BLUE_RING_SIMPLE_NIC_RX] = BLUE_SIMPLE_NIC_RX_RING_BASE,
	};

	return (unsigned int)ring < BLUE_RING_COUNT ? base[ring] : 0;
}

bool
blue_ring_is_c2h(enum blue_ring_id ring)
{
	return ring == BLUE_RING_META0 || ring == BLUE_RING_CMD_RESP ||
	       ring == BLUE_RING_SIMPLE_NIC_RX;
}

const char *
blue_ring_name(enum blue_ring_id ring)
{
	static const char *const names[BLUE_RING_COUNT] = {
		[BLUE_RING_SEND0] = "Send ch0",
		[BLUE_RING_META0] = "MetaReport ch0",
		[BLUE_RING_CMD_REQ] = "CmdReq",
		[BLUE_RING_CMD_RESP] = "CmdResp",
		[BLUE_RING_SIMPLE_NIC_TX] = "SimpleNicTx",
		[BLUE_RING_SIMPLE_NIC_RX] = "SimpleNicRx",
	};

	return (unsigned int)ring < BLUE_RING_COUNT ? names[ring] : "?";
}

/* ----------------------------------------------------------------- header */

void
blue_desc_hdr_get(const void *desc, struct blue_desc_hdr *hdr)
{
	struct blue_desc_words dw;

	blue_desc_load(&dw, desc);
	blue_desc_hdr_decode(&dw, hdr);
}
