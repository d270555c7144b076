/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Soak (suite 'soak'; issue 12): bidirectional mixed traffic (WRITE,
 * WRITE_IMM, SEND, READ, FETCH_AND_ADD, CMP_AND_SWP) in rounds, with RECVs of
 * random sizes; in every fourth round one RECV is too small on purpose. The
 * only error completions allowed are that length error (REM_INV_REQ_ERR at
 * the sender, LOC_LEN_ERR at the receiver) and the flushes it causes; the
 * pair is then reset and reconnected. Every byte is checked by the receiver.
 * Loss-free (no NAK, retransmit, timeout or loss report of a PSN that can be
 * lost), 1%, and 5% of every fault for each of SOAK_SEEDS (default ten
 * seeds), each case SOAK_SECONDS long (default 60). SOAK_KINDS (default
 * every fault) and SOAK_RATE (0.05) change the faults of the seeded cases.
 * On rtl=1 no case combines dup with delay (func_fault_mixes()).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "func_common.h"
#include "sim_host.h"

#define MB	   (1u << 20)
#define BUF	   (32u * MB)
#define NOPS	   12u
#define SLOT	   (64u * 1024)
#define OPS_AREA(r) (((r) % 8u) * 2u * MB)	       /* sources, READ targets, atomic results */
#define RECV_AREA  (16u * MB)			       /* RECV buffers: 32 slots */
#define WR_AREA(r) (18u * MB + ((r) % 8u) * MB)	       /* the peer's WRITEs land here */
#define READ_SRC   (26u * MB)			       /* never written: READs read it */
#define COUNTER(d) (30u * MB + (d) * 64u)	       /* atomics of direction d */

enum op { OP_WRITE, OP_WRITE_IMM, OP_SEND, OP_READ, OP_FADD, OP_CSWP };

struct plan {
	enum op op[NOPS];
	uint32_t len[NOPS], rlen[NOPS], recv_of[NOPS];
	uint32_t nrecv;
	uint64_t expect_orig[NOPS];
};

static struct func_pair p;

static uint8_t
pat(uint32_t round, int dir, uint32_t i, uint32_t off)
{
	return (uint8_t)(round * 131u + (uint32_t)dir * 71u + i * 29u + off * 7u + (off >> 8));
}

/*
 * Connect (again), from PSN 0 (the card's bitmap takes PSN 0 cleanly after
 * ManageQp; another start costs a spurious loss report). Before a reconnect
 * the wire is drained (reset_pair), so no frame of the last connection
 * arrives in the new one.
 */
static void
connect_pair(void)
{
	const uint32_t psn = 0;

	for (int i = 0; i < 2; i++) {
		struct ordk_qp *qp = p.s[i].qp;
		const struct func_side *peer = &p.s[1 - i];
		struct ordk_qp_attr at = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = 0xF };

		cr_assert_eq(ordk_qp_modify(qp, &at, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS), 0);
		at = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTR, .path_mtu = ORDK_MTU_1024,
					    .dest_qp_num = ordk_qp_num(p.s[1 - i].qp),
					    .rq_psn = psn, .dest_ip = peer->attr.ip,
					    .dest_mac = peer->attr.mac, .max_dest_rd_atomic = 16,
					    .min_rnr_timer = 12 };
		cr_assert_eq(ordk_qp_modify(qp, &at,
					    ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU |
						    ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
						    ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER),
			     0);
	}
	for (int i = 0; i < 2; i++) {
		struct ordk_qp_attr at = { .qp_state = ORDK_QPS_RTS, .sq_psn = psn, .timeout = 10,
					   .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 16 };

		cr_assert_eq(ordk_qp_modify(p.s[i].qp, &at,
					    ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
						    ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
						    ORDK_QP_MAX_QP_RD_ATOMIC),
			     0);
	}
}

static void
reset_pair(void)
{
	struct ordk_qp_attr at = { .qp_state = ORDK_QPS_RESET };

	/* both QPs are in ERR (no timers, no resends): what is on the wire drains
	 * into contexts the cards no longer have (bluesim delays frames 100 us) */
	func_idle(&p, 0.01);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(ordk_qp_modify(p.s[i].qp, &at, ORDK_QP_STATE), 0);
	connect_pair();
}

