/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * examples/kv_transfer's pattern under bluesim's seeded faults: blocks
 * WRITTEN striped over several QPs, each source buffer taken back by the
 * application the moment its WR completes (kv_transfer zeroes its slots for
 * the READs that follow), READ back into zeroed buffers, a SEND telling the
 * responder a round is done; every byte checked at both ends. The responder's
 * memory is marked before each round, so a packet never placed shows as the
 * mark and a source read after completion as the poison.
 *
 * Each round uses regions of its own at both ends: a late copy of a resent
 * READ response can still land in a READ's buffer after it completed (open:
 * see doc/guides/prog_guide/verbs.md, Reliability, "hazards"), and a late
 * WRITE duplicate in a WRITE's target.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func_common.h"
#include "sim_host.h"

#define KV_NQP	  4u
#define KV_NBLK	  4u
#define KV_BLK	  (1u << 20)
#define KV_ROUNDS 2u
#define KV_AREA	  ((size_t)KV_NBLK * KV_BLK)
#define KV_POISON 0x5A
#define KV_MARK	  0xEE

struct kv_rig {
	struct func_pair p;
	struct ordk_qp *qa[KV_NQP], *qb[KV_NQP];
};

static uint8_t
kv_byte(uint32_t i, uint32_t seed)
{
	return (uint8_t)((i * 2654435761u + seed * 40503u) >> 13);
}

/* The first byte of @p b that differs from block @p seed's, or KV_BLK. */
static uint32_t
kv_check(const uint8_t *b, uint32_t seed)
{
	for (uint32_t i = 0; i < KV_BLK; i++)
		if (b[i] != kv_byte(i, seed))
			return i;
	return KV_BLK;
}

static void
kv_open(struct kv_rig *k, const char *faults, enum ordk_mtu mtu)
{
	struct ordk_qp_init_attr ia = { .max_send_wr = 64, .max_recv_wr = 64 };

	/* side 0: the sources, then one READ area per round; side 1: one area per round */
	func_pair_open(&k->p, KV_AREA * (KV_ROUNDS + 1), faults);
	for (uint32_t q = 0; q < KV_NQP; q++) {
		ia.send_cq = ia.recv_cq = k->p.s[0].cq;
		k->qa[q] = ordk_qp_create(k->p.s[0].pd, &ia);
		ia.send_cq = ia.recv_cq = k->p.s[1].cq;
		k->qb[q] = ordk_qp_create(k->p.s[1].pd, &ia);
		cr_assert(k->qa[q] != NULL && k->qb[q] != NULL);
		func_connect(&k->p.s[0], k->qa[q], &k->p.s[1], k->qb[q], mtu);
	}
}

static void
kv_close(struct kv_rig *k)
{
	for (uint32_t q = 0; q < KV_NQP; q++) {
		cr_assert_eq(ordk_qp_destroy(k->qa[q]), 0);
		cr_assert_eq(ordk_qp_destroy(k->qb[q]), 0);
	}
	func_pair_close(&k->p);
}

/*
 * Every block's stripes (stripe s on QP s) between side 0 at @p loff and
 * side 1 at @p roff, all posted, then polled to completion; @p poison: a
 * WRITE's source stripe is overwritten the moment its completion is seen.
 */
static void
kv_transfer_all(struct kv_rig *k, enum ordk_wr_opcode op, size_t loff, size_t roff, bool poison)
{
	struct func_side *a = &k->p.s[0], *b = &k->p.s[1];
	const uint32_t stripe = KV_BLK / KV_NQP;
	uint32_t left = KV_NBLK * KV_NQP;
	double end = test_now_s() + 60;

	for (uint32_t s = 0; s < KV_NBLK * KV_NQP; s++) {
		uint64_t off = (uint64_t)s * stripe;
		struct ordk_send_wr wr = { .wr_id = off, .opcode = op, .num_sge = 1,
					   .send_flags = ORDK_SEND_SIGNALED };

		wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf + loff + off, stripe,
					    a->mr->lkey };
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf + roff + off;
		wr.rdma.rkey = b->mr->rkey;
		cr_assert_eq(ordk_qp_post_send(k->qa[s % KV_NQP], &wr, 1), 1);
	}
	while (left > 0) {
		struct ordk_wc wc[16];
		int n;

		ordk_dev_poll(b->dev, 64);
		n = ordk_cq_poll(a->cq, wc, 16);
		cr_assert_geq(n, 0);
		for (int j = 0; j < n; j++) {
			cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "%s at %lu: %s",
				     op == ORDK_WR_RDMA_WRITE ? "WRITE" : "READ",
				     (unsigned long)wc[j].wr_id, ordk_wc_status_str(wc[j].status));
			if (poison)
				memset(a->buf + loff + wc[j].wr_id, KV_POISON, stripe);
			left--;
		}
		cr_assert(test_now_s() < end, "%u stripes still in flight after 60 s", left);
	}
}

