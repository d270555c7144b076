/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-perf's options, in perftest's spelling where perftest has one. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app_common.h"
#include "perf.h"

static const char *const test_names[PERF_TEST_COUNT] = {
	[PERF_WRITE_BW] = "write_bw",	[PERF_WRITE_LAT] = "write_lat",
	[PERF_READ_BW] = "read_bw",	[PERF_READ_LAT] = "read_lat",
	[PERF_SEND_BW] = "send_bw",	[PERF_SEND_LAT] = "send_lat",
	[PERF_ATOMIC_BW] = "atomic_bw", [PERF_ATOMIC_LAT] = "atomic_lat",
};

int
perf_test_from_name(const char *name, enum perf_test *t)
{
	for (int i = 0; i < PERF_TEST_COUNT; i++)
		if (name != NULL && strcmp(name, test_names[i]) == 0) {
			*t = (enum perf_test)i;
			return 0;
		}
	return -1;
}

const char *
perf_test_name(enum perf_test t)
{
	return (unsigned int)t < PERF_TEST_COUNT ? test_names[t] : "?";
}

bool
perf_test_is_bw(enum perf_test t)
{
	return t == PERF_WRITE_BW || t == PERF_READ_BW || t == PERF_SEND_BW || t == PERF_ATOMIC_BW;
}

static bool
is_atomic(enum perf_test t)
{
	return t == PERF_ATOMIC_BW || t == PERF_ATOMIC_LAT;
}

void
perf_usage(FILE *f)
{
	fprintf(f,
		"usage: ordk-perf <test> [EAL args --] [options] [server host]\n"
		"tests: write_bw write_lat read_bw read_lat send_bw send_lat atomic_bw atomic_lat\n"
		"  no host: be the server; a host: be the client; --loopback: both in this process\n"
		"options (perftest's spelling and defaults):\n"
		"  -s, --size=<bytes>         message size (BW 65536, latency 2, atomics 8)\n"
		"  -a, --all                  every size from 2 B to 8 MiB\n"
		"  -n, --iters=<n>            iterations per size, at least 5 (write_bw 5000, others 1000)\n"
		"  -D, --duration=<s>         run for s seconds per size instead\n"
		"      --run_infinitely       a row every -D seconds (default 5) until interrupted\n"
		"  -q, --qp=<n>               QPs (BW tests, 1..64)\n"
		"  -t, --tx-depth=<n>         outstanding WRs per QP (BW 128, latency 1)\n"
		"  -r, --rx-depth=<n>         RECVs posted per QP in send tests (BW 512, latency 1)\n"
		"  -Q, --cq-mod=<n>           a completion every n WRs (BW 100; 1 above 8192 B unless -a)\n"
		"  -m, --mtu=<256..4096>      path MTU (default 4096)\n"
		"  -I, --inline_size=<n>      payloads up to n bytes copied into the WR when posted\n"
		"  -o, --outs=<n>             READs/atomics in flight per QP (1..16, default 16)\n"
		"  -u, --qp-timeout=<n>       local ACK timeout 4.096 us << n (default 14)\n"
		"  -A, --atomic_type=<CMP_AND_SWAP|FETCH_AND_ADD>\n"
		"  -b, --bidirectional        both sides post and measure (BW tests); each prints the sum\n"
		"  -N, --noPeak               no BW peak\n"
		"  -C, --report-cycles        latencies in cycles\n"
		"  -H, --report-histogrm      every sorted latency sample\n"
		"  -U, --report-unsorted      every latency sample, in order\n"
		"  -d, --ib-dev=<devargs>     device (default bluesim,port=0; blue:<bdf> for the card)\n"
		"  -p, --port=<port>          TCP port of the attribute exchange (default 18515)\n"
		"      --report_gbits         BW in Gb/sec instead of MiB/sec\n"
		"      --output=<bandwidth|latency|message_rate>  only that number\n"
		"      --out_json             write the report as JSON (perftest_out.json)\n"
		"      --out_json_file=<file> ... to this file\n"
		"  -V, --version\n"
		"ORDK's own:\n"
		"      --loopback             client and server in one process (net_ring)\n"
		"      --verify               check the data of every size\n"
		"      --progress, --no-progress  a line a second on stderr (default: when a terminal)\n"
		"      --stats                the device's counters at the end, on stderr\n"
		"      --wait=<s>             how long the client waits for its server (default 30)\n"
		"      --histogram=<file>     latency tests: every sample of every size to file (CSV:\n"
		"                             test,bytes,iteration,ns), p50/p90/max columns in the table\n"
		"  -h, --help\n"
		"Accepted and ignored, with a note: -c RC, -F, -x, -i, -S, -e, -l, -f, -w, -y, -R,\n"
		"--use_hugepages, --cpu_util.\n"
		"Without EAL arguments: --no-pci, hugepages when free (else --no-huge), a unique\n"
		"--file-prefix and net_memif over /tmp/ordk-perf-<port>.sock (server lcore 0,\n"
		"client lcore 1). The client waits for its server (--wait; start them in either\n"
		"order), trying again every 250 ms; the server waits for a client for good.\n");
}

