/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of lib/verbs and lib/rc: the objects behind ordk_verbs.h.
 * A device owns everything; one lcore drives it (ordk_dev_poll()).
 */
#ifndef VERBS_INTERNAL_H
#define VERBS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/queue.h>

#include <rte_hash.h>
#include <rte_log.h>

#include "blue_dev.h"
#include "cc_rp.h"
#include "mem_internal.h"
#include "ordk_verbs.h"
#include "ordk_wire.h"

extern int ordk_verbs_logtype;
extern int ordk_rc_logtype;
#define VERBS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ordk_verbs_logtype, "ordk.verbs: " fmt "\n", ##__VA_ARGS__)
#define RC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ordk_rc_logtype, "ordk.rc: " fmt "\n", ##__VA_ARGS__)

#define ORDK_MAX_QP_WR	  4096u
#define ORDK_MAX_CQE	  (1u << 20)
#define ORDK_MAX_CQ	  65536u /* CQs and PDs are software: bounded to what query says */
#define ORDK_MAX_PD	  65536u
#define ORDK_ITEM_MAX	  65536u /* a Send item covers at most 64 KiB */
#define ORDK_RECV_WINDOW  4096u	 /* PSNs tracked ahead of the expected PSN */
#define RC_WHEEL_SLOTS 1024u /* power of two */
#define ORDK_HOLD_MAX_US 500u /* reordering tolerance, see rc_hold_tsc() */
#define ORDK_LATE_COPY_US 2000u /* how late a copy of a resent packet may still arrive */
#define ORDK_FIRST_LEN_SLOTS 2048u /* multi-packet messages in flight (>= 2 PSNs each) */
#define ORDK_MSG_QUEUE	  4096u	 /* received messages waiting for their last PSN */
#define ORDK_ADVERT_RING  4096u
#define ORDK_ACK_EVERY	  16u	 /* ask for an ACK at least every N WRs */
#define RC_READ_MIN_BPS	  (100u << 20) /* slowest READ answer the timer allows for, bytes/s */
#define ORDK_ACK_IDLE_NS  20000u /* send a pending ACK after this much quiet */
#define RC_NAK_MAX	  8u	 /* NAKs for one hole, backing off, before it is given up */
#define ORDK_MAX_RD_ATOMIC 16u	 /* max_rd_atomic / max_dest_rd_atomic at most */
/* READ answers a responder holds: those in progress (at most max_dest_rd_atomic) and
 * those sent and not acknowledged yet */
#define ORDK_ANS_RING	  (2u * ORDK_MAX_RD_ATOMIC)

struct ordk_mr_int;

#define VERBS_EVENTS 256u /* asynchronous events waiting for the application */

/* The counters are public: struct ordk_stats in ordk_verbs.h. */
#define ordk_rc_stats ordk_stats

