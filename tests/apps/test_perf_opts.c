/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-perf's options: every option, its default, and bad values refused with a message. */
#include <criterion/criterion.h>
#include <string.h>

#include "perf.h"

static int
parse(enum perf_test t, struct perf_opts *o, char *err, const char *line)
{
	static char buf[512], prog[] = "ordk-perf";
	char *argv[32];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = prog;
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
	cr_expect_eq(o.iters, 5000, "DEF_ITERS_WB: write_bw only");
	cr_expect_eq(o.tx_depth, 128);
	cr_expect_eq(o.cq_mod, 1, "64 KiB > 8192: CQ moderation off unless -Q or -a");
	cr_expect_eq(o.mtu, 4096);
	cr_expect_eq(o.qps, 1);
	cr_expect_eq(o.port, 18515);
	cr_expect_eq(o.progress, -1, "progress only when stderr is a terminal");
	cr_expect_not(o.out_json);
	cr_expect_str_eq(o.out_json_file, "perftest_out.json");
	cr_expect_null(o.host);
	cr_expect_str_eq(o.devargs, "bluesim,port=0");

	cr_assert_eq(parse(PERF_READ_BW, &o, err, ""), 0);
	cr_expect_eq(o.iters, 1000, "DEF_ITERS for every test but write_bw");
	cr_assert_eq(parse(PERF_SEND_BW, &o, err, "-s 8192"), 0);
	cr_expect_eq(o.iters, 1000);
	cr_expect_eq(o.cq_mod, 100, "8192 is not above the limit");
	cr_expect_eq(o.rx_depth, 512);
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "-a"), 0);
	cr_expect_eq(o.cq_mod, 100, "-a keeps CQ moderation");
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "-Q 50"), 0);
	cr_expect_eq(o.cq_mod, 50, "asked for: kept");

	cr_assert_eq(parse(PERF_WRITE_LAT, &o, err, ""), 0);
	cr_expect_eq(o.size, 2);
	cr_expect_eq(o.iters, 1000);
	cr_expect_eq(o.tx_depth, 1);

	cr_assert_eq(parse(PERF_ATOMIC_BW, &o, err, ""), 0);
	cr_expect_eq(o.size, 8);
	cr_expect_eq(o.atomic, PERF_FETCH_AND_ADD);
	cr_expect_eq(o.out_reads, 16);
}

