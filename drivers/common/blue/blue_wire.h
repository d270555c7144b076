/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The Blue RDMA card's frames (doc/guides/drivers/blue_hw_interface.md
 * section 6) and the ORDK control
 * frames its driver sends through the SimpleNic path. Driver code: it lives
 * beside the card's descriptors (blue_desc.h); lib/ never includes it.
 *
 * The card's frame is not standard RoCEv2: Ethernet II / IPv4 / UDP 4791 / a
 * fixed 54-byte RDMA header area (BTH 12 + 42-byte extension area, headers
 * packed from its start, the rest zero) / payload. The BTH carries the MSN in
 * the P_Key field and is_retry in the MigReq bit; every data packet has a RETH;
 * ACKs carry the card's own 36-byte AETH with two 128-bit PSN bitmaps.
 *
 * Builders write headers into a caller buffer; the parser is strict: every
 * length is bounds-checked, the IPv4 header checksum is verified, and each
 * reject has its own reason code. None of these functions allocate or log.
 * What the open-rdma reference driver sends is accepted too: its ACK frames
 * end after the AETH (a 48-byte RDMA area) and carry IPv4 checksum 0.
 */
#ifndef BLUE_WIRE_H
#define BLUE_WIRE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "blue_desc.h"
#include "blue_proto.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Header sizes (section 6). */
#define BLUE_WIRE_ETH_HLEN	 14u
#define BLUE_WIRE_IPV4_HLEN	 20u
#define BLUE_WIRE_UDP_HLEN	 8u
#define BLUE_WIRE_BTH_LEN	 12u
#define BLUE_WIRE_EXT_AREA_LEN	 42u /**< extension-header buffer after the BTH */
#define BLUE_WIRE_RDMA_AREA_LEN	 54u /**< BTH + extension area */
#define BLUE_WIRE_RETH_LEN	 16u
#define BLUE_WIRE_RRETH_LEN	 12u
#define BLUE_WIRE_IMMDT_LEN	 4u
#define BLUE_WIRE_AETH_LEN	 36u
/** Ethernet + IPv4 + UDP + RDMA area: 96 bytes, three 256-bit beats. */
#define BLUE_WIRE_RDMA_HLEN                                                  \
	(BLUE_WIRE_ETH_HLEN + BLUE_WIRE_IPV4_HLEN + BLUE_WIRE_UDP_HLEN + \
	 BLUE_WIRE_RDMA_AREA_LEN)
#define BLUE_WIRE_MAX_PAYLOAD	 4096u /**< PMTU 4096 */
/** Largest RDMA frame: header, 3 alignment filler bytes, PMTU payload, FCS trailer. */
#define BLUE_WIRE_MAX_FRAME	 (BLUE_WIRE_RDMA_HLEN + 3u + BLUE_WIRE_MAX_PAYLOAD + 4u)

#define BLUE_WIRE_ROCE_UDP_PORT	 4791u /**< the card's RDMA port */
/**
 * RETH rkey of a zero-length SEND_ONLY that says "the RECV you advertised is
 * too small": its RETH va holds the SEND's length (no key has MR index
 * 0xFFFFFF, and the card checks no key on a packet without payload).
 */
#define BLUE_WIRE_RKEY_LEN_ERR	 0xFFFFFFFFu
#define BLUE_WIRE_CTRL_UDP_PORT	 4792u /**< ORDK control frames (SimpleNic path) */
#define BLUE_WIRE_UD_UDP_PORT	 4793u /**< ORDK's UD frames (SimpleNic path, wire_ud.c) */
#define BLUE_WIRE_ETHERTYPE_IPV4 0x0800u
#define BLUE_WIRE_ETHERTYPE_ARP	 0x0806u
#define BLUE_WIRE_IPPROTO_UDP	 17u
#define BLUE_WIRE_BROADCAST_MAC	 0xFFFFFFFFFFFFull

/* IPv4 header values the card writes on data frames (section 6). */
#define BLUE_WIRE_CARD_IP_ID 1u
#define BLUE_WIRE_CARD_TTL   64u