struct ordk_dev {
	struct blue_dev hw;
	char name[32];
	struct mem_keys mr_keys;
	struct mem_pgt pgt;
	struct mem_pins pins;
	struct mem_keys qp_keys;
	struct rte_hash *qp_table;		  /* qpn -> struct ordk_qp * */
	struct ordk_mr_int *mr_by_slot[BLUE_MAX_MR]; /* responder-side rkey checks */
	uint32_t npd, nmr, ncq, nqp;
	TAILQ_HEAD(, ordk_qp) active;		  /* QPs with send work or ACKs to make */
	/*
	 * Retransmission timers: a hashed wheel of RC_WHEEL_SLOTS ticks of
	 * 2^wheel_shift TSC cycles (about 16 us). A QP waiting only for an ACK
	 * leaves the active list; the wheel puts it back when its deadline is due.
	 */
	TAILQ_HEAD(rc_wheel_slot, ordk_qp) wheel[RC_WHEEL_SLOTS];
	uint64_t wheel_tick;	  /* the last tick the wheel has run */
	uint32_t wheel_shift, wheel_count;
	uint64_t tsc_hz;
	uint32_t send_tail_seen;  /* Send ring TAIL at the last look */
	uint64_t send_fetched;	  /* Send ring descriptors the card has fetched, ever */
	uint64_t send_busy_tsc;	  /* last time the card was still fetching our items */
	/*
	 * Polling gaps: when the application stops polling for longer than
	 * stall_tsc, reports and frames pile up unseen. Holds and timeouts then
	 * count from resume_tsc (when polling resumed), not from before the gap:
	 * judged on stale input, a late report looks like a loss, and a resend
	 * of a READ response would overwrite memory the application already
	 * owns again (the card places every response packet).
	 */
	uint64_t last_poll_tsc, resume_tsc, stall_tsc;
	uint64_t gap_tsc;	  /* length of the last polling gap */
	struct ordk_rc_stats st;
	/* asynchronous events (verbs_event.c) */
	bool cq_error;		  /* a CQ went to error: its QPs go to ERR at the next poll */
	struct ordk_async_event ev[VERBS_EVENTS];
	uint32_t ev_head, ev_count;
	void (*ev_cb)(struct ordk_dev *dev, const struct ordk_async_event *ev, void *arg);
	void *ev_arg;
	/* congestion control (verbs_cc.c): devargs cc=, cc_*= */
	struct cc_params cc;
	bool cc_on;		  /* new QPs start with it on */
	FILE *cc_trace;		  /* cc_trace=FILE: every QP's rate changes, trace CSV */
};

/*
 * Handles (verbs_handle.c): objects live in an arena whose addresses are never
 * reused; a handle is live while its object's magic is in place.
 */
#define VERBS_MAGIC_PD 0x4B445050u /* "PPDK" */
#define VERBS_MAGIC_MR 0x4B44524Du
#define VERBS_MAGIC_CQ 0x4B445143u
#define VERBS_MAGIC_QP 0x4B445051u
void *verbs_handle_alloc(size_t size, size_t align);
void verbs_handle_free(void *obj, size_t size);
bool verbs_handle_live(const void *h, size_t magic_off, uint32_t magic);
#define VERBS_LIVE(h, type, m) verbs_handle_live((h), offsetof(type, magic), (m))
#define pd_live(pd) VERBS_LIVE(pd, struct ordk_pd, VERBS_MAGIC_PD)
#define mr_live(mr) VERBS_LIVE(mr, struct ordk_mr_int, VERBS_MAGIC_MR)
#define cq_live(cq) VERBS_LIVE(cq, struct ordk_cq, VERBS_MAGIC_CQ)
#define qp_live(qp) VERBS_LIVE(qp, struct ordk_qp, VERBS_MAGIC_QP)

struct ordk_pd {
	uint32_t magic;
	struct ordk_dev *dev;
	uint32_t refs;
	uint32_t handle;
};

struct ordk_mr_int {
	struct ordk_mr pub;
	uint32_t magic;
	uint32_t pgt_start;
	uint32_t pgt_n;
	uint64_t iova; /* where the device sees addr (identity with the model) */
};

struct ordk_cq {
	uint32_t magic;
	struct ordk_dev *dev;
	struct ordk_wc *wc;
	uint32_t size;
	uint32_t head;	/* oldest */
	uint32_t count;
	uint32_t refs;
	bool error;	/* overflowed: see ordk_cq_poll() */
};

/* A send WQE: a user WR, or an internal READ response. */
enum rc_wqe_flags {
	RC_WQE_INTERNAL = 1, /* READ response: no completion */
	RC_WQE_BOUND = 2,    /* SEND/IMM: an advert is attached */
	RC_WQE_READ_DONE = 4,
	RC_WQE_ERROR = 8,
	RC_WQE_ATOMIC_DONE = 16,
	RC_WQE_FENCE = 32,   /* waits for every earlier READ to complete */
	RC_WQE_ANS_SEEN = 64, /* READ: the first packet of its answer arrived (ans_psn) */
	RC_WQE_FATAL = 128,  /* with RC_WQE_ERROR: the QP goes to ERR once it completes */
	RC_WQE_LEN_ERR = 256, /* SEND longer than the peer's RECV: announced, then fails */
};

