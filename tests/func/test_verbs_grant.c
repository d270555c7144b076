/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where data may land (issue 12, items 1, 8, 9, 10): a SEND longer than the
 * RECV it was matched to fails on both sides and lands nowhere; nothing lands
 * through a QP that is not in RTR or RTS; keys are not predictable.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "func_common.h"
#include "sim_host.h"

FUNC_PAIR_SUITE(verbs_grant, 1 << 20, 60);

static struct ordk_qp *
new_qp(struct func_side *s)
{
	struct ordk_qp_init_attr ia = { .send_cq = s->cq, .recv_cq = s->cq, .max_send_wr = 16,
					.max_recv_wr = 16 };
	struct ordk_qp *qp = ordk_qp_create(s->pd, &ia);

	cr_assert_not_null(qp, "qp_create: %s", rte_strerror(rte_errno));
	return qp;
}

static void
to_init(struct ordk_qp *qp)
{
	struct ordk_qp_attr at = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = 0xF };

	cr_assert_eq(ordk_qp_modify(qp, &at, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
}

/* INIT -> RTR -> RTS towards @p peer_qpn on @p peer, with a short timeout and one retry. */
static void
to_rts(struct ordk_qp *qp, const struct func_side *peer, uint32_t peer_qpn)
{
	struct ordk_qp_attr at = { .qp_state = ORDK_QPS_RTR, .path_mtu = ORDK_MTU_1024,
				   .dest_qp_num = peer_qpn, .dest_ip = peer->attr.ip,
				   .dest_mac = peer->attr.mac, .max_dest_rd_atomic = 16,
				   .min_rnr_timer = 12 };

	cr_assert_eq(ordk_qp_modify(qp, &at,
				    ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU |
					    ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
					    ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER),
		     0);
	at = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS, .timeout = 8, .retry_cnt = 1,
				    .rnr_retry = 7, .max_rd_atomic = 16 };
	cr_assert_eq(ordk_qp_modify(qp, &at,
				    ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
					    ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
					    ORDK_QP_MAX_QP_RD_ATOMIC),
		     0);
}

static enum ordk_qp_state
qp_state(const struct ordk_qp *qp)
{
	struct ordk_qp_attr at;

	cr_assert_eq(ordk_qp_query(qp, &at, NULL), 0);
	return at.qp_state;
}

/*
 * Side 0's QP @p qa WRITEs 256 B of 0x5A into side 1's buffer, whose QP is
 * not in RTR/RTS: the card must drop it (invalid QP context), and the
 * sender's retries run out. @return the bytes of the target that changed.
 */
static int
write_to_dead_qp(struct ordk_qp *qa)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	struct ordk_send_wr wr = { .wr_id = 7, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	uint64_t before = func_xstat(b->dev, "drop_invalid_qp_context");
	struct ordk_wc wc;
	int changed = 0;

	memset(b->buf, 0, 4096);
	memset(a->buf, 0x5A, 256);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, 256, a->mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf + 1024;
	wr.rdma.rkey = b->mr->rkey;
	cr_assert_eq(ordk_qp_post_send(qa, &wr, 1), 1);
	func_wait(&p, 0, &wc, 1, 20);
	cr_assert_eq(wc.wr_id, 7);
	cr_assert_neq(wc.status, ORDK_WC_SUCCESS, "a WRITE to a QP that cannot receive succeeded");
	for (int i = 0; i < 4096; i++)
		changed += b->buf[i] != 0;
	cr_expect_gt(func_xstat(b->dev, "drop_invalid_qp_context"), before,
		     "the card did not drop the WRITE for an invalid QP context");
	return changed;
}

/* Item 8: a QP in INIT has no valid context on the card. */
Test(verbs_grant, nothing_lands_through_a_qp_in_init)
{
	struct ordk_qp *qa = new_qp(&p.s[0]), *qb = new_qp(&p.s[1]);

	to_init(qb);
	to_init(qa);
	to_rts(qa, &p.s[1], ordk_qp_num(qb));
	cr_assert_eq(write_to_dead_qp(qa), 0, "a WRITE landed through a QP in INIT");
	cr_assert_eq(ordk_qp_destroy(qa), 0);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
}

