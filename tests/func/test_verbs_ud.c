/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD QPs through the ordk_* API, two bluesim devices on net_ring (and one
 * device sending to itself): datagrams with the 40-byte GRH (the sender's
 * IPv4 header in its last 20 bytes), the sender's QPN and immediate data in
 * the completion, every byte compared; a wrong Q_Key dropped and counted (and
 * IBA's privileged Q_Key sending the QP's own); messages above max_ud_msg and
 * RC opcodes refused at the post; no RECV and a RECV too small counted; an
 * answer through an AH made from the completion; eight QPs sending to one;
 * UD's state machine and its flush.
 */
#include <criterion/criterion.h>
#include <rte_errno.h>
#include <string.h>

#include "func_common.h"

#define QKEY  0x11111111u
#define RBUF  (256u << 10) /* RECV buffers at buf + RBUF, 8 KiB each */
#define RSLOT 8192u

static struct func_pair p;
/* what a test made, destroyed after it (the pair closes only once they are gone) */
static struct ordk_qp *qps[16];
static struct ordk_ah *ahs[8];
static unsigned int nqps, nahs;

static void
ud_init(void)
{
	func_pair_open(&p, 2u << 20, NULL);
}

static void
ud_fini(void)
{
	while (nqps > 0)
		ordk_qp_destroy(qps[--nqps]); /* -EINVAL for one a test destroyed itself */
	while (nahs > 0)
		ordk_ah_destroy(ahs[--nahs]);
	func_pair_close(&p);
}

TestSuite(verbs_ud, .init = ud_init, .fini = ud_fini, .timeout = 30);

/* A UD QP on side @p s, taken to RTS with Q_Key @p qkey. */
static struct ordk_qp *
ud_qp(int s, uint32_t qkey)
{
	struct ordk_qp_init_attr ia = { .send_cq = p.s[s].cq, .recv_cq = p.s[s].cq,
					.max_send_wr = 64, .max_recv_wr = 256,
					.qp_type = ORDK_QPT_UD, .max_inline_data = 64,
					.max_send_sge = 4 };
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qkey = qkey, .port_num = 1 };
	struct ordk_qp *qp = ordk_qp_create(p.s[s].pd, &ia);

	cr_assert_not_null(qp, "UD QP: %s", rte_strerror(rte_errno));
	qps[nqps++] = qp;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_QKEY | ORDK_QP_PKEY_INDEX |
						    ORDK_QP_PORT), 0);
	a.qp_state = ORDK_QPS_RTR;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE), 0);
	a.qp_state = ORDK_QPS_RTS;
	a.sq_psn = 0xABCDEF; /* any 24 bits: UD PSNs are not the card's */
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_SQ_PSN), 0);
	return qp;
}

/* An AH on side @p from to side @p to's device. */
static struct ordk_ah *
ah_to(int from, int to)
{
	struct ordk_ah_attr a = { .dest_ip = p.s[to].attr.ip, .dest_mac = p.s[to].attr.mac };
	struct ordk_ah *ah = ordk_ah_create(p.s[from].pd, &a);

	cr_assert_not_null(ah);
	ahs[nahs++] = ah;
	return ah;
}

static void
recv_at(int s, struct ordk_qp *qp, uint32_t slot, uint32_t len)
{
	struct ordk_recv_wr r = { .wr_id = 1000 + slot, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[s].buf + RBUF + slot * RSLOT, len,
				   p.s[s].mr->lkey };
	cr_assert_eq(ordk_qp_post_recv(qp, &r, 1), 1);
}

/* A datagram of @p len bytes from side @p s's buf + @p off. @return what post_send took. */
static int
send_ud(int s, struct ordk_qp *qp, struct ordk_ah *ah, uint32_t dqpn, uint32_t qkey, uint32_t off,
	uint32_t len, bool imm)
{
	struct ordk_send_wr w = { .wr_id = 7, .opcode = imm ? ORDK_WR_SEND_WITH_IMM : ORDK_WR_SEND,
				  .num_sge = 1, .send_flags = ORDK_SEND_SIGNALED,
				  .imm_data = 0xC0FFEE00u + len };

	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[s].buf + off, len, p.s[s].mr->lkey };
	w.ud.ah = ah;
	w.ud.remote_qpn = dqpn;
	w.ud.remote_qkey = qkey;
	return ordk_qp_post_send(qp, &w, 1);
}