#define ORDK_ATOMIC_CACHE 64u /* responder replay cache entries per QP */

struct rc_atomic_saved {
	uint32_t req_id;
	uint8_t valid;
	uint8_t status;
	uint64_t orig;
};

struct rc_wqe {
	uint64_t wr_id;
	uint8_t opcode;	     /* blue_wr_opcode */
	uint16_t flags;	     /* rc_wqe_flags */
	uint8_t signaled;
	uint8_t solicited;
	uint8_t status;	     /* ordk_wc_status when RC_WQE_ERROR */
	uint16_t msn;
	uint32_t imm;
	uint64_t laddr;
	uint32_t lkey;
	uint32_t len;
	uint64_t raddr;
	uint32_t rkey;
	uint32_t psn;	     /* first PSN (assigned when sending starts) */
	uint32_t npkts;
	uint32_t sent;	     /* bytes pushed to the Send ring */
	bool started;
	uint32_t atomic_id;  /* atomics: request id */
	uint64_t rnr_tsc;    /* SEND/IMM: when it started waiting for an advert */
	uint32_t req_psn;    /* READ response: PSN of the request it answers */
	uint32_t ans_psn;    /* READ: first PSN of its answer in the peer's space */
	uint64_t compare_add;
	uint64_t swap;
};

/* A RECV's own card key (rc_recv.c) */
enum rc_key_state { RC_KEY_NONE, RC_KEY_PENDING, RC_KEY_READY };

struct rc_rwqe {
	uint64_t wr_id;
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
	uint32_t recv_seq;
	uint32_t key;	     /* its MR-table entry: exactly [addr, addr + len), SENDs only */
	uint32_t key_seq;    /* the command that created it */
	uint32_t pgt_offset; /* PGT index of addr's page (from the user's MR) */
	uint8_t kstate;	     /* rc_key_state */
};

/* A RECV completion waiting for the revocation of its key. */
struct rc_rdone {
	struct ordk_wc wc;
	uint32_t seq;
	bool wait;
};

/* A message received (its last packet's report seen), waiting for all its PSNs. */
#define RC_MSG_LEN_AT_FIRST UINT32_MAX /* rc_msg.len: the FIRST packet's total_len */

struct rc_msg {
	uint32_t end_psn;    /* PSN of its last packet */
	uint8_t opcode;	     /* packet opcode of the last packet */
	uint8_t ack_req;
	uint16_t msn;
	uint32_t imm;
	uint32_t len;
};

struct ordk_qp {
	uint32_t magic;
	struct ordk_dev *dev;
	struct ordk_pd *pd;
	struct ordk_cq *scq, *rcq;
	void *ctx;
	uint32_t qpn;
	struct ordk_qp_attr attr;
	struct ordk_qp_init_attr init;
	bool cc_on;		   /* DCQCN paces this QP, its data goes out ECT(0) */
	struct cc_rp cc;
	TAILQ_ENTRY(ordk_qp) link;
	bool on_active;
	TAILQ_ENTRY(ordk_qp) tlink; /* in dev->wheel while a deadline is set */
	bool on_wheel;

