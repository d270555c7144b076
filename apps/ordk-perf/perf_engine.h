/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's engine, shared by its files: the control messages, a side's
 * objects (struct side), the run's context (struct ctx) and a round's figures
 * (struct run).
 *
 * Each side owns a device, a PD, one control QP and the data QPs. Only the
 * control QP's attributes travel over TCP (lib/cm); everything else is said
 * in control messages (SEND/RECV on the control QP): the client's HELLO
 * (test, QPs, sizes), then per size a ROUND / READY, the run, END / END_ACK
 * (the server's count and data check), and QUIT / BYE. So the server follows
 * the client, and the same code drives two processes or one (--loopback:
 * the client's wait loops step the server too).
 *
 * bluesim is software: a side's device only moves while that side polls, so
 * the server polls its device all the time and every wait is time-bounded.
 *
 *   perf_side.c    a side's device, QPs, regions and control channel
 *   perf_server.c  the server: answers the control messages, serves the rounds
 *   perf_client.c  the client's session: HELLO, the rounds, their checks and rows
 *   perf_bw.c      the client's WRs (every test, atomics too) and the BW runs
 *   perf_lat.c     the latency runs
 *   perf_run.c     perf_run(): ports, the attribute exchange, server, client or loopback
 */
#ifndef ORDK_PERF_ENGINE_H
#define ORDK_PERF_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>

#include "ordk_cm.h"
#include "ordk_verbs.h"
#include "perf.h"

#define MSG_MAGIC   0x4F50524Bu /* "OPRK" */
#define MSG_SIZE    512u
#define CTRL_RECVS  8u
/* a peer silent this long is gone: longer than the transport's own retry budget (about
 * 17 s at ACK timeout 14), so a peer that stops answering is reported as RETRY_EXC_ERR */
#define IDLE_S	    30.0
#define PEAK_MAX    (1u << 20) /* messages whose times feed the BW peak */

enum msg_type { MSG_HELLO = 1, MSG_HELLO_ACK, MSG_ROUND, MSG_READY, MSG_END, MSG_END_ACK,
		MSG_QUIT, MSG_BYE, MSG_ERROR, MSG_REPORT, MSG_REPORT_ACK };

/* HELLO's flags: what the server's header and table show */
#define HELLO_GBITS	 1u
#define HELLO_ALL_SIZES	 2u
#define HELLO_NO_PEAK	 4u
#define HELLO_INFINITELY 8u
#define HELLO_LAT_DUR	 16u /* REPORT: a -D latency row */
#define HELLO_DUPLEX	 32u /* -b: the server posts the same WRs towards the client */

struct perf_msg {
	uint32_t magic, type;
	uint32_t test, nqp, atomic, verify;
	uint32_t size, slot, duration;
	uint32_t seed, rkey;
	int32_t status;
	uint64_t iters, count, value, addr;
	uint32_t tx_depth, rx_depth, cq_mod, mtu, inline_size, out_reads, flags;
	union {
		uint32_t qpn[PERF_MAX_QPS];
		double row[10]; /* REPORT: the row the client printed */
	};
	char text[120];
};
_Static_assert(sizeof(struct perf_msg) <= MSG_SIZE, "control message too large");

struct side {
	bool server;
	struct ordk_dev *dev;
	struct ordk_dev_attr at;
	struct ordk_pd *pd;
	struct ordk_cq *cq, *ccq;
	struct ordk_qp *cqp, *qp[PERF_MAX_QPS];
	uint32_t nqp;
	struct ordk_mr *mr, *cmr;
	uint8_t *buf, *cbuf;
	uint32_t slot;
	struct ordk_cm_info me, peer; /* the control QPs' */
	uint64_t raddr;
	uint32_t rkey, rqpn[PERF_MAX_QPS];
	struct perf_msg in;	      /* the last control message */
	uint64_t last_work;	      /* TSC of the last sign of life */
	/* server: the round in progress */
	struct perf_msg round;
	bool in_round, quit, bye_done, failed;
	bool lat_recvs_up; /* client, send_lat: its 16 RECVs (of the run's largest size) posted */
	uint64_t rx_count;
	uint8_t next_val;
	/* server, SEND tests: RECVs on each QP's queue, and posts the QP refused (a round error) */
	uint32_t rq_posted[PERF_MAX_QPS];
	uint64_t recv_refused;
	/* server, -b: its own WRs towards the client, and when they ran */
	uint64_t dx_posted[PERF_MAX_QPS], dx_done[PERF_MAX_QPS], dx_cap[PERF_MAX_QPS];
	uint64_t dx_t0, dx_t1;
	bool dx_ending; /* END came: post no more, reply once every WR completed */
};

struct ctx {
	const struct perf_opts *o;
	bool progress;	     /* a line a second on stderr */
	struct perf_opts so; /* the server's view: its options with the client's test */
	bool refused;	     /* the server said no to the client's HELLO */
	struct side c, s; /* client, server (loopback: both used) */
	struct side *me;
	struct rte_mempool *mp;
	uint64_t hz;
	FILE *hist; /* --histogram: the client's file, a size's samples appended per round */
};

struct run {
	uint32_t size;
	uint64_t msgs;	    /* completed */
	double secs;
	uint64_t *tp, *tc;  /* per message: posted / completed TSC (first PEAK_MAX); latency: posts */
	uint64_t nlat;
	double lat_sum;
	uint64_t peer_msgs; /* -b: the server's own messages, and their seconds */
	double peer_secs;
};

/* ---------------------------------------------------------------- helpers */

static inline uint8_t
perf_pat(uint32_t seed, uint64_t i)
{
	return (uint8_t)(seed + i * 131 + (i >> 9) * 7);
}

static inline void
perf_fill(uint8_t *p, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		p[i] = perf_pat(seed, i);
}

/* @return the first offset that differs from the pattern, or n */
static inline uint64_t
perf_check(const uint8_t *p, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i] != perf_pat(seed, i))
			return i;
	return n;
}

