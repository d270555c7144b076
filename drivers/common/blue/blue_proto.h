/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blue RDMA card: protocol constants shared by the descriptors (blue_desc.h)
 * and the wire format (blue_wire.h): packet opcodes, work-request opcodes, PMTU
 * codes, access and send flags. doc/guides/drivers/blue_hw_interface.md sections 3 and 6.
 */
#ifndef BLUE_PROTO_H
#define BLUE_PROTO_H

#include <stdbool.h>
#include <stdint.h>

/* BTH byte 0 = trans[7:5] | opcode[4:0] (section 6). */
#define BLUE_TRANS_RC  0u
#define BLUE_TRANS_CNP 4u
#define BLUE_BTH_OPCODE(trans, op) ((uint8_t)(((trans) << 5) | ((op) & 0x1F)))
#define BLUE_BTH_TRANS(byte0)	   ((uint8_t)((byte0) >> 5))
#define BLUE_BTH_OP(byte0)	   ((uint8_t)((byte0) & 0x1F))

/* RC packet opcodes (low five bits of BTH byte 0; section 3.3 / 6). */
enum blue_pkt_opcode {
	BLUE_OP_SEND_FIRST = 0x00,
	BLUE_OP_SEND_MIDDLE = 0x01,
	BLUE_OP_SEND_LAST = 0x02,
	BLUE_OP_SEND_LAST_WITH_IMM = 0x03,
	BLUE_OP_SEND_ONLY = 0x04,
	BLUE_OP_SEND_ONLY_WITH_IMM = 0x05,
	BLUE_OP_WRITE_FIRST = 0x06,
	BLUE_OP_WRITE_MIDDLE = 0x07,
	BLUE_OP_WRITE_LAST = 0x08,
	BLUE_OP_WRITE_LAST_WITH_IMM = 0x09,
	BLUE_OP_WRITE_ONLY = 0x0A,
	BLUE_OP_WRITE_ONLY_WITH_IMM = 0x0B,
	BLUE_OP_READ_REQUEST = 0x0C,
	BLUE_OP_READ_RESPONSE_FIRST = 0x0D,
	BLUE_OP_READ_RESPONSE_MIDDLE = 0x0E,
	BLUE_OP_READ_RESPONSE_LAST = 0x0F,
	BLUE_OP_READ_RESPONSE_ONLY = 0x10,
	BLUE_OP_ACKNOWLEDGE = 0x11,
	BLUE_OP_MAX_RC = 0x11,
};

/* CNP: trans = CNP, opcode 0 (byte 0x80; the card's code, not RoCEv2's 0x81). */
#define BLUE_BTH_CNP BLUE_BTH_OPCODE(BLUE_TRANS_CNP, 0)

/** Name of an RC packet opcode, "?" when unknown. */
const char *blue_pkt_opcode_name(uint8_t op);

/** Packet kinds that carry a RETH and (possibly) payload. */
static inline bool
blue_op_is_data(uint8_t op)
{
	return op <= BLUE_OP_WRITE_ONLY_WITH_IMM ||
	       (op >= BLUE_OP_READ_RESPONSE_FIRST && op <= BLUE_OP_READ_RESPONSE_ONLY);
}

static inline bool
blue_op_is_send(uint8_t op)
{
	return op <= BLUE_OP_SEND_ONLY_WITH_IMM;
}

static inline bool
blue_op_is_write(uint8_t op)
{
	return op >= BLUE_OP_WRITE_FIRST && op <= BLUE_OP_WRITE_ONLY_WITH_IMM;
}

static inline bool
blue_op_is_read_resp(uint8_t op)
{
	return op >= BLUE_OP_READ_RESPONSE_FIRST && op <= BLUE_OP_READ_RESPONSE_ONLY;
}