static void
fill(int s, uint32_t off, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p.s[s].buf[off + i] = (uint8_t)(i * 13 + seed);
}

/* The GRH at @p g: 20 zero bytes, then the IPv4 header from @p src to @p dst. */
static void
check_grh(const uint8_t *g, uint32_t src, uint32_t dst)
{
	for (int i = 0; i < 20; i++)
		cr_assert_eq(g[i], 0, "GRH byte %d", i);
	cr_assert_eq(g[20], 0x45, "an IPv4 header in the GRH's last 20 bytes");
	cr_assert_eq(g[29], 17, "UDP");
	cr_assert_eq((uint32_t)g[32] << 24 | (uint32_t)g[33] << 16 | (uint32_t)g[34] << 8 | g[35], src);
	cr_assert_eq((uint32_t)g[36] << 24 | (uint32_t)g[37] << 16 | (uint32_t)g[38] << 8 | g[39], dst);
}

Test(verbs_ud, send_recv_with_grh)
{
	struct ordk_qp *a = ud_qp(0, QKEY), *b = ud_qp(1, QKEY);
	struct ordk_ah *ah = ah_to(0, 1);
	uint32_t max = p.s[0].attr.max_ud_msg;
	uint32_t sizes[] = { 0, 1, 255, 1000, max };
	struct ordk_wc wc[2];

	cr_assert_geq(max, 1024u, "max_ud_msg %u: a 1024-byte MTU must fit", max);
	for (unsigned int i = 0; i < 5; i++) {
		uint32_t len = sizes[i];

		fill(0, 0, len, (uint8_t)i);
		recv_at(1, b, i, RSLOT);
		cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), QKEY, 0, len, i % 2), 1);
		func_wait(&p, 0, wc, 1, 5);
		cr_assert_eq(wc[0].status, ORDK_WC_SUCCESS);
		cr_assert_eq(wc[0].opcode, ORDK_WC_SEND);
		func_wait(&p, 1, wc + 1, 1, 5);
		cr_assert_eq(wc[1].status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc[1].status));
		cr_assert_eq(wc[1].opcode, ORDK_WC_RECV);
		cr_assert_eq(wc[1].wr_id, 1000u + i);
		cr_assert_eq(wc[1].byte_len, ORDK_GRH_LEN + len, "byte_len counts the GRH");
		cr_assert_eq(wc[1].src_qp, ordk_qp_num(a));
		cr_assert_eq(wc[1].src_mac, p.s[0].attr.mac);
		cr_assert(wc[1].wc_flags & ORDK_WC_GRH);
		cr_assert_eq(!!(wc[1].wc_flags & ORDK_WC_WITH_IMM), i % 2);
		if (i % 2)
			cr_assert_eq(wc[1].imm_data, 0xC0FFEE00u + len);
		check_grh(p.s[1].buf + RBUF + i * RSLOT, p.s[0].attr.ip, p.s[1].attr.ip);
		cr_assert_eq(memcmp(p.s[1].buf + RBUF + i * RSLOT + ORDK_GRH_LEN, p.s[0].buf, len), 0,
			     "%u bytes", len);
	}
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, ud_sent), 5);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_received), 5);
	/* a frame per PSN: the 4096-byte message went in three (1982, 1982, 132) */
	cr_assert_eq(max, 4096u, "max_ud_msg: the port's MTU");
	cr_assert_eq(FUNC_QP_INFO(a, next_psn), (0xABCDEF + 4 + 3) & 0xFFFFFF);
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, ud_fragments), 3);
	cr_assert_eq(ordk_ah_destroy(ah), 0);
	cr_assert_eq(ordk_ah_destroy(ah), -EINVAL, "a stale AH");
	cr_assert_eq(ordk_qp_destroy(a), 0);
	cr_assert_eq(ordk_qp_destroy(b), 0);
}