/* Plan and post direction @p dir (side dir sends to side 1 - dir) of round @p r. */
static void
post_dir(uint32_t r, int dir, bool len_error, struct plan *pl)
{
	struct func_side *s = &p.s[dir], *t = &p.s[1 - dir];
	uint64_t counter;
	int bad = len_error ? (int)(rand() % NOPS) : -1;

	memcpy(&counter, t->buf + COUNTER(dir), 8);
	memset(pl, 0, sizeof(*pl));
	for (uint32_t i = 0; i < NOPS; i++) {
		enum op o = (enum op)(rand() % 6);
		uint8_t *src = s->buf + OPS_AREA(r) + i * SLOT;
		struct ordk_send_wr wr = { .wr_id = i, .num_sge = 1,
					   .send_flags = ORDK_SEND_SIGNALED };

		if ((int)i == bad)
			o = OP_SEND;
		if (o == OP_READ && getenv("SOAK_NO_READ") != NULL)
			o = OP_WRITE; /* to tell READ trouble from the rest */
		pl->op[i] = o;
		pl->len[i] = 1 + (uint32_t)rand() % SLOT;
		if (o == OP_FADD || o == OP_CSWP)
			pl->len[i] = 8;
		for (uint32_t k = 0; k < pl->len[i] && o != OP_READ; k++)
			src[k] = pat(r, dir, i, k);
		wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)src, pl->len[i], s->mr->lkey };
		if (o == OP_SEND || o == OP_WRITE_IMM) {
			uint32_t rl = o == OP_SEND ? pl->len[i] + (uint32_t)rand() % 4096 : 0;
			struct ordk_recv_wr rw = { .wr_id = 1000 + i, .num_sge = rl ? 1 : 0 };

			if ((int)i == bad)
				rl = pl->len[i] > 1 ? pl->len[i] / 2 : 0; /* too small on purpose */
			rl = RTE_MIN(rl, SLOT);
			rw.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)t->buf + RECV_AREA +
							    pl->nrecv * SLOT,
						    rl, t->mr->lkey };
			rw.num_sge = rl ? 1 : 0;
			pl->rlen[i] = rl;
			pl->recv_of[i] = pl->nrecv++;
			memset(t->buf + RECV_AREA + pl->recv_of[i] * SLOT, 0xEE, SLOT);
			cr_assert_eq(ordk_qp_post_recv(t->qp, &rw, 1), 1);
		}
		switch (o) {
		case OP_WRITE:
		case OP_WRITE_IMM:
			wr.opcode = o == OP_WRITE ? ORDK_WR_RDMA_WRITE : ORDK_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = r * 100 + i;
			wr.rdma.remote_addr = (uint64_t)(uintptr_t)t->buf + WR_AREA(r) + i * SLOT;
			wr.rdma.rkey = t->mr->rkey;
			break;
		case OP_SEND:
			wr.opcode = ORDK_WR_SEND;
			break;
		case OP_READ:
			wr.opcode = ORDK_WR_RDMA_READ;
			wr.rdma.remote_addr = (uint64_t)(uintptr_t)t->buf + READ_SRC + i * 4096;
			wr.rdma.rkey = t->mr->rkey;
			break;
		default:
			wr.opcode = o == OP_FADD ? ORDK_WR_ATOMIC_FETCH_AND_ADD
						 : ORDK_WR_ATOMIC_CMP_AND_SWP;
			wr.atomic.remote_addr = (uint64_t)(uintptr_t)t->buf + COUNTER(dir);
			wr.atomic.rkey = t->mr->rkey;
			wr.atomic.compare_add = o == OP_FADD ? i + 1 : counter;
			wr.atomic.swap = counter + 1000;
			pl->expect_orig[i] = counter;
			counter = o == OP_FADD ? counter + i + 1 : counter + 1000;
			break;
		}
		cr_assert_eq(ordk_qp_post_send(s->qp, &wr, 1), 1, "post op %u", i);
	}
}

/* What the cards dropped and why, the RTL's lock, and the RC counters (for a failure's log). */
static void
dump_counters(void);

static void
dump_counters(void)
{
	for (int i = 0; i < 2; i++) {
		const char *names[256];
		uint64_t vals[256];
		struct ordk_stats st;
		struct ordk_qp_info qi;
		int k = ordk_dev_xstats(p.s[i].dev, names, vals, 256);

		for (int j = 0; j < k && j < 256; j++)
			if (vals[j] != 0 && (strncmp(names[j], "drop", 4) == 0 ||
					     strncmp(names[j], "rtl_", 4) == 0 ||
					     strcmp(names[j], "rx_psn_stale") == 0))
				cr_log_error("side %d: %s %lu", i, names[j], (unsigned long)vals[j]);
		ordk_dev_stats(p.s[i].dev, &st);
		if (ordk_qp_info(p.s[i].qp, &qi) == 0)
			cr_log_error("side %d: qp state %d next_psn 0x%06x acked 0x%06x epsn 0x%06x "
				     "%u WRs out, %u READs, requester %s, timer %s, hole %s, probe %s",
				     i, (int)qi.state, qi.next_psn, qi.acked_psn, qi.expected_psn,
				     qi.send_outstanding, qi.reads_outstanding, qi.req_state,
				     qi.comp_state, qi.hole_state, qi.probe_state);
		cr_log_error("side %d: naks_sent %lu retransmits %lu timeouts %lu dup %lu "
			     "read_req_rejected %lu reports_unexpected %lu",
			     i, (unsigned long)st.naks_sent, (unsigned long)st.retransmits,
			     (unsigned long)st.timeouts, (unsigned long)st.duplicates,
			     (unsigned long)st.read_req_rejected, (unsigned long)st.reports_unexpected);
	}
}