/* The round's end: a SEND the responder's RECV gets, as kv_transfer's BYE. */
static void
kv_notify(struct kv_rig *k, uint32_t round)
{
	struct func_side *a = &k->p.s[0], *b = &k->p.s[1];
	struct ordk_send_wr wr = { .wr_id = 900 + round, .opcode = ORDK_WR_SEND_WITH_IMM,
				   .num_sge = 1, .imm_data = round,
				   .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_recv_wr rr = { .wr_id = 800 + round, .num_sge = 1 };
	struct ordk_wc wc;

	rr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)b->buf, 64, b->mr->lkey };
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, 16, a->mr->lkey };
	cr_assert_eq(ordk_qp_post_recv(k->qb[0], &rr, 1), 1);
	cr_assert_eq(ordk_qp_post_send(k->qa[0], &wr, 1), 1);
	func_wait(&k->p, 0, &wc, 1, 30);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "SEND: %s", ordk_wc_status_str(wc.status));
	func_wait(&k->p, 1, &wc, 1, 30);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc.imm_data, round, "the RECV got round %u's SEND", wc.imm_data);
}

static void
kv_verify(const struct kv_rig *k, const char *faults, uint32_t r, size_t at_a, size_t at_b)
{
	const uint8_t *a = k->p.s[0].buf + at_a, *b = k->p.s[1].buf + at_b;

	for (uint32_t i = 0; i < KV_NBLK; i++) {
		uint32_t eb = kv_check(b + (size_t)i * KV_BLK, r * KV_NBLK + i);
		uint32_t ea = kv_check(a + (size_t)i * KV_BLK, r * KV_NBLK + i);

		cr_assert(eb == KV_BLK && ea == KV_BLK,
			  "%s round %u block %u: the responder's copy differs at %u (%02x; mark "
			  "%02x = never placed, poison %02x = source read after completion), the "
			  "one read back at %u", faults, r, i, eb,
			  eb < KV_BLK ? b[(size_t)i * KV_BLK + eb] : 0, KV_MARK, KV_POISON, ea);
	}
}

static void
kv_run(const char *faults, enum ordk_mtu mtu)
{
	struct kv_rig k;
	struct func_side *a, *b;
	struct ordk_stats sa, sb;

	kv_open(&k, faults, mtu);
	a = &k.p.s[0];
	b = &k.p.s[1];
	for (uint32_t r = 0; r < KV_ROUNDS; r++) {
		size_t area = KV_AREA * (r + 1); /* this round's READ area (side 0), target (side 1) */

		for (uint32_t i = 0; i < KV_NBLK; i++)
			for (uint32_t j = 0; j < KV_BLK; j++)
				a->buf[(size_t)i * KV_BLK + j] = kv_byte(j, r * KV_NBLK + i);
		memset(b->buf + area, KV_MARK, KV_AREA);
		memset(a->buf + area, 0, KV_AREA);
		kv_transfer_all(&k, ORDK_WR_RDMA_WRITE, 0, area, true);
		kv_transfer_all(&k, ORDK_WR_RDMA_READ, area, area, false);
		kv_notify(&k, r);
		kv_verify(&k, faults, r, area, area);
	}
	cr_assert_eq(ordk_dev_stats(a->dev, &sa), 0);
	cr_assert_eq(ordk_dev_stats(b->dev, &sb), 0);
	printf("%s: %lu retransmissions, %lu NAKs, %lu timeouts\n", faults,
	       (unsigned long)(sa.retransmits + sb.retransmits),
	       (unsigned long)(sa.naks_received + sb.naks_received),
	       (unsigned long)(sa.timeouts + sb.timeouts));
	kv_close(&k);
}

/* Drop, duplicate, reorder and delay, both ways, at PMTU 512 and 4096 (func_fault_mixes()). */
Test(fault_kv, blocks_put_and_got_under_every_fault, .timeout = 120)
{
	for (unsigned int v = 0; v < func_fault_mixes(); v++) {
		char list[96], f[224];

		func_fault_mix(list, sizeof(list), "drop,dup,reorder,delay", "0.02", v);
		snprintf(f, sizeof(f), "fault=%s,seed=%u|fault=%s,seed=%u", list, 41 + 4 * v, list,
			 42 + 4 * v);
		kv_run(f, ORDK_MTU_512);
	}
	kv_run("fault=drop:0.05,reorder:0.05,delay:0.05,seed=43|"
	       "fault=drop:0.05,reorder:0.05,delay:0.05,seed=44", ORDK_MTU_4096);
}
