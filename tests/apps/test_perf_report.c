/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf's output against perftest's: the expected text is made from
 * perftest's own format strings (src/perftest_parameters.h, copied below as
 * interface facts) and the lines of its ctx_print_test_info(), never from
 * ordk-perf's output.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

static char *out;
static size_t out_len;

static FILE *
capture(void)
{
	free(out);
	out = NULL;
	return open_memstream(&out, &out_len);
}

static struct perf_opts
opts(enum perf_test t)
{
	struct perf_opts o;
	char err[256], *argv[] = { (char[]){ "ordk-perf" }, NULL };

	cr_assert_eq(perf_opts_parse(t, 1, argv, &o, err, sizeof(err)), 0);
	return o;
}

static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* perftest's formats (perftest_parameters.h, perftest_communication.h) */
#define PT_RESULT_LINE "---------------------------------------------------------------------------------------\n"
#define PT_RESULT_FMT " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]"
#define PT_RESULT_FMT_G " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
#define PT_RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99""%"" percentile[usec]   99.9""%"" percentile[usec] "
#define PT_RESULT_FMT_LAT_DUR " #bytes        #iterations       t_avg[usec]    tps average"
#define PT_RESULT_EXT "\n"
#define PT_REPORT_FMT " %-7lu    %-10" PRIu64 "       %-7.2lf            %-7.2lf		     %-7.6lf"
#define PT_REPORT_FMT_EXT " %-7lu    %" PRIu64 "           %-7.6lf            %-7.6lf            %-7.6lf"
#define PT_REPORT_FMT_LAT " %-7lu %" PRIu64 "          %-7.2f        %-7.2f      %-7.2f  	       %-7.2f     	%-7.2f		%-7.2f 		%-7.2f"
#define PT_REPORT_FMT_LAT_DUR " %-7lu       %" PRIu64 "            %-7.2f        %-7.2f"
#define PT_REPORT_EXT "\n"
#define PT_BASIC_ADDR_FMT " %s address: LID %#04x QPN %#06x PSN %#06x"
#define PT_READ_FMT " OUT %#04x"
#define PT_RDMA_FMT " RKey %#08x VAddr %#016llx"
#define PT_GID_FMT " %s: %02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d:%02d\n"
#define PT_REPORT_FMT_JSON "\"MsgSize\": %lu,\n\"n_iterations\": %" PRIu64 ",\n\"BW_peak\": %.2lf,\n\"BW_average\": %.2lf,\n\"MsgRate\": %.6lf"
#define PT_REPORT_FMT_LAT_JSON "\"MsgSize\": %lu,\n\"n_iterations\": %" PRIu64 ",\n\"t_min\": %.2f,\n\"t_max\": %.2f,\n\"t_typical\": %.2f,\n\"t_avg\": %.2f,\n\"t_stdev\": %.2f,\n\"percentile_99\": %.2f,\n\"percentile_99.9\": %.2f"
#define PT_REPORT_FMT_LAT_DUR_JSON "\"MsgSize\": %lu,\n\"n_iterations\": %" PRIu64 ",\n\"t_avg\": %.2f,\n\"tps_average\": %.2f"

static char want[8192];

