/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libibverbs.so.1 on the ordk_* API: the objects behind the ibverbs handles.
 *
 * One ORDK device per process (ORDK_DEV), shared by every ibv_context opened
 * on it. A device is driven by one thread at a time, so every ordk_* call
 * runs under the device's mutex; a progress thread drives the device while
 * the application is not inside a verb (see ibv_progress.c).
 */
#ifndef ORDK_IBV_INTERNAL_H
#define ORDK_IBV_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rte_cycles.h>
#include <rte_log.h>

#include "ordk_verbs.h"

extern int ov_logtype;
#define OV_LOG(level, ...) rte_log(RTE_LOG_##level, ov_logtype, "ordk-ibverbs: " __VA_ARGS__)

/** A verb ORDK does not have: one line naming it, errno EOPNOTSUPP. */
#define OV_REFUSE(verb, why)                                                          \
	do {                                                                          \
		OV_LOG(ERR, "%s: not supported by ORDK (%s)\n", verb, why);           \
		errno = EOPNOTSUPP;                                                   \
	} while (0)

struct ov_cq;

/*
 * Each wrapper's magic (ibv_handle.c): what a verb checks before it trusts a
 * handle. A destroyed wrapper is OV_MAGIC_DEAD until its memory is reused.
 */
#define OV_MAGIC_PD 0x6f767064u	  /* "ovpd" */
#define OV_MAGIC_MR 0x6f766d72u	  /* "ovmr" */
#define OV_MAGIC_CQ 0x6f766371u	  /* "ovcq" */
#define OV_MAGIC_QP 0x6f767170u	  /* "ovqp" */
#define OV_MAGIC_CHAN 0x6f766368u /* "ovch" */
#define OV_MAGIC_SRQ 0x6f767372u  /* "ovsr" */
#define OV_MAGIC_AH 0x6f766168u	  /* "ovah" */
#define OV_MAGIC_DEAD 0xdeadu

/** Is @p w (a wrapper pointer, may be NULL) a live object of kind @p m? */
#define OV_LIVE(w, m) ((w) != NULL && (w)->magic == (m))

/** Mark a destroyed wrapper dead and give its memory back later (ibv_handle.c). */
void ov_retire(void *wrapper, uint32_t *magic);

/**
 * Lingering (ibv_progress.c): the verb that ends a ping-pong's wait keeps
 * driving the device for a bounded time. Touched by application threads
 * under the device lock only.
 */
struct ov_linger {
	bool on;		/**< linger when the device goes idle */
	bool watching;		/**< the application left an idle device, not lingering */
	bool judging;		/**< a linger saw nothing: did the peer answer later? */
	uint32_t misses;	/**< lingers in a row that saw nothing */
	uint32_t credit;	/**< detections still needed before it is on again */
	uint64_t max;		/**< TSC cycles a linger lasts at most (0: never linger) */
	uint64_t idle_work;	/**< thread_work when it left */
	uint64_t peer_psns;	/**< peer_psns() at the last post (or when it turned on) */
	uint64_t n, hits, cycles; /**< lingers, those that saw work, their total length */
	uint64_t late;		/**< lingers that saw nothing, the peer's answer came later */
	uint64_t left_open;	/**< lingers that ended with a request of the peer still arriving */
};

