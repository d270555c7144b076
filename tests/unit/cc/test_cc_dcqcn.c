/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN reaction point against values worked out by hand from the paper's
 * equations (Zhu et al., SIGCOMM 2015, eqs. 1-4; see cc_dcqcn.h). Every value
 * below is written out as the hand computation gives it; rates in Gb/s.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include "cc_dcqcn.h"

#define G 1e9
#define M 1e6

static void
near(double got, double want, const char *what)
{
	cr_assert(fabs(got - want) <= 1e-12 * fabs(want) + 1e-15, "%s: got %.17g, want %.17g", what,
		  got, want);
}

static struct cc_dcqcn_params P;

static void
setup(void)
{
	cc_dcqcn_params_default(&P);
}

TestSuite(cc_dcqcn, .init = setup);

Test(cc_dcqcn, defaults_are_the_papers)
{
	near(P.g, 1.0 / 256, "g");
	near(P.alpha_init, 1, "alpha_init");
	cr_assert_eq(P.alpha_ns, 55000);
	cr_assert_eq(P.timer_ns, 55000);
	cr_assert_eq(P.byte_counter, 10000000);
	cr_assert_eq(P.fr_steps, 5);
	near(P.rai_bps, 40 * M, "rai");
	cr_assert_eq(cc_dcqcn_params_check(&P, NULL, 0), 0);
}

Test(cc_dcqcn, cnp_cut_eq1)
{
	struct cc_dcqcn f;

	cc_dcqcn_init(&f, &P, 0);
	near(f.rc_bps, 40 * G, "start at line rate");
	/* alpha = 1: R_T = 40, R_C = 40 (1 - 1/2) = 20, alpha = 255/256 + 1/256 = 1 */
	cc_dcqcn_on_cnp(&f, 0);
	near(f.rt_bps, 40 * G, "R_T");
	near(f.rc_bps, 20 * G, "R_C");
	near(f.alpha, 1, "alpha");
	cc_dcqcn_on_cnp(&f, 0);
	near(f.rt_bps, 20 * G, "R_T 2");
	near(f.rc_bps, 10 * G, "R_C 2");
	cr_assert_eq(f.cnps, 2);

	/* alpha = 0.5: R_C = 40 (1 - 0.25) = 30; alpha = 0.5 * 255/256 + 1/256 = 128.5/256 */
	P.alpha_init = 0.5;
	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 0);
	near(f.rc_bps, 30 * G, "R_C with alpha 0.5");
	near(f.rt_bps, 40 * G, "R_T with alpha 0.5");
	near(f.alpha, 0.501953125, "alpha after");
}

Test(cc_dcqcn, alpha_decay_eq2)
{
	struct cc_dcqcn f;

	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_alpha_timer(&f);
	near(f.alpha, 0.99609375, "255/256");
	cc_dcqcn_alpha_timer(&f);
	near(f.alpha, 0.9922027587890625, "(255/256)^2 = 65025/65536");
	cr_assert_eq(f.alpha_decays, 2);
	near(f.rc_bps, 40 * G, "alpha decay leaves the rate alone");
}

Test(cc_dcqcn, fast_recovery_eq3_then_additive_eq4)
{
	struct cc_dcqcn f;
	/* after two cuts R_T = 20, R_C = 10; each step R_C = (R_T + R_C) / 2 */
	const double fr[5] = {15, 17.5, 18.75, 19.375, 19.6875};

	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 0);
	cc_dcqcn_on_cnp(&f, 0);
	for (int i = 0; i < 5; i++) {
		cc_dcqcn_rate_timer(&f);
		cr_assert_eq(f.stage, CC_DCQCN_FAST_RECOVERY, "step %d", i + 1);
		near(f.rt_bps, 20 * G, "R_T fixed in fast recovery");
		near(f.rc_bps, fr[i] * G, "fast recovery R_C");
	}
	/* 6th timer event: max(t, bc) = 6 > F, min = 0: additive.
	 * R_T = 20 + 0.04 = 20.04; R_C = (20.04 + 19.6875) / 2 = 19.86375 */
	cc_dcqcn_rate_timer(&f);
	cr_assert_eq(f.stage, CC_DCQCN_ADDITIVE);
	near(f.rt_bps, 20.04 * G, "AI R_T");
	near(f.rc_bps, 19.86375 * G, "AI R_C");
	/* R_T = 20.08; R_C = (20.08 + 19.86375) / 2 = 19.971875 */
	cc_dcqcn_rate_timer(&f);
	near(f.rt_bps, 20.08 * G, "AI R_T 2");
	near(f.rc_bps, 19.971875 * G, "AI R_C 2");
	cr_assert_eq(f.increases[CC_DCQCN_FAST_RECOVERY], 5);
	cr_assert_eq(f.increases[CC_DCQCN_ADDITIVE], 2);
	cr_assert_str_eq(cc_dcqcn_stage_name[f.stage], "additive");
}

