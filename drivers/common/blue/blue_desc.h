/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blue RDMA card: descriptor layouts and their codecs
 * (doc/guides/drivers/blue_hw_interface.md section 3).
 *
 * A descriptor is 32 bytes read as one little-endian 256-bit number: byte n holds
 * bits [8n+7:8n]. Every field below is declared in blue_desc.c with the bit range
 * the card's interface page gives it, and the codecs are driven by those declarations.
 *
 * Encoders check that every value fits its field. Decoders never trust their
 * input: reserved bits set, unknown opcodes, and combinations the card cannot
 * produce come back as a negative blue_desc_err with a reason string.
 */
#ifndef BLUE_DESC_H
#define BLUE_DESC_H

#include <assert.h>
#include <stdint.h>

#include "blue_proto.h"
#include "blue_regs.h"

/** Codec result: 0 or a negative reason. */
enum blue_desc_err {
	BLUE_DESC_OK = 0,
	BLUE_DESC_E_RESERVED = -1,    /**< a reserved bit is set */
	BLUE_DESC_E_OPCODE = -2,      /**< opcode unknown on this ring */
	BLUE_DESC_E_UNSUPPORTED = -3, /**< opcode known but not executed by the card */
	BLUE_DESC_E_HAS_NEXT = -4,    /**< has_next does not fit the descriptor's place in its item */
	BLUE_DESC_E_PAIR = -5,	      /**< the two descriptors of an item disagree */
	BLUE_DESC_E_COMBINATION = -6, /**< flags in a combination the card never produces */
	BLUE_DESC_E_RANGE = -7,	      /**< a field value the card cannot hold or produce */
	BLUE_DESC_E_EXTENDED = -8,    /**< is_extended_opcode wrong for this ring */
	BLUE_DESC_E_NEED_NEXT = -9,   /**< has_next=1 but the second descriptor is missing */
	BLUE_DESC_E_NOT_VALID = -10,  /**< valid bit clear where the card sets it */
	BLUE_DESC_E_ARG = -11,	      /**< NULL pointer or bad argument */
};
#define BLUE_DESC_E_COUNT 12

/** Short reason for a blue_desc_err ("reserved bits set", ...). */
const char *blue_desc_strerror(int err);

/* Common header, bytes 30-31 of every descriptor. */
struct blue_desc_hdr {
	uint8_t opcode;		    /**< [247:240] */
	uint8_t is_extended_opcode; /**< [248] (1 only on SimpleNicRx) */
	uint8_t has_next;	    /**< [254] */
	uint8_t valid;		    /**< [255] */
};

/* ---------------------------------------------------------------- commands */

enum blue_cmd_opcode {
	BLUE_CMD_UPDATE_MR_TABLE = 0x00,
	BLUE_CMD_UPDATE_PGT = 0x01,
	BLUE_CMD_MANAGE_QP = 0x02,
	BLUE_CMD_SET_NETWORK_PARAM = 0x03,
	BLUE_CMD_SET_RAW_PACKET_RECEIVE_META = 0x04,
	BLUE_CMD_UPDATE_ERROR_PSN_RECOVER_POINT = 0x05, /* enum only; the RTL fails it */
};

const char *blue_cmd_opcode_name(uint8_t op);

struct blue_cmd_update_mr_table {
	uint64_t mr_base_va; /**< [191:128] user's (unaligned) start VA */
	uint32_t mr_length;  /**< [127:96] bytes; 0 invalidates the slot */
	uint32_t mr_key;     /**< [95:64] index = key >> 8, key part = key & 0xFF */
	uint32_t pd_handle;  /**< [63:32] reserved in RTL; the reference writes the PD */
	uint8_t acc_flags;   /**< [31:24] BLUE_ACC_* */
	uint32_t pgt_offset; /**< [23:7] first PGT index (17 bits) */
};

struct blue_cmd_update_pgt {
	uint64_t dma_addr;		/**< [191:128] buffer of u64 LE page addresses */
	uint32_t start_index;		/**< [127:96] */
	uint32_t zero_based_entry_count; /**< [95:64] entries - 1 */
};

struct blue_cmd_manage_qp {
	uint32_t peer_ip;	  /**< [223:192] */
	uint8_t is_valid;	  /**< [191] 0 clears the QPC entry */
	uint8_t is_error;	  /**< [190] */
	uint32_t qpn;		  /**< [183:160] */
	uint32_t peer_qpn;	  /**< [127:104] */
	uint8_t rq_access_flags;  /**< [103:96] */
	uint8_t qp_type;	  /**< [95:92] 2 = RC */
	uint8_t pmtu;		  /**< [87:85] BLUE_PMTU_* */
	uint16_t local_udp_port;  /**< [63:48] */
	uint64_t peer_mac;	  /**< [47:0] */
};

