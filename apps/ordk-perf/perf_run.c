/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's engine.
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
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "app_common.h"
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
};

/* ---------------------------------------------------------------- helpers */

static uint8_t
pat(uint32_t seed, uint64_t i)
{
	return (uint8_t)(seed + i * 131 + (i >> 9) * 7);
}

static void
fill(uint8_t *p, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		p[i] = pat(seed, i);
}

/* @return the first offset that differs from the pattern, or n */
static uint64_t
check(const uint8_t *p, uint64_t n, uint32_t seed)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i] != pat(seed, i))
			return i;
	return n;
}

static uint8_t
next_val(uint8_t v)
{
	return v == 255 ? 1 : (uint8_t)(v + 1);
}

static uint8_t *
region(struct side *s, uint32_t q)
{
	return s->buf + (size_t)q * s->slot;
}

static void
progress_work(struct side *s, unsigned int work)
{
	if (work)
		s->last_work = rte_get_tsc_cycles();
}

static bool
is_send(enum perf_test t)
{
	return t == PERF_SEND_BW || t == PERF_SEND_LAT;
}

/* A failed completion, named as ibverbs names it (perftest scripts grep for these). */
static void
wc_error(const char *where, enum ordk_wc_status st)
{
	static const char *const names[ORDK_WC_STATUS_COUNT] = {
		"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
		"BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
		"RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "GENERAL_ERR",
	};

	fprintf(stderr, "ordk-perf: completion with error: %s: %s (%s)\n", where,
		(unsigned int)st < ORDK_WC_STATUS_COUNT ? names[st] : "?", ordk_wc_status_str(st));
}

/* ------------------------------------------------------------ the device */

static int
side_open(struct side *s, const char *args, bool server)
{
	struct ordk_qp_init_attr ia = { .max_send_wr = 16, .max_recv_wr = CTRL_RECVS };

	s->server = server;
	s->dev = ordk_dev_open(args);
	if (s->dev == NULL) {
		fprintf(stderr, "ordk-perf: cannot open device '%s': %s\n", args,
			rte_strerror(rte_errno));
		return -1;
	}
	ordk_dev_query(s->dev, &s->at);
	s->pd = ordk_pd_alloc(s->dev);
	s->ccq = ordk_cq_create(s->dev, 64);
	ia.send_cq = ia.recv_cq = s->ccq;
	s->cqp = s->pd && s->ccq ? ordk_qp_create(s->pd, &ia) : NULL;
	s->cbuf = rte_zmalloc("perf_ctrl", (CTRL_RECVS + 2) * MSG_SIZE, 4096);
	s->cmr = s->cbuf && s->pd ? ordk_mr_reg(s->pd, s->cbuf, (CTRL_RECVS + 2) * MSG_SIZE,
						ORDK_ACCESS_LOCAL_WRITE) : NULL;
	if (s->cqp == NULL || s->cmr == NULL) {
		fprintf(stderr, "ordk-perf: cannot create the control QP: %s\n",
			rte_strerror(rte_errno));
		return -1;
	}
	s->me = (struct ordk_cm_info){ .qpn = ordk_qp_num(s->cqp), .psn = 7, .ip = s->at.ip,
				       .mac = s->at.mac };
	s->last_work = rte_get_tsc_cycles();
	return 0;
}

/* Data QPs, their CQ and the registered regions (one slot per QP). */
static int
side_data(struct side *s, const struct perf_opts *o, uint32_t nqp, uint32_t slot)
{
	uint32_t rx = o->rx_depth > 16 ? o->rx_depth : 16;
	struct ordk_qp_init_attr ia = { .max_send_wr = o->tx_depth + 1, .max_recv_wr = rx };
	size_t len = (size_t)nqp * slot;

	s->nqp = nqp;
	s->slot = slot;
	memset(s->rq_posted, 0, sizeof(s->rq_posted));
	s->cq = ordk_cq_create(s->dev, nqp * (o->tx_depth + 1 + rx) + 64);
	ia.send_cq = ia.recv_cq = s->cq;
	for (uint32_t q = 0; q < nqp && s->cq; q++) {
		s->qp[q] = ordk_qp_create(s->pd, &ia);
		if (s->qp[q] == NULL)
			break;
	}
	s->buf = rte_zmalloc("perf_buf", len, 4096);
	s->mr = s->buf ? ordk_mr_reg(s->pd, s->buf, len, 15) : NULL;
	if (s->cq == NULL || s->qp[nqp - 1] == NULL || s->mr == NULL) {
		fprintf(stderr, "ordk-perf: cannot create %u QPs and %zu bytes of MR: %s\n", nqp, len,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

/* RESET -> INIT -> RTR -> RTS with the run's MTU, ACK timeout (-u) and reads in flight (-o). */
static int
connect_data_qp(struct ordk_qp *qp, const struct ordk_cm_info *peer, const struct perf_opts *o)
{
	static const enum ordk_mtu mtus[] = { [0] = ORDK_MTU_256, [1] = ORDK_MTU_512,
					      [2] = ORDK_MTU_1024, [3] = ORDK_MTU_2048,
					      [4] = ORDK_MTU_4096 };
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = 15 };

	if (ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS) != 0)
		return -1;
	a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTR, .path_mtu = mtus[__builtin_ctz(o->mtu) - 8],
				   .dest_qp_num = peer->qpn, .rq_psn = 0, .dest_ip = peer->ip,
				   .dest_mac = peer->mac, .max_dest_rd_atomic = 16,
				   .min_rnr_timer = 12 };
	if (ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU | ORDK_QP_DEST_QPN |
					   ORDK_QP_RQ_PSN | ORDK_QP_MAX_DEST_RD_ATOMIC |
					   ORDK_QP_MIN_RNR_TIMER) != 0)
		return -1;
	a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS, .sq_psn = 0, .timeout = o->qp_timeout,
				   .retry_cnt = 7, .rnr_retry = 7,
				   .max_rd_atomic = (uint8_t)o->out_reads };
	return ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
					      ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
					      ORDK_QP_MAX_QP_RD_ATOMIC);
}