/* Item 8: a QP moved to ERR by the application. */
Test(verbs_grant, nothing_lands_through_a_qp_moved_to_err)
{
	struct ordk_qp *qa = new_qp(&p.s[0]), *qb = new_qp(&p.s[1]);
	struct ordk_qp_attr at = { .qp_state = ORDK_QPS_ERR };

	to_init(qa);
	to_init(qb);
	to_rts(qa, &p.s[1], ordk_qp_num(qb));
	to_rts(qb, &p.s[0], ordk_qp_num(qa));
	cr_assert_eq(ordk_qp_modify(qb, &at, ORDK_QP_STATE), 0);
	cr_assert_eq(write_to_dead_qp(qa), 0, "a WRITE landed through a QP in ERR");
	cr_assert_eq(ordk_qp_destroy(qa), 0);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
}

/* Item 8: a QP the driver failed (retries exhausted: rc_qp_fail). */
Test(verbs_grant, nothing_lands_through_a_failed_qp)
{
	struct ordk_qp *qa = new_qp(&p.s[0]), *qb = new_qp(&p.s[1]);
	struct ordk_send_wr bad = { .wr_id = 9, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				    .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc;

	to_init(qa);
	to_init(qb);
	to_rts(qa, &p.s[1], ordk_qp_num(qb));
	to_rts(qb, &p.s[0], ordk_qp_num(qa));
	/* qb WRITEs with a key nobody has: the card drops it, qb's retries run out */
	bad.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[1].buf + 8192, 64, p.s[1].mr->lkey };
	bad.rdma.remote_addr = (uint64_t)(uintptr_t)p.s[0].buf;
	bad.rdma.rkey = p.s[0].mr->rkey ^ 0x80u;
	cr_assert_eq(ordk_qp_post_send(qb, &bad, 1), 1);
	func_wait(&p, 1, &wc, 1, 20);
	cr_assert_eq(wc.status, ORDK_WC_RETRY_EXC_ERR, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(qp_state(qb), ORDK_QPS_ERR);
	cr_assert_eq(write_to_dead_qp(qa), 0, "a WRITE landed through a failed QP");
	cr_assert_eq(ordk_qp_destroy(qa), 0);
	cr_assert_eq(ordk_qp_destroy(qb), 0);
}

static void
post_recv(struct ordk_qp *qp, uint64_t id, uint8_t *addr, uint32_t len, uint32_t lkey)
{
	struct ordk_recv_wr r = { .wr_id = id, .num_sge = 1,
				  .sge = { (uint64_t)(uintptr_t)addr, len, lkey } };

	cr_assert_eq(ordk_qp_post_recv(qp, &r, 1), 1);
}

static void
post_send(struct ordk_qp *qp, uint64_t id, uint8_t *addr, uint32_t len, uint32_t lkey)
{
	struct ordk_send_wr wr = { .wr_id = id, .opcode = ORDK_WR_SEND, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED,
				   .sge = { (uint64_t)(uintptr_t)addr, len, lkey } };

	cr_assert_eq(ordk_qp_post_send(qp, &wr, 1), 1);
}

/*
 * Item 1: RECVs of 64 B then 4096 B; SENDs of 1000 B then 100 B. IBTA: the
 * RECV completes with LOC_LEN_ERR, the SEND with REM_INV_REQ_ERR, both QPs go
 * to ERR and every later WR is flushed; nothing lands in either RECV.
 */
Test(verbs_grant, send_longer_than_its_recv)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	struct ordk_wc wa[2], wb[2];

	func_pair_qps(&p, ORDK_MTU_1024, 16);
	memset(b->buf, 0xEE, 16384);
	memset(a->buf, 0x11, 1000);
	memset(a->buf + 4096, 0x22, 100);
	post_recv(b->qp, 1, b->buf, 64, b->mr->lkey);
	post_recv(b->qp, 2, b->buf + 4096, 4096, b->mr->lkey);
	post_send(a->qp, 11, a->buf, 1000, a->mr->lkey);
	post_send(a->qp, 12, a->buf + 4096, 100, a->mr->lkey);
	func_wait(&p, 0, wa, 2, 10);
	func_wait(&p, 1, wb, 2, 10);
	cr_assert_eq(wa[0].wr_id, 11);
	cr_assert_eq(wa[0].status, ORDK_WC_REM_INV_REQ_ERR, "%s", ordk_wc_status_str(wa[0].status));
	cr_assert_eq(wa[1].wr_id, 12);
	cr_assert_eq(wa[1].status, ORDK_WC_WR_FLUSH_ERR, "%s", ordk_wc_status_str(wa[1].status));
	cr_assert_eq(wb[0].wr_id, 1);
	cr_assert_eq(wb[0].status, ORDK_WC_LOC_LEN_ERR, "%s", ordk_wc_status_str(wb[0].status));
	cr_assert_eq(wb[1].wr_id, 2);
	cr_assert_eq(wb[1].status, ORDK_WC_WR_FLUSH_ERR, "%s", ordk_wc_status_str(wb[1].status));
	cr_assert_eq(qp_state(a->qp), ORDK_QPS_ERR);
	cr_assert_eq(qp_state(b->qp), ORDK_QPS_ERR);
	func_idle(&p, 0.05);
	for (int i = 0; i < 16384; i++)
		cr_assert_eq(b->buf[i], 0xEE, "byte %d of the receiver written", i);
	/* the QPs come back through RESET and work again */
	{
		struct ordk_qp_attr at = { .qp_state = ORDK_QPS_RESET };

		cr_assert_eq(ordk_qp_modify(a->qp, &at, ORDK_QP_STATE), 0);
		cr_assert_eq(ordk_qp_modify(b->qp, &at, ORDK_QP_STATE), 0);
		func_connect(a, a->qp, b, b->qp, ORDK_MTU_1024);
		post_recv(b->qp, 3, b->buf, 4096, b->mr->lkey);
		post_send(a->qp, 13, a->buf, 1000, a->mr->lkey);
		func_wait(&p, 0, wa, 1, 10);
		func_wait(&p, 1, wb, 1, 10);
		cr_assert_eq(wa[0].status, ORDK_WC_SUCCESS);
		cr_assert_eq(wb[0].status, ORDK_WC_SUCCESS);
		cr_assert_eq(wb[0].byte_len, 1000);
		cr_assert_eq(memcmp(b->buf, a->buf, 1000), 0);
	}
}

