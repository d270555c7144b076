/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Incast through the test switch, in one process (suite perf): N senders and a
 * victim, each a bluesim device on its own switch port, WRITE to one receiver
 * whose egress queue is the bottleneck (shaped, ECN-marking, tail drop). One
 * poll loop steps every device and the switch, so the rig needs one core.
 *
 *   bench_incast [key=value ...]
 *     seconds=2 senders=4 msg=65536 depth=8 rate=50M (bottleneck, bytes/s)
 *     queue=K=V;K=V (more sw_queue keys for the bottleneck, ';' between them)
 *     trace=FILE (queue depth every 1 ms and per-flow goodput every 10 ms, the
 *     cc trace CSV of doc/guides/congestion.md)
 *
 * Congestion control does not exist yet (issue 17): this is the CC-off
 * baseline. It prints aggregate goodput / bottleneck rate, drops (all, and
 * after the first 100 ms), retransmissions, p50/p99 queue depth, Jain's index
 * over 10 ms windows and the victim's 8 B WRITE latency p50/p99.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>

#include "func_common.h"
#include "sim_host.h"
#include "sw_switch.h"

#define MAX_SENDERS 8
#define WINDOW_NS   10000000ull
#define MAX_WINDOWS 100000
#define MAX_LAT	    1000000

struct cfg {
	double seconds;
	unsigned int senders;
	uint32_t msg, depth;
	uint64_t rate;
	char queue[256];
	const char *trace;
};

struct flow {
	struct func_side s;  /* the sender's device */
	struct ordk_qp *rqp; /* its QP on the receiver */
	uint32_t outstanding;
	uint64_t bytes, win_bytes;
	uint64_t posted_ns; /* victim: when its WRITE left */
};

static uint64_t
now_ns(void)
{
	return (uint64_t)((double)rte_get_timer_cycles() * 1e9 / (double)rte_get_timer_hz());
}

static int
parse(int argc, char **argv, struct cfg *c)
{
	*c = (struct cfg){.seconds = 2, .senders = 4, .msg = 65536, .depth = 8, .rate = 50000000};
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i], *v = eq ? eq + 1 : "";

		if (eq == NULL)
			return -1;
		*eq = '\0';
		if (strcmp(k, "seconds") == 0)
			c->seconds = atof(v);
		else if (strcmp(k, "senders") == 0)
			c->senders = (unsigned int)atoi(v);
		else if (strcmp(k, "msg") == 0)
			c->msg = (uint32_t)atoi(v);
		else if (strcmp(k, "depth") == 0)
			c->depth = (uint32_t)atoi(v);
		else if (strcmp(k, "rate") == 0)
			snprintf(c->queue + strlen(c->queue), sizeof(c->queue) - strlen(c->queue),
				 "%srate=%s", c->queue[0] ? "," : "", v);
		else if (strcmp(k, "queue") == 0) {
			size_t n = strlen(c->queue);

			if (n > 0 && n + 1 < sizeof(c->queue))
				c->queue[n++] = ',';
			for (; *v != '\0' && n + 1 < sizeof(c->queue); v++)
				c->queue[n++] = *v == ';' ? ',' : *v;
			c->queue[n] = '\0';
		} else if (strcmp(k, "trace") == 0)
			c->trace = v;
		else
			return -1;
	}
	if (c->senders == 0 || c->senders > MAX_SENDERS || c->msg == 0 || c->depth == 0 ||
	    c->seconds <= 0)
		return -1;
	return 0;
}

static void
open_side(struct func_side *s, uint16_t port, int idx, size_t len)
{
	char args[128];

	snprintf(args, sizeof(args), "bluesim,port=%u,mac=02:00:00:00:03:%02x,ip=10.0.3.%d", port,
		 idx, idx);
	s->dev = ordk_dev_open(args);
	if (s->dev == NULL) {
		fprintf(stderr, "bench_incast: %s: %s\n", args, rte_strerror(rte_errno));
		exit(1);
	}
	ordk_dev_query(s->dev, &s->attr);
	s->pd = ordk_pd_alloc(s->dev);
	s->cq = ordk_cq_create(s->dev, 4096);
	s->len = len;
	s->buf = test_aligned(1 << 21, len);
	memset(s->buf, idx, len);
	s->mr = ordk_mr_reg(s->pd, s->buf, len, ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE);
	if (s->pd == NULL || s->cq == NULL || s->mr == NULL) {
		fprintf(stderr, "bench_incast: device %d setup failed\n", idx);
		exit(1);
	}
}