static inline uint8_t
perf_next_val(uint8_t v)
{
	return v == 255 ? 1 : (uint8_t)(v + 1);
}

static inline uint8_t *
perf_region(struct side *s, uint32_t q)
{
	return s->buf + (size_t)q * s->slot;
}

/* perf_region()'s address, for a work request or the peer */
static inline uint64_t
perf_region_addr(const struct side *s, uint32_t q)
{
	return (uint64_t)(uintptr_t)(s->buf + (size_t)q * s->slot);
}

static inline void
perf_progress_work(struct side *s, unsigned int work)
{
	if (work)
		s->last_work = rte_get_tsc_cycles();
}

static inline bool
perf_test_is_send(enum perf_test t)
{
	return t == PERF_SEND_BW || t == PERF_SEND_LAT;
}

static inline bool
perf_duplex_recvs(const struct ctx *x)
{
	return x->o->duplex && x->o->test == PERF_SEND_BW;
}

static inline bool
perf_alive(struct ctx *x)
{
	struct side *c = &x->c;

	if (c->failed || (x->o->loopback && x->s.failed))
		return false;
	return rte_get_tsc_cycles() - c->last_work < (uint64_t)(IDLE_S * (double)x->hz);
}

/* perf_side.c */
void perf_wc_error(const char *where, enum ordk_wc_status st);
int perf_side_open(struct side *s, const char *args, bool server);
int perf_side_data(struct side *s, const struct perf_opts *o, uint32_t nqp, uint32_t slot);
int perf_side_connect(struct side *s, const struct perf_opts *o);
void perf_side_stats(const struct side *s, const char *who);
void perf_side_close(struct side *s);
void perf_side_addrs(const struct perf_opts *o, const struct side *s);
void perf_ctrl_post_recv(struct side *s, uint32_t i);
int perf_ctrl_send(struct side *s, struct perf_msg *m);
int perf_ctrl_poll(struct side *s);

/* perf_server.c */
void perf_server_step(struct ctx *x, struct side *s);

/* perf_client.c */
void perf_pump(struct ctx *x);
int perf_client_call(struct ctx *x, struct perf_msg *m, uint32_t type);
void perf_progress_line(struct ctx *x, const struct run *r, double t0, uint64_t *next);
uint32_t perf_max_size(const struct perf_opts *o);
int perf_client_main(struct ctx *x);

/* perf_bw.c */
int perf_client_recv_again(struct side *c, uint32_t q, uint32_t len);
int perf_client_recv_done(struct ctx *x, const struct ordk_wc *wc);
void perf_client_wr(struct ctx *x, uint32_t q, uint64_t i, struct ordk_send_wr *w);
int perf_client_bw(struct ctx *x, struct run *r);
void perf_bw_row(struct ctx *x, const struct run *r, struct perf_bw *b);

/* perf_lat.c */
int perf_client_lat(struct ctx *x, struct run *r);
int perf_lat_row(struct ctx *x, struct run *r, struct perf_lat *l);

#endif /* ORDK_PERF_ENGINE_H */
