/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A QP's event timeline (ordk_driver.h's VERBS_TRACE_EVENTS;
 * doc/guides/tools/operations.md): a ring of the transport's events (state
 * changes, NAKs sent and received, retransmissions, timeouts, failures,
 * CNPs, rate changes) with their TSC, kept per QP when the device's
 * trace_depth is set (the driver's trace= devarg), the oldest overwritten.
 * Only the device's lcore writes it, and only the lcore reads it: the
 * /ordk/qp/trace endpoint asks the device's poll for a page (verbs_tele.c),
 * so a page is a consistent copy; events are numbered from 0, and a reader
 * that asks from the number after its last page sees how many it lost.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_telemetry.h>

#include "verbs_internal.h"
#include "verbs_tele.h"

#define TRACE_DEPTH_MAX 65536u

static const char *const ev_names[VERBS_TRACE_COUNT] = {
#define EV_NAME(n) #n,
	VERBS_TRACE_EVENTS(EV_NAME)
#undef EV_NAME
};

int
verbs_trace_qp_init(struct verbs_qp *qp, uint32_t depth)
{
	uint32_t n = 1;

	if (depth == 0)
		return 0;
	while (n < depth && n < TRACE_DEPTH_MAX)
		n <<= 1;
	qp->trace = calloc(1, sizeof(*qp->trace) + n * sizeof(qp->trace->rec[0]));
	if (qp->trace == NULL)
		return -ENOMEM;
	qp->trace->mask = n - 1;
	return 0;
}

void
verbs_trace_qp_fini(struct verbs_qp *qp)
{
	free(qp->trace);
	qp->trace = NULL;
}

/* What event @p e says, in words. */
static void
trace_what(char *buf, size_t len, const struct verbs_trace_rec *e)
{
	switch (e->ev) {
	case VERBS_TRACE_state:
		snprintf(buf, len, "%s -> %s", ordk_qp_state_str((enum ordk_qp_state)e->a),
			 ordk_qp_state_str((enum ordk_qp_state)e->b));
		break;
	case VERBS_TRACE_nak_sent:
		snprintf(buf, len, "asked for PSNs 0x%06x..0x%06" PRIx64, e->a, (e->b - 1) & 0xFFFFFF);
		break;
	case VERBS_TRACE_nak_received:
		snprintf(buf, len, "PSNs within 0x%06x..0x%06" PRIx64 " reported lost", e->a,
			 (e->b - 1) & 0xFFFFFF);
		break;
	case VERBS_TRACE_retransmit:
		snprintf(buf, len, "%" PRIu64 " packets again from PSN 0x%06x", e->b, e->a);
		break;
	case VERBS_TRACE_timeout:
		snprintf(buf, len, "no ACK past PSN 0x%06x (%" PRIu64 " timeouts before)", e->a, e->b);
		break;
	case VERBS_TRACE_error:
		snprintf(buf, len, "%s: QP to ERR", ordk_wc_status_str((enum ordk_wc_status)e->a));
		break;
	case VERBS_TRACE_cnp:
		snprintf(buf, len, "CNP (%" PRIu64 " so far)", e->b);
		break;
	case VERBS_TRACE_rate:
		snprintf(buf, len, "rate %.3f Gb/s", (double)e->b * 1e-9);
		break;
	default:
		snprintf(buf, len, "?");
	}
}

/* The event, in words, as the comment of the next frame of the device's wire capture. */
static void
trace_note(const struct verbs_qp *qp, const struct verbs_trace_rec *r)
{
	char what[96], line[160];

	trace_what(what, sizeof(what), r);
	snprintf(line, sizeof(line), "ordk: qp 0x%06x %s: %s", qp->qpn, ev_names[r->ev], what);
	vdev(qp->dev)->trace_note(qp->dev, line);
}

void
verbs_trace_add(struct verbs_qp *qp, enum verbs_trace_ev ev, uint32_t a, uint64_t b)
{
	struct verbs_trace *t = qp->trace;
	struct verbs_trace_rec *r = &t->rec[t->recorded++ & t->mask];

	r->tsc = rte_get_tsc_cycles();
	r->a = a;
	r->b = b;
	r->ev = ev;
	if (vdev(qp->dev)->trace_note != NULL)
		trace_note(qp, r);
}

/* ------------------------------------------------- the device's lcore */

void
tele_answer_trace(struct ordk_dev *dev, struct tele_req *r)
{
	struct ordk_qp *oqp = verbs_qp_lookup(dev, r->qpn);
	const struct verbs_trace *t;
	uint64_t oldest;

	r->tr.now_tsc = rte_get_tsc_cycles();
	r->tr.n = 0;
	if (oqp == NULL) {
		r->rc = -ENOENT;
		return;
	}
	t = vqp(oqp)->trace;
	r->tr.depth = t != NULL ? t->mask + 1 : 0;
	if (t == NULL)
		return;
	r->tr.recorded = t->recorded;
	oldest = t->recorded > t->mask + 1 ? t->recorded - (t->mask + 1) : 0;
	r->tr.first = r->tr.from > oldest ? r->tr.from : oldest;
	for (uint64_t s = r->tr.first; s < t->recorded && r->tr.n < TELE_TRACE_PAGE; s++)
		r->tr.rec[r->tr.n++] = t->rec[s & t->mask];
}

/* ------------------------------------------------- the telemetry thread */

static uint64_t
tsc_ns(uint64_t tsc, uint64_t since)
{
	return tsc > since ? (uint64_t)((double)(tsc - since) * 1e9 / (double)rte_get_tsc_hz()) : 0;
}

/*
 * {"dev", "qpn", "depth", "recorded", "lost", "next", "now_ns", "events": {<number>:
 * {"t_ns", "event", "a", "b", "what"}}}: the events from number <from> on (at most
 * TELE_TRACE_PAGE); times in ns since the process opened its first device
 * (one origin for every device's QPs); "lost": events
 * from <from> the ring had overwritten; "next": ask from it for the rest.
 */
int
tele_ep_qp_trace(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct tele_req r = { .kind = TELE_TRACE };
	struct verbs_tele *t;
	struct rte_tel_data *evs;
	const char *rest;

	RTE_SET_USED(cmd);
	if (tele_qp_parse(params, &r, d, &t, &rest) != 0)
		return 0;
	if (rest != NULL) {
		char *end;

		r.tr.from = strtoull(rest, &end, 10);
		if (*rest == '\0' || *rest == '-' || *end != '\0') {
			tele_error(d, "'%s': [<device>,]<qpn>[,<from event>]", params);
			if (t != NULL)
				tele_put(t);
			return 0;
		}
	}
	t = tele_qp_ask(t, &r, d);
	if (t == NULL)
		return 0;
	if (r.tr.depth == 0) {
		tele_error(d, "QP 0x%06x keeps no timeline: open %s with trace=1", r.qpn,
			   t->attr.name);
		tele_put(t);
		return 0;
	}
	evs = rte_tel_data_alloc();
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "dev", t->attr.name);
	rte_tel_data_add_dict_u64(d, "qpn", r.qpn);
	rte_tel_data_add_dict_u64(d, "depth", r.tr.depth);
	rte_tel_data_add_dict_u64(d, "recorded", r.tr.recorded);
	rte_tel_data_add_dict_u64(d, "lost", r.tr.first - r.tr.from);
	rte_tel_data_add_dict_u64(d, "next", r.tr.first + r.tr.n);
	rte_tel_data_add_dict_u64(d, "now_ns", tsc_ns(r.tr.now_tsc, t->epoch_tsc));
	if (evs != NULL) {
		rte_tel_data_start_dict(evs);
		for (uint32_t i = 0; i < r.tr.n; i++) {
			const struct verbs_trace_rec *e = &r.tr.rec[i];
			struct rte_tel_data *one = rte_tel_data_alloc();
			char key[24], what[96];

			if (one == NULL)
				break;
			snprintf(key, sizeof(key), "%" PRIu64, r.tr.first + i);
			rte_tel_data_start_dict(one);
			rte_tel_data_add_dict_u64(one, "t_ns", tsc_ns(e->tsc, t->epoch_tsc));
			rte_tel_data_add_dict_string(one, "event",
						     e->ev < VERBS_TRACE_COUNT ? ev_names[e->ev] : "?");
			rte_tel_data_add_dict_u64(one, "a", e->a);
			rte_tel_data_add_dict_u64(one, "b", e->b);
			trace_what(what, sizeof(what), e);
			rte_tel_data_add_dict_string(one, "what", what);
			rte_tel_data_add_dict_container(evs, key, one, 0);
		}
		rte_tel_data_add_dict_container(d, "events", evs, 0);
	}
	tele_put(t);
	return 0;
}
