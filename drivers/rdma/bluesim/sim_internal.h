/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bluesim internals, shared by its files and its tests. One file per block
 * of the card: registers and rings (sim_ring.c), DMA and address translation
 * (sim_dma.c), the command unit (sim_cmd.c), transmit (sim_tx.c), receive and
 * the PSN bitmap engine (sim_rx.c), the Ethernet port, faults and capture
 * (sim_port.c); sim.c ties them together.
 */
#ifndef SIM_INTERNAL_H
#define SIM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_log.h>
#include <rte_mbuf.h>

#include "blue_desc.h"
#include "blue_regs.h"
#include "blue_wire.h"
#include "bluesim.h"
#include "ordk_pcapng.h"

extern int bluesim_logtype;
#define SIM_LOG(level, sim, fmt, ...)                                                 \
	rte_log(RTE_LOG_##level, bluesim_logtype, "bluesim: %s: " fmt "\n", (sim)->name, \
		##__VA_ARGS__)

/* Every counter, in xstats order. */
#define SIM_STATS(X)                                                                      \
	X(tx_items) X(tx_packets) X(tx_bytes) X(tx_read_requests) X(tx_simple_nic)         \
	X(tx_bad_item) X(tx_invalid_lkey) X(tx_pgt_error) X(tx_dma_error)                  \
	X(tx_simple_nic_bad) X(tx_no_mbuf)                                                 \
	X(tx_link_down) /* frames dropped unsent: the link was down (bluesim_set_link()) */    \
	X(port_tx_bursts) X(port_rx_bursts)                                              \
	X(rx_frames) X(rx_bytes) X(rx_not_ready) X(rx_filtered) X(rx_fcs_error)             \
	X(rx_multiseg_dropped) X(rx_rdma) X(rx_simple_nic) X(rx_simple_nic_no_buffer)      \
	X(rx_simple_nic_ring_full) X(rx_simple_nic_too_big) X(rx_dma_error)                 \
	X(drop_invalid_qp_access) X(drop_invalid_opcode) X(drop_invalid_mr_key)            \
	X(drop_mem_out_of_bound) X(drop_invalid_mr_access) X(drop_invalid_header)          \
	X(drop_invalid_qp_context) X(drop_length_error) X(drop_unknown)                    \
	X(meta_reports) X(meta_descriptors) X(meta_backpressure)                          \
	X(acks_received) X(loss_detected) X(loss_acks_sent) X(idle_reports) X(rx_psn_stale)  \
	X(cmd_ok) X(cmd_failed) X(cmd_bad_descriptor) X(dma_refused) X(ring_insane)        \
	X(fault_tx_drop) X(fault_tx_dup) X(fault_tx_reorder) X(fault_tx_corrupt)           \
	X(fault_tx_delay) X(fault_rx_drop) X(fault_rx_dup) X(fault_rx_reorder)             \
	X(fault_rx_corrupt) X(fault_rx_delay)                                              \
	X(rtl_cmd_blocked) X(rtl_cmd_no_answer) X(rtl_bitmap_locked)                      \
	X(rtl_bitmap_updates_lost) X(rtl_rx_stalls) X(rtl_rx_stall_overflow)              \
	X(rtl_rx_unchecked) X(cnp_sent) X(cnp_suppressed) X(rx_cnp) X(rx_cnp_reported)    \
	X(dma_fault) /* MR memory that faulted under a copy (unmapped under a live MR) */        \
	X(rx_ecn_marked) /* accepted RDMA packets that came marked CE (ECN congestion) */   \
	X(tx_zcopy) /* packets whose payload went to the port as MR memory (zcopy=1) */      \
	X(tx_zcopy_recalled) /* such packets dropped unsent: their memory was unmapped */     \
	X(rx_linearized) /* frames that came in several mbufs, copied into one */          \
	X(dma_spanned) /* DMA copies over several mappings that abut (an IOMMU's pages) */

struct sim_stats {
#define SIM_STAT_FIELD(n) uint64_t n;
	SIM_STATS(SIM_STAT_FIELD)
#undef SIM_STAT_FIELD
};

/* MR table entry (doc/guides/drivers/blue_hw_interface.md section 4). */
struct sim_mr {
	uint8_t valid;
	uint8_t key_part;
	uint8_t acc_flags;
	uint32_t pgt_offset;
	uint64_t base_va;
	uint32_t length;
};

/* QP context plus the PSN bitmap state of its index (section 5.1). */
struct sim_qpc {
	uint8_t valid;
	uint8_t is_error;
	uint8_t pmtu;
	uint8_t rq_access_flags;
	uint8_t qp_type;
	uint16_t local_udp_port;
	uint32_t qpn;
	uint32_t peer_qpn;
	uint32_t peer_ip;
	uint64_t peer_mac;
	/* bitmap window: bit i stands for PSN 16 * L - 112 + i */
	uint32_t L;			/* stride index of the newest stride (20 bits) */
	struct blue_bitmap128 bitmap;
	uint16_t loss_msn;		/* per-QP loss-ACK counter */
	uint8_t dirty;			/* received since the last report */
	uint8_t on_dirty_list;
	uint64_t last_rx_ns;
};

#define SIM_STRIDE_MASK 0xFFFFFu /* PSN >> 4: 20 bits */

/* Host-to-card ring: the model's fetch state. */
struct sim_h2c {
	enum blue_ring_id id;
	uint32_t csr;	    /* register block offset */
	uint32_t tail;	    /* shadow of TAIL: next descriptor to fetch */
	uint64_t base_iova; /* base the cached VA belongs to */
	uint8_t *base_va;   /* NULL: not mapped */
};

/* Card-to-host ring: the model's post state. */
struct sim_c2h {
	enum blue_ring_id id;
	uint32_t csr;
	uint32_t head; /* next slot to write */
	uint64_t base_iova;
	uint8_t *base_va;
};

/* Meta reports waiting for room in the MetaReport ring (never dropped). */
#define SIM_META_PENDING 4096u
struct sim_meta_item {
	uint8_t ndesc;
	uint8_t d[2][BLUE_DESC_SIZE];
};

/*
 * The model's IOMMU: sorted mappings, grown on demand (every MR on its own
 * pages is one mapping: at least max_mr of them must fit).
 */
#define SIM_DMA_MAPS_MIN 64u
#define SIM_DMA_MAPS_MAX (1u << 20)
struct sim_dma_map {
	uint64_t iova;
	uint64_t len;
	uint8_t *va;
};

/* The Send item being turned into packets. */
struct sim_tx_state {
	bool active;
	struct blue_send_item it;
	struct sim_mr mr; /* lkey's entry, read when the item started */
	uint32_t off;	  /* bytes of the item sent */
	uint32_t pkt;	  /* packets of the item sent */
	uint8_t seg0[BLUE_DESC_SIZE];
	bool have_seg0;
};

/* Frames held back by the reorder and delay faults. */
#define SIM_HELD_MAX 256u
struct sim_held {
	struct rte_mbuf *m;
	uint64_t release_ns; /* delay: time; reorder: fallback time */
	uint32_t countdown;  /* reorder: frames still to pass */
};

struct sim_fault_dir {
	struct sim_held held[SIM_HELD_MAX];
	uint32_t nheld;
};

#define SIM_BURST 32u
#define SIM_TX_QUEUE 512u
#define SIM_LOOPBACK_RING 4096u

/* rtl=1: frames held while the SimpleNic RX ring is full (the card stalls). */
#define SIM_STALL_MAX 64u
/* rtl=1: tracked packets the RTL's queues hold before a locked bitmap unit stops receive
 * (AutoAckGenerator.bsv and RQ.bsv FIFOs; an estimate, the exact depth is not modelled). */
#define SIM_RTL_BITMAP_BACKLOG 4u
/* rtl=1: CnpPacketGen.bsv's pause, CNP_PAUSE_TICK_CNT = 8192 cycles of 4 ns. */
#define SIM_RTL_CNP_PAUSE_NS 32768u

struct bluesim {
	char name[32];
	uint8_t *bar; /* BLUE_BAR0_SIZE bytes */
	struct bluesim_config cfg;
	struct rte_mempool *pool;
	bool own_pool;
	bool own_bar;	/* bar was allocated here (not cfg.bar) */
	uint64_t tsc_hz;
	uint64_t ns_per_tsc_q32;    /* sim_now_ns(): 1e9 / tsc_hz in 32.32 fixed point */
	uint64_t rx_now_ns;	    /* time of the receive burst being handled */

	/* network parameters (SetNetworkParam) */
	bool net_ready;
	uint64_t local_mac;
	uint32_t local_ip, netmask, gateway;
	/* SimpleNic RX buffer (SetRawPacketReceiveMeta) */
	bool raw_ready;
	uint64_t raw_base;
	uint32_t raw_slot;
	bool raw_meta_queued;	/* rtl=1: the one-entry queue nobody reads is full */
	bool cmd_blocked;	/* rtl=1: the command unit waits for ever */
	bool bitmap_locked;	/* rtl=1: the PSN bitmap unit's busy flag stuck */
	uint32_t bitmap_backlog; /* rtl=1: tracked packets since the lock */
	bool link_down;		/* bluesim_set_link(): the port is not touched */
	bool rx_blocked;	/* rtl=1: receive stopped for good (backlog full) */
	uint64_t *cnp_last_ns;	/* rtl=1: per QP index, time of the last CNP + 1 (0: never) */
	struct rte_mbuf *stall[SIM_STALL_MAX]; /* rtl=1: frames behind a full SimpleNic ring */
	uint32_t stall_head, stall_count;

	struct sim_h2c cmd_req, send, snic_tx;
	struct sim_c2h cmd_resp, meta, snic_rx;

	struct sim_mr *mrs;   /* BLUE_MAX_MR */
	uint32_t *pgt;	      /* BLUE_PGT_ENTRIES page numbers */
	struct sim_qpc *qpcs; /* BLUE_MAX_QP */
	uint16_t *dirty;      /* QP indices with unreported packets */
	uint32_t ndirty;

	struct sim_dma_map *maps; /* sorted by iova; maps_cap entries */
	uint32_t nmaps, maps_cap;
	uint32_t last_map;

	struct sim_meta_item *meta_q; /* SIM_META_PENDING, FIFO */
	uint32_t meta_head, meta_count;

	struct sim_tx_state tx;
	struct rte_mbuf *txq[SIM_TX_QUEUE]; /* frames waiting for the port */
	uint32_t txq_len;
	struct rte_mbuf **lb; /* loopback FIFO */
	uint32_t lb_head, lb_count;

	struct sim_fault_dir fault[BLUESIM_DIR_COUNT];
	uint64_t rng;

	struct ordk_pcapng *pcap;
	/* zcopy: payloads handed to the port as external mbufs over MR memory */
	bool zcopy;		/* in use (the devarg, and a port that copies on transmit) */
	uint64_t zc_inflight;	/* such mbufs not yet released (the port or the model hold them) */
	struct sim_stats st;
};

/* sim.c */
uint64_t sim_now_ns(struct bluesim *sim);

/* sim_ring.c: registers and rings */
static inline uint32_t
sim_reg_read(const struct bluesim *sim, uint32_t off)
{
	return __atomic_load_n((const uint32_t *)(sim->bar + off), __ATOMIC_ACQUIRE);
}

static inline void
sim_reg_write(struct bluesim *sim, uint32_t off, uint32_t v)
{
	__atomic_store_n((uint32_t *)(sim->bar + off), v, __ATOMIC_RELEASE);
}

void sim_rings_init(struct bluesim *sim);
/** Descriptors the host has produced and the model not fetched (0 if insane). */
uint32_t sim_h2c_avail(struct bluesim *sim, struct sim_h2c *r);
/** Pointer to descriptor @p i after the fetch point, or NULL if the ring is not mapped. */
const uint8_t *sim_h2c_peek(struct bluesim *sim, struct sim_h2c *r, uint32_t i);
/** Mark @p n descriptors fetched: TAIL advances. */
void sim_h2c_consume(struct bluesim *sim, struct sim_h2c *r, uint32_t n);
/** Free slots of a card-to-host ring (host TAIL read fresh); 0 when unusable. */
uint32_t sim_c2h_free(struct bluesim *sim, struct sim_c2h *r);
/** Write @p n contiguous descriptors with valid = 1 (caller checked the room); HEAD not moved. */
void sim_c2h_write(struct bluesim *sim, struct sim_c2h *r, const uint8_t (*d)[BLUE_DESC_SIZE],
		   uint32_t n);
/** Publish the written descriptors: HEAD = the model's head. */
void sim_c2h_publish(struct bluesim *sim, struct sim_c2h *r);
/** Queue a meta report (one or two descriptors); never fails, never drops. */
void sim_meta_post(struct bluesim *sim, const uint8_t (*d)[BLUE_DESC_SIZE], uint8_t ndesc);
/** Move queued reports into the MetaReport ring as room allows; returns reports moved. */
unsigned int sim_meta_flush(struct bluesim *sim);
static inline bool
sim_meta_room(const struct bluesim *sim, uint32_t reports)
{
	return sim->meta_count + reports <= SIM_META_PENDING;
}

/* sim_dma.c */
/** Host memory behind [iova, iova + len), or NULL (refused and counted). */
uint8_t *sim_dma_ptr(struct bluesim *sim, uint64_t iova, uint64_t len);
/** Copy from / to [iova, iova + len), which may span mappings side by side; -EFAULT: a hole. */
int sim_dma_read(struct bluesim *sim, uint64_t iova, void *dst, uint64_t len);
int sim_dma_write(struct bluesim *sim, uint64_t iova, const void *src, uint64_t len);
/**
 * Read/write @p len bytes at MR virtual address @p va through the PGT (section 4).
 * Host memory that faults fails the access (-EFAULT, counted in dma_fault).
 */
int sim_mr_read(struct bluesim *sim, const struct sim_mr *mr, uint64_t va, void *dst,
		uint32_t len);
int sim_mr_write(struct bluesim *sim, const struct sim_mr *mr, uint64_t va, const void *src,
		 uint32_t len);
/**
 * Host memory behind [va, va + len) of an MR when it is one piece (one PGT page, one DMA
 * mapping) and readable now (probed under the guard), else NULL: nothing is counted, the
 * caller copies instead (sim_mr_read(), which counts what fails).
 */
const uint8_t *sim_mr_ptr(struct bluesim *sim, const struct sim_mr *mr, uint64_t va,
			  uint32_t len);

/* sim_cmd.c */
unsigned int sim_cmd_poll(struct bluesim *sim, unsigned int budget);
void sim_qpc_reset_bitmap(struct sim_qpc *q);

/* sim_tx.c */
unsigned int sim_send_poll(struct bluesim *sim, unsigned int budget);
unsigned int sim_snic_tx_poll(struct bluesim *sim, unsigned int budget);

/* sim_rx.c */
/** Receive one frame. @return false when it must be held (rtl=1 SimpleNic stall). */
bool sim_rx_frame(struct bluesim *sim, struct rte_mbuf *m);
/** Record PSN @p psn in QP @p q's window; report loss (ACK to peer + local report). */
void sim_bitmap_track(struct bluesim *sim, struct sim_qpc *q, uint32_t psn);
unsigned int sim_idle_scan(struct bluesim *sim);

/* sim_rtl.c: where the RTL departs from the spec (rtl=1) */
/** Read an RDMA frame as the RTL does: fixed offsets, no header validation. @return 0 or < 0. */
int sim_rtl_parse(const uint8_t *f, uint32_t len, struct blue_wire_rdma *p);
/** The RTL's receive checks (QP access, MR key/access/bounds, beat count): counter or -1. */
int sim_rtl_check_payload(struct bluesim *sim, const struct sim_qpc *q,
			  const struct blue_wire_rdma *p, const struct sim_mr **mrp);
/** A CE-marked packet was accepted: send a CNP unless the pause holds it back. */
void sim_cnp_send(struct bluesim *sim, const struct sim_qpc *q, const struct blue_wire_rdma *p);
/** The RTL's address filter: MAC, then frame bytes 30-33 against the local IP. */
bool sim_rtl_filter_pass(const struct bluesim *sim, const uint8_t *f, uint32_t len);
/** The RTL's classifier: EtherType IPv4, protocol UDP, destination port 4791 at byte 36. */
bool sim_rtl_is_rdma(const uint8_t *f, uint32_t len);
/** A PSN behind the window locked the bitmap unit: count and stop tracking. */
void sim_rtl_bitmap_lock(struct bluesim *sim, struct sim_qpc *q, uint32_t psn);

/* sim_port.c */
struct rte_mbuf *sim_mbuf_alloc(struct bluesim *sim);
/** Hand a finished frame to the wire (FCS, capture, TX faults, queue). */
void sim_port_send(struct bluesim *sim, struct rte_mbuf *m);
unsigned int sim_port_flush(struct bluesim *sim);
unsigned int sim_port_rx(struct bluesim *sim, unsigned int budget);
uint64_t sim_rand(struct bluesim *sim);
void sim_port_release_all(struct bluesim *sim);
/** zcopy=1 and a port that copies what it sends (memif, af_packet): choose the mode. */
void sim_zcopy_setup(struct bluesim *sim);
/** Chain @p len bytes of host memory at @p p behind @p m as an external mbuf; false if none. */
bool sim_zcopy_attach(struct bluesim *sim, struct rte_mbuf *m, const uint8_t *p, uint32_t len);
/** Host memory [va, va + len) goes away: frames the model still holds over it are dropped. */
void sim_zcopy_recall(struct bluesim *sim, const uint8_t *va, uint64_t len);

#endif /* SIM_INTERNAL_H */
