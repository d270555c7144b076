/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK verbs: the native, verb-like C API of ORDK (ibverbs semantics, ORDK names).
 *
 * Objects: a device (ordk_dev) owns protection domains (ordk_pd), memory
 * regions (ordk_mr), completion queues (ordk_cq) and RC queue pairs (ordk_qp).
 *
 * Threading: every object belongs to its device, and a device is driven by
 * one lcore at a time (its progress engine, ordk_dev_poll()). All functions
 * of one device must be called from that lcore, or serialised by the caller
 * (ordk_dev_idle() excepted).
 * Nothing here blocks except the control-path calls that wait for the card's
 * command responses (bounded by a timeout).
 *
 * Errors: control-path functions return 0 or a negative errno; constructors
 * return a pointer, or NULL with rte_errno set. Post and poll return counts.
 *
 * Handles: a PD, MR, CQ or QP handle is never reused for another object. Once
 * destroyed, it gets -EINVAL (rte_errno EINVAL) from every call that takes it,
 * whatever was created since.
 */
#ifndef ORDK_VERBS_H
#define ORDK_VERBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ordk_compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libordk's API: exported although ORDK builds with hidden visibility (the version map picks) */
#pragma GCC visibility push(default)

struct ordk_dev;
struct ordk_pd;
struct ordk_cq;
struct ordk_qp;
struct ordk_srq;
struct ordk_ah;

/* ------------------------------------------------------------------ device */

/** Device limits and identity (ordk_dev_query()). */
struct ordk_dev_attr {
	char name[32];		/**< "bluesim0", "blue:0000:01:00.0" */
	uint64_t mac;		/**< 48-bit, first octet most significant */
	uint32_t ip;		/**< IPv4, numeric (10.0.0.1 = 0x0A000001) */
	uint32_t max_qp;	/**< 1023 (card slots, index 0 reserved) */
	uint32_t max_qp_wr;	/**< send or receive WRs per QP */
	/**
	 * SGEs a send WR may gather at most (ordk_send_wr.sg_list; a QP takes up to
	 * its max_send_sge): 16. A READ scatters its answer over them.
	 */
	uint32_t max_sge;
	uint32_t max_cq;	/**< 65536 */
	uint32_t max_cqe;	/**< 2^20 entries per CQ */
	uint32_t max_mr;	/**< 8192 MR table slots */
	uint32_t max_pd;	/**< 65536 */
	uint64_t max_mr_size;	/**< 2 GiB - 1 (the MR length is 32 bits) */
	uint32_t max_msg_sz;	/**< 2^31 */
	uint32_t pgt_entries;	/**< 131072 pages of 2 MiB */
	uint32_t max_inline_data; /**< bytes a send WR may carry inline (ORDK_SEND_INLINE): 256, 0 none */
	uint32_t max_srq;	/**< shared receive queues (software pools): 65536 */
	uint32_t max_srq_wr;	/**< RECVs an SRQ holds at most: 32768 */
	uint32_t max_srq_sge;	/**< 1 */
	uint32_t max_ud_msg;	/**< bytes of a UD message at most (the port's MTU, 4096), 0: no UD */
	uint32_t max_recv_sge;	/**< SGEs of a receive WR at most: 1 (the card lands a SEND in one buffer) */
};

/**
 * Open a device.
 * @param devargs `bluesim,port=<ethdev|loopback>[,mac=..][,ip=..][,fault=..][,seed=..]...`
 *   (a bluesim model on a DPDK port; see doc/guides/drivers/bluesim.md), or
 *   `blue:<pci bdf>[,vendor=..,device=..,bar=..]` (the card through VFIO).
 * Lists go in brackets (`fault=[drop:0.01,dup:0.001]`); an unknown key is refused, named in the log.
 * @return the device, or NULL with rte_errno from where it failed: EINVAL (bad devargs), ENODEV
 *   (no such port or device), ENOMEM, ETIMEDOUT (the card did not answer).
 * Call from the lcore that will drive the device.
 */
struct ordk_dev *ordk_dev_open(const char *devargs);

/**
 * Close a device: its QPs, CQs, MRs and PDs must have been destroyed.
 * @return 0, -EBUSY (objects remain), -EINVAL (NULL).
 */
int ordk_dev_close(struct ordk_dev *dev);