static inline bool
blue_op_has_imm(uint8_t op)
{
	return op == BLUE_OP_SEND_LAST_WITH_IMM || op == BLUE_OP_SEND_ONLY_WITH_IMM ||
	       op == BLUE_OP_WRITE_LAST_WITH_IMM || op == BLUE_OP_WRITE_ONLY_WITH_IMM;
}

/* Position of a data packet inside its message. */
enum blue_pkt_pos { BLUE_POS_FIRST, BLUE_POS_MIDDLE, BLUE_POS_LAST, BLUE_POS_ONLY };

/** Position of data opcode @p op; only meaningful when blue_op_is_data(op). */
enum blue_pkt_pos blue_op_pos(uint8_t op);

/* Work-request opcodes in the Send descriptors (section 3.2; ibv_wr_opcode). */
enum blue_wr_opcode {
	BLUE_WR_RDMA_WRITE = 0,
	BLUE_WR_RDMA_WRITE_WITH_IMM = 1,
	BLUE_WR_SEND = 2,
	BLUE_WR_SEND_WITH_IMM = 3,
	BLUE_WR_RDMA_READ = 4,
	BLUE_WR_ATOMIC_CMP_AND_SWP = 5,
	BLUE_WR_ATOMIC_FETCH_AND_ADD = 6,
	BLUE_WR_LOCAL_INV = 7,
	BLUE_WR_BIND_MW = 8,
	BLUE_WR_SEND_WITH_INV = 9,
	BLUE_WR_TSO = 10,
	BLUE_WR_DRIVER1 = 11,
	BLUE_WR_RDMA_READ_RESP = 12, /* vendor: software READ response */
	BLUE_WR_RDMA_ACK = 13,	     /* vendor */
	BLUE_WR_FLUSH = 14,
	BLUE_WR_ATOMIC_WRITE = 15,
};

/** True for the Send-ring opcodes the card executes (0-4 and 12). */
static inline bool
blue_wr_opcode_supported(uint8_t op)
{
	return op <= BLUE_WR_RDMA_READ || op == BLUE_WR_RDMA_READ_RESP;
}

const char *blue_wr_opcode_name(uint8_t op);

/* Path MTU codes (ibv_mtu enum). */
enum blue_pmtu {
	BLUE_PMTU_256 = 1,
	BLUE_PMTU_512 = 2,
	BLUE_PMTU_1024 = 3,
	BLUE_PMTU_2048 = 4,
	BLUE_PMTU_4096 = 5,
};

static inline bool
blue_pmtu_valid(unsigned int code)
{
	return code >= BLUE_PMTU_256 && code <= BLUE_PMTU_4096;
}

/** Bytes of a PMTU code; 0 for an invalid code. */
static inline uint32_t
blue_pmtu_bytes(unsigned int code)
{
	return blue_pmtu_valid(code) ? 128u << code : 0;
}

/** PMTU code of a byte size (256..4096, power of two); 0 when not one. */
unsigned int blue_pmtu_code(uint32_t bytes);

/* Access flags (ibv_access_flags low byte), in MR table and QPC. */
#define BLUE_ACC_LOCAL_WRITE   0x01u
#define BLUE_ACC_REMOTE_WRITE  0x02u
#define BLUE_ACC_REMOTE_READ   0x04u
#define BLUE_ACC_REMOTE_ATOMIC 0x08u
#define BLUE_ACC_ALL	       0x0Fu

/* Send flags carried in Seg0 (ibv_send_flags & 0x1F). */
#define BLUE_SEND_FENCE	    0x01u
#define BLUE_SEND_SIGNALED  0x02u
#define BLUE_SEND_SOLICITED 0x04u
#define BLUE_SEND_INLINE    0x08u
#define BLUE_SEND_IP_CSUM   0x10u

/* QP type (ibv_qp_type) */
#define BLUE_QPT_RC 2u

