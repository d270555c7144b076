/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dm_txn's parts and what they share: main.c (options and the memory node),
 * compute.c (the compute node's transactions), zipf.c (key choice) and
 * loop_a.c (admission control).
 */
#ifndef DM_TXN_H
#define DM_TXN_H

#include <stdbool.h>
#include <stdint.h>

#include "ex.h"
#include "zipf.h"

#define REC	     64u
#define MAX_KEYS_TX  8u
#define MAX_CTX	     16u
#define BALANCE0     1000u
#define VAL_OFF	     16u /* lock 8, version 8, then the value */

struct rec {
	uint64_t lock, version, value[6];
};

/* the node; the TSC rate; the table's records */
extern struct ex_node N;
extern uint64_t hz, nrec;

/* a cluster (--config): memcached rendezvous, one memory node "mn0", compute nodes "cn<id>" */
extern struct ordk_cm_mc *mc;
extern struct ordk_cm_config cfg;
extern unsigned int node_id, idle_us;
extern double sync_s;

/* the compute node's workload (compute.c) */
extern struct zipf Z;
extern bool smallbank;
extern unsigned int keys_per_tx, write_pct;

int compute_main(const char *host, uint16_t cm_port, unsigned int nctx, double duration,
		 uint64_t ntx);

#endif /* DM_TXN_H */