Test(cc_dcqcn, hyper_increase_needs_both_counters_past_f)
{
	struct cc_dcqcn f;
	/* R_C after 5 timer then 5 byte events, all fast recovery (max(t, bc) <= 5) */
	const double fr[10] = {15,	 17.5,	    18.75,	19.375,	     19.6875,
			       19.84375, 19.921875, 19.9609375, 19.98046875, 19.990234375};

	P.byte_counter = 1000;
	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 0);
	cc_dcqcn_on_cnp(&f, 0);
	for (int i = 0; i < 10; i++) {
		if (i < 5)
			cc_dcqcn_rate_timer(&f);
		else
			cr_assert_eq(cc_dcqcn_on_sent(&f, 1000), 1);
		cr_assert_eq(f.stage, CC_DCQCN_FAST_RECOVERY, "event %d", i + 1);
		near(f.rc_bps, fr[i] * G, "fast recovery");
	}
	/* t = 6, bc = 5: additive. R_T = 20.04, R_C = (20.04 + 19.990234375) / 2 */
	cc_dcqcn_rate_timer(&f);
	cr_assert_eq(f.stage, CC_DCQCN_ADDITIVE);
	near(f.rc_bps, 20.0151171875 * G, "AI");
	/* bc = 6: min = 6 > 5, i = 1: R_T = 20.04 + 0.4 = 20.44,
	 * R_C = (20.44 + 20.0151171875) / 2 = 20.22755859375 */
	cr_assert_eq(cc_dcqcn_on_sent(&f, 999), 0, "999 bytes: no event");
	cr_assert_eq(cc_dcqcn_on_sent(&f, 1), 1);
	cr_assert_eq(f.stage, CC_DCQCN_HYPER);
	near(f.rt_bps, 20.44 * G, "HAI R_T i=1");
	near(f.rc_bps, 20.22755859375 * G, "HAI R_C i=1");
	/* t = 7: min(7, 6) = 6, i = 1: R_T = 20.84, R_C = 20.533779296875 */
	cc_dcqcn_rate_timer(&f);
	near(f.rt_bps, 20.84 * G, "HAI R_T t=7");
	near(f.rc_bps, 20.533779296875 * G, "HAI R_C t=7");
	/* bc = 7: i = 2: R_T = 20.84 + 0.8 = 21.64, R_C = 21.0868896484375 */
	cc_dcqcn_on_sent(&f, 1000);
	near(f.rt_bps, 21.64 * G, "HAI R_T i=2");
	near(f.rc_bps, 21.0868896484375 * G, "HAI R_C i=2");
	cr_assert_eq(f.increases[CC_DCQCN_HYPER], 3);
}