/*
 * Messages longer than a frame (1982 bytes) go in fragments and land whole;
 * each gathered from three SGEs (and one inline, from memory in no MR).
 */
Test(verbs_ud, gathers_and_fragments)
{
	static const uint32_t sizes[] = { 3, 1982, 1983, 3000, 3964, 3965, 4096 };
	struct ordk_qp *a = ud_qp(0, QKEY), *b = ud_qp(1, QKEY);
	struct ordk_ah *ah = ah_to(0, 1);
	uint8_t stack[3][16];
	struct ordk_sge g[3];
	struct ordk_send_wr w = { .opcode = ORDK_WR_SEND_WITH_IMM, .num_sge = 3, .sg_list = g,
				  .send_flags = ORDK_SEND_SIGNALED };
	uint32_t frags = 0;
	struct ordk_wc wc;

	w.ud.ah = ah;
	w.ud.remote_qpn = ordk_qp_num(b);
	w.ud.remote_qkey = QKEY;
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) {
		uint32_t len = sizes[i], cut[3] = { len / 3, len / 3 + 1, len - 2 * (len / 3) - 1 };
		uint32_t at = 0;

		fill(0, 0, len, (uint8_t)i);
		for (int k = 0; k < 3; k++) { /* the message's bytes, 100 bytes apart in buf */
			memmove(p.s[0].buf + 8192 + at + 100u * k, p.s[0].buf + at, cut[k]);
			g[k] = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf + 8192 + at + 100u * k,
						  cut[k], p.s[0].mr->lkey };
			at += cut[k];
		}
		recv_at(1, b, i, RSLOT);
		w.wr_id = i;
		w.imm_data = len;
		cr_assert_eq(ordk_qp_post_send(a, &w, 1), 1, "%u bytes: %s", len, rte_strerror(rte_errno));
		func_wait(&p, 1, &wc, 1, 5);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
		cr_assert_eq(wc.byte_len, ORDK_GRH_LEN + len);
		cr_assert(wc.wc_flags & ORDK_WC_WITH_IMM);
		cr_assert_eq(wc.imm_data, len, "the immediate, on the LAST");
		cr_assert_eq(memcmp(p.s[1].buf + RBUF + i * RSLOT + ORDK_GRH_LEN, p.s[0].buf, len), 0,
			     "%u bytes", len);
		frags += len > 1982 ? (len + 1981) / 1982 : 0;
	}
	for (unsigned int i = 0; i < RTE_DIM(sizes); i++) { /* the SENDs, once each left */
		func_wait(&p, 0, &wc, 1, 5);
		cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
		cr_assert_eq(wc.wr_id, i);
	}
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, ud_fragments), frags);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_frag_dropped), 0);
	/* inline: three SGEs of memory in no MR, the caller's again at once */
	for (int k = 0; k < 3; k++) {
		memset(stack[k], 'x' + k, sizeof(stack[k]));
		g[k] = (struct ordk_sge){ (uint64_t)(uintptr_t)stack[k], sizeof(stack[k]), 0 };
	}
	w.send_flags |= ORDK_SEND_INLINE;
	recv_at(1, b, 20, RSLOT);
	cr_assert_eq(ordk_qp_post_send(a, &w, 1), 1);
	memset(stack, 0, sizeof(stack));
	func_wait(&p, 1, &wc, 1, 5);
	cr_assert_eq(wc.byte_len, ORDK_GRH_LEN + 48);
	for (int k = 0; k < 48; k++)
		cr_assert_eq(p.s[1].buf[RBUF + 20 * RSLOT + ORDK_GRH_LEN + k], 'x' + k / 16);
	/* a bad lkey in any SGE: EPERM at the post */
	w.send_flags = 0;
	for (int k = 0; k < 3; k++)
		g[k] = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, 8, p.s[0].mr->lkey };
	g[2].lkey ^= 0x40;
	cr_assert_eq(ordk_qp_post_send(a, &w, 1), 0);
	cr_assert_eq(rte_errno, EPERM);
}

