/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Blue RDMA card: BAR0 register map and ring pointer arithmetic.
 *
 * Source of every number here: doc/guides/drivers/blue_hw_interface.md
 * sections 1 and 2. Names follow
 * that document so the two can be read side by side. The PMD (drivers/rdma/blue)
 * and the model (drivers/rdma/bluesim) both take their offsets from this file.
 */
#ifndef BLUE_REGS_H
#define BLUE_REGS_H

#include <stdbool.h>
#include <stdint.h>

/* PCI identity of the card (section 1). */
#define BLUE_PCI_VENDOR_ID 0x1172
#define BLUE_PCI_DEVICE_ID 0x0000
#define BLUE_PCI_BAR	   0

/*
 * CSR address formula (section 1, RTL CsrAddress.bsv):
 * byte_offset = (block_start + queue_index * 0x10 + (to_host ? 4 : 0) + reg) << 2
 */
#define BLUE_CSR_BLOCK_QP	  0x00
#define BLUE_CSR_BLOCK_CMDQ	  0x40
#define BLUE_CSR_BLOCK_SIMPLE_NIC 0x50

#define BLUE_CSR_REG_BASE_LO 0
#define BLUE_CSR_REG_BASE_HI 1
#define BLUE_CSR_REG_HEAD    2
#define BLUE_CSR_REG_TAIL    3

#define BLUE_CSR_ADDR(block, queue, to_host, reg) \
	((uint32_t)(((block) + (queue) * 0x10 + ((to_host) ? 4 : 0) + (reg)) << 2))

/* Byte offset of the first register (BASE_LO) of each ring. */
#define BLUE_SEND_RING_BASE(ch)	    BLUE_CSR_ADDR(BLUE_CSR_BLOCK_QP, (ch), 0, 0)
#define BLUE_META_RING_BASE(ch)	    BLUE_CSR_ADDR(BLUE_CSR_BLOCK_QP, (ch), 1, 0)
#define BLUE_CMD_REQ_RING_BASE	    BLUE_CSR_ADDR(BLUE_CSR_BLOCK_CMDQ, 0, 0, 0)
#define BLUE_CMD_RESP_RING_BASE	    BLUE_CSR_ADDR(BLUE_CSR_BLOCK_CMDQ, 0, 1, 0)
#define BLUE_SIMPLE_NIC_TX_RING_BASE BLUE_CSR_ADDR(BLUE_CSR_BLOCK_SIMPLE_NIC, 0, 0, 0)
#define BLUE_SIMPLE_NIC_RX_RING_BASE BLUE_CSR_ADDR(BLUE_CSR_BLOCK_SIMPLE_NIC, 0, 1, 0)

/* Offset of one register of a ring, given the ring's first register. */
#define BLUE_RING_REG(ring_base, reg) ((uint32_t)((ring_base) + 4 * (reg)))

/* The rings the current RTL decodes (section 1 table, last column). */
enum blue_ring_id {
	BLUE_RING_SEND0 = 0,   /**< host -> card, Send (WQE) channel 0 */
	BLUE_RING_META0,       /**< card -> host, MetaReport channel 0 */
	BLUE_RING_CMD_REQ,     /**< host -> card */
	BLUE_RING_CMD_RESP,    /**< card -> host */
	BLUE_RING_SIMPLE_NIC_TX, /**< host -> card */
	BLUE_RING_SIMPLE_NIC_RX, /**< card -> host */
	BLUE_RING_COUNT
};

/** Register block offset of a ring. */
uint32_t blue_ring_csr_base(enum blue_ring_id ring);
/** True for card-to-host rings (the card produces, the host consumes). */
bool blue_ring_is_c2h(enum blue_ring_id ring);
/** Name as in doc/guides/drivers/blue_hw_interface.md ("CmdReq", "MetaReport ch0", ...). */
const char *blue_ring_name(enum blue_ring_id ring);

/* Channels 1-3 exist in the address map but are not decoded by the RTL. */
#define BLUE_SEND_CHANNELS_DECODED 1

/* Read-only counters (section 1, "Other offsets"); RTL only. */
enum blue_rq_counter {
	BLUE_RQ_CNT_INVALID_QP_ACCESS = 0,
	BLUE_RQ_CNT_INVALID_OPCODE = 1,
	BLUE_RQ_CNT_INVALID_MR_KEY = 2,
	BLUE_RQ_CNT_MEM_OUT_OF_BOUND = 3,
	BLUE_RQ_CNT_INVALID_MR_ACCESS = 4,
	BLUE_RQ_CNT_INVALID_HEADER = 5,
	BLUE_RQ_CNT_INVALID_QP_CONTEXT = 6,
	BLUE_RQ_CNT_PACKET_LENGTH_ERROR = 7,
	BLUE_RQ_CNT_UNKNOWN_ERROR = 8,
	BLUE_RQ_CNT_DEBUG = 9,
	BLUE_RQ_CNT_COUNT = 10
};