Test(perf_opts, every_option)
{
	struct perf_opts o;
	char err[256];

	cr_assert_eq(parse(PERF_WRITE_BW, &o, err,
			   "-s 4096 -n 77 -q 4 -t 64 -Q 16 -m 1024 -d bluesim,port=1 -p 20000 "
			   "--report_gbits --out_json --verify --no-progress -c RC -F -I 64 -u 18 "
			   "-N 10.0.0.2"),
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
	cr_expect(o.out_json, "--out_json is a flag");
	cr_expect_str_eq(o.out_json_file, "perftest_out.json");
	cr_expect(o.verify);
	cr_expect_eq(o.progress, 0);
	cr_expect_eq(o.inline_size, 64);
	cr_expect_eq(o.qp_timeout, 18);
	cr_expect(o.no_peak);
	cr_expect_str_eq(o.host, "10.0.0.2");

	/* the flag takes nothing: what follows is not swallowed */
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--out_json --loopback"), 0, "%s", err);
	cr_expect(o.loopback);
	cr_expect(o.out_json);
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--out_json_file=/tmp/x.json --progress"), 0);
	cr_expect(o.out_json, "a file name implies the report");
	cr_expect_str_eq(o.out_json_file, "/tmp/x.json");
	cr_expect_eq(o.progress, 1);

	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--size=64K --all-never-mind"), -1);
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--size=4K --iters=10 --qp=2 --tx-depth=8"), 0,
		     "%s", err);
	cr_expect_eq(o.size, 4096);
	cr_expect_eq(o.cq_mod, 8, "moderation is capped at the TX depth");

	cr_assert_eq(parse(PERF_READ_BW, &o, err, "-a -s 64 --loopback -o 4"), 0, "%s", err);
	cr_expect(o.all_sizes, "-a with -s: every size, as perftest");
	cr_expect(o.loopback);
	cr_expect_eq(o.out_reads, 4);

	cr_assert_eq(parse(PERF_ATOMIC_LAT, &o, err, "-A CMP_AND_SWAP"), 0, "%s", err);
	cr_expect_eq(o.atomic, PERF_CMP_AND_SWP, "perftest's spelling");
	cr_assert_eq(parse(PERF_ATOMIC_LAT, &o, err, "-A CMP_AND_SWP"), 0, "%s", err);
	cr_expect_eq(o.atomic, PERF_CMP_AND_SWP);
	cr_assert_eq(parse(PERF_ATOMIC_BW, &o, err, "--atomic_type=FETCH_AND_ADD -s 8"), 0, "%s", err);
	cr_assert_eq(parse(PERF_SEND_LAT, &o, err, "-h"), 0);
	cr_expect(o.help);
	cr_assert_eq(parse(PERF_SEND_LAT, &o, err, "-V"), 0);
	cr_expect(o.version);
	cr_assert_eq(parse(PERF_SEND_LAT, &o, err, "-C -H -U -r 8"), 0, "%s", err);
	cr_expect(o.cycles && o.histogram && o.unsorted);
	cr_expect_eq(o.rx_depth, 8);
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--run_infinitely"), 0, "%s", err);
	cr_expect(o.run_infinitely);
	cr_expect_eq(o.duration, 5, "perftest's default period");
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "--output=bandwidth"), 0, "%s", err);
	cr_expect_eq(o.output, PERF_OUT_BW);
	cr_assert_eq(parse(PERF_WRITE_LAT, &o, err, "--output=latency"), 0, "%s", err);
	cr_expect_eq(o.output, PERF_OUT_LAT);
	cr_assert_eq(parse(PERF_SEND_BW, &o, err, "--output=message_rate"), 0, "%s", err);
	cr_expect_eq(o.output, PERF_OUT_MR);
}

Test(perf_opts, what_ordk_cannot_honour_is_accepted_with_a_note)
{
	static const char *const line = "-x 3 -i 1 -S 2 -e -l 4 -f 2 -R --use_hugepages";
	struct perf_opts o;
	char err[256];

	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, line), 0, "%s", err);
	cr_assert_eq(o.nnotes, 8);
	cr_expect_str_eq(o.notes[0], "-x 3 ignored: bluesim has one GID, an IPv4-mapped one (index 0)");
	cr_expect_str_eq(o.notes[3], "-e ignored: ORDK polls (no completion events)");
	cr_expect_str_eq(o.notes[7], "--use_hugepages ignored: EAL picks hugepages itself");
	cr_assert_eq(parse(PERF_WRITE_BW, &o, err, "-w 10 -y 2 --cpu_util -D 2"), 0, "%s", err);
	cr_expect_eq(o.nnotes, 3);
}