/* A number with an optional K/M/G (binary) suffix, in [lo, hi]. */
static int
num(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	uint64_t v;

	if (app_parse_size(s, &v) != 0 || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

enum { OPT_GBITS = 256, OPT_JSON, OPT_JSON_FILE, OPT_LOOPBACK, OPT_VERIFY, OPT_NOPROGRESS,
       OPT_PROGRESS, OPT_STATS, OPT_INFINITE, OPT_OUTPUT, OPT_HUGE, OPT_CPU_UTIL, OPT_WAIT,
       OPT_HIST };

/* What the parser saw beyond the values. */
struct seen {
	bool size, depth, rx_depth, atomic, iters;
};

static void
note(struct perf_opts *o, const char *opt, const char *arg, const char *why)
{
	if (o->nnotes < PERF_MAX_NOTES)
		snprintf(o->notes[o->nnotes++], sizeof(o->notes[0]), "%s%s%s ignored: %s", opt,
			 arg ? " " : "", arg ? arg : "", why);
}

#define RANGE(opt, lo, hi, what)                                                          \
	do {                                                                              \
		if (num(arg, lo, hi, &v) != 0) {                                          \
			snprintf(err, err_len, "%s %s: %s must be %" PRIu64 " .. %" PRIu64, \
				 opt, arg, what, (uint64_t)(lo), (uint64_t)(hi));         \
			return -1;                                                        \
		}                                                                         \
	} while (0)

/* The options that take a number. @return 1 when @p c is not one of them. */
static int
opt_number(int c, const char *arg, struct perf_opts *o, struct seen *w, char *err, size_t err_len)
{
	uint64_t v;

	switch (c) {
	case 's':
		RANGE("-s", 1, PERF_MAX_SIZE, "size (bytes)");
		o->size = (uint32_t)v;
		w->size = true;
		return 0;
	case 'n':
		RANGE("-n", PERF_MIN_ITERS, 1000000000, "iterations");
		o->iters = v;
		w->iters = true;
		return 0;
	case 'D':
		RANGE("-D", 1, 86400, "duration (seconds)");
		o->duration = (uint32_t)v;
		return 0;
	case 'q':
		RANGE("-q", 1, PERF_MAX_QPS, "QPs");
		o->qps = (uint32_t)v;
		return 0;
	case 't':
		RANGE("-t", 1, 4096, "TX depth");
		o->tx_depth = (uint32_t)v;
		w->depth = true;
		return 0;
	case 'r':
		RANGE("-r", 1, 4096, "RX depth");
		o->rx_depth = (uint32_t)v;
		w->rx_depth = true;
		return 0;
	case 'Q':
		RANGE("-Q", 1, 4096, "CQ moderation");
		o->cq_mod = (uint32_t)v;
		o->cq_mod_set = true;
		return 0;
	case 'I':
		RANGE("-I", 0, 1024, "inline size (bytes)");
		o->inline_size = (uint32_t)v;
		return 0;
	case 'o':
		RANGE("-o", 1, 16, "outstanding reads");
		o->out_reads = (uint32_t)v;
		return 0;
	case 'u':
		RANGE("-u", 1, 31, "QP timeout");
		o->qp_timeout = (uint8_t)v;
		return 0;
	case OPT_WAIT:
		RANGE("--wait", 1, 3600, "the wait for the server (seconds)");
		o->peer_wait = (uint32_t)v;
		return 0;
	case 'p':
		RANGE("-p", 1, 65535, "port");
		o->port = (uint16_t)v;
		return 0;
	case 'm':
		if (num(arg, 256, 4096, &v) != 0 || (v & (v - 1)) != 0) {
			snprintf(err, err_len, "-m %s: MTU must be 256, 512, 1024, 2048 or 4096", arg);
			return -1;
		}
		o->mtu = (uint32_t)v;
		return 0;
	default:
		return 1;
	}
}

/* Options perftest has and ORDK cannot honour: accepted, with a note saying why. */
static int
opt_ignored(int c, const char *arg, struct perf_opts *o)
{
	switch (c) {
	case 'x': note(o, "-x", arg, "bluesim has one GID, an IPv4-mapped one (index 0)"); return 0;
	case 'i': note(o, "-i", arg, "the device has one port"); return 0;
	case 'S': note(o, "-S", arg, "no service levels (one queue per port)"); return 0;
	case 'e': note(o, "-e", NULL, "ORDK polls (no completion events)"); return 0;
	case 'l': note(o, "-l", arg, "one WR per post call"); return 0;
	case 'f': note(o, "-f", arg, "-D runs have no warm-up margin"); return 0;
	case 'w': note(o, "-w", arg, "no BW limit check"); return 0;
	case 'y': note(o, "-y", arg, "no message rate limit check"); return 0;
	case 'R': note(o, "-R", NULL, "no rdma_cm: QP attributes travel over TCP"); return 0;
	case OPT_HUGE: note(o, "--use_hugepages", NULL, "EAL picks hugepages itself"); return 0;
	case OPT_CPU_UTIL: note(o, "--cpu_util", NULL, "not measured"); return 0;
	case 'F': return 0; /* perftest's "ignore CPU frequency warnings": there are none */
	default: return 1;
	}
}

/* Flags and strings. @return 1 when @p c is not one of them. */
static int
opt_other(int c, const char *arg, struct perf_opts *o, struct seen *w, char *err, size_t err_len)
{
	switch (c) {
	case 'a': o->all_sizes = true; return 0;
	case 'b': o->duplex = true; return 0;
	case 'N': o->no_peak = true; return 0;
	case 'C': o->cycles = true; return 0;
	case 'H': o->histogram = true; return 0;
	case 'U': o->unsorted = true; return 0;
	case 'V': o->version = true; return 0;
	case 'h': o->help = true; return 0;
	case OPT_GBITS: o->report_gbits = true; return 0;
	case OPT_JSON: o->out_json = true; return 0;
	case OPT_JSON_FILE: o->out_json_file = arg; return 0;
	case OPT_HIST:
		if (arg[0] == '\0') {
			snprintf(err, err_len, "--histogram: empty file name");
			return -1;
		}
		o->hist_file = arg;
		return 0;
	case OPT_LOOPBACK: o->loopback = true; return 0;
	case OPT_VERIFY: o->verify = true; return 0;
	case OPT_NOPROGRESS: o->progress = 0; return 0;
	case OPT_PROGRESS: o->progress = 1; return 0;
	case OPT_STATS: o->stats = true; return 0;
	case OPT_INFINITE: o->run_infinitely = true; return 0;
	case OPT_OUTPUT:
		if (strcmp(arg, "bandwidth") == 0)
			o->output = PERF_OUT_BW;
		else if (strcmp(arg, "latency") == 0)
			o->output = PERF_OUT_LAT;
		else if (strcmp(arg, "message_rate") == 0)
			o->output = PERF_OUT_MR;
		else {
			snprintf(err, err_len,
				 "--output %s: must be bandwidth, latency or message_rate", arg);
			return -1;
		}
		return 0;
	case 'A':
		/* perftest spells it CMP_AND_SWAP; ORDK's first spelling stays accepted */
		if (strcmp(arg, "CMP_AND_SWAP") == 0 || strcmp(arg, "CMP_AND_SWP") == 0)
			o->atomic = PERF_CMP_AND_SWP;
		else if (strcmp(arg, "FETCH_AND_ADD") == 0)
			o->atomic = PERF_FETCH_AND_ADD;
		else {
			snprintf(err, err_len,
				 "-A %s: atomic type must be CMP_AND_SWAP or FETCH_AND_ADD", arg);
			return -1;
		}
		w->atomic = true;
		return 0;
	case 'd':
		if (arg[0] == '\0') {
			snprintf(err, err_len, "-d: empty device");
			return -1;
		}
		o->devargs = arg;
		return 0;
	case 'c':
		if (strcmp(arg, "RC") != 0) {
			snprintf(err, err_len, "-c %s: only RC connections exist on this card", arg);
			return -1;
		}
		return 0;
	default:
		return opt_ignored(c, arg, o);
	}
}
/* The combinations perftest refuses or adjusts. @return 0 or -1 (message in @p err). */
static int
opts_check(struct perf_opts *o, const struct seen *w, char *err, size_t err_len)
{
	enum perf_test t = o->test;
	bool bw = perf_test_is_bw(t);

	if (o->loopback && o->host != NULL) {
		snprintf(err, err_len, "--loopback runs both sides here: give no host");
		return -1;
	}
	if (is_atomic(t) && ((w->size && o->size != 8) || o->all_sizes)) {
		snprintf(err, err_len, "Message size cannot be changed for Atomic tests");
		return -1;
	}
	if (w->atomic && !is_atomic(t)) {
		snprintf(err, err_len, "-A applies to atomic_bw and atomic_lat only");
		return -1;
	}
	if (o->duplex && !bw) {
		snprintf(err, err_len, " Bidirectional is only available in BW test");
		return -1;
	}
	if (o->duplex && o->verify) {
		snprintf(err, err_len, "-b with --verify: both sides' WRs use the same regions, the "
			 "data cannot be checked");
		return -1;
	}
	if (!bw && o->qps != 1) {
		snprintf(err, err_len, "-q: latency tests use one QP");
		return -1;
	}
	if (!bw && w->depth && o->tx_depth != 1) {
		snprintf(err, err_len, "-t: latency tests keep one WR in flight");
		return -1;
	}
	if (o->run_infinitely && !o->duration)
		o->duration = 5; /* perftest's DEF_DURATION */
	if (o->hist_file != NULL && bw) {
		snprintf(err, err_len, "--histogram: latency tests only (write_lat, send_lat, "
			 "read_lat, atomic_lat)");
		return -1;
	}
	if (o->hist_file != NULL && o->duration) {
		snprintf(err, err_len, "--histogram: counts iterations (-n), not -D or "
			 "--run_infinitely");
		return -1;
	}
	if (o->hist_file != NULL && o->host == NULL && !o->loopback) {
		note(o, "--histogram", o->hist_file, "the client measures; a server has no samples");
		o->hist_file = NULL;
	}
	if (o->duration && o->all_sizes) {
		snprintf(err, err_len, "Duration mode currently doesn't support running on all sizes.");
		return -1;
	}
	if (o->out_json_file != NULL)
		o->out_json = true;
	else
		o->out_json_file = PERF_JSON_DEFAULT;
	if ((uint64_t)o->size * 2 * o->qps > PERF_MAX_MR) {
		snprintf(err, err_len, "-s %u with %u QPs: at most %u bytes per QP (the registered "
			 "region is 2 x size per QP, at most %u MiB)", o->size, o->qps,
			 PERF_MAX_MR / 2 / o->qps, PERF_MAX_MR >> 20);
		return -1;
	}
	/* perftest: no CQ moderation for large messages, unless asked or -a */
	if (bw && o->size > PERF_CQ_MOD_LIMIT && !o->all_sizes && !o->cq_mod_set)
		o->cq_mod = 1;
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	return 0;
}

/* perftest's long options, and ORDK's own */
static const struct option long_opts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "all", no_argument, NULL, 'a' },
	{ "iters", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'D' },
	{ "qp", required_argument, NULL, 'q' },
	{ "tx-depth", required_argument, NULL, 't' },
	{ "rx-depth", required_argument, NULL, 'r' },
	{ "cq-mod", required_argument, NULL, 'Q' },
	{ "mtu", required_argument, NULL, 'm' },
	{ "inline_size", required_argument, NULL, 'I' },
	{ "outs", required_argument, NULL, 'o' },
	{ "qp-timeout", required_argument, NULL, 'u' },
	{ "atomic_type", required_argument, NULL, 'A' },
	{ "ib-dev", required_argument, NULL, 'd' },
	{ "port", required_argument, NULL, 'p' },
	{ "connection", required_argument, NULL, 'c' },
	{ "bidirectional", no_argument, NULL, 'b' },
	{ "noPeak", no_argument, NULL, 'N' },
	{ "report-cycles", no_argument, NULL, 'C' },
	{ "report-histogrm", no_argument, NULL, 'H' },
	{ "report-unsorted", no_argument, NULL, 'U' },
	{ "version", no_argument, NULL, 'V' },
	{ "CPU-freq", no_argument, NULL, 'F' },
	{ "gid-index", required_argument, NULL, 'x' },
	{ "ib-port", required_argument, NULL, 'i' },
	{ "sl", required_argument, NULL, 'S' },
	{ "events", no_argument, NULL, 'e' },
	{ "post_list", required_argument, NULL, 'l' },
	{ "margin", required_argument, NULL, 'f' },
	{ "limit_bw", required_argument, NULL, 'w' },
	{ "limit_msgrate", required_argument, NULL, 'y' },
	{ "rdma_cm", no_argument, NULL, 'R' },
	{ "report_gbits", no_argument, NULL, OPT_GBITS },
	{ "out_json", no_argument, NULL, OPT_JSON },
	{ "out_json_file", required_argument, NULL, OPT_JSON_FILE },
	{ "run_infinitely", no_argument, NULL, OPT_INFINITE },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "use_hugepages", no_argument, NULL, OPT_HUGE },
	{ "cpu_util", no_argument, NULL, OPT_CPU_UTIL },
	{ "loopback", no_argument, NULL, OPT_LOOPBACK },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "no-progress", no_argument, NULL, OPT_NOPROGRESS },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "histogram", required_argument, NULL, OPT_HIST },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int