/* Check side @p dir's send completions and side 1 - dir's RECVs; @return errors seen. */
static unsigned int
check_dir(uint32_t r, int dir, const struct plan *pl, const struct ordk_wc *wc, unsigned int n,
	  const struct ordk_wc *rwc, unsigned int rn)
{
	struct func_side *s = &p.s[dir], *t = &p.s[1 - dir];
	unsigned int errs = 0, k = 0;

	cr_assert_eq(n, NOPS);
	cr_assert_eq(rn, pl->nrecv);
	for (unsigned int j = 0; j < n; j++) {
		uint32_t i = (uint32_t)wc[j].wr_id;
		const uint8_t *dst = s->buf + OPS_AREA(r) + i * SLOT;

		cr_assert_eq(i, j, "send completions in order");
		if (wc[j].status != ORDK_WC_SUCCESS) {
			if (wc[j].status == ORDK_WC_RETRY_EXC_ERR)
				dump_counters();
			cr_assert(wc[j].status == ORDK_WC_WR_FLUSH_ERR ||
					  (wc[j].status == ORDK_WC_REM_INV_REQ_ERR &&
					   pl->op[i] == OP_SEND && pl->rlen[i] < pl->len[i]),
				  "round %u dir %d op %u (%d, %u B): %s", r, dir, i, pl->op[i], pl->len[i],
				  ordk_wc_status_str(wc[j].status));
			errs++;
			continue;
		}
		cr_assert(!(pl->op[i] == OP_SEND && pl->rlen[i] < pl->len[i]),
			  "a SEND longer than its RECV succeeded");
		if (pl->op[i] == OP_READ)
			cr_assert_eq(memcmp(dst, t->buf + READ_SRC + i * 4096, pl->len[i]), 0,
				     "READ data, round %u op %u", r, i);
		if (pl->op[i] == OP_WRITE || pl->op[i] == OP_WRITE_IMM)
			for (uint32_t b = 0; b < pl->len[i]; b++)
				cr_assert_eq(t->buf[WR_AREA(r) + i * SLOT + b], pat(r, dir, i, b),
					     "WRITE byte %u, round %u op %u", b, r, i);
		if (pl->op[i] == OP_FADD || pl->op[i] == OP_CSWP) {
			uint64_t orig;

			memcpy(&orig, dst, 8);
			cr_assert_eq(orig, pl->expect_orig[i], "atomic original, round %u op %u", r,
				     i);
		}
	}
	for (unsigned int j = 0; j < rn; j++) {
		uint32_t i = (uint32_t)(rwc[j].wr_id - 1000);
		const uint8_t *rb = t->buf + RECV_AREA + pl->recv_of[i] * SLOT;

		while (k < NOPS && pl->op[k] != OP_SEND && pl->op[k] != OP_WRITE_IMM)
			k++;
		cr_assert_eq(i, k, "RECVs complete in order");
		k++;
		if (rwc[j].status != ORDK_WC_SUCCESS) {
			cr_assert(rwc[j].status == ORDK_WC_WR_FLUSH_ERR ||
					  (rwc[j].status == ORDK_WC_LOC_LEN_ERR &&
					   pl->rlen[i] < pl->len[i]),
				  "RECV round %u op %u: %s", r, i, ordk_wc_status_str(rwc[j].status));
			if (rwc[j].status == ORDK_WC_LOC_LEN_ERR)
				for (uint32_t b = 0; b < SLOT; b++)
					cr_assert_eq(rb[b], 0xEE, "a too small RECV was written");
			errs++;
			continue;
		}
		if (pl->op[i] == OP_WRITE_IMM) {
			cr_assert_eq(rwc[j].opcode, ORDK_WC_RECV_RDMA_WITH_IMM);
			cr_assert_eq(rwc[j].imm_data, r * 100 + i);
			continue;
		}
		cr_assert_eq(rwc[j].byte_len, pl->len[i]);
		for (uint32_t b = 0; b < pl->len[i]; b++)
			cr_assert_eq(rb[b], pat(r, dir, i, b), "SEND byte %u, round %u op %u", b, r,
				     i);
		for (uint32_t b = pl->len[i]; b < pl->rlen[i]; b++)
			cr_assert_eq(rb[b], 0xEE, "past the SEND in its RECV");
	}
	return errs;
}