static int
side_connect(struct side *s, const struct perf_opts *o)
{
	for (uint32_t q = 0; q < s->nqp; q++) {
		struct ordk_cm_info peer = s->peer;

		peer.qpn = s->rqpn[q];
		if (connect_data_qp(s->qp[q], &peer, o) != 0) {
			fprintf(stderr, "ordk-perf: cannot connect data QP %u: %s\n", q,
				rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

static void
side_stats(const struct side *s, const char *who)
{
	struct ordk_stats st;

	if (s->dev == NULL || ordk_dev_stats(s->dev, &st) != 0)
		return;
	fprintf(stderr, "ordk-perf: %s %s counters:\n", who, s->at.name);
	app_print_stats(stderr, &st, false);
	fprintf(stderr, "ordk-perf: %s %s model counters:\n", who, s->at.name);
	app_print_xstats(stderr, s->dev, false);
}

static void
side_close(struct side *s)
{
	for (uint32_t q = 0; q < PERF_MAX_QPS; q++)
		if (s->qp[q])
			ordk_qp_destroy(s->qp[q]);
	if (s->cqp)
		ordk_qp_destroy(s->cqp);
	if (s->mr)
		ordk_mr_dereg(s->mr);
	if (s->cmr)
		ordk_mr_dereg(s->cmr);
	if (s->cq)
		ordk_cq_destroy(s->cq);
	if (s->ccq)
		ordk_cq_destroy(s->ccq);
	if (s->pd)
		ordk_pd_free(s->pd);
	if (s->dev)
		ordk_dev_close(s->dev);
	rte_free(s->buf);
	rte_free(s->cbuf);
}

/* ------------------------------------------------------- control channel */

static void
ctrl_post_recv(struct side *s, uint32_t i)
{
	struct ordk_recv_wr r = { .wr_id = i, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)(s->cbuf + (size_t)i * MSG_SIZE), MSG_SIZE,
				   s->cmr->lkey };
	ordk_qp_post_recv(s->cqp, &r, 1);
}

static int
ctrl_send(struct side *s, struct perf_msg *m)
{
	struct ordk_send_wr w = { .wr_id = UINT64_MAX, .opcode = ORDK_WR_SEND, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };
	uint8_t *slot = s->cbuf + (size_t)CTRL_RECVS * MSG_SIZE;

	m->magic = MSG_MAGIC;
	memcpy(slot, m, sizeof(*m));
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)slot, sizeof(*m), s->cmr->lkey };
	return ordk_qp_post_send(s->cqp, &w, 1) == 1 ? 0 : -1;
}

/* Poll the control CQ: a received message lands in s->in. @return 1 on a message. */
static int
ctrl_poll(struct side *s)
{
	struct ordk_wc wc[4];
	int n = ordk_cq_poll(s->ccq, wc, 4), got = 0;

	for (int i = 0; i < n; i++) {
		if (wc[i].status != ORDK_WC_SUCCESS) {
			if (!s->failed) /* the first: the flushes after it say nothing new */
				wc_error("control QP", wc[i].status);
			s->failed = true;
			continue;
		}
		s->last_work = rte_get_tsc_cycles();
		if (wc[i].opcode == ORDK_WC_SEND) {
			if (s->quit)
				s->bye_done = true;
			continue;
		}
		memcpy(&s->in, s->cbuf + wc[i].wr_id * MSG_SIZE, sizeof(s->in));
		ctrl_post_recv(s, (uint32_t)wc[i].wr_id);
		if (s->in.magic != MSG_MAGIC || wc[i].byte_len != sizeof(s->in)) {
			fprintf(stderr, "ordk-perf: a control message that is not ORDK's (%u bytes)\n",
				wc[i].byte_len);
			s->failed = true;
			continue;
		}
		got = 1;
	}
	return got;
}

/* ------------------------------------------------------------ the server */

static void
server_reply(struct side *s, uint32_t type, int32_t status, uint64_t value, const char *text)
{
	struct perf_msg m = { .type = type, .status = status, .value = value,
			      .count = s->rx_count };

	snprintf(m.text, sizeof(m.text), "%.119s", text ? text : "");
	if (type == MSG_END_ACK && s->dx_t1 > s->dx_t0) { /* -b: the server's own messages */
		for (uint32_t q = 0; q < s->nqp; q++)
			m.iters += s->dx_done[q];
		m.row[0] = (double)(s->dx_t1 - s->dx_t0) / (double)rte_get_tsc_hz();
	}
	if (type == MSG_HELLO_ACK) {
		m.addr = (uint64_t)(uintptr_t)s->buf;
		m.rkey = s->mr->rkey;
		m.nqp = s->nqp;
		for (uint32_t q = 0; q < s->nqp; q++)
			m.qpn[q] = ordk_qp_num(s->qp[q]);
	}
	if (ctrl_send(s, &m) != 0)
		s->failed = true;
}

/*
 * The server's RECVs for QP @p q: the first half of its slot, room for the
 * largest size of the run, so RECVs left from a round of smaller messages
 * (-a) take the next round's without a length error.
 */
static void
server_post_recv(struct side *s, uint32_t q)
{
	struct ordk_recv_wr r = { .wr_id = q, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)region(s, q), s->slot / 2, s->mr->lkey };
	if (ordk_qp_post_recv(s->qp[q], &r, 1) == 1)
		s->rq_posted[q]++;
	else
		s->recv_refused++;
}

/* A RECV of QP wc->wr_id completed (or was flushed): one fewer on its queue. */
static void
server_recv_retired(struct side *s, const struct ordk_wc *wc)
{
	uint32_t q = (uint32_t)wc->wr_id;

	if (q < s->nqp && s->rq_posted[q] > 0)
		s->rq_posted[q]--;
}

/* Every QP's receive queue filled to @p n (its size): what earlier rounds left counts. */
static void
server_post_recvs(struct side *s, uint32_t n)
{
	for (uint32_t q = 0; q < s->nqp; q++)
		while (s->rq_posted[q] < n) {
			uint64_t refused = s->recv_refused;

			server_post_recv(s, q);
			if (s->recv_refused != refused)
				break;
		}
}

/* The local addresses of every QP, then the remote ones (perftest's order). */
static void
print_addrs(const struct perf_opts *o, const struct side *s)
{
	for (int remote = 0; remote < 2; remote++)
		for (uint32_t q = 0; q < s->nqp; q++) {
			struct perf_addr a = { .qpn = ordk_qp_num(s->qp[q]), .rkey = s->mr->rkey,
					       .vaddr = (uint64_t)(uintptr_t)region((struct side *)s, q),
					       .ip = s->at.ip };

			if (remote)
				a = (struct perf_addr){ .qpn = s->rqpn[q], .rkey = s->rkey,
							.vaddr = s->raddr + (uint64_t)q * s->slot,
							.ip = s->peer.ip };
			perf_print_addr(stdout, remote ? "remote" : "local", o, &a);
		}
}

/* The server's options: its own, with the test the client asked for. */
static void
server_view(struct ctx *x, const struct perf_msg *m)
{
	struct perf_opts *so = &x->so;

	*so = *x->o;
	so->qps = m->nqp;
	so->tx_depth = m->tx_depth;
	so->rx_depth = m->rx_depth;
	so->cq_mod = m->cq_mod;
	so->mtu = m->mtu;
	so->inline_size = m->inline_size;
	so->out_reads = m->out_reads;
	so->atomic = (enum perf_atomic)m->atomic;
	so->size = m->size;
	so->duration = m->duration;
	so->report_gbits = m->flags & HELLO_GBITS;
	so->all_sizes = m->flags & HELLO_ALL_SIZES;
	so->no_peak = m->flags & HELLO_NO_PEAK;
	so->run_infinitely = m->flags & HELLO_INFINITELY;
	so->duplex = m->flags & HELLO_DUPLEX;
	so->cq_mod_set = true; /* the client's value, already adjusted */
}

static void
server_hello(struct ctx *x, struct side *s)
{
	const struct perf_msg *m = &s->in;
	struct perf_opts o;

	if (m->test != x->o->test) {
		char t[160];

		snprintf(t, sizeof(t), "the server runs %s, the client %s", perf_test_name(x->o->test),
			 perf_test_name((enum perf_test)m->test));
		fprintf(stderr, "ordk-perf: %s\n", t);
		server_reply(s, MSG_ERROR, -EINVAL, 0, t);
		x->refused = true;
		return;
	}
	if (m->nqp == 0 || m->nqp > PERF_MAX_QPS || m->slot == 0 || m->slot > PERF_MAX_MR + 8192u ||
	    m->tx_depth == 0 || m->tx_depth > 4096 || m->rx_depth > 4096 || m->out_reads == 0 ||
	    m->out_reads > 16 || m->mtu < 256 || m->mtu > 4096 || (m->mtu & (m->mtu - 1))) {
		server_reply(s, MSG_ERROR, -EINVAL, 0, "bad HELLO");
		x->refused = true;
		return;
	}
	server_view(x, m);
	o = x->so;
	o.tx_depth = o.tx_depth > 16 ? o.tx_depth : 16; /* the server's own sends: replies */
	for (uint32_t q = 0; q < m->nqp; q++)
		s->rqpn[q] = m->qpn[q];
	if (side_data(s, &o, m->nqp, m->slot) != 0 || side_connect(s, &o) != 0) {
		server_reply(s, MSG_ERROR, -ENOMEM, 0, "the server cannot make its QPs or MR");
		x->refused = true;
		return;
	}
	s->raddr = m->addr;
	s->rkey = m->rkey;
	server_reply(s, MSG_HELLO_ACK, 0, 0, NULL);
	if (!x->o->loopback) { /* perftest's server shows the header, the addresses, the table */
		struct perf_hdr h = { .device = s->at.name, .server = true };

		perf_print_warnings(stdout, &x->so, true);
		perf_print_header(stdout, &x->so, &h);
		print_addrs(&x->so, s);
		if (perf_test_is_bw(x->so.test))
			perf_print_bw_head(stdout, &x->so);
		else
			perf_print_lat_head(stdout, &x->so);
		fflush(stdout);
	}
}

