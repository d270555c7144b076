/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's server: it answers the client's control messages (HELLO, ROUND,
 * END, REPORT, QUIT), checks the data, and serves latency ping-pongs and the
 * -b duplex WRs; one step per call of perf_server_step().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "app_common.h"

#include "perf_engine.h"

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
	if (perf_ctrl_send(s, &m) != 0)
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

	r.sge = (struct ordk_sge){ perf_region_addr(s, q), s->slot / 2, s->mr->lkey };
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
	if (perf_side_data(s, &o, m->nqp, m->slot) != 0 || perf_side_connect(s, &o) != 0) {
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
		perf_side_addrs(&x->so, s);
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
				     .peak_valid = m->row[0] > 0 && !perf_test_is_send(so->test) };

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
		uint8_t *r = perf_region(s, q);

		if (m->test == PERF_READ_BW || m->test == PERF_READ_LAT)
			perf_fill(r, m->size, m->seed);
		else
			memset(r, 0, m->size);
		if (m->test == PERF_WRITE_LAT) /* the echo's source */
			perf_fill(r + s->slot / 2, m->size, m->seed);
	}
	if (perf_test_is_send((enum perf_test)m->test))
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
	if (perf_test_is_send(t) && s->rx_count != s->in.count) {
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
		value = *(volatile uint64_t *)perf_region(s, 0);
		for (uint32_t q = 1; q < s->nqp; q++)
			value += *(volatile uint64_t *)perf_region(s, q);
	}
	if (r->verify && status == 0 &&
	    (t == PERF_WRITE_BW || t == PERF_WRITE_LAT || perf_test_is_send(t)))
		for (uint32_t q = 0; q < s->nqp && status == 0; q++) {
			/* write_lat: the last byte carries the ping-pong counter */
			uint64_t n = t == PERF_WRITE_LAT ? r->size - 1 : r->size;
			uint64_t at = perf_check(perf_region(s, q), n, r->seed);

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
		volatile uint8_t *flag = perf_region(s, 0) + r->size - 1;

		if (*flag == s->next_val) {
			struct ordk_send_wr w = { .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
						  .send_flags = ORDK_SEND_SIGNALED };

			perf_region(s, 0)[s->slot / 2 + r->size - 1] = s->next_val;
			w.sge = (struct ordk_sge){ perf_region_addr(s, 0) + s->slot / 2,
						   r->size, s->mr->lkey };
			w.rdma.remote_addr = s->raddr;
			w.rdma.rkey = s->rkey;
			if (ordk_qp_post_send(s->qp[0], &w, 1) == 1) {
				s->next_val = perf_next_val(s->next_val);
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
				perf_wc_error("server", wc[i].status);
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

			w.sge = (struct ordk_sge){ perf_region_addr(s, 0), r->size,
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
	uint64_t laddr = perf_region_addr(s, q);

	*w = (struct ordk_send_wr){ .wr_id = ((uint64_t)q << 40) | i, .num_sge = 1 };
	if (r->test == PERF_WRITE_BW)
		w->opcode = ORDK_WR_RDMA_WRITE;
	else if (r->test == PERF_SEND_BW) /* into the client's RECVs (perf_client_recv_again()) */
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
void
perf_server_step(struct ctx *x, struct side *s)
{
	perf_progress_work(s, ordk_dev_poll(s->dev, 64));
	if (perf_ctrl_poll(s)) {
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