/** Parse and build results: 0 or a negative reason. */
enum blue_wire_err {
	BLUE_WIRE_OK = 0,
	BLUE_WIRE_E_TRUNCATED = -1,	/**< frame shorter than its headers */
	BLUE_WIRE_E_NOT_IPV4 = -2,	/**< EtherType is not IPv4 */
	BLUE_WIRE_E_IP_VERSION = -3,	/**< IP version field is not 4 */
	BLUE_WIRE_E_IP_IHL = -4,	/**< IHL is not 5 (the card sends no options) */
	BLUE_WIRE_E_IP_LEN = -5,	/**< IP total length disagrees with the frame */
	BLUE_WIRE_E_IP_FRAGMENT = -6,	/**< MF set or fragment offset non-zero */
	BLUE_WIRE_E_IP_CSUM = -7,	/**< IPv4 header checksum wrong */
	BLUE_WIRE_E_NOT_UDP = -8,	/**< IP protocol is not UDP */
	BLUE_WIRE_E_UDP_LEN = -9,	/**< UDP length disagrees with the IP length */
	BLUE_WIRE_E_NOT_ROCE_PORT = -10, /**< UDP destination port is not 4791 */
	BLUE_WIRE_E_BTH = -11,		/**< BTH reserved bits, pad count or version set */
	BLUE_WIRE_E_OPCODE = -12,	/**< unknown transport or opcode */
	BLUE_WIRE_E_LENGTH = -13,	/**< payload length impossible for the opcode/RETH */
	BLUE_WIRE_E_EXT_NONZERO = -14,	/**< unused header area or filler bytes not zero */
	BLUE_WIRE_E_TRAILING = -15,	/**< bytes after the IP datagram */
	BLUE_WIRE_E_NOT_CTRL_PORT = -16, /**< UDP destination port is not 4792 */
	BLUE_WIRE_E_CTRL_MAGIC = -17,	/**< control frame magic wrong */
	BLUE_WIRE_E_CTRL_VERSION = -18,	/**< control frame version unknown */
	BLUE_WIRE_E_CTRL_TYPE = -19,	/**< control message type unknown */
	BLUE_WIRE_E_CTRL_LEN = -20,	/**< control body length wrong for its type */
	BLUE_WIRE_E_CTRL_FIELD = -21,	/**< control field out of range or reserved set */
	BLUE_WIRE_E_FCS = -22,		/**< CRC-32 trailer missing or wrong */
	BLUE_WIRE_E_NOSPACE = -23,	/**< builder: output buffer too small */
	BLUE_WIRE_E_ARG = -24,		/**< bad argument (NULL, value out of range) */
	BLUE_WIRE_E_NOT_UD_PORT = -25,	/**< UDP destination port is not 4793 */
};
#define BLUE_WIRE_E_COUNT 26

/** Short reason text of an blue_wire_err. */
const char *blue_wire_strerror(int err);

/** Ethernet, IPv4 and UDP fields; MACs as 48-bit integers, first octet most significant. */
struct blue_wire_l3 {
	uint64_t dst_mac;
	uint64_t src_mac;
	uint32_t src_ip; /**< numeric, 17.34.51.10 = 0x1122330A */
	uint32_t dst_ip;
	uint16_t src_port;
	uint16_t dst_port;
	uint16_t ip_id;
	uint8_t ttl;
	uint8_t dscp;
	uint8_t ecn;
	uint8_t df; /**< Don't Fragment flag */
	uint16_t udp_csum; /**< as received; builders write 0 like the card */
	uint8_t ip_csum_zero; /**< IPv4 checksum field 0 (not computed: the reference driver's
				   frames); builders then write 0 too */
};

/** Base Transport Header, card variant (section 6). */
struct blue_wire_bth {
	uint8_t trans;	   /**< BLUE_TRANS_RC or BLUE_TRANS_CNP */
	uint8_t opcode;	   /**< blue_pkt_opcode (low five bits) */
	uint8_t solicited;
	uint8_t is_retry;  /**< in the MigReq bit */
	uint16_t msn;	   /**< in the P_Key field */
	uint32_t dqpn;
	uint8_t ack_req;
	uint32_t psn;
};

struct blue_wire_reth {
	uint64_t va;
	uint32_t rkey;
	uint32_t dlen; /**< whole message on the WR's first packet, packet length otherwise */
};

struct blue_wire_rreth {
	uint64_t va;   /**< requester buffer */
	uint32_t lkey; /**< requester key */
};

/** The card's ACK extension (36 bytes). */
struct blue_wire_aeth {
	struct blue_bitmap128 pre_bitmap;
	struct blue_bitmap128 now_bitmap;
	uint8_t is_packet_lost;
	uint8_t is_window_slided;
	uint8_t is_send_by_driver;
	uint32_t pre_psn;
};