/** @return 0, or -EINVAL. */
int ordk_dev_query(const struct ordk_dev *dev, struct ordk_dev_attr *attr);

/**
 * Run the device's progress engine once: the model (if any), meta reports,
 * command responses, SimpleNic RX, timers, the send rings.
 * @return work done (0 when idle). ordk_cq_poll() calls it too.
 */
unsigned int ordk_dev_poll(struct ordk_dev *dev, unsigned int budget);

/**
 * Say that the caller is about to stop polling @p dev for about @p ns
 * nanoseconds on purpose (a sleep while idle). A pause in polling is
 * otherwise a polling gap: the device's input piles up unseen, so the
 * transport's timers, holds and waits do not run in it (judged on stale
 * input, a late report would look like a loss). A pause up to the declared
 * length, plus the driver's allowance for jitter, counts as time spent
 * polling, so timers fire on time under a poller that sleeps; a pause longer
 * than that is a gap for the rest. The declaration is for the next interval
 * between two polls: the next ordk_dev_poll() consumes it, a later call
 * replaces it (0 withdraws it).
 *
 * Unlike the other calls of a device, it may be made from any thread, with
 * no serialisation against ordk_dev_poll() (the ibverbs progress thread makes
 * it before each of its sleeps, outside the device's lock).
 * Experimental: the transport's clock may still change.
 * @return 0, -EINVAL (NULL), or -ENOTSUP (a driver that keeps no polling time).
 */
ORDK_EXPERIMENTAL
int ordk_dev_idle(struct ordk_dev *dev, uint64_t ns);

/* The transport's counters (ORDK_STATS, struct ordk_stats, their names): ordk_stats.h, below. */
struct ordk_stats;

/**
 * Congestion control of a QP (doc/guides/prog_guide/congestion.md): DCQCN's state, and the
 * device's parameters as devargs keys.
 */
struct ordk_qp_cc {
	bool on;
	double rate_bps;   /**< R_C: items leave at this rate (wire bytes) */
	double target_bps; /**< R_T */
	double alpha;
	const char *stage; /**< the last increase: none, fast_recovery, additive, hyper */
	uint32_t t_count, bc_count; /**< timer and byte-counter events since the last CNP */
	uint64_t cnps, rate_changes, limited_ns;
	char params[320];  /**< the device's parameters, key=value,... (cc_<key> devargs) */
};

/** Fill @p cc for @p qp. @return 0, -EINVAL, or -ENOTSUP (no congestion control). */
int ordk_qp_cc_query(const struct ordk_qp *qp, struct ordk_qp_cc *cc);

/**
 * Turn a QP's congestion control on or off (the device's cc= devarg is the
 * default of new QPs); on starts DCQCN afresh at max_rate. @return 0, -EINVAL,
 * or -ENOTSUP (a driver without congestion control).
 */
int ordk_qp_cc_enable(struct ordk_qp *qp, bool on);

/** The device's totals (see ORDK_STATS). @return 0 or -EINVAL. */
int ordk_dev_stats(const struct ordk_dev *dev, struct ordk_stats *st);
/** Copy a QP's counters. @return 0 or -EINVAL. */
int ordk_qp_stats(const struct ordk_qp *qp, struct ordk_stats *st);
/**
 * The driver's counters of the card's interface (the Blue driver's start with
 * "pmd_": commands, meta reports, SimpleNic frames, Send items) and those of
 * what is behind BAR0 (the model's, including the card's drop reasons): up to
 * @p n names and values. @return the number available (call with n = 0 to
 * size the arrays; fewer than that fills nothing), or -EINVAL.
 */
int ordk_dev_xstats(struct ordk_dev *dev, const char **names, uint64_t *values, unsigned int n);

/**
 * Zero the device's counters, every QP's, and the counters behind BAR0
 * (the model's xstats). @return 0 or -EINVAL.
 */
int ordk_dev_stats_reset(struct ordk_dev *dev);

/**
 * Change bluesim's injected faults at run time: a list like
 * "drop:0.01,dup-rx:0.001" (kinds drop, dup, reorder, corrupt, delay; an
 * optional -rx or -tx; a rate in [0, 1]). Kinds not named keep their rates.
 * Experimental: a hook for tests and tools.
 * @return 0, -EINVAL (bad list, logged), -ENOTSUP (the card: nothing to inject into).
 */