/* The client's row, shown by the server too (perftest's server prints the table). */
static void
server_report(struct ctx *x, struct side *s)
{
	const struct perf_msg *m = &s->in;
	struct perf_hdr h = { .device = s->at.name, .server = true };
	struct perf_opts *so = &x->so;

	if (perf_test_is_bw(so->test)) {
		struct perf_bw b = { .bytes = m->size, .iters = m->iters, .peak_mib = m->row[0],
				     .avg_mib = m->row[1], .mpps = m->row[2],
				     .peak_valid = m->row[0] > 0 && !is_send(so->test) };

		perf_print_bw_row(stdout, so, &b);
		if (so->out_json)
			perf_json_bw(so, &h, &b);
	} else {
		struct perf_lat l = { .bytes = m->size, .iters = m->iters, .t_min = m->row[0],
				      .t_max = m->row[1], .t_typical = m->row[2], .t_avg = m->row[3],
				      .t_stdev = m->row[4], .p99 = m->row[5], .p999 = m->row[6],
				      .tps = m->row[7] };
		struct perf_opts lo = *so;

		lo.duration = m->flags & HELLO_LAT_DUR ? 1 : 0;
		perf_print_lat_row(stdout, &lo, &l);
		if (so->out_json)
			perf_json_lat(&lo, &h, &l);
	}
	fflush(stdout);
	server_reply(s, MSG_REPORT_ACK, 0, 0, NULL);
}

static void
server_round(struct ctx *x, struct side *s)
{
	const struct perf_msg *m = &s->in;

	if (m->size == 0 || m->size > s->slot) {
		server_reply(s, MSG_ERROR, -EINVAL, 0, "size beyond the server's MR");
		return;
	}
	s->round = *m;
	s->rx_count = 0;
	s->next_val = 1;
	memset(s->dx_posted, 0, sizeof(s->dx_posted));
	memset(s->dx_done, 0, sizeof(s->dx_done));
	s->dx_t0 = rte_get_tsc_cycles();
	s->dx_t1 = 0;
	s->dx_ending = false;
	for (uint32_t q = 0; q < s->nqp; q++) {
		uint8_t *r = region(s, q);

		if (m->test == PERF_READ_BW || m->test == PERF_READ_LAT)
			fill(r, m->size, m->seed);
		else
			memset(r, 0, m->size);
		if (m->test == PERF_WRITE_LAT) /* the echo's source */
			fill(r + s->slot / 2, m->size, m->seed);
	}
	if (is_send((enum perf_test)m->test))
		server_post_recvs(s, x->so.rx_depth > 16 ? x->so.rx_depth : 16);
	s->in_round = true;
	server_reply(s, MSG_READY, 0, 0, NULL);
}

/* The data check and the figure the client cannot see itself. */
static void
server_end(struct side *s)
{
	const struct perf_msg *r = &s->round;
	enum perf_test t = (enum perf_test)r->test;
	double until = ordk_env_now_s() + IDLE_S;
	uint64_t value = 0;
	char text[120] = "";
	int32_t status = 0;

	if (t == PERF_SEND_BW || t == PERF_SEND_LAT) /* the last SENDs may still be arriving */
		while (s->rx_count < s->in.count && ordk_env_now_s() < until) {
			struct ordk_wc wc[32];
			int n = ordk_cq_poll(s->cq, wc, 32);

			for (int i = 0; i < n; i++)
				if (wc[i].opcode >= ORDK_WC_RECV) {
					server_recv_retired(s, &wc[i]);
					s->rx_count += wc[i].status == ORDK_WC_SUCCESS;
				}
		}
	if (is_send(t) && s->rx_count != s->in.count) {
		status = -EIO;
		snprintf(text, sizeof(text), "the server received %" PRIu64 " SENDs of %" PRIu64,
			 s->rx_count, s->in.count);
	}
	if (s->recv_refused != 0 && status == 0) {
		status = -ENOSPC;
		snprintf(text, sizeof(text), "the server's QPs refused %" PRIu64 " RECVs (queue full)",
			 s->recv_refused);
	}
	s->recv_refused = 0;
	if (t == PERF_ATOMIC_BW || t == PERF_ATOMIC_LAT) {
		value = *(volatile uint64_t *)region(s, 0);
		for (uint32_t q = 1; q < s->nqp; q++)
			value += *(volatile uint64_t *)region(s, q);
	}
	if (r->verify && status == 0 &&
	    (t == PERF_WRITE_BW || t == PERF_WRITE_LAT || is_send(t)))
		for (uint32_t q = 0; q < s->nqp && status == 0; q++) {
			/* write_lat: the last byte carries the ping-pong counter */
			uint64_t n = t == PERF_WRITE_LAT ? r->size - 1 : r->size;
			uint64_t at = check(region(s, q), n, r->seed);

			if ((t == PERF_SEND_LAT || t == PERF_SEND_BW || t == PERF_WRITE_BW ||
			     q == 0) && at != n) {
				status = -EILSEQ;
				snprintf(text, sizeof(text),
					 "data check: QP %u, byte %" PRIu64 " of %u differs", q, at,
					 r->size);
			}
			if (t == PERF_WRITE_LAT || t == PERF_SEND_LAT)
				break;
		}
	s->in_round = false;
	server_reply(s, MSG_END_ACK, status, value, text);
}

/* Latency ping-pong: answer what arrived. */
static void
server_pong(struct side *s)
{
	const struct perf_msg *r = &s->round;
	struct ordk_wc wc[16];
	int n;

	if (r->test == PERF_WRITE_LAT) {
		volatile uint8_t *flag = region(s, 0) + r->size - 1;

		if (*flag == s->next_val) {
			struct ordk_send_wr w = { .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
						  .send_flags = ORDK_SEND_SIGNALED };

			region(s, 0)[s->slot / 2 + r->size - 1] = s->next_val;
			w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)region(s, 0) + s->slot / 2,
						   r->size, s->mr->lkey };
			w.rdma.remote_addr = s->raddr;
			w.rdma.rkey = s->rkey;
			if (ordk_qp_post_send(s->qp[0], &w, 1) == 1) {
				s->next_val = next_val(s->next_val);
				s->rx_count++;
			}
		}
	}
	n = ordk_cq_poll(s->cq, wc, 16);
	for (int i = 0; i < n; i++) {
		if (wc[i].opcode >= ORDK_WC_RECV)
			server_recv_retired(s, &wc[i]);
		if (wc[i].status != ORDK_WC_SUCCESS) {
			if (!s->failed)
				wc_error("server", wc[i].status);
			s->failed = true;
			continue;
		}
		s->last_work = rte_get_tsc_cycles();
		if (wc[i].opcode < ORDK_WC_RECV && r->flags & HELLO_DUPLEX) {
			uint32_t q = (uint32_t)(wc[i].wr_id >> 40);
			uint64_t upto = (wc[i].wr_id & ((1ull << 40) - 1)) + 1;

			if (q < s->nqp && upto > s->dx_done[q])
				s->dx_done[q] = upto;
		}
		if (wc[i].opcode < ORDK_WC_RECV)
			continue;
		s->rx_count++;
		{
			uint32_t q = (uint32_t)wc[i].wr_id;

			if (q < s->nqp)
				server_post_recv(s, q);
			if (wc[i].byte_len != r->size) {
				fprintf(stderr, "ordk-perf: server: a SEND of %u bytes, %u expected\n",
					wc[i].byte_len, r->size);
				s->failed = true;
			}
		}
		if (r->test == PERF_SEND_LAT) {
			struct ordk_send_wr w = { .opcode = ORDK_WR_SEND, .num_sge = 1,
						  .send_flags = ORDK_SEND_SIGNALED };

			w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)region(s, 0), r->size,
						   s->mr->lkey };
			ordk_qp_post_send(s->qp[0], &w, 1);
		}
	}
}