	/*
	 * READ answers (responder), apart from the application's send queue:
	 * [ans_head, ans_next) sent and not acknowledged, [ans_next, ans_tail)
	 * queued in request PSN order, at most max_dest_rd_atomic of them.
	 */
	struct rc_wqe *ans;
	uint32_t ans_head, ans_next, ans_tail;
	/* send queue: [head, next) sent or being sent, [next, tail) queued */
	struct rc_wqe *sq;
	uint32_t sq_size, sq_head, sq_next, sq_tail, sq_user; /* sq_user: user WRs in the queue */
	uint32_t next_psn;
	uint32_t pushed_psn;	   /* PSNs before this one went to the Send ring */
	uint32_t late_psn;	   /* oldest PSN resent while a late copy may still come ... */
	uint64_t late_tsc;	   /* ... until then (0: none); see rc_req.c */
	uint16_t next_msn;
	uint32_t acked_psn;	   /* every PSN before this one is acknowledged */
	uint32_t since_ack_req;
	bool len_err_sent;	   /* a RC_WQE_LEN_ERR went out: nothing after it starts */
	/* retransmission: PSNs marked in rtx_bits (by psn % ORDK_RECV_WINDOW) go out again */
	uint64_t rtx_bits[ORDK_RECV_WINDOW / 64];
	uint32_t rtx_count;
	uint32_t rtx_last;	   /* highest PSN marked: the last retry asks for an ACK */
	uint32_t *rtx_stamp;	   /* per psn % window: (TSC >> 16) | 1 of its last resend */
	/* dev->send_fetched once the card has fetched the last resend pushed (0: none
	 * waiting): until then no WR that carries local payload completes */
	uint64_t rtx_fetch_until;
	/* software atomics: requester side */
	struct rc_wqe *atomic_wqe; /* the atomic in flight (later WRs wait for it) */
	uint32_t next_atomic_id;
	/* responder side: exactly once, with a replay cache */
	uint32_t atomic_expect;	   /* next request id to execute */
	struct rc_atomic_saved atomic_cache[ORDK_ATOMIC_CACHE];
	uint64_t rtx_deadline;	   /* TSC; 0 when nothing is outstanding */
	uint64_t rtx_set_tsc;	   /* when rtx_deadline was set (polling gaps move it) */
	uint64_t timeout_tsc, hold_tsc; /* from attr.timeout: rc_qp_set_timeout() */
	uint32_t rtx_retries;	   /* consecutive timeouts without progress */
	uint32_t rtx_backoff;	   /* timeout multiplier (exponential) */
	uint64_t rtx_not_before;   /* TSC: the card's loss reports wait out delayed frames */
	uint32_t *reads;	   /* FIFO of sq indices of outstanding READs (<= max_rd_atomic) */
	uint32_t rd_head, rd_count;

	/* the peer's RECV adverts, for our SEND / SEND_IMM / WRITE_IMM */
	struct ordk_ctrl_advert *adv;
	uint32_t adv_head, adv_count, adv_expect;
	uint32_t adv_src; /* QPN that sent adverts before this QP reached RTR */
	bool adv_ack_due;  /* tell the peer which adverts arrived */
	uint32_t rq_acked; /* receiver: first recv_seq the peer has not acknowledged */
	uint64_t adv_tsc;  /* receiver: when adverts last went out */

	/* receive queue */
	struct rc_rwqe *rq;
	uint32_t rq_size, rq_head, rq_count, rq_advertised;
	struct rc_rdone *rdone;	/* completions waiting for their key's revocation */
	uint32_t rdone_head, rdone_count;
	uint32_t next_recv_seq;

	/* receive tracker: PSNs of the peer's send space */
	uint32_t epsn;				/* expected: every PSN before it arrived */
	uint32_t card_base;			/* window base of the card's last bitmap report */
	uint64_t rbits[ORDK_RECV_WINDOW / 64];	/* PSNs at or after epsn that arrived */
	struct rc_msg *msgs;
	uint32_t msg_head, msg_count;
	uint32_t first_len[ORDK_FIRST_LEN_SLOTS]; /* total_len of a FIRST packet, by MSN */
	bool ack_due;
	uint32_t acked_epsn;			/* epsn of the last ACK sent */
	uint32_t rd_seen_epsn;			/* epsn at the last look for READ answer progress */
	bool hole_settled;			/* left by a resend, or by a late READ request */
	uint64_t last_rx_tsc;
	uint64_t nak_tsc;			/* when the last NAK went out */
	uint32_t nak_epsn;			/* the epsn it asked from */
	uint32_t nak_count;			/* NAKs sent for the hole at nak_epsn */
	bool probe_pending;			/* the peer asked what arrived (ACK_REQ) */
	bool probe_report;			/* a bitmap report came after the question */
	uint32_t probe_psn;
	uint64_t probe_tsc;
	uint64_t heard_tsc;			/* the last control frame from the peer */
	uint64_t rnr_probe_tsc;			/* a SEND waiting for an advert asked the peer */
	uint32_t rnr_probes;			/* ... that many times since it last heard it */
	uint32_t rx_top;			/* one past the highest PSN seen */
	uint32_t hole_psn;			/* the hole at epsn seen since hole_tsc */
	uint64_t hole_tsc;