Test(perf_report, bw_table_is_perftests)
{
	struct perf_opts o = opts(PERF_WRITE_BW);
	struct perf_bw r = { .bytes = 65536, .iters = 5000, .peak_mib = 100.5, .avg_mib = 99.25,
			     .mpps = 0.001588, .peak_valid = true };
	FILE *f = capture();

	perf_print_bw_head(f, &o);
	perf_print_bw_row(f, &o, &r);
	fclose(f);
	snprintf(want, sizeof(want), PT_RESULT_LINE PT_RESULT_FMT PT_RESULT_EXT PT_REPORT_FMT
		 PT_REPORT_EXT, 65536ul, (uint64_t)5000, 100.5, 99.25, 0.001588);
	cr_expect_str_eq(out, want);

	/* Gb/s; no peak; an average below 0.1 Gb/s gets 6 decimals (REPORT_FMT_EXT) */
	o.report_gbits = true;
	r.peak_valid = false;
	r.avg_mib = 1.5; /* 0.012582912 Gb/s */
	f = capture();
	perf_print_bw_head(f, &o);
	perf_print_bw_row(f, &o, &r);
	fclose(f);
	snprintf(want, sizeof(want), PT_RESULT_LINE PT_RESULT_FMT_G PT_RESULT_EXT PT_REPORT_FMT_EXT
		 PT_REPORT_EXT, 65536ul, (uint64_t)5000, 0.0, 0.012582912, 0.001588);
	cr_expect_str_eq(out, want);
	r.avg_mib = 99.25; /* 0.83 Gb/s: two decimals again */
	f = capture();
	perf_print_bw_row(f, &o, &r);
	fclose(f);
	snprintf(want, sizeof(want), PT_REPORT_FMT PT_REPORT_EXT, 65536ul, (uint64_t)5000, 0.0,
		 99.25 * 1048576 * 8 / 1e9, 0.001588);
	cr_expect_str_eq(out, want);

	/* --output: one number per row */
	o.report_gbits = false;
	o.output = PERF_OUT_BW;
	f = capture();
	perf_print_bw_head(f, &o);
	perf_print_bw_row(f, &o, &r);
	o.output = PERF_OUT_MR;
	perf_print_bw_row(f, &o, &r);
	fclose(f);
	cr_expect_str_eq(out, "99.250000\n0.001588\n");
}

Test(perf_report, latency_table_is_perftests)
{
	struct perf_opts o = opts(PERF_WRITE_LAT);
	struct perf_lat r = { .bytes = 2, .iters = 1000, .t_min = 1.5, .t_max = 30.25,
			      .t_typical = 1.75, .t_avg = 2, .t_stdev = 0.5, .p99 = 6.8, .p999 = 29,
			      .tps = 250000 };
	FILE *f = capture();

	perf_print_lat_head(f, &o);
	perf_print_lat_row(f, &o, &r);
	fclose(f);
	/* perftest prints RESULT_FMT_LAT with "%s" (it holds a '%') */
	snprintf(want, sizeof(want), PT_RESULT_LINE "%s" PT_RESULT_EXT PT_REPORT_FMT_LAT
		 PT_REPORT_EXT, PT_RESULT_FMT_LAT, 2ul, (uint64_t)1000, 1.5, 30.25, 1.75, 2.0, 0.5,
		 6.8, 29.0);
	cr_expect_str_eq(out, want);
	o.duration = 2;
	f = capture();
	perf_print_lat_head(f, &o);
	perf_print_lat_row(f, &o, &r);
	fclose(f);
	snprintf(want, sizeof(want), PT_RESULT_LINE PT_RESULT_FMT_LAT_DUR PT_RESULT_EXT
		 PT_REPORT_FMT_LAT_DUR PT_REPORT_EXT, 2ul, (uint64_t)1000, 2.0, 250000.0);
	cr_expect_str_eq(out, want);
	o.output = PERF_OUT_LAT;
	f = capture();
	perf_print_lat_row(f, &o, &r);
	fclose(f);
	cr_expect_str_eq(out, "2.000000\n");
}

/*
 * ctx_print_test_info()'s block for each test: the title; TX depth on the
 * client; RX depth on the server of send tests; CQ Moderation and CQE Poll
 * Batch in BW tests; Outstand reads for READ and atomics, else Max inline data.
 */
