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
		"options:\n"
		"  -s, --size=<bytes>         message size (BW 65536, latency 2, atomics 8)\n"
		"  -a, --all                  every size from 2 B to 8 MiB\n"
		"  -n, --iters=<n>            iterations per size (BW 5000, latency 1000)\n"
		"  -D, --duration=<s>         run for s seconds per size instead\n"
		"  -q, --qp=<n>               QPs (BW tests, 1..64)\n"
		"  -t, --tx-depth=<n>         outstanding WRs per QP (BW 128, latency 1)\n"
		"  -Q, --cq-mod=<n>           a completion every n WRs (BW, default 100)\n"
		"  -m, --mtu=<256..4096>      path MTU (default 4096)\n"
		"  -A, --atomic_type=<CMP_AND_SWP|FETCH_AND_ADD>\n"
		"  -d, --ib-dev=<devargs>     device (default bluesim,port=0; blue:<bdf> for the card)\n"
		"  -p, --port=<port>          TCP port of the attribute exchange (default 18515)\n"
		"      --report_gbits         BW in Gb/sec instead of MiB/sec\n"
		"      --out_json <file>      write the results as JSON\n"
		"      --loopback             client and server in one process (net_ring)\n"
		"      --verify               check the data of every size\n"
		"      --no-progress          no progress lines on stderr\n"
		"      --stats                the device's counters at the end, on stderr\n"
		"  -h, --help\n"
		"Without EAL arguments: --no-pci, hugepages when free (else --no-huge), a unique\n"
		"--file-prefix and net_memif over /tmp/ordk-perf-<port>.sock (server lcore 0,\n"
		"client lcore 1).\n");
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

enum { OPT_GBITS = 256, OPT_JSON, OPT_LOOPBACK, OPT_VERIFY, OPT_NOPROGRESS, OPT_STATS };