/* -b: the server's WR towards the client (every BW test), from its region @p q. */
static void
server_wr(const struct ctx *x, struct side *s, uint32_t q, uint64_t i, struct ordk_send_wr *w)
{
	const struct perf_msg *r = &s->round;
	uint64_t laddr = (uint64_t)(uintptr_t)region(s, q);

	*w = (struct ordk_send_wr){ .wr_id = ((uint64_t)q << 40) | i, .num_sge = 1 };
	if (r->test == PERF_WRITE_BW)
		w->opcode = ORDK_WR_RDMA_WRITE;
	else if (r->test == PERF_SEND_BW) /* into the client's RECVs (client_recv_again()) */
		w->opcode = ORDK_WR_SEND;
	else if (r->test == PERF_READ_BW)
		w->opcode = ORDK_WR_RDMA_READ; /* into its region: -b has no --verify */
	else {
		bool cas = x->so.atomic == PERF_CMP_AND_SWP;

		w->opcode = cas ? ORDK_WR_ATOMIC_CMP_AND_SWP : ORDK_WR_ATOMIC_FETCH_AND_ADD;
		laddr += s->slot / 2 + (i % x->so.tx_depth) * 8;
		w->atomic.compare_add = cas ? i : 1;
		w->atomic.swap = i + 1;
	}
	w->sge = (struct ordk_sge){ laddr, r->size, s->mr->lkey };
	w->rdma.remote_addr = s->raddr + (uint64_t)q * s->slot;
	w->rdma.rkey = s->rkey;
}

/*
 * -b (perftest's duplex): the server keeps tx_depth WRs in flight on every
 * QP too, -n of them (or until END in -D runs, its last one signaled), and
 * answers END once all completed, with its count and time.
 */
static void
server_duplex(struct ctx *x, struct side *s)
{
	const struct perf_opts *so = &x->so;
	const struct perf_msg *r = &s->round;
	bool all = true;

	for (uint32_t q = 0; q < s->nqp; q++) {
		uint64_t *posted = &s->dx_posted[q], cap = r->iters;

		if (r->duration && !s->dx_ending)
			cap = UINT64_MAX;
		else if (r->duration) /* END came: one more WR if the last was not signaled */
			cap = s->dx_cap[q];
		while (*posted < cap && *posted - s->dx_done[q] < so->tx_depth) {
			struct ordk_send_wr w;

			server_wr(x, s, q, *posted, &w);
			if ((*posted + 1) % so->cq_mod == 0 || *posted + 1 == cap)
				w.send_flags = ORDK_SEND_SIGNALED;
			if (ordk_qp_post_send(s->qp[q], &w, 1) != 1)
				break;
			(*posted)++;
		}
		if (s->dx_done[q] < *posted || *posted < cap)
			all = false;
	}
	if (all && s->dx_t1 == 0)
		s->dx_t1 = rte_get_tsc_cycles();
	if (all && s->dx_ending) {
		s->dx_ending = false;
		server_end(s);
	}
}

/* One step of the server: poll, answer control messages, serve the round. */
static void
server_step(struct ctx *x, struct side *s)
{
	progress_work(s, ordk_dev_poll(s->dev, 64));
	if (ctrl_poll(s)) {
		switch (s->in.type) {
		case MSG_HELLO:
			server_hello(x, s);
			break;
		case MSG_ROUND:
			server_round(x, s);
			break;
		case MSG_REPORT:
			server_report(x, s);
			break;
		case MSG_END:
			if (s->round.flags & HELLO_DUPLEX) { /* server_duplex() replies when drained */
				for (uint32_t q = 0; q < s->nqp; q++)
					s->dx_cap[q] = s->dx_posted[q] +
						       (s->dx_posted[q] % x->so.cq_mod != 0);
				s->dx_ending = true;
			} else
				server_end(s);
			break;
		case MSG_QUIT:
			s->quit = true;
			if (!x->o->loopback && !x->refused && s->nqp && x->so.output == PERF_OUT_FULL)
				perf_print_rule(stdout);
			server_reply(s, MSG_BYE, 0, 0, NULL);
			break;
		default:
			fprintf(stderr, "ordk-perf: server: unexpected control message %u\n",
				s->in.type);
			s->failed = true;
		}
	}
	if (s->in_round && s->cq != NULL && s->round.flags & HELLO_DUPLEX)
		server_duplex(x, s);
	if (s->in_round && s->cq != NULL)
		server_pong(s);
}

/* ------------------------------------------------------------ the client */

/*
 * send_bw -b: the client receives the server's SENDs too (perftest's duplex:
 * both sides send and receive). RECVs of the largest size of the run sit in
 * each QP's region (the data is not checked with -b), one posted again for
 * each that completes.
 */
static uint32_t max_size(const struct perf_opts *o);

static bool
duplex_recvs(const struct ctx *x)
{
	return x->o->duplex && x->o->test == PERF_SEND_BW;
}

static int
client_recv_again(struct side *c, uint32_t q, uint32_t len)
{
	struct ordk_recv_wr rr = { .wr_id = q, .num_sge = 1 };

	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)region(c, q), len, c->mr->lkey };
	return ordk_qp_post_recv(c->qp[q], &rr, 1) == 1 ? 0 : -1;
}

/* Post @p wc's RECV again; @return -1 on a failed completion (reported) or post. */
static int
client_recv_done(struct ctx *x, const struct ordk_wc *wc)
{
	struct side *c = &x->c;
	uint32_t q = (uint32_t)wc->wr_id;

	if (wc->status != ORDK_WC_SUCCESS) {
		wc_error("send_bw -b, receive", wc->status);
		c->failed = true;
		return -1;
	}
	c->rx_count++;
	c->last_work = rte_get_tsc_cycles();
	if (q >= c->nqp || client_recv_again(c, q, max_size(x->o)) != 0) {
		fprintf(stderr, "ordk-perf: send_bw -b: cannot post a RECV again\n");
		c->failed = true;
		return -1;
	}
	return 0;
}

/*
 * Keep everything moving: this side's device and, in loopback, the server.
 * The client's idle clock counts completions and messages only: its device's
 * own work (retransmissions to a peer that is gone) is no sign of life.
 */
static void
pump(struct ctx *x)
{
	ordk_dev_poll(x->c.dev, 64);
	if (duplex_recvs(x)) { /* between the client's own sends the server's still arrive */
		struct ordk_wc wc[16];
		int n = ordk_cq_poll(x->c.cq, wc, 16);

		for (int i = 0; i < n; i++)
			if (wc[i].opcode >= ORDK_WC_RECV)
				client_recv_done(x, &wc[i]);
	}
	if (x->o->loopback)
		server_step(x, &x->s);
}

static bool
alive(struct ctx *x)
{
	struct side *c = &x->c;

	if (c->failed || (x->o->loopback && x->s.failed))
		return false;
	return rte_get_tsc_cycles() - c->last_work < (uint64_t)(IDLE_S * (double)x->hz);
}

