/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf: one side's objects (device, PD, control QP, data QPs, registered
 * regions) and its control channel (the messages of perf_engine.h).
 */
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "app_common.h"

#include "perf_engine.h"

/* A failed completion, named as ibverbs names it (perftest scripts grep for these). */
void
perf_wc_error(const char *where, enum ordk_wc_status st)
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

int
perf_side_open(struct side *s, const char *args, bool server)
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
int
perf_side_data(struct side *s, const struct perf_opts *o, uint32_t nqp, uint32_t slot)
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

int
perf_side_connect(struct side *s, const struct perf_opts *o)
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

void
perf_side_stats(const struct side *s, const char *who)
{
	struct ordk_stats st;

	if (s->dev == NULL || ordk_dev_stats(s->dev, &st) != 0)
		return;
	fprintf(stderr, "ordk-perf: %s %s counters:\n", who, s->at.name);
	app_print_stats(stderr, &st, false);
	fprintf(stderr, "ordk-perf: %s %s model counters:\n", who, s->at.name);
	app_print_xstats(stderr, s->dev, false);
}

void
perf_side_close(struct side *s)
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

void
perf_ctrl_post_recv(struct side *s, uint32_t i)
{
	struct ordk_recv_wr r = { .wr_id = i, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)(s->cbuf + (size_t)i * MSG_SIZE), MSG_SIZE,
				   s->cmr->lkey };
	ordk_qp_post_recv(s->cqp, &r, 1);
}

int
perf_ctrl_send(struct side *s, struct perf_msg *m)
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
int
perf_ctrl_poll(struct side *s)
{
	struct ordk_wc wc[4];
	int n = ordk_cq_poll(s->ccq, wc, 4), got = 0;

	for (int i = 0; i < n; i++) {
		if (wc[i].status != ORDK_WC_SUCCESS) {
			if (!s->failed) /* the first: the flushes after it say nothing new */
				perf_wc_error("control QP", wc[i].status);
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
		perf_ctrl_post_recv(s, (uint32_t)wc[i].wr_id);
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

/* The local addresses of every QP, then the remote ones (perftest's order). */
void
perf_side_addrs(const struct perf_opts *o, const struct side *s)
{
	for (int remote = 0; remote < 2; remote++)
		for (uint32_t q = 0; q < s->nqp; q++) {
			struct perf_addr a = { .qpn = ordk_qp_num(s->qp[q]), .rkey = s->mr->rkey,
					       .vaddr = perf_region_addr(s, q),
					       .ip = s->at.ip };

			if (remote)
				a = (struct perf_addr){ .qpn = s->rqpn[q], .rkey = s->rkey,
							.vaddr = s->raddr + (uint64_t)q * s->slot,
							.ip = s->peer.ip };
			perf_print_addr(stdout, remote ? "remote" : "local", o, &a);
		}
}
