/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's lifetime as verbs programs use it, and inline sends, through
 * <infiniband/verbs.h> in one process: open, transfer, close and open again
 * (qperf does so once per test), two contexts on one device, and
 * IBV_SEND_INLINE (the buffer is the caller's again once ibv_post_send()
 * returns). meson runs it on a loopback bluesim and on an ethdev port
 * (net_ring, frames back to the sender) as a server and as a memif-style
 * client, whose last close stops its port.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <criterion/criterion.h>
#include <infiniband/verbs.h>

#include "abi_qp.h"

#define BUF 65536

static struct ibv_device *
ordk_device(void)
{
	static struct ibv_device *dev;
	int n = 0;
	struct ibv_device **l;

	if (dev != NULL)
		return dev;
	l = ibv_get_device_list(&n);
	cr_assert(l != NULL && n == 1);
	dev = l[0]; /* ORDK's device lives for the process */
	ibv_free_device_list(l);
	return dev;
}

/* What one context opens: a PD, a CQ, a buffer and two QPs wired to each other. */
struct side {
	struct ibv_context *c;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *a, *b;
	uint8_t *buf; /* [0, BUF/2): a's, [BUF/2, BUF): b's; each: a message, then a WRITE's */
};

static void
side_open(struct side *s, uint32_t max_inline)
{
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 16, .max_recv_wr = 16,
						.max_send_sge = 1, .max_recv_sge = 1,
						.max_inline_data = max_inline } };
	union ibv_gid gid;

	memset(s, 0, sizeof(*s));
	s->c = ibv_open_device(ordk_device());
	cr_assert_not_null(s->c, "ibv_open_device: %s", strerror(errno));
	s->pd = ibv_alloc_pd(s->c);
	s->cq = ibv_create_cq(s->c, 64, NULL, NULL, 0);
	s->buf = calloc(1, BUF);
	cr_assert(s->pd != NULL && s->cq != NULL && s->buf != NULL);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	cr_assert_not_null(s->mr);
	ia.send_cq = ia.recv_cq = s->cq;
	s->a = ibv_create_qp(s->pd, &ia);
	cr_assert_not_null(s->a, "ibv_create_qp: %s", strerror(errno));
	cr_assert_geq(ia.cap.max_inline_data, max_inline, "the QP got less inline than it asked");
	s->b = ibv_create_qp(s->pd, &ia);
	cr_assert_not_null(s->b);
	cr_assert_eq(ibv_query_gid(s->c, 1, 0, &gid), 0);
	abi_qp_to_rts(s->a, s->b->qp_num, &gid, 0x1234);
	abi_qp_to_rts(s->b, s->a->qp_num, &gid, 0x1234);
}

static void
side_close(struct side *s)
{
	cr_assert_eq(ibv_destroy_qp(s->a), 0);
	cr_assert_eq(ibv_destroy_qp(s->b), 0);
	cr_assert_eq(ibv_dereg_mr(s->mr), 0);
	cr_assert_eq(ibv_destroy_cq(s->cq), 0);
	cr_assert_eq(ibv_dealloc_pd(s->pd), 0);
	cr_assert_eq(ibv_close_device(s->c), 0);
	free(s->buf);
}

/* The next completion of @p s's CQ (a hang guard only: 20 s is never reached when it works). */
static struct ibv_wc
next_wc(struct side *s)
{
	struct timespec t0, t;
	struct ibv_wc wc;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		n = ibv_poll_cq(s->cq, 1, &wc);
		cr_assert_geq(n, 0);
		if (n == 1)
			return wc;
		clock_gettime(CLOCK_MONOTONIC, &t);
		cr_assert_lt(t.tv_sec - t0.tv_sec, 20, "no completion in 20 s");
	}
}

