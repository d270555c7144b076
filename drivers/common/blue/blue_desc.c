/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Descriptor codecs (HW-INTERFACE.md section 3). Each layout is an X-macro list
 * of (field, hi, lo) in the document's own bit ranges; the encoder, decoder,
 * reserved-bit masks and the tests' field tables are all generated from it, so
 * a bit range is written down exactly once.
 */
#include <stddef.h>

#include "blue_desc.h"
#include "blue_desc_internal.h"

/* ------------------------------------------------------------ field lists */

/* Common header, bytes 30-31 (section 3). Bits [253:249] are reserved. */
#define HDR_FIELDS(X)                        \
	X(hdr.opcode, 247, 240)              \
	X(hdr.is_extended_opcode, 248, 248)  \
	X(hdr.has_next, 254, 254)            \
	X(hdr.valid, 255, 255)

/* Command common header, bytes 28-29 (section 3.1); [239:233] reserved. */
#define CMD_HDR_FIELDS(X)      \
	X(user_data, 231, 224) \
	X(is_success, 232, 232)

#define CMD_MR_FIELDS(X)            \
	X(mr.mr_base_va, 191, 128)  \
	X(mr.mr_length, 127, 96)    \
	X(mr.mr_key, 95, 64)        \
	X(mr.pd_handle, 63, 32)     \
	X(mr.acc_flags, 31, 24)     \
	X(mr.pgt_offset, 23, 7)

#define CMD_PGT_FIELDS(X)                        \
	X(pgt.dma_addr, 191, 128)                \
	X(pgt.start_index, 127, 96)              \
	X(pgt.zero_based_entry_count, 95, 64)

#define CMD_QP_FIELDS(X)                 \
	X(qp.peer_ip, 223, 192)          \
	X(qp.is_valid, 191, 191)         \
	X(qp.is_error, 190, 190)         \
	X(qp.qpn, 183, 160)              \
	X(qp.peer_qpn, 127, 104)         \
	X(qp.rq_access_flags, 103, 96)   \
	X(qp.qp_type, 95, 92)            \
	X(qp.pmtu, 87, 85)               \
	X(qp.local_udp_port, 63, 48)     \
	X(qp.peer_mac, 47, 0)

#define CMD_NET_FIELDS(X)           \
	X(net.gateway, 191, 160)    \
	X(net.netmask, 159, 128)    \
	X(net.local_ip, 127, 96)    \
	X(net.local_mac, 63, 16)

#define CMD_RAW_FIELDS(X) X(raw.write_base_addr, 191, 128)

/* Send Seg0 / Seg1 (section 3.2). sqpn is split: [231:224] = 7:0, [143:128] = 23:8. */
#define SEG0_FIELDS(X)           \
	X(msn, 239, 224)         \
	X(total_len, 223, 192)   \
	X(rkey, 191, 160)        \
	X(dqp_ip, 159, 128)      \
	X(raddr, 127, 64)        \
	X(psn, 63, 40)           \
	X(qp_type, 39, 36)       \
	X(dqpn, 31, 8)           \
	X(flags, 7, 3)

#define SEG1_FIELDS(X)           \
	X(pmtu, 239, 237)        \
	X(is_first, 236, 236)    \
	X(is_last, 235, 235)     \
	X(is_retry, 234, 234)    \
	X(enable_ecn, 233, 233)  \
	X(imm, 223, 192)         \
	X(dst_mac, 191, 144)     \
	X(lkey, 127, 96)         \
	X(len, 95, 64)           \
	X(laddr, 63, 0)
#define SEG1_SQPN_LO_HI 231
#define SEG1_SQPN_LO_LO 224
#define SEG1_SQPN_HI_HI 143
#define SEG1_SQPN_HI_LO 128
/* for masks and tables only */
#define SEG1_SQPN_FIELDS(X)                           \
	X(sqpn_7_0, SEG1_SQPN_LO_HI, SEG1_SQPN_LO_LO) \
	X(sqpn_23_8, SEG1_SQPN_HI_HI, SEG1_SQPN_HI_LO)