static const struct {
	enum perf_test t;
	bool server;
	const char *title, *depth, *bw, *last;
} headers[] = {
	{ PERF_WRITE_BW, false, "RDMA_Write BW", " TX depth        : 128\n",
	  " CQ Moderation   : 1\n CQE Poll Batch  : Dynamic\n", " Max inline data : 0[B]\n" },
	{ PERF_WRITE_BW, true, "RDMA_Write BW", "",
	  " CQ Moderation   : 1\n CQE Poll Batch  : Dynamic\n", " Max inline data : 0[B]\n" },
	{ PERF_WRITE_LAT, false, "RDMA_Write Latency", " TX depth        : 1\n", "",
	  " Max inline data : 0[B]\n" },
	{ PERF_READ_BW, false, "RDMA_Read BW", " TX depth        : 128\n",
	  " CQ Moderation   : 1\n CQE Poll Batch  : Dynamic\n", " Outstand reads  : 16\n" },
	{ PERF_READ_LAT, false, "RDMA_Read Latency", " TX depth        : 1\n", "",
	  " Outstand reads  : 16\n" },
	{ PERF_SEND_BW, false, "Send BW", " TX depth        : 128\n",
	  " CQ Moderation   : 1\n CQE Poll Batch  : Dynamic\n", " Max inline data : 0[B]\n" },
	{ PERF_SEND_BW, true, "Send BW", " RX depth        : 512\n",
	  " CQ Moderation   : 1\n CQE Poll Batch  : Dynamic\n", " Max inline data : 0[B]\n" },
	{ PERF_SEND_LAT, false, "Send Latency", " TX depth        : 1\n", "",
	  " Max inline data : 0[B]\n" },
	{ PERF_SEND_LAT, true, "Send Latency", " RX depth        : 1\n", "",
	  " Max inline data : 0[B]\n" },
	{ PERF_ATOMIC_BW, false, "Atomic FETCH_AND_ADD BW", " TX depth        : 128\n",
	  " CQ Moderation   : 100\n CQE Poll Batch  : Dynamic\n", " Outstand reads  : 16\n" },
	{ PERF_ATOMIC_LAT, false, "Atomic FETCH_AND_ADD Latency", " TX depth        : 1\n", "",
	  " Outstand reads  : 16\n" },
};

Test(perf_report, header_block_of_every_test)
{
	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		struct perf_opts o = opts(headers[i].t);
		struct perf_hdr h = { .device = "bluesim0", .server = headers[i].server };
		FILE *f = capture();

		perf_print_header(f, &o, &h);
		fclose(f);
		snprintf(want, sizeof(want),
			 PT_RESULT_LINE "                    %s Test\n"
			 " Dual-port       : OFF\t\tDevice         : bluesim0\n"
			 " Number of qps   : 1\t\tTransport type : IB\n"
			 " Connection type : RC\t\tUsing SRQ      : OFF\n"
			 " PCIe relax order: OFF\t\tLock-free      : OFF\n"
			 " ibv_wr* API     : OFF\t\tUsing Enhanced Reorder      : OFF\n"
			 "%s%s Mtu             : 4096[B]\n Link type       : Ethernet\n"
			 " GID index       : 0\n%s rdma_cm QPs\t : OFF\n Data ex. method : Ethernet\n"
			 PT_RESULT_LINE, headers[i].title, headers[i].depth, headers[i].bw,
			 headers[i].last);
		cr_expect_str_eq(out, want, "%s (%s)", perf_test_name(headers[i].t),
				 headers[i].server ? "server" : "client");
	}
	struct perf_opts o = opts(PERF_ATOMIC_BW);
	struct perf_hdr h = { .device = "bluesim0" };
	FILE *f = capture();

	o.atomic = PERF_CMP_AND_SWP;
	perf_print_header(f, &o, &h);
	fclose(f);
	cr_expect(has_line(out, "                    Atomic CMP_AND_SWAP BW Test"), "%s", out);
}

Test(perf_report, warnings_come_before_the_header)
{
	struct perf_opts o = opts(PERF_WRITE_BW);
	FILE *f;

	o.duration = 5;
	f = capture();
	perf_print_warnings(f, &o, false);
	fclose(f);
	cr_expect_str_eq(out, " WARNING: BW peak won't be measured in this run.\n");
	o = opts(PERF_SEND_BW);
	f = capture();
	perf_print_warnings(f, &o, false);
	perf_print_warnings(f, &o, true);
	fclose(f);
	cr_expect_str_eq(out, " WARNING: BW peak won't be measured in this run.\n",
			 "perftest's send_bw server measures no peak; its client does");
	o = opts(PERF_WRITE_LAT);
	o.duration = 5;
	f = capture();
	perf_print_warnings(f, &o, false);
	fclose(f);
	cr_expect_str_eq(out, "", "latency tests have no peak to warn about");
}