/* Send @p m and wait for the answer of @p type (ERROR ends the run). */
static int
client_call(struct ctx *x, struct perf_msg *m, uint32_t type)
{
	struct side *c = &x->c;

	if (ctrl_send(c, m) != 0) {
		fprintf(stderr, "ordk-perf: cannot post a control message\n");
		return -1;
	}
	c->last_work = rte_get_tsc_cycles();
	while (alive(x)) {
		pump(x);
		if (!ctrl_poll(c))
			continue;
		if (c->in.type == type)
			return 0;
		fprintf(stderr, "ordk-perf: the server says: %s\n",
			c->in.text[0] ? c->in.text : "unexpected answer");
		return -1;
	}
	if (!c->failed && !(x->o->loopback && x->s.failed))
		fprintf(stderr, "ordk-perf: no answer from the server within %.0f s\n", IDLE_S);
	return -1;
}

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

/* A line a second on stderr; @p next is a TSC deadline (no clock math per call). */
static void
progress_line(struct ctx *x, const struct run *r, double t0, uint64_t *next)
{
	double now;

	if (!x->progress || rte_get_tsc_cycles() < *next)
		return;
	*next = rte_get_tsc_cycles() + x->hz;
	now = ordk_env_now_s();
	if (perf_test_is_bw(x->o->test))
		fprintf(stderr, "ordk-perf: %s %u B: %" PRIu64 " messages, %.2f MiB/sec\n",
			perf_test_name(x->o->test), r->size, r->msgs,
			(double)r->msgs * r->size / (now - t0) / 1048576.0);
	else
		fprintf(stderr, "ordk-perf: %s %u B: %" PRIu64 " iterations, t_avg %.2f usec\n",
			perf_test_name(x->o->test), r->size, r->nlat,
			r->nlat ? r->lat_sum / (double)r->nlat : 0.0);
}

/*
 * -I: the card has no inline sends, so a payload up to the inline size is
 * copied when posted into the WR's own staging area (the slot's second half,
 * one inline_size piece per WR in flight); the source may change at once.
 */
static uint64_t
stage_inline(struct ctx *x, uint32_t q, uint64_t i, uint64_t laddr, uint32_t size)
{
	struct side *c = &x->c;
	uint8_t *stage;

	if (size > x->o->inline_size)
		return laddr;
	stage = region(c, q) + c->slot / 2 + (i % x->o->tx_depth) * x->o->inline_size;
	memcpy(stage, (const void *)(uintptr_t)laddr, size);
	return (uint64_t)(uintptr_t)stage;
}

static void
make_wr(struct ctx *x, uint32_t q, uint64_t i, struct ordk_send_wr *w)
{
	struct side *c = &x->c;
	uint32_t size = c->in.size;
	uint64_t laddr = (uint64_t)(uintptr_t)region(c, q), raddr = c->raddr + (uint64_t)q * c->slot;

	*w = (struct ordk_send_wr){ .wr_id = ((uint64_t)q << 40) | i, .num_sge = 1 };
	switch (x->o->test) {
	case PERF_WRITE_LAT:
		laddr += c->slot / 2; /* the echo lands at the slot's start */
		/* fall through */
	case PERF_WRITE_BW:
		w->opcode = ORDK_WR_RDMA_WRITE;
		laddr = stage_inline(x, q, i, laddr, size);
		break;
	case PERF_READ_BW:
	case PERF_READ_LAT:
		w->opcode = ORDK_WR_RDMA_READ;
		break;
	case PERF_SEND_BW:
	case PERF_SEND_LAT:
		w->opcode = ORDK_WR_SEND;
		laddr = stage_inline(x, q, i, laddr, size);
		break;
	default:
		w->opcode = x->o->atomic == PERF_CMP_AND_SWP ? ORDK_WR_ATOMIC_CMP_AND_SWP :
							       ORDK_WR_ATOMIC_FETCH_AND_ADD;
		/* results land in the slot's second half, 8 bytes per WR in flight */
		laddr += c->slot / 2 + (i % x->o->tx_depth) * 8;
		w->atomic.compare_add = x->o->atomic == PERF_CMP_AND_SWP ? i : 1;
		w->atomic.swap = i + 1;
		break;
	}
	w->sge = (struct ordk_sge){ laddr, size, c->mr->lkey };
	w->rdma.remote_addr = raddr;
	w->rdma.rkey = c->rkey;
}


/* BW: keep tx_depth WRs in flight on every QP, a completion every cq_mod. */
static int
client_bw(struct ctx *x, struct run *r)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	uint64_t posted[PERF_MAX_QPS] = { 0 }, done[PERF_MAX_QPS] = { 0 }, np = 0, nc = 0;
	bool final[PERF_MAX_QPS] = { false }, timeup = false;
	double t0 = ordk_env_now_s(), stop = t0 + o->duration;
	uint64_t next = rte_get_tsc_cycles() + x->hz;
	struct ordk_wc wc[64];

	for (;;) {
		bool all = true;

		if (o->duration && !timeup && ordk_env_now_s() >= stop) {
			/* each QP's last WR must be signaled, or its tail never completes */
			timeup = true;
			for (uint32_t q = 0; q < c->nqp; q++)
				final[q] = posted[q] % o->cq_mod != 0;
		}
		for (uint32_t q = 0; q < c->nqp; q++) {
			uint64_t cap = o->duration ? (timeup ? posted[q] + final[q] : UINT64_MAX) :
						     o->iters;

			while (posted[q] < cap && posted[q] - done[q] < o->tx_depth) {
				struct ordk_send_wr w;

				make_wr(x, q, posted[q], &w);
				if ((posted[q] + 1) % o->cq_mod == 0 || posted[q] + 1 == cap)
					w.send_flags = ORDK_SEND_SIGNALED;
				if (np < PEAK_MAX && r->tp)
					r->tp[np] = rte_get_tsc_cycles();
				if (ordk_qp_post_send(c->qp[q], &w, 1) != 1)
					break;
				posted[q]++;
				np++;
				final[q] = false;
			}
			if (done[q] < posted[q] || posted[q] < cap)
				all = false;
		}
		if (all)
			break;
		int n = ordk_cq_poll(c->cq, wc, 64);
		uint64_t now = rte_get_tsc_cycles();

		if (n > 0)
			c->last_work = now;
		for (int i = 0; i < n; i++) {
			uint32_t q = (uint32_t)(wc[i].wr_id >> 40);
			uint64_t upto = (wc[i].wr_id & ((1ull << 40) - 1)) + 1;

			if (wc[i].opcode >= ORDK_WC_RECV) { /* send_bw -b: the server's SENDs */
				if (client_recv_done(x, &wc[i]) != 0)
					return -1;
				continue;
			}
			if (wc[i].status != ORDK_WC_SUCCESS) {
				char where[64];

				snprintf(where, sizeof(where), "%s, QP %u", perf_test_name(o->test), q);
				wc_error(where, wc[i].status);
				c->failed = true;
				return -1;
			}
			if (q >= c->nqp || upto <= done[q])
				continue;
			for (uint64_t k = done[q]; k < upto; k++, nc++)
				if (nc < PEAK_MAX && r->tc)
					r->tc[nc] = now;
			done[q] = upto;
		}
		r->msgs = nc;
		if (o->loopback)
			server_step(x, &x->s);
		progress_line(x, r, t0, &next);
		if (!alive(x)) {
			fprintf(stderr, "ordk-perf: %s stalled: %" PRIu64 " of %" PRIu64
					" messages completed\n", perf_test_name(o->test), nc, np);
			return -1;
		}
	}
	r->secs = ordk_env_now_s() - t0;
	r->msgs = nc;
	return 0;
}

/*
 * Wait for @p sends completions of our own WRs and @p recvs receive
 * completions on the data CQ; *@p t_recv is when the last receive arrived.
 */
