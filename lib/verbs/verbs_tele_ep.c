/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The /ordk/ telemetry endpoints (doc/guides/tools/operations.md lists
 * their keys). Each parses its parameters, asks the device's poll for a
 * copy of what it shows (tele_ask(), verbs_tele.c) and formats the copy on
 * the telemetry thread. tele_answer() is the device's side: it runs on the
 * device's lcore, inside ordk_dev_poll(), and makes the ordk_* calls an
 * application would.
 *
 * Answers are JSON objects (arrays for /ordk/dev/list); a wrong parameter or
 * a device that does not answer gives {"error": "..."}. Telemetry's replies
 * are at most 16 KiB and its arrays 512 entries: the lists come in pages
 * (a "next" key says where the following page starts).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_telemetry.h>

#include "verbs_internal.h"
#include "verbs_tele.h"

#define PAGE_QPS 500u /* QP numbers in one /ordk/qp/list reply */
#define PAGE_MRS 64u  /* MRs in one /ordk/mr/list reply (about 100 bytes each) */

/* ------------------------------------------------- the device's lcore */

static void
answer_qps(struct verbs_dev *dev, struct tele_req *r)
{
	const void *key;
	void *data;
	uint32_t it = 0;

	r->qps.n = 0;
	while (r->qps.n < r->qps.cap && rte_hash_iterate(dev->qp_table, &key, &data, &it) >= 0)
		r->qps.qpn[r->qps.n++] = vqp(data)->qpn;
}

static void
answer_qp(struct ordk_dev *dev, struct tele_req *r)
{
	struct ordk_qp *qp = verbs_qp_lookup(dev, r->qpn);
	struct tele_qp *q = &r->qp;
	struct ordk_qp_init_attr init;

	if (qp == NULL) {
		r->rc = -ENOENT;
		return;
	}
	ordk_qp_info(qp, &q->info);
	ordk_qp_query(qp, &q->attr, &init);
	q->max_send_wr = init.max_send_wr;
	q->max_recv_wr = init.max_recv_wr;
	q->cc_rc = ordk_qp_cc_query(qp, &q->cc);
	ordk_qp_stats(qp, &q->st);
}

static void
answer_mrs(struct verbs_dev *dev, struct tele_req *r)
{
	struct verbs_mr *m;

	r->mrs.n = 0;
	TAILQ_FOREACH(m, &dev->mrs, link) {
		if (r->mrs.n == r->mrs.cap)
			break;
		r->mrs.mr[r->mrs.n++] = (struct tele_mr){
			.addr = (uint64_t)(uintptr_t)m->pub.addr, .length = m->pub.length,
			.lkey = m->pub.lkey, .rkey = m->pub.rkey, .access = m->pub.access,
			.pd = m->pub.pd->handle,
		};
	}
}

static void
answer_xstats(struct ordk_dev *dev, struct tele_req *r)
{
	int n = ordk_dev_xstats(dev, NULL, NULL, 0);
	const char **names = n > 0 ? calloc((size_t)n, sizeof(*names)) : NULL;
	uint64_t *values = n > 0 ? calloc((size_t)n, sizeof(*values)) : NULL;

	r->xs.n = 0;
	if (names != NULL && values != NULL && ordk_dev_xstats(dev, names, values, (unsigned int)n) == n)
		for (int i = 0; i < n && r->xs.n < TELE_XSTATS_MAX; i++, r->xs.n++) {
			snprintf(r->xs.name[r->xs.n], TELE_XNAME_LEN, "%s", names[i]);
			r->xs.value[r->xs.n] = values[i];
		}
	free(names);
	free(values);
}

void
tele_answer(struct ordk_dev *dev, struct tele_req *r)
{
	struct verbs_dev *v = vdev(dev);

	r->rc = 0;
	switch (r->kind) {
	case TELE_DEV:
		r->dev.nqp = v->nqp;
		r->dev.ncq = v->ncq;
		r->dev.nmr = v->nmr;
		r->dev.npd = v->npd;
		break;
	case TELE_STATS:
		ordk_dev_stats(dev, &r->st);
		break;
	case TELE_QPS:
		answer_qps(v, r);
		break;
	case TELE_QP:
		answer_qp(dev, r);
		break;
	case TELE_MRS:
		answer_mrs(v, r);
		break;
	case TELE_XSTATS:
		answer_xstats(dev, r);
		break;
	case TELE_TRACE:
		tele_answer_trace(dev, r);
		break;
	}
}

