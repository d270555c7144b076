/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMD's device: rings, command queue, SimpleNic buffers, over a backend.
 * Used by the driver's verbs objects (blue_verbs*.c) and its RC transport
 * (rc/); one lcore at a time.
 */
#ifndef BLUE_HW_H
#define BLUE_HW_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_log.h>

#include "blue_backend.h"
#include "blue_desc.h"
#include "blue_ring.h"

extern int blue_logtype;
#define BLUE_LOG(level, dev, fmt, ...) \
	rte_log(RTE_LOG_##level, blue_logtype, "blue: %s: " fmt "\n", (dev)->be.name, ##__VA_ARGS__)

/* Commands in flight: the card answers in order, so a FIFO matches them. */
#define BLUE_CMDQ_DEPTH 256u
#define BLUE_PGT_STAGING_SLOTS 64u /* 512 B each: one UpdatePGT burst per slot */

/* SimpleNic TX: one 256-byte frame slot per ring slot (a slot never crosses a page); a
 * longer frame (UD) takes one of BLUE_SNIC_BIG_SLOTS slots as long as the card's RX slot,
 * in turn, once the card fetched the frame that had it (blue_snic_big_alloc() first). */
#define BLUE_SNIC_TX_SLOT   256u
#define BLUE_SNIC_BIG_SLOT  BLUE_SIMPLE_NIC_RX_SLOT_SIZE
#define BLUE_SNIC_BIG_SLOTS 256u

struct blue_cmd_slot {
	uint8_t busy;
	uint8_t done;
	uint8_t ok;
	uint8_t opcode;
};

/* The driver's counters of the card's interface, one line each; the device's
 * xstats name them "pmd_<name>" (blue_dev.c dev_xstats()). */
#define BLUE_HW_STATS(X)                                                                    \
	X(cmd_submitted) X(cmd_ok) X(cmd_failed) X(cmd_timeouts)                             \
	X(cmd_resp_unexpected)	/* a response with no command waiting for it */             \
	X(cmd_kicks)		/* a model's command unit run within a poll (blue_cmd_kick()) */ \
	X(meta_reports)                                                                      \
	X(meta_bad)		/* meta reports outside the classification table, dropped */ \
	X(snic_tx) X(snic_tx_full)                                                           \
	X(snic_rx)                                                                           \
	X(snic_rx_bad)		/* SimpleNic frames dropped: longer than a slot, bad descriptor */ \
	X(send_items) X(send_ring_full)

struct blue_hw_stats {
#define BLUE_HW_STAT_FIELD(n) uint64_t n;
	BLUE_HW_STATS(BLUE_HW_STAT_FIELD)
#undef BLUE_HW_STAT_FIELD
};

struct blue_hw {
	struct blue_backend be;
	uint64_t mac;
	uint32_t ip, netmask, gateway;
	bool started;

	struct blue_hring ring[BLUE_RING_COUNT];
	void *ring_mem[BLUE_RING_COUNT];

	/* command queue */
	struct blue_cmd_slot cmd[BLUE_CMDQ_DEPTH];
	uint32_t cmd_seq;	/* next sequence to submit */
	uint32_t cmd_done_seq;	/* next sequence whose response is due */
	uint32_t cmd_kicked;	/* cmd_seq at the last blue_cmd_kick() that ran a model's unit */
	uint8_t *pgt_staging;	/* BLUE_PGT_STAGING_SLOTS x 512 B */
	uint64_t pgt_staging_iova;
	uint32_t pgt_staging_next;

	/* SimpleNic */
	uint8_t *snic_tx_buf;
	uint64_t snic_tx_iova;
	uint8_t *snic_rx_buf;
	uint64_t snic_rx_iova;
	uint32_t snic_slot;	/* RX slot size: the card writes slot i at iova + i * snic_slot */
	size_t snic_rx_len;
	bool snic_rx_fixed;	/* mapped at a chosen IOVA (0): freed without unmap */
	uint8_t *snic_big_buf;	/* BLUE_SNIC_BIG_SLOTS long-frame slots, or NULL */
	uint64_t snic_big_iova;
	uint32_t snic_big_next;	/* the next slot to take, in turn */
	uint32_t snic_big_pos[BLUE_SNIC_BIG_SLOTS]; /* the TX ring position that took it, + 1 */

	uint64_t tsc_hz;
	uint64_t cmd_timeout_tsc;
	struct blue_hw_stats st;
};

/** Bring up a device over an opened backend: rings, buffers, SetNetworkParam, raw RX. */
int blue_hw_start(struct blue_hw *dev, uint64_t mac, uint32_t ip);
/** Release every ring and buffer, close the backend. */
void blue_hw_close(struct blue_hw *dev);

/**
 * The SimpleNic RX buffer (BLUE_SIMPLE_NIC_RX_SLOTS slots of the backend's
 * snic_slot): at IOVA 0 through the backend's dma_map_at (the RTL writes
 * there), or anywhere with snic_any_iova. @return 0, -ENOTSUP (physical
 * addresses and no snic_iova0=0: logged), -ENOMEM. Used by blue_hw_start();
 * the VM rig calls it alone to show the mapping is real.
 */
int blue_snic_rx_alloc(struct blue_hw *dev);
void blue_snic_rx_free(struct blue_hw *dev);

/** DMA-able memory (rte_zmalloc + backend map); *iova where the device sees it. */
void *blue_dma_alloc(struct blue_hw *dev, size_t len, size_t align, uint64_t *iova);
void blue_dma_free(struct blue_hw *dev, void *va, size_t len);

/* --------------------------------------------------------------- commands */

/**
 * Queue a command; @return its sequence number (>= 0), or -EAGAIN when the
 * CmdReq ring or the in-flight table is full. The doorbell is rung here.
 */
int64_t blue_cmd_submit(struct blue_hw *dev, const struct blue_cmd *cmd);
/** Consume command responses; @return how many. */
unsigned int blue_cmd_poll(struct blue_hw *dev);
/** Has @p seq completed? *ok gets is_success. */
bool blue_cmd_done(const struct blue_hw *dev, uint32_t seq, bool *ok);
/**
 * The caller waits for a command within its poll: a model's command unit
 * (the backend's cmd_poll) takes what was submitted since it last did and
 * the answers are reaped, as a card's unit, which runs beside the host,
 * would have them by now. Nothing on hardware (its answers are reaped at
 * the next poll), nothing when no command came since the last kick.
 * @return true when it ran the unit.
 */
bool blue_cmd_kick(struct blue_hw *dev);
/**
 * Submit and wait (stepping the backend and the command queue only, with a
 * timeout). @return 0, -EIO (is_success = 0), -ETIMEDOUT, -EAGAIN.
 */
int blue_cmd_exec(struct blue_hw *dev, const struct blue_cmd *cmd);
/** A 512-byte, 512-aligned staging slot for UpdatePGT entries, with its IOVA. */
uint64_t *blue_pgt_staging(struct blue_hw *dev, uint64_t *iova);

/** Step the backend (a model) if it has to be stepped. */
static inline unsigned int
blue_backend_poll(struct blue_hw *dev, unsigned int budget)
{
	return dev->be.ops->poll != NULL ? dev->be.ops->poll(&dev->be, budget) : 0;
}

/* ------------------------------------------------------------ send ring */

/** Free descriptor slots on the Send ring (2 per item). */
static inline uint32_t
blue_send_free(struct blue_hw *dev, uint32_t want)
{
	return blue_hring_free(&dev->ring[BLUE_RING_SEND0], want);
}

/** Encode and place an item (caller checked 2 free slots); doorbell separate. */
int blue_send_item_put(struct blue_hw *dev, const struct blue_send_item *it);

static inline void
blue_send_doorbell(struct blue_hw *dev)
{
	blue_hring_doorbell(&dev->ring[BLUE_RING_SEND0]);
}

/* ------------------------------------------------------------ meta ring */

/**
 * The next meta report: 1 with @p rep filled, 0 when none is ready, -1 when a
 * report did not decode (consumed, counted). TAIL is written by blue_meta_commit().
 */
int blue_meta_next(struct blue_hw *dev, struct blue_meta_report *rep);

static inline void
blue_meta_commit(struct blue_hw *dev)
{
	blue_hring_commit(&dev->ring[BLUE_RING_META0]);
}

/* ------------------------------------------------------------ SimpleNic */

/**
 * Queue a raw frame on SimpleNic TX: up to BLUE_SNIC_TX_SLOT bytes, or BLUE_SNIC_BIG_SLOT
 * once blue_snic_big_alloc() ran. @return 0 or -EAGAIN/-EINVAL.
 */
int blue_snic_tx(struct blue_hw *dev, const void *frame, uint32_t len);
/** Room for one more frame on SimpleNic TX? */
bool blue_snic_tx_room(struct blue_hw *dev);
/** Room for one more frame of @p len bytes (a long one needs its slot fetched)? */
bool blue_snic_tx_room_len(struct blue_hw *dev, uint32_t len);
/** The long-frame slots (control path; once per device, freed at close). @return 0 or -ENOMEM. */
int blue_snic_big_alloc(struct blue_hw *dev);

static inline void
blue_snic_tx_flush(struct blue_hw *dev)
{
	blue_hring_doorbell(&dev->ring[BLUE_RING_SIMPLE_NIC_TX]);
}

/** The next received raw frame: pointer into the RX buffer, or NULL. Consume with blue_snic_rx_done(). */
const uint8_t *blue_snic_rx_next(struct blue_hw *dev, uint32_t *len);
void blue_snic_rx_done(struct blue_hw *dev);

static inline void
blue_snic_rx_commit(struct blue_hw *dev)
{
	blue_hring_commit(&dev->ring[BLUE_RING_SIMPLE_NIC_RX]);
}

#endif /* BLUE_HW_H */