struct blue_cmd_set_network_param {
	uint32_t gateway;   /**< [191:160] */
	uint32_t netmask;   /**< [159:128] */
	uint32_t local_ip;  /**< [127:96] */
	uint64_t local_mac; /**< [63:16] */
};

struct blue_cmd_set_raw_packet_receive_meta {
	uint64_t write_base_addr; /**< [191:128] SimpleNic RX packet buffer */
};

/** A command request or its response (the card echoes the request). */
struct blue_cmd {
	struct blue_desc_hdr hdr; /**< hdr.opcode is a blue_cmd_opcode */
	uint8_t user_data;	  /**< [231:224] */
	uint8_t is_success;	  /**< [232] set by the card in responses */
	union {
		struct blue_cmd_update_mr_table mr;
		struct blue_cmd_update_pgt pgt;
		struct blue_cmd_manage_qp qp;
		struct blue_cmd_set_network_param net;
		struct blue_cmd_set_raw_packet_receive_meta raw;
	};
};

/** Encode @p cmd into one 32-byte descriptor. */
int blue_cmd_encode(const struct blue_cmd *cmd, void *desc);
/** Decode a CmdReq or CmdResp descriptor. */
int blue_cmd_decode(const void *desc, struct blue_cmd *cmd);

/* -------------------------------------------------------------- send items */

/** One Send-ring item: Seg0 + Seg1 (section 3.2), fields of both. */
struct blue_send_item {
	uint8_t opcode;	      /**< blue_wr_opcode, in B30 of both segments */
	uint8_t valid;	      /**< set on both; the card does not check it */
	/* Seg0 */
	uint16_t msn;	      /**< [239:224] */
	uint32_t total_len;   /**< [223:192] whole WR length */
	uint32_t rkey;	      /**< [191:160] */
	uint32_t dqp_ip;      /**< [159:128] */
	uint64_t raddr;	      /**< [127:64] remote VA where this item starts */
	uint32_t psn;	      /**< [63:40] PSN of the item's first packet */
	uint8_t qp_type;      /**< [39:36] */
	uint32_t dqpn;	      /**< [31:8] */
	uint8_t flags;	      /**< [7:3] BLUE_SEND_* */
	/* Seg1 */
	uint8_t pmtu;	      /**< [239:237] */
	uint8_t is_first;     /**< [236] item holds the WR's first packet */
	uint8_t is_last;      /**< [235] item holds the WR's last packet */
	uint8_t is_retry;     /**< [234] */
	uint8_t enable_ecn;   /**< [233] */
	uint32_t sqpn;	      /**< [231:224] bits 7:0, [143:128] bits 23:8 */
	uint32_t imm;	      /**< [223:192] */
	uint64_t dst_mac;     /**< [191:144] */
	uint32_t lkey;	      /**< [127:96] */
	uint32_t len;	      /**< [95:64] bytes of this item */
	uint64_t laddr;	      /**< [63:0] */
};

/** Encode an item into two consecutive descriptors (64 bytes at @p desc2). */
int blue_send_item_encode(const struct blue_send_item *item, void *desc2);
/**
 * Decode a Seg0/Seg1 pair. Rejects: opcodes that differ between the segments,
 * has_next not 1 then 0, opcodes the card does not execute, an invalid PMTU,
 * an item longer than its WR.
 */
int blue_send_item_decode(const void *seg0, const void *seg1, struct blue_send_item *item);

/* ------------------------------------------------------------ meta reports */

/** Driver meaning of a report (section 3.3 classification table). */
enum blue_meta_kind {
	BLUE_META_HEADER_WRITE = 0,   /**< PacketBasicInfo alone, ecn_marked = 0 */
	BLUE_META_CNP,		      /**< PacketBasicInfo alone, ecn_marked = 1 */
	BLUE_META_HEADER_READ,	      /**< PacketBasicInfo + ReadReqExtendInfo */
	BLUE_META_ACK_REMOTE_DRIVER,  /**< Ack, driver=1, local_hw=0 */
	BLUE_META_ACK_LOCAL_HW,	      /**< Ack, driver=0, local_hw=1 */
	BLUE_META_NAK_REMOTE_DRIVER,  /**< Ack+AckExtra, driver=1, local_hw=0 */
	BLUE_META_NAK_LOCAL_HW,	      /**< Ack+AckExtra, driver=0, local_hw=1 */
	BLUE_META_NAK_REMOTE_HW,      /**< Ack+AckExtra, driver=0, local_hw=0 */
	BLUE_META_KIND_COUNT
};

const char *blue_meta_kind_name(enum blue_meta_kind kind);

/** 128-bit PSN bitmap, little-endian in descriptors: lo = bits 63:0. */
struct blue_bitmap128 {
	uint64_t lo;
	uint64_t hi;
};

