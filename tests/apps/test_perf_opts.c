/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-perf's options: every option, its default, and bad values refused with a message. */
#include <criterion/criterion.h>
#include <string.h>

#include "perf.h"

static int
parse(enum perf_test t, struct perf_opts *o, char *err, const char *line)
{
	static char buf[512];
	char *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = "ordk-perf";
	for (char *tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return perf_opts_parse(t, argc, argv, o, err, 256);
}

Test(perf_opts, defaults_follow_perftest)
{
	struct perf_opts o;
	char err[256];

	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, ""), 0);
	cr_expect_eq(o.size, 65536);
	cr_expect_eq(o.iters, 5000);
	cr_expect_eq(o.tx_depth, 128);
	cr_expect_eq(o.cq_mod, 100);
	cr_expect_eq(o.mtu, 4096);
	cr_expect_eq(o.qps, 1);
	cr_expect_eq(o.port, 18515);
	cr_expect(o.progress);
	cr_expect_null(o.host);
	cr_expect_str_eq(o.devargs, "bluesim,port=0");

	cr_assert_eq(parse(PERF_WRITE_LAT, &o, err, ""), 0);
	cr_expect_eq(o.size, 2);
	cr_expect_eq(o.iters, 1000);
	cr_expect_eq(o.tx_depth, 1);

	cr_assert_eq(parse(PERF_ATOMIC_BW, &o, err, ""), 0);
	cr_expect_eq(o.size, 8);
	cr_expect_eq(o.atomic, PERF_FETCH_AND_ADD);
}

Test(perf_opts, every_option)
{
	struct perf_opts o;
	char err[256];

	cr_assert_eq(parse(PERF_WRITE_BW, &o, err,
			   "-s 4096 -n 77 -q 4 -t 64 -Q 16 -m 1024 -d bluesim,port=1 -p 20000 "
			   "--report_gbits --out_json /tmp/x.json --verify --no-progress -c RC -F "
			   "10.0.0.2"),
		     0, "%s", err);
	cr_expect_eq(o.size, 4096);
	cr_expect_eq(o.iters, 77);
	cr_expect_eq(o.qps, 4);
	cr_expect_eq(o.tx_depth, 64);
	cr_expect_eq(o.cq_mod, 16);
	cr_expect_eq(o.mtu, 1024);
	cr_expect_str_eq(o.devargs, "bluesim,port=1");
	cr_expect_eq(o.port, 20000);
	cr_expect(o.report_gbits);
	cr_expect_str_eq(o.out_json, "/tmp/x.json");
	cr_expect(o.verify);
	cr_expect_not(o.progress);
	cr_expect_str_eq(o.host, "10.0.0.2");

	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--size=64K --all-never-mind"), -1);
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--size=64K --iters=10 --qp=2 --tx-depth=8"), 0,
		     "%s", err);
	cr_expect_eq(o.size, 65536);
	cr_expect_eq(o.cq_mod, 8, "moderation is capped at the TX depth");

	cr_assert_eq(parse(PERF_READ_BW, &o, err, "-a -D 3 --loopback"), 0, "%s", err);
	cr_expect(o.all_sizes);
	cr_expect_eq(o.duration, 3);
	cr_expect(o.loopback);

	cr_assert_eq(parse(PERF_ATOMIC_LAT, &o, err, "-A CMP_AND_SWP"), 0, "%s", err);
	cr_expect_eq(o.atomic, PERF_CMP_AND_SWP);
	cr_assert_eq(parse(PERF_ATOMIC_BW, &o, err, "--atomic_type=FETCH_AND_ADD -s 8"), 0, "%s", err);
	cr_assert_eq(parse(PERF_SEND_LAT, &o, err, "-h"), 0);
	cr_expect(o.help);
}

Test(perf_opts, bad_values_are_refused_with_a_message)
{
	static const struct {
		enum perf_test t;
		const char *line, *says;
	} bad[] = {
		{ PERF_WRITE_BW, "-s 0", "size must be" },
		{ PERF_WRITE_BW, "-s abc", "size must be" },
		{ PERF_WRITE_BW, "-s 2G", "size must be" },
		{ PERF_WRITE_BW, "-s -5", "size must be" },
		{ PERF_WRITE_BW, "-n 0", "iterations must be" },
		{ PERF_WRITE_BW, "-n 3", "at least 5" },
		{ PERF_WRITE_BW, "-D 0", "duration must be" },
		{ PERF_WRITE_BW, "-q 65", "QPs must be" },
		{ PERF_WRITE_BW, "-t 0", "TX depth" },
		{ PERF_WRITE_BW, "-Q 0", "moderation" },
		{ PERF_WRITE_BW, "-m 1500", "MTU must be" },
		{ PERF_WRITE_BW, "-m 8192", "MTU must be" },
		{ PERF_ATOMIC_BW, "-A ADD", "atomic type" },
		{ PERF_WRITE_BW, "-A CMP_AND_SWP", "atomic_bw and atomic_lat" },
		{ PERF_ATOMIC_BW, "-s 16", "atomics move 8 bytes" },
		{ PERF_ATOMIC_LAT, "-a", "one size" },
		{ PERF_WRITE_LAT, "-q 2", "one QP" },
		{ PERF_SEND_LAT, "-t 4", "one WR in flight" },
		{ PERF_WRITE_BW, "-a -s 64", "exclude" },
		{ PERF_WRITE_BW, "-p 0", "port must be" },
		{ PERF_WRITE_BW, "-p 70000", "port must be" },
		{ PERF_WRITE_BW, "-c UD", "only RC" },
		{ PERF_WRITE_BW, "--loopback 10.0.0.1", "give no host" },
		{ PERF_WRITE_BW, "host1 host2", "unexpected argument" },
		{ PERF_WRITE_BW, "--bogus", "unknown option" },
		{ PERF_WRITE_BW, "-x", "unknown option" },
		{ PERF_WRITE_BW, "-s", "needs a value" },
		{ PERF_WRITE_BW, "--out_json", "needs a value" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perf_opts o;
		char err[256];

		cr_expect_eq(parse(bad[i].t, &o, err, bad[i].line), -1, "'%s' accepted", bad[i].line);
		cr_expect(strstr(err, bad[i].says) != NULL, "'%s' says '%s', not '%s'", bad[i].line,
			  err, bad[i].says);
	}
}

Test(perf_opts, test_names)
{
	enum perf_test t;

	for (int i = 0; i < PERF_TEST_COUNT; i++) {
		cr_assert_eq(perf_test_from_name(perf_test_name((enum perf_test)i), &t), 0);
		cr_expect_eq(t, (enum perf_test)i);
	}
	cr_expect_eq(perf_test_from_name("write", &t), -1);
	cr_expect_eq(perf_test_from_name(NULL, &t), -1);
	cr_expect(perf_test_is_bw(PERF_SEND_BW));
	cr_expect_not(perf_test_is_bw(PERF_READ_LAT));
}
