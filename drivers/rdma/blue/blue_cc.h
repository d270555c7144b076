/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control in the Blue driver (doc/guides/prog_guide/congestion.md): the
 * devargs (cc=, cc_<key>=, cc_trace=), each QP's reaction point (lib/cc's
 * cc_rp: DCQCN and the pacer), its counters and the rate trace. The
 * transport calls blue_cc_gate() / blue_cc_sent() around each send item and
 * blue_cc_cnp() for a Cnp report.
 */
#ifndef BLUE_CC_H
#define BLUE_CC_H

#include <stdbool.h>
#include <stdint.h>

#include "cc_rp.h"

struct blue_dev;
struct blue_qp;
struct ordk_qp;
struct ordk_qp_cc;

/** What the devargs say (blue_net_args.cc), before the device is up. */
struct blue_cc_args {
	struct cc_params p;
	bool on;	 /* cc=1: new QPs start with it on */
	char trace[256]; /* cc_trace=FILE, or "" */
};

/** DCQCN's defaults, off, no trace. */
void blue_cc_args_default(struct blue_cc_args *a);
/** The device takes @p a's settings; opens the trace. @return 0 or -EINVAL. */
int blue_cc_open(struct blue_dev *dev, const struct blue_cc_args *a);
void blue_cc_close(struct blue_dev *dev);

void blue_cc_qp_init(struct blue_qp *qp, bool on);
/** May the next item go now? *cap: at most this many bytes (a few packets when paced). */
bool blue_cc_gate(struct blue_qp *qp, uint32_t pmtu, uint32_t *cap);
/** An item of @p bytes in @p pkts packets went to the Send ring. */
void blue_cc_sent(struct blue_qp *qp, uint32_t bytes, uint32_t pkts);
/** A Cnp report for @p qp. */
void blue_cc_cnp(struct blue_qp *qp);

/* the ops behind ordk_qp_cc_enable() / ordk_qp_cc_query() */
int blue_qp_cc_enable(struct ordk_qp *qp, bool on);
int blue_qp_cc_query(const struct ordk_qp *qp, struct ordk_qp_cc *cc);

#endif /* BLUE_CC_H */
