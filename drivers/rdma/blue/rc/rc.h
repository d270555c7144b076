/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RC transport (drivers/rdma/blue/rc): its types and the calls the rest of ORDK makes.
 *
 * Shaped as the kernel's rxe: a QP holds a requester part (struct rc_req: the
 * send queue, PSN and MSN assignment, retransmission marks, the peer's RECV
 * adverts), a completer part (struct rc_comp: what the peer acknowledged, the
 * retransmission timer and its retry budget) and a responder part (struct
 * rc_resp: the receive tracker of the peer's PSNs, received messages, RECVs,
 * READ answers, ACK/NAK generation). A device holds one engine (struct
 * rc_engine): the list of QPs with work, the timer wheel, the clocks of the
 * current poll (polling time for every deadline), the Send-ring watch.
 * blue_verbs.h embeds these parts in struct blue_qp and struct blue_dev.
 */
#ifndef RC_H
#define RC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_log.h>

#include "blue_hw.h"
#include "ordk_verbs.h"
#include "blue_wire.h"
#include "rc_fifo.h"
#include "rc_atomic.h"
#include "rc_key.h"
#include "rc_sgl.h"
#include "rc_srq.h"

struct blue_dev;
struct blue_qp;
struct blue_mr;

extern int ordk_rc_logtype;
#define RC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ordk_rc_logtype, "ordk.rc: " fmt "\n", ##__VA_ARGS__)

#define ORDK_ITEM_MAX	  65536u /* a Send item covers at most 64 KiB */
#define ORDK_RECV_WINDOW  4096u	 /* PSNs tracked ahead of the expected PSN */
#define RC_WHEEL_SLOTS	  1024u	 /* power of two */
#define ORDK_HOLD_MAX_US  500u	 /* reordering tolerance, see rc_hold_tsc() */
#define ORDK_LATE_COPY_US 2000u	 /* how late a copy of a resent packet may still arrive */
#define ORDK_FIRST_LEN_SLOTS 2048u /* multi-packet messages in flight (>= 2 PSNs each) */
#define ORDK_MSG_QUEUE	  4096u	 /* received messages waiting for their last PSN */
#define ORDK_ADVERT_RING  4096u
#define ORDK_ACK_EVERY	  16u	 /* ask for an ACK at least every N WRs */
#define RC_READ_MIN_BPS	  (100u << 20) /* slowest READ answer the timer allows for, bytes/s */
#define RC_NAK_MAX	  8u	 /* NAKs for one hole, backing off, before it is given up */
#define RC_ERR_ANSWERS	  8u	 /* ACK_REQs a QP in ERR still answers (rc_ctrl.c) */
#define ORDK_MAX_RD_ATOMIC 16u	 /* max_rd_atomic / max_dest_rd_atomic at most */
/* READ answers a responder holds: those in progress (at most max_dest_rd_atomic) and
 * those sent and not acknowledged yet */
#define ORDK_ANS_RING	  (2u * ORDK_MAX_RD_ATOMIC)
_Static_assert((ORDK_ANS_RING & (ORDK_ANS_RING - 1)) == 0, "the answer ring is indexed by a mask");

/* ------------------------------------------------------------ work queues */

/*
 * A send WQE: a user WR, or an internal READ response. Its life is its
 * state (enum rc_wqe_state); the flags are what it is, fixed once set.
 */
enum rc_wqe_flags {
	RC_WQE_INTERNAL = 1, /* READ response: no completion */
	RC_WQE_FENCE = 2,    /* waits for every earlier READ to complete */
	RC_WQE_FATAL = 4,    /* in RC_WQE_ERROR: the QP goes to ERR once it completes */
	RC_WQE_LEN_ERR = 8,  /* SEND longer than the peer's RECV: announced, then fails */
	RC_WQE_FAILED = 16,  /* rc_qp_fail()'s oldest WR: its status is reported at the flush */
	RC_WQE_PART = 32,    /* a READ part with parts of its WR after it: no completion of its own */
	RC_WQE_SILENT = 64,  /* an earlier part of its WR reported the WR's error: none */
};

struct rc_wqe {
	uint64_t wr_id;
	uint8_t opcode;	     /* blue_wr_opcode */
	uint8_t state;	     /* rc_wqe_state, written by rc_wqe_to() only */
	uint16_t flags;	     /* rc_wqe_flags */
	uint8_t signaled;
	uint8_t solicited;
	uint8_t status;	     /* ordk_wc_status in RC_WQE_ERROR */
	uint8_t nsge;	     /* > 1: a gather WR, its SGEs in lib/verbs' slot wr_n (rc_sgl.h) */
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
	uint32_t atomic_id;  /* atomics: request id */
	uint32_t wr_n;	     /* the WR's number: its slot in lib/verbs (inline bytes, gather) */
	uint64_t rnr_tsc;    /* SEND/IMM: when it started waiting for an advert */
	uint32_t req_psn;    /* READ response: PSN of the request it answers */
	uint32_t ans_psn;    /* READ, once answering: first PSN of its answer in the peer's space */
	uint64_t compare_add;
	uint64_t swap;
	struct rc_key k;     /* READ: the entry its answer lands through, [laddr, laddr + len) */
};

