/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's latency runs: one WR in flight, the ping-pongs and the timed
 * READ and atomics, and perftest's statistics of the round.
 */
#include <inttypes.h>
#include <stdio.h>

#include "app_common.h"

#include "perf_engine.h"

/*
 * Wait for @p sends completions of our own WRs and @p recvs receive
 * completions on the data CQ; *@p t_recv is when the last receive arrived.
 */
static int
wait_wcs(struct ctx *x, int sends, int recvs, uint64_t *t_recv)
{
	struct side *c = &x->c;
	struct ordk_wc wc[4];

	while (perf_alive(x)) {
		int n = ordk_cq_poll(c->cq, wc, 4);

		for (int i = 0; i < n; i++) {
			c->last_work = rte_get_tsc_cycles();
			if (wc[i].status != ORDK_WC_SUCCESS) {
				perf_wc_error(perf_test_name(x->o->test), wc[i].status);
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
			perf_server_step(x, &x->s);
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

	rr.sge = (struct ordk_sge){ perf_region_addr(c, 0) + c->slot / 2, size,
				    c->mr->lkey };
	ordk_qp_post_recv(c->qp[0], &rr, 1);
}

/*
 * Latency, one WR in flight. write_lat and send_lat are ping-pongs
 * (latency = RTT/2, as perftest); read_lat and atomic_lat time the WR.
 */
int
perf_client_lat(struct ctx *x, struct run *r)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	uint32_t size = c->in.size;
	double t0 = ordk_env_now_s(), hz = (double)x->hz;
	uint64_t next = rte_get_tsc_cycles() + x->hz;
	volatile uint8_t *flag = perf_region(c, 0) + size - 1;
	uint8_t val = 1;

	/*
	 * RECVs of the run's largest size, posted once: one is posted again for each
	 * that completes, so 16 stay queued from one size to the next, and a round's
	 * SEND must fit the RECVs a smaller round left (-a: LOC_LEN_ERR at 4 B).
	 */
	if (o->test == PERF_SEND_LAT && !c->lat_recvs_up) {
		for (uint32_t i = 0; i < 16; i++)
			post_lat_recv(c, perf_max_size(o));
		c->lat_recvs_up = true;
	}
	for (uint64_t it = 0; o->duration ? ordk_env_now_s() < t0 + o->duration : it < o->iters; it++) {
		struct ordk_send_wr w;
		uint64_t s0 = rte_get_tsc_cycles(), s1 = s0;
		double us;

		if (r->tp != NULL && it < o->iters)
			r->tp[it] = s0; /* perftest's tposted: the deltas of posts are the samples */

		perf_client_wr(x, 0, it, &w);
		w.send_flags = ORDK_SEND_SIGNALED;
		if (o->test == PERF_WRITE_LAT)
			perf_region(c, 0)[c->slot / 2 + size - 1] = val;
		if (ordk_qp_post_send(c->qp[0], &w, 1) != 1) {
			fprintf(stderr, "ordk-perf: post_send failed\n");
			return -1;
		}
		if (o->test == PERF_WRITE_LAT) {
			while (*flag != val && perf_alive(x))
				perf_pump(x);
			s1 = rte_get_tsc_cycles();
			if (*flag != val || wait_wcs(x, 1, 0, NULL) != 0) {
				fprintf(stderr, "ordk-perf: write_lat: no echo at iteration %" PRIu64 "\n",
					it);
				return -1;
			}
		} else if (o->test == PERF_SEND_LAT) {
			if (wait_wcs(x, 1, 1, &s1) != 0)
				return -1;
			post_lat_recv(c, perf_max_size(o));
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
		val = perf_next_val(val);
		perf_progress_line(x, r, t0, &next);
	}
	r->secs = ordk_env_now_s() - t0;
	r->msgs = r->nlat;
	return 0;
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
int
perf_lat_row(struct ctx *x, struct run *r, struct perf_lat *l)
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
	if (x->hist != NULL &&
	    perf_hist_write(x->hist, perf_test_name(o->test), r->size, r->tp, n,
			    (double)x->hz / 1e9 * rtt) != 0) {
		fprintf(stderr, "ordk-perf: --histogram %s: cannot write\n", o->hist_file);
		return -1;
	}
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