enum blue_rx_class_counter {
	BLUE_RX_CLASS_DISCARDED = 0,
	BLUE_RX_CLASS_SIMPLE_NIC = 1,
	BLUE_RX_CLASS_RDMA = 2,
	BLUE_RX_CLASS_COUNT = 3
};

#define BLUE_RX_CHANNELS 4
#define BLUE_REG_RQ_COUNTER(n, k)	 ((uint32_t)(0x400 * ((n) + 1) + 4 * (k)))
#define BLUE_REG_RX_CLASS_COUNTER(n, k) ((uint32_t)(0x400 * ((n) + 1) + 0x80 + 4 * (k)))
#define BLUE_REG_PKTGEN_COUNTER(n, k)	 ((uint32_t)(0x1400 + 0x400 * (n) + 4 * (k)))

/* Debug CSRs of another bitstream (not decoded by this RTL). */
#define BLUE_REG_DEBUG_LOOPBACK	     0x180
#define BLUE_REG_DEBUG_DROP_SEED     0x184
#define BLUE_REG_DEBUG_DROP_THRESHOLD 0x188

/* BAR0 span that holds every register above (last one: 0x1400 + 0xC00 + 0xC). */
#define BLUE_BAR0_SIZE 0x4000

/*
 * Rings (section 2): 4096 descriptors of 32 bytes, one physically contiguous
 * buffer each, base aligned to at least 512 bytes so no DMA burst crosses a page.
 */
#define BLUE_RING_DEPTH	     4096u
#define BLUE_DESC_SIZE	     32u
#define BLUE_RING_BYTES	     (BLUE_RING_DEPTH * BLUE_DESC_SIZE)
#define BLUE_RING_BASE_ALIGN 512u

/*
 * 13-bit ring pointers: {guard (bit 12), index (bits 11:0)}. Empty when the two
 * 13-bit pointers are equal; full when the indices are equal and the guard bits
 * differ. The RTL truncates written values to 13 bits, so a producer may keep a
 * free-running counter and write it as it is.
 */
#define BLUE_RING_PTR_BITS  13
#define BLUE_RING_PTR_MASK  0x1FFFu
#define BLUE_RING_IDX_MASK  0x0FFFu
#define BLUE_RING_GUARD_BIT 0x1000u

static inline uint32_t
blue_ring_ptr(uint32_t v)
{
	return v & BLUE_RING_PTR_MASK;
}

static inline uint32_t
blue_ring_idx(uint32_t ptr)
{
	return ptr & BLUE_RING_IDX_MASK;
}

/** Pointer @p ptr moved forward by @p n slots (wraps through the guard bit). */
static inline uint32_t
blue_ring_advance(uint32_t ptr, uint32_t n)
{
	return (ptr + n) & BLUE_RING_PTR_MASK;
}

static inline bool
blue_ring_empty(uint32_t head, uint32_t tail)
{
	return blue_ring_ptr(head) == blue_ring_ptr(tail);
}

static inline bool
blue_ring_full(uint32_t head, uint32_t tail)
{
	return ((head ^ tail) & BLUE_RING_PTR_MASK) == BLUE_RING_GUARD_BIT;
}

/**
 * Entries between tail and head. Values above BLUE_RING_DEPTH cannot come from
 * a sane producer: check them with blue_ring_ptrs_sane() before trusting them.
 */
static inline uint32_t
blue_ring_count(uint32_t head, uint32_t tail)
{
	return (head - tail) & BLUE_RING_PTR_MASK;
}

static inline bool
blue_ring_ptrs_sane(uint32_t head, uint32_t tail)
{
	return blue_ring_count(head, tail) <= BLUE_RING_DEPTH;
}

/** Free slots a producer may fill; 0 when the pointers are not sane. */
static inline uint32_t
blue_ring_free(uint32_t head, uint32_t tail)
{
	uint32_t used = blue_ring_count(head, tail);

	return used > BLUE_RING_DEPTH ? 0 : BLUE_RING_DEPTH - used;
}

#endif /* BLUE_REGS_H */
