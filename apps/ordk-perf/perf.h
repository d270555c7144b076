/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf: perftest's twin over ORDK. Options (perf_opts.c), perftest's
 * header block, tables and JSON (perf_report.c), and the test engine
 * (perf_run.c and the files perf_engine.h lists).
 */
#ifndef ORDK_PERF_H
#define ORDK_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum perf_test {
	PERF_WRITE_BW = 0,
	PERF_WRITE_LAT,
	PERF_READ_BW,
	PERF_READ_LAT,
	PERF_SEND_BW,
	PERF_SEND_LAT,
	PERF_ATOMIC_BW,
	PERF_ATOMIC_LAT,
	PERF_TEST_COUNT
};

enum perf_atomic { PERF_FETCH_AND_ADD = 0, PERF_CMP_AND_SWP };

#define PERF_MAX_QPS	   64u
#define PERF_MAX_MR	   (1u << 30) /* the registered region: 2 x size per QP */
#define PERF_MAX_SIZE	   (PERF_MAX_MR / 2)
#define PERF_ALL_MAX_SIZE  (8u << 20) /* -a: 2 B .. 8 MiB, as perftest */
#define PERF_DEFAULT_PORT  18515u
#define PERF_MIN_ITERS	   5u	      /* perftest's MIN_ITER */
#define PERF_CQ_MOD_LIMIT  8192u      /* larger messages: CQ moderation 1 unless -Q or -a */
#define PERF_JSON_DEFAULT  "perftest_out.json"
#define PERF_MAX_NOTES	   8

/** --output: the whole report, or one number (perftest's OUTPUT_BW/LAT/MR). */
enum perf_output { PERF_OUT_FULL = 0, PERF_OUT_BW, PERF_OUT_LAT, PERF_OUT_MR };

struct perf_opts {
	enum perf_test test;
	uint32_t size;		/**< -s; default 65536 (BW) or 2 (latency), 8 for atomics */
	bool all_sizes;		/**< -a */
	uint64_t iters;		/**< -n; default 5000 (write_bw) or 1000 */
	uint32_t duration;	/**< -D seconds; 0: count iterations */
	uint32_t qps;		/**< -q */
	uint32_t tx_depth;	/**< -t */
	uint32_t rx_depth;	/**< -r: RECVs posted per QP (send tests) */
	uint32_t mtu;		/**< -m bytes: 256 .. 4096 */
	uint32_t inline_size;	/**< -I: payloads up to this size are copied into the WR at post */
	uint32_t out_reads;	/**< -o: READs/atomics in flight per QP (shown as Outstand reads) */
	uint8_t qp_timeout;	/**< -u: local ACK timeout, 4.096 us << u */
	enum perf_atomic atomic; /**< -A */
	bool report_gbits;
	bool no_peak;		/**< -N */
	bool duplex;		/**< -b: both sides post and measure; each prints the sum (no peak) */
	bool cycles;		/**< -C: latencies in cycles */
	bool histogram;		/**< -H: every sorted sample */
	bool unsorted;		/**< -U: every sample, unsorted */
	const char *hist_file;	/**< --histogram=FILE: every sample of every size, CSV (ns) */
	bool run_infinitely;	/**< a row every -D seconds until interrupted */
	bool version;		/**< -V */
	enum perf_output output;
	bool out_json;		/**< --out_json: write out_json_file */
	const char *out_json_file; /**< --out_json_file=F (default perftest_out.json) */
	const char *devargs;	/**< -d */
	uint16_t port;		/**< -p TCP port of the attribute exchange */
	bool loopback;
	bool verify;
	int progress;		/**< -1: when stderr is a terminal; 0 --no-progress; 1 --progress */
	bool stats;		/**< --stats: the device's counters at the end (stderr) */
	uint32_t cq_mod;	/**< -Q: completions every N WRs */
	bool cq_mod_set;
	const char *host;	/**< the server to reach: this side is the client */
	uint32_t peer_wait;	/**< --wait: seconds the client waits for its server (30) */
	bool help;
	/** "-x 3 ignored: ..." for options ORDK accepts but cannot honour */
	char notes[PERF_MAX_NOTES][112];
	unsigned int nnotes;
	const char *memif_sock; /**< net_memif socket made by default EAL args (main), or NULL */
};