/* ------------------------------------------------- the telemetry thread */

/* The device named by @p params up to its first comma (or its index): referenced, or NULL
 * with the error in @p d. *@p rest: what follows the comma, or NULL. */
static struct verbs_tele *
dev_arg(const char *params, struct rte_tel_data *d, const char **rest)
{
	char name[64];
	size_t n = params != NULL ? strcspn(params, ",") : 0;
	struct verbs_tele *t;

	*rest = params != NULL && params[n] == ',' ? params + n + 1 : NULL;
	if (n == 0 || n >= sizeof(name)) {
		tele_error(d, "give a device: its name or its index in /ordk/dev/list");
		return NULL;
	}
	memcpy(name, params, n);
	name[n] = '\0';
	t = tele_get(name, true);
	if (t == NULL)
		tele_error(d, "no device '%s' (see /ordk/dev/list)", name);
	return t;
}

/* A number: decimal, or hex after 0x. @return 0, or -EINVAL. */
static int
num_arg(const char *s, uint64_t *v)
{
	char *end;
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (*s == '\0' || *s == '-' || *s == '+')
		return -EINVAL;
	*v = strtoull(s, &end, hex ? 16 : 10);
	return *end == '\0' || *end == ',' ? 0 : -EINVAL;
}

static int
ask(struct verbs_tele *t, struct tele_req *r, struct rte_tel_data *d)
{
	int rc = tele_ask(t, r);

	if (rc != 0)
		tele_error(d, "%s: no answer within %u ms: its lcore is not polling it", t->attr.name,
			   TELE_WAIT_MS);
	return rc;
}

/* ORDK's counters, then mlx5's and rxe's names for those they also have. */
static void
add_stats(struct rte_tel_data *d, const struct ordk_stats *st)
{
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++)
		rte_tel_data_add_dict_u64(d, ordk_stats_name(i), ordk_stats_value(st, i));
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++) {
		const char *mlx5 = ordk_stats_mlx5_name(i), *rxe = ordk_stats_rxe_name(i);

		if (mlx5 != NULL)
			rte_tel_data_add_dict_u64(d, mlx5, ordk_stats_value(st, i));
		if (rxe != NULL && (mlx5 == NULL || strcmp(rxe, mlx5) != 0))
			rte_tel_data_add_dict_u64(d, rxe, ordk_stats_value(st, i));
	}
}

static int
ep_dev_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct verbs_tele *t;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (unsigned int i = 0; (t = tele_get_nth(i)) != NULL; i++) {
		rte_tel_data_add_array_string(d, t->attr.name);
		tele_put(t);
	}
	return 0;
}

static void
add_addr(struct rte_tel_data *d, uint64_t mac, uint32_t ip, const char *mac_key,
	 const char *ip_key)
{
	char s[24];

	snprintf(s, sizeof(s), "%02x:%02x:%02x:%02x:%02x:%02x", (unsigned int)(mac >> 40) & 0xFF,
		 (unsigned int)(mac >> 32) & 0xFF, (unsigned int)(mac >> 24) & 0xFF,
		 (unsigned int)(mac >> 16) & 0xFF, (unsigned int)(mac >> 8) & 0xFF,
		 (unsigned int)mac & 0xFF);
	rte_tel_data_add_dict_string(d, mac_key, s);
	snprintf(s, sizeof(s), "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 0xFF, (ip >> 8) & 0xFF,
		 ip & 0xFF);
	rte_tel_data_add_dict_string(d, ip_key, s);
}