perf_opts_parse(enum perf_test t, int argc, char **argv, struct perf_opts *o, char *err,
		size_t err_len)
{
	bool bw = perf_test_is_bw(t);
	struct seen w = { 0 };
	int c, rc;

	*o = (struct perf_opts){
		.test = t, .size = bw ? 65536 : 2, .iters = t == PERF_WRITE_BW ? 5000 : 1000,
		.qps = 1, .tx_depth = bw ? 128 : 1, .rx_depth = bw ? 512 : 1, .mtu = 4096,
		.out_reads = 16, .qp_timeout = 14, .atomic = PERF_FETCH_AND_ADD,
		.devargs = "bluesim,port=0", .port = PERF_DEFAULT_PORT, .progress = -1,
		.cq_mod = 100, .peer_wait = 30,
	};
	if (is_atomic(t))
		o->size = 8;
	err[0] = '\0';
	optind = 0; /* glibc: start over (the tests parse many times) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:an:D:q:t:r:Q:m:I:o:u:A:d:p:c:bNCHUVFx:i:S:el:f:w:y:Rh",
				long_opts, NULL)) != -1) {
		if (c == ':') {
			snprintf(err, err_len, "%s: needs a value", argv[optind - 1]);
			return -1;
		}
		rc = opt_number(c, optarg, o, &w, err, err_len);
		if (rc == 1)
			rc = opt_other(c, optarg, o, &w, err, err_len);
		if (rc == 1) {
			snprintf(err, err_len, "%s: unknown option", argv[optind - 1]);
			return -1;
		}
		if (rc != 0)
			return -1;
		if (o->help || o->version)
			return 0;
	}
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc) {
		snprintf(err, err_len, "%s: unexpected argument (one server host at most)",
			 argv[optind]);
		return -1;
	}
	return opts_check(o, &w, err, err_len);
}
