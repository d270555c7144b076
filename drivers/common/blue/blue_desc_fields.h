/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The descriptor layouts of doc/guides/drivers/blue_hw_interface.md section 3, each an X-macro list
 * of (field, hi, lo) in the document's own bit ranges, and the macros that
 * make encoders and decoders of them; blue_desc.c makes the reserved-bit
 * masks, the tests' field tables and the per-field asserts of the same lists,
 * so a bit range is written down exactly once. Internal to the codecs, one
 * file per descriptor family: blue_desc_cmd.c (commands), blue_desc_send.c
 * (Send items), blue_desc_meta.c (meta reports), blue_desc_snic.c (SimpleNic).
 */
#ifndef BLUE_DESC_FIELDS_H
#define BLUE_DESC_FIELDS_H

#include <stdbool.h>

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

/* Every bit a descriptor of each layout may set, header included (blue_desc.c). */
extern const struct blue_desc_words blue_layout_masks[BLUE_LAYOUT_COUNT];

/* Whether the image sets a bit its layout reserves. */
static inline bool
blue_desc_reserved(const struct blue_desc_words *dw, enum blue_layout l)
{
	const struct blue_desc_words *m = &blue_layout_masks[l];

	return ((dw->w[0] & ~m->w[0]) | (dw->w[1] & ~m->w[1]) | (dw->w[2] & ~m->w[2]) |
		(dw->w[3] & ~m->w[3])) != 0;
}

/* The common header, bytes 30-31 of every descriptor. */
static inline void
blue_desc_hdr_decode(const struct blue_desc_words *dw, struct blue_desc_hdr *h)
{
	struct {
		struct blue_desc_hdr hdr;
	} tmp, *s = &tmp;

	HDR_FIELDS(DEC)
	*h = tmp.hdr;
}

static inline int
blue_desc_hdr_encode(struct blue_desc_words *dw, const struct blue_desc_hdr *h)
{
	const struct {
		struct blue_desc_hdr hdr;
	} tmp = { *h }, *s = &tmp;

	HDR_FIELDS(ENC)
	return BLUE_DESC_OK;
}

/*
 * The second descriptor of a two-descriptor item (Send Seg1, a meta report's
 * extension): present, not extended, the item's last, with the first's
 * opcode (section 3). Loads it into @p w1 and its header into @p h1.
 */
static inline int
blue_desc_second(const void *d1, const struct blue_desc_hdr *h0, struct blue_desc_words *w1,
		 struct blue_desc_hdr *h1)
{
	if (d1 == NULL)
		return BLUE_DESC_E_NEED_NEXT;
	blue_desc_load(w1, d1);
	blue_desc_hdr_decode(w1, h1);
	if (h1->is_extended_opcode)
		return BLUE_DESC_E_EXTENDED;
	if (h1->has_next)
		return BLUE_DESC_E_HAS_NEXT;
	if (h1->opcode != h0->opcode)
		return BLUE_DESC_E_PAIR;
	return BLUE_DESC_OK;
}

#endif /* BLUE_DESC_FIELDS_H */