static int
ep_dev_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_DEV };
	const char *rest;
	struct verbs_tele *t = dev_arg(params, d, &rest);
	const struct ordk_dev_attr *a;
	int rc;

	RTE_SET_USED(cmd);
	if (t == NULL)
		return 0;
	a = &t->attr;
	rc = tele_ask(t, &r);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", a->name);
	rte_tel_data_add_dict_string(d, "driver", t->driver);
	add_addr(d, a->mac, a->ip, "mac", "ip");
	rte_tel_data_add_dict_u64(d, "max_qp", a->max_qp);
	rte_tel_data_add_dict_u64(d, "max_qp_wr", a->max_qp_wr);
	rte_tel_data_add_dict_u64(d, "max_sge", a->max_sge);
	rte_tel_data_add_dict_u64(d, "max_cq", a->max_cq);
	rte_tel_data_add_dict_u64(d, "max_cqe", a->max_cqe);
	rte_tel_data_add_dict_u64(d, "max_mr", a->max_mr);
	rte_tel_data_add_dict_u64(d, "max_pd", a->max_pd);
	rte_tel_data_add_dict_u64(d, "max_mr_size", a->max_mr_size);
	rte_tel_data_add_dict_u64(d, "max_msg_sz", a->max_msg_sz);
	rte_tel_data_add_dict_u64(d, "pgt_entries", a->pgt_entries);
	if (rc == 0) {
		rte_tel_data_add_dict_u64(d, "qps", r.dev.nqp);
		rte_tel_data_add_dict_u64(d, "cqs", r.dev.ncq);
		rte_tel_data_add_dict_u64(d, "mrs", r.dev.nmr);
		rte_tel_data_add_dict_u64(d, "pds", r.dev.npd);
	} else {
		rte_tel_data_add_dict_string(d, "error", "no answer: its lcore is not polling it");
	}
	tele_put(t);
	return 0;
}

static int
ep_dev_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_STATS };
	const char *rest;
	struct verbs_tele *t = dev_arg(params, d, &rest);

	RTE_SET_USED(cmd);
	if (t == NULL)
		return 0;
	if (ask(t, &r, d) == 0) {
		rte_tel_data_start_dict(d);
		add_stats(d, &r.st);
	}
	tele_put(t);
	return 0;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_mr(const void *a, const void *b)
{
	return cmp_u32(&((const struct tele_mr *)a)->lkey, &((const struct tele_mr *)b)->lkey);
}

/* "<dev>[,<after>]": the device, and the key a page starts after (0: the first page). */
static struct verbs_tele *
page_args(const char *params, struct rte_tel_data *d, uint64_t *after)
{
	const char *rest;
	struct verbs_tele *t = dev_arg(params, d, &rest);

	*after = 0;
	if (t != NULL && rest != NULL && num_arg(rest, after) != 0) {
		tele_error(d, "'%s': <device>[,<the last number of the previous page>]", params);
		tele_put(t);
		return NULL;
	}
	return t;
}

static int
ep_qp_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_QPS };
	struct rte_tel_data *a;
	uint64_t after;
	uint32_t shown = 0, i;
	struct verbs_tele *t = page_args(params, d, &after);

	RTE_SET_USED(cmd);
	if (t == NULL)
		return 0;
	r.qps.cap = t->attr.max_qp + 1;
	r.qps.qpn = calloc(r.qps.cap, sizeof(*r.qps.qpn));
	a = rte_tel_data_alloc();
	if (r.qps.qpn == NULL || a == NULL) {
		tele_error(d, "out of memory");
	} else if (ask(t, &r, d) == 0) {
		qsort(r.qps.qpn, r.qps.n, sizeof(*r.qps.qpn), cmp_u32);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "dev", t->attr.name);
		rte_tel_data_add_dict_u64(d, "count", r.qps.n);
		rte_tel_data_start_array(a, RTE_TEL_U64_VAL);
		for (i = 0; i < r.qps.n && shown < PAGE_QPS; i++)
			if (r.qps.qpn[i] > after) {
				rte_tel_data_add_array_u64(a, r.qps.qpn[i]);
				shown++;
			}
		rte_tel_data_add_dict_container(d, "qpns", a, 0);
		a = NULL;
		if (i < r.qps.n)
			rte_tel_data_add_dict_u64(d, "next", r.qps.qpn[i - 1]);
	}
	rte_tel_data_free(a);
	free(r.qps.qpn);
	tele_put(t);
	return 0;
}

