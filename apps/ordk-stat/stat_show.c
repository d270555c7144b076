/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-stat's renderings of a sample (stat.h): the table (with rates
 * against the sample before), JSON, and Prometheus's text exposition
 * format. ORDK's counters are listed in ORDK_STATS order by the names of
 * this build of lib/verbs, with mlx5's and rxe's names beside them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ordk_verbs.h"
#include "stat.h"

static json_int_t
ival(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

static const char *
sval(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s != NULL ? s : "";
}

/* The same place in the sample before (NULL if there is none). */
static const json_t *
prev_dev(const json_t *prev, const char *dev)
{
	return prev != NULL ? json_object_get(json_object_get(prev, "devices"), dev) : NULL;
}

static double
interval(const json_t *s, const json_t *prev)
{
	return prev != NULL ? json_real_value(json_object_get(s, "time")) -
				      json_real_value(json_object_get(prev, "time")) :
			      0;
}

/* One counter's line: name, value, [rate], [other names]. */
static void
print_line(FILE *f, const char *indent, const char *name, json_int_t v, const json_t *pst,
	   double dt, int i)
{
	const char *mlx5 = ordk_stats_mlx5_name((unsigned int)i), *rxe = ordk_stats_rxe_name((unsigned int)i);

	fprintf(f, "%s%-28s %16" JSON_INTEGER_FORMAT, indent, name, v);
	if (pst != NULL && dt > 0) {
		json_t *p = json_object_get(pst, name);

		if (json_is_integer(p))
			fprintf(f, " %14.1f", (double)(v - json_integer_value(p)) / dt);
		else
			fprintf(f, " %14s", "-");
	}
	if (i >= 0 && mlx5 != NULL)
		fprintf(f, "  %s%s%s", mlx5, rxe != NULL && strcmp(rxe, mlx5) != 0 ? " / " : "",
			rxe != NULL && strcmp(rxe, mlx5) != 0 ? rxe : "");
	fputc('\n', f);
}

/* ORDK's counters of @p st (a device's or a QP's), nonzero ones unless --all. */
static void
print_stats(FILE *f, const char *indent, const json_t *st, const json_t *pst, double dt,
	    const struct stat_opts *o)
{
	if (*sval(st, "error") != '\0') {
		fprintf(f, "%s(%s)\n", indent, sval(st, "error"));
		return;
	}
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++) {
		json_t *v = json_object_get(st, ordk_stats_name(i));

		if (json_is_integer(v) && (o->all || json_integer_value(v) != 0))
			print_line(f, indent, ordk_stats_name(i), json_integer_value(v), pst, dt, (int)i);
	}
}

/* Every counter of a dict (the model's), in its order. */
static void
print_dict(FILE *f, const char *indent, const json_t *st, const json_t *pst, double dt,
	   const struct stat_opts *o)
{
	const char *k;
	json_t *v;

	if (*sval(st, "error") != '\0') {
		fprintf(f, "%s(%s)\n", indent, sval(st, "error"));
		return;
	}
	json_object_foreach((json_t *)(uintptr_t)st, k, v)
		if (json_is_integer(v) && (o->all || json_integer_value(v) != 0))
			print_line(f, indent, k, json_integer_value(v), pst, dt, -1);
}

static void
print_qp(FILE *f, const char *key, const json_t *q, const json_t *pq, double dt,
	 const struct stat_opts *o)
{
	const json_t *i = json_object_get(q, "info"), *cc = json_object_get(i, "cc");

	if (*sval(i, "error") != '\0') {
		fprintf(f, "  qp %s: %s\n", key, sval(i, "error"));
		return;
	}
	fprintf(f, "  qp %s %s -> 0x%06llx %s, mtu %" JSON_INTEGER_FORMAT
		   ": psn next 0x%06llx acked 0x%06llx expected 0x%06llx\n",
		key, sval(i, "state"), (unsigned long long)ival(i, "dest_qpn"), sval(i, "dest_ip"),
		ival(i, "path_mtu"), (unsigned long long)ival(i, "next_psn"),
		(unsigned long long)ival(i, "acked_psn"), (unsigned long long)ival(i, "expected_psn"));
	fprintf(f, "     send %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT " recv %"
		   JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT " reads %" JSON_INTEGER_FORMAT
		   " retries %" JSON_INTEGER_FORMAT ", req %s, comp %s, hole %s, probe %s, %s",
		ival(i, "send_outstanding"), ival(i, "max_send_wr"), ival(i, "recv_posted"),
		ival(i, "max_recv_wr"), ival(i, "reads_outstanding"), ival(i, "retries"),
		sval(i, "req_state"), sval(i, "comp_state"), sval(i, "hole_state"),
		sval(i, "probe_state"), ival(i, "active") ? "active" : "idle");
	if (ival(cc, "on"))
		fprintf(f, ", cc %.3f Gb/s (target %.3f, alpha %.4f, %s)\n",
			(double)ival(cc, "rate_bps") * 1e-9, (double)ival(cc, "target_bps") * 1e-9,
			(double)ival(cc, "alpha_ppm") * 1e-6, sval(cc, "stage"));
	else
		fprintf(f, ", cc off\n");
	print_stats(f, "    ", json_object_get(q, "stats"),
		    pq != NULL ? json_object_get(pq, "stats") : NULL, dt, o);
}

