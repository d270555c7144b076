/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-perf: perftest's twin over ORDK. Options (perf_opts.c), perftest's
 * header block, tables and JSON (perf_report.c), and the test engine
 * (perf_run.c).
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
#define PERF_MAX_SIZE	   (1u << 30)
#define PERF_ALL_MAX_SIZE  (8u << 20) /* -a: 2 B .. 8 MiB, as perftest */
#define PERF_DEFAULT_PORT  18515u

struct perf_opts {
	enum perf_test test;
	uint32_t size;		/**< -s; default 65536 (BW) or 2 (latency), 8 for atomics */
	bool all_sizes;		/**< -a */
	uint64_t iters;		/**< -n; default 5000 (BW) or 1000 (latency) */
	uint32_t duration;	/**< -D seconds; 0: count iterations */
	uint32_t qps;		/**< -q */
	uint32_t tx_depth;	/**< -t */
	uint32_t mtu;		/**< -m bytes: 256 .. 4096 */
	enum perf_atomic atomic; /**< -A */
	bool report_gbits;
	const char *out_json;	/**< --out_json FILE */
	const char *devargs;	/**< -d */
	uint16_t port;		/**< -p TCP port of the attribute exchange */
	bool loopback;
	bool verify;
	bool progress;		/**< false with --no-progress */
	bool stats;		/**< --stats: the device's counters at the end (stderr) */
	uint32_t cq_mod;	/**< -Q: completions every N WRs */
	const char *host;	/**< the server to reach: this side is the client */
	bool help;
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
	uint32_t outstand_reads;
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

/** One latency row (usec). */
struct perf_lat {
	uint64_t bytes, iters;
	double t_min, t_max, t_typical, t_avg, t_stdev, p99, p999;
	double tps; /* -D mode */
};

/** "RDMA_Write", "Send", "Atomic FETCH_AND_ADD", ... */
const char *perf_verb_title(const struct perf_opts *o, char *buf, size_t len);
void perf_print_header(FILE *f, const struct perf_opts *o, const struct perf_hdr *h);
void perf_print_addr(FILE *f, const char *which, const struct perf_opts *o,
		     const struct perf_addr *a);
void perf_print_bw_head(FILE *f, const struct perf_opts *o);
void perf_print_bw_row(FILE *f, const struct perf_opts *o, const struct perf_bw *r);
void perf_print_lat_head(FILE *f, const struct perf_opts *o);
void perf_print_lat_row(FILE *f, const struct perf_opts *o, const struct perf_lat *r);
void perf_print_rule(FILE *f);

/**
 * Latency statistics over @p n samples (usec, sorted in place); perftest's
 * definitions: t_typical is the median, percentiles index the sorted array.
 */
void perf_lat_stats(double *us, uint64_t n, struct perf_lat *r);

/**
 * perftest's BW peak: the best rate over every run of consecutive messages,
 * min over i <= j of (done[j] - posted[i]) / (j - i + 1). Above 4096 samples
 * it looks at 4096 evenly spread ones, and the last. @return seconds per message, or 0.
 */
double perf_peak_spm(const uint64_t *posted, const uint64_t *done, uint64_t n, double hz);

/** JSON of the run: options and every row. */
struct perf_json {
	FILE *f;
	unsigned int rows;
};
int perf_json_open(struct perf_json *j, const struct perf_opts *o, const struct perf_hdr *h);
void perf_json_bw(struct perf_json *j, const struct perf_opts *o, const struct perf_bw *r);
void perf_json_lat(struct perf_json *j, const struct perf_lat *r);
int perf_json_close(struct perf_json *j, int status);

/* --------------------------------------------------------------- engine */

/** Run the test as described by @p o (EAL is up). @return the exit status. */
int perf_run(const struct perf_opts *o);

#endif /* ORDK_PERF_H */