static int
ep_mr_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_MRS };
	struct rte_tel_data *a = NULL;
	uint64_t after;
	uint32_t shown = 0, i;
	struct verbs_tele *t = page_args(params, d, &after);

	RTE_SET_USED(cmd);
	if (t == NULL)
		return 0;
	r.mrs.cap = t->attr.max_mr;
	r.mrs.mr = calloc(r.mrs.cap, sizeof(*r.mrs.mr));
	if (r.mrs.mr == NULL || (a = rte_tel_data_alloc()) == NULL) {
		tele_error(d, "out of memory");
	} else if (ask(t, &r, d) == 0) {
		qsort(r.mrs.mr, r.mrs.n, sizeof(*r.mrs.mr), cmp_mr);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "dev", t->attr.name);
		rte_tel_data_add_dict_u64(d, "count", r.mrs.n);
		/* a dict by lkey (telemetry's arrays hold no dicts) */
		rte_tel_data_start_dict(a);
		for (i = 0; i < r.mrs.n && shown < PAGE_MRS; i++) {
			const struct tele_mr *m = &r.mrs.mr[i];
			struct rte_tel_data *e;
			char key[16];

			if (after != 0 && m->lkey <= after)
				continue;
			e = rte_tel_data_alloc();
			if (e == NULL)
				break;
			snprintf(key, sizeof(key), "%u", m->lkey);
			rte_tel_data_start_dict(e);
			rte_tel_data_add_dict_u64(e, "lkey", m->lkey);
			rte_tel_data_add_dict_u64(e, "rkey", m->rkey);
			rte_tel_data_add_dict_u64(e, "addr", m->addr);
			rte_tel_data_add_dict_u64(e, "length", m->length);
			rte_tel_data_add_dict_u64(e, "access", m->access);
			rte_tel_data_add_dict_u64(e, "pd", m->pd);
			rte_tel_data_add_dict_container(a, key, e, 0);
			shown++;
		}
		rte_tel_data_add_dict_container(d, "mrs", a, 0);
		a = NULL;
		if (i < r.mrs.n)
			rte_tel_data_add_dict_u64(d, "next", r.mrs.mr[i - 1].lkey);
	}
	rte_tel_data_free(a);
	free(r.mrs.mr);
	tele_put(t);
	return 0;
}

/* The one device that has QP r->qpn (referenced), its copy in @p r; or NULL, the error in @p d. */
static struct verbs_tele *
qp_search(struct tele_req *r, struct rte_tel_data *d)
{
	struct verbs_tele *t = NULL, *t1;
	unsigned int found = 0, silent = 0;
	struct tele_req r1;

	for (unsigned int i = 0; (t1 = tele_get_nth(i)) != NULL; i++) {
		r1 = *r;
		if (tele_ask(t1, &r1) != 0)
			silent++;
		else if (r1.rc == 0 && found++ == 0) {
			t = t1;
			*r = r1;
			continue;
		}
		tele_put(t1);
	}
	if (found == 1)
		return t;
	if (found > 1) {
		tele_error(d, "QP 0x%06x is on %u devices: give <device>,<qpn>", r->qpn, found);
		tele_put(t);
	} else {
		tele_error(d, "no QP 0x%06x on this process's devices%s", r->qpn,
			   silent ? " (some did not answer: their lcores are not polling them)" : "");
	}
	return NULL;
}

int
tele_qp_parse(const char *params, struct tele_req *r, struct rte_tel_data *d,
	      struct verbs_tele **t, const char **rest)
{
	const char *q = params != NULL ? params : "";
	uint64_t qpn;

	*t = NULL;
	if (num_arg(q, &qpn) != 0) { /* not a number first: "<dev>,<qpn>" */
		*t = dev_arg(q, d, &q);
		if (*t == NULL)
			return -1;
		if (q == NULL || num_arg(q, &qpn) != 0)
			qpn = UINT64_MAX;
	}
	if (qpn > 0xFFFFFF) {
		tele_error(d, "'%s': [<device>,]<qpn> (24 bits, decimal or 0x hex)", params ? params : "");
		if (*t != NULL)
			tele_put(*t);
		*t = NULL;
		return -1;
	}
	*rest = strchr(q, ',') != NULL ? strchr(q, ',') + 1 : NULL;
	r->qpn = (uint32_t)qpn;
	return 0;
}

struct verbs_tele *
tele_qp_ask(struct verbs_tele *t, struct tele_req *r, struct rte_tel_data *d)
{
	if (t == NULL)
		return qp_search(r, d);
	if (ask(t, r, d) != 0 || r->rc != 0) {
		if (r->rc != 0)
			tele_error(d, "%s has no QP 0x%06x", t->attr.name, r->qpn);
		tele_put(t);
		return NULL;
	}
	return t;
}

/* "[<dev>,]<qpn>": the QP's copy in @p r. @return its device (referenced), or NULL. */
static struct verbs_tele *
qp_args(const char *params, struct tele_req *r, struct rte_tel_data *d)
{
	struct verbs_tele *t;
	const char *rest;

	if (tele_qp_parse(params, r, d, &t, &rest) != 0)
		return NULL;
	return tele_qp_ask(t, r, d);
}

