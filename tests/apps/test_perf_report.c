/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-perf's output: perftest's lines byte for byte, its statistics, and the JSON file. */
#include <criterion/criterion.h>
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
	char err[256], *argv[] = { "ordk-perf", NULL };

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

Test(perf_report, bw_table_is_perftests)
{
	struct perf_opts o = opts(PERF_WRITE_BW);
	struct perf_bw r = { .bytes = 65536, .iters = 5000, .peak_mib = 100.5, .avg_mib = 99.25,
			     .mpps = 0.001588, .peak_valid = true };
	FILE *f = capture();

	perf_print_bw_head(f, &o);
	perf_print_bw_row(f, &o, &r);
	fclose(f);
	cr_expect_str_eq(out,
			 " #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n"
			 " 65536      5000             100.50             99.25  \t\t     0.001588\n");

	o.report_gbits = true;
	o.duration = 5;
	r.peak_valid = false;
	f = capture();
	perf_print_bw_head(f, &o);
	perf_print_bw_row(f, &o, &r);
	fclose(f);
	/* 99.25 MiB/s = 0.83 Gb/s; no peak in -D runs, with perftest's warning */
	cr_expect_str_eq(out,
			 " WARNING: BW peak won't be measured in this run.\n"
			 " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
			 " 65536      5000             0.00               0.83   \t\t     0.001588\n");
}

Test(perf_report, latency_table_is_perftests)
{
	struct perf_opts o = opts(PERF_WRITE_LAT);
	struct perf_lat r = { .bytes = 2, .iters = 1000, .t_min = 1.5, .t_max = 30.25,
			      .t_typical = 1.75, .t_avg = 2, .t_stdev = 0.5, .p99 = 6.8, .p999 = 29 };
	FILE *f = capture();

	perf_print_lat_head(f, &o);
	perf_print_lat_row(f, &o, &r);
	fclose(f);
	cr_expect_str_eq(out,
			 " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
			 "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
			 " 2       1000       1.50           30.25        1.75            2.00           "
			 "0.50             6.80                   29.00  \n");
	o.duration = 2;
	r.tps = 250000;
	f = capture();
	perf_print_lat_head(f, &o);
	fclose(f);
	cr_expect_str_eq(out, " #bytes        #iterations       t_avg[usec]    tps average\n");
}