/* A SEND of @p len bytes a -> b and a WRITE b -> a, both checked at the receiver. */
static void
transfer(struct side *s, uint32_t len, uint8_t seed)
{
	uint8_t *ab = s->buf, *bb = s->buf + BUF / 2;
	struct ibv_sge ss = { (uintptr_t)ab, len, s->mr->lkey };
	struct ibv_sge rs = { (uintptr_t)bb, BUF / 4, s->mr->lkey };
	struct ibv_sge ws = { (uintptr_t)bb + BUF / 4, len, s->mr->lkey };
	struct ibv_recv_wr rw = { .wr_id = 1, .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr sw = { .wr_id = 2, .sg_list = &ss, .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bsw;
	struct ibv_send_wr ww = { .wr_id = 3, .sg_list = &ws, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { (uintptr_t)ab + BUF / 4, s->mr->rkey } };
	bool got[4] = { false };

	memset(s->buf, 0, BUF);
	for (uint32_t i = 0; i < len; i++) {
		ab[i] = (uint8_t)(seed + i);
		bb[BUF / 4 + i] = (uint8_t)(seed ^ i);
	}
	cr_assert_eq(ibv_post_recv(s->b, &rw, &brw), 0);
	cr_assert_eq(ibv_post_send(s->a, &sw, &bsw), 0);
	cr_assert_eq(ibv_post_send(s->b, &ww, &bsw), 0);
	for (int k = 0; k < 3; k++) {
		struct ibv_wc wc = next_wc(s);

		cr_assert_eq(wc.status, IBV_WC_SUCCESS, "wr %lu: %s", (unsigned long)wc.wr_id,
			     ibv_wc_status_str(wc.status));
		cr_assert(wc.wr_id >= 1 && wc.wr_id <= 3 && !got[wc.wr_id]);
		got[wc.wr_id] = true;
		if (wc.wr_id == 1)
			cr_assert_eq(wc.byte_len, len);
	}
	for (uint32_t i = 0; i < len; i++) {
		cr_assert_eq(bb[i], (uint8_t)(seed + i), "SEND byte %u", i);
		cr_assert_eq(ab[BUF / 4 + i], (uint8_t)(seed ^ i), "WRITE byte %u", i);
	}
}

/* qperf's pattern: every test opens the device, runs and closes it */
Test(ibverbs_life, open_transfer_close_five_times)
{
	for (int i = 0; i < 5; i++) {
		struct side s;

		side_open(&s, 0);
		transfer(&s, 4000, (uint8_t)(17 * i));
		side_close(&s);
	}
}

/* each context its own PD, CQ and QPs; closing one leaves the other working */
Test(ibverbs_life, two_contexts_on_one_device)
{
	struct side x, y;

	side_open(&x, 0);
	side_open(&y, 0);
	cr_assert_neq(x.c, y.c);
	transfer(&x, 3000, 1);
	transfer(&y, 5000, 2);
	side_close(&x);
	transfer(&y, 7000, 3);
	side_open(&x, 0); /* and one more while the other is open */
	transfer(&x, 100, 4);
	side_close(&y);
	transfer(&x, 200, 5);
	side_close(&x);
}

/* ----------------------------------------------------------------- inline */

Test(ibverbs_inline, max_inline_data_reported_and_limited)
{
	struct side s;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_qp_init_attr big = { .qp_type = IBV_QPT_RC,
					.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1,
						 .max_recv_sge = 1, .max_inline_data = 257 } };

	side_open(&s, 100);
	cr_assert_eq(ibv_query_qp(s.a, &qa, IBV_QP_CAP, &qi), 0);
	cr_assert_geq(qa.cap.max_inline_data, 100);
	cr_assert_leq(qa.cap.max_inline_data, 256);
	cr_assert_eq(qi.cap.max_inline_data, qa.cap.max_inline_data);
	/* above the device's 256: EINVAL, as rdma-core's providers */
	big.send_cq = big.recv_cq = s.cq;
	errno = 0;
	cr_assert_null(ibv_create_qp(s.pd, &big));
	cr_assert_eq(errno, EINVAL);
	big.cap.max_inline_data = 256;
	struct ibv_qp *q = ibv_create_qp(s.pd, &big);
	cr_assert_not_null(q, "256 inline bytes: %s", strerror(errno));
	cr_assert_eq(big.cap.max_inline_data, 256);
	cr_assert_eq(ibv_destroy_qp(q), 0);
	side_close(&s);
}

/* the caller's buffer, overwritten right after each post; the receiver sees what was posted */
Test(ibverbs_inline, send_and_write_copied_at_post)
{
	struct side s;
	uint8_t src[64], *bb;
	struct ibv_sge sge = { (uintptr_t)src, sizeof(src), 0xdeadbeef }; /* no MR: lkey unused */
	struct ibv_sge rs;
	struct ibv_recv_wr rw = { .sg_list = &rs, .num_sge = 1 }, *brw;
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1 }, *bw;
	enum ibv_wr_opcode ops[] = { IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
				     IBV_WR_RDMA_WRITE_WITH_IMM };
	const int n = 8; /* per opcode, all outstanding at once: each its own slot */

	side_open(&s, 64);
	bb = s.buf + BUF / 2;
	for (int o = 0; o < 4; o++) {
		bool is_send = ops[o] == IBV_WR_SEND || ops[o] == IBV_WR_SEND_WITH_IMM;
		bool imm = ops[o] == IBV_WR_SEND_WITH_IMM || ops[o] == IBV_WR_RDMA_WRITE_WITH_IMM;
		int want = n + (is_send || imm ? n : 0), got = 0;

		memset(s.buf, 0, BUF);
		for (int i = 0; i < n && (is_send || imm); i++) {
			rs = (struct ibv_sge){ (uintptr_t)bb + (uint32_t)i * 64, 64, s.mr->lkey };
			rw.wr_id = 100 + (uint64_t)i;
			cr_assert_eq(ibv_post_recv(s.b, &rw, &brw), 0);
		}
		for (int i = 0; i < n; i++) {
			for (int k = 0; k < 64; k++)
				src[k] = (uint8_t)(o * 61 + i * 7 + k);
			w.wr_id = (uint64_t)i;
			w.opcode = ops[o];
			w.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
			w.imm_data = htobe32(0x1000u + (uint32_t)i);
			w.wr.rdma.remote_addr = (uintptr_t)bb + 4096 + (uint32_t)i * 64;
			w.wr.rdma.rkey = s.mr->rkey;
			cr_assert_eq(ibv_post_send(s.a, &w, &bw), 0, "opcode %d, WR %d", ops[o], i);
			memset(src, 0xee, sizeof(src)); /* the caller's again */
		}
		while (got < want) {
			struct ibv_wc wc = next_wc(&s);

			cr_assert_eq(wc.status, IBV_WC_SUCCESS, "%s", ibv_wc_status_str(wc.status));
			got++;
		}
		for (int i = 0; i < n; i++) {
			const uint8_t *at = is_send ? bb + i * 64 : bb + 4096 + i * 64;

			for (int k = 0; k < 64; k++)
				cr_assert_eq(at[k], (uint8_t)(o * 61 + i * 7 + k), "opcode %d, WR %d, byte %d",
					     ops[o], i, k);
		}
	}
	side_close(&s);
}