/* MetaReport PacketBasicInfo / ReadReqExtendInfo / Ack / AckExtra (section 3.3). */
#define META_BASIC_FIELDS(X)           \
	X(basic.msn, 239, 224)         \
	X(basic.psn, 223, 200)         \
	X(basic.ecn_marked, 199, 199)  \
	X(basic.solicited, 198, 198)   \
	X(basic.ack_req, 197, 197)     \
	X(basic.is_retry, 196, 196)    \
	X(basic.dqpn, 191, 168)        \
	X(basic.total_len, 159, 128)   \
	X(basic.raddr, 127, 64)        \
	X(basic.rkey, 63, 32)          \
	X(basic.imm_data, 31, 0)

#define META_READ_EXT_FIELDS(X)          \
	X(read_ext.total_len, 223, 192)  \
	X(read_ext.laddr, 191, 128)      \
	X(read_ext.lkey, 127, 96)

#define META_ACK_FIELDS(X)                      \
	X(ack.is_send_by_local_hw, 235, 235)    \
	X(ack.is_send_by_driver, 234, 234)      \
	X(ack.is_window_slided, 233, 233)       \
	X(ack.is_packet_lost, 232, 232)         \
	X(ack.psn_before_slide, 223, 200)       \
	X(ack.psn_now, 191, 168)                \
	X(ack.qpn, 167, 144)                    \
	X(ack.msn, 143, 128)                    \
	X(ack.now_bitmap.hi, 127, 64)           \
	X(ack.now_bitmap.lo, 63, 0)

#define META_ACK_EXTRA_FIELDS(X)          \
	X(ack.pre_bitmap.hi, 127, 64)     \
	X(ack.pre_bitmap.lo, 63, 0)

#define SNIC_TX_FIELDS(X)      \
	X(len, 223, 192)       \
	X(addr, 191, 128)

#define SNIC_RX_FIELDS(X)      \
	X(len, 223, 192)       \
	X(slot_idx, 191, 160)

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

/* ------------------------------------------------------- generated codecs */

/* Encode: fail when a value does not fit, else write it. */
#define ENC(f, hi, lo)                                                  \
	do {                                                            \
		uint64_t v_ = (uint64_t)(s->f);                         \
		if (v_ & ~blue_width_mask((hi) - (lo) + 1))             \
			return BLUE_DESC_E_RANGE;                       \
		blue_bits_set(dw, (lo), (hi) - (lo) + 1, v_);           \
	} while (0);
#define DEC(f, hi, lo) s->f = blue_bits_get(dw, (lo), (hi) - (lo) + 1);

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

static const struct blue_desc_words layout_masks[BLUE_LAYOUT_COUNT] = {
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
	*mask = layout_masks[l];
}