	struct ordk_rc_stats st;
};

/* verbs */
struct ordk_qp *verbs_qp_lookup(struct ordk_dev *dev, uint32_t qpn);
struct ordk_mr_int *verbs_mr_lookup(struct ordk_dev *dev, uint32_t key);
/**
 * Execute an atomic on MR memory for the peer (CMP_AND_SWP if @p cas, else
 * FETCH_AND_ADD), guarded: @return 0 (@p orig set), or -EFAULT when the memory
 * is gone (unmapped under the MR).
 */
int verbs_mr_atomic(uint64_t *p, bool cas, uint64_t compare_add, uint64_t swap, uint64_t *orig);
void verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc);
int verbs_manage_qp(struct ordk_qp *qp, bool valid, bool error);
/** Queue an asynchronous event about @p qp (QP events) or @p cq (CQ_ERR). */
void verbs_event_raise(struct ordk_dev *dev, enum ordk_event_type type, struct ordk_qp *qp,
		       struct ordk_cq *cq);
/** After the transport's work: QPs of CQs in error to ERR, events to the callback. */
void verbs_event_run(struct ordk_dev *dev);

/* lib/rc */
void rc_ack(struct ordk_qp *qp, uint32_t psn);
void rc_complete_sends(struct ordk_qp *qp);
unsigned int rc_push(struct ordk_qp *qp);
/** Responder going to ERR: the READ answers owed before it go now (best effort). */
void rc_push_owed_answers(struct ordk_qp *qp);
/** Requester: READs left unanswered by a peer that took our length error end (WR_FLUSH_ERR). */
bool rc_len_err_settle(struct ordk_qp *qp);
bool rc_send_adverts(struct ordk_qp *qp);
bool rc_send_advert_ack(struct ordk_qp *qp);
bool rc_advert_resend(struct ordk_qp *qp, uint64_t now, uint64_t timeout);
void rc_qp_set_timeout(struct ordk_qp *qp);

/* The QP's ACK timeout and reordering hold in TSC cycles (rc_qp_set_timeout()). */
static inline uint64_t
rc_timeout_tsc(const struct ordk_qp *qp)
{
	return qp->timeout_tsc;
}

static inline uint64_t
rc_hold_tsc(const struct ordk_qp *qp)
{
	return qp->hold_tsc;
}
void rc_timer_set(struct ordk_qp *qp, uint64_t deadline);
void rc_wheel_init(struct ordk_dev *dev);
unsigned int rc_wheel_run(struct ordk_dev *dev, uint64_t now);
void rc_retransmit(struct ordk_qp *qp, uint32_t from, uint32_t to);
/**
 * rc_retransmit() for the holes of the peer card's loss report, except the
 * PSNs the card never tracks. @return PSNs named that may really be lost.
 */
uint32_t rc_retransmit_card(struct ordk_qp *qp, uint32_t from, uint32_t to);
unsigned int rc_push_retries(struct ordk_qp *qp);
/** Whether the card may still read a resend's payload (the WR must not complete). */
bool rc_rtx_unfetched(struct ordk_qp *qp);
void rc_timer_check(struct ordk_qp *qp, uint64_t now);
/**
 * A polling gap stops the clock: a deadline set before the gap ended and
 * running into it moves by the gap's length, once. @return true if it moved.
 */
