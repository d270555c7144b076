/* SPDX-License-Identifier: BSD-3-Clause */
/* DCQCN reaction point arithmetic (Zhu et al., SIGCOMM 2015, section 3.1): see cc_dcqcn.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_kv.h"
#include "cc_dcqcn.h"

/*
 * Beyond this many timer events in one cc_dcqcn_advance() the rest are dropped
 * and the timers restart from now (or the byte count restarts). 4096 increase
 * events raise R_T by at least 4096 x R_AI (164 Gb/s with the defaults; hyper
 * increase grows it quadratically) and 4096 alpha decays with
 * g = 1/256 leave alpha below 1e-6, so dropping the rest changes nothing that
 * matters while bounding the work of one call.
 */
#define CATCHUP_MAX 4096

const char *const cc_dcqcn_stage_name[CC_DCQCN_STAGE_COUNT] = {
	[CC_DCQCN_NONE] = "none",
	[CC_DCQCN_FAST_RECOVERY] = "fast_recovery",
	[CC_DCQCN_ADDITIVE] = "additive",
	[CC_DCQCN_HYPER] = "hyper",
};

/* Which of these values were checked against which source, and which are the paper
 * as recalled: doc/guides/prog_guide/congestion.md, "Parameters". */
void
cc_dcqcn_params_default(struct cc_dcqcn_params *p)
{
	*p = (struct cc_dcqcn_params){
		/* the paper's testbed links are 40 Gb/s; the transport sets the port's */
		.max_rate_bps = 40e9,
		/* not in the paper; the authors' ns-3 simulator (bobzhuyb/ns3-rdma,
		 * qbb-net-device.cc, attribute MinRate) defaults to 100 Mb/s */
		.min_rate_bps = 100e6,
		/* paper: R_AI = 40 Mb/s */
		.rai_bps = 40e6,
		/* not in the paper's table: 10 x R_AI, the ratio of QCN's defaults
		 * (R_AI 5 Mb/s, R_HAI 50 Mb/s, as in the authors' ns-3 simulator) */
		.rhai_bps = 400e6,
		/* paper: g = 1/256, initial alpha 1, K = 55 us */
		.g = 1.0 / 256,
		.alpha_init = 1.0,
		.alpha_ns = 55000,
		/* paper: rate-increase timer T = 55 us, byte counter B = 10 MB, F = 5 */
		.timer_ns = 55000,
		.byte_counter = 10000000,
		.fr_steps = 5,
	};
}

int
cc_dcqcn_params_check(const struct cc_dcqcn_params *p, char *err, size_t errlen)
{
	if (!(p->max_rate_bps > 0) || !(p->min_rate_bps > 0) || p->min_rate_bps > p->max_rate_bps ||
	    !isfinite(p->max_rate_bps))
		return cc_kv_fail(err, errlen, "rates: need 0 < min_rate (%g) <= max_rate (%g)",
			    p->min_rate_bps, p->max_rate_bps);
	if (!(p->rai_bps >= 0) || !(p->rhai_bps >= 0) || !isfinite(p->rai_bps) ||
	    !isfinite(p->rhai_bps))
		return cc_kv_fail(err, errlen, "rai/rhai: need finite steps >= 0");
	if (!(p->g > 0 && p->g <= 1))
		return cc_kv_fail(err, errlen, "g: need 0 < g <= 1 (got %g)", p->g);
	if (!(p->alpha_init >= 0 && p->alpha_init <= 1))
		return cc_kv_fail(err, errlen, "alpha_init: need 0 <= alpha_init <= 1 (got %g)",
			    p->alpha_init);
	if (p->alpha_ns == 0 || p->timer_ns == 0 || p->byte_counter == 0 || p->fr_steps == 0)
		return cc_kv_fail(err, errlen, "alpha_us, timer_us, byte_counter, fr_steps: need > 0");
	return 0;
}