Test(ibverbs_inline, read_atomic_and_too_long_refused)
{
	struct side s;
	uint8_t src[200] = { 0 };
	struct ibv_sge sge = { 0 };
	struct ibv_send_wr w = { .sg_list = &sge, .num_sge = 1, .send_flags = IBV_SEND_INLINE },
			   *bw = NULL;

	side_open(&s, 64);
	sge = (struct ibv_sge){ (uintptr_t)s.buf, 8, s.mr->lkey };
	w.wr.rdma.remote_addr = (uintptr_t)s.buf + BUF / 2;
	w.wr.rdma.rkey = s.mr->rkey;
	w.opcode = IBV_WR_RDMA_READ;
	cr_assert_eq(ibv_post_send(s.a, &w, &bw), EINVAL, "an inline READ");
	cr_assert_eq(bw, &w);
	w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	w.wr.atomic.remote_addr = (uintptr_t)s.buf + BUF / 2;
	w.wr.atomic.rkey = s.mr->rkey;
	cr_assert_eq(ibv_post_send(s.a, &w, &bw), EINVAL, "an inline atomic");
	/* above the QP's max_inline_data (64) */
	w.opcode = IBV_WR_SEND;
	sge = (struct ibv_sge){ (uintptr_t)src, sizeof(src), 0 };
	cr_assert_eq(ibv_post_send(s.a, &w, &bw), EINVAL, "200 inline bytes on a QP of 64");
	/* the QP is fine: a transfer still goes */
	transfer(&s, 1000, 9);
	side_close(&s);
}
