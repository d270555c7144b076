/* SPDX-License-Identifier: BSD-3-Clause */
/* The test switch's egress queue model: admission, marking, shaping, counters (sw_queue.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_kv.h"
#include "sw_queue.h"

#define NS_PER_S 1000000000ull

const char *const sw_verdict_name[SW_VERDICT_COUNT] = {
	[SW_ENQUEUE] = "enqueue",
	[SW_ENQUEUE_MARK] = "mark",
	[SW_DROP_FULL] = "drop_full",
	[SW_DROP_AQM] = "drop_aqm",
};

static const char *const aqm_name[] = {"none", "red", "step"};
static const char *const not_ect_name[] = {"pass", "drop", "mark"};

void
sw_queue_cfg_default(struct sw_queue_cfg *c)
{
	*c = (struct sw_queue_cfg){
		.rate_Bps = 0,
		.burst = 16384,
		.cap = 1 << 20,
		.aqm = SW_AQM_RED,
		/* DCQCN paper (SIGCOMM 2015): Kmin 5 KB, Kmax 200 KB, Pmax 1% */
		.kmin = 5000,
		.kmax = 200000,
		.pmax = 0.01,
		/* DCTCP's K for 10 Gb/s is 65 packets (Alizadeh et al., SIGCOMM 2010); in bytes */
		.k = 65 * 1500,
		.not_ect = SW_NOT_ECT_PASS,
		.seed = 1,
	};
}

int
sw_queue_cfg_check(const struct sw_queue_cfg *c, char *err, size_t errlen)
{
	if (c->cap == 0 || c->cap > (1ull << 40))
		return cc_kv_fail(err, errlen, "cap: need 0 < cap <= 1 TiB");
	if (c->burst == 0 || c->burst > (1ull << 30))
		return cc_kv_fail(err, errlen, "burst: need 0 < burst <= 1 GiB");
	if (c->rate_Bps > 1000000000000ull)
		return cc_kv_fail(err, errlen, "rate: at most 1e12 bytes/s");
	if (c->aqm == SW_AQM_RED && !(c->kmin < c->kmax))
		return cc_kv_fail(err, errlen, "kmin/kmax: need kmin < kmax");
	if (c->aqm == SW_AQM_RED && !(c->pmax >= 0 && c->pmax <= 1))
		return cc_kv_fail(err, errlen, "pmax: need 0 <= pmax <= 1");
	return 0;
}

/* A number with an optional K/M/G suffix (powers of @p base). */
static int
parse_u64(const char *s, uint64_t base, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno != 0)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		mul = base;
		end++;
		break;
	case 'm':
	case 'M':
		mul = base * base;
		end++;
		break;
	case 'g':
	case 'G':
		mul = base * base * base;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0' || (v != 0 && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

