/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control's glue in the Blue driver (blue_cc.h): the devargs, a
 * QP's reaction point, the counters (on the QP only: ordk_dev_stats() adds
 * the QPs'), the rate trace. lib/cc does the work.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "blue_args.h"
#include "blue_cc.h"
#include "blue_verbs.h"

RTE_LOG_REGISTER(blue_cc_logtype, ordk.blue.cc, NOTICE);
#define CC_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, blue_cc_logtype, "blue cc: " fmt "\n", ##__VA_ARGS__)

/* ---------------------------------------------------------------- devargs */

static struct blue_cc_args *
cc_args(void *arg, char *err, size_t errlen)
{
	struct blue_cc_args *a = ((struct blue_net_args *)arg)->cc;

	if (a == NULL)
		snprintf(err, errlen, "congestion-control keys: not taken here");
	return a;
}

int
blue_cc_arg_on(const char *v, void *arg, char *err, size_t errlen)
{
	struct blue_cc_args *a = cc_args(arg, err, errlen);
	uint64_t x;

	if (a == NULL)
		return -EINVAL;
	if (ordk_devargs_u64(v, 0, 1, &x) != 0) {
		snprintf(err, errlen, "'cc=%s': cc=0 or cc=1", v);
		return -EINVAL;
	}
	a->on = x != 0;
	return 0;
}

int
blue_cc_arg_trace(const char *v, void *arg, char *err, size_t errlen)
{
	struct blue_cc_args *a = cc_args(arg, err, errlen);

	if (a == NULL)
		return -EINVAL;
	if (*v == '\0' || strlen(v) >= sizeof(a->trace) || a->trace[0] != '\0') {
		snprintf(err, errlen, "'cc_trace=%s': a file name (once)", v);
		return -EINVAL;
	}
	snprintf(a->trace, sizeof(a->trace), "%s", v);
	return 0;
}

/* cc_<key>=value: lib/cc's parser checks the value and names the key. */
static int
cc_key(const char *key, const char *v, void *arg, char *err, size_t errlen)
{
	struct blue_cc_args *a = cc_args(arg, err, errlen);
	char kv[160];

	if (a == NULL)
		return -EINVAL;
	if ((size_t)snprintf(kv, sizeof(kv), "%s=%s", key, v) >= sizeof(kv)) {
		snprintf(err, errlen, "'cc_%s': value too long", key);
		return -EINVAL;
	}
	return cc_params_parse(&a->p, kv, err, errlen);
}