Test(perf_report, header_block)
{
	struct perf_opts o = opts(PERF_WRITE_BW);
	struct perf_hdr h = { .device = "bluesim0", .outstand_reads = 16 };
	struct perf_addr a = { .qpn = 0x11, .psn = 0x3341fd, .rkey = 0x204, .vaddr = 0x7f7e1b8fa000,
			       .ip = 0xC0A87ACD };
	FILE *f = capture();

	perf_print_header(f, &o, &h);
	perf_print_addr(f, "local", &o, &a);
	fclose(f);
	static const char *const lines[] = {
		"---------------------------------------------------------------------------------------",
		"                    RDMA_Write BW Test",
		" Dual-port       : OFF\t\tDevice         : bluesim0",
		" Number of qps   : 1\t\tTransport type : IB",
		" Connection type : RC\t\tUsing SRQ      : OFF",
		" TX depth        : 128",
		" CQ Moderation   : 100",
		" CQE Poll Batch  : Dynamic",
		" Mtu             : 4096[B]",
		" Link type       : Ethernet",
		" Max inline data : 0[B]",
		" rdma_cm QPs\t : OFF",
		" Data ex. method : Ethernet",
		" local address: LID 0000 QPN 0x0011 PSN 0x3341fd RKey 0x000204 VAddr 0x007f7e1b8fa000",
		" GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:122:205",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		cr_expect(has_line(out, lines[i]), "missing line '%s' in:\n%s", lines[i], out);

	o = opts(PERF_READ_LAT);
	f = capture();
	perf_print_header(f, &o, &h);
	perf_print_addr(f, "remote", &o, &a);
	fclose(f);
	cr_expect(has_line(out, "                    RDMA_Read Latency Test"), "%s", out);
	cr_expect(has_line(out, " Outstand reads  : 16"), "%s", out);
	cr_expect(!strstr(out, "CQ Moderation"), "latency tests have no moderation line");
	cr_expect(has_line(out, " remote address: LID 0000 QPN 0x0011 PSN 0x3341fd OUT 0x10 "
				"RKey 0x000204 VAddr 0x007f7e1b8fa000"), "%s", out);

	o = opts(PERF_ATOMIC_BW);
	o.atomic = PERF_CMP_AND_SWP;
	f = capture();
	perf_print_header(f, &o, &h);
	fclose(f);
	cr_expect(has_line(out, "                    Atomic CMP_AND_SWAP BW Test"), "%s", out);
	o = opts(PERF_SEND_LAT);
	f = capture();
	perf_print_header(f, &o, &h);
	fclose(f);
	cr_expect(has_line(out, "                    Send Latency Test"), "%s", out);
}

Test(perf_report, latency_statistics)
{
	double us[100];
	struct perf_lat r;

	for (int i = 0; i < 100; i++)
		us[i] = 100 - i; /* unsorted on purpose */
	perf_lat_stats(us, 100, &r);
	cr_expect_eq(r.iters, 100);
	cr_expect_float_eq(r.t_min, 1, 1e-9);
	cr_expect_float_eq(r.t_max, 100, 1e-9);
	cr_expect_float_eq(r.t_typical, 51, 1e-9, "the median, as perftest: sorted[n / 2]");
	cr_expect_float_eq(r.t_avg, 50.5, 1e-9);
	cr_expect_float_eq(r.t_stdev, 28.866, 1e-3);
	cr_expect_float_eq(r.p99, 100, 1e-9);
	cr_expect_float_eq(r.p999, 100, 1e-9);
	perf_lat_stats(us, 0, &r);
	cr_expect_eq(r.iters, 0);
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

Test(perf_report, json_parses_and_has_the_fields)
{
	char path[] = "/tmp/ordk-perf-json-XXXXXX", cmd[1024];
	struct perf_opts o = opts(PERF_WRITE_BW);
	struct perf_hdr h = { .device = "blue\"sim0", .outstand_reads = 16 };
	struct perf_json j;
	struct perf_bw b = { .bytes = 64, .iters = 10, .peak_mib = 3, .avg_mib = 2, .mpps = 1,
			     .peak_valid = true };
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	close(fd);
	o.out_json = path;
	cr_assert_eq(perf_json_open(&j, &o, &h), 0);
	perf_json_bw(&j, &o, &b);
	b.bytes = 128;
	perf_json_bw(&j, &o, &b);
	cr_assert_eq(perf_json_close(&j, 0), 0);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
		 "assert d[\"test\"]==\"write_bw\" and d[\"device\"]==\"blue\\\"sim0\", d; "
		 "r=d[\"results\"]; assert [x[\"MsgSize\"] for x in r]==[64,128], r; "
		 "assert all(k in r[0] for k in (\"n_iterations\",\"BW_peak\",\"BW_average\",\"MsgRate\")); "
		 "assert d[\"units\"]==\"MiB/sec\" and d[\"status\"]==\"ok\"' %s",
		 path);
	cr_expect_eq(system(cmd), 0, "JSON check failed: %s", path);

	struct perf_lat l = { .bytes = 2, .iters = 5, .t_typical = 1.25 };

	o = opts(PERF_SEND_LAT);
	o.out_json = path;
	cr_assert_eq(perf_json_open(&j, &o, &h), 0);
	perf_json_lat(&j, &l);
	cr_assert_eq(perf_json_close(&j, 1), 0);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d[\"results\"][0]; "
		 "assert r[\"t_typical\"]==1.25 and \"percentile_99_9\" in r and d[\"status\"]==\"failed\"' %s",
		 path);
	cr_expect_eq(system(cmd), 0, "latency JSON check failed");
	unlink(path);
	o.out_json = "/nonexistent-dir/x.json";
	cr_expect_eq(perf_json_open(&j, &o, &h), -1);
}
