/* SPDX-License-Identifier: BSD-3-Clause */
/* The reaction point of one QP: DCQCN's rate and a pacer (see cc_rp.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc_kv.h"
#include "cc_rp.h"

#define ITEM_PKTS_MAX 64u

void
cc_params_default(struct cc_params *p)
{
	cc_dcqcn_params_default(&p->dcqcn);
	/* 4 packets: 16 KiB at PMTU 4096, 328 ns at 400 Gb/s, 82 us at the 1.6 Gb/s floor */
	p->item_pkts = 4;
	/* a QP polled late may catch up this much; more would be a burst into the queue */
	p->burst_ns = 20000;
}

/* The pacer's own keys; everything else goes to DCQCN's parser. */
static int
set_pace_key(struct cc_params *p, const char *key, const char *val, char *err, size_t errlen)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(val, &end);
	if (end == val || *end != '\0' || errno != 0 || !(v >= 0))
		return cc_kv_fail(err, errlen, "%s: bad value '%s'", key, val);
	if (strcmp(key, "item_pkts") == 0) {
		if (v < 1 || v > ITEM_PKTS_MAX || v != (double)(uint32_t)v)
			return cc_kv_fail(err, errlen, "item_pkts: need 1..%u (got %s)",
					  ITEM_PKTS_MAX, val);
		p->item_pkts = (uint32_t)v;
		return 0;
	}
	if (v > 1e6)
		return cc_kv_fail(err, errlen, "%s: at most 1000000 (got %s)", key, val);
	*(strcmp(key, "burst_us") == 0 ? &p->burst_ns : &p->cut_gap_ns) = (uint64_t)(v * 1e3 + 0.5);
	return 0;
}

static int
set_key(void *obj, const char *key, const char *val, char *err, size_t errlen)
{
	struct cc_params *p = obj;

	if (strcmp(key, "item_pkts") == 0 || strcmp(key, "burst_us") == 0 ||
	    strcmp(key, "cut_gap_us") == 0)
		return set_pace_key(p, key, val, err, errlen);
	return cc_dcqcn_params_set(&p->dcqcn, key, val, err, errlen);
}

int
cc_params_parse(struct cc_params *p, const char *args, char *err, size_t errlen)
{
	struct cc_params tmp = *p;
	int rc = cc_kv_parse(args, set_key, &tmp, err, errlen);

	if (rc != 0)
		return rc;
	if (cc_dcqcn_params_check(&tmp.dcqcn, err, errlen) != 0)
		return -EINVAL;
	*p = tmp;
	return 0;
}

int
cc_params_format(const struct cc_params *p, char *buf, size_t len)
{
	const struct cc_dcqcn_params *d = &p->dcqcn;

	return snprintf(buf, len,
			"max_rate=%.0f,min_rate=%.0f,rai=%.0f,rhai=%.0f,g=%g,alpha_init=%g,"
			"alpha_us=%.3f,timer_us=%.3f,byte_counter=%llu,fr_steps=%u,item_pkts=%u,"
			"burst_us=%.3f,cut_gap_us=%.3f",
			d->max_rate_bps, d->min_rate_bps, d->rai_bps, d->rhai_bps, d->g, d->alpha_init,
			(double)d->alpha_ns / 1e3, (double)d->timer_ns / 1e3,
			(unsigned long long)d->byte_counter, d->fr_steps, p->item_pkts,
			(double)p->burst_ns / 1e3, (double)p->cut_gap_ns / 1e3);
}

void
cc_rp_init(struct cc_rp *r, const struct cc_params *p, uint64_t now_ns, cc_rp_trace_fn trace,
	   void *trace_arg)
{
	memset(r, 0, sizeof(*r));
	r->p = p;
	cc_dcqcn_init(&r->f, &p->dcqcn, now_ns);
	r->next_ns = now_ns;
	r->trace = trace;
	r->trace_arg = trace_arg;
	if (trace != NULL)
		trace(trace_arg, now_ns, r->f.rc_bps);
}

/* R_C was @p before: count and trace a change. */
static void
changed(struct cc_rp *r, double before, uint64_t now_ns)
{
	if (r->f.rc_bps == before)
		return;
	r->rate_changes++;
	if (r->trace != NULL)
		r->trace(r->trace_arg, now_ns, r->f.rc_bps);
}

bool
cc_rp_may_send(struct cc_rp *r, uint64_t now_ns)
{
	double before = r->f.rc_bps;

	if (cc_dcqcn_advance(&r->f, now_ns) > 0)
		changed(r, before, now_ns);
	/* at the line rate the link is the limit, as for a NIC's rate limiter */
	if (now_ns >= r->next_ns || r->f.rc_bps >= r->p->dcqcn.max_rate_bps) {
		if (r->limited) {
			r->limited_ns += now_ns - r->limited_since_ns;
			r->limited = false;
		}
		return true;
	}
	if (!r->limited) {
		r->limited = true;
		r->limited_since_ns = now_ns;
	}
	return false;
}

uint32_t
cc_rp_item_max(const struct cc_rp *r, uint32_t pmtu)
{
	/* at the line rate the pacer never holds an item back: no need to cut WRs small */
	if (r->f.rc_bps >= r->p->dcqcn.max_rate_bps)
		return UINT32_MAX;
	return r->p->item_pkts * pmtu;
}

void
cc_rp_sent(struct cc_rp *r, uint64_t wire_bytes, uint64_t now_ns)
{
	double before = r->f.rc_bps;
	/* credit banked while idle: at most burst_ns */
	uint64_t base = now_ns > r->p->burst_ns && r->next_ns < now_ns - r->p->burst_ns
				? now_ns - r->p->burst_ns
				: r->next_ns;

	if (r->f.rc_bps >= r->p->dcqcn.max_rate_bps)
		r->next_ns = now_ns; /* not paced: no debt for after a cut */
	else
		r->next_ns = base + (uint64_t)((double)wire_bytes * 8e9 / r->f.rc_bps);
	if (cc_dcqcn_on_sent(&r->f, wire_bytes) > 0)
		changed(r, before, now_ns);
}

void
cc_rp_cnp(struct cc_rp *r, uint64_t now_ns)
{
	double before = r->f.rc_bps;

	/* a NIC's rate_reduce_monitor_period: one cut per gap, however many CNPs come */
	if (r->cut && now_ns - r->last_cut_ns < r->p->cut_gap_ns) {
		r->cnps_ignored++;
		return;
	}
	r->cut = true;
	r->last_cut_ns = now_ns;
	cc_dcqcn_on_cnp(&r->f, now_ns);
	changed(r, before, now_ns);
}

uint64_t
cc_rp_limited_ns(const struct cc_rp *r, uint64_t now_ns)
{
	return r->limited_ns + (r->limited && now_ns > r->limited_since_ns
					? now_ns - r->limited_since_ns
					: 0);
}