Test(verbs_ud, inline_and_to_itself)
{
	struct ordk_qp *a = ud_qp(0, QKEY), *b = ud_qp(0, QKEY);
	struct ordk_ah *self = ah_to(0, 0);
	struct ordk_send_wr w = { .wr_id = 3, .opcode = ORDK_WR_SEND, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED | ORDK_SEND_INLINE };
	uint8_t bytes[48];
	struct ordk_wc wc[2];

	for (unsigned int i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(0x40 + i);
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)bytes, sizeof(bytes), 0 }; /* no MR */
	w.ud.ah = self;
	w.ud.remote_qpn = ordk_qp_num(b);
	w.ud.remote_qkey = QKEY;
	recv_at(0, b, 0, RSLOT);
	cr_assert_eq(ordk_qp_post_send(a, &w, 1), 1);
	memset(bytes, 0, sizeof(bytes)); /* inline: the caller's again at once */
	func_wait(&p, 0, wc, 2, 5);
	cr_assert_eq(wc[0].status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc[1].status, ORDK_WC_SUCCESS);
	for (unsigned int i = 0; i < sizeof(bytes); i++)
		cr_assert_eq(p.s[0].buf[RBUF + ORDK_GRH_LEN + i], 0x40 + i);
	check_grh(p.s[0].buf + RBUF, p.s[0].attr.ip, p.s[0].attr.ip);
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, inline_posted), 1);
}

Test(verbs_ud, qkey_mismatch_dropped_and_counted)
{
	struct ordk_qp *a = ud_qp(0, QKEY), *b = ud_qp(1, QKEY);
	struct ordk_ah *ah = ah_to(0, 1);
	struct ordk_qp_attr q = { .qkey = 0x22222222 };
	struct ordk_wc wc;

	fill(0, 0, 100, 9);
	recv_at(1, b, 0, RSLOT);
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), QKEY + 1, 0, 100, false), 1);
	func_wait(&p, 0, &wc, 1, 5); /* it left */
	func_idle(&p, 0.2);
	cr_assert_eq(ordk_cq_poll(p.s[1].cq, &wc, 1), 0, "a wrong Q_Key is dropped");
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_qkey_dropped), 1);
	cr_assert_eq(FUNC_QP_INFO(b, recv_posted), 1, "the RECV is still there");
	/* IBA 10.2.5: a remote_qkey with its high bit set sends the QP's own (QKEY) */
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), 0x80000000u, 0, 100, false), 1);
	func_wait(&p, 1, &wc, 1, 5);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	/* the receiver's Q_Key changes in RTS: the old one is now the wrong one */
	cr_assert_eq(ordk_qp_modify(b, &q, ORDK_QP_QKEY), 0);
	recv_at(1, b, 1, RSLOT);
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), QKEY, 0, 100, false), 1);
	func_idle(&p, 0.2);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_qkey_dropped), 2);
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), 0x22222222, 0, 100, false), 1);
	func_wait(&p, 1, &wc, 1, 5);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc.wr_id, 1001);
}

Test(verbs_ud, refused_at_post)
{
	struct ordk_qp *a = ud_qp(0, QKEY);
	struct ordk_ah *ah = ah_to(0, 1), *other = ah_to(1, 0);
	uint32_t max = p.s[0].attr.max_ud_msg;
	struct ordk_send_wr w = { .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1 };

	cr_assert_eq(send_ud(0, a, ah, 0x1234, QKEY, 0, max + 1, false), 0, "above max_ud_msg");
	cr_assert_eq(rte_errno, EINVAL);
	cr_assert_eq(send_ud(0, a, other, 0x1234, QKEY, 0, 8, false), 0, "another device's AH");
	cr_assert_eq(rte_errno, EINVAL);
	cr_assert_eq(send_ud(0, a, ah, 1u << 24, QKEY, 0, 8, false), 0, "a 25-bit QPN");
	cr_assert_eq(rte_errno, EINVAL);
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)p.s[0].buf, 8, p.s[0].mr->lkey };
	w.ud.ah = ah;
	cr_assert_eq(ordk_qp_post_send(a, &w, 1), 0, "a WRITE on a UD QP");
	cr_assert_eq(rte_errno, EINVAL);
	w.opcode = ORDK_WR_SEND;
	w.sge.lkey ^= 0x55;
	cr_assert_eq(ordk_qp_post_send(a, &w, 1), 0, "a bad lkey");
	cr_assert_eq(rte_errno, EPERM);
	cr_assert_eq(send_ud(0, a, ah, 0x1234, QKEY, 0, max, false), 1, "max_ud_msg goes");
	cr_assert_eq(FUNC_DEV_STAT(p.s[0].dev, wr_posted), 1);
}

