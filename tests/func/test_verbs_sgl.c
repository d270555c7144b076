/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gather lists through the ordk_* API over bluesim (architecture.md, "Gather
 * lists"): WRITE, WRITE_WITH_IMM, SEND, SEND_WITH_IMM and READ with 2 .. 16
 * SGEs (the device's max_sge) of lengths that put SGE boundaries inside
 * packets and on them, at PMTU 256, 1024 and 4096: one completion per WR,
 * the receiver's byte_len and immediate, every byte compared and the gaps
 * between a READ's SGEs untouched; a bad lkey or bounds in any one SGE
 * refused at the post (EPERM); num_sge above the QP's max_send_sge refused;
 * inline gathers; zero-length WRITEs (UCX's flush); a READ whose second part
 * the responder refuses completes once, with the error; and gathers under 3%
 * loss (the assembled packets resent).
 */
#include <criterion/criterion.h>
#include <rte_errno.h>
#include <string.h>

#include "func_common.h"

#define BUF  (4u << 20)
#define DST  (2u << 20) /* where a WRITE, SEND or READ's data lands: the upper half */
#define MAXS 16
#define GAP  37u	/* bytes between a list's SGEs, kept at 0xEE */

/* SGE lengths, in turn: tiny, packet sized, odd, and some spanning packets */
static const uint32_t lens[] = { 5, 1000, 1, 4097, 60, 3, 2048, 777, 9000, 2, 256, 100, 1023,
				 1025, 4, 3000 };

static uint64_t
va(const struct func_side *s, uint32_t off)
{
	return (uint64_t)(uintptr_t)s->buf + off;
}

/* QPs of @p max_sge SGEs (and 128 inline bytes) on both sides, connected at @p mtu. */
static void
sgl_qps(struct func_pair *p, enum ordk_mtu mtu, uint32_t max_sge)
{
	for (int i = 0; i < 2; i++) {
		struct ordk_qp_init_attr ia = { .send_cq = p->s[i].cq, .recv_cq = p->s[i].cq,
						.max_send_wr = 64, .max_recv_wr = 64,
						.max_inline_data = 128, .max_send_sge = max_sge };
		struct ordk_qp_init_attr got;

		p->s[i].qp = ordk_qp_create(p->s[i].pd, &ia);
		cr_assert_not_null(p->s[i].qp, "qp_create: %s", rte_strerror(rte_errno));
		cr_assert_eq(ordk_qp_query(p->s[i].qp, NULL, &got), 0);
		cr_assert_eq(got.max_send_sge, max_sge ? max_sge : 1);
	}
	func_connect(&p->s[0], p->s[0].qp, &p->s[1], p->s[1].qp, mtu);
}

static void
sgl_qps_close(struct func_pair *p)
{
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(ordk_qp_destroy(p->s[i].qp), 0);
		p->s[i].qp = NULL;
	}
}

/*
 * @p n SGEs on side @p s from its offset @p at, GAP bytes apart (gaps and
 * SGEs filled: the SGEs from @p seed, the gaps 0xEE), lengths from lens[]
 * starting at @p first. @return the total.
 */
static uint32_t
make_sgl(struct func_side *s, uint32_t at, uint32_t n, uint32_t first, uint32_t seed,
	 struct ordk_sge *g)
{
	uint32_t total = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t len = lens[(first + i) % MAXS];

		memset(s->buf + at, 0xEE, GAP);
		at += GAP;
		g[i] = (struct ordk_sge){ va(s, at), len, s->mr->lkey };
		for (uint32_t k = 0; k < len; k++)
			s->buf[at + k] = (uint8_t)((total + k) * 131 + seed);
		at += len;
		total += len;
	}
	memset(s->buf + at, 0xEE, GAP);
	return total;
}

/* The message of make_sgl()'s list, as the peer must see it. */
static bool
message_at(const uint8_t *b, uint32_t total, uint32_t seed)
{
	for (uint32_t k = 0; k < total; k++)
		if (b[k] != (uint8_t)(k * 131 + seed)) {
			cr_log_error("byte %u of %u: 0x%02x, want 0x%02x", k, total, b[k],
				     (uint8_t)(k * 131 + seed));
			return false;
		}
	return true;
}

/* One WR of @p op with @p n SGEs from side 0 to side 1, its data checked. */
static void
one(struct func_pair *p, enum ordk_wr_opcode op, uint32_t n, uint32_t first, uint64_t id)
{
	struct func_side *a = &p->s[0], *b = &p->s[1];
	bool read = op == ORDK_WR_RDMA_READ, recv = op == ORDK_WR_SEND ||
		    op == ORDK_WR_SEND_WITH_IMM || op == ORDK_WR_RDMA_WRITE_WITH_IMM;
	struct ordk_sge g[MAXS];
	struct ordk_send_wr wr = { .wr_id = id, .opcode = op, .send_flags = ORDK_SEND_SIGNALED,
				   .num_sge = (int)n, .sg_list = g, .imm_data = (uint32_t)id * 7 };
	struct ordk_recv_wr rr = { .wr_id = id + 1000, .num_sge = 1 };
	uint32_t seed = (uint32_t)id, total, roff = DST + 13, at = 0;
	struct ordk_wc wc;

	/* a READ's list is where the answer lands (side 0), its source side 1's */
	total = make_sgl(a, 0, n, first, seed, g);
	if (read) {
		for (uint32_t i = 0; i < n; i++)
			memset((void *)(uintptr_t)g[i].addr, 0x11, g[i].length);
		for (uint32_t k = 0; k < total; k++)
			b->buf[roff + k] = (uint8_t)(k * 131 + seed);
	} else {
		memset(b->buf + roff, 0x11, total + 64);
	}
	wr.rdma.remote_addr = va(b, roff);
	wr.rdma.rkey = b->mr->rkey;
	if (recv) {
		rr.sge = (struct ordk_sge){ va(b, roff), total + 64, b->mr->lkey };
		rr.num_sge = op == ORDK_WR_RDMA_WRITE_WITH_IMM ? 0 : 1;
		cr_assert_eq(ordk_qp_post_recv(b->qp, &rr, 1), 1);
	}
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1, "op %d, %u SGEs: %s", op, n,
		     rte_strerror(rte_errno));
	func_wait(p, 0, &wc, 1, 30);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "op %d, %u SGEs: %s", op, n,
		     ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, id, "one completion per WR, its own");
	if (recv) {
		func_wait(p, 1, &wc, 1, 30);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
		cr_assert_eq(wc.wr_id, id + 1000);
		if (op != ORDK_WR_RDMA_WRITE_WITH_IMM)
			cr_assert_eq(wc.byte_len, total, "byte_len %u, want %u", wc.byte_len, total);
		cr_assert_eq(!!(wc.wc_flags & ORDK_WC_WITH_IMM), op != ORDK_WR_SEND);
		if (op != ORDK_WR_SEND)
			cr_assert_eq(wc.imm_data, (uint32_t)id * 7);
	}
	if (!read) {
		cr_assert(message_at(b->buf + roff, total, seed), "op %d, %u SGEs", op, n);
		cr_assert_eq(b->buf[roff + total], 0x11, "nothing past the message");
		return;
	}
	for (uint32_t i = 0; i < n; i++) { /* each SGE its part, the gaps untouched */
		const uint8_t *s = (const uint8_t *)(uintptr_t)g[i].addr;

		for (uint32_t k = 0; k < g[i].length; k++)
			cr_assert_eq(s[k], (uint8_t)((at + k) * 131 + seed), "READ SGE %u byte %u", i, k);
		at += g[i].length;
		cr_assert_eq(s[-1], 0xEE, "the gap before SGE %u", i);
		cr_assert_eq(s[g[i].length], 0xEE, "the gap after SGE %u", i);
	}
}

