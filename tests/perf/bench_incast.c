/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Incast through the test switch in one process (suite perf, issue 17): the
 * rig of tests/func/incast_rig.h, a phase with congestion control off and one
 * with it on, on the same QPs, in the same run.
 *
 *   bench_incast [key=value ...]
 *     seconds=3 (per phase) senders=4 msg=65536 depth=8 rate=200M (bottleneck, bytes/s)
 *     queue=K=V;K=V (more sw_queue keys for the bottleneck, ';' between them; burst=64K
 *     and pmax=0.1 are set first)
 *     cc=K=V;K=V (DCQCN keys over the rig's scaled defaults) phases=both|off|on
 *     trace=PREFIX (PREFIX-off.csv, PREFIX-on.csv: queue depth and rates every 1 ms,
 *     goodput every 10 ms, the trace CSV of doc/guides/prog_guide/congestion.md)
 *
 * Prints, per phase, goodput / bottleneck, drops (all, and after the first 100
 * ms), retransmissions, p50/p99 queue depth, Jain's index over 10 ms windows
 * and the victim's 8 B WRITE latency p50/p99; then issue 17's targets for CC
 * on, each met or missed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "incast_rig.h"

struct opts {
	double seconds;
	const char *phases, *trace;
};

/* "a=1;b=2" appended to @p dst as "a=1,b=2". */
static void
append_kv(char *dst, size_t len, const char *v)
{
	size_t n = strlen(dst);

	if (n > 0 && n + 1 < len)
		dst[n++] = ',';
	for (; *v != '\0' && n + 1 < len; v++)
		dst[n++] = *v == ';' ? ',' : *v;
	dst[n] = '\0';
}

static int
parse(int argc, char **argv, struct incast_cfg *c, struct opts *o)
{
	/* burst=64K: the shaper's bucket covers the rig's polling gaps; pmax=0.1: RED's
	 * probability for the rig's 4 KiB packets (doc/guides/prog_guide/congestion.md) */
	*c = (struct incast_cfg){.senders = 4, .msg = 65536, .depth = 8, .rate = 200000000,
				 .queue = "burst=64K,pmax=0.1", .name = "inc"};
	*o = (struct opts){.seconds = 3, .phases = "both"};
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *k = argv[i], *v = eq ? eq + 1 : "";

		if (eq == NULL)
			return -1;
		*eq = '\0';
		if (strcmp(k, "seconds") == 0)
			o->seconds = atof(v);
		else if (strcmp(k, "senders") == 0)
			c->senders = (unsigned int)atoi(v);
		else if (strcmp(k, "msg") == 0)
			c->msg = (uint32_t)atoi(v);
		else if (strcmp(k, "depth") == 0)
			c->depth = (uint32_t)atoi(v);
		else if (strcmp(k, "rate") == 0) {
			c->rate = 0; /* the queue's rate= key says it (K/M/G) */
			snprintf(c->queue + strlen(c->queue), sizeof(c->queue) - strlen(c->queue),
				 "%srate=%s", c->queue[0] ? "," : "", v);
		} else if (strcmp(k, "queue") == 0)
			append_kv(c->queue, sizeof(c->queue), v);
		else if (strcmp(k, "cc") == 0)
			append_kv(c->cc, sizeof(c->cc), v);
		else if (strcmp(k, "phases") == 0)
			o->phases = v;
		else if (strcmp(k, "trace") == 0)
			o->trace = v;
		else
			return -1;
	}
	if (o->seconds <= 0 || (strcmp(o->phases, "both") && strcmp(o->phases, "off") &&
				strcmp(o->phases, "on")))
		return -1;
	return incast_cfg_check(c);
}

static void
phase(struct incast_rig *g, bool cc, const struct opts *o, struct incast_result *res)
{
	char path[512];
	FILE *tr = NULL;

	if (o->trace != NULL) {
		snprintf(path, sizeof(path), "%s-%s.csv", o->trace, cc ? "on" : "off");
		tr = fopen(path, "w");
		if (tr == NULL)
			perror(path);
		else
			fprintf(tr, "t_ns,source,metric,value\n");
	}
	incast_run(g, cc, o->seconds, tr, res);
	if (tr != NULL)
		fclose(tr);
	incast_print(g, res, stdout);
	fflush(stdout);
}

static void
target(const char *what, bool ok)
{
	printf("  %-44s %s\n", what, ok ? "met" : "MISSED");
}

int
main(int argc, char **argv)
{
	static struct incast_rig g;
	struct incast_result off = {0}, on = {0};
	struct incast_cfg c;
	struct opts o;

	if (parse(argc, argv, &c, &o) != 0) {
		fprintf(stderr, "usage: bench_incast [seconds=S] [senders=N<=%u] [msg=B] [depth=D] "
				"[rate=BYTES/s] [queue=K=V;K=V] [cc=K=V;K=V] [phases=both|off|on] "
				"[trace=PREFIX]\n", INCAST_MAX_SENDERS);
		return 2;
	}
	/* the shaper's rate from the queue keys (rate= goes there) */
	if (incast_open(&g, &c) != 0)
		return 1;
	if (strcmp(o.phases, "on") != 0)
		phase(&g, false, &o, &off);
	if (strcmp(o.phases, "off") != 0)
		phase(&g, true, &o, &on);
	if (strcmp(o.phases, "both") == 0) {
		printf("issue 17's targets, CC on:\n");
		target("drops after the first 100 ms: 0", on.drops_late == 0);
		target("goodput >= 0.9 of the bottleneck", on.goodput_frac >= 0.9);
		target("Jain's index >= 0.95", on.jain >= 0.95);
		target("queue p99 (after 100 ms) below the marking max (kmax)", on.q_p99 < g.bq.kmax);
		target("victim p99 at least 5x lower than CC off",
		       on.lat_p99_us > 0 && off.lat_p99_us >= 5 * on.lat_p99_us);
	}
	sw_switch_print_stats(&g.sw, stdout);
	{
		struct ordk_stats st;

		if (ordk_dev_stats(g.r.dev, &st) == 0)
			printf("the receiver's card sent %" PRIu64 " CNPs (both phases)\n",
			       st.cnps_sent);
	}
	/* the process ends here: devices, ports and EAL go with it */
	return 0;
}