/* Collect every completion of a round on both sides (each WR completes once). */
static void
collect(const struct plan pl[2], struct ordk_wc out[2][2][NOPS], unsigned int cnt[2][2])
{
	double end = test_now_s() + 30;
	struct ordk_wc wc[32];

	memset(cnt, 0, sizeof(unsigned int) * 4);
	for (;;) {
		bool done = true;

		for (int side = 0; side < 2; side++) {
			int k = ordk_cq_poll(p.s[side].cq, wc, 32);

			for (int j = 0; j < k; j++) {
				bool recv = wc[j].wr_id >= 1000;
				/* side's send completions are direction side; its RECVs direction 1 - side */
				int dir = recv ? 1 - side : side;

				cr_assert_lt(cnt[dir][recv], NOPS);
				out[dir][recv][cnt[dir][recv]++] = wc[j];
			}
		}
		for (int d = 0; d < 2; d++)
			done &= cnt[d][0] == NOPS && cnt[d][1] == pl[d].nrecv;
		if (done)
			return;
		if (test_now_s() >= end)
			dump_counters();
		cr_assert_lt(test_now_s(), end, "completions missing after 30 s");
	}
}

/* Seconds of each case: SOAK_SECONDS, or @p dflt. */
static double
soak_seconds(double dflt)
{
	const char *e = getenv("SOAK_SECONDS");

	return e != NULL && atof(e) > 0 ? atof(e) : dflt;
}

/*
 * The loss-free check, every counter printed: on a clean wire nothing is
 * NAKed, resent or timed out, and no loss report of the peer's card names a
 * PSN that can be lost (those count in naks_received). The card does report
 * every window that slides out with a PSN it never tracks (a READ request,
 * a length error's announcement: no payload, RQ.bsv), both on the spec and
 * on rtl=1; those name nothing lost and are printed, not checked
 * (card_naks_untracked, the card's loss_detected).
 */
static void
check_loss_free(void)
{
	static const char *const checked[] = { "naks_sent", "naks_received", "retransmits",
					       "timeouts", "retry_exceeded", "read_req_rejected",
					       "read_req_deferred" };

	for (int i = 0; i < 2; i++) {
		struct ordk_stats st;

		cr_assert_eq(ordk_dev_stats(p.s[i].dev, &st), 0);
		cr_log_info("side %d: card loss reports loss_detected %lu (peer: %lu named only "
			    "untracked PSNs, card_naks_untracked), duplicates %lu",
			    i, (unsigned long)func_xstat(p.s[i].dev, "loss_detected"),
			    (unsigned long)st.card_naks_untracked, (unsigned long)st.duplicates);
		for (unsigned int c = 0; c < RTE_DIM(checked); c++)
			for (unsigned int k = 0; k < ORDK_STATS_COUNT; k++) {
				uint64_t v = ordk_stats_value(&st, k);

				if (strcmp(ordk_stats_name(k), checked[c]) != 0)
					continue;
				cr_log_info("side %d: %s %lu", i, checked[c], (unsigned long)v);
				cr_expect_eq(v, 0, "side %d: %s %lu on a loss-free wire", i, checked[c],
					     (unsigned long)v);
			}
	}
}

