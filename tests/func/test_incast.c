/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The incast rig (incast_rig.h) briefly, directions only (issue 17): with
 * congestion control on, the bottleneck drops less and its queue is shorter
 * than with it off, and the mechanism is seen working (ECT data marked, CNPs
 * reported, rates cut). The figures are the perf suite's bench_incast.
 */
#include <criterion/criterion.h>

#include "incast_rig.h"

TestSuite(incast, .timeout = 240);

Test(incast, cc_on_drops_less_and_queues_less)
{
	static struct incast_rig g;
	struct incast_result off, on;
	struct incast_cfg c = {.senders = 4, .msg = 65536, .depth = 8, .rate = 200000000,
			       .queue = "burst=64K,pmax=0.1", .name = "incf"};

	cr_assert_eq(incast_open(&g, &c), 0);
	incast_run(&g, false, 0.6, NULL, &off);
	incast_run(&g, true, 0.6, NULL, &on);
	incast_print(&g, &off, stderr);
	incast_print(&g, &on, stderr);
	cr_assert_not(off.failed || on.failed, "a QP failed");
	/* CC off: Not-ECT data, nothing marked, the queue overflows */
	cr_assert_eq(off.marked, 0);
	cr_assert_eq(off.cnps, 0);
	cr_assert_gt(off.drops, 0, "4 senders into one shaped port overflow it without CC");
	/* CC on: ECT(0) data marked, CNPs reported, rates cut */
	cr_assert_gt(on.marked, 0);
	cr_assert_gt(on.cnps, 0);
	cr_assert_gt(on.rate_changes, 0);
	cr_assert_lt(on.drops_late, off.drops_late, "drops after 100 ms: on %lu, off %lu",
		     (unsigned long)on.drops_late, (unsigned long)off.drops_late);
	cr_assert_lt(on.q_p50, off.q_p50, "queue p50: on %lu, off %lu", (unsigned long)on.q_p50,
		     (unsigned long)off.q_p50);
}