static bool
has_reserved_bits(const struct blue_desc_words *dw, enum blue_layout l)
{
	const struct blue_desc_words *m = &layout_masks[l];

	return ((dw->w[0] & ~m->w[0]) | (dw->w[1] & ~m->w[1]) | (dw->w[2] & ~m->w[2]) |
		(dw->w[3] & ~m->w[3])) != 0;
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

static void
hdr_decode(const struct blue_desc_words *dw, struct blue_desc_hdr *h)
{
	struct {
		struct blue_desc_hdr hdr;
	} tmp, *s = &tmp;

	HDR_FIELDS(DEC)
	*h = tmp.hdr;
}

void
blue_desc_hdr_get(const void *desc, struct blue_desc_hdr *hdr)
{
	struct blue_desc_words dw;

	blue_desc_load(&dw, desc);
	hdr_decode(&dw, hdr);
}

static int
hdr_encode(struct blue_desc_words *dw, const struct blue_desc_hdr *h)
{
	const struct {
		struct blue_desc_hdr hdr;
	} tmp = { *h }, *s = &tmp;

	HDR_FIELDS(ENC)
	return BLUE_DESC_OK;
}

/* --------------------------------------------------------------- commands */

static enum blue_layout
cmd_layout(uint8_t op)
{
	switch (op) {
	case BLUE_CMD_UPDATE_MR_TABLE:
		return BLUE_LAYOUT_CMD_MR;
	case BLUE_CMD_UPDATE_PGT:
		return BLUE_LAYOUT_CMD_PGT;
	case BLUE_CMD_MANAGE_QP:
		return BLUE_LAYOUT_CMD_QP;
	case BLUE_CMD_SET_NETWORK_PARAM:
		return BLUE_LAYOUT_CMD_NET;
	case BLUE_CMD_SET_RAW_PACKET_RECEIVE_META:
		return BLUE_LAYOUT_CMD_RAW;
	default:
		return BLUE_LAYOUT_COUNT;
	}
}

int
blue_cmd_encode(const struct blue_cmd *cmd, void *desc)
{
	struct blue_desc_words words = { { 0 } }, *dw = &words;
	const struct blue_cmd *s = cmd;

	if (cmd == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	if (cmd->hdr.opcode == BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT)
		return BLUE_DESC_E_UNSUPPORTED;
	if (cmd->hdr.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (cmd->hdr.has_next)
		return BLUE_DESC_E_HAS_NEXT; /* commands are single-descriptor items */

	HDR_FIELDS(ENC)
	CMD_HDR_FIELDS(ENC)
	switch (cmd->hdr.opcode) {
	case BLUE_CMD_UPDATE_MR_TABLE:
		CMD_MR_FIELDS(ENC)
		break;
	case BLUE_CMD_UPDATE_PGT:
		CMD_PGT_FIELDS(ENC)
		break;
	case BLUE_CMD_MANAGE_QP:
		CMD_QP_FIELDS(ENC)
		break;
	case BLUE_CMD_SET_NETWORK_PARAM:
		CMD_NET_FIELDS(ENC)
		break;
	case BLUE_CMD_SET_RAW_PACKET_RECEIVE_META:
		CMD_RAW_FIELDS(ENC)
		break;
	default:
		return BLUE_DESC_E_OPCODE;
	}
	blue_desc_store(dw, desc);
	return BLUE_DESC_OK;
}

int
blue_cmd_decode(const void *desc, struct blue_cmd *cmd)
{
	struct blue_desc_words words, *dw = &words;
	struct blue_cmd *s = cmd;
	enum blue_layout l;

	if (cmd == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	blue_desc_load(dw, desc);
	memset(cmd, 0, sizeof(*cmd));
	HDR_FIELDS(DEC)
	CMD_HDR_FIELDS(DEC)

	if (cmd->hdr.opcode == BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT)
		return BLUE_DESC_E_UNSUPPORTED;
	l = cmd_layout(cmd->hdr.opcode);
	if (l == BLUE_LAYOUT_COUNT)
		return BLUE_DESC_E_OPCODE;
	if (cmd->hdr.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (cmd->hdr.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (has_reserved_bits(dw, l))
		return BLUE_DESC_E_RESERVED;

	switch (cmd->hdr.opcode) {
	case BLUE_CMD_UPDATE_MR_TABLE:
		CMD_MR_FIELDS(DEC)
		break;
	case BLUE_CMD_UPDATE_PGT:
		CMD_PGT_FIELDS(DEC)
		break;
	case BLUE_CMD_MANAGE_QP:
		CMD_QP_FIELDS(DEC)
		break;
	case BLUE_CMD_SET_NETWORK_PARAM:
		CMD_NET_FIELDS(DEC)
		break;
	default:
		CMD_RAW_FIELDS(DEC)
		break;
	}
	return BLUE_DESC_OK;
}

/* ------------------------------------------------------------- send items */

int
blue_send_item_encode(const struct blue_send_item *item, void *desc2)
{
	struct blue_desc_words w0 = { { 0 } }, w1 = { { 0 } }, *dw;
	const struct blue_send_item *s = item;
	struct blue_desc_hdr h;
	int rc;

	if (item == NULL || desc2 == NULL)
		return BLUE_DESC_E_ARG;
	if (item->sqpn > BLUE_QPN_MASK)
		return BLUE_DESC_E_RANGE;

	h = (struct blue_desc_hdr){ .opcode = item->opcode, .has_next = 1, .valid = item->valid };
	dw = &w0;
	rc = hdr_encode(dw, &h);
	if (rc != 0)
		return rc;
	SEG0_FIELDS(ENC)

	h.has_next = 0;
	dw = &w1;
	rc = hdr_encode(dw, &h);
	if (rc != 0)
		return rc;
	SEG1_FIELDS(ENC)
	blue_bits_set(dw, SEG1_SQPN_LO_LO, 8, item->sqpn & 0xFF);
	blue_bits_set(dw, SEG1_SQPN_HI_LO, 16, item->sqpn >> 8);

	blue_desc_store(&w0, desc2);
	blue_desc_store(&w1, (uint8_t *)desc2 + BLUE_DESC_SIZE);
	return BLUE_DESC_OK;
}

int
blue_send_item_decode(const void *seg0, const void *seg1, struct blue_send_item *item)
{
	struct blue_desc_words w0, w1, *dw;
	struct blue_send_item *s = item;
	struct blue_desc_hdr h0, h1;

	if (seg0 == NULL || item == NULL)
		return BLUE_DESC_E_ARG;
	memset(item, 0, sizeof(*item));
	blue_desc_load(&w0, seg0);
	hdr_decode(&w0, &h0);
	if (h0.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (!h0.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (seg1 == NULL)
		return BLUE_DESC_E_NEED_NEXT;
	blue_desc_load(&w1, seg1);
	hdr_decode(&w1, &h1);
	if (h1.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (h1.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (h0.opcode != h1.opcode)
		return BLUE_DESC_E_PAIR;
	if (h0.opcode > BLUE_WR_ATOMIC_WRITE)
		return BLUE_DESC_E_OPCODE;
	if (!blue_wr_opcode_supported(h0.opcode))
		return BLUE_DESC_E_UNSUPPORTED;
	if (has_reserved_bits(&w0, BLUE_LAYOUT_SEG0) || has_reserved_bits(&w1, BLUE_LAYOUT_SEG1))
		return BLUE_DESC_E_RESERVED;

	item->opcode = h0.opcode;
	item->valid = h0.valid & h1.valid;
	dw = &w0;
	SEG0_FIELDS(DEC)
	dw = &w1;
	SEG1_FIELDS(DEC)
	item->sqpn = (uint32_t)blue_bits_get(dw, SEG1_SQPN_LO_LO, 8) |
		     (uint32_t)blue_bits_get(dw, SEG1_SQPN_HI_LO, 16) << 8;

	if (!blue_pmtu_valid(item->pmtu))
		return BLUE_DESC_E_RANGE;
	if (item->len > item->total_len)
		return BLUE_DESC_E_RANGE;
	/* An item that is both first and last is the whole WR. */
	if (item->is_first && item->is_last && item->len != item->total_len)
		return BLUE_DESC_E_COMBINATION;
	return BLUE_DESC_OK;
}

/* ----------------------------------------------------------- meta reports */

static bool
meta_ack_flags_ok(enum blue_meta_kind *kind, uint8_t hw, uint8_t drv, bool pair)
{
	if (hw && drv)
		return false;
	if (!pair) {
		if (drv)
			*kind = BLUE_META_ACK_REMOTE_DRIVER;
		else if (hw)
			*kind = BLUE_META_ACK_LOCAL_HW;
		else
			return false; /* "any other combination" */
	} else {
		*kind = drv ? BLUE_META_NAK_REMOTE_DRIVER
			: hw ? BLUE_META_NAK_LOCAL_HW : BLUE_META_NAK_REMOTE_HW;
	}
	return true;
}

int
blue_meta_decode(const void *d0, const void *d1, struct blue_meta_report *rep)
{
	struct blue_desc_words w0, w1, *dw;
	struct blue_meta_report *s = rep;
	struct blue_desc_hdr h0, h1;
	uint8_t trans, op;

	if (d0 == NULL || rep == NULL)
		return BLUE_DESC_E_ARG;
	memset(rep, 0, sizeof(*rep));
	blue_desc_load(&w0, d0);
	hdr_decode(&w0, &h0);
	rep->opcode = h0.opcode;
	rep->ndesc = 1;
	if (h0.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	trans = BLUE_BTH_TRANS(h0.opcode);
	op = BLUE_BTH_OP(h0.opcode);
	if (trans != BLUE_TRANS_RC || op > BLUE_OP_MAX_RC)
		return BLUE_DESC_E_OPCODE;

	if (h0.has_next) {
		if (d1 == NULL)
			return BLUE_DESC_E_NEED_NEXT;
		blue_desc_load(&w1, d1);
		hdr_decode(&w1, &h1);
		if (h1.is_extended_opcode)
			return BLUE_DESC_E_EXTENDED;
		if (h1.has_next)
			return BLUE_DESC_E_HAS_NEXT;
		if (h1.opcode != h0.opcode)
			return BLUE_DESC_E_PAIR;
		rep->ndesc = 2;
	}

	dw = &w0;
	if (op == BLUE_OP_ACKNOWLEDGE) {
		if (has_reserved_bits(&w0, BLUE_LAYOUT_META_ACK))
			return BLUE_DESC_E_RESERVED;
		META_ACK_FIELDS(DEC)
		/* AckExtra follows exactly when the window slided (section 3.3). */
		if (rep->ack.is_window_slided != h0.has_next)
			return BLUE_DESC_E_COMBINATION;
		if (!meta_ack_flags_ok(&rep->kind, rep->ack.is_send_by_local_hw,
				       rep->ack.is_send_by_driver, h0.has_next))
			return BLUE_DESC_E_COMBINATION;
		if (h0.has_next) {
			if (has_reserved_bits(&w1, BLUE_LAYOUT_META_ACK_EXTRA))
				return BLUE_DESC_E_RESERVED;
			dw = &w1;
			META_ACK_EXTRA_FIELDS(DEC)
		}
		return rep->ndesc;
	}

	if (has_reserved_bits(&w0, BLUE_LAYOUT_META_BASIC))
		return BLUE_DESC_E_RESERVED;
	META_BASIC_FIELDS(DEC)
	if (op == BLUE_OP_READ_REQUEST) {
		/* A READ request is always reported with its ReadReqExtendInfo. */
		if (!h0.has_next)
			return BLUE_DESC_E_COMBINATION;
		if (has_reserved_bits(&w1, BLUE_LAYOUT_META_READ_EXT))
			return BLUE_DESC_E_RESERVED;
		dw = &w1;
		META_READ_EXT_FIELDS(DEC)
		rep->kind = BLUE_META_HEADER_READ;
		return rep->ndesc;
	}
	if (h0.has_next)
		return BLUE_DESC_E_HAS_NEXT; /* only READ requests and ACKs have two */
	rep->kind = rep->basic.ecn_marked ? BLUE_META_CNP : BLUE_META_HEADER_WRITE;
	return rep->ndesc;
}

int
blue_meta_encode(const struct blue_meta_report *rep, void *d0, void *d1)
{
	struct blue_desc_words w0 = { { 0 } }, w1 = { { 0 } }, *dw;
	struct blue_meta_report tmp;
	const struct blue_meta_report *s = &tmp;
	struct blue_desc_hdr h;
	uint8_t op;
	int n;

	if (rep == NULL || d0 == NULL)
		return BLUE_DESC_E_ARG;
	tmp = *rep;
	op = BLUE_BTH_OP(rep->opcode);
	if (BLUE_BTH_TRANS(rep->opcode) != BLUE_TRANS_RC || op > BLUE_OP_MAX_RC)
		return BLUE_DESC_E_OPCODE;

	switch (rep->kind) {
	case BLUE_META_HEADER_WRITE:
	case BLUE_META_CNP:
		if (op == BLUE_OP_READ_REQUEST || op == BLUE_OP_ACKNOWLEDGE)
			return BLUE_DESC_E_COMBINATION;
		tmp.basic.ecn_marked = rep->kind == BLUE_META_CNP;
		n = 1;
		break;
	case BLUE_META_HEADER_READ:
		if (op != BLUE_OP_READ_REQUEST)
			return BLUE_DESC_E_COMBINATION;
		n = 2;
		break;
	case BLUE_META_ACK_REMOTE_DRIVER:
	case BLUE_META_ACK_LOCAL_HW:
	case BLUE_META_NAK_REMOTE_DRIVER:
	case BLUE_META_NAK_LOCAL_HW:
	case BLUE_META_NAK_REMOTE_HW:
		if (op != BLUE_OP_ACKNOWLEDGE)
			return BLUE_DESC_E_COMBINATION;
		n = rep->kind >= BLUE_META_NAK_REMOTE_DRIVER ? 2 : 1;
		tmp.ack.is_window_slided = n == 2;
		tmp.ack.is_send_by_driver = rep->kind == BLUE_META_ACK_REMOTE_DRIVER ||
					    rep->kind == BLUE_META_NAK_REMOTE_DRIVER;
		tmp.ack.is_send_by_local_hw = rep->kind == BLUE_META_ACK_LOCAL_HW ||
					      rep->kind == BLUE_META_NAK_LOCAL_HW;
		break;
	default:
		return BLUE_DESC_E_ARG;
	}
	if (n == 2 && d1 == NULL)
		return BLUE_DESC_E_NEED_NEXT;

	h = (struct blue_desc_hdr){ .opcode = rep->opcode, .has_next = n == 2, .valid = 1 };
	dw = &w0;
	hdr_encode(dw, &h);
	if (op == BLUE_OP_ACKNOWLEDGE) {
		META_ACK_FIELDS(ENC)
	} else {
		META_BASIC_FIELDS(ENC)
	}
	if (n == 2) {
		h.has_next = 0;
		dw = &w1;
		hdr_encode(dw, &h);
		if (op == BLUE_OP_ACKNOWLEDGE) {
			META_ACK_EXTRA_FIELDS(ENC)
		} else {
			META_READ_EXT_FIELDS(ENC)
		}
		blue_desc_store(&w1, d1);
	}
	blue_desc_store(&w0, d0);
	return n;
}

/* ------------------------------------------------------------- simple NIC */

int
blue_simple_nic_tx_encode(const struct blue_simple_nic_tx *tx, void *desc)
{
	struct blue_desc_words words = { { 0 } }, *dw = &words;
	const struct blue_simple_nic_tx *s = tx;
	struct blue_desc_hdr h = { .opcode = 0, .valid = 1 };

	if (tx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	hdr_encode(dw, &h);
	SNIC_TX_FIELDS(ENC)
	blue_desc_store(dw, desc);
	return BLUE_DESC_OK;
}

int
blue_simple_nic_tx_decode(const void *desc, struct blue_simple_nic_tx *tx)
{
	struct blue_desc_words words, *dw = &words;
	struct blue_simple_nic_tx *s = tx;
	struct blue_desc_hdr h;

	if (tx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	memset(tx, 0, sizeof(*tx));
	blue_desc_load(dw, desc);
	hdr_decode(dw, &h);
	if (h.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (h.opcode != 0)
		return BLUE_DESC_E_OPCODE;
	if (h.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (has_reserved_bits(dw, BLUE_LAYOUT_SNIC_TX))
		return BLUE_DESC_E_RESERVED;
	SNIC_TX_FIELDS(DEC)
	if (tx->len == 0)
		return BLUE_DESC_E_RANGE;
	return BLUE_DESC_OK;
}

int
blue_simple_nic_rx_encode(const struct blue_simple_nic_rx *rx, void *desc)
{
	struct blue_desc_words words = { { 0 } }, *dw = &words;
	const struct blue_simple_nic_rx *s = rx;
	struct blue_desc_hdr h = { .opcode = 0, .is_extended_opcode = 1, .valid = 1 };

	if (rx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	if (rx->slot_idx >= BLUE_SIMPLE_NIC_RX_SLOTS || rx->len > BLUE_SIMPLE_NIC_RX_SLOT_SIZE)
		return BLUE_DESC_E_RANGE;
	hdr_encode(dw, &h);
	SNIC_RX_FIELDS(ENC)
	blue_desc_store(dw, desc);
	return BLUE_DESC_OK;
}

int
blue_simple_nic_rx_decode(const void *desc, struct blue_simple_nic_rx *rx)
{
	struct blue_desc_words words, *dw = &words;
	struct blue_simple_nic_rx *s = rx;
	struct blue_desc_hdr h;

	if (rx == NULL || desc == NULL)
		return BLUE_DESC_E_ARG;
	memset(rx, 0, sizeof(*rx));
	blue_desc_load(dw, desc);
	hdr_decode(dw, &h);
	if (!h.is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (h.opcode != 0)
		return BLUE_DESC_E_OPCODE;
	if (h.has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (has_reserved_bits(dw, BLUE_LAYOUT_SNIC_RX))
		return BLUE_DESC_E_RESERVED;
	SNIC_RX_FIELDS(DEC)
	if (rx->slot_idx >= BLUE_SIMPLE_NIC_RX_SLOTS || rx->len == 0 ||
	    rx->len > BLUE_SIMPLE_NIC_RX_SLOT_SIZE)
		return BLUE_DESC_E_RANGE;
	return BLUE_DESC_OK;
}