int
perf_opts_parse(enum perf_test t, int argc, char **argv, struct perf_opts *o, char *err,
		size_t err_len)
{
	static const struct option lo[] = {
		{ "size", required_argument, NULL, 's' },
		{ "all", no_argument, NULL, 'a' },
		{ "iters", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'D' },
		{ "qp", required_argument, NULL, 'q' },
		{ "tx-depth", required_argument, NULL, 't' },
		{ "cq-mod", required_argument, NULL, 'Q' },
		{ "mtu", required_argument, NULL, 'm' },
		{ "atomic_type", required_argument, NULL, 'A' },
		{ "ib-dev", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "report_gbits", no_argument, NULL, OPT_GBITS },
		{ "out_json", required_argument, NULL, OPT_JSON },
		{ "loopback", no_argument, NULL, OPT_LOOPBACK },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "no-progress", no_argument, NULL, OPT_NOPROGRESS },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "connection", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool bw = perf_test_is_bw(t), size_set = false, depth_set = false, atomic_set = false;
	uint64_t v;
	int c;

	*o = (struct perf_opts){
		.test = t, .size = bw ? 65536 : 2, .iters = bw ? 5000 : 1000, .qps = 1,
		.tx_depth = bw ? 128 : 1, .mtu = 4096, .atomic = PERF_FETCH_AND_ADD,
		.devargs = "bluesim,port=0", .port = PERF_DEFAULT_PORT, .progress = true,
		.cq_mod = 100,
	};
	if (is_atomic(t))
		o->size = 8;
	err[0] = '\0';
	optind = 0; /* glibc: start over (the tests parse many times) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:an:D:q:t:Q:m:A:d:p:c:Fh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			if (num(optarg, 1, PERF_MAX_SIZE, &v) != 0) {
				snprintf(err, err_len, "-s %s: size must be 1 .. %u bytes", optarg,
					 PERF_MAX_SIZE);
				return -1;
			}
			o->size = (uint32_t)v;
			size_set = true;
			break;
		case 'a':
			o->all_sizes = true;
			break;
		case 'n':
			if (num(optarg, 1, 1000000000, &v) != 0) {
				snprintf(err, err_len, "-n %s: iterations must be 1 .. 1000000000", optarg);
				return -1;
			}
			o->iters = v;
			break;
		case 'D':
			if (num(optarg, 1, 3600, &v) != 0) {
				snprintf(err, err_len, "-D %s: duration must be 1 .. 3600 seconds", optarg);
				return -1;
			}
			o->duration = (uint32_t)v;
			break;
		case 'q':
			if (num(optarg, 1, PERF_MAX_QPS, &v) != 0) {
				snprintf(err, err_len, "-q %s: QPs must be 1 .. %u", optarg, PERF_MAX_QPS);
				return -1;
			}
			o->qps = (uint32_t)v;
			break;
		case 't':
			if (num(optarg, 1, 4096, &v) != 0) {
				snprintf(err, err_len, "-t %s: TX depth must be 1 .. 4096", optarg);
				return -1;
			}
			o->tx_depth = (uint32_t)v;
			depth_set = true;
			break;
		case 'Q':
			if (num(optarg, 1, 4096, &v) != 0) {
				snprintf(err, err_len, "-Q %s: CQ moderation must be 1 .. 4096", optarg);
				return -1;
			}
			o->cq_mod = (uint32_t)v;
			break;
		case 'm':
			if (num(optarg, 256, 4096, &v) != 0 || (v & (v - 1)) != 0) {
				snprintf(err, err_len, "-m %s: MTU must be 256, 512, 1024, 2048 or 4096",
					 optarg);
				return -1;
			}
			o->mtu = (uint32_t)v;
			break;
		case 'A':
			if (strcmp(optarg, "CMP_AND_SWP") == 0)
				o->atomic = PERF_CMP_AND_SWP;
			else if (strcmp(optarg, "FETCH_AND_ADD") == 0)
				o->atomic = PERF_FETCH_AND_ADD;
			else {
				snprintf(err, err_len,
					 "-A %s: atomic type must be CMP_AND_SWP or FETCH_AND_ADD", optarg);
				return -1;
			}
			atomic_set = true;
			break;
		case 'd':
			if (optarg[0] == '\0') {
				snprintf(err, err_len, "-d: empty device");
				return -1;
			}
			o->devargs = optarg;
			break;
		case 'p':
			if (num(optarg, 1, 65535, &v) != 0) {
				snprintf(err, err_len, "-p %s: port must be 1 .. 65535", optarg);
				return -1;
			}
			o->port = (uint16_t)v;
			break;
		case 'c':
			if (strcmp(optarg, "RC") != 0) {
				snprintf(err, err_len, "-c %s: only RC connections exist on this card",
					 optarg);
				return -1;
			}
			break;
		case 'F': /* perftest's "ignore CPU frequency warnings": nothing to ignore */
			break;
		case OPT_GBITS:
			o->report_gbits = true;
			break;
		case OPT_JSON:
			o->out_json = optarg;
			break;
		case OPT_LOOPBACK:
			o->loopback = true;
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_NOPROGRESS:
			o->progress = false;
			break;
		case OPT_STATS:
			o->stats = true;
			break;
		case 'h':
			o->help = true;
			return 0;
		case ':':
			snprintf(err, err_len, "%s: needs a value", argv[optind - 1]);
			return -1;
		default:
			snprintf(err, err_len, "%s: unknown option", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc)
		o->host = argv[optind++];
	if (optind < argc) {
		snprintf(err, err_len, "%s: unexpected argument (one server host at most)",
			 argv[optind]);
		return -1;
	}
	if (o->loopback && o->host != NULL) {
		snprintf(err, err_len, "--loopback runs both sides here: give no host");
		return -1;
	}
	if (is_atomic(t) && size_set && o->size != 8) {
		snprintf(err, err_len, "-s %u: atomics move 8 bytes", o->size);
		return -1;
	}
	if (is_atomic(t) && o->all_sizes) {
		snprintf(err, err_len, "-a: atomics have one size (8 bytes)");
		return -1;
	}
	if (atomic_set && !is_atomic(t)) {
		snprintf(err, err_len, "-A applies to atomic_bw and atomic_lat only");
		return -1;
	}
	if (!bw && o->qps != 1) {
		snprintf(err, err_len, "-q: latency tests use one QP");
		return -1;
	}
	if (!bw && depth_set && o->tx_depth != 1) {
		snprintf(err, err_len, "-t: latency tests keep one WR in flight");
		return -1;
	}
	if (o->all_sizes && size_set) {
		snprintf(err, err_len, "-a and -s exclude each other");
		return -1;
	}
	if (bw && o->duration == 0 && o->iters < 5) {
		snprintf(err, err_len, "-n %" PRIu64 ": BW tests need at least 5 iterations",
			 o->iters);
		return -1;
	}
	if ((t == PERF_READ_BW || t == PERF_READ_LAT) && o->size > (1u << 31) / 2) {
		snprintf(err, err_len, "-s: READ size too large");
		return -1;
	}
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	return 0;
}
