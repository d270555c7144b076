/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-testpmd: a console in testpmd's manner over two local ORDK devices
 * (bluesim on a net_ring pair). tp.c owns the devices and the traffic;
 * tp_cmds.c is the command table (DPDK's cmdline library).
 */
#ifndef ORDK_TP_H
#define ORDK_TP_H

#include <stdbool.h>
#include <stdint.h>

#include <cmdline_parse.h>

#include "ordk_env.h"
#include "ordk_verbs.h"

#define TP_SIDES   2
#define TP_MAX_QPS 16u
#define TP_BUF	   (16u << 20)
#define TP_DEPTH   64u

enum tp_op { TP_WRITE = 0, TP_READ, TP_SEND };

struct tp_side {
	ORDK_ENV_EP_MEMBER; /* dev, attr, pd, cq, mr, buf (TP_BUF bytes) */
	uint16_t port;
	uint32_t cqe;
	struct ordk_qp *qp[TP_MAX_QPS];
	uint64_t cq_polled, cq_errors; /* completions this console took from the CQ */
};

/* ethdev counters at a point in time (forward statistics are differences) */
struct tp_eth_snap {
	uint64_t ipackets, opackets, imissed, oerrors, ibytes, obytes;
};

struct tp {
	struct tp_side s[TP_SIDES];
	uint32_t nqp;		/* QP pairs made so far */
	/* traffic: side 0 requests, side 1 responds */
	bool running;
	enum tp_op op;
	uint32_t size, qps;
	uint64_t outstanding[TP_MAX_QPS];
	uint64_t done, bytes, errors;
	double t0, t1;
	struct tp_eth_snap start_stats[TP_SIDES], last_show[TP_SIDES];
	double last_show_t[TP_SIDES]; /* 0: never shown (testpmd's first sample is 0) */
	char faults[4][40];	      /* the faults set, "drop-tx:0.02" (shown until cleared) */
	bool quit;
};

extern struct tp tp;

/** Two devices on a net_ring pair, PDs, CQs, MRs and one QP pair. @return 0 or -1. */
int tp_init(const char *extra_devargs);
void tp_fini(void);
/** Poll both devices and move the traffic on. */
void tp_step(void);

/* what the commands do (each prints its result to stdout) */
void tp_show_device(void);
/** @p port: an ethdev port, or -1 for all. */
void tp_show_port_stats(int port);
void tp_show_port_info(int port);
void tp_show_fwd_stats(void);
void tp_clear_port_stats(int port);
void tp_show_port_xstats(void);
void tp_show_qp(bool one, uint32_t qpn);
void tp_show_mr(void);
void tp_show_cq(void);
void tp_show_traffic(void);
int tp_set_fault(const char *kind, const char *rate, const char *dir);
int tp_start(const char *op, uint32_t size, uint32_t qps);
void tp_stop(void);
void tp_clear_stats(void);
/** Keep everything polled for @p seconds, with a tally line a second when traffic runs. */
int tp_sleep(const char *seconds);

/** The command table for cmdline. */
extern cmdline_parse_ctx_t tp_cmd_ctx[];

#endif /* ORDK_TP_H */