ORDK_EXPERIMENTAL
int ordk_dev_set_faults(struct ordk_dev *dev, const char *spec);

/**
 * The model's Ethernet link went down (@p up false) or came up again, as the
 * caller sees it on the model's ethdev port. While down, bluesim leaves its
 * port alone (it reads nothing; what it would send is dropped and counted,
 * `tx_link_down`) and everything else runs on, the transport's timers
 * included: a QP whose peer vanished ends in RETRY_EXC_ERR instead of
 * waiting for the peer. For ports that must not be touched once their peer
 * left (DPDK 22.11's net_memif faults in rx_burst then); the ibverbs layer
 * follows the link with it. Experimental.
 * @return 0, -EINVAL (NULL), -ENOTSUP (the card: its link is its own).
 */
ORDK_EXPERIMENTAL
int ordk_dev_port_link(struct ordk_dev *dev, bool up);

/**
 * Step bluesim, the card's model behind @p dev, without the driver's part of
 * ordk_dev_poll(): the card runs on while its host does not poll (a test of a
 * stalled host fills the card's rings this way). A real card runs by itself.
 * Experimental: a hook for tests.
 * @return the model's work done (0 = idle), -EINVAL, or -ENOTSUP (the card).
 */
ORDK_EXPERIMENTAL
int ordk_dev_card_poll(struct ordk_dev *dev, unsigned int budget);

/* ---------------------------------------------------------------- PD, MR */

/** @return a PD, or NULL with rte_errno: EINVAL, ENOSPC (max_pd PDs exist), ENOMEM. */
struct ordk_pd *ordk_pd_alloc(struct ordk_dev *dev);
/** @return 0, -EBUSY (MRs or QPs use it), -EINVAL (NULL or already freed). */
int ordk_pd_free(struct ordk_pd *pd);

/** Access flags of an MR or a QP (ibv_access_flags values). */
enum ordk_access {
	ORDK_ACCESS_LOCAL_WRITE = 1,
	ORDK_ACCESS_REMOTE_WRITE = 2,
	ORDK_ACCESS_REMOTE_READ = 4,
	ORDK_ACCESS_REMOTE_ATOMIC = 8,
};

/** A registered memory region; the fields are read-only for the user. */
struct ordk_mr {
	struct ordk_pd *pd;
	void *addr;
	size_t length;
	uint32_t lkey;
	uint32_t rkey; /**< equal to lkey on this card */
	unsigned int access;
};

/**
 * Register [addr, addr + length) for local and remote access.
 * @return the MR, or NULL with rte_errno: EINVAL (length 0, a range that
 *   wraps, unknown access flags, length above max_mr_size), ENOSPC (MR slots
 *   or PGT entries exhausted), EFAULT (memory that cannot be DMA-mapped, not
 *   mapped, not writable with LOCAL_WRITE/REMOTE_WRITE/REMOTE_ATOMIC, not
 *   readable, or not in 2 MiB hugepages where the device needs physical
 *   addresses; the reason is logged),
 *   ETIMEDOUT, EIO (the card refused the update). Nothing is left half
 *   registered on failure. Two MRs may share pages or overlap.
 */
struct ordk_mr *ordk_mr_reg(struct ordk_pd *pd, void *addr, size_t length, unsigned int access);

/**
 * Deregister: the card's entry is invalidated (UpdateMrTable length 0)
 * before the slot can be reused, so a stale rkey is refused by the card.
 * @return 0, -EINVAL (NULL or already deregistered), -ETIMEDOUT, -EIO.
 */
int ordk_mr_dereg(struct ordk_mr *mr);

/* -------------------------------------------------------------------- CQ */

enum ordk_wc_status {
	ORDK_WC_SUCCESS = 0,
	ORDK_WC_LOC_LEN_ERR,
	ORDK_WC_LOC_QP_OP_ERR,
	ORDK_WC_LOC_PROT_ERR,
	ORDK_WC_WR_FLUSH_ERR,
	ORDK_WC_BAD_RESP_ERR,
	ORDK_WC_LOC_ACCESS_ERR,
	ORDK_WC_REM_INV_REQ_ERR,
	ORDK_WC_REM_ACCESS_ERR,
	ORDK_WC_REM_OP_ERR,
	ORDK_WC_RETRY_EXC_ERR,
	ORDK_WC_RNR_RETRY_EXC_ERR,
	ORDK_WC_GENERAL_ERR,
	ORDK_WC_STATUS_COUNT
};