/* "40G", "100M", "1.5e9": a non-negative number with an optional K/M/G (x1000) suffix. */
static int
parse_scaled(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !(v >= 0))
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		v *= 1e3;
		end++;
		break;
	case 'm':
	case 'M':
		v *= 1e6;
		end++;
		break;
	case 'g':
	case 'G':
		v *= 1e9;
		end++;
		break;
	default:
		break;
	}
	if (*end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* "0.25" or "1/256". */
static int
parse_fraction(const char *s, double *out)
{
	const char *slash = strchr(s, '/');
	char num[64];
	double a, b;

	if (slash == NULL)
		return parse_scaled(s, out);
	if ((size_t)(slash - s) >= sizeof(num))
		return -1;
	memcpy(num, s, (size_t)(slash - s));
	num[slash - s] = '\0';
	if (parse_scaled(num, &a) != 0 || parse_scaled(slash + 1, &b) != 0 || b == 0)
		return -1;
	*out = a / b;
	return 0;
}

enum key_kind { KEY_RATE, KEY_FRACTION, KEY_US, KEY_BYTES, KEY_STEPS };

static const struct {
	const char *name;
	enum key_kind kind;
	size_t off;
} keys[] = {
	{"max_rate", KEY_RATE, offsetof(struct cc_dcqcn_params, max_rate_bps)},
	{"min_rate", KEY_RATE, offsetof(struct cc_dcqcn_params, min_rate_bps)},
	{"rai", KEY_RATE, offsetof(struct cc_dcqcn_params, rai_bps)},
	{"rhai", KEY_RATE, offsetof(struct cc_dcqcn_params, rhai_bps)},
	{"g", KEY_FRACTION, offsetof(struct cc_dcqcn_params, g)},
	{"alpha_init", KEY_FRACTION, offsetof(struct cc_dcqcn_params, alpha_init)},
	{"alpha_us", KEY_US, offsetof(struct cc_dcqcn_params, alpha_ns)},
	{"timer_us", KEY_US, offsetof(struct cc_dcqcn_params, timer_ns)},
	{"byte_counter", KEY_BYTES, offsetof(struct cc_dcqcn_params, byte_counter)},
	{"fr_steps", KEY_STEPS, offsetof(struct cc_dcqcn_params, fr_steps)},
};

int
cc_dcqcn_params_set(struct cc_dcqcn_params *p, const char *key, const char *val, char *err,
		    size_t errlen)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		void *field = (char *)p + keys[i].off;
		double v;

		if (strcmp(key, keys[i].name) != 0)
			continue;
		if ((keys[i].kind == KEY_FRACTION ? parse_fraction(val, &v)
						  : parse_scaled(val, &v)) != 0)
			return cc_kv_fail(err, errlen, "%s: bad value '%s'", key, val);
		switch (keys[i].kind) {
		case KEY_RATE:
		case KEY_FRACTION:
			*(double *)field = v;
			return 0;
		case KEY_US:
			if (v * 1e3 > (double)UINT64_MAX / 2)
				return cc_kv_fail(err, errlen, "%s: '%s' out of range", key, val);
			*(uint64_t *)field = (uint64_t)llround(v * 1e3);
			return 0;
		case KEY_BYTES:
			if (v != floor(v) || v > (double)UINT64_MAX / 2)
				return cc_kv_fail(err, errlen, "%s: '%s' is not a count", key, val);
			*(uint64_t *)field = (uint64_t)v;
			return 0;
		case KEY_STEPS:
			if (v != floor(v) || v > (double)UINT32_MAX)
				return cc_kv_fail(err, errlen, "%s: '%s' is not a count", key, val);
			*(uint32_t *)field = (uint32_t)v;
			return 0;
		}
	}
	return cc_kv_fail(err, errlen, "unknown key '%s'", key);
}

static int
set_key(void *obj, const char *key, const char *val, char *err, size_t errlen)
{
	return cc_dcqcn_params_set(obj, key, val, err, errlen);
}

int
cc_dcqcn_params_parse(struct cc_dcqcn_params *p, const char *args, char *err, size_t errlen)
{
	struct cc_dcqcn_params tmp = *p;
	int rc = cc_kv_parse(args, set_key, &tmp, err, errlen);

	if (rc != 0)
		return rc;
	if (cc_dcqcn_params_check(&tmp, err, errlen) != 0)
		return -EINVAL;
	*p = tmp;
	return 0;
}