Test(verbs_ud, drops_counted)
{
	struct ordk_qp *a = ud_qp(0, QKEY), *b = ud_qp(1, QKEY);
	struct ordk_ah *ah = ah_to(0, 1);
	struct ordk_wc wc;

	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), QKEY, 0, 64, false), 1);
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b) ^ 0x100, QKEY, 0, 64, false), 1);
	func_idle(&p, 0.2);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_no_recv_dropped), 1);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_bad), 1, "a QPN nobody has");
	/* a RECV shorter than GRH + message: LOC_LEN_ERR, the QP goes on (rxe) */
	recv_at(1, b, 0, ORDK_GRH_LEN + 63);
	recv_at(1, b, 1, RSLOT);
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), QKEY, 0, 64, false), 1);
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), QKEY, 0, 64, false), 1);
	func_wait(&p, 1, &wc, 1, 5);
	cr_assert_eq(wc.status, ORDK_WC_LOC_LEN_ERR);
	func_wait(&p, 1, &wc, 1, 5);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_len_errors), 1);
	cr_assert_eq(FUNC_QP_INFO(b, state), ORDK_QPS_RTS);
}

Test(verbs_ud, answer_through_an_ah_from_the_wc)
{
	struct ordk_qp *a = ud_qp(0, QKEY), *b = ud_qp(1, QKEY);
	struct ordk_ah *ah = ah_to(0, 1), *back;
	struct ordk_ah_attr got;
	struct ordk_wc wc[2];

	recv_at(1, b, 0, RSLOT);
	recv_at(0, a, 0, RSLOT);
	fill(0, 0, 200, 1);
	cr_assert_eq(send_ud(0, a, ah, ordk_qp_num(b), QKEY, 0, 200, false), 1);
	func_wait(&p, 1, wc, 1, 5);
	cr_assert_eq(ordk_ah_init_from_wc(wc, p.s[1].buf + RBUF, &got), 0);
	cr_assert_eq(got.dest_ip, p.s[0].attr.ip);
	cr_assert_eq(got.dest_mac, p.s[0].attr.mac);
	back = ordk_ah_create(p.s[1].pd, &got);
	cr_assert_not_null(back);
	ahs[nahs++] = back;
	fill(1, 0, 300, 2);
	cr_assert_eq(send_ud(1, b, back, wc[0].src_qp, QKEY, 0, 300, false), 1);
	func_wait(&p, 0, wc, 2, 5); /* the first SEND's completion, the answer */
	cr_assert_eq(wc[1].opcode, ORDK_WC_RECV);
	cr_assert_eq(wc[1].src_qp, ordk_qp_num(b));
	cr_assert_eq(memcmp(p.s[0].buf + RBUF + ORDK_GRH_LEN, p.s[1].buf, 300), 0);
	wc[0].wc_flags = 0;
	cr_assert_eq(ordk_ah_init_from_wc(wc, p.s[1].buf + RBUF, &got), -EINVAL, "no GRH");
	cr_assert_eq(ordk_pd_free(p.s[1].pd), -EBUSY, "an AH holds its PD");
	cr_assert_eq(ordk_ah_destroy(back), 0);
	nahs--; /* it was the last */
}

#define PEERS 8
#define EACH  32