/** "success", "WR flushed", ... (ibv_wc_status_str's spirit). */
const char *ordk_wc_status_str(enum ordk_wc_status status);

enum ordk_wc_opcode {
	ORDK_WC_SEND = 0,
	ORDK_WC_RDMA_WRITE,
	ORDK_WC_RDMA_READ,
	ORDK_WC_COMP_SWAP,
	ORDK_WC_FETCH_ADD,
	ORDK_WC_RECV = 128,
	ORDK_WC_RECV_RDMA_WITH_IMM,
};

#define ORDK_WC_WITH_IMM 0x1u
/** A UD receive: the RECV's buffer starts with the 40-byte GRH (ORDK_GRH_LEN). */
#define ORDK_WC_GRH 0x2u

/** A work completion. */
struct ordk_wc {
	uint64_t wr_id;
	enum ordk_wc_status status;
	enum ordk_wc_opcode opcode;
	uint32_t byte_len; /**< receive completions: bytes received (UD: the GRH's 40 included) */
	uint32_t imm_data; /**< valid with ORDK_WC_WITH_IMM */
	uint32_t qp_num;
	unsigned int wc_flags;
	uint32_t src_qp;   /**< UD receive completions: the sender's QPN */
	uint64_t src_mac;  /**< UD receive completions: the sender's MAC (its IP is in the GRH) */
};

/**
 * @return a CQ of at least @p cqe entries, or NULL with rte_errno: EINVAL
 *   (@p cqe 0 or above max_cqe), ENOSPC (max_cq CQs exist), ENOMEM.
 */
struct ordk_cq *ordk_cq_create(struct ordk_dev *dev, uint32_t cqe);
/** @return 0, -EBUSY (a QP uses it), -EINVAL (NULL or already destroyed). */
int ordk_cq_destroy(struct ordk_cq *cq);
/**
 * Drive the device's progress, then return up to @p n completions.
 *
 * A CQ that overflows (a completion arrives while it holds @p cqe entries)
 * goes to an error state, as in ibverbs: ORDK_EVENT_CQ_ERR is raised, every
 * QP that uses it goes to ERR (ORDK_EVENT_QP_FATAL each; their outstanding
 * WRs are flushed, to the other CQ if that one is healthy), and completions
 * that the CQ cannot take are counted (cq_overflow) and lost. The completions
 * the CQ held are still returned; once it is empty, every poll returns
 * -EOVERFLOW. A CQ in error is only good for ordk_cq_destroy().
 * @return completions written (0..n), -EOVERFLOW (the CQ is in error and
 *   empty), or -EINVAL (NULL or stale CQ, NULL @p wc, n < 0).
 */
int ordk_cq_poll(struct ordk_cq *cq, struct ordk_wc *wc, int n);

/* -------------------------------------------------------------------- QP */

enum ordk_qp_state {
	ORDK_QPS_RESET = 0,
	ORDK_QPS_INIT,
	ORDK_QPS_RTR,
	ORDK_QPS_RTS,
	ORDK_QPS_ERR,
	ORDK_QPS_COUNT
};

const char *ordk_qp_state_str(enum ordk_qp_state s);

/** QP transport types (ibv_qp_type values). */
enum ordk_qp_type {
	ORDK_QPT_RC = 2, /**< reliable connected: the card's transport */
	ORDK_QPT_UD = 4, /**< unreliable datagram: frames on the card's raw Ethernet path */
};

/** Path MTU (ibv_mtu values). */
enum ordk_mtu {
	ORDK_MTU_256 = 1,
	ORDK_MTU_512 = 2,
	ORDK_MTU_1024 = 3,
	ORDK_MTU_2048 = 4,
	ORDK_MTU_4096 = 5,
};