bool rc_timer_gap_shift(struct ordk_qp *qp);
void rc_timer_arm(struct ordk_qp *qp);
/** Ask the peer what arrived (an ACK_REQ): any answer shows it is there. */
bool rc_probe(struct ordk_qp *qp);
void rc_qp_fail(struct ordk_qp *qp, enum ordk_wc_status status);
/** The QP to ERR: timers and resends stop, every WR left is flushed, the card is told. */
void rc_qp_error(struct ordk_qp *qp);
bool rc_send_ctrl(struct ordk_qp *qp, const struct ordk_ctrl_msg *m);
/* rc_resp.c: the receive tracker */
bool rc_rx_seen(const struct ordk_qp *qp, uint32_t psn);
bool rc_rx_mark(struct ordk_qp *qp, uint32_t psn);
/* rc_read.c */
void rc_read_answer_seen(struct ordk_qp *qp, uint16_t msn, uint32_t psn, uint64_t now);
void rc_read_progress(struct ordk_qp *qp);
void rc_read_done(struct ordk_qp *qp, uint16_t msn);
void rc_rx_read(struct ordk_qp *qp, const struct blue_meta_report *r);
void rc_read_nak_rx(struct ordk_qp *qp, const struct ordk_ctrl_msg *m);
bool rc_atomic_send(struct ordk_qp *qp, struct rc_wqe *w);
void rc_atomic_rx_req(struct ordk_qp *qp, const struct ordk_ctrl_msg *m);
void rc_atomic_rx_resp(struct ordk_qp *qp, const struct ordk_ctrl_msg *m);
int rc_qp_init(struct ordk_qp *qp);
void rc_qp_fini(struct ordk_qp *qp);
void rc_qp_reset(struct ordk_qp *qp);
void rc_qp_to_rtr(struct ordk_qp *qp);
void rc_qp_to_rts(struct ordk_qp *qp);
void rc_qp_flush(struct ordk_qp *qp);
int rc_post_send(struct ordk_qp *qp, const struct ordk_send_wr *wr);
int rc_post_recv(struct ordk_qp *qp, const struct ordk_recv_wr *wr);
void rc_activate(struct ordk_qp *qp);
bool rc_recv_key_ready(struct ordk_qp *qp, struct rc_rwqe *r);
void rc_recv_done(struct ordk_qp *qp, struct rc_rwqe *r, const struct ordk_wc *wc);
bool rc_recv_retire(struct ordk_qp *qp, bool force);
void rc_recv_keys_release(struct ordk_qp *qp, bool push);
unsigned int rc_poll(struct ordk_dev *dev, unsigned int budget);
/* verbs_cc.c: congestion control's glue (lib/cc does the work) */
int verbs_cc_devargs(struct ordk_dev *dev, const char *devargs);
void verbs_cc_close(struct ordk_dev *dev);
void verbs_cc_qp_init(struct ordk_qp *qp, bool on);
bool verbs_cc_gate(struct ordk_qp *qp, uint32_t pmtu, uint32_t *cap);
void verbs_cc_sent(struct ordk_qp *qp, uint32_t bytes, uint32_t pkts);
void verbs_cc_cnp(struct ordk_qp *qp);

/* Completion opcode of a send WQE's opcode (ordk_wr_opcode == blue WR 0-4, 5, 6). */
static inline enum ordk_wc_opcode
rc_wc_opcode(uint8_t op)
{
	switch (op) {
	case BLUE_WR_RDMA_READ:
		return ORDK_WC_RDMA_READ;
	case BLUE_WR_SEND:
	case BLUE_WR_SEND_WITH_IMM:
		return ORDK_WC_SEND;
	case BLUE_WR_ATOMIC_CMP_AND_SWP:
		return ORDK_WC_COMP_SWAP;
	case BLUE_WR_ATOMIC_FETCH_AND_ADD:
		return ORDK_WC_FETCH_ADD;
	default:
		return ORDK_WC_RDMA_WRITE;
	}
}

static inline bool
rc_is_atomic(uint8_t op)
{
	return op == BLUE_WR_ATOMIC_CMP_AND_SWP || op == BLUE_WR_ATOMIC_FETCH_AND_ADD;
}

static inline uint32_t
rc_pkts(uint64_t raddr, uint32_t len, uint32_t pmtu)
{
	uint32_t first = pmtu - (uint32_t)(raddr % pmtu);

	if (len <= first)
		return 1;
	return 1 + (len - first + pmtu - 1) / pmtu;
}

#endif /* VERBS_INTERNAL_H */
