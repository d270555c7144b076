/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-stat --trace: the QPs' event timelines (/ordk/qp/trace, kept when the
 * device was opened with trace=1), merged in time order. Once: everything
 * each ring still holds. With --watch: every interval, what is new since
 * the last look (the next event number per QP), until Ctrl-C or --count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stat.h"

#define TRACE_QPS_MAX 4096u

struct trace_ev {
	uint64_t t_ns, seq;
	char dev[32], qpn[16], event[24], what[96];
	json_int_t a, b;
};

/* Where each QP's timeline was read up to. */
struct trace_pos {
	char dev[32];
	long qpn;
	uint64_t next;
	bool warned; /* "keeps no timeline" said once */
};

struct trace_state {
	struct trace_pos pos[TRACE_QPS_MAX];
	unsigned int npos;
	struct trace_ev *ev;
	size_t nev, cap;
};

static struct trace_pos *
pos_of(struct trace_state *st, const char *dev, long qpn)
{
	for (unsigned int i = 0; i < st->npos; i++)
		if (st->pos[i].qpn == qpn && strcmp(st->pos[i].dev, dev) == 0)
			return &st->pos[i];
	if (st->npos == TRACE_QPS_MAX)
		return NULL;
	st->pos[st->npos] = (struct trace_pos){ .qpn = qpn };
	snprintf(st->pos[st->npos].dev, sizeof(st->pos[0].dev), "%s", dev);
	return &st->pos[st->npos++];
}

static void
add_event(struct trace_state *st, const char *dev, long qpn, const char *seq, const json_t *e)
{
	struct trace_ev *v;

	if (st->nev == st->cap) {
		size_t cap = st->cap ? 2 * st->cap : 256;
		struct trace_ev *n = realloc(st->ev, cap * sizeof(*n));

		if (n == NULL)
			return;
		st->ev = n;
		st->cap = cap;
	}
	v = &st->ev[st->nev++];
	memset(v, 0, sizeof(*v));
	v->t_ns = (uint64_t)json_integer_value(json_object_get(e, "t_ns"));
	v->seq = strtoull(seq, NULL, 10);
	v->a = json_integer_value(json_object_get(e, "a"));
	v->b = json_integer_value(json_object_get(e, "b"));
	snprintf(v->dev, sizeof(v->dev), "%s", dev);
	snprintf(v->qpn, sizeof(v->qpn), "0x%06lx", qpn);
	snprintf(v->event, sizeof(v->event), "%s",
		 json_string_value(json_object_get(e, "event")) ?: "?");
	snprintf(v->what, sizeof(v->what), "%s", json_string_value(json_object_get(e, "what")) ?: "");
}

/* Every event of QP @p qpn from p->next on, page by page. */
static void
read_qp(struct stat_conn *c, struct trace_state *st, struct trace_pos *p, FILE *f)
{
	for (;;) {
		char err[256];
		json_t *r = stat_queryf(c, err, sizeof(err), "/ordk/qp/trace,%s,%ld,%" PRIu64, p->dev,
					p->qpn, p->next);
		json_t *evs = json_object_get(r, "events"), *e;
		const char *seq;
		uint64_t next;

		if (r == NULL || !json_is_object(evs)) {
			const char *msg = r != NULL ? json_string_value(json_object_get(r, "error")) : err;

			if (!p->warned)
				fprintf(f, "# %s qp 0x%06lx: %s\n", p->dev, p->qpn, msg ? msg : "no trace");
			p->warned = true;
			json_decref(r);
			return;
		}
		if (json_integer_value(json_object_get(r, "lost")) > 0)
			fprintf(f, "# %s qp 0x%06lx: %" JSON_INTEGER_FORMAT " events lost (overwritten "
				   "before they were read; a larger trace= keeps more)\n",
				p->dev, p->qpn, json_integer_value(json_object_get(r, "lost")));
		json_object_foreach(evs, seq, e)
			add_event(st, p->dev, p->qpn, seq, e);
		next = (uint64_t)json_integer_value(json_object_get(r, "next"));
		json_decref(r);
		if (next == p->next || json_object_size(evs) == 0)
			return;
		p->next = next;
	}
}

static int
cmp_ev(const void *x, const void *y)
{
	const struct trace_ev *a = x, *b = y;

	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void
print_events(FILE *f, struct trace_state *st, const struct stat_opts *o)
{
	qsort(st->ev, st->nev, sizeof(*st->ev), cmp_ev);
	for (size_t i = 0; i < st->nev; i++) {
		const struct trace_ev *v = &st->ev[i];

		if (o->json)
			fprintf(f, "{\"t_ns\":%" PRIu64 ",\"dev\":\"%s\",\"qpn\":\"%s\",\"seq\":%" PRIu64
				   ",\"event\":\"%s\",\"a\":%" JSON_INTEGER_FORMAT ",\"b\":%"
				   JSON_INTEGER_FORMAT ",\"what\":\"%s\"}\n",
				v->t_ns, v->dev, v->qpn, v->seq, v->event, v->a, v->b, v->what);
		else
			fprintf(f, "%16.6f  %-10s %s  %-13s %s\n", (double)v->t_ns * 1e-6, v->dev,
				v->qpn, v->event, v->what);
	}
	st->nev = 0;
	fflush(f);
}

/* One look at every QP of @p s (the sample's devices and QPs). */
static void
look(FILE *f, struct stat_conn *c, const json_t *s, struct trace_state *st)
{
	const json_t *devs = json_object_get(s, "devices"), *d, *q;
	const char *dev, *key;

	json_object_foreach((json_t *)(uintptr_t)devs, dev, d)
		json_object_foreach(json_object_get(d, "qps"), key, q) {
			struct trace_pos *p = pos_of(st, dev, strtol(key, NULL, 16));

			(void)q;
			if (p != NULL)
				read_qp(c, st, p, f);
		}
}

int
stat_trace(FILE *f, struct stat_conn *c, const struct stat_opts *o, const volatile sig_atomic_t *stop)
{
	struct trace_state *st = calloc(1, sizeof(*st));
	struct stat_opts qo = *o;
	double t0 = stat_now();
	int rc = 0;

	if (st == NULL)
		return 1;
	qo.qp = qo.trace = true; /* the QPs' numbers only: every QP, or --qp's */
	if (!o->json)
		fprintf(f, "%16s  %-10s %-8s  %-13s %s\n", "t (ms)", "device", "qp", "event", "what");
	for (long i = 0; !*stop && (!o->watch || o->count == 0 || i < o->count); i++) {
		char err[256];
		json_t *s;

		if (i > 0)
			stat_sleep_until(t0 + (double)i * o->interval, stop);
		if (*stop)
			break;
		s = stat_collect(c, &qo, err, sizeof(err));
		if (s == NULL) {
			fprintf(stderr, "ordk-stat: %s\n", err);
			rc = 1;
			break;
		}
		look(f, c, s, st);
		json_decref(s);
		print_events(f, st, o);
		if (!o->watch)
			break;
	}
	free(st->ev);
	free(st);
	return rc;
}