Test(verbs_ud, many_peers_to_one_qp)
{
	struct ordk_qp *b = ud_qp(1, QKEY), *a[PEERS];
	struct ordk_ah *ah = ah_to(0, 1);
	struct ordk_wc wc[PEERS * EACH];
	uint32_t seen[PEERS] = { 0 };
	int got = 0;

	for (int i = 0; i < PEERS; i++) {
		a[i] = ud_qp(0, QKEY);
		p.s[0].buf[i * 64] = (uint8_t)i; /* each peer's tag */
	}
	for (uint32_t i = 0; i < PEERS * EACH; i++)
		recv_at(1, b, i % 128, RSLOT);
	for (int k = 0; k < EACH; k++)
		for (int i = 0; i < PEERS; i++)
			cr_assert_eq(send_ud(0, a[i], ah, ordk_qp_num(b), QKEY, (uint32_t)i * 64, 64,
					     false), 1);
	while (got < PEERS * EACH) {
		struct ordk_wc w[64];
		int n;

		func_wait(&p, 1, w, 1, 5);
		wc[got++] = w[0];
		n = ordk_cq_poll(p.s[1].cq, w, 64);
		for (int i = 0; i < n; i++)
			if (w[i].opcode == ORDK_WC_RECV)
				wc[got++] = w[i];
	}
	for (int i = 0; i < got; i++) {
		int who = -1;

		cr_assert_eq(wc[i].status, ORDK_WC_SUCCESS);
		for (int j = 0; j < PEERS; j++)
			if (wc[i].src_qp == ordk_qp_num(a[j]))
				who = j;
		cr_assert_geq(who, 0, "a sender we know");
		seen[who]++;
	}
	for (int j = 0; j < PEERS; j++)
		cr_assert_eq(seen[j], EACH, "peer %d: %u of %d", j, seen[j], EACH);
	cr_assert_eq(FUNC_DEV_STAT(p.s[1].dev, ud_received), PEERS * EACH);
}

Test(verbs_ud, state_machine_and_flush)
{
	struct ordk_qp_init_attr ia = { .send_cq = p.s[0].cq, .recv_cq = p.s[0].cq,
					.max_send_wr = 4, .max_recv_wr = 4, .qp_type = ORDK_QPT_UD };
	struct ordk_qp *qp = ordk_qp_create(p.s[0].pd, &ia);
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qkey = QKEY, .port_num = 1 };
	struct ordk_ah *ah = ah_to(0, 1);
	struct ordk_wc wc[2];

	cr_assert_not_null(qp);
	qps[nqps++] = qp;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_QKEY), -EINVAL,
		     "RESET->INIT needs PKEY_INDEX and PORT");
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_QKEY | ORDK_QP_PKEY_INDEX |
						    ORDK_QP_PORT | ORDK_QP_ACCESS_FLAGS), -EINVAL,
		     "UD takes no access flags");
	a.port_num = 2;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_QKEY | ORDK_QP_PKEY_INDEX |
						    ORDK_QP_PORT), -EINVAL, "port 2");
	a.port_num = 1;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_QKEY | ORDK_QP_PKEY_INDEX |
						    ORDK_QP_PORT), 0);
	recv_at(0, qp, 0, RSLOT); /* from INIT on */
	a.qp_state = ORDK_QPS_RTR;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_AV), -EINVAL, "no AV for UD");
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE), 0);
	cr_assert_eq(send_ud(0, qp, ah, 0x1234, QKEY, 0, 8, false), 0, "no send in RTR");
	a.qp_state = ORDK_QPS_RTS;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE), -EINVAL, "RTR->RTS needs SQ_PSN");
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_SQ_PSN), 0);
	a.qp_state = ORDK_QPS_ERR;
	cr_assert_eq(ordk_qp_modify(qp, &a, ORDK_QP_STATE), 0);
	cr_assert_eq(send_ud(0, qp, ah, 0x1234, QKEY, 0, 8, false), 1, "ERR takes WRs to flush");
	func_wait(&p, 0, wc, 2, 5);
	cr_assert_eq(wc[0].status, ORDK_WC_WR_FLUSH_ERR);
	cr_assert_eq(wc[0].opcode, ORDK_WC_RECV);
	cr_assert_eq(wc[1].status, ORDK_WC_WR_FLUSH_ERR);
	cr_assert_eq(ordk_qp_destroy(qp), 0);
}