struct ordk_qp_init_attr {
	struct ordk_cq *send_cq;
	struct ordk_cq *recv_cq;
	uint32_t max_send_wr; /**< 1..max_qp_wr */
	uint32_t max_recv_wr; /**< 1..max_qp_wr */
	void *qp_context;
	/**
	 * Bytes a send WR may carry inline (ORDK_SEND_INLINE), 0..the device's
	 * max_inline_data; the QP gets it rounded up to 64 (ordk_qp_query() tells).
	 */
	uint32_t max_inline_data;
	/**
	 * Receive from this shared receive queue (of the same device) instead of
	 * a receive queue of the QP's own: max_recv_wr is then ignored, and
	 * ordk_qp_post_recv() on the QP is refused. NULL: the QP's own.
	 */
	struct ordk_srq *srq;
	/** ORDK_QPT_RC (also 0, for code written before UD) or ORDK_QPT_UD. */
	enum ordk_qp_type qp_type;
	/**
	 * SGEs a send WR of this QP may gather, 1..the device's max_sge (0: 1).
	 * An RC QP above 1 gets a registered area where the driver assembles the
	 * packets whose bytes span SGEs (max_send_sge - 1 packets of 4 KiB per
	 * send WR; architecture.md, "Gather lists"). ordk_qp_query() tells.
	 */
	uint32_t max_send_sge;
};

/**
 * The highest first PSN (rq_psn, sq_psn) a QP may start from on a Blue card:
 * its PSN bitmap resets to a window that misreads first PSNs 0x7fff80 ..
 * 0xffffff (doc/guides/drivers/blue_hw_interface.md, card limits), so ordk_qp_modify()
 * refuses them with -EINVAL. A running QP's PSNs cross 2^24 as usual.
 */
#define ORDK_PSN_FIRST_MAX 0x7FFF7Fu

/** QP attributes (ibv_qp_attr's RC subset; the address vector is IP + MAC). */
struct ordk_qp_attr {
	enum ordk_qp_state qp_state;
	unsigned int qp_access_flags; /**< ordk_access */
	enum ordk_mtu path_mtu;
	uint32_t dest_qp_num;
	uint32_t rq_psn;   /**< the peer's first PSN: 0..ORDK_PSN_FIRST_MAX */
	uint32_t sq_psn;   /**< our first PSN: 0..ORDK_PSN_FIRST_MAX */
	uint32_t dest_ip;  /**< the peer's IPv4 (address vector), unicast */
	uint64_t dest_mac; /**< the peer's MAC (address vector), unicast */
	uint8_t timeout;   /**< local ACK timeout, 4.096 us << timeout (0: default ~1 ms) */
	uint8_t retry_cnt; /**< 0..7 */
	uint8_t rnr_retry; /**< 0..7, 7 = infinite */
	uint8_t min_rnr_timer;
	uint8_t max_rd_atomic;	    /**< our READs in flight at most, 0..16 (0 is taken as 1) */
	uint8_t max_dest_rd_atomic; /**< the peer's READs we answer at a time, 0..16 (0: 1) */
	uint32_t qkey;		    /**< UD: the Q_Key the QP takes and sends with */
	uint16_t pkey_index;	    /**< UD: 0 (one P_Key, 0xFFFF) */
	uint8_t port_num;	    /**< UD: 1 */
};

/** Attribute mask bits for ordk_qp_modify() (ibv_qp_attr_mask spirit). */
enum ordk_qp_attr_mask {
	ORDK_QP_STATE = 1u << 0,
	ORDK_QP_ACCESS_FLAGS = 1u << 1,
	ORDK_QP_PATH_MTU = 1u << 2,
	ORDK_QP_DEST_QPN = 1u << 3,
	ORDK_QP_RQ_PSN = 1u << 4,
	ORDK_QP_SQ_PSN = 1u << 5,
	ORDK_QP_AV = 1u << 6, /**< dest_ip and dest_mac */
	ORDK_QP_TIMEOUT = 1u << 7,
	ORDK_QP_RETRY_CNT = 1u << 8,
	ORDK_QP_RNR_RETRY = 1u << 9,
	ORDK_QP_MIN_RNR_TIMER = 1u << 10,
	ORDK_QP_MAX_QP_RD_ATOMIC = 1u << 11,
	ORDK_QP_MAX_DEST_RD_ATOMIC = 1u << 12,
	ORDK_QP_QKEY = 1u << 13,
	ORDK_QP_PKEY_INDEX = 1u << 14,
	ORDK_QP_PORT = 1u << 15,
};

