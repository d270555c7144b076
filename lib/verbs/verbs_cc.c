/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control's glue (doc/guides/congestion.md): the devargs, a QP's
 * reaction point (lib/cc's cc_rp: DCQCN and the pacer), the counters, the
 * rate trace. The transport calls verbs_cc_gate() / verbs_cc_sent() around
 * each send item and verbs_cc_cnp() for a Cnp report; lib/cc does the work.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>

#include "verbs_internal.h"

/* The poll's clock (dev->rc.now) in ns: the transport reads the TSC once per poll. */
static uint64_t
cc_now(const struct ordk_dev *dev)
{
	return (uint64_t)((double)dev->rc.now * 1e9 / (double)dev->rc.tsc_hz);
}

/*
 * cc=0|1 (new QPs' default), cc_<key>=value for every cc_params_parse() key
 * (cc_rai=40M, cc_timer_us=55, ...), cc_trace=FILE. Other keys are not ours.
 */
int
verbs_cc_devargs(struct ordk_dev *dev, const char *devargs)
{
	char kv[160], err[160];
	const char *p;

	cc_params_default(&dev->cc);
	for (p = devargs; p != NULL && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t n = strcspn(p, ",");

		if (strncmp(p, "cc", 2) != 0 || (p[2] != '=' && p[2] != '_'))
			continue;
		if (n >= sizeof(kv)) {
			VERBS_LOG(ERR, "devargs: '%.*s' too long", (int)n, p);
			return -EINVAL;
		}
		memcpy(kv, p, n);
		kv[n] = '\0';
		if (strcmp(kv, "cc=0") == 0 || strcmp(kv, "cc=1") == 0) {
			dev->cc_on = kv[3] == '1';
		} else if (strncmp(kv, "cc_trace=", 9) == 0) {
			if (dev->cc_trace != NULL || (dev->cc_trace = fopen(kv + 9, "w")) == NULL) {
				VERBS_LOG(ERR, "devargs: %s: cannot open (or given twice)", kv);
				return -EINVAL;
			}
			fprintf(dev->cc_trace, "t_ns,source,metric,value\n");
		} else if (kv[2] != '_' || cc_params_parse(&dev->cc, kv + 3, err, sizeof(err)) != 0) {
			VERBS_LOG(ERR, "devargs: %s: %s", kv,
				  kv[2] == '_' ? err : "cc=0 or cc=1");
			return -EINVAL;
		}
	}
	return 0;
}

void
verbs_cc_close(struct ordk_dev *dev)
{
	if (dev->cc_trace != NULL)
		fclose(dev->cc_trace);
	dev->cc_trace = NULL;
}

static void
trace_row(void *arg, uint64_t t_ns, double rate_bps)
{
	struct ordk_qp *qp = arg;

	if (qp->dev->cc_trace != NULL)
		fprintf(qp->dev->cc_trace, "%" PRIu64 ",qp%u,rate_bps,%.0f\n", t_ns, qp->qpn,
			rate_bps);
}

void
verbs_cc_qp_init(struct ordk_qp *qp, bool on)
{
	qp->cc_on = on;
	if (on)
		cc_rp_init(&qp->cc, &qp->dev->cc, cc_now(qp->dev), trace_row, qp);
}

/* What the reaction point's own counters moved since @p changes0 / @p limited0. */
static void
count(struct ordk_qp *qp, uint64_t changes0, uint64_t limited0)
{
	uint64_t dc = qp->cc.rate_changes - changes0, dl = qp->cc.limited_ns - limited0;

	qp->st.cc_rate_changes += dc;
	qp->dev->st.cc_rate_changes += dc;
	qp->st.cc_limited_ns += dl;
	qp->dev->st.cc_limited_ns += dl;
}

/* May the next item go now? *cap: at most this many bytes (a few packets when paced). */
bool
verbs_cc_gate(struct ordk_qp *qp, uint32_t pmtu, uint32_t *cap)
{
	uint64_t c0 = qp->cc.rate_changes, l0 = qp->cc.limited_ns;
	bool ok = cc_rp_may_send(&qp->cc, cc_now(qp->dev));
	uint32_t max = cc_rp_item_max(&qp->cc, pmtu);

	count(qp, c0, l0);
	if (max < *cap)
		*cap = max;
	return ok;
}

/* An item of @p bytes in @p pkts packets went to the Send ring. */
void
verbs_cc_sent(struct ordk_qp *qp, uint32_t bytes, uint32_t pkts)
{
	uint64_t c0 = qp->cc.rate_changes, l0 = qp->cc.limited_ns;

	cc_rp_sent(&qp->cc, (uint64_t)bytes + (uint64_t)pkts * (ORDK_WIRE_RDMA_HLEN + 4u),
		   cc_now(qp->dev));
	count(qp, c0, l0);
}

/* A Cnp report for @p qp. */
void
verbs_cc_cnp(struct ordk_qp *qp)
{
	uint64_t c0 = qp->cc.rate_changes, l0 = qp->cc.limited_ns;

	qp->st.cnps++;
	qp->dev->st.cnps++;
	if (!qp->cc_on)
		return;
	cc_rp_cnp(&qp->cc, cc_now(qp->dev));
	count(qp, c0, l0);
}

int
ordk_qp_cc_enable(struct ordk_qp *qp, bool on)
{
	if (!qp_live(qp))
		return -EINVAL;
	verbs_cc_qp_init(qp, on);
	return 0;
}

int
ordk_qp_cc_query(const struct ordk_qp *qp, struct ordk_qp_cc *cc)
{
	if (!qp_live(qp) || cc == NULL)
		return -EINVAL;
	memset(cc, 0, sizeof(*cc));
	cc->on = qp->cc_on;
	cc_params_format(&qp->dev->cc, cc->params, sizeof(cc->params));
	if (!qp->cc_on) {
		cc->stage = "off";
		return 0;
	}
	cc->rate_bps = qp->cc.f.rc_bps;
	cc->target_bps = qp->cc.f.rt_bps;
	cc->alpha = qp->cc.f.alpha;
	cc->stage = cc_dcqcn_stage_name[qp->cc.f.stage];
	cc->t_count = qp->cc.f.t_count;
	cc->bc_count = qp->cc.f.bc_count;
	cc->cnps = qp->cc.f.cnps;
	cc->rate_changes = qp->cc.rate_changes;
	cc->limited_ns = cc_rp_limited_ns(&qp->cc, cc_now(qp->dev));
	return 0;
}