static int
wait_wcs(struct ctx *x, int sends, int recvs, uint64_t *t_recv)
{
	struct side *c = &x->c;
	struct ordk_wc wc[4];

	while (alive(x)) {
		int n = ordk_cq_poll(c->cq, wc, 4);

		for (int i = 0; i < n; i++) {
			c->last_work = rte_get_tsc_cycles();
			if (wc[i].status != ORDK_WC_SUCCESS) {
				wc_error(perf_test_name(x->o->test), wc[i].status);
				c->failed = true;
				return -1;
			}
			if (wc[i].opcode >= ORDK_WC_RECV) {
				recvs--;
				if (t_recv)
					*t_recv = c->last_work;
			} else
				sends--;
		}
		if (sends <= 0 && recvs <= 0)
			return 0;
		if (x->o->loopback)
			server_step(x, &x->s);
	}
	if (!c->failed)
		fprintf(stderr, "ordk-perf: %s: no completion within %.0f s\n", perf_test_name(x->o->test),
		IDLE_S);
	return -1;
}

static void
post_lat_recv(struct side *c, uint32_t size)
{
	struct ordk_recv_wr rr = { .num_sge = 1 };

	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)region(c, 0) + c->slot / 2, size,
				    c->mr->lkey };
	ordk_qp_post_recv(c->qp[0], &rr, 1);
}

/*
 * Latency, one WR in flight. write_lat and send_lat are ping-pongs
 * (latency = RTT/2, as perftest); read_lat and atomic_lat time the WR.
 */
static int
client_lat(struct ctx *x, struct run *r)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	uint32_t size = c->in.size;
	double t0 = ordk_env_now_s(), hz = (double)x->hz;
	uint64_t next = rte_get_tsc_cycles() + x->hz;
	volatile uint8_t *flag = region(c, 0) + size - 1;
	uint8_t val = 1;

	if (o->test == PERF_SEND_LAT)
		for (uint32_t i = 0; i < 16; i++)
			post_lat_recv(c, size);
	for (uint64_t it = 0; o->duration ? ordk_env_now_s() < t0 + o->duration : it < o->iters;
	     it++) {
		struct ordk_send_wr w;
		uint64_t s0 = rte_get_tsc_cycles(), s1 = s0;
		double us;

		if (r->tp != NULL && it < o->iters)
			r->tp[it] = s0; /* perftest's tposted: the deltas of posts are the samples */

		make_wr(x, 0, it, &w);
		w.send_flags = ORDK_SEND_SIGNALED;
		if (o->test == PERF_WRITE_LAT)
			region(c, 0)[c->slot / 2 + size - 1] = val;
		if (ordk_qp_post_send(c->qp[0], &w, 1) != 1) {
			fprintf(stderr, "ordk-perf: post_send failed\n");
			return -1;
		}
		if (o->test == PERF_WRITE_LAT) {
			while (*flag != val && alive(x))
				pump(x);
			s1 = rte_get_tsc_cycles();
			if (*flag != val || wait_wcs(x, 1, 0, NULL) != 0) {
				fprintf(stderr, "ordk-perf: write_lat: no echo at iteration %" PRIu64 "\n",
					it);
				return -1;
			}
		} else if (o->test == PERF_SEND_LAT) {
			if (wait_wcs(x, 1, 1, &s1) != 0)
				return -1;
			post_lat_recv(c, size);
		} else {
			if (wait_wcs(x, 1, 0, NULL) != 0)
				return -1;
			s1 = rte_get_tsc_cycles();
		}
		us = (double)(s1 - s0) / hz * 1e6;
		if (o->test == PERF_WRITE_LAT || o->test == PERF_SEND_LAT)
			us /= 2;
		r->nlat++;
		r->lat_sum += us;
		val = next_val(val);
		progress_line(x, r, t0, &next);
	}
	r->secs = ordk_env_now_s() - t0;
	r->msgs = r->nlat;
	return 0;
}

static void
client_prep(struct ctx *x, uint32_t size, uint32_t seed)
{
	struct side *c = &x->c;

	for (uint32_t q = 0; q < c->nqp; q++) {
		uint8_t *r = region(c, q);

		switch (x->o->test) {
		case PERF_WRITE_LAT:
			fill(r + c->slot / 2, size, seed);
			memset(r, 0, size);
			break;
		case PERF_READ_BW:
		case PERF_READ_LAT:
			memset(r, 0, size);
			break;
		case PERF_ATOMIC_BW:
		case PERF_ATOMIC_LAT:
			break;
		default:
			fill(r, size, seed);
			break;
		}
	}
}

/* The client's own data check after a round: @return 0 or -1 (message printed). */
static int
client_check(struct ctx *x, const struct run *r, uint32_t seed, uint64_t server_value)
{
	struct side *c = &x->c;
	enum perf_test t = x->o->test;
	uint64_t n, at;

	if (t == PERF_ATOMIC_BW || t == PERF_ATOMIC_LAT) {
		/* every FETCH_AND_ADD added 1; every CMP_AND_SWP (compare i, swap i + 1) hit */
		if (server_value != r->msgs) {
			fprintf(stderr, "ordk-perf: atomics: the target words sum to %" PRIu64
					", %" PRIu64 " expected\n", server_value, r->msgs);
			return -1;
		}
		return 0;
	}
	if (t != PERF_READ_BW && t != PERF_READ_LAT && t != PERF_WRITE_LAT)
		return 0;
	for (uint32_t q = 0; q < c->nqp; q++) {
		n = t == PERF_WRITE_LAT ? r->size - 1 : r->size;
		at = check(region(c, q), n, seed);
		if (at != n) {
			fprintf(stderr, "ordk-perf: data check: QP %u, byte %" PRIu64 " of %u differs\n",
				q, at, r->size);
			return -1;
		}
	}
	return 0;
}

/* The BW row of a round. */
static void
bw_row(struct ctx *x, const struct run *r, struct perf_bw *b)
{
	const struct perf_opts *o = x->o;
	uint64_t n = r->msgs < PEAK_MAX ? r->msgs : PEAK_MAX;
	bool peak = r->tp && !o->no_peak && !o->duplex; /* -b: no peak, as the warning says */
	double spm = peak ? perf_peak_spm(r->tp, r->tc, n, (double)x->hz) : 0;

	*b = (struct perf_bw){ .bytes = r->size, .iters = o->duration ? r->msgs : o->iters,
			       .avg_mib = (double)r->msgs * r->size / r->secs / 1048576.0,
			       .mpps = (double)r->msgs / r->secs / 1e6, .peak_valid = spm > 0 };
	b->peak_mib = spm > 0 ? r->size / spm / 1048576.0 : 0;
	if (o->duplex && r->peer_secs > 0) { /* perftest's duplex: my figures plus the peer's */
		b->avg_mib += (double)r->peer_msgs * r->size / r->peer_secs / 1048576.0;
		b->mpps += (double)r->peer_msgs / r->peer_secs / 1e6;
	}
}

/* -U and -H: every sample, "#, usec" then "i, value" (perftest's format). */
static void
print_samples(const struct perf_opts *o, const uint64_t *d, uint64_t n, double per_unit)
{
	printf("#, %s\n", o->cycles ? "cycles" : "usec");
	for (uint64_t i = 0; i < n; i++)
		printf("%" PRIu64 ", %g\n", i + 1, (double)d[i] / per_unit);
}

