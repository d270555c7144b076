/* SPDX-License-Identifier: BSD-3-Clause */
/* What the tools read and change at run time: QP info, counter reset, faults. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "func_common.h"

static struct func_pair P;

static void
setup(void)
{
	func_pair_open(&P, 1 << 20, "");
	func_pair_qps(&P, ORDK_MTU_4096, 64);
}

static void
teardown(void)
{
	func_pair_close(&P);
}

TestSuite(verbs_tools, .init = setup, .fini = teardown, .timeout = 60);

static void
write_once(uint32_t len)
{
	struct ordk_send_wr w = { .wr_id = 1, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_wc wc;

	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)P.s[0].buf, len, P.s[0].mr->lkey };
	w.rdma.remote_addr = (uint64_t)(uintptr_t)P.s[1].buf;
	w.rdma.rkey = P.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(P.s[0].qp, &w, 1), 1);
	func_wait(&P, 0, &wc, 1, 5);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
}

Test(verbs_tools, qp_info_follows_the_transport)
{
	struct ordk_qp_info a, b;
	struct ordk_recv_wr r = { .wr_id = 9, .num_sge = 0 };

	cr_assert_eq(ordk_qp_info(P.s[0].qp, &a), 0);
	cr_expect_eq(a.state, ORDK_QPS_RTS);
	cr_expect_eq(a.send_outstanding, 0);
	write_once(3 * 4096 + 1); /* 4 packets */
	cr_assert_eq(ordk_qp_info(P.s[0].qp, &b), 0);
	cr_expect_eq((b.next_psn - a.next_psn) & 0xFFFFFF, 4);
	cr_expect_eq(b.acked_psn, b.next_psn, "everything acknowledged once completed");
	cr_assert_eq(ordk_qp_info(P.s[1].qp, &b), 0);
	cr_expect_eq(b.expected_psn, a.next_psn + 4);
	cr_assert_eq(ordk_qp_post_recv(P.s[1].qp, &r, 1), 1);
	cr_assert_eq(ordk_qp_info(P.s[1].qp, &b), 0);
	cr_expect_eq(b.recv_posted, 1);
	cr_expect_eq(ordk_qp_info(NULL, &b), -EINVAL);
	cr_expect_eq(ordk_qp_info(P.s[0].qp, NULL), -EINVAL);
}

Test(verbs_tools, stats_reset_zeroes_device_qp_and_model_counters)
{
	struct ordk_stats d, q;

	write_once(100);
	cr_assert_eq(ordk_dev_stats(P.s[0].dev, &d), 0);
	cr_assert_gt(d.wr_completed, 0);
	cr_assert_gt(func_xstat(P.s[0].dev, "tx_packets"), 0);
	cr_assert_eq(ordk_dev_stats_reset(P.s[0].dev), 0);
	cr_assert_eq(ordk_dev_stats(P.s[0].dev, &d), 0);
	cr_assert_eq(ordk_qp_stats(P.s[0].qp, &q), 0);
	cr_expect_eq(d.wr_completed, 0);
	cr_expect_eq(q.wr_completed, 0);
	cr_expect_eq(func_xstat(P.s[0].dev, "tx_packets"), 0);
	write_once(100);
	cr_assert_eq(ordk_dev_stats(P.s[0].dev, &d), 0);
	cr_expect_eq(d.wr_completed, 1, "counting goes on after a reset");
	cr_expect_eq(ordk_dev_stats_reset(NULL), -EINVAL);
}

Test(verbs_tools, faults_change_at_run_time)
{
	uint64_t before;

	cr_expect_eq(ordk_dev_set_faults(P.s[0].dev, "drop:2"), -EINVAL);
	cr_expect_eq(ordk_dev_set_faults(P.s[0].dev, "smash:0.1"), -EINVAL);
	cr_expect_eq(ordk_dev_set_faults(P.s[0].dev, "drop-up:0.1"), -EINVAL);
	cr_expect_eq(ordk_dev_set_faults(NULL, "drop:0.1"), -EINVAL);
	before = func_xstat(P.s[0].dev, "fault_tx_drop");
	cr_assert_eq(ordk_dev_set_faults(P.s[0].dev, "drop-tx:0.3"), 0);
	for (int i = 0; i < 20; i++)
		write_once(8 * 4096); /* recovered by retransmission: data still arrives */
	cr_expect_gt(func_xstat(P.s[0].dev, "fault_tx_drop"), before, "the fault acts");
	cr_expect_eq(func_xstat(P.s[0].dev, "fault_rx_drop"), 0, "only the direction named");
	cr_assert_eq(ordk_dev_set_faults(P.s[0].dev, "drop:0"), 0);
	before = func_xstat(P.s[0].dev, "fault_tx_drop");
	for (int i = 0; i < 5; i++)
		write_once(8 * 4096);
	cr_expect_eq(func_xstat(P.s[0].dev, "fault_tx_drop"), before, "and stops");
}