static struct ordk_qp *
make_qp(struct func_side *s)
{
	struct ordk_qp_init_attr ia = {
		.send_cq = s->cq, .recv_cq = s->cq, .max_send_wr = 256, .max_recv_wr = 16};
	struct ordk_qp *qp = ordk_qp_create(s->pd, &ia);

	if (qp == NULL) {
		fprintf(stderr, "bench_incast: qp_create: %s\n", rte_strerror(rte_errno));
		exit(1);
	}
	return qp;
}

static bool
post(struct flow *f, const struct func_side *r, uint32_t off, uint32_t len)
{
	struct ordk_send_wr wr = {
		.opcode = ORDK_WR_RDMA_WRITE, .send_flags = ORDK_SEND_SIGNALED, .num_sge = 1};

	wr.wr_id = len;
	wr.sge = (struct ordk_sge){(uint64_t)(uintptr_t)f->s.buf, len, f->s.mr->lkey};
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)r->buf + off;
	wr.rdma.rkey = r->mr->rkey;
	if (ordk_qp_post_send(f->s.qp, &wr, 1) != 1)
		return false; /* the QP failed (retries exceeded): the counters say so */
	f->outstanding++;
	return true;
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

int
main(int argc, char **argv)
{
	static struct flow fl[MAX_SENDERS + 1];
	static uint64_t lat[MAX_LAT];
	struct func_side r = {0};
	uint16_t sp[MAX_SENDERS + 2], hp[MAX_SENDERS + 2];
	struct sw_switch sw;
	struct sw_queue_cfg qc, bq;
	struct rte_mempool *mp;
	struct cfg c;
	struct ordk_stats st;
	unsigned int nf, hosts, nlat = 0, nwin = 0;
	uint64_t t0, end, win_end, drops100 = ~0ull, retrans = 0;
	double jsum = 0;
	char err[160];
	FILE *tr = NULL;

	if (parse(argc, argv, &c) != 0) {
		fprintf(stderr, "usage: bench_incast [seconds=S] [senders=N<=8] [msg=B] [depth=D] "
				"[rate=BYTES/s] [queue=K=V;K=V] [trace=FILE]\n");
		return 2;
	}
	nf = c.senders + 1; /* the last flow is the victim */
	hosts = nf + 1;	    /* the last host is the receiver */
	test_eal_init(NULL);
	mp = test_pool("incast", 32767);
	for (unsigned int i = 0; i < hosts; i++) {
		char nm[32];

		snprintf(nm, sizeof(nm), "inc%u_", i);
		test_ring_pair(nm, &sp[i], &hp[i]);
		test_port_start(sp[i], mp);
		test_port_start(hp[i], mp);
	}
	open_side(&r, hp[nf], (int)hosts, (size_t)nf * c.msg * c.depth);
	for (unsigned int i = 0; i < nf; i++) {
		open_side(&fl[i].s, hp[i], (int)i + 1, c.msg);
		fl[i].s.qp = make_qp(&fl[i].s);
		fl[i].rqp = make_qp(&r);
		func_connect(&fl[i].s, fl[i].s.qp, &r, fl[i].rqp, ORDK_MTU_4096);
	}

	sw_queue_cfg_default(&qc);
	bq = qc;
	if (sw_queue_cfg_parse(&bq, c.queue, err, sizeof(err)) != 0) {
		fprintf(stderr, "bench_incast: queue: %s\n", err);
		return 2;
	}
	t0 = now_ns();
	/* the switch's clock (shaper, trace) starts at 0 with the run */
	if (sw_switch_init(&sw, sp, hosts, &qc, 0) != 0 ||
	    sw_switch_set_queue(&sw, nf, &bq, 0) != 0)
		return 1;
	for (unsigned int i = 0; i < hosts; i++)
		sw_switch_add_mac(&sw, 0x020000000300ull | (i + 1), i);
	if (c.trace != NULL) {
		tr = fopen(c.trace, "w");
		if (tr == NULL)
			return 1;
		fprintf(tr, "t_ns,source,metric,value\n");
		sw_switch_trace(&sw, tr, 1000000, 0);
	}

	end = t0 + (uint64_t)(c.seconds * 1e9);
	win_end = t0 + WINDOW_NS;
	for (uint64_t t = t0; t < end; t = now_ns()) {
		for (unsigned int i = 0; i < nf; i++) {
			struct flow *f = &fl[i];
			struct ordk_wc wc[32];
			int n;

			if (i < c.senders)
				while (f->outstanding < c.depth &&
				       post(f, &r, (i * c.depth + f->outstanding) * c.msg, c.msg))
					;
			else if (f->outstanding == 0) {
				f->posted_ns = now_ns();
				post(f, &r, i * c.depth * c.msg, 8);
			}
			ordk_dev_poll(f->s.dev, 64);
			n = ordk_cq_poll(f->s.cq, wc, 32);
			for (int k = 0; k < n; k++) {
				f->outstanding--;
				if (wc[k].status != ORDK_WC_SUCCESS)
					continue;
				f->bytes += wc[k].wr_id;
				f->win_bytes += wc[k].wr_id;
				if (i == c.senders && nlat < MAX_LAT)
					lat[nlat++] = now_ns() - f->posted_ns;
			}
		}
		ordk_dev_poll(r.dev, 256);
		sw_switch_poll(&sw, t - t0);
		if (drops100 == ~0ull && t >= t0 + 100000000)
			drops100 = sw.port[nf].q.st.dropped_full + sw.port[nf].q.st.dropped_aqm;
		if (t >= win_end) {
			uint64_t x[MAX_SENDERS];

			for (unsigned int i = 0; i < c.senders; i++) {
				x[i] = fl[i].win_bytes;
				if (tr != NULL)
					fprintf(tr, "%" PRIu64 ",flow%u,goodput_bps,%.0f\n", t - t0,
						i, (double)fl[i].win_bytes * 8e9 / WINDOW_NS);
			}
			for (unsigned int i = 0; i < nf; i++)
				fl[i].win_bytes = 0;
			if (nwin < MAX_WINDOWS && t >= t0 + 100000000) {
				jsum += jain(x, c.senders);
				nwin++;
			}
			win_end += WINDOW_NS;
		}
	}

	uint64_t total = 0, dropped;
	const struct sw_queue *q = &sw.port[nf].q;

	for (unsigned int i = 0; i < nf; i++) {
		total += fl[i].bytes;
		if (ordk_qp_stats(fl[i].s.qp, &st) == 0)
			retrans += st.retransmits;
	}
	dropped = q->st.dropped_full + q->st.dropped_aqm;
	qsort(lat, nlat, sizeof(lat[0]), cmp_u64);
	printf("incast: %u senders x %u x %u B + 8 B victim, bottleneck %" PRIu64
	       " B/s (%s), %.1f s\n",
	       c.senders, c.depth, c.msg, bq.rate_Bps, c.queue, c.seconds);
	printf("  goodput %.3f Gb/s", (double)total * 8 / c.seconds / 1e9);
	if (bq.rate_Bps != 0)
		printf(" = %.3f of the bottleneck",
		       (double)total / c.seconds / (double)bq.rate_Bps);
	printf("\n  drops %" PRIu64 " (after 100 ms %" PRIu64 ")  retransmits %" PRIu64
	       "  marked %" PRIu64 "\n",
	       dropped, drops100 == ~0ull ? 0 : dropped - drops100, retrans, q->st.marked);
	printf("  queue p50 %" PRIu64 " B  p99 %" PRIu64 " B  max %" PRIu64 " B (cap %" PRIu64
	       ")  Jain(10 ms) %.3f over %u windows\n",
	       sw_queue_depth_quantile(q, 0.5), sw_queue_depth_quantile(q, 0.99), q->st.max_depth,
	       bq.cap, nwin ? jsum / nwin : 0, nwin);
	printf("  victim 8 B WRITE: %u samples, p50 %.1f us  p99 %.1f us\n", nlat,
	       nlat ? (double)lat[nlat / 2] / 1e3 : 0,
	       nlat ? (double)lat[nlat * 99 / 100] / 1e3 : 0);
	sw_switch_print_stats(&sw, stdout);
	if (tr != NULL)
		fclose(tr);
	/* the process ends here: devices, ports and EAL go with it */
	return 0;
}
