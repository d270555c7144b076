/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reaction point of one QP: DCQCN's rate state (cc_dcqcn) and a pacer that
 * releases the QP's send items at the current rate R_C, with the counters and
 * the rate trace. Pure C: no DPDK, no transport; the caller owns the clock (ns).
 *
 * The transport asks cc_rp_may_send() before each send item, makes the item no
 * longer than cc_rp_item_max() (a few packets while the rate is below the line
 * rate, so the rate can bite inside a large WR), and tells cc_rp_sent() the
 * item's bytes on the wire; a CNP for the QP goes to cc_rp_cnp().
 */
#ifndef CC_RP_H
#define CC_RP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc_dcqcn.h"

/** A device's congestion-control parameters: DCQCN's and the pacer's. */
struct cc_params {
	struct cc_dcqcn_params dcqcn;
	uint32_t item_pkts; /* packets per send item while the rate is below max_rate */
	uint64_t burst_ns;  /* sending time an idle QP may bank (a burst at R_C this long) */
	uint64_t cut_gap_ns; /* CNPs this soon after a cut are counted, not acted on (0: all act) */
};

/** DCQCN's defaults (cc_dcqcn_params_default()), items of 4 packets, 20 us of burst. */
void cc_params_default(struct cc_params *p);

/**
 * Parse "key=value[,...]" over @p p: every cc_dcqcn_params_parse() key, and
 * item_pkts (1..64), burst_us, cut_gap_us. Checked; @p p unchanged on error.
 * @return 0 or -EINVAL with the reason (naming the key) in @p err.
 */
int cc_params_parse(struct cc_params *p, const char *args, char *err, size_t errlen);

/** Write @p p as "key=value,..." (the parse keys, rates in bits/s). @return snprintf's. */
int cc_params_format(const struct cc_params *p, char *buf, size_t len);

/** Called with (arg, t_ns, rate_bps) whenever R_C changes. */
typedef void (*cc_rp_trace_fn)(void *arg, uint64_t t_ns, double rate_bps);

struct cc_rp {
	struct cc_dcqcn f;
	const struct cc_params *p; /* the device's, shared */
	uint64_t next_ns;	   /* the next item may leave then */
	uint64_t limited_since_ns; /* waiting on the rate since (when limited) */
	bool limited;
	/* counters */
	uint64_t rate_changes; /* R_C changed: cuts and increases */
	uint64_t cnps_ignored; /* within cut_gap_ns of the last cut */
	uint64_t last_cut_ns;
	bool cut;	       /* last_cut_ns is set */
	uint64_t limited_ns;   /* time a QP with an item to send waited on the rate */
	cc_rp_trace_fn trace;
	void *trace_arg;
};

/** A new QP's reaction point at max_rate, timers from @p now_ns; @p trace may be NULL. */
void cc_rp_init(struct cc_rp *r, const struct cc_params *p, uint64_t now_ns, cc_rp_trace_fn trace,
		void *trace_arg);

/**
 * Run DCQCN's timers to @p now_ns; @return true when an item may leave now.
 * A false answer starts (and a true one ends) a rate-limited interval.
 */
bool cc_rp_may_send(struct cc_rp *r, uint64_t now_ns);

/** Longest item, in bytes, for packets of @p pmtu: unlimited (UINT32_MAX) at max_rate. */
uint32_t cc_rp_item_max(const struct cc_rp *r, uint32_t pmtu);

/** An item of @p wire_bytes (headers included) left at @p now_ns: the next waits for it. */
void cc_rp_sent(struct cc_rp *r, uint64_t wire_bytes, uint64_t now_ns);

/** A CNP for this QP arrived (DCQCN's cut). */
void cc_rp_cnp(struct cc_rp *r, uint64_t now_ns);

/** Rate-limited time up to @p now_ns, the interval in progress included. */
uint64_t cc_rp_limited_ns(const struct cc_rp *r, uint64_t now_ns);

#endif /* CC_RP_H */
