/* SPDX-License-Identifier: BSD-3-Clause */
/* The incast rig in one process: see incast_rig.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "incast_rig.h"
#include "sim_host.h"

#define WINDOW_NS  10000000ull /* Jain's index and the goodput rows */
#define SETTLE_NS  100000000ull /* drops and fairness count after this much of a phase */
#define TRACE_NS   1000000ull
#define DRAIN_NS   5000000000ull
#define MAX_LAT	   1000000u
#define MAX_WINDOWS 100000u

static uint64_t
now_ns(void)
{
	return (uint64_t)((double)rte_get_timer_cycles() * 1e9 / (double)rte_get_timer_hz());
}

int
incast_cfg_check(struct incast_cfg *c)
{
	char err[160];
	struct sw_queue_cfg q;

	sw_queue_cfg_default(&q);
	if (c->senders == 0 || c->senders > INCAST_MAX_SENDERS || c->msg == 0 || c->depth == 0) {
		fprintf(stderr, "incast: senders 1..%u, msg and depth > 0\n", INCAST_MAX_SENDERS);
		return -1;
	}
	if (sw_queue_cfg_parse(&q, c->queue, err, sizeof(err)) != 0) {
		fprintf(stderr, "incast: queue: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * The devices' devargs: the notification point (cnp=1) and DCQCN's parameters,
 * the paper's 40 Gb/s network slowed down to the bottleneck by s: rates x s,
 * times (T, K) / s, bytes (B, and the switch's Kmin/Kmax) unchanged; then the
 * caller's keys over them. (The card's CNP pause, 32.768 us, cannot be scaled.)
 */
static void
cc_devargs(const struct incast_cfg *c, char *out, size_t len)
{
	double s = c->rate ? (double)c->rate * 8 / 40e9 : 1;
	size_t n;

	n = (size_t)snprintf(out, len,
			     ",cnp=1,cc_max_rate=%.0f,cc_min_rate=%.0f,cc_rai=%.0f,cc_rhai=%.0f,"
			     "cc_timer_us=%.3f,cc_alpha_us=%.3f,cc_cut_gap_us=%.3f",
			     40e9 * s, 100e6 * s, 40e6 * s, 400e6 * s, 55 / s, 55 / s, 50 / s);
	for (const char *p = c->cc; *p != '\0' && n + 8 < len;) {
		size_t k = strcspn(p, ",");

		n += (size_t)snprintf(out + n, len - n, ",cc_%.*s", (int)k, p);
		p += k + (p[k] == ',');
	}
}

static int
open_side(struct incast_rig *g, struct func_side *s, uint16_t port, int idx, size_t len)
{
	char args[640], cc[512];
	uint8_t *buf;

	cc_devargs(&g->c, cc, sizeof(cc));
	snprintf(args, sizeof(args), "bluesim,port=%u,mac=02:00:00:00:03:%02x,ip=10.0.3.%d%s", port,
		 idx, idx, cc);
	buf = test_aligned(1 << 21, len);
	memset(buf, idx, len);
	if (ordk_env_ep_open(&s->ep, args, 4096, buf, len,
			     ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE) == 0)
		return 0;
	if (s->dev == NULL)
		fprintf(stderr, "incast: %s: %s\n", args, rte_strerror(rte_errno));
	else
		fprintf(stderr, "incast: device %d setup failed\n", idx);
	return -1;
}

static struct ordk_qp *
make_qp(struct func_side *s)
{
	struct ordk_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .max_send_wr = 256, .max_recv_wr = 16};

	return ordk_qp_create(s->pd, &ia);
}

int
incast_open(struct incast_rig *g, const struct incast_cfg *c)
{
	struct sw_queue_cfg qc;
	unsigned int hosts;
	char nm[48];

	memset(g, 0, sizeof(*g));
	g->c = *c;
	if (incast_cfg_check(&g->c) != 0)
		return -1;
	g->nf = c->senders + 1; /* the last flow is the victim */
	hosts = g->nf + 1;	/* the last host is the receiver */
	g->lat = calloc(MAX_LAT, sizeof(*g->lat));
	/* the bottleneck first: the devices' DCQCN parameters scale to its rate */
	sw_queue_cfg_default(&qc);
	g->bq = qc;
	if (c->rate != 0)
		g->bq.rate_Bps = c->rate;
	sw_queue_cfg_parse(&g->bq, c->queue, NULL, 0); /* checked above */
	g->c.rate = g->bq.rate_Bps;
	test_eal_init(NULL);
	snprintf(nm, sizeof(nm), "%s_pool", c->name);
	g->mp = test_pool(nm, 32767);
	for (unsigned int i = 0; i < hosts; i++) {
		snprintf(nm, sizeof(nm), "%s%u_", c->name, i);
		test_ring_pair(nm, false, &g->sp[i], &g->hp[i], NULL);
		test_port_start(g->sp[i], g->mp);
		test_port_start(g->hp[i], g->mp);
	}
	if (g->lat == NULL ||
	    open_side(g, &g->r, g->hp[g->nf], (int)hosts, (size_t)g->nf * c->msg * c->depth) != 0)
		return -1;
	for (unsigned int i = 0; i < g->nf; i++) {
		struct incast_flow *f = &g->fl[i];

		if (open_side(g, &f->s, g->hp[i], (int)i + 1, c->msg) != 0 ||
		    (f->s.qp = make_qp(&f->s)) == NULL || (f->rqp = make_qp(&g->r)) == NULL)
			return -1;
		func_connect(&f->s, f->s.qp, &g->r, f->rqp, ORDK_MTU_4096);
	}
	g->t0 = now_ns();
	if (sw_switch_init(&g->sw, g->sp, hosts, &qc, 0) != 0 ||
	    sw_switch_set_queue(&g->sw, g->nf, &g->bq, 0) != 0)
		return -1;
	g->sw.fcs = true; /* bluesim's default fcs=1 */
	for (unsigned int i = 0; i < hosts; i++)
		sw_switch_add_mac(&g->sw, 0x020000000300ull | (i + 1), i);
	return 0;
}

static bool
post(struct incast_flow *f, const struct func_side *r, uint32_t off, uint32_t len)
{
	struct ordk_send_wr wr = {
		.opcode = ORDK_WR_RDMA_WRITE, .send_flags = ORDK_SEND_SIGNALED, .num_sge = 1};

	wr.wr_id = len;
	wr.sge = (struct ordk_sge){(uint64_t)(uintptr_t)f->s.buf, len, f->s.mr->lkey};
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)r->buf + off;
	wr.rdma.rkey = r->mr->rkey;
	if (ordk_qp_post_send(f->s.qp, &wr, 1) != 1) {
		f->failed = true; /* the QP failed (retries exceeded): the counters say so */
		return false;
	}
	f->outstanding++;
	return true;
}

/* One pass: post (when @p posting), poll every device, step the switch. */
static void
step(struct incast_rig *g, uint64_t t, bool posting, unsigned int *nlat)
{
	const struct incast_cfg *c = &g->c;

	for (unsigned int i = 0; i < g->nf; i++) {
		struct incast_flow *f = &g->fl[i];
		struct ordk_wc wc[32];
		int n;

		if (posting && i < c->senders)
			while (!f->failed && f->outstanding < c->depth &&
			       post(f, &g->r, (i * c->depth + f->outstanding) * c->msg, c->msg))
				;
		else if (posting && f->outstanding == 0 && !f->failed) {
			f->posted_ns = now_ns();
			post(f, &g->r, i * c->depth * c->msg, 8);
		}
		ordk_dev_poll(f->s.dev, 64);
		n = ordk_cq_poll(f->s.cq, wc, 32);
		for (int k = 0; k < n; k++) {
			f->outstanding--;
			if (wc[k].status != ORDK_WC_SUCCESS) {
				f->failed = true;
				continue;
			}
			f->bytes += wc[k].wr_id;
			f->win_bytes += wc[k].wr_id;
			if (i == c->senders && posting && *nlat < MAX_LAT)
				g->lat[(*nlat)++] = now_ns() - f->posted_ns;
		}
	}
	ordk_dev_poll(g->r.dev, 256);
	sw_switch_poll(&g->sw, t - g->t0);
}

static double
jain(const uint64_t *x, unsigned int n)
{
	double s = 0, s2 = 0;

	for (unsigned int i = 0; i < n; i++) {
		s += (double)x[i];
		s2 += (double)x[i] * (double)x[i];
	}
	return s2 > 0 ? s * s / (n * s2) : 1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every 1 ms: each flow's rate (CC on); every 10 ms: the senders' goodput, Jain's index. */
static void
sample(struct incast_rig *g, uint64_t t, uint64_t start, FILE *tr, double *jsum,
       unsigned int *nwin, bool window)
{
	uint64_t x[INCAST_MAX_SENDERS];

	for (unsigned int i = 0; tr != NULL && i < g->nf; i++) {
		struct ordk_qp_cc cc;

		if (ordk_qp_cc_query(g->fl[i].s.qp, &cc) == 0 && cc.on)
			fprintf(tr, "%" PRIu64 ",flow%u,rate_bps,%.0f\n", t - g->t0, i, cc.rate_bps);
	}
	if (!window)
		return;
	for (unsigned int i = 0; i < g->c.senders; i++) {
		x[i] = g->fl[i].win_bytes;
		if (tr != NULL)
			fprintf(tr, "%" PRIu64 ",flow%u,goodput_bps,%.0f\n", t - g->t0, i,
				(double)x[i] * 8e9 / WINDOW_NS);
	}
	for (unsigned int i = 0; i < g->nf; i++)
		g->fl[i].win_bytes = 0;
	if (*nwin < MAX_WINDOWS && t >= start + SETTLE_NS) {
		*jsum += jain(x, g->c.senders);
		(*nwin)++;
	}
}

static void
totals(struct incast_rig *g, struct incast_result *res, int sign)
{
	struct ordk_stats st;

	for (unsigned int i = 0; i < g->nf; i++)
		if (ordk_qp_stats(g->fl[i].s.qp, &st) == 0) {
			res->retransmits += (uint64_t)sign * st.retransmits;
			res->cnps += (uint64_t)sign * st.cnps;
			res->rate_changes += (uint64_t)sign * st.cc_rate_changes;
		}
}

void
incast_run(struct incast_rig *g, bool cc, double seconds, FILE *trace, struct incast_result *res)
{
	const struct sw_queue *q = &g->sw.port[g->nf].q;
	uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), drops100 = UINT64_MAX;
	uint64_t win_end = start + WINDOW_NS, trace_next = start, total = 0;
	uint64_t hist100[SW_HIST_BUCKETS];
	struct sw_queue late;
	unsigned int nlat = 0, nwin = 0;
	double jsum = 0;

	memset(res, 0, sizeof(*res));
	res->cc = cc;
	res->seconds = seconds;
	for (unsigned int i = 0; i < g->nf; i++) {
		ordk_qp_cc_enable(g->fl[i].s.qp, cc);
		g->fl[i].bytes = g->fl[i].win_bytes = 0;
	}
	totals(g, res, -1);
	sw_switch_set_queue(&g->sw, g->nf, &g->bq, start - g->t0); /* counters restart */
	sw_switch_trace(&g->sw, trace, TRACE_NS, start - g->t0);
	for (uint64_t t = start; t < end; t = now_ns()) {
		step(g, t, true, &nlat);
		if (drops100 == UINT64_MAX && t >= start + SETTLE_NS) {
			drops100 = q->st.dropped_full + q->st.dropped_aqm;
			memcpy(hist100, q->st.hist, sizeof(hist100));
		}
		if (t >= trace_next || t >= win_end) {
			sample(g, t, start, trace, &jsum, &nwin, t >= win_end);
			trace_next = t + TRACE_NS;
			if (t >= win_end)
				win_end += WINDOW_NS;
		}
	}
	for (unsigned int i = 0; i < g->nf; i++)
		total += g->fl[i].bytes;
	res->drops = q->st.dropped_full + q->st.dropped_aqm;
	res->drops_late = drops100 == UINT64_MAX ? 0 : res->drops - drops100;
	res->marked = q->st.marked;
	late = *q; /* the depths arrivals found after the first 100 ms */
	for (unsigned int i = 0; drops100 != UINT64_MAX && i < SW_HIST_BUCKETS; i++)
		late.st.hist[i] -= hist100[i];
	res->q_p50 = sw_queue_depth_quantile(&late, 0.5);
	res->q_p99 = sw_queue_depth_quantile(&late, 0.99);
	res->q_p99_all = sw_queue_depth_quantile(q, 0.99);
	res->q_max = q->st.max_depth;
	res->goodput_bps = (double)total * 8 / seconds;
	res->goodput_frac = g->bq.rate_Bps ? (double)total / seconds / (double)g->bq.rate_Bps : 0;
	res->jain = nwin ? jsum / nwin : 0;
	res->windows = nwin;
	qsort(g->lat, nlat, sizeof(g->lat[0]), cmp_u64);
	res->nlat = nlat;
	res->lat_p50_us = nlat ? (double)g->lat[nlat / 2] / 1e3 : 0;
	res->lat_p99_us = nlat ? (double)g->lat[nlat * 99 / 100] / 1e3 : 0;
	sw_switch_trace(&g->sw, NULL, 0, 0);
	/* drain: what is in flight completes before the next phase (bounded) */
	for (uint64_t t = now_ns(), stop = t + DRAIN_NS; t < stop; t = now_ns()) {
		unsigned int busy = 0;

		step(g, t, false, &nlat);
		for (unsigned int i = 0; i < g->nf; i++)
			busy += !g->fl[i].failed && g->fl[i].outstanding > 0;
		if (busy == 0)
			break;
	}
	totals(g, res, 1);
	for (unsigned int i = 0; i < g->nf; i++)
		res->failed |= g->fl[i].failed || g->fl[i].outstanding > 0;
}

void
incast_print(const struct incast_rig *g, const struct incast_result *res, FILE *f)
{
	fprintf(f, "CC %s: %u senders x %u x %u B + 8 B victim, bottleneck %" PRIu64 " B/s, %.1f s%s\n",
		res->cc ? "on " : "off", g->c.senders, g->c.depth, g->c.msg, g->bq.rate_Bps,
		res->seconds, res->failed ? " (a QP FAILED)" : "");
	fprintf(f, "  goodput %.3f Gb/s = %.3f of the bottleneck\n", res->goodput_bps / 1e9,
		res->goodput_frac);
	fprintf(f, "  drops %" PRIu64 " (after 100 ms %" PRIu64 ")  retransmits %" PRIu64
		   "  marked %" PRIu64 "  CNPs %" PRIu64 "  rate changes %" PRIu64 "\n",
		res->drops, res->drops_late, res->retransmits, res->marked, res->cnps,
		res->rate_changes);
	fprintf(f, "  queue after 100 ms: p50 %" PRIu64 " B  p99 %" PRIu64 " B (whole phase: p99 %" PRIu64
		   " B, max %" PRIu64 " B; cap %" PRIu64 ", kmax %" PRIu64 ")\n",
		res->q_p50, res->q_p99, res->q_p99_all, res->q_max, g->bq.cap, g->bq.kmax);
	fprintf(f, "  Jain(10 ms windows after 100 ms) %.3f over %u windows\n", res->jain,
		res->windows);
	fprintf(f, "  victim 8 B WRITE: %u samples, p50 %.1f us  p99 %.1f us\n", res->nlat,
		res->lat_p50_us, res->lat_p99_us);
}
