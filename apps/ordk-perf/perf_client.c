/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's client: its session with the server (HELLO, then a round per
 * size: ROUND, the run, END, the data check, the row and REPORT).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"

#include "perf_engine.h"

/*
 * Keep everything moving: this side's device and, in loopback, the server.
 * The client's idle clock counts completions and messages only: its device's
 * own work (retransmissions to a peer that is gone) is no sign of life.
 */
void
perf_pump(struct ctx *x)
{
	ordk_dev_poll(x->c.dev, 64);
	if (perf_duplex_recvs(x)) { /* between the client's own sends the server's still arrive */
		struct ordk_wc wc[16];
		int n = ordk_cq_poll(x->c.cq, wc, 16);

		for (int i = 0; i < n; i++)
			if (wc[i].opcode >= ORDK_WC_RECV)
				perf_client_recv_done(x, &wc[i]);
	}
	if (x->o->loopback)
		perf_server_step(x, &x->s);
}

/* Send @p m and wait for the answer of @p type (ERROR ends the run). */
int
perf_client_call(struct ctx *x, struct perf_msg *m, uint32_t type)
{
	struct side *c = &x->c;

	if (perf_ctrl_send(c, m) != 0) {
		fprintf(stderr, "ordk-perf: cannot post a control message\n");
		return -1;
	}
	c->last_work = rte_get_tsc_cycles();
	while (perf_alive(x)) {
		perf_pump(x);
		if (!perf_ctrl_poll(c))
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

/* A line a second on stderr; @p next is a TSC deadline (no clock math per call). */
void
perf_progress_line(struct ctx *x, const struct run *r, double t0, uint64_t *next)
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

static void
client_prep(struct ctx *x, uint32_t size, uint32_t seed)
{
	struct side *c = &x->c;

	for (uint32_t q = 0; q < c->nqp; q++) {
		uint8_t *r = perf_region(c, q);

		switch (x->o->test) {
		case PERF_WRITE_LAT:
			perf_fill(r + c->slot / 2, size, seed);
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
			perf_fill(r, size, seed);
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
		at = perf_check(perf_region(c, q), n, seed);
		if (at != n) {
			fprintf(stderr, "ordk-perf: data check: QP %u, byte %" PRIu64 " of %u differs\n",
				q, at, r->size);
			return -1;
		}
	}
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

		perf_bw_row(x, r, &b);
		perf_print_bw_row(stdout, o, &b);
		if (o->out_json)
			perf_json_bw(o, &h, &b);
		m.iters = b.iters;
		m.row[0] = b.peak_valid ? b.peak_mib : 0;
		m.row[1] = b.avg_mib;
		m.row[2] = b.mpps;
	} else {
		struct perf_lat l;

		if (perf_lat_row(x, r, &l) != 0)
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
	return o->loopback ? 0 : perf_client_call(x, &m, MSG_REPORT_ACK);
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
	if (perf_client_call(x, &m, MSG_READY) != 0)
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
	rc = bw ? perf_client_bw(x, &r) : perf_client_lat(x, &r);
	if (rc == 0) {
		m = (struct perf_msg){ .type = MSG_END, .count = r.msgs };
		rc = perf_client_call(x, &m, MSG_END_ACK);
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

uint32_t
perf_max_size(const struct perf_opts *o)
{
	return o->all_sizes ? PERF_ALL_MAX_SIZE : o->size;
}

static uint32_t
slot_of(const struct perf_opts *o)
{
	/* two halves (source and landing area, or atomic results), page aligned */
	uint64_t half = perf_max_size(o);

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
				.size = perf_max_size(o), .duration = o->duration,
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
int
perf_client_main(struct ctx *x)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	struct perf_hdr h = { .device = c->at.name };
	struct perf_msg m;
	int rc = 0;

	if (perf_side_data(c, o, o->qps, slot_of(o)) != 0)
		return 1;
	hello_of(x, &m);
	if (perf_client_call(x, &m, MSG_HELLO_ACK) != 0)
		return c->failed ? 2 : 1; /* a completion error, or the server said no */
	if (c->in.nqp != o->qps)
		return 1;
	c->raddr = c->in.addr;
	c->rkey = c->in.rkey;
	for (uint32_t q = 0; q < o->qps; q++)
		c->rqpn[q] = c->in.qpn[q];
	if (perf_side_connect(c, o) != 0)
		return 1;
	for (uint32_t q = 0; perf_duplex_recvs(x) && q < o->qps; q++)
		for (uint32_t i = 0; i < (o->rx_depth > 16 ? o->rx_depth : 16); i++)
			if (perf_client_recv_again(c, q, perf_max_size(o)) != 0) {
				fprintf(stderr, "ordk-perf: send_bw -b: cannot post the RECVs\n");
				return 1;
			}
	perf_print_warnings(stdout, o, false);
	perf_print_header(stdout, o, &h);
	perf_side_addrs(o, c);
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