static void
add_cc(struct rte_tel_data *d, const struct tele_qp *q)
{
	struct rte_tel_data *cc = rte_tel_data_alloc(), *p = rte_tel_data_alloc();
	char kv[sizeof(q->cc.params)], *save = NULL;

	if (cc == NULL || p == NULL) {
		rte_tel_data_free(cc);
		rte_tel_data_free(p);
		return;
	}
	rte_tel_data_start_dict(cc);
	rte_tel_data_add_dict_u64(cc, "on", q->cc_rc == 0 && q->cc.on);
	if (q->cc_rc == 0 && q->cc.on) {
		rte_tel_data_add_dict_u64(cc, "rate_bps", (uint64_t)q->cc.rate_bps);
		rte_tel_data_add_dict_u64(cc, "target_bps", (uint64_t)q->cc.target_bps);
		rte_tel_data_add_dict_u64(cc, "alpha_ppm", (uint64_t)(q->cc.alpha * 1e6 + 0.5));
		rte_tel_data_add_dict_string(cc, "stage", q->cc.stage != NULL ? q->cc.stage : "?");
		rte_tel_data_add_dict_u64(cc, "t_count", q->cc.t_count);
		rte_tel_data_add_dict_u64(cc, "bc_count", q->cc.bc_count);
		rte_tel_data_add_dict_u64(cc, "cnps", q->cc.cnps);
		rte_tel_data_add_dict_u64(cc, "rate_changes", q->cc.rate_changes);
		rte_tel_data_add_dict_u64(cc, "limited_ns", q->cc.limited_ns);
	}
	/* the device's parameters, "key=value,..." as a dict */
	rte_tel_data_start_dict(p);
	snprintf(kv, sizeof(kv), "%s", q->cc_rc == 0 ? q->cc.params : "");
	for (char *e = strtok_r(kv, ",", &save); e != NULL; e = strtok_r(NULL, ",", &save)) {
		char *v = strchr(e, '=');

		if (v != NULL) {
			*v++ = '\0';
			rte_tel_data_add_dict_string(p, e, v);
		}
	}
	rte_tel_data_add_dict_container(cc, "params", p, 0);
	rte_tel_data_add_dict_container(d, "cc", cc, 0);
}

static uint64_t
mtu_bytes(enum ordk_mtu m)
{
	return m >= ORDK_MTU_256 && m <= ORDK_MTU_4096 ? 128u << m : 0;
}

static int
ep_qp_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_QP };
	struct verbs_tele *t = qp_args(params, &r, d);
	const struct ordk_qp_info *i = &r.qp.info;
	const struct ordk_qp_attr *a = &r.qp.attr;

	RTE_SET_USED(cmd);
	if (t == NULL)
		return 0;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "dev", t->attr.name);
	rte_tel_data_add_dict_u64(d, "qpn", r.qpn);
	rte_tel_data_add_dict_string(d, "state", ordk_qp_state_str(i->state));
	rte_tel_data_add_dict_u64(d, "dest_qpn", a->dest_qp_num);
	add_addr(d, a->dest_mac, a->dest_ip, "dest_mac", "dest_ip");
	rte_tel_data_add_dict_u64(d, "path_mtu", mtu_bytes(a->path_mtu));
	rte_tel_data_add_dict_u64(d, "access", a->qp_access_flags);
	rte_tel_data_add_dict_u64(d, "sq_psn", a->sq_psn);
	rte_tel_data_add_dict_u64(d, "rq_psn", a->rq_psn);
	rte_tel_data_add_dict_u64(d, "timeout", a->timeout);
	rte_tel_data_add_dict_u64(d, "retry_cnt", a->retry_cnt);
	rte_tel_data_add_dict_u64(d, "rnr_retry", a->rnr_retry);
	rte_tel_data_add_dict_u64(d, "min_rnr_timer", a->min_rnr_timer);
	rte_tel_data_add_dict_u64(d, "max_rd_atomic", a->max_rd_atomic);
	rte_tel_data_add_dict_u64(d, "max_dest_rd_atomic", a->max_dest_rd_atomic);
	rte_tel_data_add_dict_u64(d, "max_send_wr", r.qp.max_send_wr);
	rte_tel_data_add_dict_u64(d, "max_recv_wr", r.qp.max_recv_wr);
	rte_tel_data_add_dict_u64(d, "next_psn", i->next_psn);
	rte_tel_data_add_dict_u64(d, "acked_psn", i->acked_psn);
	rte_tel_data_add_dict_u64(d, "expected_psn", i->expected_psn);
	rte_tel_data_add_dict_u64(d, "send_outstanding", i->send_outstanding);
	rte_tel_data_add_dict_u64(d, "recv_posted", i->recv_posted);
	rte_tel_data_add_dict_u64(d, "reads_outstanding", i->reads_outstanding);
	rte_tel_data_add_dict_u64(d, "retries", i->retries);
	rte_tel_data_add_dict_u64(d, "recv_adverts", i->recv_adverts);
	rte_tel_data_add_dict_string(d, "req_state", i->req_state != NULL ? i->req_state : "");
	rte_tel_data_add_dict_string(d, "comp_state", i->comp_state != NULL ? i->comp_state : "");
	rte_tel_data_add_dict_string(d, "hole_state", i->hole_state != NULL ? i->hole_state : "");
	rte_tel_data_add_dict_string(d, "probe_state", i->probe_state != NULL ? i->probe_state : "");
	rte_tel_data_add_dict_u64(d, "active", i->active);
	add_cc(d, &r.qp);
	tele_put(t);
	return 0;
}