Test(perf_report, addresses)
{
	struct perf_addr a = { .qpn = 0x11, .psn = 0x3341fd, .rkey = 0x204, .vaddr = 0x7f7e1b8fa000,
			       .ip = 0xC0A87ACD };
	static const struct {
		enum perf_test t;
		const char *extra;
	} cases[] = {
		{ PERF_WRITE_BW, "rdma" }, { PERF_WRITE_LAT, "rdma" }, { PERF_READ_BW, "read" },
		{ PERF_READ_LAT, "read" }, { PERF_SEND_BW, "" },       { PERF_SEND_LAT, "" },
		{ PERF_ATOMIC_BW, "" },	   { PERF_ATOMIC_LAT, "" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_opts o = opts(cases[i].t);
		int n;
		FILE *f = capture();

		perf_print_addr(f, "local", &o, &a);
		fclose(f);
		/* ctx_print_pingpong_data(): READ adds OUT, then READ and WRITE add RKey/VAddr */
		n = snprintf(want, sizeof(want), PT_BASIC_ADDR_FMT, "local", 0, 0x11, 0x3341fd);
		if (strcmp(cases[i].extra, "read") == 0)
			n += snprintf(want + n, sizeof(want) - (size_t)n, PT_READ_FMT, 16);
		if (cases[i].extra[0])
			n += snprintf(want + n, sizeof(want) - (size_t)n, PT_RDMA_FMT, 0x204,
				      0x7f7e1b8fa000ull);
		n += snprintf(want + n, sizeof(want) - (size_t)n, "\n");
		snprintf(want + n, sizeof(want) - (size_t)n, PT_GID_FMT, "GID", 0, 0, 0, 0, 0, 0, 0, 0,
			 0, 0, 255, 255, 192, 168, 122, 205);
		cr_expect_str_eq(out, want, "%s", perf_test_name(cases[i].t));
	}
}

/* perftest's print_report_lat(), by hand, for the deltas given. */
Test(perf_report, latency_statistics_as_perftest)
{
	/* 9 deltas: sorted 1 2 3 4 5 6 7 | 50 90 (the top 2 dropped: m = 7) */
	uint64_t d[9] = { 90, 3, 1, 7, 5, 50, 2, 6, 4 };
	struct perf_lat r;

	cr_assert_eq(perf_lat_stats(d, 9, 1.0, &r), 0);
	cr_expect_float_eq(r.t_min, 1, 1e-9);
	cr_expect_float_eq(r.t_max, 50, 1e-9, "t_max is delta[m], the first dropped");
	cr_expect_float_eq(r.t_typical, 4, 1e-9, "odd m: delta[m / 2]");
	cr_expect_float_eq(r.t_avg, 4, 1e-9, "the average of the m kept");
	cr_expect_float_eq(r.t_stdev, 2, 1e-9);
	cr_expect_float_eq(r.p99, 50, 1e-9, "delta[ceil(7 * 0.99)] = delta[7]");
	cr_expect_float_eq(r.p999, 50, 1e-9);

	/* 8 deltas, 2 cycles a unit: m = 6, sorted 10 20 30 41 50 60 | 70 80: the even median
	 * averaged in whole cycles, (30 + 41) / 2 = 35 */
	uint64_t e[8] = { 80, 70, 60, 50, 41, 30, 20, 10 };

	cr_assert_eq(perf_lat_stats(e, 8, 2.0, &r), 0);
	cr_expect_float_eq(r.t_typical, 17.5, 1e-9);
	cr_expect_float_eq(r.t_min, 5, 1e-9);
	cr_expect_float_eq(r.t_avg, 211.0 / 6 / 2, 1e-9);
	cr_expect_float_eq(r.t_max, 35, 1e-9);

	/* n = 1000 iterations: 999 deltas, m = 997: p99 = delta[988], p99.9 = delta[997] = t_max */
	static uint64_t big[999];

	for (int i = 0; i < 999; i++)
		big[i] = (uint64_t)(999 - i);
	cr_assert_eq(perf_lat_stats(big, 999, 1.0, &r), 0);
	cr_expect_float_eq(r.p99, 988 + 1, 1e-9);
	cr_expect_float_eq(r.p999, 998, 1e-9);
	cr_expect_float_eq(r.t_max, 998, 1e-9);
	cr_expect_float_eq(r.t_typical, 499, 1e-9, "m odd: delta[498]");
	cr_expect_eq(perf_lat_stats(big, 2, 1.0, &r), -1);
}

static char *slurp(const char *path);

/*
 * --histogram's columns: p50 and p90 as perftest takes p99 (the sorted deltas at
 * ceil(m * p), top 2 dropped), and max, the largest of all (perftest's t_max is
 * the first dropped).
 */
Test(perf_report, histogram_percentiles)
{
	/* sorted 1 2 3 4 5 6 7 | 50 90: m = 7, ceil(3.5) = 4, ceil(6.3) = 7 */
	uint64_t d[9] = { 90, 3, 1, 7, 5, 50, 2, 6, 4 };
	static uint64_t big[999];
	struct perf_lat r;

	cr_assert_eq(perf_lat_stats(d, 9, 1.0, &r), 0);
	cr_expect_float_eq(r.p50, 5, 1e-9);
	cr_expect_float_eq(r.p90, 50, 1e-9);
	cr_expect_float_eq(r.max, 90, 1e-9, "the largest, not t_max");
	cr_expect_float_eq(r.t_max, 50, 1e-9);
	/* 999 deltas 1..999 (m = 997): p50 = delta[499] = 500, p90 = delta[898] = 899 */
	for (int i = 0; i < 999; i++)
		big[i] = (uint64_t)(999 - i);
	cr_assert_eq(perf_lat_stats(big, 999, 2.0, &r), 0);
	cr_expect_float_eq(r.p50, 250, 1e-9);
	cr_expect_float_eq(r.p90, 449.5, 1e-9);
	cr_expect_float_eq(r.max, 499.5, 1e-9);
	cr_expect(r.t_min <= r.p50 && r.p50 <= r.p90 && r.p90 <= r.p99 && r.p99 <= r.p999 &&
		  r.p999 <= r.max, "monotone");
}

/* The histogram file: a line per sample, in the order taken, in whole nanoseconds. */
Test(perf_report, histogram_file)
{
	uint64_t d[3] = { 3000, 1499, 1500 };
	FILE *f = capture();

	fprintf(f, PERF_HIST_HEAD "\n");
	cr_assert_eq(perf_hist_write(f, "write_lat", 4096, d, 3, 1.5), 0);
	cr_expect_eq(perf_hist_write(f, "write_lat", 4096, d, 3, 0), -1, "no clock");
	fclose(f);
	cr_expect_str_eq(out, "test,bytes,iteration,ns\n"
			      "write_lat,4096,0,2000\nwrite_lat,4096,1,999\nwrite_lat,4096,2,1000\n");
}

/* With --histogram the table gains p50, p90 and max after perftest's columns (JSON too). */
Test(perf_report, histogram_columns)
{
	char path[] = "/tmp/ordk-perf-json-XXXXXX", cmd[512];
	struct perf_opts o = opts(PERF_WRITE_LAT);
	struct perf_hdr h = { .device = "bluesim0" };
	struct perf_lat r = { .bytes = 2, .iters = 1000, .t_min = 1.5, .t_max = 30.25,
			      .t_typical = 1.75, .t_avg = 2, .t_stdev = 0.5, .p99 = 6.8, .p999 = 29,
			      .p50 = 1.75, .p90 = 2.5, .max = 41 };
	FILE *f;
	int fd;

	o.hist_file = "h.csv";
	f = capture();
	perf_print_lat_head(f, &o);
	perf_print_lat_row(f, &o, &r);
	fclose(f);
	snprintf(want, sizeof(want), PT_RESULT_LINE "%s   50%% percentile[usec]   90%% "
		 "percentile[usec]   max[usec]" PT_RESULT_EXT PT_REPORT_FMT_LAT
		 " \t\t%-7.2f \t\t%-7.2f \t\t%-7.2f" PT_REPORT_EXT, PT_RESULT_FMT_LAT, 2ul,
		 (uint64_t)1000, 1.5, 30.25, 1.75, 2.0, 0.5, 6.8, 29.0, 1.75, 2.5, 41.0);
	cr_expect_str_eq(out, want);

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	o.out_json_file = path;
	cr_assert_eq(perf_json_lat(&o, &h, &r), 0);
	snprintf(want, sizeof(want), "\"results\": {\n" PT_REPORT_FMT_LAT_JSON ",\n"
		 "\"percentile_50\": 1.75,\n\"percentile_90\": 2.50,\n\"max\": 41.00\n}\n}\n",
		 2ul, (uint64_t)1000, 1.5, 30.25, 1.75, 2.0, 0.5, 6.8, 29.0);
	cr_expect(strstr(slurp(path), want) != NULL, "%s", slurp(path));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s",
		 path);
	cr_expect_eq(system(cmd), 0, "not JSON: %s", slurp(path));
	unlink(path);
}

