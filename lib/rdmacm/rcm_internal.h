/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librdmacm.so.1 on ORDK: the objects behind rdma_cm's public structs.
 *
 * rdma_cm's ids and events are the structs of <rdma/rdma_cma.h>, each the
 * first member of ours, so programs read them unchanged. The connection
 * exchange (REQ, REP, RTU, REJ, DREQ) runs over a TCP connection to the
 * listener's port: rdma_cm's port is the TCP port. Each event channel has a
 * thread that waits (epoll) on its ids' sockets, runs the exchange and
 * queues the events; the channel's fd is an eventfd counting them.
 *
 * Locking: one mutex per channel guards its queue and every id on it; the
 * API calls take the id's channel's mutex, the thread holds it while it
 * handles a batch of socket events.
 */
#ifndef ORDK_RCM_INTERNAL_H
#define ORDK_RCM_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <rte_log.h>

extern int rcm_logtype;
#define RCM_LOG(level, ...) rte_log(RTE_LOG_##level, rcm_logtype, "ordk-rdmacm: " __VA_ARGS__)

/** A call ORDK's rdma_cm does not have: one line naming it, errno @p err, return -1. */
#define RCM_REFUSE(call, err, why)                                                     \
	do {                                                                           \
		RCM_LOG(ERR, "%s: not supported by ORDK (%s)\n", call, why);           \
		errno = (err);                                                         \
	} while (0)

#define RCM_MAGIC_CHAN 0x72636368u /* "rcch" */
#define RCM_MAGIC_ID   0x72636964u /* "rcid" */
#define RCM_MAGIC_DEAD 0xdeadu

/* The exchange's messages: fixed size, see rcm_conn.c (RC, TCP) and rcm_sidr.c (UD, UDP) */
#define RCM_MSG_MAGIC	"ORDKRCM1"
#define RCM_MSG_LEN	256u
#define RCM_REQ_PDATA	56u  /* what rdma_cm leaves a REQ's user over IB (92 - its 36-byte header) */
#define RCM_REP_PDATA	196u
#define RCM_REJ_PDATA	148u
#define RCM_DREQ_PDATA	52u
#define RCM_SIDR_REQ_PDATA 180u /* IB's 216 less rdma_cm's 36-byte header, as the kernel's */
#define RCM_SIDR_REP_PDATA 136u

enum rcm_msg_type {
	RCM_REQ = 1,
	RCM_REP,
	RCM_RTU,
	RCM_REJ,
	RCM_DREQ,
	RCM_MSG_MAX = RCM_DREQ,
};

/* IBA's reject reasons that ORDK sends (IBA 12.6.7.2, the kernel's enum ib_cm_rej_reason) */
#define RCM_REJ_NO_QP		  1  /* the REQ names no QP the passive side could talk to */
#define RCM_REJ_INVALID_GID	  12 /* the REQ's GID is no IPv4 unicast device address */
#define RCM_REJ_INVALID_SERVICE_ID 8  /* nobody listens on the port */
#define RCM_REJ_CONSUMER_DEFINED  28 /* rdma_reject() */

enum rcm_state {
	RCM_IDLE,
	RCM_BOUND,
	RCM_LISTEN,
	RCM_ADDR_RESOLVED,
	RCM_ROUTE_RESOLVED,
	RCM_CONNECTING,	   /* TCP connect in flight */
	RCM_REQ_SENT,	   /* waiting for REP or REJ */
	RCM_REP_RCVD,	   /* the application's own QP: CONNECT_RESPONSE given, rdma_establish() next */
	RCM_REQ_WAIT,	   /* passive, accepted socket, no REQ yet: not the application's */
	RCM_REQ_RCVD,	   /* passive: CONNECT_REQUEST given, waiting for accept/reject */
	RCM_REP_SENT,	   /* passive: waiting for RTU */
	RCM_CONNECTED,
	RCM_DISCONNECTING, /* DREQ sent, waiting for the peer to close */
	RCM_CLOSED,	   /* disconnected, rejected or failed */
};

struct rcm_chan;
struct rcm_sidr_seen;

struct rcm_event {
	struct rdma_cm_event ev; /* first: what the application holds */
	TAILQ_ENTRY(rcm_event) next;
	uint8_t pdata[RCM_REP_PDATA];
};
TAILQ_HEAD(rcm_event_list, rcm_event);