/* The latency row of a round: perftest's statistics over the deltas of the posts. */
static int
lat_row(struct ctx *x, struct run *r, struct perf_lat *l)
{
	const struct perf_opts *o = x->o;
	/* RTT/2 for the ping-pongs, as perftest (rtt_factor) */
	double rtt = o->test == PERF_WRITE_LAT || o->test == PERF_SEND_LAT ? 2 : 1;
	double per_unit = (o->cycles ? 1.0 : (double)x->hz / 1e6) * rtt;
	uint64_t n = r->nlat - 1;

	*l = (struct perf_lat){ .bytes = r->size, .iters = r->nlat };
	if (o->duration) {
		l->t_avg = r->nlat ? r->lat_sum / (double)r->nlat : 0;
		l->tps = (double)r->nlat / r->secs;
		return 0;
	}
	for (uint64_t i = 0; i < n; i++)
		r->tp[i] = r->tp[i + 1] - r->tp[i];
	if (o->unsorted)
		print_samples(o, r->tp, n, per_unit);
	if (perf_lat_stats(r->tp, n, per_unit, l) != 0)
		return -1;
	if (o->histogram)
		print_samples(o, r->tp, n - 2, per_unit);
	if (o->unsorted || o->histogram)
		perf_print_lat_head(stdout, o);
	return 0;
}

/* Show the row, write the JSON, and hand the row to the server (it prints it too). */
static int
report_row(struct ctx *x, struct run *r)
{
	const struct perf_opts *o = x->o;
	struct perf_hdr h = { .device = x->c.at.name };
	struct perf_msg m = { .type = MSG_REPORT, .size = r->size };

	if (perf_test_is_bw(o->test)) {
		struct perf_bw b;

		bw_row(x, r, &b);
		perf_print_bw_row(stdout, o, &b);
		if (o->out_json)
			perf_json_bw(o, &h, &b);
		m.iters = b.iters;
		m.row[0] = b.peak_valid ? b.peak_mib : 0;
		m.row[1] = b.avg_mib;
		m.row[2] = b.mpps;
	} else {
		struct perf_lat l;

		if (lat_row(x, r, &l) != 0)
			return -1;
		perf_print_lat_row(stdout, o, &l);
		if (o->out_json)
			perf_json_lat(o, &h, &l);
		m.iters = l.iters;
		m.flags = o->duration ? HELLO_LAT_DUR : 0;
		m.row[0] = l.t_min, m.row[1] = l.t_max, m.row[2] = l.t_typical;
		m.row[3] = l.t_avg, m.row[4] = l.t_stdev, m.row[5] = l.p99, m.row[6] = l.p999;
		m.row[7] = l.tps;
	}
	fflush(stdout);
	return o->loopback ? 0 : client_call(x, &m, MSG_REPORT_ACK);
}

static int
client_round(struct ctx *x, uint32_t size)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	bool bw = perf_test_is_bw(o->test);
	uint32_t seed = (uint32_t)rte_rdtsc() | 1;
	struct perf_msg m = { .type = MSG_ROUND, .test = o->test, .size = size,
			      .iters = o->iters, .duration = o->duration, .seed = seed,
			      .verify = o->verify, .flags = o->duplex ? HELLO_DUPLEX : 0 };
	struct run r = { .size = size };
	int rc;

	client_prep(x, size, seed);
	if (client_call(x, &m, MSG_READY) != 0)
		return -1;
	c->in.size = size;
	if (bw && !o->duration) {
		uint64_t n = o->iters * c->nqp < PEAK_MAX ? o->iters * c->nqp : PEAK_MAX;

		r.tp = malloc(n * sizeof(uint64_t));
		r.tc = malloc(n * sizeof(uint64_t));
	} else if (!bw && !o->duration) {
		r.tp = malloc(o->iters * sizeof(uint64_t));
		if (r.tp == NULL)
			return -1;
	}
	rc = bw ? client_bw(x, &r) : client_lat(x, &r);
	if (rc == 0) {
		m = (struct perf_msg){ .type = MSG_END, .count = r.msgs };
		rc = client_call(x, &m, MSG_END_ACK);
		if (rc == 0 && c->in.status != 0) {
			fprintf(stderr, "ordk-perf: %s\n", c->in.text);
			rc = -1;
		}
		if (rc == 0 && o->verify)
			rc = client_check(x, &r, seed, c->in.value);
		if (rc == 0 && o->duplex) {
			r.peer_msgs = c->in.iters;
			r.peer_secs = c->in.row[0];
		}
	}
	if (rc == 0)
		rc = report_row(x, &r);
	free(r.tp);
	free(r.tc);
	return rc;
}

/* Sizes of the run: -s, or every power of two from 2 B to 8 MiB (-a). */
static uint32_t
next_size(const struct perf_opts *o, uint32_t s)
{
	if (!o->all_sizes)
		return 0;
	return s < PERF_ALL_MAX_SIZE ? s * 2 : 0;
}

static uint32_t
max_size(const struct perf_opts *o)
{
	return o->all_sizes ? PERF_ALL_MAX_SIZE : o->size;
}

static uint32_t
slot_of(const struct perf_opts *o)
{
	/* two halves (source and landing area, or atomic results), page aligned */
	uint64_t half = max_size(o);

	if (half < (uint64_t)o->tx_depth * 8)
		half = (uint64_t)o->tx_depth * 8;
	if (half < (uint64_t)o->tx_depth * o->inline_size) /* -I: the staging area */
		half = (uint64_t)o->tx_depth * o->inline_size;
	return (uint32_t)(((2 * half) + 4095) & ~4095ull);
}

static volatile sig_atomic_t stop_asked; /* --run_infinitely: SIGINT or SIGTERM */

static void
on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

/* The client's HELLO: its QPs and regions, and what the server's header shows. */
static void
hello_of(struct ctx *x, struct perf_msg *m)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;

	*m = (struct perf_msg){ .type = MSG_HELLO, .test = o->test, .nqp = o->qps,
				.atomic = o->atomic, .verify = o->verify, .slot = c->slot,
				.size = max_size(o), .duration = o->duration,
				.tx_depth = o->tx_depth, .rx_depth = o->rx_depth, .cq_mod = o->cq_mod,
				.mtu = o->mtu, .inline_size = o->inline_size, .out_reads = o->out_reads,
				.addr = (uint64_t)(uintptr_t)c->buf, .rkey = c->mr->rkey };
	m->flags = (o->report_gbits ? HELLO_GBITS : 0) | (o->all_sizes ? HELLO_ALL_SIZES : 0) |
		   (o->no_peak ? HELLO_NO_PEAK : 0) | (o->run_infinitely ? HELLO_INFINITELY : 0) |
		   (o->duplex ? HELLO_DUPLEX : 0);
	for (uint32_t q = 0; q < o->qps; q++)
		m->qpn[q] = ordk_qp_num(c->qp[q]);
}

/* The client's whole run, once the control QP is connected. @return an exit status. */
static int
client_main(struct ctx *x)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	struct perf_hdr h = { .device = c->at.name };
	struct perf_msg m;
	int rc = 0;

	if (side_data(c, o, o->qps, slot_of(o)) != 0)
		return 1;
	hello_of(x, &m);
	if (client_call(x, &m, MSG_HELLO_ACK) != 0)
		return c->failed ? 2 : 1; /* a completion error, or the server said no */
	if (c->in.nqp != o->qps)
		return 1;
	c->raddr = c->in.addr;
	c->rkey = c->in.rkey;
	for (uint32_t q = 0; q < o->qps; q++)
		c->rqpn[q] = c->in.qpn[q];
	if (side_connect(c, o) != 0)
		return 1;
	for (uint32_t q = 0; duplex_recvs(x) && q < o->qps; q++)
		for (uint32_t i = 0; i < (o->rx_depth > 16 ? o->rx_depth : 16); i++)
			if (client_recv_again(c, q, max_size(o)) != 0) {
				fprintf(stderr, "ordk-perf: send_bw -b: cannot post the RECVs\n");
				return 1;
			}
	perf_print_warnings(stdout, o, false);
	perf_print_header(stdout, o, &h);
	print_addrs(o, c);
	if (perf_test_is_bw(o->test))
		perf_print_bw_head(stdout, o);
	else
		perf_print_lat_head(stdout, o);
	if (o->run_infinitely) {
		signal(SIGINT, on_stop);
		signal(SIGTERM, on_stop);
		while (rc == 0 && !stop_asked)
			rc = client_round(x, o->size);
	} else
		for (uint32_t s = o->all_sizes ? 2 : o->size; s != 0 && rc == 0; s = next_size(o, s))
			rc = client_round(x, s);
	if (o->output == PERF_OUT_FULL)
		perf_print_rule(stdout);
	return rc == 0 ? 0 : 2;
}

