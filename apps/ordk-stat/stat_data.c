/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-stat: a sample of the process, from its /ordk/ endpoints (stat.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stat.h"

double
stat_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void
stat_sleep_until(double t, const volatile sig_atomic_t *stop)
{
	while (!*stop) {
		double left = t - stat_now();
		struct timespec ts;

		if (left <= 0)
			return;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
}

/* @p reply under @p key of @p o, or {"error": err} when there is none. */
static void
put(json_t *o, const char *key, json_t *reply, const char *err)
{
	if (reply == NULL)
		reply = json_pack("{s:s}", "error", err);
	json_object_set_new(o, key, reply);
}

/* Every QP number of device @p dev, page by page (/ordk/qp/list,<dev>,<after>). */
static json_t *
qp_numbers(struct stat_conn *c, const char *dev, char *err, size_t errlen)
{
	json_t *all = json_array(), *page = NULL;
	json_int_t after = 0;

	for (;;) {
		json_t *next, *qpns, *v;
		size_t i;

		page = after ? stat_queryf(c, err, errlen, "/ordk/qp/list,%s,%" JSON_INTEGER_FORMAT,
					   dev, after) :
			       stat_queryf(c, err, errlen, "/ordk/qp/list,%s", dev);
		qpns = json_object_get(page, "qpns");
		if (page == NULL || !json_is_array(qpns)) {
			const char *e = json_string_value(json_object_get(page, "error"));

			if (page != NULL)
				snprintf(err, errlen, "%s", e != NULL ? e : "/ordk/qp/list: no qpns");
			json_decref(page);
			json_decref(all);
			return NULL;
		}
		json_array_foreach(qpns, i, v)
			json_array_append(all, v);
		next = json_object_get(page, "next");
		if (!json_is_integer(next) || json_integer_value(next) <= after)
			break;
		after = json_integer_value(next);
		json_decref(page);
	}
	json_decref(page);
	return all;
}

static json_t *
collect_qp(struct stat_conn *c, const char *dev, long qpn)
{
	json_t *q = json_object();
	char err[256];

	put(q, "info", stat_queryf(c, err, sizeof(err), "/ordk/qp/info,%s,%ld", dev, qpn), err);
	put(q, "stats", stat_queryf(c, err, sizeof(err), "/ordk/qp/stats,%s,%ld", dev, qpn), err);
	return q;
}

static void
collect_qps(struct stat_conn *c, const char *dev, const struct stat_opts *o, json_t *d)
{
	json_t *qps = json_object(), *nums, *v;
	char err[256], key[24];
	size_t i;

	if (o->qpn >= 0) {
		snprintf(key, sizeof(key), "0x%06lx", o->qpn);
		json_object_set_new(qps, key, o->trace ? json_object() : collect_qp(c, dev, o->qpn));
		json_object_set_new(d, "qps", qps);
		return;
	}
	nums = qp_numbers(c, dev, err, sizeof(err));
	if (nums == NULL) {
		json_decref(qps);
		put(d, "qps", NULL, err);
		return;
	}
	json_array_foreach(nums, i, v) {
		snprintf(key, sizeof(key), "0x%06lx", (long)json_integer_value(v));
		json_object_set_new(qps, key, o->trace ? json_object() :
						      collect_qp(c, dev, (long)json_integer_value(v)));
	}
	json_decref(nums);
	json_object_set_new(d, "qps", qps);
}

static json_t *
collect_dev(struct stat_conn *c, const char *name, const struct stat_opts *o)
{
	json_t *d = json_object();
	char err[256];

	if (o->trace) { /* the QPs' numbers are all it needs */
		collect_qps(c, name, o, d);
		return d;
	}
	put(d, "info", stat_queryf(c, err, sizeof(err), "/ordk/dev/info,%s", name), err);
	put(d, "stats", stat_queryf(c, err, sizeof(err), "/ordk/dev/stats,%s", name), err);
	if (o->sim)
		put(d, "sim", stat_queryf(c, err, sizeof(err), "/ordk/sim/stats,%s", name), err);
	if (o->qp)
		collect_qps(c, name, o, d);
	return d;
}

json_t *
stat_collect(struct stat_conn *c, const struct stat_opts *o, char *err, size_t errlen)
{
	json_t *list = stat_query(c, "/ordk/dev/list", err, errlen), *s, *devs, *v;
	size_t i;

	if (list == NULL)
		return NULL;
	if (!json_is_array(list)) {
		snprintf(err, errlen, "/ordk/dev/list: not a list");
		json_decref(list);
		return NULL;
	}
	s = json_pack("{s:I,s:s,s:s,s:f}", "pid", (json_int_t)c->pid, "program", c->program,
		      "socket", c->path, "time", stat_now());
	devs = json_object();
	json_array_foreach(list, i, v) {
		const char *name = json_string_value(v);

		if (name != NULL && (o->dev == NULL || strcmp(o->dev, name) == 0))
			json_object_set_new(devs, name, collect_dev(c, name, o));
	}
	if (o->dev != NULL && json_object_size(devs) == 0) {
		char *names = json_dumps(list, JSON_COMPACT);

		snprintf(err, errlen, "process %ld has no device %s (it has %s)", c->pid, o->dev,
			 names != NULL ? names : "?");
		free(names);
		json_decref(devs);
		json_decref(s);
		json_decref(list);
		return NULL;
	}
	json_decref(list);
	json_object_set_new(s, "devices", devs);
	return s;
}