struct rcm_id {
	struct rdma_cm_id id; /* first: what the application holds */
	uint32_t magic;
	struct rcm_chan *chan;
	bool sync;	 /* created with no channel: calls wait for their own events */
	bool own_chan;	 /* the channel is ours (sync) and goes with the id */
	enum rcm_state state;
	int fd;		 /* TCP: listening or connected, -1 none */
	int64_t deadline; /* ms (rcm_now_ms), 0 none: handshake steps that must end */
	int64_t refused_until; /* active: a refused connect is tried again until then (ms) */
	bool reconnect;	 /* the deadline is the next connect of a refused one, not a timeout */
	struct sockaddr_in tcp_dst; /* where the active side connects */
	struct rcm_id *listener;    /* passive: the id whose port the REQ came to */
	uint8_t tx[RCM_MSG_LEN];    /* the REQ, sent once the TCP connection is up */
	/* rdma_create_ep() listeners: the QP each rdma_get_request() id gets */
	bool ep_qp;
	struct ibv_qp_init_attr ep_attr;
	struct ibv_pd *ep_pd;
	/* the peer's side of the exchange */
	uint32_t peer_qpn, peer_psn;
	union ibv_gid peer_gid;
	uint8_t peer_mtu, peer_init_depth, peer_resp_res, peer_rnr_retry, peer_retry;
	/* ours, as rdma_connect/rdma_accept asked */
	uint8_t init_depth, resp_res, retry, rnr_retry;
	uint32_t qpn;	 /* the QP the exchange names (id->qp's, or conn_param's qp_num) */
	uint8_t rx[RCM_MSG_LEN];
	uint32_t rxlen;
	bool own_pd, own_cqs;
	struct ibv_sa_path_rec path;
	TAILQ_ENTRY(rcm_id) next;	/* the channel's ids */
	TAILQ_ENTRY(rcm_id) reap;	/* destroyed, freed by the thread when no batch holds it */
	/* sync ids: the last event a call waited for, left as id->event (rdma-core's ucma_complete) */
	struct rdma_cm_event *sync_ev;
	/* UD ids: the SIDR exchange (rcm_sidr.c) */
	uint32_t qkey;		       /* 0 until a QP or the SIDR sets it (the kernel's cma_set_qkey) */
	uint32_t sidr_id;	       /* the request's ID: its answer names it */
	int64_t sidr_until;	       /* active: the request is given up then (ms) */
	struct rcm_sidr_seen *sidr_seen; /* passive: the request, as a repeated one finds it */
	int sidr_fd;		       /* passive, until answered: the listener's socket (dup) to answer from */
	struct sockaddr_in sidr_peer;  /* passive: where the SIDR_REQ came from */
};
TAILQ_HEAD(rcm_id_list, rcm_id);

struct rcm_chan {
	struct rdma_event_channel ch; /* first: ch.fd is the eventfd the application waits on */
	uint32_t magic;
	pthread_mutex_t lock;
	int epfd, stopfd;
	bool stop;
	_Atomic int waiters; /* threads inside rdma_get_cm_event() */
	pthread_t thread;
	struct rcm_event_list events;
	struct rcm_id_list ids, reaped;
};

/** What went wrong where, for tests and ORDK_RDMACM_STATS=1 (rcm_chan.c). */
enum rcm_counter {
	RCM_C_GARBAGE,	     /* a message that is not ORDK's exchange (magic, type, length) */
	RCM_C_BAD_REQ,	     /* a REQ/REP naming no peer a QP can have (QPN, PSN, GID, MTU) */
	RCM_C_NO_LISTENER,   /* connect refused: nobody listens (REJECTED 8) */
	RCM_C_TIMEOUT,	     /* a handshake step that did not end in time (UNREACHABLE/CONNECT_ERROR) */
	RCM_C_RESET,	     /* the peer closed mid-handshake (CONNECT_ERROR) */
	RCM_C_REJ_SENT,
	RCM_C_REJ_RCVD,
	RCM_C_ESTABLISHED,
	RCM_C_DISCONNECTED,
	RCM_C_REFUSED_CALL,  /* calls ORDK refuses (multicast, ECE, rsockets) */
	RCM_C_REFUSED_RETRY, /* a connect refused (nobody listens yet) and tried again */
	RCM_C_MAX,
};
extern const char *const rcm_counter_names[RCM_C_MAX];
void rcm_count(enum rcm_counter c);