static void
print_dev(FILE *f, const char *name, const json_t *d, const json_t *pd, double dt,
	  const struct stat_opts *o)
{
	const json_t *i = json_object_get(d, "info"), *qps = json_object_get(d, "qps"), *q;
	const char *key;

	if (*sval(i, "error") != '\0' && !json_is_integer(json_object_get(i, "max_qp")))
		fprintf(f, "%s: %s\n", name, sval(i, "error"));
	else
		fprintf(f, "%s (%s) %s %s: %" JSON_INTEGER_FORMAT " QPs, %" JSON_INTEGER_FORMAT
			   " CQs, %" JSON_INTEGER_FORMAT " MRs, %" JSON_INTEGER_FORMAT " PDs\n",
			name, sval(i, "driver"), sval(i, "mac"), sval(i, "ip"), ival(i, "qps"),
			ival(i, "cqs"), ival(i, "mrs"), ival(i, "pds"));
	fprintf(f, "  %-28s %16s%s\n", "counter", "value", pd != NULL ? "             /s" : "");
	print_stats(f, "  ", json_object_get(d, "stats"),
		    pd != NULL ? json_object_get(pd, "stats") : NULL, dt, o);
	if (json_object_get(d, "sim") != NULL) {
		fprintf(f, "  the card's interface and its model (/ordk/sim/stats):\n");
		print_dict(f, "  ", json_object_get(d, "sim"),
			   pd != NULL ? json_object_get(pd, "sim") : NULL, dt, o);
	}
	if (*sval(qps, "error") != '\0') {
		fprintf(f, "  QPs: %s\n", sval(qps, "error"));
		return;
	}
	json_object_foreach((json_t *)(uintptr_t)qps, key, q)
		print_qp(f, key, q, pd != NULL ? json_object_get(json_object_get(pd, "qps"), key) : NULL,
			 dt, o);
}

void
stat_print_table(FILE *f, const json_t *s, const json_t *prev, const struct stat_opts *o)
{
	const json_t *devs = json_object_get(s, "devices"), *d;
	double dt = interval(s, prev);
	const char *name;

	if (json_object_size(devs) == 0)
		fprintf(f, "(no ORDK device open in process %" JSON_INTEGER_FORMAT ")\n",
			ival(s, "pid"));
	json_object_foreach((json_t *)(uintptr_t)devs, name, d)
		print_dev(f, name, d, prev_dev(prev, name), dt, o);
}

/* "rates" beside @p o's "stats": per second against @p p's, over @p dt. */
static void
add_rates(json_t *o, const json_t *p, double dt)
{
	json_t *st = json_object_get(o, "stats"), *pst = json_object_get(p, "stats"), *r, *v;
	const char *k;

	if (!json_is_object(pst) || dt <= 0 || json_object_get(st, "error") != NULL)
		return;
	r = json_object();
	json_object_foreach(st, k, v) {
		json_t *pv = json_object_get(pst, k);

		if (json_is_integer(v) && json_is_integer(pv))
			json_object_set_new(r, k, json_real((double)(json_integer_value(v) -
								     json_integer_value(pv)) / dt));
	}
	json_object_set_new(o, "rates", r);
}

void
stat_print_json(FILE *f, json_t *s, const json_t *prev)
{
	json_t *devs = json_object_get(s, "devices"), *d, *q;
	double dt = interval(s, prev);
	const char *name, *key;

	if (prev != NULL) {
		json_object_set_new(s, "interval_s", json_real(dt));
		json_object_foreach(devs, name, d) {
			const json_t *pd = prev_dev(prev, name);

			add_rates(d, pd, dt);
			json_object_foreach(json_object_get(d, "qps"), key, q)
				add_rates(q, json_object_get(json_object_get(pd, "qps"), key), dt);
		}
	}
	json_dumpf(s, f, JSON_COMPACT);
	fputc('\n', f);
}