/**
 * Create a QP in RESET: RC, or UD (init qp_type ORDK_QPT_UD: datagrams of up
 * to max_ud_msg bytes to any UD QP through an address handle, doc/guides/prog_guide/architecture.md). A QP with max_inline_data has a registered area
 * of its own (one MR on its PD, counted in max_mr) where inline WRs' bytes
 * wait for their completion.
 * @return the QP, or NULL with rte_errno: EINVAL (NULL CQs, WR counts 0 or
 *   above max_qp_wr, max_inline_data above the device's, CQs of another
 *   device), ENOSPC (1023 QPs exist), ENOMEM.
 */
struct ordk_qp *ordk_qp_create(struct ordk_pd *pd, const struct ordk_qp_init_attr *attr);

/**
 * Move a QP through RESET -> INIT -> RTR -> RTS (and to ERR or RESET from
 * any state), with the attribute masks ibverbs requires. UD: RESET->INIT
 * needs STATE|PKEY_INDEX|PORT|QKEY; INIT->RTR STATE; RTR->RTS STATE|SQ_PSN
 * (QKEY optional from INIT on). RC:
 * RESET->INIT needs STATE|ACCESS_FLAGS; INIT->RTR needs STATE|AV|PATH_MTU|
 * DEST_QPN|RQ_PSN|MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER; RTR->RTS needs STATE|
 * SQ_PSN|TIMEOUT|RETRY_CNT|RNR_RETRY|MAX_QP_RD_ATOMIC. Every transition is
 * sent to the card (ManageQp).
 * @return 0; -EINVAL (illegal transition, a required bit missing or a bit
 *   not allowed for it, a value out of range, or a peer no RC QP can reach:
 *   dest_qp_num 0, 1 or above 24 bits, dest_mac zero, broadcast or multicast,
 *   dest_ip in 0.0.0.0/8, loopback 127.0.0.0/8, multicast 224.0.0.0/4 or
 *   255.255.255.255; the reason is logged, the field named), -ETIMEDOUT, -EIO.
 */
int ordk_qp_modify(struct ordk_qp *qp, const struct ordk_qp_attr *attr, unsigned int mask);

/** @return 0 or -EINVAL. Either output may be NULL. */
int ordk_qp_query(const struct ordk_qp *qp, struct ordk_qp_attr *attr,
		  struct ordk_qp_init_attr *init);

/** Where a QP's transport stands (for tools: ordk-testpmd's "show qp"; experimental). */
struct ordk_qp_info {
	enum ordk_qp_state state;
	uint32_t next_psn;	   /**< the PSN our next packet takes */
	uint32_t acked_psn;	   /**< every PSN before it is acknowledged */
	uint32_t expected_psn;	   /**< receiver: every PSN of the peer before it arrived */
	/** receiver: a request of the peer has begun to arrive (its first packet of
	 *  several) and its last packet has not yet */
	bool rx_open;
	uint32_t send_outstanding; /**< WRs posted and not completed */
	uint32_t recv_posted;	   /**< RECVs waiting for a SEND */
	uint32_t reads_outstanding;
	uint32_t retries;	   /**< consecutive timeouts without progress */
	uint32_t recv_adverts;	   /**< the peer's RECVs we know of and have not used */
	/** The transport's state machines, by name (static strings): the requester
	 *  (why it stopped), the completer (its timer), the responder's hole at
	 *  the expected PSN and the peer's pending question. */
	const char *req_state, *comp_state, *hole_state, *probe_state;
	/** On the transport's active list: every ordk_dev_poll() steps the QP (WRs
	 *  to push, ACKs or adverts to send, ...); false while it waits only for a
	 *  timer or the peer, when it costs a poll nothing. */
	bool active;
};

/**
 * Experimental: the fields follow the transport's state machines, and change with them.
 * @return 0 or -EINVAL.
 */
ORDK_EXPERIMENTAL
int ordk_qp_info(const struct ordk_qp *qp, struct ordk_qp_info *info);

/**
 * Destroy (the card's QPC is cleared).
 * @return 0, -EINVAL (NULL or already destroyed), -ETIMEDOUT.
 */
int ordk_qp_destroy(struct ordk_qp *qp);

/** The QP number (qpn = index << 8 | key). */
uint32_t ordk_qp_num(const struct ordk_qp *qp);

/* ------------------------------------------------------------- post / WR */

struct ordk_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