FUNC_PAIR_SUITE(verbs_sgl, BUF, 120);

Test(verbs_sgl, every_opcode_2_to_max_sges)
{
	static const enum ordk_mtu mtus[] = { ORDK_MTU_256, ORDK_MTU_1024, ORDK_MTU_4096 };
	static const enum ordk_wr_opcode ops[] = { ORDK_WR_RDMA_WRITE, ORDK_WR_RDMA_WRITE_WITH_IMM,
						   ORDK_WR_SEND, ORDK_WR_SEND_WITH_IMM,
						   ORDK_WR_RDMA_READ };
	uint64_t id = 1;

	cr_assert_eq(p.s[0].attr.max_sge, MAXS, "the device gathers 16 SGEs");
	cr_assert_eq(p.s[0].attr.max_recv_sge, 1);
	for (unsigned int m = 0; m < 3; m++) {
		sgl_qps(&p, mtus[m], MAXS);
		for (unsigned int o = 0; o < 5; o++)
			for (uint32_t n = 2; n <= MAXS; n++)
				one(&p, ops[o], n, n + o, id++);
		sgl_qps_close(&p);
	}
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, wr_completed), id - 1, "a completion per WR");
}

Test(verbs_sgl, bad_lkeys_refused_per_sge)
{
	static const enum ordk_wr_opcode ops[] = { ORDK_WR_RDMA_WRITE, ORDK_WR_SEND,
						   ORDK_WR_RDMA_READ };
	struct ordk_mr *ro = ordk_mr_reg(p.s[0].pd, p.s[0].buf + (1u << 20), 4096, 0);
	struct ordk_sge g[4];
	struct ordk_send_wr wr = { .num_sge = 4, .sg_list = g };

	cr_assert_not_null(ro);
	sgl_qps(&p, ORDK_MTU_1024, 4);
	wr.rdma.remote_addr = va(&p.s[1], DST);
	wr.rdma.rkey = p.s[1].mr->rkey;
	for (unsigned int o = 0; o < 3; o++)
		for (int k = 0; k < 4; k++) {
			wr.opcode = ops[o];
			make_sgl(&p.s[0], 0, 4, 0, 1, g);
			g[k].lkey ^= 0x80; /* a stale key part */
			cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0, "op %d SGE %d", ops[o], k);
			cr_assert_eq(rte_errno, EPERM, "op %d: SGE %d's lkey", ops[o], k);
			g[k].lkey ^= 0x80;
			g[k].addr = va(&p.s[0], BUF - g[k].length / 2); /* runs past the MR */
			cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0);
			cr_assert_eq(rte_errno, EPERM, "op %d: SGE %d's bounds", ops[o], k);
			make_sgl(&p.s[0], 0, 4, 0, 1, g);
			g[k] = (struct ordk_sge){ (uint64_t)(uintptr_t)ro->addr, 64, ro->lkey };
			/* an MR without LOCAL_WRITE: fine to read from, not for a READ to land in */
			cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), ops[o] != ORDK_WR_RDMA_READ,
				     "op %d: SGE %d in an MR without LOCAL_WRITE", ops[o], k);
			if (ops[o] == ORDK_WR_RDMA_READ)
				cr_assert_eq(rte_errno, EPERM);
		}
	/* the two that went, a WRITE and a SEND (which waits for a RECV: none comes) */
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, wr_posted), 8);
	sgl_qps_close(&p);
	cr_assert_eq(ordk_mr_dereg(ro), 0);
}