#define CC_KEY_FN(k)                                                          \
	int blue_cc_arg_##k(const char *v, void *arg, char *err, size_t errlen) \
	{                                                                     \
		return cc_key(#k, v, arg, err, errlen);                       \
	}
BLUE_CC_KEYS(CC_KEY_FN)
#undef CC_KEY_FN

void
blue_cc_args_default(struct blue_cc_args *a)
{
	memset(a, 0, sizeof(*a));
	cc_params_default(&a->p);
}

int
blue_cc_open(struct blue_dev *dev, const struct blue_cc_args *a)
{
	dev->cc = a->p;
	dev->cc_on = a->on;
	dev->cc_trace = NULL;
	if (a->trace[0] == '\0')
		return 0;
	dev->cc_trace = fopen(a->trace, "w");
	if (dev->cc_trace == NULL) {
		CC_LOG(ERR, "%s: cc_trace=%s: cannot open: %s", dev->vdev.name, a->trace,
		       strerror(errno));
		return -EINVAL;
	}
	fprintf(dev->cc_trace, "t_ns,source,metric,value\n");
	return 0;
}

void
blue_cc_close(struct blue_dev *dev)
{
	if (dev->cc_trace != NULL)
		fclose(dev->cc_trace);
	dev->cc_trace = NULL;
}

/* ------------------------------------------------------------- the QPs */

/*
 * The poll's wall clock (dev->rc.wall_tsc, read once per poll) in ns: a rate
 * is bytes per second of the link, which runs on while the application does
 * not poll, so pacing and DCQCN's timers keep wall time, not the transport's
 * polling time (rc_ptime()).
 */
static uint64_t
cc_now(const struct blue_dev *dev)
{
	return (uint64_t)((double)dev->rc.wall_tsc * 1e9 / (double)dev->rc.tsc_hz);
}

static void
trace_row(void *arg, uint64_t t_ns, double rate_bps)
{
	struct blue_qp *qp = arg;

	if (blue_qp_dev(qp)->cc_trace != NULL)
		fprintf(blue_qp_dev(qp)->cc_trace, "%" PRIu64 ",qp%u,rate_bps,%.0f\n", t_ns, qp->vqp.qpn,
			rate_bps);
	verbs_trace(blue_qp_handle(qp), VERBS_TRACE_rate, 0, (uint64_t)rate_bps);
}

void
blue_cc_qp_init(struct blue_qp *qp, bool on)
{
	qp->cc_on = on;
	if (on)
		cc_rp_init(&qp->cc, &blue_qp_dev(qp)->cc, cc_now(blue_qp_dev(qp)), trace_row, qp);
}

/* What the reaction point's own counters moved since @p changes0 / @p limited0. */
static void
count(struct blue_qp *qp, uint64_t changes0, uint64_t limited0)
{
	qp->vqp.st.cc_rate_changes += qp->cc.rate_changes - changes0;
	qp->vqp.st.cc_limited_ns += qp->cc.limited_ns - limited0;
}

bool
blue_cc_gate(struct blue_qp *qp, uint32_t pmtu, uint32_t *cap)
{
	uint64_t c0 = qp->cc.rate_changes, l0 = qp->cc.limited_ns;
	bool ok = cc_rp_may_send(&qp->cc, cc_now(blue_qp_dev(qp)));
	uint32_t max = cc_rp_item_max(&qp->cc, pmtu);

	count(qp, c0, l0);
	if (max < *cap)
		*cap = max;
	return ok;
}

void
blue_cc_sent(struct blue_qp *qp, uint32_t bytes, uint32_t pkts)
{
	uint64_t c0 = qp->cc.rate_changes, l0 = qp->cc.limited_ns;

	cc_rp_sent(&qp->cc, (uint64_t)bytes + (uint64_t)pkts * (BLUE_WIRE_RDMA_HLEN + 4u),
		   cc_now(blue_qp_dev(qp)));
	count(qp, c0, l0);
}

void
blue_cc_cnp(struct blue_qp *qp)
{
	uint64_t c0 = qp->cc.rate_changes, l0 = qp->cc.limited_ns;

	qp->vqp.st.cnps++;
	verbs_trace(blue_qp_handle(qp), VERBS_TRACE_cnp, 0, qp->vqp.st.cnps);
	if (!qp->cc_on)
		return;
	cc_rp_cnp(&qp->cc, cc_now(blue_qp_dev(qp)));
	count(qp, c0, l0);
}

int
blue_qp_cc_enable(struct ordk_qp *oqp, bool on)
{
	struct blue_qp *qp = to_bqp(oqp);

	if (verbs_qp_is_ud(&qp->vqp))
		return -ENOTSUP; /* datagrams are not paced */
	blue_cc_qp_init(qp, on);
	return 0;
}

int
blue_qp_cc_query(const struct ordk_qp *oqp, struct ordk_qp_cc *cc)
{
	const struct blue_qp *qp = to_bqp_const(oqp);

	if (verbs_qp_is_ud(&qp->vqp))
		return -ENOTSUP;
	cc->on = qp->cc_on;
	cc_params_format(&blue_qp_dev(qp)->cc, cc->params, sizeof(cc->params));
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
	cc->limited_ns = cc_rp_limited_ns(&qp->cc, cc_now(blue_qp_dev(qp)));
	return 0;
}