static int
parse_name(const char *s, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int
set_key(void *obj, const char *key, const char *val, char *err, size_t errlen)
{
	struct sw_queue_cfg *c = obj;
	uint64_t *u64 = NULL;
	uint64_t base = 1024;
	int i;

	if (strcmp(key, "rate") == 0) {
		u64 = &c->rate_Bps;
		base = 1000;
	} else if (strcmp(key, "burst") == 0) {
		u64 = &c->burst;
	} else if (strcmp(key, "cap") == 0) {
		u64 = &c->cap;
	} else if (strcmp(key, "kmin") == 0) {
		u64 = &c->kmin;
	} else if (strcmp(key, "kmax") == 0) {
		u64 = &c->kmax;
	} else if (strcmp(key, "k") == 0) {
		u64 = &c->k;
	} else if (strcmp(key, "seed") == 0) {
		u64 = &c->seed;
	} else if (strcmp(key, "pmax") == 0) {
		char *end;
		double v;

		errno = 0;
		v = strtod(val, &end);
		if (end == val || *end != '\0' || errno != 0 || !(v >= 0 && v <= 1))
			return cc_kv_fail(err, errlen, "pmax: bad value '%s' (0..1)", val);
		c->pmax = v;
		return 0;
	} else if (strcmp(key, "aqm") == 0) {
		i = parse_name(val, aqm_name, 3);
		if (i < 0)
			return cc_kv_fail(err, errlen, "aqm: '%s' is not none, red or step", val);
		c->aqm = (enum sw_aqm)i;
		return 0;
	} else if (strcmp(key, "not_ect") == 0) {
		i = parse_name(val, not_ect_name, 3);
		if (i < 0)
			return cc_kv_fail(err, errlen, "not_ect: '%s' is not pass, drop or mark", val);
		c->not_ect = (enum sw_not_ect)i;
		return 0;
	} else {
		return cc_kv_fail(err, errlen, "unknown key '%s'", key);
	}
	if (parse_u64(val, base, u64) != 0)
		return cc_kv_fail(err, errlen, "%s: bad value '%s'", key, val);
	return 0;
}

int
sw_queue_cfg_parse(struct sw_queue_cfg *c, const char *args, char *err, size_t errlen)
{
	struct sw_queue_cfg tmp = *c;
	int rc = cc_kv_parse(args, set_key, &tmp, err, errlen);

	if (rc != 0)
		return rc;
	if (sw_queue_cfg_check(&tmp, err, errlen) != 0)
		return -EINVAL;
	*c = tmp;
	return 0;
}

int
sw_queue_init(struct sw_queue *q, const struct sw_queue_cfg *c, uint64_t now_ns)
{
	memset(q, 0, sizeof(*q));
	if (sw_queue_cfg_check(c, NULL, 0) != 0)
		return -EINVAL;
	q->cfg = *c;
	q->credit_max = c->burst * NS_PER_S;
	q->credit = (int64_t)q->credit_max;
	q->last_ns = now_ns;
	q->rng = c->seed ? c->seed : 0x9E3779B97F4A7C15ull; /* xorshift needs a non-zero state */
	return 0;
}

/* xorshift64* (Vigna 2016): a uniform double in [0, 1) from the top 53 bits. */
static double
rand_u01(struct sw_queue *q)
{
	q->rng ^= q->rng >> 12;
	q->rng ^= q->rng << 25;
	q->rng ^= q->rng >> 27;
	return (double)((q->rng * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

/* Does the marker pick a packet arriving at depth @p d? */
static bool
pick(struct sw_queue *q, uint64_t d)
{
	const struct sw_queue_cfg *c = &q->cfg;

	switch (c->aqm) {
	case SW_AQM_RED:
		if (d <= c->kmin)
			return false;
		if (d > c->kmax)
			return true;
		return rand_u01(q) < c->pmax * (double)(d - c->kmin) / (double)(c->kmax - c->kmin);
	case SW_AQM_STEP:
		return d > c->k;
	case SW_AQM_NONE:
	default:
		return false;
	}
}

enum sw_verdict
sw_queue_admit(struct sw_queue *q, uint32_t len, uint8_t ecn)
{
	uint64_t d = q->depth;
	uint64_t w = q->cfg.cap / SW_HIST_BUCKETS;
	uint64_t b = w ? d / w : 0;
	enum sw_verdict v = SW_ENQUEUE;

	q->st.hist[b < SW_HIST_BUCKETS ? b : SW_HIST_BUCKETS - 1]++;
	if (d + len > q->cfg.cap) {
		q->st.dropped_full++;
		return SW_DROP_FULL;
	}
	if (ecn != SW_NO_ECN && pick(q, d)) {
		if ((ecn & 3) != 0 || q->cfg.not_ect == SW_NOT_ECT_MARK) {
			v = SW_ENQUEUE_MARK;
			q->st.marked++;
		} else if (q->cfg.not_ect == SW_NOT_ECT_DROP) {
			q->st.dropped_aqm++;
			return SW_DROP_AQM;
		}
	}
	q->depth = d + len;
	if (q->depth > q->st.max_depth)
		q->st.max_depth = q->depth;
	q->st.enqueued++;
	q->st.enqueued_bytes += len;
	return v;
}

static void
refill(struct sw_queue *q, uint64_t now_ns)
{
	uint64_t dt = now_ns > q->last_ns ? now_ns - q->last_ns : 0;
	uint64_t room;

	q->last_ns = now_ns > q->last_ns ? now_ns : q->last_ns;
	if (q->credit >= (int64_t)q->credit_max)
		return;
	room = (uint64_t)((int64_t)q->credit_max - q->credit);
	/* rate x dt in 1e-9 bytes; saturate before it can overflow */
	if (dt >= room / q->cfg.rate_Bps + 1)
		q->credit = (int64_t)q->credit_max;
	else
		q->credit += (int64_t)(q->cfg.rate_Bps * dt);
}

bool
sw_queue_dequeue(struct sw_queue *q, uint32_t len, uint64_t now_ns)
{
	uint64_t need = (uint64_t)len * NS_PER_S;

	if (q->cfg.rate_Bps != 0) {
		refill(q, now_ns);
		if (need > q->credit_max)
			need = q->credit_max; /* larger than the burst: wait for a full bucket */
		if (q->credit < (int64_t)need)
			return false;
		q->credit -= (int64_t)len * (int64_t)NS_PER_S;
	}
	q->depth = q->depth >= len ? q->depth - len : 0;
	q->st.sent++;
	q->st.sent_bytes += len;
	return true;
}

void
sw_queue_unsend(struct sw_queue *q, uint32_t len)
{
	if (q->cfg.rate_Bps != 0)
		q->credit += (int64_t)len * (int64_t)NS_PER_S;
	q->depth += len;
	q->st.sent--;
	q->st.sent_bytes -= len;
}

uint64_t
sw_queue_depth_quantile(const struct sw_queue *q, double f)
{
	uint64_t total = 0, acc = 0;
	uint64_t w = q->cfg.cap / SW_HIST_BUCKETS;

	for (int i = 0; i < SW_HIST_BUCKETS; i++)
		total += q->st.hist[i];
	if (total == 0)
		return 0;
	for (int i = 0; i < SW_HIST_BUCKETS; i++) {
		acc += q->st.hist[i];
		if ((double)acc >= f * (double)total)
			return (uint64_t)(i + 1) * w;
	}
	return q->cfg.cap;
}