/** An RDMA frame: what a builder takes and the parser fills. */
struct blue_wire_rdma {
	struct blue_wire_l3 l3;
	struct blue_wire_bth bth;
	struct blue_wire_reth reth;   /**< data packets and READ requests */
	struct blue_wire_rreth rreth; /**< READ requests */
	uint32_t imm;		      /**< *_WITH_IMMEDIATE */
	struct blue_wire_aeth aeth;   /**< ACKNOWLEDGE */
	uint8_t short_ack;	      /**< an ACK whose RDMA area ends after the AETH (48 bytes,
					   the reference driver's); builders write it so */
	/* Filled by the parser (ignored by the builders): */
	uint32_t payload_off; /**< offset of the payload in the frame */
	uint32_t payload_len;
	uint8_t pad;	      /**< filler bytes before the payload (RETH va & 3) */
};

/**
 * Filler bytes in front of the payload of a data packet: the card shifts the
 * payload so its dword alignment matches the remote address (section 6,
 * inferred from the RTL) and counts them in the UDP length.
 */
static inline uint32_t
blue_wire_filler(const struct blue_wire_rdma *p)
{
	return p->bth.trans == BLUE_TRANS_RC && blue_op_is_data(p->bth.opcode)
		       ? (uint32_t)(p->reth.va & 3)
		       : 0;
}

/**
 * Write the headers of an RDMA frame (96 bytes plus filler) for a payload of
 * @p payload_len bytes that the caller places right after them. Lengths and
 * the IPv4 checksum are computed; the UDP checksum is 0 as on the card.
 * @return header length, or a negative blue_wire_err.
 */
int blue_wire_rdma_build_hdr(void *buf, uint32_t cap, const struct blue_wire_rdma *pkt,
			     uint32_t payload_len);

/** Build a whole frame, payload copied in. @return frame length or < 0. */
int blue_wire_rdma_build(void *buf, uint32_t cap, const struct blue_wire_rdma *pkt,
			 const void *payload, uint32_t payload_len);

/** Parser flags. */
#define BLUE_WIRE_F_FCS 0x1u /**< frame ends with a 4-byte CRC-32 trailer; check it */

/**
 * Strictly parse an RDMA frame (UDP 4791).
 * @return 0 with @p pkt filled, or a negative blue_wire_err saying why not.
 */
int blue_wire_rdma_parse(const void *frame, uint32_t len, unsigned int flags,
			 struct blue_wire_rdma *pkt);

/** Where a frame goes on receive (the card's classifier, section 5.1). */
enum blue_wire_class {
	BLUE_WIRE_CLASS_RDMA = 0,  /**< IPv4 + UDP dst 4791 */
	BLUE_WIRE_CLASS_OTHER = 1, /**< everything else: the SimpleNic path */
};

/** Classify without validating (the card looks at EtherType, protocol and port). */
enum blue_wire_class blue_wire_classify(const void *frame, uint32_t len);

/**
 * Addresses the card filters on: destination MAC and, for IPv4 frames, the
 * destination IP. @return true when the frame is at least an Ethernet header;
 * @p has_ip tells whether @p dst_ip was read.
 */
bool blue_wire_peek_dst(const void *frame, uint32_t len, uint64_t *dst_mac, uint32_t *dst_ip,
			bool *has_ip);

/** CRC-32 (IEEE 802.3) of a buffer, as Ethernet's FCS. */
uint32_t blue_wire_crc32(const void *buf, uint32_t len);
/** The CRC-32 of the bytes so far (@p crc, from blue_wire_crc32()) followed by @p buf. */
uint32_t blue_wire_crc32_more(uint32_t crc, const void *buf, uint32_t len);
/** Append the 4-byte CRC-32 trailer after @p len bytes; @return new length or < 0. */
int blue_wire_fcs_append(void *frame, uint32_t len, uint32_t cap);

/* ------------------------------------------------------ ORDK control frames */

/*
 * ORDK control frames are Ethernet / IPv4 / UDP 4792 frames: the card sends
 * them to the SimpleNic RX ring, so the driver handles them in software. Body
 * after the UDP header, big-endian:
 *   0 magic (u16, 0x4F52 "OR")  2 version (u8)  3 type (u8)
 *   4 flags (u8)  5 reserved (u8, 0)  6 body_len (u16, bytes after this header)
 *   8 src_qpn (u32)  12 dst_qpn (u32)  16 seq (u32)  20 ack (u32)
 * Layouts of each type: doc/guides/prog_guide/wire_formats.md.
 */
#define BLUE_CTRL_MAGIC	      0x4F52u
#define BLUE_CTRL_VERSION     1u
#define BLUE_CTRL_HLEN	      24u
#define BLUE_CTRL_MAX_ADVERTS 32u
#define BLUE_CTRL_ADVERT_LEN  24u

