/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A clean wire is silent (issue 32): a few seconds of mixed WRITE, WRITE_IMM,
 * SEND and READ in both directions at once, with a pause in each round as an
 * application that stops polling makes, and not one NAK, retransmission or
 * timeout on either side, and no loss report of the peer's card naming a PSN
 * that can be lost. The card does report every window with a READ request
 * in it (no payload, never tracked): those are printed, and they name
 * nothing lost. The long version is fault_mixed_soak/loss_free (suite soak).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "func_common.h"
#include "sim_host.h"

#define BUF	(8u << 20)
#define NOPS	16u
#define SLOT	(64u * 1024)
#define SRC(i)	((i) * SLOT)		 /* sources, and READ targets */
#define DST(i)	((2u << 20) + (i) * SLOT) /* WRITE and SEND targets at the peer */
#define RSRC	(4u << 20)		 /* READ sources at the peer */

static struct func_pair p;

static void
post_round(uint32_t r, int dir, enum ordk_wr_opcode op[NOPS], uint32_t len[NOPS])
{
	struct func_side *s = &p.s[dir], *t = &p.s[1 - dir];

	for (uint32_t i = 0; i < NOPS; i++) {
		static const enum ordk_wr_opcode mix[] = { ORDK_WR_RDMA_WRITE,
							   ORDK_WR_RDMA_WRITE_WITH_IMM,
							   ORDK_WR_SEND, ORDK_WR_RDMA_READ };
		struct ordk_send_wr wr = { .wr_id = i, .num_sge = 1,
					   .send_flags = ORDK_SEND_SIGNALED,
					   .imm_data = r * 100 + i };

		op[i] = mix[(uint32_t)rand() % 4];
		len[i] = 1 + (uint32_t)rand() % SLOT;
		wr.opcode = op[i];
		wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)s->buf + SRC(i), len[i],
					    s->mr->lkey };
		if (op[i] != ORDK_WR_RDMA_READ)
			memset(s->buf + SRC(i), (int)(r * 7 + i + (uint32_t)dir), len[i]);
		wr.rdma.remote_addr = (uint64_t)(uintptr_t)t->buf +
				      (op[i] == ORDK_WR_RDMA_READ ? RSRC + i * 4096 : DST(i));
		wr.rdma.rkey = t->mr->rkey;
		if (op[i] == ORDK_WR_SEND || op[i] == ORDK_WR_RDMA_WRITE_WITH_IMM) {
			struct ordk_recv_wr rw = { .wr_id = 1000 + i, .num_sge = 1 };

			rw.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)t->buf + DST(i), SLOT,
						    t->mr->lkey };
			rw.num_sge = op[i] == ORDK_WR_SEND ? 1 : 0;
			cr_assert_eq(ordk_qp_post_recv(t->qp, &rw, 1), 1);
		}
		cr_assert_eq(ordk_qp_post_send(s->qp, &wr, 1), 1);
	}
}

/* Every completion of a round: NOPS sends and @p nrecv RECVs on each side, all successful. */
static void
collect(const uint32_t nrecv[2])
{
	unsigned int sends[2] = { 0, 0 }, recvs[2] = { 0, 0 };
	double end = test_now_s() + 20;
	struct ordk_wc wc[32];

	while (sends[0] < NOPS || sends[1] < NOPS || recvs[0] < nrecv[0] || recvs[1] < nrecv[1]) {
		for (int side = 0; side < 2; side++) {
			int k = ordk_cq_poll(p.s[side].cq, wc, 32);

			for (int j = 0; j < k; j++) {
				cr_assert_eq(wc[j].status, ORDK_WC_SUCCESS, "side %d wr %lu: %s", side,
					     (unsigned long)wc[j].wr_id,
					     ordk_wc_status_str(wc[j].status));
				if (wc[j].wr_id >= 1000)
					recvs[side]++;
				else
					sends[side]++;
			}
		}
		cr_assert_lt(test_now_s(), end, "completions missing after 20 s");
	}
}