/* The byte counter alone drives the stages too: bc = 6 > F with t = 0 is additive. */
Test(cc_dcqcn, byte_counter_alone_reaches_additive)
{
	struct cc_dcqcn f;
	/* after two cuts R_T = 20, R_C = 10: the same fast recovery steps as the timer's */
	const double fr[5] = {15, 17.5, 18.75, 19.375, 19.6875};

	P.byte_counter = 4096;
	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 0);
	cc_dcqcn_on_cnp(&f, 0);
	for (int i = 0; i < 5; i++) {
		cr_assert_eq(cc_dcqcn_on_sent(&f, 4096), 1);
		cr_assert_eq(f.stage, CC_DCQCN_FAST_RECOVERY);
		near(f.rc_bps, fr[i] * G, "byte-counter fast recovery");
	}
	/* bc = 6, t = 0: R_T = 20.04, R_C = (20.04 + 19.6875) / 2 = 19.86375 */
	cr_assert_eq(cc_dcqcn_on_sent(&f, 4096), 1);
	cr_assert_eq(f.stage, CC_DCQCN_ADDITIVE);
	near(f.rt_bps, 20.04 * G, "AI R_T");
	near(f.rc_bps, 19.86375 * G, "AI R_C");
	cr_assert_eq(f.t_count, 0);
	cr_assert_eq(f.bc_count, 6);
}

Test(cc_dcqcn, clamps)
{
	struct cc_dcqcn f;

	/* min: 150 Mb/s cut by half is 75 < 100 Mb/s floor */
	P.max_rate_bps = 150 * M;
	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 0);
	near(f.rc_bps, 100 * M, "floor");
	near(f.rt_bps, 150 * M, "target");
	cc_dcqcn_on_cnp(&f, 0);
	near(f.rc_bps, 100 * M, "floor again");
	near(f.rt_bps, 100 * M, "target follows R_C");

	/* max: after one cut, 5 FR steps then AI would put R_T above 40 G */
	cc_dcqcn_params_default(&P);
	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 0); /* R_T 40, R_C 20 */
	for (int i = 0; i < 5; i++)
		cc_dcqcn_rate_timer(&f); /* 30 35 37.5 38.75 39.375 */
	cc_dcqcn_rate_timer(&f);	 /* AI: R_T min(40.04, 40) = 40, R_C 39.6875 */
	near(f.rt_bps, 40 * G, "R_T clamped to max_rate");
	near(f.rc_bps, 39.6875 * G, "R_C");
	for (int i = 0; i < 100; i++)
		cc_dcqcn_rate_timer(&f);
	cr_assert_leq(f.rc_bps, 40 * G);
	near(f.rc_bps, 40 * G, "converges to max_rate");
}

Test(cc_dcqcn, byte_counter_keeps_the_remainder)
{
	struct cc_dcqcn f;

	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 0);
	cr_assert_eq(cc_dcqcn_on_sent(&f, 25000000), 2, "25 MB with B = 10 MB: two events");
	cr_assert_eq(f.bc_count, 2);
	cr_assert_eq(f.bytes, 5000000);
	cr_assert_eq(cc_dcqcn_on_sent(&f, 5000000), 1);
	cr_assert_eq(f.bytes, 0);
	/* a CNP restarts the byte count */
	cc_dcqcn_on_sent(&f, 9000000);
	cc_dcqcn_on_cnp(&f, 0);
	cr_assert_eq(f.bytes, 0);
	cr_assert_eq(f.bc_count, 0);
	cr_assert_eq(cc_dcqcn_on_sent(&f, 9000000), 0);
	/* a huge count is bounded work */
	cr_assert_eq(cc_dcqcn_on_sent(&f, UINT64_MAX / 2), 4096);
}

/*
 * A trace on a virtual clock (defaults: K = T = 55 us), worked out by hand:
 *   t=0      init: R_C = R_T = 40, alpha 1, alpha due 55, timer due 55
 *   t=30     CNP: R_T 40, R_C 20, alpha 1; both timers due at 85
 *   t=84     nothing due
 *   t=85     alpha decay (255/256), then timer event 1 (FR): R_C 30
 *   t=140    alpha (255/256)^2, timer 2 (FR): R_C 35
 *   t=150    CNP with alpha 65025/65536: R_T 35, R_C = 35 (1 - 65025/131072)
 *            = 35 x 66047/131072 = 17.63645172119140625, alpha = 65025/65536 * 255/256 + 1/256
 *   t=205    alpha decay, timer 1 (FR): R_C = (35 + 17.636...) / 2 = 26.318225860595703125
 */