/* ------------------------------------------------------------- the run */

static int
connect_ctrl(struct side *s)
{
	if (ordk_cm_connect_qp(s->cqp, &s->me, &s->peer, ORDK_MTU_4096, ORDK_ACCESS_LOCAL_WRITE) != 0) {
		fprintf(stderr, "ordk-perf: cannot connect the control QP\n");
		return -1;
	}
	for (uint32_t i = 0; i < CTRL_RECVS; i++)
		ctrl_post_recv(s, i);
	return 0;
}

static int
run_server(struct ctx *x)
{
	struct side *s = &x->s;

	s->last_work = rte_get_tsc_cycles();
	while (!s->failed && !(s->quit && s->bye_done)) {
		server_step(x, s);
		if (rte_get_tsc_cycles() - s->last_work > (uint64_t)(IDLE_S * 4 * (double)x->hz) &&
		    !s->in_round) {
			fprintf(stderr, "ordk-perf: server: the client went quiet\n");
			s->failed = true;
		}
		if (s->in_round && x->o->duration == 0 &&
		    rte_get_tsc_cycles() - s->last_work > (uint64_t)(600 * (double)x->hz)) {
			fprintf(stderr, "ordk-perf: server: round without progress for 600 s\n");
			s->failed = true;
		}
	}
	ordk_env_linger_server(s->dev, 1.0);
	return s->failed ? 2 : x->refused ? 1 : 0;
}

static int
run_loopback(struct ctx *x)
{
	const struct perf_opts *o = x->o;
	char args[512];
	uint16_t p[2];
	int rc;

	if (strncmp(o->devargs, "bluesim", 7) != 0) {
		fprintf(stderr, "ordk-perf: --loopback runs two bluesim devices; -d %s is not one\n",
			o->devargs);
		return 1;
	}
	if (ordk_env_ring_pair("perf_lb", x->mp, p) != 0) {
		fprintf(stderr, "ordk-perf: cannot make the net_ring pair\n");
		return 1;
	}
	app_bluesim_args(args, sizeof(args), o->devargs, p[0], 1);
	if (side_open(&x->c, args, false) != 0)
		return 1;
	app_bluesim_args(args, sizeof(args), o->devargs, p[1], 2);
	if (side_open(&x->s, args, true) != 0)
		return 1;
	x->c.peer = x->s.me;
	x->s.peer = x->c.me;
	if (connect_ctrl(&x->c) != 0 || connect_ctrl(&x->s) != 0)
		return 1;
	rc = client_main(x);
	if (rc == 0 && x->s.failed)
		rc = 2;
	return rc;
}

/* The port under the device: the server waits for good, the client a bounded time. */
static int
start_port(struct ctx *x)
{
	const struct perf_opts *o = x->o;
	double t0 = ordk_env_now_s();
	int rc = app_start_port_wait(o->devargs, x->mp, o->host != NULL, o->host ? 0 : -1);

	if (rc == -ECONNREFUSED) { /* the client came first: wait for the server */
		fprintf(stderr, "ordk-perf: waiting for the server at %s:%u (up to %u s)\n",
			o->host, o->port, o->peer_wait);
		rc = app_start_port_wait(o->devargs, x->mp, true,
					 o->peer_wait - (ordk_env_now_s() - t0));
	}
	if (rc == 0)
		return 0;
	if (rc == -ENODEV && o->memif_sock != NULL)
		fprintf(stderr, "ordk-perf: port %u in use (net_memif socket %s is taken), pick another "
				"with -p\n", o->port, o->memif_sock);
	else if (rc == -ENODEV)
		fprintf(stderr, "ordk-perf: -d %s: no such ethdev port (give one with EAL --vdev or "
				"-a)\n", o->devargs);
	else if (rc == -ECONNREFUSED || rc == -ETIMEDOUT)
		fprintf(stderr, "Couldn't connect to %s:%u\nordk-perf: no ordk-perf server answered "
				"within %u s (start one with the same -p)\n", o->host, o->port,
			o->peer_wait);
	else
		fprintf(stderr, "ordk-perf: cannot start the ethdev port of -d %s\n", o->devargs);
	return 1;
}

/* The TCP exchange of the control QPs' attributes. @return 0 or an exit status. */
static int
exchange(struct ctx *x, double t0)
{
	const struct perf_opts *o = x->o;
	double left = o->peer_wait - (ordk_env_now_s() - t0);
	int wait_ms = (int)((left > 5 ? left : 5) * 1000);
	int rc = ordk_cm_exchange(o->host, o->port, &x->me->me, &x->me->peer,
				  o->host ? wait_ms : INT32_MAX);

	if (rc == 0)
		return 0;
	if (o->host != NULL && rc == -ETIMEDOUT)
		fprintf(stderr, "Couldn't connect to %s:%u: no answer within %d s\n", o->host,
			o->port, (wait_ms + 999) / 1000);
	else if (o->host != NULL)
		fprintf(stderr, "Couldn't connect to %s:%u\nordk-perf: %s\n", o->host, o->port,
			strerror(-rc));
	else if (rc == -EADDRINUSE)
		fprintf(stderr, "ordk-perf: TCP port %u in use, pick another with -p\n", o->port);
	else
		fprintf(stderr, "ordk-perf: the attribute exchange on port %u failed: %s\n", o->port,
			strerror(-rc));
	return 1;
}

int
perf_run(const struct perf_opts *o)
{
	static struct ctx x; /* large: not on the stack */
	char args[512];
	double t0 = ordk_env_now_s();
	int rc = 1;

	memset(&x, 0, sizeof(x));
	x.o = o;
	x.so = *o;
	x.hz = rte_get_tsc_hz();
	x.progress = o->progress == 1 || (o->progress == -1 && isatty(STDERR_FILENO));
	x.mp = ordk_env_frame_pool("perf_pool", o->loopback ? 16383 : 8191);
	if (x.mp == NULL) {
		fprintf(stderr, "ordk-perf: no memory for mbufs (more -m, or hugepages)\n");
		return 1;
	}
	if (o->loopback) {
		rc = run_loopback(&x);
		goto out;
	}
	if (o->host == NULL && o->output == PERF_OUT_FULL) { /* perftest's server says so at once */
		printf("\n************************************\n"
		       "* Waiting for client to connect... *\n"
		       "************************************\n");
		fflush(stdout);
	}
	if (start_port(&x) != 0)
		goto out;
	app_bluesim_args(args, sizeof(args), o->devargs, -1, o->host ? 1 : 2);
	if (strncmp(o->devargs, "bluesim", 7) != 0)
		snprintf(args, sizeof(args), "%s", o->devargs);
	x.me = o->host ? &x.c : &x.s;
	if (side_open(x.me, args, o->host == NULL) != 0 || exchange(&x, t0) != 0 ||
	    connect_ctrl(x.me) != 0)
		goto out;
	if (o->host == NULL) {
		rc = run_server(&x);
		goto out;
	}
	rc = client_main(&x);
	{
		struct perf_msg m = { .type = MSG_QUIT };

		if (client_call(&x, &m, MSG_BYE) != 0 && rc == 0)
			rc = 2;
	}
	ordk_env_linger(x.c.dev, 0.3);
out:
	if (o->stats) {
		side_stats(&x.c, "client");
		side_stats(&x.s, "server");
	}
	side_close(&x.c);
	side_close(&x.s);
	ordk_env_close_ports();
	return rc;
}