Test(verbs_quiet, a_clean_mixed_run_is_silent, .timeout = 60)
{
	static const char *const checked[] = { "naks_sent", "naks_received", "retransmits",
					       "timeouts", "read_req_rejected", "read_req_deferred" };
	double end;
	uint32_t rounds = 0;
	uint64_t adverts[2] = { 0, 0 };

	func_pair_open(&p, BUF, NULL);
	func_pair_qps(&p, ORDK_MTU_1024, 64);
	for (int i = 0; i < 2; i++)
		for (uint32_t b = 0; b < 1u << 20; b++)
			p.s[i].buf[RSRC + b] = (uint8_t)(b * 13 + (uint32_t)i);
	srand(32);
	end = test_now_s() + 3;
	while (test_now_s() < end) {
		enum ordk_wr_opcode op[2][NOPS];
		uint32_t len[2][NOPS], nrecv[2] = { 0, 0 };

		post_round(rounds, 0, op[0], len[0]);
		post_round(rounds, 1, op[1], len[1]);
		for (int d = 0; d < 2; d++)
			for (uint32_t i = 0; i < NOPS; i++)
				nrecv[1 - d] += op[d][i] == ORDK_WR_SEND ||
						op[d][i] == ORDK_WR_RDMA_WRITE_WITH_IMM;
		/*
		 * Once both sides' adverts went, and before the drivers read their
		 * acknowledgements (the cards run on), the process pauses for longer
		 * than the ACK timeout (4 ms), as an application busy with its data
		 * does: neither side may take that for the other's silence.
		 */
		for (double t = test_now_s() + 1; test_now_s() < t;) {
			ordk_dev_poll(p.s[1].dev, 64);
			ordk_dev_poll(p.s[0].dev, 64);
			if (FUNC_DEV_STAT(p.s[0].dev, adverts_sent) >= adverts[0] + nrecv[0] &&
			    FUNC_DEV_STAT(p.s[1].dev, adverts_sent) >= adverts[1] + nrecv[1])
				break;
		}
		for (int k = 0; k < 32; k++) {
			ordk_dev_card_poll(p.s[0].dev, 64);
			ordk_dev_card_poll(p.s[1].dev, 64);
		}
		adverts[0] += nrecv[0];
		adverts[1] += nrecv[1];
		usleep(6000);
		collect(nrecv);
		for (int d = 0; d < 2; d++)
			for (uint32_t i = 0; i < NOPS; i++) {
				const uint8_t *got = op[d][i] == ORDK_WR_RDMA_READ
							     ? p.s[d].buf + SRC(i)
							     : p.s[1 - d].buf + DST(i);
				const uint8_t *want = op[d][i] == ORDK_WR_RDMA_READ
							      ? p.s[1 - d].buf + RSRC + i * 4096
							      : p.s[d].buf + SRC(i);

				if (op[d][i] != ORDK_WR_RDMA_WRITE_WITH_IMM)
					cr_assert_eq(memcmp(got, want, len[d][i]), 0,
						     "round %u dir %d op %u (%d, %u B)", rounds, d, i,
						     op[d][i], len[d][i]);
			}
		rounds++;
	}
	cr_log_info("%u rounds", rounds);
	/* the last reports reach their driver */
	for (int k = 0; k < 256; k++) {
		ordk_dev_poll(p.s[0].dev, 64);
		ordk_dev_poll(p.s[1].dev, 64);
	}
	for (int i = 0; i < 2; i++) {
		struct ordk_stats st, peer;
		uint64_t sent = func_xstat(p.s[i].dev, "loss_detected");

		cr_assert_eq(ordk_dev_stats(p.s[i].dev, &st), 0);
		cr_assert_eq(ordk_dev_stats(p.s[1 - i].dev, &peer), 0);
		cr_log_info("side %d: its card sent %lu loss reports; it took %lu of the peer card's "
			    "for naming only untracked PSNs",
			    i, (unsigned long)sent, (unsigned long)st.card_naks_untracked);
		/* every one names only PSNs the card never tracks: none names what can be lost */
		cr_expect_eq(sent, peer.card_naks_untracked,
			     "side %d's card sent %lu loss reports, %lu named only untracked PSNs", i,
			     (unsigned long)sent, (unsigned long)peer.card_naks_untracked);
		for (unsigned int c = 0; c < sizeof(checked) / sizeof(checked[0]); c++)
			for (unsigned int k = 0; k < ORDK_STATS_COUNT; k++)
				if (strcmp(ordk_stats_name(k), checked[c]) == 0) {
					uint64_t v = ordk_stats_value(&st, k);

					cr_log_info("side %d: %s %lu", i, checked[c], (unsigned long)v);
					cr_expect_eq(v, 0, "side %d: %s %lu on a clean wire", i,
						     checked[c], (unsigned long)v);
				}
	}
	func_pair_close(&p);
}