void
cc_dcqcn_init(struct cc_dcqcn *f, const struct cc_dcqcn_params *p, uint64_t now_ns)
{
	memset(f, 0, sizeof(*f));
	f->p = p;
	f->rc_bps = p->max_rate_bps;
	f->rt_bps = p->max_rate_bps;
	f->alpha = p->alpha_init;
	f->alpha_due_ns = now_ns + p->alpha_ns;
	f->timer_due_ns = now_ns + p->timer_ns;
}

void
cc_dcqcn_on_cnp(struct cc_dcqcn *f, uint64_t now_ns)
{
	const struct cc_dcqcn_params *p = f->p;

	/* eq. 1 in the paper's order: the target remembers the rate, the cut uses
	 * alpha as it was, then alpha moves towards 1. (The authors' ns-3 simulator
	 * updates alpha before the cut; the two differ only while alpha < 1.) */
	f->rt_bps = f->rc_bps;
	f->rc_bps = f->rc_bps * (1 - f->alpha / 2);
	f->alpha = (1 - p->g) * f->alpha + p->g;
	if (f->rc_bps < p->min_rate_bps)
		f->rc_bps = p->min_rate_bps;
	f->t_count = 0;
	f->bc_count = 0;
	f->bytes = 0;
	f->alpha_due_ns = now_ns + p->alpha_ns;
	f->timer_due_ns = now_ns + p->timer_ns;
	f->cnps++;
}

void
cc_dcqcn_alpha_timer(struct cc_dcqcn *f)
{
	f->alpha = (1 - f->p->g) * f->alpha; /* eq. 2 */
	f->alpha_decays++;
}

/* One rate-increase event, already counted in t_count or bc_count. */
static void
increase(struct cc_dcqcn *f)
{
	const struct cc_dcqcn_params *p = f->p;
	uint32_t hi = f->t_count > f->bc_count ? f->t_count : f->bc_count;
	uint32_t lo = f->t_count < f->bc_count ? f->t_count : f->bc_count;

	if (hi <= p->fr_steps) {
		f->stage = CC_DCQCN_FAST_RECOVERY; /* eq. 3: R_T unchanged */
	} else if (lo > p->fr_steps) {
		f->stage = CC_DCQCN_HYPER;
		f->rt_bps += (double)(lo - p->fr_steps) * p->rhai_bps;
	} else {
		f->stage = CC_DCQCN_ADDITIVE; /* eq. 4 */
		f->rt_bps += p->rai_bps;
	}
	if (f->rt_bps > p->max_rate_bps)
		f->rt_bps = p->max_rate_bps;
	f->rc_bps = (f->rt_bps + f->rc_bps) / 2;
	if (f->rc_bps > p->max_rate_bps)
		f->rc_bps = p->max_rate_bps;
	f->increases[f->stage]++;
}

void
cc_dcqcn_rate_timer(struct cc_dcqcn *f)
{
	if (f->t_count < UINT32_MAX)
		f->t_count++;
	increase(f);
}

unsigned int
cc_dcqcn_on_sent(struct cc_dcqcn *f, uint64_t bytes)
{
	unsigned int n = 0;

	f->bytes += bytes;
	while (f->bytes >= f->p->byte_counter) {
		if (n == CATCHUP_MAX) { /* see CATCHUP_MAX: the rest changes nothing */
			f->bytes = 0;
			break;
		}
		f->bytes -= f->p->byte_counter;
		if (f->bc_count < UINT32_MAX)
			f->bc_count++;
		increase(f);
		n++;
	}
	return n;
}

unsigned int
cc_dcqcn_advance(struct cc_dcqcn *f, uint64_t now_ns)
{
	unsigned int n = 0;

	while (f->alpha_due_ns <= now_ns || f->timer_due_ns <= now_ns) {
		if (n == CATCHUP_MAX) {
			f->alpha_due_ns = now_ns + f->p->alpha_ns;
			f->timer_due_ns = now_ns + f->p->timer_ns;
			break;
		}
		if (f->alpha_due_ns <= f->timer_due_ns) {
			cc_dcqcn_alpha_timer(f);
			f->alpha_due_ns += f->p->alpha_ns;
		} else {
			cc_dcqcn_rate_timer(f);
			f->timer_due_ns += f->p->timer_ns;
		}
		n++;
	}
	return n;
}
