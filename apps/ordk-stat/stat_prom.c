/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-stat --prometheus: a sample in Prometheus's text exposition format
 * (0.0.4), for node_exporter's textfile collector or a scrape wrapper. One
 * family per counter (ordk_<name>_total, ordk_qp_<name>_total,
 * ordk_sim_<name>_total), every device's (QP's) sample under it, labelled
 * pid, program, dev (and qpn); HELP names mlx5's and rxe's counter where
 * they have one. Gauges: ordk_dev_up (the device answered), its objects, a
 * QP's outstanding work and congestion-control rate, ordk_qp_info (states
 * as labels, value 1).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ordk_verbs.h"
#include "stat.h"

/* A label value: backslash, double quote and newline escaped. */
static void
label(FILE *f, const char *k, const char *v, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", k);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

static const char *
str(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v != NULL ? v : "";
}

/* "{pid=..,program=..,dev=..[,qpn=..]", without the closing brace. */
static void
labels_open(FILE *f, const json_t *s, const char *dev, const char *qpn)
{
	char pid[24];

	snprintf(pid, sizeof(pid), "%" JSON_INTEGER_FORMAT,
		 json_integer_value(json_object_get(s, "pid")));
	fputc('{', f);
	label(f, "pid", pid, true);
	label(f, "program", str(s, "program"), false);
	label(f, "dev", dev, false);
	if (qpn != NULL)
		label(f, "qpn", qpn, false);
}

static void
labels(FILE *f, const json_t *s, const char *dev, const char *qpn)
{
	labels_open(f, s, dev, qpn);
	fputc('}', f);
}

static void
family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* What HELP says of ORDK counter @p i. */
static void
counter_help(unsigned int i, char *buf, size_t len)
{
	const char *mlx5 = ordk_stats_mlx5_name(i), *rxe = ordk_stats_rxe_name(i);

	if (mlx5 == NULL)
		snprintf(buf, len, "ORDK's %s", ordk_stats_name(i));
	else
		snprintf(buf, len, "ORDK's %s (mlx5 %s%s%s)", ordk_stats_name(i), mlx5,
			 rxe != NULL ? ", rxe " : "", rxe != NULL ? rxe : "");
}

/* Family @p name: @p key of @p sub (under each device's @p part, or each QP's) for every device. */
static void
samples(FILE *f, const json_t *s, const char *name, const char *part, const char *key, bool qps)
{
	const json_t *devs = json_object_get(s, "devices"), *d, *q;
	const char *dev, *qpn;

	json_object_foreach((json_t *)(uintptr_t)devs, dev, d) {
		if (!qps) {
			json_t *v = json_object_get(json_object_get(d, part), key);

			if (json_is_integer(v)) {
				fputs(name, f);
				labels(f, s, dev, NULL);
				fprintf(f, " %" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
			}
			continue;
		}
		json_object_foreach(json_object_get(d, "qps"), qpn, q) {
			json_t *v = json_object_get(json_object_get(q, part), key);

			if (json_is_integer(v)) {
				fputs(name, f);
				labels(f, s, dev, qpn);
				fprintf(f, " %" JSON_INTEGER_FORMAT "\n", json_integer_value(v));
			}
		}
	}
}

static void
dev_gauges(FILE *f, const json_t *s)
{
	static const char *const objs[] = { "qps", "cqs", "mrs", "pds" };
	const json_t *devs = json_object_get(s, "devices"), *d;
	const char *dev;
	char name[64];

	family(f, "ordk_dev_up", "gauge", "1 when the device's lcore answered (it polls the device)");
	json_object_foreach((json_t *)(uintptr_t)devs, dev, d) {
		fputs("ordk_dev_up", f);
		labels(f, s, dev, NULL);
		fprintf(f, " %d\n", json_object_get(json_object_get(d, "stats"), "error") == NULL);
	}
	for (unsigned int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "ordk_dev_%s", objs[i]);
		family(f, name, "gauge", "objects the device holds");
		samples(f, s, name, "info", objs[i], false);
	}
}

static void
qp_gauges(FILE *f, const json_t *s)
{
	static const char *const keys[] = { "send_outstanding", "recv_posted", "reads_outstanding",
					    "retries", "recv_adverts" };
	const json_t *devs = json_object_get(s, "devices"), *d, *q;
	const char *dev, *qpn;
	char name[64];

	for (unsigned int i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(name, sizeof(name), "ordk_qp_%s", keys[i]);
		family(f, name, "gauge", "a QP's transport now (/ordk/qp/info)");
		samples(f, s, name, "info", keys[i], true);
	}
	family(f, "ordk_qp_cc_rate_bps", "gauge", "congestion control's rate (0: off)");
	json_object_foreach((json_t *)(uintptr_t)devs, dev, d)
		json_object_foreach(json_object_get(d, "qps"), qpn, q) {
			const json_t *i = json_object_get(q, "info"), *cc = json_object_get(i, "cc");

			if (cc == NULL)
				continue;
			fputs("ordk_qp_cc_rate_bps", f);
			labels(f, s, dev, qpn);
			fprintf(f, " %" JSON_INTEGER_FORMAT "\n",
				json_integer_value(json_object_get(cc, "rate_bps")));
		}
	family(f, "ordk_qp_info", "gauge", "a QP's states as labels (value 1)");
	json_object_foreach((json_t *)(uintptr_t)devs, dev, d)
		json_object_foreach(json_object_get(d, "qps"), qpn, q) {
			const json_t *i = json_object_get(q, "info");
			static const char *const st[] = { "state", "req_state", "comp_state",
							  "hole_state", "probe_state" };

			if (json_object_get(i, "state") == NULL)
				continue;
			fputs("ordk_qp_info", f);
			labels_open(f, s, dev, qpn);
			for (unsigned int k = 0; k < 5; k++)
				label(f, st[k], str(i, st[k]), false);
			fprintf(f, "} 1\n");
		}
}

void
stat_print_prometheus(FILE *f, const json_t *s, const struct stat_opts *o)
{
	const json_t *devs = json_object_get(s, "devices"), *d;
	char name[128], help[192];
	const char *dev, *k;
	json_t *v;

	dev_gauges(f, s);
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++) {
		snprintf(name, sizeof(name), "ordk_%s_total", ordk_stats_name(i));
		counter_help(i, help, sizeof(help));
		family(f, name, "counter", help);
		samples(f, s, name, "stats", ordk_stats_name(i), false);
	}
	if (o->qp) {
		for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++) {
			snprintf(name, sizeof(name), "ordk_qp_%s_total", ordk_stats_name(i));
			counter_help(i, help, sizeof(help));
			family(f, name, "counter", help);
			samples(f, s, name, "stats", ordk_stats_name(i), true);
		}
		qp_gauges(f, s);
	}
	if (!o->sim)
		return;
	/* the model's counters: the names of the first device that gave them */
	json_object_foreach((json_t *)(uintptr_t)devs, dev, d) {
		const json_t *sim = json_object_get(d, "sim");

		if (!json_is_object(sim) || json_object_get(sim, "error") != NULL)
			continue;
		json_object_foreach((json_t *)(uintptr_t)sim, k, v) {
			snprintf(name, sizeof(name), "ordk_sim_%s_total", k);
			family(f, name, "counter", "the card's interface and its model (/ordk/sim/stats)");
			samples(f, s, name, "sim", k, false);
		}
		break;
	}
}