Test(perf_report, bw_peak)
{
	/* 4 messages: posted at 0,0,0,0; completed at 10,20,30,100 ticks (hz 1):
	 * the best run is 0..2: 30 / 3 = 10 per message */
	uint64_t tp[4] = { 0, 0, 0, 0 }, tc[4] = { 10, 20, 30, 100 };

	cr_expect_float_eq(perf_peak_spm(tp, tc, 4, 1.0), 10.0, 1e-9);
	/* runs: [1..2] (70 - 50) / 2 = 10 beats [1] 12, [0..2] 23.3 and [2] 10 ties */
	uint64_t tp2[3] = { 0, 50, 60 }, tc2[3] = { 50, 62, 70 };

	cr_expect_float_eq(perf_peak_spm(tp2, tc2, 3, 1.0), 10.0, 1e-9);
	cr_expect_float_eq(perf_peak_spm(tp, tc, 0, 1.0), 0.0, 1e-9);

	/* sampled (n > 4096): never worse than the whole run, whose rate is the average */
	enum { N = 10001 };
	static uint64_t tp3[N], tc3[N];

	for (int k = 0; k < N; k++) {
		tp3[k] = (uint64_t)k;
		tc3[k] = (uint64_t)k + 100;
	}
	cr_expect_leq(perf_peak_spm(tp3, tc3, N, 1.0), (double)(tc3[N - 1] - tp3[0]) / N + 1e-12);
}

