/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-stat: a running ORDK program's counters, QPs and event timelines
 * through DPDK telemetry (the /ordk/ endpoints of lib/verbs), in the manner
 * of `rdma statistic show` and dpdk-proc-info. The parts: the client
 * (stat_client.c), a sample of the process as one JSON document
 * (stat_data.c), its renderings (stat_show.c: the table and the rates, and
 * JSON; stat_prom.c: Prometheus's text format), the QPs' event timelines
 * (stat_trace.c), main.c.
 */
#ifndef ORDK_STAT_H
#define ORDK_STAT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "stat_client.h"

#define STAT_USAGE 64 /* sysexits.h EX_USAGE */

struct stat_opts {
	const char *prefix;  /* -f */
	const char *socket;  /* -s */
	long pid;	     /* -p (0: not given) */
	const char *dev;     /* -d: one device */
	bool list;	     /* -l */
	bool qp;	     /* --qp: the QPs too */
	long qpn;	     /* --qp=QPN: that one (-1: every QP) */
	bool sim;	     /* --sim: the card's and the model's counters too */
	bool all;	     /* --all: zeros too */
	bool json, prometheus;
	bool watch;	     /* --watch */
	double interval;     /* seconds between samples */
	long count;	     /* samples (0: until interrupted) */
	bool trace;	     /* --trace: the QPs' timelines (a sample then lists the QPs only) */
};

/*
 * A sample of the process: {"pid", "program", "socket", "time" (seconds, monotonic),
 * "devices": {<name>: {"info": {...}, "stats": {...}, ["sim": {...}],
 * ["qps": {<qpn>: {"info": {...}, "stats": {...}}}]}}}. A device (or QP) that
 * did not answer has {"error": "..."} in place of what it did not give.
 * @return the sample, or NULL with @p err set (the process is gone, or is no ORDK program).
 */
json_t *stat_collect(struct stat_conn *c, const struct stat_opts *o, char *err, size_t errlen);

/** Monotonic seconds. */
double stat_now(void);
/** Sleep until stat_now() reaches @p t, or *@p stop is set. */
void stat_sleep_until(double t, const volatile sig_atomic_t *stop);

/** The table of a sample; with @p prev (the sample before), each counter's rate per second. */
void stat_print_table(FILE *f, const json_t *s, const json_t *prev, const struct stat_opts *o);
/** A sample as one line of JSON; with @p prev, "rates" beside each "stats". */
void stat_print_json(FILE *f, json_t *s, const json_t *prev);
/** A sample in Prometheus's text exposition format (version 0.0.4). */
void stat_print_prometheus(FILE *f, const json_t *s, const struct stat_opts *o);

/**
 * The QPs' event timelines (every QP, or --qp's), merged in time order: what
 * the rings hold, or with --watch what is new every interval, until *@p stop
 * or --count. As lines of JSON with --json. @return 0, or 1 (no answer).
 */
int stat_trace(FILE *f, struct stat_conn *c, const struct stat_opts *o,
	       const volatile sig_atomic_t *stop);

#endif /* ORDK_STAT_H */