Test(cc_dcqcn, event_trace_on_a_virtual_clock)
{
	struct cc_dcqcn f;
	const uint64_t us = 1000;
	double a;

	cc_dcqcn_init(&f, &P, 0);
	cc_dcqcn_on_cnp(&f, 30 * us);
	cr_assert_eq(cc_dcqcn_advance(&f, 84 * us), 0);
	cr_assert_eq(cc_dcqcn_advance(&f, 85 * us), 2);
	near(f.alpha, 0.99609375, "alpha at 85");
	near(f.rc_bps, 30 * G, "R_C at 85");
	cr_assert_eq(cc_dcqcn_advance(&f, 140 * us), 2);
	near(f.alpha, 0.9922027587890625, "alpha at 140");
	near(f.rc_bps, 35 * G, "R_C at 140");
	cc_dcqcn_on_cnp(&f, 150 * us);
	near(f.rt_bps, 35 * G, "R_T at 150");
	near(f.rc_bps, 17.63645172119140625 * G, "R_C at 150");
	a = 0.9922027587890625 * 255 / 256 + 1.0 / 256;
	near(f.alpha, a, "alpha at 150");
	cr_assert_eq(cc_dcqcn_advance(&f, 204 * us), 0, "timers restarted by the CNP");
	cr_assert_eq(cc_dcqcn_advance(&f, 205 * us), 2);
	near(f.alpha, a * 255 / 256, "alpha at 205");
	near(f.rc_bps, 26.318225860595703125 * G, "R_C at 205");
	cr_assert_eq(f.t_count, 1);
	/* late poll: 10 s idle is bounded work, and the timers restart from then */
	cr_assert_eq(cc_dcqcn_advance(&f, 10000000 * us), 4096);
	cr_assert_eq(f.timer_due_ns, 10000000 * us + P.timer_ns);
	near(f.rc_bps, 40 * G, "back to line rate");
}

Test(cc_dcqcn, parse_sets_checks_and_names_unknown_keys)
{
	struct cc_dcqcn_params p = P;
	char err[128] = "";

	cr_assert_eq(cc_dcqcn_params_parse(&p,
					   "rai=10M,rhai=0.2G,g=1/128,timer_us=100,"
					   "alpha_us=60.5,byte_counter=64K,fr_steps=3,"
					   "max_rate=25G,min_rate=1000000,alpha_init=0.75",
					   err, sizeof(err)),
		     0, "%s", err);
	near(p.rai_bps, 10 * M, "rai");
	near(p.rhai_bps, 200 * M, "rhai");
	near(p.g, 1.0 / 128, "g");
	cr_assert_eq(p.timer_ns, 100000);
	cr_assert_eq(p.alpha_ns, 60500);
	cr_assert_eq(p.byte_counter, 64000);
	cr_assert_eq(p.fr_steps, 3);
	near(p.max_rate_bps, 25 * G, "max");
	near(p.min_rate_bps, 1 * M, "min");
	near(p.alpha_init, 0.75, "alpha_init");
	cr_assert_eq(cc_dcqcn_params_parse(&p, NULL, err, sizeof(err)), 0);
	cr_assert_eq(cc_dcqcn_params_parse(&p, "", err, sizeof(err)), 0);

	struct cc_dcqcn_params before = p;
	const struct {
		const char *args, *named;
	} bad[] = {
		{"rai=1M,bogus=3", "bogus"},
		{"rai=abc", "rai"},
		{"g=0", "g"},
		{"g=1/0", "g"},
		{"alpha_init=1.5", "alpha_init"},
		{"min_rate=50G", "min_rate"},
		{"fr_steps=2.5", "fr_steps"},
		{"fr_steps=0", "fr_steps"},
		{"timer_us", "timer_us"},
		{"rai=-1", "rai"},
		{"byte_counter=5X", "byte_counter"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(cc_dcqcn_params_parse(&p, bad[i].args, err, sizeof(err)), -EINVAL,
			     "%s", bad[i].args);
		cr_assert_not_null(strstr(err, bad[i].named), "'%s': error '%s' names %s",
				   bad[i].args, err, bad[i].named);
		cr_assert_eq(memcmp(&p, &before, sizeof(p)), 0, "unchanged after '%s'",
			     bad[i].args);
	}
}