/*
 * An application that stops polling for a while (here 30 ms, mid-transfer)
 * leaves reports and frames piled up. Judged on that stale input, late
 * reports looked like losses: NAKs, resends, and for a READ, response
 * packets resent after the READ completed, overwriting the requester's
 * memory it already owned again (the card places every response packet).
 * After the gap, holds and timeouts count from when polling resumed. The gap
 * here (100 ms) is longer than the ACK timeout (67 ms at timeout 14).
 */
static void
gap_mid_transfer(enum ordk_wr_opcode op, unsigned int gap_ms)
{
	const uint32_t len = 8u << 20;
	struct ordk_send_wr w = { .wr_id = 7, .opcode = op, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };
	struct func_side *a = &P.s[0], *b = &P.s[1];
	uint8_t *src = op == ORDK_WR_RDMA_READ ? b->buf : a->buf;
	uint8_t *dst = op == ORDK_WR_RDMA_READ ? a->buf : b->buf;
	struct ordk_stats sa, sb;
	struct ordk_wc wc;

	for (uint32_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 12));
	memset(dst, 0, len);
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)a->buf, len, a->mr->lkey };
	w.rdma.remote_addr = (uint64_t)(uintptr_t)b->buf;
	w.rdma.rkey = b->mr->rkey;
	cr_assert_eq(ordk_qp_post_send(a->qp, &w, 1), 1);
	for (int i = 0; i < 300; i++) { /* under way ... */
		ordk_dev_poll(a->dev, 64);
		ordk_dev_poll(b->dev, 64);
	}
	usleep(gap_ms * 1000); /* ... then nobody polls */
	func_wait(&P, 0, &wc, 1, 20);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	func_idle(&P, 0.1);
	cr_assert_eq(memcmp(src, dst, len), 0, "the data");
	ordk_dev_stats(a->dev, &sa);
	ordk_dev_stats(b->dev, &sb);
	if (op == ORDK_WR_RDMA_READ) {
		/* no response packet may be sent twice: it could land after completion */
		cr_expect_eq(sa.naks_sent + sb.naks_sent, 0, "NAKs: %lu + %lu",
			     (unsigned long)sa.naks_sent, (unsigned long)sb.naks_sent);
		cr_expect_eq(sa.retransmits + sb.retransmits, 0, "resends: %lu + %lu",
			     (unsigned long)sa.retransmits, (unsigned long)sb.retransmits);
	}
	/* (a WRITE's responder may still NAK MIDDLE packets no report named yet:
	 * a resend costs bandwidth there, see doc/guides/prog_guide/verbs.md) */
	cr_expect_eq(sa.timeouts + sb.timeouts, 0, "timeouts: %lu + %lu", (unsigned long)sa.timeouts,
		     (unsigned long)sb.timeouts);
}

Test(verbs_tools_gap, read_after_a_polling_gap_resends_nothing, .timeout = 60)
{
	func_pair_open(&P, 16u << 20, "");
	func_pair_qps(&P, ORDK_MTU_256, 64);
	gap_mid_transfer(ORDK_WR_RDMA_READ, 100);
	func_pair_close(&P);
}

/*
 * The card reports no MIDDLE packet of a flowing stream, so an 8 MiB READ
 * answer at PMTU 256 (32768 packets, longer than the 4 ms ACK timeout of
 * these tests) shows the requester only its FIRST and LAST: its timer must
 * allow for the transfer instead of asking the peer mid-answer.
 */
Test(verbs_tools_gap, a_read_longer_than_the_ack_timeout_does_not_time_out, .timeout = 60)
{
	func_pair_open(&P, 16u << 20, "");
	func_pair_qps(&P, ORDK_MTU_256, 64);
	gap_mid_transfer(ORDK_WR_RDMA_READ, 0);
	func_pair_close(&P);
}

Test(verbs_tools_gap, write_after_a_polling_gap_resends_nothing, .timeout = 60)
{
	func_pair_open(&P, 16u << 20, "");
	func_pair_qps(&P, ORDK_MTU_256, 64);
	gap_mid_transfer(ORDK_WR_RDMA_WRITE, 100);
	func_pair_close(&P);
}