static char *
slurp(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	cr_assert_not_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* write_test_info_to_file() for write_bw on the client */
#define PT_TEST_INFO_WRITE_BW                                                              \
	"{\n\"test_info\": {\n\"test\": \"RDMA_Write_BW_Test\",\n\"Dual_port\": \"OFF\",\n"   \
	"\"Device\": \"bluesim0\",\n\"Number_of_qps\": 1,\n\"Transport_type\": \"IB\",\n"     \
	"\"Connection_type\": \"RC\",\n\"Using_SRQ\": \"OFF\",\n\"PCIe_relax_order\": \"OFF\",\n" \
	"\"ibv_wr_API\": \"OFF\",\n\"TX_depth\": 128,\n\"CQ_Moderation\": 1,\n\"Mtu\": 4096,\n" \
	"\"Link_type\": \"Ethernet\",\n\"GID_index\": 0,\n\"Max_inline_data\": 0,\n"          \
	"\"rdma_cm_QPs\": \"OFF\",\n\"Use_ROCm_memory\": \"OFF\",\n\"Use_MUSA_memory\": \"OFF\",\n" \
	"\"Data_ex_method\": \"Ethernet\"\n},\n"

Test(perf_report, json_is_perftests)
{
	char path[] = "/tmp/ordk-perf-json-XXXXXX", cmd[512];
	struct perf_opts o = opts(PERF_WRITE_BW);
	struct perf_hdr h = { .device = "bluesim0" };
	struct perf_bw b = { .bytes = 64, .iters = 10, .peak_mib = 3, .avg_mib = 2, .mpps = 1,
			     .peak_valid = true };
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	o.out_json = true;
	o.out_json_file = path;
	cr_assert_eq(perf_json_bw(&o, &h, &b), 0);
	b.bytes = 128; /* perftest rewrites the file at each report: the last one stays */
	cr_assert_eq(perf_json_bw(&o, &h, &b), 0);
	snprintf(want, sizeof(want), PT_TEST_INFO_WRITE_BW "\"results\": {\n" PT_REPORT_FMT_JSON
		 "\n}\n}\n", 128ul, (uint64_t)10, 3.0, 2.0, 1.0);
	cr_expect_str_eq(slurp(path), want);
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s",
		 path);
	cr_expect_eq(system(cmd), 0, "not JSON: %s", slurp(path));

	struct perf_lat l = { .bytes = 2, .iters = 5, .t_min = 1, .t_max = 9, .t_typical = 1.25,
			      .t_avg = 2, .t_stdev = 0.5, .p99 = 8, .p999 = 9, .tps = 3 };
	char *got;

	o = opts(PERF_SEND_LAT);
	o.out_json_file = path;
	cr_assert_eq(perf_json_lat(&o, &h, &l), 0);
	got = slurp(path);
	snprintf(want, sizeof(want), "\"results\": {\n" PT_REPORT_FMT_LAT_JSON "\n}\n}\n", 2ul,
		 (uint64_t)5, 1.0, 9.0, 1.25, 2.0, 0.5, 8.0, 9.0);
	cr_expect(strstr(got, want) != NULL, "%s", got);
	cr_expect(strstr(got, "\"test\": \"Send_Latency_Test\",\n") != NULL, "%s", got);
	o.duration = 2;
	cr_assert_eq(perf_json_lat(&o, &h, &l), 0);
	got = slurp(path);
	snprintf(want, sizeof(want), "\"results\": {\n" PT_REPORT_FMT_LAT_DUR_JSON "\n}\n}\n", 2ul,
		 (uint64_t)5, 2.0, 3.0);
	cr_expect(strstr(got, want) != NULL, "%s", got);
	cr_expect_eq(system(cmd), 0, "not JSON: %s", got);
	unlink(path);
	o.out_json_file = "/nonexistent-dir/x.json";
	cr_expect_eq(perf_json_lat(&o, &h, &l), -1);
}