/** The process's ORDK device and what drives it. */
struct ov_dev {
	pthread_mutex_t lock;	  /**< every ordk_* call of this device */
	struct ordk_dev *dev;
	struct ordk_dev_attr attr;
	uint64_t mac;		  /**< == attr.mac: derived from the IP (ov_mac_of()) */
	int refs;		  /**< open contexts */
	bool stats_done;	  /**< ORDK_IBV_STATS printed since the device was last opened */
	bool client;		  /**< memif client role: waits for its link, stops its port at the last close */
	bool port_stopped;	  /**< the last close stopped the port: the next open starts it again */
	bool port_unplugged;	  /**< a memif server's last close removed its vdev: the next open probes it */
	bool atexit_set;	  /**< the report at exit is registered (once a process) */
	int port;		  /**< ethdev port, -1: none (loopback) */
	bool link_seen;		  /**< its link was up once: net_memif's pages populated (lock) */
	bool link_told, link_up;  /**< the link's state last seen and told to the model (lock) */
	bool port_detached;	  /**< link down, the model leaves its port alone: polled on (lock) */
	bool memif;		  /**< the port is a net_memif (a client's rejoins its next server) */
	atomic_int rejoin;	  /**< that start: idle, running (EAL's interrupt thread), its result */
	uint64_t rejoin_tsc;	  /**< a memif client with its link down: its next start (lock) */
	uint32_t rejoin_wait_ms;  /**< how long the next start that connects waits for the link */
	uint64_t rejoins;	  /**< such starts (lock) */
	struct rte_mempool *mp;	  /**< the port's frames (created once, kept for the process) */
	pthread_t thread;
	atomic_bool stop;
	atomic_uint_fast64_t last_call; /**< TSC of the application's last post or poll (ov_app_call()) */
	atomic_uint_fast64_t thread_polls, thread_work; /**< what the thread did */
	uint64_t hands_off;	  /**< TSC cycles the thread keeps off after last_call */
	struct ov_cq *cqs;	  /**< every CQ */
	struct ov_qp *qps;	  /**< every QP (the linger sums their counters) */
	struct ov_ctx *ctxs;	  /**< open contexts (device events go to each) */
	uint32_t sq_out;	  /**< signaled send WRs not yet polled (lock) */
	uint32_t unsig_tail;	  /**< unsignaled send WRs posted after the last signaled one */
	struct ov_linger linger;
	uint64_t ev_spin;	  /**< TSC cycles ibv_get_cq_event() polls before it blocks */
	uint64_t ev_spins, ev_spin_hits; /**< such polls, and those that found the event (lock) */
};

#define OV_ASYNC_MAX 64 /* events a context holds until ibv_get_async_event() */

/** The ibv_context: a verbs_context so the header's inline verbs find their ops. */
struct ov_ctx {
	struct verbs_context vctx; /* last member is the ibv_context */
	struct ov_dev *d;
	struct ov_ctx *next;	   /**< in d->ctxs */
	/** asynchronous events not yet taken (device lock); async_fd counts them */
	struct ibv_async_event ev[OV_ASYNC_MAX];
	uint32_t ev_first, ev_n;
	uint64_t ev_lost;	   /**< events a full queue could not take */
};

struct ov_pd {
	struct ibv_pd pd;
	uint32_t magic;		/**< OV_MAGIC_PD */
	struct ordk_pd *o;
};

struct ov_mr {
	struct ibv_mr mr;
	uint32_t magic;		/**< OV_MAGIC_MR */
	struct ordk_mr *o;
};

struct ov_cq {
	struct ibv_cq cq;
	uint32_t magic;		/**< OV_MAGIC_CQ */
	struct ordk_cq *o;
	struct ov_dev *d;
	struct ordk_wc *staged;	/**< taken from ORDK for an event, not yet polled */
	uint32_t nstaged, first, cap;
	bool armed;
	unsigned int pending;	/**< events written to the channel, not yet taken */
	uint32_t async_reported; /**< async events ibv_get_async_event() returned */
	struct ov_cq *next;	/**< in d->cqs */
	struct ov_cq *ev_next;	/**< in the channel's event queue */
};

struct ov_chan {
	struct ibv_comp_channel ch;
	uint32_t magic;		   /**< OV_MAGIC_CHAN */
	struct ov_cq *head, *tail; /**< CQs with pending events (device lock) */
};

struct ov_ah {
	struct ibv_ah ah;
	uint32_t magic;		/**< OV_MAGIC_AH */
	struct ordk_ah *o;
};

struct ov_qp {
	struct ibv_qp qp;
	uint32_t magic;		/**< OV_MAGIC_QP */
	struct ordk_qp *o;
	struct ov_dev *d;
	uint8_t sq_sig_all;
	uint32_t async_reported; /**< async events ibv_get_async_event() returned */
	struct ov_qp *next;	/**< in d->qps */
};

struct ov_srq {
	struct ibv_srq srq;
	uint32_t magic;		/**< OV_MAGIC_SRQ */
	struct ordk_srq *o;
	struct ov_dev *d;
	uint32_t async_reported; /**< async events ibv_get_async_event() returned */
};