/*
 * Item 10, what is left (doc/guides/drivers/blue_hw_interface.md, card limits): the card
 * compares no PD. A peer that knows the rkey of an MR in PD2 WRITEs into it
 * through a QP of PD1, and READs from it only not: the driver answers READs
 * and checks the PD there. This test shows the limit as it stands; when the
 * card gets a PD check (the RTL change in the table) the WRITE must fail and
 * this test changes with the table.
 */
Test(verbs_grant, card_limit_cross_pd_write_with_a_known_key)
{
	struct func_side *a = &p.s[0], *b = &p.s[1];
	struct ordk_pd *pd2 = ordk_pd_alloc(b->dev);
	uint8_t *m2 = test_aligned(4096, 8192);
	struct ordk_mr *mr2;
	struct ordk_send_wr wr = { .wr_id = 21, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc;

	cr_assert_not_null(pd2);
	memset(m2, 0, 8192);
	mr2 = ordk_mr_reg(pd2, m2, 8192, ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE |
						 ORDK_ACCESS_REMOTE_READ);
	cr_assert_not_null(mr2);
	func_pair_qps(&p, ORDK_MTU_1024, 16); /* b's QP is in b's first PD, not pd2 */
	memset(a->buf, 0x6B, 64);
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, 64, a->mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)m2;
	wr.rdma.rkey = mr2->rkey;
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1);
	func_wait(&p, 0, &wc, 1, 10);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(m2[0], 0x6B, "the card limit changed: update the card-limits table");
	/* a READ through the same QP is refused by the driver (PD checked) */
	wr = (struct ordk_send_wr){ .wr_id = 22, .opcode = ORDK_WR_RDMA_READ, .num_sge = 1,
				    .send_flags = ORDK_SEND_SIGNALED,
				    .sge = { (uint64_t)(uintptr_t)a->buf + 4096, 64, a->mr->lkey } };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)m2;
	wr.rdma.rkey = mr2->rkey;
	cr_assert_eq(ordk_qp_post_send(a->qp, &wr, 1), 1);
	func_wait(&p, 0, &wc, 1, 20);
	cr_assert_neq(wc.status, ORDK_WC_SUCCESS, "a READ crossed the PD boundary");
	cr_assert_eq(ordk_qp_destroy(a->qp), 0);
	a->qp = NULL;
	cr_assert_eq(ordk_qp_destroy(b->qp), 0);
	b->qp = NULL;
	cr_assert_eq(ordk_mr_dereg(mr2), 0);
	cr_assert_eq(ordk_pd_free(pd2), 0);
	free(m2);
}