struct rc_rwqe {
	uint64_t wr_id;
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
	uint32_t recv_seq;
	struct rc_key k;     /* its MR-table entry: exactly [addr, addr + len), SENDs only */
};

/* A RECV completion waiting for the revocation of its key (r.k). */
struct rc_rdone {
	struct ordk_wc wc;
	struct rc_rwqe r;
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

/* ------------------------------------------------------------ states */

/*
 * Each state machine of the transport: an X-macro list gives the enum and
 * its name table (rc_state_name(), used in logs and in testpmd's show qp).
 */
#define RC_ENUM_ITEM(pfx, s, name) pfx##s,
#define RC_NAME_ITEM(pfx, s, name) [pfx##s] = name,

/*
 * Requester: why rc_push() stopped (rc_req.c). LEN_ERR is sticky: a SEND
 * longer than the peer's RECV was announced, nothing after it starts.
 */
#define RC_REQ_STATES(X)                                                  \
	X(RC_REQ_, IDLE, "idle")		/* nothing queued */      \
	X(RC_REQ_, RING_FULL, "ring-full")	/* the Send ring */       \
	X(RC_REQ_, WAIT_WINDOW, "wait-window")	/* PSN window or card window */ \
	X(RC_REQ_, WAIT_RATE, "wait-rate")	/* congestion control's pacer */ \
	X(RC_REQ_, WAIT_ADVERT, "wait-advert")	/* RNR: no RECV advertised */ \
	X(RC_REQ_, WAIT_READS, "wait-reads")	/* max_rd_atomic READs and atomics out */ \
	X(RC_REQ_, WAIT_FENCE, "wait-fence")	/* a fenced WR, READs or atomics out */ \
	X(RC_REQ_, WAIT_ATOMIC, "wait-atomic")	/* READs and atomics: each other's order */ \
	X(RC_REQ_, WAIT_KEY, "wait-key")	/* a READ's card key: not confirmed yet */ \
	X(RC_REQ_, LEN_ERR, "len-err")
enum rc_req_state { RC_REQ_STATES(RC_ENUM_ITEM) RC_REQ_NSTATES };

/* Completer: the retransmission timer (rc_comp.c). */
#define RC_COMP_STATES(X)                                                 \
	X(RC_COMP_, IDLE, "idle")		/* nothing outstanding */ \
	X(RC_COMP_, WAIT_ACK, "wait-ack")	/* timer armed */         \
	X(RC_COMP_, RETRY, "retry")		/* timed out, asking the peer */ \
	X(RC_COMP_, SETTLE, "settle")		/* the peer took our length error */ \
	X(RC_COMP_, FLUSH, "flush")		/* failed: the card is told, then flush */ \
	X(RC_COMP_, ERROR, "error")		/* failed and flushed */
enum rc_comp_state { RC_COMP_STATES(RC_ENUM_ITEM) RC_COMP_NSTATES };

/*
 * A send WQE, the application's or a READ answer (rc_comp.c keeps the
 * transitions, rc_wqe_to()). WRITE and SEND complete from sent once
 * acknowledged; a READ or an atomic once done (rc_complete_sends()).
 */
#define RC_WQE_STATES(X)                                                  \
	X(RC_WQE_, QUEUED, "queued")		/* posted, no PSNs yet */ \
	X(RC_WQE_, BOUND, "bound")		/* holds the peer's RECV advert */ \
	X(RC_WQE_, SENDING, "sending")		/* PSNs given, items going */ \
	X(RC_WQE_, SENT, "sent")		/* every item went: waits for the peer */ \
	X(RC_WQE_, ANSWERING, "answering")	/* READ: its answer's first packet came */ \
	X(RC_WQE_, DONE, "done")		/* READ or atomic: answered */ \
	X(RC_WQE_, ERROR, "error")		/* failed: completes with its status */
enum rc_wqe_state { RC_WQE_STATES(RC_ENUM_ITEM) RC_WQE_NSTATES };

/** Has @p w its PSNs (it left queued and bound)? */
static inline bool
rc_wqe_started(const struct rc_wqe *w)
{
	return w->state != RC_WQE_QUEUED && w->state != RC_WQE_BOUND;
}

/*
 * Responder: the hole at the expected PSN (rc_ack.c). SETTLED: a bitmap
 * report showed the card had seen a later PSN (rc_rx_window_shows_hole()),
 * or a resend or a late READ request left it; it is judged on time;
 * GIVEN_UP: NAKed RC_NAK_MAX times, left to the sender's timers until a
 * report opens it again. The state holds for hole_psn only: once epsn moves
 * past it, there is no hole (rc_hole_state()).
 */
#define RC_HOLE_STATES(X)                                                 \
	X(RC_HOLE_, NONE, "none")                                         \
	X(RC_HOLE_, SETTLED, "settled")                                   \
	X(RC_HOLE_, GIVEN_UP, "given-up")
enum rc_hole_state { RC_HOLE_STATES(RC_ENUM_ITEM) RC_HOLE_NSTATES };

/* Responder: the peer's question (ACK_REQ), answered once the tracker is up to date (rc_ack.c). */
#define RC_PROBE_STATES(X)                                                \
	X(RC_PROBE_, NONE, "none")                                        \
	X(RC_PROBE_, ASKED, "asked")		/* waiting for a report or the hold */ \
	X(RC_PROBE_, REPORTED, "reported")	/* a report came: answer now */
enum rc_probe_state { RC_PROBE_STATES(RC_ENUM_ITEM) RC_PROBE_NSTATES };

/*
 * A RECV's or a READ's own card key (rc_key.c): UpdateMrTable submitted, then
 * confirmed; once its operation ended, the revocation waits for room on the
 * command ring (REVOKE), then for the card (REVOKING), and the completion
 * waits for both.
 */
#define RC_KEY_STATES(X)                                                  \
	X(RC_KEY_, NONE, "none")                                          \
	X(RC_KEY_, PENDING, "pending")                                    \
	X(RC_KEY_, READY, "ready")                                        \
	X(RC_KEY_, REVOKE, "revoke")                                      \
	X(RC_KEY_, REVOKING, "revoking")
enum rc_key_state { RC_KEY_STATES(RC_ENUM_ITEM) RC_KEY_NSTATES };

/* The state machines, for rc_state_name(). */
enum rc_sm { RC_SM_REQ, RC_SM_COMP, RC_SM_HOLE, RC_SM_PROBE, RC_SM_KEY, RC_SM_WQE };

/** The name of state @p s of machine @p sm ("?" when out of range). */
const char *rc_state_name(enum rc_sm sm, unsigned int s);

/*
 * What a step of a QP's work left: the engine keeps a QP on its active list
 * while any step says RC_MORE (values combine with |).
 */
enum rc_step { RC_DONE = 0, RC_MORE = 1 };

/* What rc_rx_mark() found. */
enum rc_rx_result {
	RC_RX_NEW,    /* recorded */
	RC_RX_DUP,    /* before epsn: a duplicate (recorded beyond epsn is RC_RX_NEW: rc_read.c read_mark()) */
	RC_RX_BEYOND, /* past the tracked window: implied later by a bitmap report */
};

/* ------------------------------------------------------------ QP parts */

/* Every time kept here (the *_tsc and *_deadline fields) is polling time, rc_ptime(). */

/* Requester: what this QP sends. */
struct rc_req {
	/* send queue: [sq_head, sq_next) sent or being sent, [sq_next, sq_tail) queued;
	 * free-running indices, slot i & sq_mask (sq_mask + 1 slots, a power of two
	 * >= sq_size, the most WQEs it holds) */
	struct rc_wqe *sq;
	uint32_t sq_size, sq_mask, sq_head, sq_next, sq_tail;
	uint32_t sq_user;	   /* user WRs in the queue */
	uint32_t wr_n;		   /* user WRs posted: the number of the next (rc_wqe.wr_n) */
	uint32_t next_psn;
	uint32_t pushed_psn;	   /* PSNs before this one went to the Send ring */
	uint32_t late_psn;	   /* oldest PSN resent while a late copy may still come ... */
	uint64_t late_tsc;	   /* ... until then, ptime (0: none); see rc_req.c */
	uint16_t next_msn;
	uint32_t since_ack_req;
	enum rc_req_state state;   /* why the last rc_push() stopped */
	/* retransmission: PSNs marked in rtx_bits (by psn % ORDK_RECV_WINDOW) go out again */
	uint64_t rtx_bits[ORDK_RECV_WINDOW / 64];
	uint32_t rtx_count;
	uint32_t *rtx_stamp;	   /* per psn % window: (ptime >> 16) | 1 of its last resend */
	/* rc.send_fetched once the card has fetched the last resend pushed (0: none
	 * waiting): until then no WR that carries local payload completes */
	uint64_t rtx_fetch_until;
	uint64_t rtx_not_before;   /* the card's loss reports wait out delayed frames */
	uint32_t atomics[ORDK_MAX_RD_ATOMIC]; /* sq indices, oldest unanswered to newest */
	struct rc_fifo at_q;
	uint32_t next_atomic_id;
	uint32_t atomic_resent_to; /* ids before it were asked again at once (rc_atomic.c) */
	uint32_t *reads;	   /* sq indices of outstanding READs (<= max_rd_atomic) */
	uint32_t key_next;	   /* first queued WQE not yet looked at for a READ key (rc_read.c) */
	struct rc_fifo rd_q;
	/* the peer's RECV adverts, for our SEND / SEND_IMM / WRITE_IMM */
	struct blue_ctrl_advert *adv;
	struct rc_fifo adv_q;
	uint32_t adv_expect;
	uint32_t adv_src;	   /* QPN that sent adverts before this QP reached RTR */
	uint32_t adv_wanted, want_sent; /* adverts wanted (a SEND, IMM posted each); last said */
	uint64_t want_tsc;	   /* when the want was last said (an SRQ peer lends on it) */
	bool adv_ack_due;	   /* tell the peer which adverts arrived */
	uint64_t rnr_probe_tsc;	   /* a SEND waiting for an advert asked the peer */
	uint32_t rnr_probes;	   /* ... that many times since it last heard it */
	uint64_t rnr_ask_tsc;	   /* its RNR budget ran out: asked what the peer posted (0: not) */
	uint32_t rnr_posted;	   /* its answer (RECV_STATE) ... */
	bool rnr_answer;	   /* ... if one came */
	bool prot_err;		   /* a WR failed rc_source_ok(): the QP fails once it completes */
};

/*
 * The WQE at sq index @p i reported its WR's error: the later parts of that
 * WR (a READ scattering over several SGEs, rc_qp.c) report nothing.
 */
static inline void
rc_wr_silence(struct rc_req *rq, uint32_t i)
{
	while ((rq->sq[i & rq->sq_mask].flags & RC_WQE_PART) && ++i != rq->sq_tail)
		rq->sq[i & rq->sq_mask].flags |= RC_WQE_SILENT;
}

/* Completer: what the peer acknowledged, and the timer that asks when it says nothing. */
struct rc_comp {
	enum rc_comp_state state;
	/* SETTLE, FLUSH: the ManageQp (error) submitted with sequence err_seq (if
	 * err_submitted), reaped by the engine, given up at err_deadline */
	bool err_submitted;
	uint32_t err_seq;
	uint64_t err_deadline;
	uint32_t acked_psn;	   /* every PSN before this one is acknowledged */
	uint64_t rtx_deadline;	   /* ptime; 0 when nothing is outstanding */
	uint64_t rtx_set_tsc;	   /* when rtx_deadline was set (ptime) */
	uint64_t timeout_tsc, hold_tsc; /* from attr.timeout: rc_qp_set_timeout() */
	uint32_t rtx_retries;	   /* consecutive timeouts without progress */
	uint32_t rtx_backoff;	   /* timeout multiplier (exponential) */
	uint32_t rd_seen_epsn;	   /* epsn at the last look for READ answer progress */
	uint64_t heard_tsc;	   /* the last report or control frame from the peer */
};

/* Responder: the peer's PSN space, its messages, our RECVs and READ answers. */
struct rc_resp {
	/* receive tracker */
	uint32_t epsn;		   /* expected: every PSN before it arrived */
	uint32_t counted_epsn;	   /* epsn when rx_packets last counted (rc_resp_complete()) */
	uint32_t card_base;	   /* window base of the card's last bitmap report */
	uint32_t rx_top;	   /* one past the highest PSN seen */
	uint64_t rbits[ORDK_RECV_WINDOW / 64]; /* PSNs at or after epsn that arrived */
	struct rc_msg *msgs;	   /* in PSN order */
	struct rc_fifo msg_q;
	uint32_t first_len[ORDK_FIRST_LEN_SLOTS]; /* total_len of a FIRST packet, by MSN */
	bool ack_due;
	bool rx_open;		   /* the peer's request: its FIRST came, its LAST not yet */
	/* the hole at epsn and the NAKs asking for it */
	enum rc_hole_state hole;   /* of the hole at hole_psn */
	uint32_t hole_psn;
	uint64_t hole_tsc;	   /* when it opened */
	uint64_t nak_tsc;	   /* when the last NAK went out */
	uint32_t nak_epsn;	   /* the epsn it asked from */
	uint32_t nak_count;	   /* NAKs sent for the hole at nak_epsn */
	/* the peer asked what arrived (ACK_REQ) */
	enum rc_probe_state probe;
	uint32_t probe_psn;	   /* the PSN it asked about */
	uint64_t probe_tsc;	   /* when it asked */
	/* READ answers, apart from the application's send queue: [ans_head, ans_next)
	 * sent and not acknowledged, [ans_next, ans_tail) queued in request PSN order,
	 * at most max_dest_rd_atomic of them */
	struct rc_wqe *ans;
	uint32_t ans_head, ans_next, ans_tail;
	/* atomics: exactly once, in id order, with a replay cache (rc_atomic.c) */
	uint32_t atomic_expect;	   /* next request id to execute */
	struct rc_atomic_saved atomic_cache[ORDK_ATOMIC_CACHE];
	struct rc_atomic_held atomic_held[ORDK_MAX_RD_ATOMIC]; /* by req_id % ORDK_MAX_RD_ATOMIC */
	uint32_t atomic_nheld;
	bool atomic_refused;	   /* one was refused: no later one executes (IBA: the QP fails) */
	/* receive queue and its adverts to the peer */
	struct rc_rwqe *rq;
	struct rc_fifo rq_q;
	uint32_t rq_advertised;
	struct rc_rdone *rdone;	   /* completions waiting for their key's revocation */
	struct rc_fifo rdone_q;
	uint32_t next_recv_seq;
	uint32_t rq_acked;	   /* first recv_seq the peer has not acknowledged */
	uint64_t adv_tsc;	   /* when adverts last went out, in polling time (rc_ptime()) */
	uint32_t err_answers;	   /* the peer's questions answered in ERR (rc_ctrl.c) */
	uint32_t srq_want;	   /* on an SRQ: RECVs the peer wants in all (its advert ACK) */
	bool state_due;		   /* the peer asked what we posted (BLUE_CTRL_F_ASK) */
	bool srq_starved;	   /* on an SRQ: the pool had none for it (counted once) */
	bool srq_live;		   /* on an SRQ: counted in its nlive (RTR, RTS) */
};

/* A QP's places in its device's engine: the active list and the timer wheel. */
struct rc_sched {
	TAILQ_ENTRY(blue_qp) link;
	bool on_active;
	TAILQ_ENTRY(blue_qp) tlink; /* in the wheel while a deadline is set */
	bool on_wheel;
};

/* ------------------------------------------------------------ the engine */

/** The engine's clock: TSC cycles (rte_get_tsc_cycles() unless a test sets another). */
typedef uint64_t (*rc_clock_fn)(void);

struct rc_engine {
	TAILQ_HEAD(, blue_qp) active;	/* QPs with send work or ACKs to make */
	/*
	 * Retransmission timers: a hashed wheel of RC_WHEEL_SLOTS ticks of
	 * 2^wheel_shift TSC cycles (about 16 us) of polling time. A QP waiting
	 * only for an ACK leaves the active list; the wheel puts it back when
	 * its deadline is due.
	 */
	TAILQ_HEAD(rc_wheel_slot, blue_qp) wheel[RC_WHEEL_SLOTS];
	uint64_t wheel_tick;	  /* the last tick the wheel has run */
	uint32_t wheel_shift, wheel_count;
	uint64_t tsc_hz;
	rc_clock_fn clock;
	/*
	 * Two clocks, both read once per poll (poll_clock()):
	 * - wall_tsc: the clock at the start of the current poll, wall time.
	 *   For what runs with the link whether the application polls or not:
	 *   congestion control's rate pacing (blue_cc.c). The card (bluesim
	 *   too) keeps its own wall time; logs print either clock's intervals.
	 * - ptime: polling time (rc_ptime()), the one clock of every deadline
	 *   and hold the transport keeps. When the application stops polling,
	 *   reports and frames pile up unseen: judged on that stale input, a
	 *   late report looks like a loss, and a resend of a READ response
	 *   would overwrite memory the application owns again (the card places
	 *   every response packet). So ptime advances by each interval between
	 *   polls, but by at most stall_tsc plus the sleep the poller declared
	 *   before it (ordk_dev_idle(), rc_idle()): the rest of a longer
	 *   interval is a polling gap, and no timer, hold or wait runs in it.
	 */
	uint64_t wall_tsc;
	uint64_t ptime;
	uint64_t stall_tsc;	  /* an undeclared pause this long still counts */
	uint64_t idle_tsc;	  /* the sleep declared for the next interval (atomic: any thread) */
	uint32_t send_tail_seen;  /* Send ring TAIL at the last look */
	uint64_t send_fetched;	  /* Send ring descriptors the card has fetched, ever */
	uint64_t send_busy_tsc;	  /* last time (ptime) the card was still fetching our items */
	/* keys whose RECVs or READs are gone, waiting for room on the command ring (rc_key.c) */
	uint32_t revoke_keys[BLUE_MAX_MR];
	struct rc_fifo revoke_q;
};

/* ------------------------------------------------------------ calls */

/* engine (rc_engine.c) */
unsigned int rc_poll(struct blue_dev *dev, unsigned int budget);
void rc_activate(struct blue_qp *qp);
/**
 * Polling time at the start of the current poll (struct rc_engine: ptime),
 * TSC cycles: the clock every deadline and hold of the transport is set and
 * compared in.
 */
static inline uint64_t
rc_ptime(const struct rc_engine *e)
{
	return e->ptime;
}
/**
 * The poller stops polling for about @p ns (a sleep): the next interval
 * between polls counts as polling time up to that and stall_tsc. Replaces an
 * earlier declaration; the next poll consumes it. Any thread may call it.
 */
void rc_idle(struct rc_engine *e, uint64_t ns);
/* timer wheel (rc_engine.c) */
void rc_wheel_init(struct blue_dev *dev);
unsigned int rc_wheel_run(struct blue_dev *dev, uint64_t now);
void rc_timer_set(struct blue_qp *qp, uint64_t deadline);
/* the completer (rc_comp.c) */
/**
 * The one writer of qp->comp.state: @p next if the completer's table allows
 * it from the state now. @return false when refused (logged, counted in
 * state_refused; the state stays).
 */
bool rc_comp_to(struct blue_qp *qp, enum rc_comp_state next);
/** The one writer of a send WQE's state, as rc_comp_to() is of the completer's. */
bool rc_wqe_to(struct blue_qp *qp, struct rc_wqe *w, enum rc_wqe_state next);
/** The peer acknowledged every PSN before @p psn: the timer moves, WRs may complete. */
void rc_comp_acked(struct blue_qp *qp, uint32_t psn);
/** Complete the WRs at the send queue's head that may complete, in order. */
void rc_complete_sends(struct blue_qp *qp);
void rc_comp_rx_report(struct blue_qp *qp, const struct blue_meta_report *r);
/**
 * The peer took our too long SEND (it is in ERR): the QP goes to RC_COMP_SETTLE,
 * the card is told without waiting. @return true when it did.
 */
bool rc_len_err_settle(struct blue_qp *qp);
/**
 * For a QP in RC_COMP_SETTLE: once the card confirmed, READs left unanswered
 * end (WR_FLUSH_ERR) and the SEND fails the QP. @return RC_MORE (a later poll
 * reaps what follows).
 */
enum rc_step rc_len_err_reap(struct blue_qp *qp);
void rc_timer_arm(struct blue_qp *qp);
void rc_timer_check(struct blue_qp *qp, uint64_t now);
void rc_qp_set_timeout(struct blue_qp *qp);
/* QP lifecycle and the post path (rc_qp.c) */
int rc_qp_init(struct blue_qp *qp);
void rc_qp_fini(struct blue_qp *qp);
void rc_qp_reset(struct blue_qp *qp);
void rc_qp_to_rtr(struct blue_qp *qp);
void rc_qp_to_rts(struct blue_qp *qp);
void rc_qp_flush(struct blue_qp *qp);
/**
 * Is [addr, addr + len) inside the MR of @p key, of @p qp's PD, with @p access?
 * @return 0, -EPERM (no such MR, another PD, missing access), -ERANGE (bounds).
 */
int rc_mr_check(const struct blue_qp *qp, uint32_t key, uint64_t addr, uint64_t len,
		unsigned int access);
/** rc_mr_check() against PD @p pd of @p dev (an SRQ's RECVs: the SRQ's PD). */
int rc_mr_check_pd(struct blue_dev *dev, const struct ordk_pd *pd, uint32_t key, uint64_t addr,
		   uint64_t len, unsigned int access);
/** A receive WQE for @p wr, its SGE checked against @p pd (recv_seq unset): 0, -EPERM. */
int rc_rwqe_make(struct blue_qp *qp, const struct ordk_pd *pd, const struct ordk_recv_wr *wr,
		 struct rc_rwqe *r);
/**
 * ORDK_SEND_INLINE on @p wr of @p len bytes: a SEND or WRITE within the QP's
 * max_inline_data (counted in inline_refused otherwise). @return 0 or -EINVAL.
 */
int rc_inline_check(struct blue_qp *qp, const struct ordk_send_wr *wr, uint32_t len);
/** A WR_FLUSH_ERR completion of @p wr_id on @p cq. */
void rc_flush_cqe(struct ordk_cq *cq, uint64_t wr_id, enum ordk_wc_opcode op, uint32_t qpn);
int rc_post_send(struct blue_qp *qp, const struct ordk_send_wr *wr);
int rc_post_recv(struct blue_qp *qp, const struct ordk_recv_wr *wr);
void rc_qp_fail(struct blue_qp *qp, enum ordk_wc_status status);
/**
 * The QP to ERR: timers and resends stop, and the card is told without
 * waiting (ManageQp submitted); once it confirmed, rc_qp_error_reap() flushes
 * every WR left and raises QP_FATAL.
 */
void rc_qp_error(struct blue_qp *qp);
/** For a QP in RC_COMP_FLUSH: @return RC_MORE while the card has not confirmed. */
enum rc_step rc_qp_error_reap(struct blue_qp *qp);
/** Submit the ManageQp (error) of SETTLE or FLUSH, without waiting (rc_qp_err_cmd_reaped()). */
void rc_qp_err_cmd_start(struct blue_qp *qp);
/**
 * Has the card confirmed that ManageQp (*@p ok), or its command timeout
 * passed? Submits it again while the command ring was full.
 */
bool rc_qp_err_cmd_reaped(struct blue_qp *qp, bool *ok);
/* requester (rc_req.c) */
unsigned int rc_push(struct blue_qp *qp);
/** A resend of @p psn went: its first copy may still come (the peer card's window, rc_req.c). */
void rc_late_copy_sent(struct blue_qp *qp, uint32_t psn);
/** Responder going to ERR: the READ answers owed before it go now (best effort). */
void rc_push_owed_answers(struct blue_qp *qp);
/**
 * The Send item for bytes [off, off + len) of @p w from PSN @p psn, asking
 * for an ACK if @p signaled; @p last: it ends the message. A gather WR's
 * packet that spans SGEs is assembled in its slot now (rc_sgl_source()).
 */
struct blue_send_item rc_send_item(struct blue_qp *qp, const struct rc_wqe *w,
				   uint32_t off, uint32_t len, uint32_t psn, bool signaled,
				   bool last);
/**
 * Is the source of bytes [off, off + len) of @p w still in its MR (the lkey,
 * its bounds, and for a READ the access the card writes it with)? The card
 * skips an item whose lkey is gone without a report (bluesim counts
 * tx_invalid_lkey; the RTL asserts), so the driver checks each item it
 * (re)sends. When not: @p w fails with LOC_PROT_ERR (fatal), counted.
 */
bool rc_source_ok(struct blue_qp *qp, struct rc_wqe *w, uint32_t off, uint32_t len);
/**
 * Can a CNP naming @p msn be the peer card's answer to a packet of @p qp? The
 * card copies the marked packet's MSN and reports no source (no IP, MAC or
 * QPN): the MSN of a recent WR, or of a READ answer being sent, is all a CNP
 * can be checked by.
 */
bool rc_cnp_plausible(const struct blue_qp *qp, uint16_t msn);
/* retransmission (rc_rtx.c) */
void rc_retransmit(struct blue_qp *qp, uint32_t from, uint32_t to);
/**
 * rc_retransmit() for the holes of the peer card's loss report, except the
 * PSNs the card never tracks. @return PSNs named that may really be lost.
 */
uint32_t rc_retransmit_card(struct blue_qp *qp, uint32_t from, uint32_t to);
unsigned int rc_push_retries(struct blue_qp *qp);
/** Whether the card may still read a resend's payload (the WR must not complete). */
bool rc_rtx_unfetched(struct blue_qp *qp);
/* control frames and RECV adverts (rc_ctrl.c) */
/** Ask the peer what arrived (an ACK_REQ): any answer shows it is there. */
bool rc_probe(struct blue_qp *qp);
/** A control message of @p type from @p qp to its peer, to fill in. */
struct blue_ctrl_msg rc_ctrl_msg(const struct blue_qp *qp, enum blue_ctrl_type type);
/** Build and queue @p m on SimpleNic TX. @return true if it went. */
bool rc_send_ctrl(struct blue_qp *qp, const struct blue_ctrl_msg *m);
void rc_ctrl_rx(struct blue_dev *dev, const uint8_t *f, uint32_t len);
#include "rc_advert.h" /* RECV adverts both ways, the RNR question */
/* receive tracker (rc_track.c): the peer's PSNs, modulo 2^24 */
/** Start at @p epsn with nothing seen. */
void rc_rx_reset(struct rc_resp *rs, uint32_t epsn);
/** Has @p psn (at or after epsn, inside the window) arrived? */
bool rc_rx_seen(const struct rc_resp *rs, uint32_t psn);
/** @p psn arrived: recorded, epsn moved over what is contiguous. */
enum rc_rx_result rc_rx_mark(struct rc_resp *rs, uint32_t psn);
/** The PSNs of a card bitmap (bit i: @p base + i) arrived. @return those beyond the window. */
uint32_t rc_rx_merge_window(struct rc_resp *rs, uint32_t base, const struct blue_bitmap128 *b);
/** PSNs [from, to) arrived (only those at or after epsn count). @return those beyond the window. */
uint32_t rc_rx_mark_range(struct rc_resp *rs, uint32_t from, uint32_t to);
/*
 * Does a card bitmap (bit i: @p base + i) show the PSN at epsn missing? Only
 * when the card had seen a later PSN (a set bit beyond epsn). A loss report
 * comes as the packet that slid the window arrives, so the PSNs after that
 * one are not missing but not sent yet: taking them for a hole NAKed the
 * MIDDLE packets of a stream still flowing (no report names those), on a
 * clean wire (issue 12 item 14).
 */
bool rc_rx_window_shows_hole(const struct rc_resp *rs, uint32_t base,
			     const struct blue_bitmap128 *b);
/** The first PSN after epsn that arrived, before @p limit; @p limit if none. */
uint32_t rc_rx_first_seen_after(const struct rc_resp *rs, uint32_t limit);
/*
 * The card's bitmap window (doc/guides/drivers/blue_hw_interface.md
 * section 5.1): 8 strides of 16 PSNs; a
 * report names its newest stride's PSN, and bit 0 stands for the PSN
 * (BLUE_BITMAP_STRIDES - 1) strides before it.
 */
#define RC_CARD_WINDOW_BEHIND ((BLUE_BITMAP_STRIDES - 1u) * 16u)
static inline uint32_t
rc_card_window_base(uint32_t psn)
{
	return blue_psn_add(psn, BLUE_PSN_MASK + 1 - RC_CARD_WINDOW_BEHIND);
}
/* responder (rc_resp.c) */
void rc_resp_rx_report(struct blue_qp *qp, const struct blue_meta_report *r);
/** Complete the received messages epsn has passed (RECVs, our READs), in order. */
void rc_resp_complete(struct blue_qp *qp);
/** @p psn arrived (header reports, READ requests): rc_rx_mark() with its counters. */
enum rc_rx_result rc_resp_mark(struct blue_qp *qp, uint32_t psn);
/* ACK/NAK generation (rc_ack.c) */
/** The hole at epsn: its state now (NONE once epsn moved past hole_psn). */
static inline enum rc_hole_state
rc_hole_state(const struct rc_resp *rs)
{
	return rs->hole_psn == rs->epsn ? rs->hole : RC_HOLE_NONE;
}
/** A hole opens (or opens again) at epsn in state @p s, at @p now. */
void rc_hole_open(struct rc_resp *rs, enum rc_hole_state s, uint64_t now);
void rc_hole_check(struct blue_qp *qp, bool report);
/** The card's ACK frame (a NAK of [epsn, @p psn) if @p nak). @return true if it went. */
bool rc_ack_frame(struct blue_qp *qp, bool nak, uint32_t psn);
void rc_ack_last_word(struct blue_qp *qp); /**< at destroy: the last ACK once more (rc_ack.c) */
/** The responder's turn in a poll: probe answers, NAKs, the ACK due. @return RC_MORE if left. */
enum rc_step rc_ack_step(struct blue_qp *qp, uint64_t now);
/** The peer asked what arrived before @p psn (an ACK_REQ), at @p now. */
void rc_probe_asked(struct rc_resp *rs, uint32_t psn, uint64_t now);
void rc_probe_answer(struct blue_qp *qp);
/* READ, both ends (rc_read.c) */
/** The FIRST packet of an answer (@p total_len: the whole answer, as the peer says). */
void rc_read_answer_seen(struct blue_qp *qp, uint16_t msn, uint32_t psn, uint32_t total_len,
			 uint64_t now);
void rc_read_progress(struct blue_qp *qp);
/** An answer's LAST or ONLY packet completed message @p m (its PSN, MSN, length). */
void rc_read_done(struct blue_qp *qp, const struct rc_msg *m);
void rc_rx_read(struct blue_qp *qp, const struct blue_meta_report *r);
void rc_read_nak_rx(struct blue_qp *qp, const struct blue_ctrl_msg *m);
/* READ keys (rc_read.c) */
/** Create the keys of the READs queued next (up to a few WQEs ahead), without waiting. */
void rc_read_keys_ahead(struct blue_qp *qp);
/** Has READ @p w its key, confirmed? (created now if need be; counted in read_keys_short) */
bool rc_read_key_ready(struct blue_qp *qp, struct rc_wqe *w);
/** The QP fails or leaves RTS: every READ's key is revoked (submitted before the ManageQp). */
void rc_read_keys_revoke_all(struct blue_qp *qp);
/** @return RC_MORE while a READ's key is not confirmed gone. */
enum rc_step rc_read_keys_wait(struct blue_qp *qp);
/** The send queue is emptied: keys of its READs still known go (rc_key_orphan()). */
void rc_read_keys_release(struct blue_qp *qp);
/** The oldest WR, a READ that ended, waits for its key's revocation: complete it once gone. */
enum rc_step rc_read_keys_retire(struct blue_qp *qp);
/* RECV keys (rc_recv.c) */
bool rc_recv_key_ready(struct blue_qp *qp, struct rc_rwqe *r);
void rc_recv_done(struct blue_qp *qp, struct rc_rwqe *r, const struct ordk_wc *wc);
/** Report RECV completions whose keys are revoked (all: @p force). @return RC_MORE while some wait. */
enum rc_step rc_recv_retire(struct blue_qp *qp, bool force);
void rc_recv_keys_release(struct blue_qp *qp, bool push);

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

#endif /* RC_H */
