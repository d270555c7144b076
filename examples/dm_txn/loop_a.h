/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AdaptX's Loop A for dm_txn: admission control driven by the abort rate,
 * AIMD (additive increase, multiplicative decrease) every period.
 *   worker: one window of transactions in flight for the whole compute node
 *           (AdaptX's Loop A as published);
 *   key:    a window per key (the seed's suggested fix): a transaction waits
 *           before it starts while one of its keys has as many transactions
 *           in flight as that key's window allows; only keys that abort get
 *           small windows, so the rest of the workload is left alone.
 */
#ifndef DM_TXN_LOOP_A_H
#define DM_TXN_LOOP_A_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum la_mode { LA_OFF, LA_WORKER, LA_KEY };

struct la_cfg {
	enum la_mode mode;
	unsigned int ai_step;	/* --loop_a_ai_step: added to a window per calm period */
	unsigned int nf;	/* --loop_a_nf: a window is divided by it per hot period */
	double hi;		/* abort rate above which a period is hot */
	double period_s;	/* the control period */
	unsigned int max;	/* the widest window: the contexts */
};

void la_init(const struct la_cfg *cfg);
/* May a transaction on @p keys start now? If so, it is counted in flight. */
bool la_admit(const uint64_t *keys, unsigned int n);
/* The transaction admitted on @p keys ended. */
void la_done(const uint64_t *keys, unsigned int n, bool committed);
/* Run the control loop when a period passed (@p now in seconds). */
void la_tick(double now);
/* One line: the mode, the periods, the windows now. */
void la_report(FILE *f);

#endif /* DM_TXN_LOOP_A_H */