/** "write_bw" .. "atomic_lat" -> test; @return 0 or -1. */
int perf_test_from_name(const char *name, enum perf_test *t);
const char *perf_test_name(enum perf_test t);
bool perf_test_is_bw(enum perf_test t);

/**
 * Parse the tool options (everything after "--", or after the subcommand
 * when there is no "--"). @p argv[0] is a program name, as getopt expects.
 * @return 0, or -1 with a message for the user in @p err.
 */
int perf_opts_parse(enum perf_test t, int argc, char **argv, struct perf_opts *o, char *err,
		    size_t err_len);
void perf_usage(FILE *f);

/* ------------------------------------------------------------ reporting */

/** What the header block shows beyond the options. */
struct perf_hdr {
	const char *device;
	bool server; /**< perftest's server shows RX depth (send tests), not TX depth */
};

struct perf_addr {
	uint32_t qpn, psn, rkey;
	uint64_t vaddr;
	uint32_t ip;
};

/** One BW row. */
struct perf_bw {
	uint64_t bytes, iters;
	double peak_mib, avg_mib, mpps; /* MiB/s; printed as Gb/s with --report_gbits */
	bool peak_valid;
};

/** One latency row (usec, or cycles with -C). */
struct perf_lat {
	uint64_t bytes, iters;
	double t_min, t_max, t_typical, t_avg, t_stdev, p99, p999;
	double tps; /* -D mode */
	double p50, p90, max; /* --histogram's columns; max: the largest sample, none dropped */
};

/** What perftest warns about while parsing (before the header): the BW peak, CQ moderation. */
void perf_print_warnings(FILE *f, const struct perf_opts *o, bool server);
void perf_print_header(FILE *f, const struct perf_opts *o, const struct perf_hdr *h);
void perf_print_addr(FILE *f, const char *which, const struct perf_opts *o,
		     const struct perf_addr *a);
/** The rule and the table's title line. */
void perf_print_bw_head(FILE *f, const struct perf_opts *o);
void perf_print_bw_row(FILE *f, const struct perf_opts *o, const struct perf_bw *r);
void perf_print_lat_head(FILE *f, const struct perf_opts *o);
void perf_print_lat_row(FILE *f, const struct perf_opts *o, const struct perf_lat *r);
void perf_print_rule(FILE *f);

/**
 * perftest's latency statistics over @p n deltas in cycles (sorted in place):
 * the top 2 dropped, t_typical the median (the even-count one averaged),
 * t_max the first dropped, percentiles (p50 and p90 too) at ceil(m * p)
 * (m = n - 2), max the largest of all n, values divided by
 * @p cycles_per_unit. @return 0, or -1 when n < 3.
 */
int perf_lat_stats(uint64_t *delta, uint64_t n, double cycles_per_unit, struct perf_lat *r);

/** The histogram file's first line (--histogram; ordk-baseline raw_ping writes the same). */
#define PERF_HIST_HEAD "test,bytes,iteration,ns"

/**
 * Append one size's samples to a histogram file, in the order taken: a line
 * "<test>,<bytes>,<iteration>,<ns>" per delta (iteration from 0; ns rounded
 * to whole nanoseconds, @p cycles_per_ns cycles each). @return 0 or -1.
 */
int perf_hist_write(FILE *f, const char *test, uint64_t bytes, const uint64_t *delta, uint64_t n,
		    double cycles_per_ns);

/**
 * perftest's BW peak: the best rate over every run of consecutive messages,
 * min over i <= j of (done[j] - posted[i]) / (j - i + 1). Above 4096 samples
 * it looks at 4096 evenly spread ones, and the last. @return seconds per message, or 0.
 */
double perf_peak_spm(const uint64_t *posted, const uint64_t *done, uint64_t n, double hz);

/**
 * perftest's JSON: one object {"test_info": {...}, "results": {...}} in
 * o->out_json_file, rewritten at every report (it holds the last one).
 * @return 0 or -1.
 */
int perf_json_bw(const struct perf_opts *o, const struct perf_hdr *h, const struct perf_bw *r);
int perf_json_lat(const struct perf_opts *o, const struct perf_hdr *h, const struct perf_lat *r);

/* --------------------------------------------------------------- engine */

/** Run the test as described by @p o (EAL is up). @return the exit status. */
int perf_run(const struct perf_opts *o);

#endif /* ORDK_PERF_H */