enum blue_ctrl_type {
	BLUE_CTRL_RECV_ADVERT = 1,     /**< receiver -> sender: posted RECV buffers */
	BLUE_CTRL_RECV_ADVERT_ACK = 2, /**< sender -> receiver: adverts received */
	BLUE_CTRL_ATOMIC_REQ = 3,      /**< requester -> responder */
	BLUE_CTRL_ATOMIC_RESP = 4,     /**< responder -> requester */
	BLUE_CTRL_ACK_REQ = 5,	       /**< requester -> responder: say what arrived */
	BLUE_CTRL_READ_NAK = 6,	       /**< responder -> requester: a READ request refused */
	BLUE_CTRL_RECV_STATE = 7,      /**< receiver -> sender: the RECVs it posted (asked) */
	BLUE_CTRL_TYPE_MAX = 7,
};

/** Header flag of a RECV_ADVERT_ACK: the sender's RNR budget ran out; answer with RECV_STATE. */
#define BLUE_CTRL_F_ASK 0x01u

const char *blue_ctrl_type_name(uint8_t type);

enum blue_ctrl_atomic_op {
	BLUE_CTRL_ATOMIC_CMP_AND_SWP = 1,
	BLUE_CTRL_ATOMIC_FETCH_AND_ADD = 2,
};

enum blue_ctrl_atomic_status {
	BLUE_CTRL_ATOMIC_OK = 0,
	BLUE_CTRL_ATOMIC_REM_ACCESS_ERR = 1, /**< bad rkey or no REMOTE_ATOMIC access */
	BLUE_CTRL_ATOMIC_REM_INV_REQ = 2,    /**< misaligned or out of the MR */
	BLUE_CTRL_ATOMIC_STATUS_MAX = 2,
};

/** One advertised RECV buffer. */
struct blue_ctrl_advert {
	uint32_t recv_seq; /**< ordinal of the RECV on its QP */
	uint32_t length;
	uint64_t addr;
	uint32_t rkey;
};

struct blue_ctrl_msg {
	uint8_t type;
	uint8_t flags;
	uint32_t src_qpn;
	uint32_t dst_qpn;
	uint32_t seq;
	uint32_t ack;
	union {
		struct {
			uint16_t count;
			struct blue_ctrl_advert e[BLUE_CTRL_MAX_ADVERTS];
		} advert;
		struct {
			uint32_t recv_seq; /**< every advert before this one arrived */
			/** RECVs the sender wants advertised in all since the QP was
			 *  connected (one per SEND, SEND_WITH_IMM, WRITE_WITH_IMM posted);
			 *  a receiver on an SRQ lends that many at most (0: none said) */
			uint32_t want;
		} advert_ack;
		struct {
			uint32_t req_id;
			uint8_t op; /**< blue_ctrl_atomic_op */
			uint64_t raddr;
			uint32_t rkey;
			uint32_t psn; /**< the requester's next PSN at its post: executed after those before */
			uint64_t compare_add;
			uint64_t swap;
		} atomic_req;
		struct {
			uint32_t req_id;
			uint8_t status; /**< blue_ctrl_atomic_status */
			uint64_t orig;
		} atomic_resp;
		struct {
			uint32_t psn; /**< the requester's next PSN: what it has sent */
		} ack_req;
		struct {
			uint32_t psn;	/**< the refused READ request's PSN */
			uint8_t status; /**< blue_ctrl_atomic_status, not OK */
		} read_nak;
		struct {
			/** recv_seq of the next RECV the receiver will post: it has
			 *  posted (and advertised, or is advertising) every one before */
			uint32_t posted;
		} recv_state;
	};
};

/** Body length of a message of @p msg's type; negative when invalid. */
int blue_ctrl_body_len(const struct blue_ctrl_msg *msg);

/**
 * Build a whole control frame: Ethernet/IPv4/UDP (@p l3; ports forced to 4792)
 * and the message. @return frame length, or a negative blue_wire_err.
 */
int blue_wire_ctrl_build(void *buf, uint32_t cap, const struct blue_wire_l3 *l3,
			 const struct blue_ctrl_msg *msg);

/** Strictly parse a control frame. @return 0 or a negative blue_wire_err. */
int blue_wire_ctrl_parse(const void *frame, uint32_t len, struct blue_wire_l3 *l3,
			 struct blue_ctrl_msg *msg);

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------- UD frames */