enum ordk_wr_opcode {
	ORDK_WR_RDMA_WRITE = 0,
	ORDK_WR_RDMA_WRITE_WITH_IMM,
	ORDK_WR_SEND,
	ORDK_WR_SEND_WITH_IMM,
	ORDK_WR_RDMA_READ,
	ORDK_WR_ATOMIC_CMP_AND_SWP,
	ORDK_WR_ATOMIC_FETCH_AND_ADD,
};

enum ordk_send_flags {
	ORDK_SEND_FENCE = 1,
	ORDK_SEND_SIGNALED = 2,
	ORDK_SEND_SOLICITED = 4,
	/**
	 * The SGE's bytes are copied when the WR is posted (SEND, SEND_WITH_IMM,
	 * RDMA_WRITE, RDMA_WRITE_WITH_IMM, at most the QP's max_inline_data): the
	 * buffer is the caller's again once ordk_qp_post_send() returns, and its
	 * lkey is not looked at.
	 */
	ORDK_SEND_INLINE = 8,
};

/**
 * A send WR. Its data is a gather list of num_sge SGEs: sg_list, or, when it
 * is NULL, the one SGE in sge (num_sge 0 or 1). The message is the SGEs'
 * bytes in order, one message with one completion: a WRITE's go to
 * consecutive remote addresses, a SEND's to its RECV's buffer at consecutive
 * offsets, a READ scatters its answer over them. Each SGE's lkey is checked
 * (EPERM, the SGE named in the log); SGEs of length 0 are skipped. An atomic
 * takes one SGE.
 */
struct ordk_send_wr {
	uint64_t wr_id;
	enum ordk_wr_opcode opcode;
	unsigned int send_flags;
	int num_sge; /**< 0..the QP's max_send_sge (sg_list NULL: 0 or 1) */
	struct ordk_sge sge;
	uint32_t imm_data;
	union {
		/** UD (SEND, SEND_WITH_IMM): where the datagram goes. A remote_qkey with
		 *  its high bit set sends the QP's own Q_Key instead (IBA 10.2.5). */
		struct {
			struct ordk_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
			uint64_t compare_add;
			uint64_t swap;
		} atomic;
	};
	/** num_sge SGEs (read at the post: the array is the caller's again after it), or NULL */
	const struct ordk_sge *sg_list;
};

struct ordk_recv_wr {
	uint64_t wr_id;
	int num_sge; /**< 0 or 1 */
	struct ordk_sge sge;
};

/**
 * Post send WRs. The QP must be in RTS, or in ERR: there each WR is
 * accepted and completes with ORDK_WC_WR_FLUSH_ERR, signaled or not, after
 * the WRs flushed when the QP went to ERR (IBA).
 * A plain RDMA_WRITE of no bytes (num_sge 0, any rkey) is a valid WRITE, as in
 * IBA (UCX flushes with it): it completes once the peer acknowledged
 * everything before it.
 * @return the number of WRs accepted, from the first (0..n). When fewer than
 *   @p n were accepted, rte_errno tells why WR[return value] was not:
 *   EINVAL (QP state, opcode, num_sge above the QP's max_send_sge or a NULL
 *   sg_list with num_sge > 1, a zero-length READ, a length above max_msg_sz;
 *   ORDK_SEND_INLINE on a READ or an atomic, or above the QP's
 *   max_inline_data), ENOMEM (send queue full), EPERM (an SGE's lkey not of
 *   this device or not covering that SGE). A UD QP takes SEND and
 *   SEND_WITH_IMM only, of at most max_ud_msg bytes, to an AH of its device
 *   (else EINVAL).
 */
int ordk_qp_post_send(struct ordk_qp *qp, const struct ordk_send_wr *wr, int n);

/**
 * Post receive WRs; accepted from INIT on (so WRs posted before the
 * connection exists are kept and advertised once it does); in ERR each
 * completes with ORDK_WC_WR_FLUSH_ERR, as a send WR does.
 * @return WRs accepted; rte_errno as for ordk_qp_post_send().
 */
int ordk_qp_post_recv(struct ordk_qp *qp, const struct ordk_recv_wr *wr, int n);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#include "ordk_event.h" /* asynchronous events: part of this API */
#include "ordk_srq.h" /* shared receive queues: part of this API */
#include "ordk_ah.h" /* address handles (UD), part of this API */
#include "ordk_stats.h" /* the transport's counters: part of this API */

#endif /* ORDK_VERBS_H */