Test(perf_opts, bad_values_are_refused_with_a_message)
{
	static const struct {
		enum perf_test t;
		const char *line, *says;
	} bad[] = {
		{ PERF_WRITE_BW, "-s 0", "size (bytes) must be 1 .. 536870912" },
		{ PERF_WRITE_BW, "-s abc", "size (bytes) must be" },
		{ PERF_WRITE_BW, "-s 1G", "size (bytes) must be 1 .. 536870912" },
		{ PERF_WRITE_BW, "-s -5", "size (bytes) must be" },
		{ PERF_WRITE_BW, "-s 256M -q 4", "at most 134217728 bytes per QP" },
		{ PERF_WRITE_BW, "-n 0", "iterations must be 5 .." },
		{ PERF_WRITE_LAT, "-n 4", "iterations must be 5 .." },
		{ PERF_WRITE_BW, "-D 0", "duration (seconds) must be" },
		{ PERF_WRITE_BW, "-q 65", "QPs must be" },
		{ PERF_WRITE_BW, "-t 0", "TX depth" },
		{ PERF_WRITE_BW, "-Q 0", "moderation" },
		{ PERF_WRITE_BW, "-m 1500", "MTU must be" },
		{ PERF_WRITE_BW, "-m 8192", "MTU must be" },
		{ PERF_WRITE_BW, "-o 17", "outstanding reads must be" },
		{ PERF_ATOMIC_BW, "-A ADD", "atomic type must be CMP_AND_SWAP or FETCH_AND_ADD" },
		{ PERF_WRITE_BW, "-A CMP_AND_SWAP", "atomic_bw and atomic_lat" },
		{ PERF_ATOMIC_BW, "-s 16", "Message size cannot be changed for Atomic tests" },
		{ PERF_ATOMIC_LAT, "-a", "Message size cannot be changed for Atomic tests" },
		{ PERF_WRITE_LAT, "-q 2", "one QP" },
		{ PERF_SEND_LAT, "-t 4", "one WR in flight" },
		{ PERF_WRITE_BW, "-a -D 2", "Duration mode currently doesn't support running on all sizes." },
		{ PERF_WRITE_BW, "-p 0", "port must be" },
		{ PERF_WRITE_BW, "-p 70000", "port must be" },
		{ PERF_WRITE_BW, "-c UD", "only RC" },
		{ PERF_WRITE_BW, "--output=all", "bandwidth, latency or message_rate" },
		{ PERF_WRITE_LAT, "-b", "Bidirectional is only available in BW test" },
		{ PERF_WRITE_BW, "-b --verify", "the data cannot be checked" },
		{ PERF_WRITE_BW, "--loopback 10.0.0.1", "give no host" },
		{ PERF_WRITE_BW, "host1 host2", "unexpected argument" },
		{ PERF_WRITE_BW, "--bogus", "unknown option" },
		{ PERF_WRITE_BW, "-s", "needs a value" },
		{ PERF_WRITE_BW, "--out_json_file", "needs a value" },
		{ PERF_WRITE_BW, "--histogram=h.csv 10.0.0.1", "latency tests only" },
		{ PERF_ATOMIC_BW, "--histogram=h.csv --loopback", "latency tests only" },
		{ PERF_WRITE_LAT, "--histogram=h.csv -D 2 10.0.0.1", "not -D" },
		{ PERF_SEND_LAT, "--histogram=h.csv --run_infinitely 10.0.0.1", "not -D" },
		{ PERF_WRITE_LAT, "--histogram= 10.0.0.1", "empty file name" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perf_opts o;
		char err[256];

		cr_expect_eq(parse(bad[i].t, &o, err, bad[i].line), -1, "'%s' accepted", bad[i].line);
		cr_expect(strstr(err, bad[i].says) != NULL, "'%s' says '%s', not '%s'", bad[i].line,
			  err, bad[i].says);
	}
}

/* --histogram: the client's (or --loopback's) file; a server notes it and keeps perftest's table */
Test(perf_opts, histogram)
{
	struct perf_opts o;
	char err[256];

	cr_assert_eq(parse(PERF_WRITE_LAT, &o, err, ""), 0);
	cr_expect_null(o.hist_file, "off by default");
	cr_assert_eq(parse(PERF_READ_LAT, &o, err, "-a --histogram=/tmp/h.csv 10.0.0.1"), 0, "%s",
		     err);
	cr_expect_str_eq(o.hist_file, "/tmp/h.csv");
	cr_expect_eq(o.nnotes, 0);
	cr_assert_eq(parse(PERF_ATOMIC_LAT, &o, err, "--histogram /tmp/h.csv --loopback"), 0, "%s",
		     err);
	cr_expect_str_eq(o.hist_file, "/tmp/h.csv");
	cr_assert_eq(parse(PERF_SEND_LAT, &o, err, "--histogram=/tmp/h.csv"), 0, "%s", err);
	cr_expect_null(o.hist_file, "a server has no samples");
	cr_assert_eq(o.nnotes, 1);
	cr_expect_str_eq(o.notes[0], "--histogram /tmp/h.csv ignored: the client measures; a server "
				     "has no samples");
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