static void
soak(const char *faults, double seconds, bool loss_free)
{
	static struct plan pl[2];
	static struct ordk_wc wc[2][2][NOPS];
	unsigned int cnt[2][2], rounds = 0, len_errors = 0;
	double end;

	func_pair_open(&p, BUF, faults);
	for (int i = 0; i < 2; i++) {
		struct ordk_qp_init_attr ia = { .send_cq = p.s[i].cq, .recv_cq = p.s[i].cq,
						.max_send_wr = 64, .max_recv_wr = 64 };

		p.s[i].qp = ordk_qp_create(p.s[i].pd, &ia);
		cr_assert_not_null(p.s[i].qp);
		for (uint32_t b = 0; b < 2 * MB; b++)
			p.s[i].buf[READ_SRC + b] = (uint8_t)(b * 13 + (uint32_t)i);
	}
	connect_pair();
	srand(12345);
	end = test_now_s() + seconds;
	for (uint32_t r = 0; test_now_s() < end; r++) {
		bool err_round = r % 4 == 3 && getenv("SOAK_NO_LEN_ERR") == NULL;
		unsigned int errs = 0;

		/* one direction only gets a too small RECV: the other must not race to ERR first */
		post_dir(r, 0, err_round && r % 8 == 3, &pl[0]);
		post_dir(r, 1, err_round && r % 8 == 7, &pl[1]);
		collect(pl, wc, cnt);
		for (int d = 0; d < 2; d++)
			errs += check_dir(r, d, &pl[d], wc[d][0], cnt[d][0], wc[d][1], cnt[d][1]);
		if (errs > 0) {
			len_errors++;
			reset_pair();
		}
		rounds++;
	}
	cr_log_info("%s: %u rounds, %u ended in an intended length error", faults ? faults : "clean",
		    rounds, len_errors);
	cr_assert_gt(rounds, 8);
	if (loss_free)
		check_loss_free();
	func_pair_close(&p);
}

Test(fault_mixed_soak, loss_free, .timeout = 900)
{
	soak(NULL, soak_seconds(60), true);
}

/*
 * "fault=" @p kinds at @p rate, both ways, and @p seed. On rtl=1 a mix that
 * has both dup and delay leaves one out, in turn by @p index: a delayed
 * duplicate locks the RTL's bitmap unit, which no requester can prevent
 * (doc/guides/drivers/bluesim.md; func_fault_mixes()).
 */
static const char *
soak_faults(char *buf, size_t n, const char *kinds, const char *rate, unsigned int index,
	    unsigned int seed)
{
	char mix[256];

	if (test_sim_rtl() && strstr(kinds, "dup") != NULL && strstr(kinds, "delay") != NULL) {
		func_fault_mix(mix, sizeof(mix), kinds, rate, index);
	} else {
		size_t at = 0;

		/* "drop,dup" at 0.05: "drop:0.05,dup:0.05" */
		for (const char *k = kinds; *k != '\0';) {
			size_t len = strcspn(k, ",");

			at += (size_t)snprintf(mix + at, at < sizeof(mix) ? sizeof(mix) - at : 0,
					       "%s%.*s:%s", at ? "," : "", (int)len, k, rate);
			k += len + (k[len] == ',');
		}
		cr_assert_lt(at, sizeof(mix), "fault kinds too long");
	}
	cr_assert_lt((size_t)snprintf(buf, n, "fault=%s,seed=%u", mix, seed), n);
	return buf;
}

#define EVERY_FAULT "drop,dup,reorder,corrupt,delay"

Test(fault_mixed_soak, every_fault_1_percent, .timeout = 900)
{
	char faults[320];

	soak(soak_faults(faults, sizeof(faults), EVERY_FAULT, "0.01", 0, 91), soak_seconds(25),
	     false);
}

/* A seeded case: its seed, and its index (which of dup and delay rtl=1 leaves out). */
struct soak_case {
	unsigned int seed, index;
};

#define SOAK_MAX_SEEDS 64

ParameterizedTestParameters(fault_mixed_soak, every_fault_5_percent)
{
	static struct soak_case cases[SOAK_MAX_SEEDS];
	const char *e = getenv("SOAK_SEEDS");
	char list[256];
	size_t n = 0;

	snprintf(list, sizeof(list), "%s", e != NULL ? e : "1,2,3,4,5,6,7,8,9,21");
	for (char *save = NULL, *t = strtok_r(list, ", ", &save); t != NULL && n < SOAK_MAX_SEEDS;
	     t = strtok_r(NULL, ", ", &save), n++)
		cases[n] = (struct soak_case){ (unsigned int)strtoul(t, NULL, 0), (unsigned int)n };
	return cr_make_param_array(struct soak_case, cases, n);
}

/* SOAK_KINDS (every fault by default) at SOAK_RATE (0.05), both ways. */
ParameterizedTest(struct soak_case *c, fault_mixed_soak, every_fault_5_percent, .timeout = 900)
{
	const char *kinds = getenv("SOAK_KINDS") ? getenv("SOAK_KINDS") : EVERY_FAULT;
	const char *rate = getenv("SOAK_RATE") ? getenv("SOAK_RATE") : "0.05";
	char faults[320];

	soak_faults(faults, sizeof(faults), kinds, rate, c->index, c->seed);
	cr_log_info("seed %u: %s", c->seed, faults);
	soak(faults, soak_seconds(60), false);
}
