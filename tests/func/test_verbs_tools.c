/* SPDX-License-Identifier: BSD-3-Clause */
/* What the tools read and change at run time: QP info, counter reset, faults. */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

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

static uint64_t
xstat(struct ordk_dev *dev, const char *name)
{
	const char *names[256];
	uint64_t values[256];
	int n = ordk_dev_xstats(dev, names, values, 256);

	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return values[i];
	cr_assert_fail("no xstat %s", name);
	return 0;
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
	cr_assert_gt(xstat(P.s[0].dev, "tx_packets"), 0);
	cr_assert_eq(ordk_dev_stats_reset(P.s[0].dev), 0);
	cr_assert_eq(ordk_dev_stats(P.s[0].dev, &d), 0);
	cr_assert_eq(ordk_qp_stats(P.s[0].qp, &q), 0);
	cr_expect_eq(d.wr_completed, 0);
	cr_expect_eq(q.wr_completed, 0);
	cr_expect_eq(xstat(P.s[0].dev, "tx_packets"), 0);
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
	before = xstat(P.s[0].dev, "fault_tx_drop");
	cr_assert_eq(ordk_dev_set_faults(P.s[0].dev, "drop-tx:0.3"), 0);
	for (int i = 0; i < 20; i++)
		write_once(8 * 4096); /* recovered by retransmission: data still arrives */
	cr_expect_gt(xstat(P.s[0].dev, "fault_tx_drop"), before, "the fault acts");
	cr_expect_eq(xstat(P.s[0].dev, "fault_rx_drop"), 0, "only the direction named");
	cr_assert_eq(ordk_dev_set_faults(P.s[0].dev, "drop:0"), 0);
	before = xstat(P.s[0].dev, "fault_tx_drop");
	for (int i = 0; i < 5; i++)
		write_once(8 * 4096);
	cr_expect_eq(xstat(P.s[0].dev, "fault_tx_drop"), before, "and stops");
}