Test(verbs_sgl, num_sge_bounds)
{
	struct ordk_qp_init_attr ia = { .send_cq = p.s[0].cq, .recv_cq = p.s[0].cq,
					.max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = MAXS + 1 };
	struct ordk_sge g[5];
	struct ordk_send_wr wr = { .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 5, .sg_list = g };

	cr_assert_null(ordk_qp_create(p.s[0].pd, &ia), "max_send_sge above the device's");
	cr_assert_eq(rte_errno, EINVAL);
	sgl_qps(&p, ORDK_MTU_1024, 4);
	make_sgl(&p.s[0], 0, 5, 0, 1, g);
	wr.rdma.remote_addr = va(&p.s[1], DST);
	wr.rdma.rkey = p.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0, "5 SGEs on a QP of 4");
	cr_assert_eq(rte_errno, EINVAL);
	wr.num_sge = 2;
	wr.sg_list = NULL;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0, "2 SGEs, no list");
	cr_assert_eq(rte_errno, EINVAL);
	wr.num_sge = -1;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0);
	cr_assert_eq(rte_errno, EINVAL);
	/* an atomic returns 8 bytes into one SGE: two are refused */
	wr = (struct ordk_send_wr){ .opcode = ORDK_WR_ATOMIC_FETCH_AND_ADD, .num_sge = 2, .sg_list = g };
	g[0] = (struct ordk_sge){ va(&p.s[0], 0), 8, p.s[0].mr->lkey };
	g[1] = (struct ordk_sge){ va(&p.s[0], 64), 0, p.s[0].mr->lkey };
	wr.atomic.remote_addr = va(&p.s[1], DST);
	wr.atomic.rkey = p.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0, "an atomic of two SGEs");
	cr_assert_eq(rte_errno, EINVAL);
	wr.num_sge = 1;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1, "of one, through sg_list");
	sgl_qps_close(&p);
	sgl_qps(&p, ORDK_MTU_1024, 0); /* 0: one, as before gather lists */
	sgl_qps_close(&p);
}

