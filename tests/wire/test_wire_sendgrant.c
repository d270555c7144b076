/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a SEND may land (issue 12, items 2 and 9): only in the buffer of the
 * RECV it was matched to, and never after that RECV's completion. Crafted
 * SEND packets aimed at the user's MRs (LOCAL_WRITE-only or not) are refused
 * by the card; a spoofed zero-length SEND can complete a RECV, but then the
 * real SEND cannot write into that buffer any more.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "wire_common.h"

#define LEN (1u << 20)

static void
post_recv(struct func_side *s, uint64_t id, uint8_t *addr, uint32_t len)
{
	struct ordk_recv_wr r = { .wr_id = id, .num_sge = 1,
				  .sge = { (uint64_t)(uintptr_t)addr, len, s->mr->lkey } };

	cr_assert_eq(ordk_qp_post_recv(s->qp, &r, 1), 1);
}

/* A SEND_ONLY of @p len bytes of @p fill at side 1's next PSN, to @p va with @p rkey. */
static void
inject_send(struct wire_env *w, uint64_t va, uint32_t rkey, uint32_t len, uint8_t fill)
{
	uint8_t data[256];
	struct blue_wire_rdma pkt = { 0 };

	cr_assert_leq(len, sizeof(data));
	memset(data, fill, sizeof(data));
	pkt.bth = (struct blue_wire_bth){ .trans = BLUE_TRANS_RC, .opcode = BLUE_OP_SEND_ONLY,
					  .psn = FUNC_QP_INFO(w->p.s[1].qp, expected_psn), .msn = 3 };
	pkt.reth = (struct blue_wire_reth){ .va = va, .rkey = rkey, .dlen = len };
	wire_inject_rdma(w, 1, &pkt, data, len);
}

/* Poll until side 1's card counted one more @p drop, or @p buf[0..n) changed from @p v. */
static void
wait_drop_or_write(struct wire_env *w, const char *drop, uint64_t before, const uint8_t *buf,
		   size_t n, uint8_t v)
{
	for (double end = test_now_s() + 5; test_now_s() < end;) {
		func_idle(&w->p, 0.001);
		if (func_xstat(w->p.s[1].dev, drop) > before)
			return;
		for (size_t i = 0; i < n; i++)
			if (buf[i] != v)
				return;
	}
	cr_assert_fail("neither dropped nor placed in 5 s");
}

static int
recv_completions(struct wire_env *w)
{
	struct ordk_wc wc[4];

	func_idle(&w->p, 0.02);
	return ordk_cq_poll(w->p.s[1].cq, wc, 4);
}

/* Item 9: a SEND packet aimed at an MR registered with LOCAL_WRITE only. */
Test(wire_sendgrant, send_into_a_local_write_mr_refused)
{
	struct wire_env w;
	uint8_t *lw = NULL;
	struct ordk_mr *mr;
	uint64_t before;

	wire_open(&w, LEN, NULL, 64);
	cr_assert_eq(posix_memalign((void **)&lw, 4096, 16384), 0);
	memset(lw, 0, 16384);
	mr = ordk_mr_reg(w.p.s[1].pd, lw, 16384, ORDK_ACCESS_LOCAL_WRITE);
	cr_assert_not_null(mr);
	post_recv(&w.p.s[1], 5, w.p.s[1].buf, 4096);
	before = func_xstat(w.p.s[1].dev, "drop_invalid_mr_access");
	inject_send(&w, (uint64_t)(uintptr_t)lw + 1000, mr->lkey, 64, 0x77);
	wait_drop_or_write(&w, "drop_invalid_mr_access", before, lw, 16384, 0);
	for (int i = 0; i < 16384; i++)
		cr_assert_eq(lw[i], 0, "a SEND landed in a LOCAL_WRITE-only MR (byte %d)", i);
	cr_assert_eq(recv_completions(&w), 0, "the posted RECV completed, untouched");
	cr_assert_eq(ordk_mr_dereg(mr), 0);
	free(lw);
	wire_close(&w);
}

/* Item 9: a SEND packet aimed at the second RECV's buffer through the user's MR key. */
Test(wire_sendgrant, send_outside_its_recv_refused)
{
	struct wire_env w;
	struct func_side *b;
	uint64_t before;

	wire_open(&w, LEN, NULL, 64);
	b = &w.p.s[1];
	memset(b->buf, 0xEE, 16384);
	post_recv(b, 1, b->buf, 64);
	post_recv(b, 2, b->buf + 8192, 4096);
	before = func_xstat(b->dev, "drop_invalid_mr_access");
	inject_send(&w, (uint64_t)(uintptr_t)b->buf + 8192, b->mr->lkey, 64, 0x77);
	wait_drop_or_write(&w, "drop_invalid_mr_access", before, b->buf + 8192, 64, 0xEE);
	for (int i = 0; i < 16384; i++)
		cr_assert_eq(b->buf[i], 0xEE, "a SEND landed outside its RECV (byte %d)", i);
	cr_assert_eq(recv_completions(&w), 0, "a RECV completed");
	wire_close(&w);
}

/*
 * Item 2: a zero-length SEND injected with the next PSN completes the RECV
 * (0 bytes: nothing tells it from a real one); the peer's real SEND, bound to
 * that RECV's advert, must then not land in its buffer.
 */
Test(wire_sendgrant, nothing_lands_after_a_recv_completed)
{
	struct wire_env w;
	struct func_side *a, *b;
	struct ordk_send_wr wr = { .wr_id = 9, .opcode = ORDK_WR_SEND, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc;

	wire_open(&w, LEN, NULL, 64);
	a = &w.p.s[0];
	b = &w.p.s[1];
	memset(b->buf, 0xEE, 8192);
	post_recv(b, 1, b->buf, 4096);
	/* the peer has the advert: its SEND will be bound to this RECV */
	for (double end = test_now_s() + 5; FUNC_QP_INFO(a->qp, recv_adverts) == 0 && test_now_s() < end;)
		func_idle(&w.p, 0.001);
	cr_assert_eq(FUNC_QP_INFO(a->qp, recv_adverts), 1, "no advert");
	inject_send(&w, 0, 0, 0, 0);
	func_wait(&w.p, 1, &wc, 1, 5);
	cr_assert_eq(wc.wr_id, 1);
	cr_assert_eq(wc.byte_len, 0);
	/* the RECV is the application's again; the real SEND comes now */
	memset(a->buf, 0x33, 1000);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, 1000, a->mr->lkey };
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1);
	func_wait(&w.p, 0, &wc, 1, 10);
	cr_assert_eq(wc.wr_id, 9);
	func_idle(&w.p, 0.05);
	for (int i = 0; i < 8192; i++)
		cr_assert_eq(b->buf[i], 0xEE, "byte %d written after its RECV completed", i);
	wire_close(&w);
}
