/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-stat: a running ORDK program seen from outside, through DPDK
 * telemetry (doc/guides/tools/operations.md): its devices' counters (ORDK's
 * names with mlx5's and rxe's beside them), its QPs, the model's counters;
 * once, or every second with rates (--watch); as a table, JSON or
 * Prometheus's text format; or its QPs' event timelines (--trace). Exit
 * status 0, 1 (no such process, it does not answer), 64 (a usage error).
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stat.h"

#define STAT_MAX_SOCKETS 256

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: ordk-stat [-f PREFIX | -p PID | -s SOCKET] [-d DEV] [--qp[=QPN]] [--sim] [--all]\n"
		"                 [--json | --prometheus] [--watch[=SECONDS] [--count N]]\n"
		"       ordk-stat [-f PREFIX | -p PID | -s SOCKET] [-d DEV] [--qp=QPN] --trace [--json]\n"
		"                 [--watch[=SECONDS] [--count N]]\n"
		"       ordk-stat --list\n"
		"  -f, --file-prefix  the process's EAL --file-prefix (ORDK's tools: <tool>-<pid>)\n"
		"  -p, --pid          the process's PID (its telemetry socket is looked for)\n"
		"  -s, --socket       the telemetry socket's path (<runtime dir>/dpdk_telemetry.v2)\n"
		"                     none of the three: the one process with ORDK devices\n"
		"  -l, --list         the processes with telemetry on, and their ORDK devices\n"
		"  -d, --dev          one device (its name, as /ordk/dev/list gives it)\n"
		"  --qp[=QPN]         every QP (or one): states, PSNs, work, counters\n"
		"  --sim              the card's interface's and its model's counters too\n"
		"  -a, --all          counters that are zero too\n"
		"  -j, --json         one JSON object (a line per sample with --watch, with rates)\n"
		"  --prometheus       Prometheus's text exposition format\n"
		"  -w, --watch[=S]    a sample every S seconds (1) with the rates per second,\n"
		"                     until Ctrl-C or --count samples\n"
		"  -t, --trace        the QPs' event timelines, in time order (the device opened\n"
		"                     with trace=1); with --watch, what is new every S seconds\n"
		"exit status: 0 fine, 1 no such process or no answer, 64 usage error\n");
}

static const struct option long_opts[] = {
	{ "file-prefix", required_argument, NULL, 'f' }, { "pid", required_argument, NULL, 'p' },
	{ "socket", required_argument, NULL, 's' },	 { "dev", required_argument, NULL, 'd' },
	{ "list", no_argument, NULL, 'l' },		 { "qp", optional_argument, NULL, 'Q' },
	{ "sim", no_argument, NULL, 'S' },		 { "all", no_argument, NULL, 'a' },
	{ "json", no_argument, NULL, 'j' },		 { "prometheus", no_argument, NULL, 'P' },
	{ "watch", optional_argument, NULL, 'w' },	 { "count", required_argument, NULL, 'c' },
	{ "trace", no_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },		 { NULL, 0, NULL, 0 },
};

static int
num(const char *s, double min, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno == 0 && end != s && *end == '\0' && *v >= min ? 0 : -1;
}