static inline struct ov_dev *
ov_dev_of(struct ibv_context *c)
{
	return ((struct ov_ctx *)verbs_get_ctx(c))->d;
}

/* ibv_dev.c */
uint64_t ov_mac_of(uint32_t ip);
/**
 * The peer's IPv4 from an address vector (a QP's or an AH's): the GID's IPv4
 * (IPv4-mapped RoCE v2 GID), or without a GRH the LID as the low half of an
 * address in this device's /16. @return 0 or EINVAL (logged, naming @p verb).
 */
int ov_av_ip(const struct ov_dev *d, const struct ibv_ah_attr *ah, uint32_t *ip, const char *verb);
int ov_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a, size_t len);

/* ibv_progress.c */
int ov_progress_start(struct ov_dev *d);
/**
 * The application calls in (lock held): did the progress thread work while it
 * was away? @p posting: ibv_post_send(), from which the peer's answers count.
 */
void ov_linger_enter(struct ov_dev *d, bool posting);
/**
 * ibv_poll_cq() leaves with @p sends send completions (lock held): linger when
 * idle, unless the CQ has a completion channel (@p events: the application
 * sleeps on events by choice).
 */
void ov_linger_leave(struct ov_dev *d, uint32_t sends, bool events);
void ov_progress_stop(struct ov_dev *d);

/**
 * The application is in a verb that feeds or drains the device:
 * ibv_post_send() and ibv_post_recv() stamp it as they enter, ibv_poll_cq() as
 * it enters and as it leaves (a linger inside it stamps as it polls); the
 * progress thread keeps its hands off for a while (see ibv_progress.c).
 */
static inline void
ov_app_call(struct ov_dev *d)
{
	atomic_store_explicit(&d->last_call, rte_get_tsc_cycles(), memory_order_relaxed);
}
/**
 * The application is about to wait for a completion event (it armed a CQ, or
 * blocks in ibv_get_cq_event()): it no longer drives the device, so the
 * progress thread must not keep off for OV_HANDS_OFF_US after its last call.
 * It did: in ib_send_lat -e each side's SEND waited that long after the
 * peer's previous verb before anything polled for it (46-50 us round trips
 * against 8-11 polling).
 */
static inline void
ov_app_wait(struct ov_dev *d)
{
	atomic_store_explicit(&d->last_call, 0, memory_order_relaxed);
}
struct ov_chan;
/** Poll for an event of @p ch before blocking on it (ibv_progress.c). @return true: one is queued. */
bool ov_event_spin(struct ov_dev *d, struct ov_chan *ch);
/** Move completions of armed CQs to their staging and signal their channels (lock held). */
unsigned int ov_notify_armed(struct ov_dev *d);

/* ibv_async.c: asynchronous events (ORDK's, through its callback) */
void ov_async_cb(struct ordk_dev *dev, const struct ordk_async_event *ev, void *arg);
/** Drop the queued events of a CQ or QP being destroyed (lock held). */
void ov_async_purge(struct ov_dev *d, const void *element);
/** Wait until the application acked every event returned for an object. */
void ov_async_wait_acks(pthread_mutex_t *m, pthread_cond_t *cv, const uint32_t *acked,
			uint32_t reported);

/* ibv_cq.c */
int ov_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
int ov_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* ibv_qp.c */
int ov_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
int ov_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
/**
 * Post a chain of RECVs to a QP's (@p qp) or an SRQ's (@p srq) receive queue,
 * in batches, under the device lock. @return 0 or an errno (*@p bad set).
 */
int ov_post_recv_list(struct ov_dev *d, struct ordk_qp *qp, struct ordk_srq *srq,
		      struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
/* ibv_srq.c */
int ov_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
struct ibv_qp *ov_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *a);

/* ibv_refuse.c: the context ops of verbs ORDK does not have */
void ov_set_refused_ops(struct verbs_context *v);

/** Start the device's port (again, after ov_port_end()): @return 0 or a negative errno. */
int ov_port_up(struct ov_dev *d);
/** The last close: the run with the peer ended, the port stopped or removed (ibv_port.c). */
void ov_port_end(struct ov_dev *d);
/** A memif client's link is down with its device open: start its port again, paced (lock held). */
void ov_port_rejoin(struct ov_dev *d);

#endif /* ORDK_IBV_INTERNAL_H */