int64_t rcm_now_ms(void);
struct rcm_id *rcm_id_of(struct rdma_cm_id *id);
struct rcm_chan *rcm_chan_of(struct rdma_event_channel *ch);

/* The channel's queue (lock held) */
struct rcm_event *rcm_event_post(struct rcm_chan *c, struct rcm_id *id, enum rdma_cm_event_type type,
				 int status);
/* sockets in the channel's epoll (lock held) */
int rcm_watch(struct rcm_chan *c, struct rcm_id *id, uint32_t events, bool add);
void rcm_unwatch(struct rcm_id *id);
void rcm_id_retire(struct rcm_id *id);
/* The application's calls: lock @p cmid's channel (NULL, errno EINVAL: no live id); unlock, errno @p err, -1 */
struct rcm_id *rcm_lock_id(struct rdma_cm_id *cmid);
int rcm_unlock_err(struct rcm_id *id, int err);
int rcm_send_msg(struct rcm_id *id, enum rcm_msg_type type, uint8_t reason, const void *pdata, uint8_t plen);
/* A new id for a request that came to listener @p l (lock held), on l's channel; NULL without memory */
struct rcm_id *rcm_passive_id(struct rcm_id *l, enum ibv_qp_type qpt);
/* The thread's part (rcm_conn.c, lock held) */
void rcm_io(struct rcm_id *id, uint32_t events);
void rcm_expire(struct rcm_chan *c, int64_t now);
/* the exchange's steps (rcm_conn.c) and the active side's connect (rcm_retry.c), lock held */
int64_t rcm_step_ms(void);
void rcm_close_conn(struct rcm_id *id);
void rcm_tcp_connect(struct rcm_id *id);
void rcm_connect_first(struct rcm_id *id);
bool rcm_refused_again(struct rcm_id *id);
void rcm_no_listener(struct rcm_id *id);
int64_t rcm_refused_ms(void);
/* UD ids (RDMA_PS_UDP): IBA's SIDR over UDP (rcm_sidr.c) */
bool rcm_is_ud(struct rdma_cm_id *cmid);
int rcm_sidr_connect(struct rdma_cm_id *cmid, struct rdma_conn_param *param);
int rcm_sidr_accept(struct rdma_cm_id *cmid, struct rdma_conn_param *param);
int rcm_sidr_reject(struct rdma_cm_id *cmid, const void *pdata, uint8_t plen);
void rcm_sidr_io(struct rcm_id *id);		   /* lock held */
void rcm_sidr_expire(struct rcm_id *id, int64_t now); /* lock held */
void rcm_sidr_forget(struct rcm_id *id);	   /* lock held: the id goes */
/*
 * sync ids: wait for the event of the call just made (lock not held); it stays
 * as id->event until the id's next call or its end, as rdma-core's
 * ucma_complete(), the one before it acked
 */
int rcm_sync_wait(struct rcm_id *id, enum rdma_cm_event_type want);
/* sync ids: @p ev becomes id->event, the one before it acked (lock held) */
void rcm_sync_keep(struct rcm_id *id, struct rdma_cm_event *ev);

/* The device (rcm_qp.c): ORDK's one device, opened through libibverbs */
struct ibv_context *rcm_device(void);
int rcm_dev_gid(union ibv_gid *gid);
uint8_t rcm_dev_mtu(void);
uint8_t rcm_dev_max_rd(void);
struct ibv_pd *rcm_dev_pd(void);
int rcm_qp_init(struct ibv_qp *qp);
int rcm_qp_init_ud(struct rcm_id *id, struct ibv_qp *qp);
/** A GID a peer may have: an IPv4 device address ::ffff:a.b.c.d, unicast, not loopback. */
bool rcm_gid_ok(const uint8_t *gid);
int rcm_qp_rtr_rts(struct rcm_id *id);
void rcm_qp_err(struct rcm_id *id);
uint32_t rcm_dev_ip(void);
/** ORDK_CM_PEERS: the TCP address that serves device IP @p ip (network order), or @p ip. */
uint32_t rcm_peer_host(uint32_t ip);

#endif /* ORDK_RCM_INTERNAL_H */