static int
parse(int argc, char **argv, struct stat_opts *o)
{
	double v;
	int c;

	*o = (struct stat_opts){ .qpn = -1, .interval = 1.0 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:p:s:d:lajtw::c:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f': o->prefix = optarg; break;
		case 's': o->socket = optarg; break;
		case 'd': o->dev = optarg; break;
		case 'l': o->list = true; break;
		case 'S': o->sim = true; break;
		case 'a': o->all = true; break;
		case 'j': o->json = true; break;
		case 'P': o->prometheus = true; break;
		case 't': o->trace = true; break;
		case 'h': usage(stdout); exit(0);
		case 'p':
			if (num(optarg, 1, &v) != 0)
				goto bad;
			o->pid = (long)v;
			break;
		case 'Q':
			o->qp = true;
			if (optarg != NULL) {
				char *end;

				o->qpn = strtol(optarg, &end, 0);
				if (*end != '\0' || o->qpn < 0 || o->qpn > 0xFFFFFF)
					goto bad;
			}
			break;
		case 'w':
			o->watch = true;
			if (optarg != NULL && num(optarg, 0.01, &o->interval) != 0)
				goto bad;
			break;
		case 'c':
			if (num(optarg, 1, &v) != 0)
				goto bad;
			o->count = (long)v;
			break;
		default:
			fprintf(stderr, "ordk-stat: unknown option or missing value: %s\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ordk-stat: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	if ((o->prefix != NULL) + (o->socket != NULL) + (o->pid != 0) > 1 ||
	    (o->json && o->prometheus) || (o->prometheus && (o->watch || o->trace)) ||
	    (o->count && !o->watch)) {
		fprintf(stderr, "ordk-stat: -f, -p and -s choose the same thing; --prometheus goes "
				"with none of --json, --watch, --trace; --count needs --watch\n");
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "ordk-stat: bad value '%s' for %s\n", optarg, argv[optind - 1]);
	return -1;
}

/* The ORDK devices of the process behind @p path ("" when none; NULL: not ours to ask). */
static json_t *
devices_of(const char *path, struct stat_conn *c)
{
	char err[256];

	if (stat_connect(c, path, err, sizeof(err)) != 0)
		return NULL;
	return stat_query(c, "/ordk/dev/list", err, sizeof(err));
}

static int
list(void)
{
	static char paths[STAT_MAX_SOCKETS][108];
	unsigned int n = stat_list_sockets(paths, STAT_MAX_SOCKETS);

	printf("%-8s %-16s %-28s %s\n", "PID", "PROGRAM", "FILE PREFIX", "ORDK DEVICES");
	for (unsigned int i = 0; i < n; i++) {
		struct stat_conn c;
		json_t *devs = devices_of(paths[i], &c), *v;
		char prefix[108];
		size_t k;

		if (c.fd < 0)
			continue; /* a socket left by a process that is gone */
		memcpy(prefix, paths[i], sizeof(prefix)); /* both sun_path's size */
		*strrchr(prefix, '/') = '\0';
		printf("%-8ld %-16s %-28s", c.pid, c.program, strrchr(prefix, '/') + 1);
		json_array_foreach(devs, k, v)
			printf(" %s", json_string_value(v));
		printf("%s\n", json_array_size(devs) ? "" : " -");
		json_decref(devs);
		stat_close(&c);
	}
	return 0;
}

/* Connect to the process @p o names, or to the only one with ORDK devices. */
static int
pick(const struct stat_opts *o, struct stat_conn *c, char *err, size_t errlen)
{
	static char paths[STAT_MAX_SOCKETS][108];
	unsigned int n, found = 0, at = 0;
	char path[600];

	if (o->socket != NULL)
		return stat_connect(c, o->socket, err, errlen);
	if (o->prefix != NULL) {
		stat_prefix_path(o->prefix, path, sizeof(path));
		return stat_connect(c, path, err, errlen);
	}
	n = stat_list_sockets(paths, STAT_MAX_SOCKETS);
	for (unsigned int i = 0; i < n; i++) {
		json_t *devs = devices_of(paths[i], c);
		bool ours = o->pid ? c->fd >= 0 && c->pid == o->pid : json_array_size(devs) > 0;

		json_decref(devs);
		stat_close(c);
		if (ours && found++ == 0)
			at = i;
	}
	if (found == 1)
		return stat_connect(c, paths[at], err, errlen);
	if (o->pid)
		snprintf(err, errlen, "no telemetry socket of process %ld (is telemetry on? "
				      "ordk-stat --list)", o->pid);
	else if (found == 0)
		snprintf(err, errlen, "no process with ORDK devices and telemetry on (ordk-stat --list)");
	else
		snprintf(err, errlen, "%u processes with ORDK devices: choose one with -p or -f "
				      "(ordk-stat --list)", found);
	return -1;
}

static void
print_sample(json_t *s, const json_t *prev, const struct stat_opts *o)
{
	if (o->json) {
		stat_print_json(stdout, s, prev);
	} else if (o->prometheus) {
		stat_print_prometheus(stdout, s, o);
	} else {
		if (o->watch) {
			time_t now = time(NULL);
			char when[32];

			strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
			printf("--- %s\n", when);
		}
		stat_print_table(stdout, s, prev, o);
	}
	fflush(stdout);
}

static int
run(struct stat_conn *c, const struct stat_opts *o)
{
	double t0 = stat_now();
	json_t *prev = NULL;
	char err[256];
	int rc = 0;

	if (!o->json && !o->prometheus)
		printf("%s, pid %ld (%s)%s\n", c->program, c->pid, c->path,
		       o->watch ? ", Ctrl-C to stop" : "");
	for (long i = 0; !stop && (!o->watch || o->count == 0 || i < o->count); i++) {
		json_t *s;

		if (i > 0)
			stat_sleep_until(t0 + (double)i * o->interval, &stop);
		if (stop)
			break;
		s = stat_collect(c, o, err, sizeof(err));
		if (s == NULL) {
			fprintf(stderr, "ordk-stat: %s\n", err);
			rc = 1;
			break;
		}
		print_sample(s, prev, o);
		json_decref(prev);
		prev = s;
		if (!o->watch)
			break;
	}
	json_decref(prev);
	return rc;
}

int
main(int argc, char **argv)
{
	struct stat_opts o;
	struct stat_conn c;
	char err[512];
	int rc;

	if (parse(argc, argv, &o) != 0) {
		usage(stderr);
		return STAT_USAGE;
	}
	if (o.list)
		return list();
	if (pick(&o, &c, err, sizeof(err)) != 0) {
		fprintf(stderr, "ordk-stat: %s\n", err);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	rc = o.trace ? stat_trace(stdout, &c, &o, &stop) : run(&c, &o);
	stat_close(&c);
	return rc;
}
