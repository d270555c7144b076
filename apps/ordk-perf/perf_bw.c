/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's bandwidth runs: the client's WR of every test (atomics
 * included), -I's staging, send_bw -b's RECVs, the BW loop and its row.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "app_common.h"

#include "perf_engine.h"

/*
 * send_bw -b: the client receives the server's SENDs too (perftest's duplex:
 * both sides send and receive). RECVs of the largest size of the run sit in
 * each QP's region (the data is not checked with -b), one posted again for
 * each that completes.
 */
int
perf_client_recv_again(struct side *c, uint32_t q, uint32_t len)
{
	struct ordk_recv_wr rr = { .wr_id = q, .num_sge = 1 };

	rr.sge = (struct ordk_sge){ perf_region_addr(c, q), len, c->mr->lkey };
	return ordk_qp_post_recv(c->qp[q], &rr, 1) == 1 ? 0 : -1;
}

/* Post @p wc's RECV again; @return -1 on a failed completion (reported) or post. */
int
perf_client_recv_done(struct ctx *x, const struct ordk_wc *wc)
{
	struct side *c = &x->c;
	uint32_t q = (uint32_t)wc->wr_id;

	if (wc->status != ORDK_WC_SUCCESS) {
		perf_wc_error("send_bw -b, receive", wc->status);
		c->failed = true;
		return -1;
	}
	c->rx_count++;
	c->last_work = rte_get_tsc_cycles();
	if (q >= c->nqp || perf_client_recv_again(c, q, perf_max_size(x->o)) != 0) {
		fprintf(stderr, "ordk-perf: send_bw -b: cannot post a RECV again\n");
		c->failed = true;
		return -1;
	}
	return 0;
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
	stage = perf_region(c, q) + c->slot / 2 + (i % x->o->tx_depth) * x->o->inline_size;
	memcpy(stage, (const void *)(uintptr_t)laddr, size);
	return (uint64_t)(uintptr_t)stage;
}

void
perf_client_wr(struct ctx *x, uint32_t q, uint64_t i, struct ordk_send_wr *w)
{
	struct side *c = &x->c;
	uint32_t size = c->in.size;
	uint64_t laddr = perf_region_addr(c, q), raddr = c->raddr + (uint64_t)q * c->slot;

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

/*
 * Take the BW run's completions: QP q's WRs up to a signaled one are done
 * (done[q]), each stamped for the peak (r->tc, *nc of them so far); send_bw
 * -b's receives are posted again. @return -1 on a failed completion (reported).
 */
static int
bw_reap(struct ctx *x, struct run *r, uint64_t *done, uint64_t *nc)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	struct ordk_wc wc[64];
	int n = ordk_cq_poll(c->cq, wc, 64);
	uint64_t now = rte_get_tsc_cycles(), m = *nc;

	if (n > 0)
		c->last_work = now;
	for (int i = 0; i < n; i++) {
		uint32_t q = (uint32_t)(wc[i].wr_id >> 40);
		uint64_t upto = (wc[i].wr_id & ((1ull << 40) - 1)) + 1;

		if (wc[i].opcode >= ORDK_WC_RECV) { /* send_bw -b: the server's SENDs */
			if (perf_client_recv_done(x, &wc[i]) != 0)
				return -1;
			continue;
		}
		if (wc[i].status != ORDK_WC_SUCCESS) {
			char where[64];

			snprintf(where, sizeof(where), "%s, QP %u", perf_test_name(o->test), q);
			perf_wc_error(where, wc[i].status);
			c->failed = true;
			return -1;
		}
		if (q >= c->nqp || upto <= done[q])
			continue;
		for (uint64_t k = done[q]; k < upto; k++, m++)
			if (m < PEAK_MAX && r->tc)
				r->tc[m] = now;
		done[q] = upto;
	}
	*nc = m;
	return 0;
}

/* BW: keep tx_depth WRs in flight on every QP, a completion every cq_mod. */
int
perf_client_bw(struct ctx *x, struct run *r)
{
	const struct perf_opts *o = x->o;
	struct side *c = &x->c;
	uint64_t posted[PERF_MAX_QPS] = { 0 }, done[PERF_MAX_QPS] = { 0 }, np = 0, nc = 0;
	bool final[PERF_MAX_QPS] = { false }, timeup = false;
	double t0 = ordk_env_now_s(), stop = t0 + o->duration;
	uint64_t next = rte_get_tsc_cycles() + x->hz;

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

				perf_client_wr(x, q, posted[q], &w);
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
		if (bw_reap(x, r, done, &nc) != 0)
			return -1;
		r->msgs = nc;
		if (o->loopback)
			perf_server_step(x, &x->s);
		perf_progress_line(x, r, t0, &next);
		if (!perf_alive(x)) {
			fprintf(stderr, "ordk-perf: %s stalled: %" PRIu64 " of %" PRIu64
					" messages completed\n", perf_test_name(o->test), nc, np);
			return -1;
		}
	}
	r->secs = ordk_env_now_s() - t0;
	r->msgs = nc;
	return 0;
}

/* The BW row of a round. */
void
perf_bw_row(struct ctx *x, const struct run *r, struct perf_bw *b)
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