/*
 * ORDK's UD frames (doc/guides/prog_guide/wire_formats.md): RoCE v2's UD
 * layout, Ethernet / IPv4 / UDP / BTH (12) / DETH (8) / [ImmDt (4)] /
 * payload, standard BTH fields (P_Key 0xFFFF, no MSN), on UDP destination
 * port 4793: the card takes every 4791 frame into its RC receive pipeline,
 * which drops transport UD, and hands any other port to SimpleNic, where the
 * driver builds and parses these. No ICRC: the link's FCS covers the frame,
 * as it does the card's RC frames.
 */
#define BLUE_WIRE_UD_SEND_ONLY	   0x64u /**< BTH opcode: UD, SEND_ONLY */
#define BLUE_WIRE_UD_SEND_ONLY_IMM 0x65u /**< BTH opcode: UD, SEND_ONLY_WITH_IMMEDIATE */
/*
 * ORDK's fragments of a UD message longer than a SimpleNic slot takes: UD's
 * transport bits with RC's SEND FIRST, MIDDLE, LAST and LAST_WITH_IMMEDIATE
 * codes (0x60-0x63, reserved for UD in IBA, which has one-packet UD
 * messages): consecutive PSNs from one source QP, reassembled by the receiver.
 */
#define BLUE_WIRE_UD_SEND_FIRST	   0x60u
#define BLUE_WIRE_UD_SEND_MIDDLE   0x61u
#define BLUE_WIRE_UD_SEND_LAST	   0x62u
#define BLUE_WIRE_UD_SEND_LAST_IMM 0x63u
#define BLUE_WIRE_DETH_LEN	   8u
#define BLUE_WIRE_PKEY_DEFAULT	   0xFFFFu
/** Ethernet to DETH: a UD frame's headers without ImmDt. */
#define BLUE_WIRE_UD_HLEN                                                            \
	(BLUE_WIRE_ETH_HLEN + BLUE_WIRE_IPV4_HLEN + BLUE_WIRE_UDP_HLEN + BLUE_WIRE_BTH_LEN + \
	 BLUE_WIRE_DETH_LEN)
/** The headers of a UD frame with ImmDt: what a frame holds besides its payload at most. */
#define BLUE_WIRE_UD_HLEN_MAX (BLUE_WIRE_UD_HLEN + BLUE_WIRE_IMMDT_LEN)

/** Which part of its message a UD frame carries (its BTH opcode with imm). */
enum blue_wire_ud_frag {
	BLUE_WIRE_UD_ONLY = 0, /**< the whole message (IBA's one-packet UD SEND) */
	BLUE_WIRE_UD_FIRST,    /**< the first of several fragments: payload, no ImmDt, no SE */
	BLUE_WIRE_UD_MIDDLE,   /**< payload, no ImmDt, no SE */
	BLUE_WIRE_UD_LAST,     /**< the last: ImmDt (imm) and SE allowed */
};

/** A UD frame's fields. */
struct blue_wire_ud {
	struct blue_wire_l3 l3; /**< the ports are the codec's: 4793, and one from sqpn */
	bool imm;		/**< ImmDt: SEND_ONLY or SEND_LAST WITH_IMMEDIATE */
	uint8_t frag;		/**< enum blue_wire_ud_frag */
	uint8_t solicited;
	uint32_t dqpn;
	uint32_t psn;
	uint32_t qkey;
	uint32_t sqpn;
	uint32_t imm_data;	/**< as carried (network order is the sender's business) */
	uint32_t payload_len;
};

/**
 * Build a UD frame: headers from @p u, then @p payload_len bytes of @p payload
 * (u->payload_len is ignored). @return the frame's length, or a negative
 * blue_wire_err (BLUE_WIRE_E_NOSPACE, BLUE_WIRE_E_ARG: a QPN or PSN above
 * 24 bits, a payload above BLUE_WIRE_MAX_PAYLOAD; a FIRST or MIDDLE fragment
 * with ImmDt, SE or no payload).
 */
int blue_wire_ud_build(void *buf, uint32_t cap, const struct blue_wire_ud *u, const void *payload,
		       uint32_t payload_len);

/**
 * Strictly parse a UD frame (no trailer: SimpleNic frames come without FCS).
 * @return 0 with @p u filled and *payload_off where the payload starts, or a
 * negative blue_wire_err.
 */
int blue_wire_ud_parse(const void *frame, uint32_t len, struct blue_wire_ud *u,
		       uint32_t *payload_off);

/** Is @p frame IPv4 + UDP to port 4793 (a UD frame to parse)? Validates nothing else. */
bool blue_wire_is_ud(const void *frame, uint32_t len);

#endif /* BLUE_WIRE_H */