Test(verbs_sgl, zero_length_writes)
{
	struct ordk_sge g[2] = { { va(&p.s[0], 0), 0, p.s[0].mr->lkey },
				 { va(&p.s[0], 64), 0, 0xdead } };
	struct ordk_send_wr wr[4] = {
		{ .wr_id = 1, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
		  .send_flags = ORDK_SEND_SIGNALED },
		/* UCX's flush: no SGE, rkey 0, inline */
		{ .wr_id = 2, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 0,
		  .send_flags = ORDK_SEND_SIGNALED | ORDK_SEND_INLINE },
		{ .wr_id = 3, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 2, .sg_list = g,
		  .send_flags = ORDK_SEND_SIGNALED },
		{ .wr_id = 4, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 0,
		  .send_flags = ORDK_SEND_SIGNALED },
	};
	struct ordk_wc wc[4];

	sgl_qps(&p, ORDK_MTU_1024, 2);
	memset(p.s[0].buf, 0x5A, 1 << 20);
	wr[0].sge = (struct ordk_sge){ va(&p.s[0], 0), 1 << 20, p.s[0].mr->lkey };
	wr[0].rdma.remote_addr = va(&p.s[1], DST);
	wr[0].rdma.rkey = p.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, wr, 4), 4, "%s", rte_strerror(rte_errno));
	func_wait(&p, 0, wc, 4, 30);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS, "WR %d: %s", i,
			     ordk_wc_status_str(wc[i].status));
		cr_assert_eq(wc[i].wr_id, (uint64_t)i + 1, "in order: the WRITE before its flush");
		cr_assert_eq(wc[i].opcode, ORDK_WC_RDMA_WRITE);
	}
	for (uint32_t k = 0; k < (1u << 20); k += 4093)
		cr_assert_eq(p.s[1].buf[DST + k], 0x5A, "the MiB before the flush is there");
	sgl_qps_close(&p);
}

