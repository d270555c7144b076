/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reaction point's pacer (cc_rp.h) on a virtual clock: items leave at R_C,
 * an idle QP banks at most burst_ns, items are cut to item_pkts packets only
 * below the line rate, rate changes are counted and traced, and the paced time
 * is what the clock says. Values worked out by hand.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "cc_rp.h"

static struct cc_params P;
static unsigned int rows;
static double last_rate;

static void
setup(void)
{
	cc_params_default(&P);
	rows = 0;
	last_rate = 0;
}

TestSuite(cc_rp, .init = setup);

static void
trace(void *arg, uint64_t t_ns, double rate_bps)
{
	(void)arg;
	(void)t_ns;
	rows++;
	last_rate = rate_bps;
}

Test(cc_rp, params_parse_both_kinds_and_refuse_unknown)
{
	struct cc_params p = P;
	char err[128], buf[512];

	cr_assert_eq(cc_params_parse(&p, "rai=5M,item_pkts=2,burst_us=7,timer_us=60", err,
				     sizeof(err)), 0, "%s", err);
	cr_assert_eq(p.dcqcn.rai_bps, 5e6);
	cr_assert_eq(p.item_pkts, 2);
	cr_assert_eq(p.burst_ns, 7000);
	cr_assert_eq(p.dcqcn.timer_ns, 60000);
	cr_assert_eq(cc_params_parse(&p, "item_pkts=65", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "item_pkts") != NULL, "%s", err);
	cr_assert_eq(cc_params_parse(&p, "rai=1M,bogus=1", err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "bogus") != NULL, "%s", err);
	cr_assert_eq(p.dcqcn.rai_bps, 5e6, "unchanged on error");
	/* min above max: each key alone is fine, the whole is refused */
	cr_assert_eq(cc_params_parse(&p, "min_rate=50G", err, sizeof(err)), -EINVAL);
	cc_params_format(&p, buf, sizeof(buf));
	cr_assert(strstr(buf, "rai=5000000,") != NULL && strstr(buf, "item_pkts=2,") != NULL, "%s",
		  buf);
	/* what format writes, parse reads back */
	struct cc_params q = P;
	cr_assert_eq(cc_params_parse(&q, buf, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(memcmp(&q, &p, sizeof(p)), 0);
}

Test(cc_rp, line_rate_is_not_paced_and_not_cut_small)
{
	struct cc_rp r;

	cc_rp_init(&r, &P, 1000, trace, NULL);
	cr_assert_eq(rows, 1, "the start rate is traced");
	cr_assert_eq(cc_rp_item_max(&r, 4096), UINT32_MAX);
	for (int i = 0; i < 100; i++) {
		cr_assert(cc_rp_may_send(&r, 1000));
		cc_rp_sent(&r, 65536, 1000);
	}
	cr_assert_eq(cc_rp_limited_ns(&r, 1000), 0);
}

Test(cc_rp, items_leave_at_the_current_rate)
{
	struct cc_rp r;
	uint64_t t = 0;

	P.burst_ns = 0;
	cc_rp_init(&r, &P, 0, trace, NULL);
	/* alpha 1: one CNP halves 40 to 20 Gb/s, the second to 10 Gb/s */
	cc_rp_cnp(&r, 0);
	cc_rp_cnp(&r, 0);
	cr_assert_eq(r.f.rc_bps, 10e9);
	cr_assert_eq(r.rate_changes, 2);
	cr_assert_eq(rows, 3);
	cr_assert_eq(last_rate, 10e9);
	cr_assert_eq(cc_rp_item_max(&r, 4096), 4 * 4096);
	/* 10 Gb/s: 12500 bytes take 10 us */
	cr_assert(cc_rp_may_send(&r, t));
	cc_rp_sent(&r, 12500, t);
	cr_assert_not(cc_rp_may_send(&r, 4000)); /* refused: the paced time starts */
	cr_assert_not(cc_rp_may_send(&r, 9999));
	cr_assert_eq(cc_rp_limited_ns(&r, 9999), 5999);
	cr_assert(cc_rp_may_send(&r, 10000));
	cr_assert_eq(r.limited_ns, 6000);
	cc_rp_sent(&r, 12500, 10000);
	cr_assert_eq(r.next_ns, 20000);
	/* 3 ms without a CNP: the timers fire (T = K = 55 us) and the rate recovers */
	cr_assert(cc_rp_may_send(&r, 3000000));
	cr_assert_gt(r.f.rc_bps, 10e9);
	cr_assert_gt(r.rate_changes, 2);
}

Test(cc_rp, idle_credit_is_bounded_by_burst)
{
	struct cc_rp r;
	unsigned int n = 0;

	P.burst_ns = 20000;
	P.dcqcn.timer_ns = 1000000000; /* no increase during the test */
	P.dcqcn.alpha_ns = 1000000000;
	cc_rp_init(&r, &P, 0, NULL, NULL);
	cc_rp_cnp(&r, 0);
	cc_rp_cnp(&r, 0); /* 10 Gb/s: a 2500-byte item takes 2 us */
	/* after 1 ms idle: 20 us of credit = 10 items of 2 us, and an 11th that
	 * starts exactly when the 10th's time ends (next_ns == now) */
	while (cc_rp_may_send(&r, 1000000) && n < 100) {
		cc_rp_sent(&r, 2500, 1000000);
		n++;
	}
	cr_assert_eq(n, 11, "items at once after idle: %u", n);
}

Test(cc_rp, cut_gap_acts_on_one_cnp_per_gap)
{
	struct cc_rp r;

	P.cut_gap_ns = 50000;
	cc_rp_init(&r, &P, 0, NULL, NULL);
	cc_rp_cnp(&r, 1000);  /* 40 -> 20 Gb/s */
	cc_rp_cnp(&r, 30000); /* 29 us later: counted, not acted on */
	cr_assert_eq(r.f.rc_bps, 20e9);
	cr_assert_eq(r.cnps_ignored, 1);
	cc_rp_cnp(&r, 51000); /* 50 us after the cut: 20 -> 10 */
	cr_assert_eq(r.f.rc_bps, 10e9);
	cr_assert_eq(r.f.cnps, 2);
	P.cut_gap_ns = 0; /* the default: every CNP cuts */
	cc_rp_init(&r, &P, 0, NULL, NULL);
	cc_rp_cnp(&r, 0);
	cc_rp_cnp(&r, 0);
	cr_assert_eq(r.f.rc_bps, 10e9);
}