/* Limits (sections 3-5). */
#define BLUE_MAX_QP	     1024u	 /* card QPC entries, index = qpn >> 8 */
#define BLUE_MAX_MR	     8192u	 /* MR table entries, index = key >> 8 */
#define BLUE_PGT_ENTRIES     131072u	 /* 2^17 page entries */
#define BLUE_PAGE_SHIFT	     21u	 /* the card's fixed 2 MiB page */
#define BLUE_PAGE_SIZE	     (1u << BLUE_PAGE_SHIFT)
#define BLUE_PGT_MAX_PER_CMD 64u	 /* 512 B PCIe burst of u64 entries */
#define BLUE_PSN_MASK	     0xFFFFFFu /* 24-bit PSN */
#define BLUE_QPN_MASK	     0xFFFFFFu
#define BLUE_MSN_MASK	     0xFFFFu

/* qpn = index << 8 | key; mr key = index << 8 | key (sections 4, 5.3). */
static inline uint32_t
blue_qpn_index(uint32_t qpn)
{
	return (qpn >> 8) & 0xFFFFu;
}

static inline uint32_t
blue_mr_key_index(uint32_t key)
{
	return key >> 8;
}

/* 24-bit PSN arithmetic. */
static inline uint32_t
blue_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & BLUE_PSN_MASK;
}

/** Signed distance a - b in the 24-bit PSN space (-2^23 .. 2^23-1). */
static inline int32_t
blue_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/*
 * The card's receive PSN bitmap (section 5.1): 8 strides of 16 PSNs, the
 * window named by its newest stride. On the open-rdma RTL a PSN 8 strides or
 * more behind that stride sticks the bitmap unit's busy flag for good
 * (PsnContinousChecker.bsv, section 10).
 */
#define BLUE_BITMAP_STRIDES 8u

/*
 * ManageQp resets the window to stride 0xFFFFF with every bit set (section
 * 5.1: so PSN 0 slides in cleanly). Strides compare as 20-bit serial numbers,
 * so a first PSN p fails in three ranges, on the spec and on the RTL alike:
 * - strides 0x7FFFF..0xFFFF7 (p 0x7FFFF0..0xFFFF7F) are behind the window:
 *   the spec ignores every packet (the window never moves, so no bitmap
 *   report names a MIDDLE packet or a loss) and the RTL locks its bitmap unit;
 * - strides 0xFFFF8..0xFFFFF (p 0xFFFF80..0xFFFFFF) are inside it: their bits
 *   are set already, so every report says PSNs p..0xFFFFFF arrived before
 *   they do, and one lost there is never reported (at p = 0xFFFFF0 the
 *   first idle report moved the tracker's expected PSN past what was sent,
 *   the requester refused the ACKs, and fault_loss ended in RETRY_EXC_ERR
 *   on a clean wire);
 * - strides 0x7FFF8..0x7FFFE (p 0x7FFF80..0x7FFFEF) slide the window by 2^19
 *   strides or more: the loss report that makes names the reset window as
 *   its old one, 2^23 PSNs or less ahead of p, whose set bits read as PSNs
 *   that arrived (the tracker's expected PSN would jump over the stream).
 * So a first PSN is one of strides 0..0x7FFF7: 0..BLUE_PSN_FIRST_MAX.
 */
#define BLUE_PSN_FIRST_MAX 0x7FFF7Fu

/** May @p psn be the first PSN a QP's card sees after ManageQp? */
static inline bool
blue_psn_first_ok(uint32_t psn)
{
	return (psn & BLUE_PSN_MASK) <= BLUE_PSN_FIRST_MAX;
}

/** Is @p psn inside the card window whose newest PSN is @p newest (not stale)? */
static inline bool
blue_psn_in_card_window(uint32_t psn, uint32_t newest)
{
	uint32_t d = ((newest >> 4) - (psn >> 4)) & 0xFFFFFu; /* strides, 20-bit */

	return d < BLUE_BITMAP_STRIDES || d >= 0x80000u; /* behind by < 8, or ahead */
}

#endif /* BLUE_PROTO_H */