static int
ep_qp_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_QP };
	struct verbs_tele *t = qp_args(params, &r, d);

	RTE_SET_USED(cmd);
	if (t == NULL)
		return 0;
	rte_tel_data_start_dict(d);
	add_stats(d, &r.qp.st);
	tele_put(t);
	return 0;
}

static int
ep_sim_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_XSTATS };
	const char *rest;
	struct verbs_tele *t = dev_arg(params, d, &rest);

	RTE_SET_USED(cmd);
	if (t == NULL)
		return 0;
	r.xs.name = calloc(TELE_XSTATS_MAX, sizeof(*r.xs.name));
	r.xs.value = calloc(TELE_XSTATS_MAX, sizeof(*r.xs.value));
	if (r.xs.name == NULL || r.xs.value == NULL) {
		tele_error(d, "out of memory");
	} else if (ask(t, &r, d) == 0) {
		rte_tel_data_start_dict(d);
		for (uint32_t i = 0; i < r.xs.n; i++)
			rte_tel_data_add_dict_u64(d, r.xs.name[i], r.xs.value[i]);
	}
	free(r.xs.name);
	free(r.xs.value);
	tele_put(t);
	return 0;
}

void
tele_register_endpoints(void)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} eps[] = {
		{ "/ordk/dev/list", ep_dev_list, "Returns the ORDK devices of this process." },
		{ "/ordk/dev/info", ep_dev_info,
		  "Returns a device's identity, limits and object counts. Parameters: device" },
		{ "/ordk/dev/stats", ep_dev_stats,
		  "Returns a device's transport counters (ORDK's names, then mlx5's and rxe's). "
		  "Parameters: device" },
		{ "/ordk/qp/list", ep_qp_list,
		  "Returns a device's QP numbers. Parameters: device[,after qpn]" },
		{ "/ordk/qp/info", ep_qp_info,
		  "Returns a QP's states, PSNs, WRs, attributes, congestion control. "
		  "Parameters: [device,]qpn" },
		{ "/ordk/qp/stats", ep_qp_stats,
		  "Returns a QP's transport counters. Parameters: [device,]qpn" },
		{ "/ordk/mr/list", ep_mr_list,
		  "Returns a device's memory regions. Parameters: device[,after lkey]" },
		{ "/ordk/sim/stats", ep_sim_stats,
		  "Returns the counters of the card's interface and of its model. Parameters: device" },
		{ "/ordk/qp/trace", tele_ep_qp_trace,
		  "Returns a page of a QP's event timeline (devarg trace=1). "
		  "Parameters: [device,]qpn[,from event]" },
	};

	for (unsigned int i = 0; i < RTE_DIM(eps); i++) {
		int rc = rte_telemetry_register_cmd(eps[i].cmd, eps[i].fn, eps[i].help);

		if (rc != 0)
			VERBS_LOG(NOTICE, "telemetry: %s not registered: %s", eps[i].cmd,
				  strerror(-rc));
	}
}