Test(verbs_sgl, inline_gathers)
{
	uint8_t bytes[3][40];
	struct ordk_sge g[3];
	struct ordk_send_wr wr = { .wr_id = 9, .opcode = ORDK_WR_SEND, .num_sge = 3, .sg_list = g,
				   .send_flags = ORDK_SEND_SIGNALED | ORDK_SEND_INLINE };
	struct ordk_recv_wr rr = { .wr_id = 10, .num_sge = 1 };
	struct ordk_wc wc;

	sgl_qps(&p, ORDK_MTU_1024, 3);
	for (int i = 0; i < 3; i++) {
		memset(bytes[i], 'a' + i, sizeof(bytes[i]));
		g[i] = (struct ordk_sge){ (uint64_t)(uintptr_t)bytes[i], 40, 0 }; /* no MR */
	}
	rr.sge = (struct ordk_sge){ va(&p.s[1], DST), 4096, p.s[1].mr->lkey };
	cr_assert_eq(ordk_qp_post_recv(p.s[1].qp, &rr, 1), 1);
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1);
	memset(bytes, 0, sizeof(bytes)); /* inline: the caller's again at once */
	func_wait(&p, 1, &wc, 1, 10);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc.byte_len, 120);
	for (int k = 0; k < 120; k++)
		cr_assert_eq(p.s[1].buf[DST + k], 'a' + k / 40);
	g[0].length = 100; /* 180 bytes: above the 128 the QP got */
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 0);
	cr_assert_eq(rte_errno, EINVAL);
	func_wait(&p, 0, &wc, 1, 10);
	cr_assert_eq(wc.wr_id, 9);
	sgl_qps_close(&p);
}

Test(verbs_sgl, a_refused_read_part_completes_its_wr_once)
{
	struct ordk_sge g[3];
	struct ordk_send_wr wr = { .wr_id = 77, .opcode = ORDK_WR_RDMA_READ, .num_sge = 3,
				   .sg_list = g, .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_send_wr after = { .wr_id = 78, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				      .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc[4];

	sgl_qps(&p, ORDK_MTU_1024, 3);
	make_sgl(&p.s[0], 0, 3, 1, 1, g); /* 1000, 1, 4097 bytes */
	/* the first part fits the peer's MR, the second runs past its end */
	wr.rdma.remote_addr = va(&p.s[1], BUF - 1000);
	wr.rdma.rkey = p.s[1].mr->rkey;
	after.sge = g[0];
	after.rdma = wr.rdma;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1);
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &after, 1), 1);
	func_wait(&p, 0, wc, 2, 30);
	cr_assert_eq(wc[0].wr_id, 77);
	cr_assert_eq(wc[0].status, ORDK_WC_REM_ACCESS_ERR, "%s", ordk_wc_status_str(wc[0].status));
	cr_assert_eq(wc[1].wr_id, 78, "the READ completed once: the next is the WRITE's");
	cr_assert_eq(wc[1].status, ORDK_WC_WR_FLUSH_ERR);
	func_idle(&p, 0.2);
	cr_assert_eq(ordk_cq_poll(p.s[0].cq, wc, 4), 0, "nothing more");
	cr_assert_eq(FUNC_QP_INFO(p.s[0].qp, state), ORDK_QPS_ERR);
	cr_assert_eq(FUNC_QP_INFO(p.s[0].qp, send_outstanding), 0);
	sgl_qps_close(&p);
}

/* Gathers under loss: packets assembled from several SGEs are resent from their slot. */
static struct func_pair lp;

static void
loss_init(void)
{
	func_pair_open(&lp, BUF, "fault=drop:0.03,seed=23");
}

static void
loss_fini(void)
{
	func_pair_close(&lp);
}

TestSuite(verbs_sgl_loss, .init = loss_init, .fini = loss_fini, .timeout = 120);

Test(verbs_sgl_loss, every_opcode_at_3_percent_loss)
{
	static const enum ordk_wr_opcode ops[] = { ORDK_WR_RDMA_WRITE, ORDK_WR_SEND_WITH_IMM,
						   ORDK_WR_RDMA_READ };
	uint64_t id = 1;

	sgl_qps(&lp, ORDK_MTU_1024, MAXS);
	for (int r = 0; r < 4; r++)
		for (unsigned int o = 0; o < 3; o++)
			for (uint32_t n = 2; n <= MAXS; n += 3)
				one(&lp, ops[o], n, n + (uint32_t)r, id++);
	cr_assert_gt(FUNC_DEV_STAT(lp.s[0].dev, retransmits) + FUNC_DEV_STAT(lp.s[1].dev, retransmits), 0,
		     "the loss made resends");
	sgl_qps_close(&lp);
}