/*
 * -b, perftest's duplex: the peak warning first (the peak is not measured),
 * "Bidirectional " between the verb and "BW " in the title (ctx_print_test_info),
 * "Bidirectional_" in the JSON test name, a row with peak 0.00 (the row's
 * figures are the sum of both sides', made by the engine).
 */
Test(perf_report, bidirectional_is_perftests)
{
	char err[256], *argv[] = { (char[]){ "ordk-perf" }, (char[]){ "-b" }, NULL };
	char path[] = "/tmp/ordk-perf-json-XXXXXX";
	struct perf_opts o;
	struct perf_hdr h = { .device = "bluesim0" };
	struct perf_bw r = { .bytes = 65536, .iters = 5000, .avg_mib = 1800.5, .mpps = 0.028808 };
	FILE *f;
	int fd;

	cr_assert_eq(perf_opts_parse(PERF_WRITE_BW, 2, argv, &o, err, sizeof(err)), 0, "%s", err);
	cr_assert(o.duplex);
	f = capture();
	perf_print_warnings(f, &o, false);
	perf_print_header(f, &o, &h);
	perf_print_bw_head(f, &o);
	perf_print_bw_row(f, &o, &r);
	fclose(f);
	snprintf(want, sizeof(want), " WARNING: BW peak won't be measured in this run.\n"
		 PT_RESULT_LINE "                    RDMA_Write Bidirectional BW Test\n");
	cr_expect(strncmp(out, want, strlen(want)) == 0, "%s", out);
	snprintf(want, sizeof(want), PT_RESULT_LINE PT_RESULT_FMT PT_RESULT_EXT PT_REPORT_FMT
		 PT_REPORT_EXT, 65536ul, (uint64_t)5000, 0.0, 1800.5, 0.028808);
	cr_expect(strlen(out) > strlen(want) && strcmp(out + strlen(out) - strlen(want), want) == 0,
		  "%s", out);

	o.atomic = PERF_CMP_AND_SWP;
	o.test = PERF_ATOMIC_BW;
	f = capture();
	perf_print_header(f, &o, &h);
	fclose(f);
	cr_expect(has_line(out, "                    Atomic CMP_AND_SWAP Bidirectional BW Test"),
		  "%s", out);
	/* ctx_print_test_info: TX depth "if CLIENT || duplex", RX depth "if SEND && (SERVER ||
	 * duplex)": a send_bw -b server shows both */
	o.test = PERF_SEND_BW;
	h.server = true;
	f = capture();
	perf_print_header(f, &o, &h);
	fclose(f);
	cr_expect(has_line(out, " TX depth        : 128") && has_line(out, " RX depth        : 512"),
		  "%s", out);
	h.server = false;

	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	close(fd);
	o.test = PERF_WRITE_BW;
	o.out_json_file = path;
	cr_assert_eq(perf_json_bw(&o, &h, &r), 0);
	cr_expect(strstr(slurp(path), "\"test\": \"RDMA_Write_Bidirectional_BW_Test\",\n") != NULL,
		  "%s", slurp(path));
	unlink(path);
}