struct blue_meta_basic {
	uint16_t msn;	     /**< [239:224] */
	uint32_t psn;	     /**< [223:200] */
	uint8_t ecn_marked;  /**< [199] */
	uint8_t solicited;   /**< [198] */
	uint8_t ack_req;     /**< [197] */
	uint8_t is_retry;    /**< [196] */
	uint32_t dqpn;	     /**< [191:168] local QPN the packet was addressed to */
	uint32_t total_len;  /**< [159:128] RETH dlen */
	uint64_t raddr;	     /**< [127:64] RETH va */
	uint32_t rkey;	     /**< [63:32] RETH rkey */
	uint32_t imm_data;   /**< [31:0] */
};

struct blue_meta_read_ext {
	uint32_t total_len; /**< [223:192] */
	uint64_t laddr;	    /**< [191:128] requester buffer VA (RRETH) */
	uint32_t lkey;	    /**< [127:96] requester key */
};

struct blue_meta_ack {
	uint8_t is_send_by_local_hw; /**< [235] */
	uint8_t is_send_by_driver;   /**< [234] */
	uint8_t is_window_slided;    /**< [233] */
	uint8_t is_packet_lost;	     /**< [232] */
	uint32_t psn_before_slide;   /**< [223:200] */
	uint32_t psn_now;	     /**< [191:168] */
	uint32_t qpn;		     /**< [167:144] */
	uint16_t msn;		     /**< [143:128] */
	struct blue_bitmap128 now_bitmap; /**< [127:0] */
	struct blue_bitmap128 pre_bitmap; /**< AckExtra [127:0], when window slided */
};

/** A whole MetaReport item (one or two descriptors). */
struct blue_meta_report {
	enum blue_meta_kind kind;
	uint8_t opcode;	 /**< B30: {trans[2:0], rdma_opcode[4:0]} */
	uint8_t ndesc;	 /**< 1 or 2 */
	union {
		struct {
			struct blue_meta_basic basic;
			struct blue_meta_read_ext read_ext; /**< HEADER_READ only */
		};
		struct blue_meta_ack ack;
	};
};

/**
 * Encode a report; returns the number of descriptors written (1 or 2) or a
 * negative blue_desc_err. @p d1 may be NULL when the report needs one.
 * The kind decides the flags and has_next; valid is set on both.
 */
int blue_meta_encode(const struct blue_meta_report *rep, void *d0, void *d1);
/**
 * Decode a report. @p d1 is the descriptor after @p d0 (NULL when not
 * available); it is read only when d0 has has_next = 1. Returns the number
 * of descriptors consumed or a negative blue_desc_err.
 */
int blue_meta_decode(const void *d0, const void *d1, struct blue_meta_report *rep);

/* -------------------------------------------------------------- simple NIC */

#define BLUE_SIMPLE_NIC_RX_SLOT_SIZE  2048u
#define BLUE_SIMPLE_NIC_RX_SLOTS      1024u
#define BLUE_SIMPLE_NIC_RX_BUF_SIZE   (BLUE_SIMPLE_NIC_RX_SLOT_SIZE * BLUE_SIMPLE_NIC_RX_SLOTS)

struct blue_simple_nic_tx {
	uint32_t len;  /**< [223:192] */
	uint64_t addr; /**< [191:128] frame address (must not cross a page) */
};

struct blue_simple_nic_rx {
	uint32_t len;	   /**< [223:192] */
	uint32_t slot_idx; /**< [191:160] frame at write_base_addr + slot_idx * 2048 */
};

int blue_simple_nic_tx_encode(const struct blue_simple_nic_tx *tx, void *desc);
/** Rejects a zero length. */
int blue_simple_nic_tx_decode(const void *desc, struct blue_simple_nic_tx *tx);
int blue_simple_nic_rx_encode(const struct blue_simple_nic_rx *rx, void *desc);
/** Rejects is_extended_opcode = 0, slot >= 1024, length 0 or above 2048. */
int blue_simple_nic_rx_decode(const void *desc, struct blue_simple_nic_rx *rx);

/* ---------------------------------------------------------- header helpers */

/** Read the common header of any descriptor. */
void blue_desc_hdr_get(const void *desc, struct blue_desc_hdr *hdr);

static inline uint8_t
blue_desc_valid(const void *desc)
{
	return ((const uint8_t *)desc)[31] >> 7;
}

static inline uint8_t
blue_desc_has_next(const void *desc)
{
	return (((const uint8_t *)desc)[31] >> 6) & 1;
}

static inline uint8_t
blue_desc_opcode(const void *desc)
{
	return ((const uint8_t *)desc)[30];
}

static_assert(BLUE_DESC_SIZE == 32, "descriptors are 32 bytes");

#endif /* BLUE_DESC_H */
