/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry's internals (verbs_tele.c, verbs_tele_ep.c): a device's entry in
 * the process's registry, the request a telemetry thread hands to the
 * device's poll, and the copies the poll puts in it. The design is in
 * verbs_tele.c's opening comment.
 */
#ifndef VERBS_TELE_H
#define VERBS_TELE_H

#include <stdbool.h>
#include <stdint.h>

#include "ordk_driver.h"
#include "ordk_verbs.h"

struct rte_tel_data;

/* A device's request slot: the telemetry side asks, the device's poll answers. */
enum tele_state {
	TELE_IDLE,    /* no request */
	TELE_ASKED,   /* set by the asker (release): req is valid */
	TELE_SERVING, /* claimed by the poll (ASKED -> SERVING): the asker may not withdraw */
	TELE_DONE,    /* answered (release): the asker reads req, then sets IDLE */
};

/* What a request asks for (each endpoint asks one of them). */
enum tele_kind {
	TELE_DEV,    /* object counts */
	TELE_STATS,  /* ordk_dev_stats() */
	TELE_QPS,    /* every QP number */
	TELE_QP,     /* one QP: info, attributes, congestion control, counters */
	TELE_MRS,    /* every MR */
	TELE_XSTATS, /* ordk_dev_xstats() */
	TELE_TRACE,  /* a page of one QP's timeline (verbs_trace.c) */
};

/* One event of a QP's timeline (ordk_driver.h's VERBS_TRACE_EVENTS). */
struct verbs_trace_rec {
	uint64_t tsc;
	uint64_t b;
	uint32_t a;
	uint32_t ev; /* enum verbs_trace_ev */
};

/* The ring: event number s (0, 1, ... since the QP was created) in rec[s & mask]. */
struct verbs_trace {
	uint64_t recorded; /* events so far: the next one's number */
	uint32_t mask;	   /* depth - 1 (a power of two) */
	struct verbs_trace_rec rec[];
};

#define TELE_TRACE_PAGE 64u /* events in one /ordk/qp/trace reply (about 130 bytes each) */

#define TELE_XSTATS_MAX 256u
#define TELE_XNAME_LEN	64u

struct tele_mr {
	uint64_t addr, length;
	uint32_t lkey, rkey, access, pd;
};

struct tele_qp {
	struct ordk_qp_info info;
	struct ordk_qp_attr attr;
	uint32_t max_send_wr, max_recv_wr;
	struct ordk_qp_cc cc;
	int cc_rc; /* ordk_qp_cc_query()'s: 0 or -ENOTSUP */
	struct ordk_stats st;
};

/* A request and its answer; the asker allocates the arrays (their capacity in n). */
struct tele_req {
	enum tele_kind kind;
	uint32_t qpn; /* TELE_QP */
	int rc;	      /* the answer: 0, or -ENOENT (no such QP) */
	union {
		struct {
			uint32_t nqp, ncq, nmr, npd;
		} dev;
		struct ordk_stats st;
		struct {
			uint32_t n, cap;
			uint32_t *qpn;
		} qps;
		struct tele_qp qp;
		struct {
			uint32_t n, cap;
			struct tele_mr *mr;
		} mrs;
		struct {
			uint32_t n;
			char (*name)[TELE_XNAME_LEN];
			uint64_t *value;
		} xs;
		struct {
			uint64_t from;	   /* asked: the first event number wanted */
			uint64_t first;	   /* answered: the first one copied (> from: lost) */
			uint64_t recorded; /* events the QP recorded so far */
			uint64_t now_tsc;
			uint32_t depth, n; /* the ring's size (0: no timeline), events copied */
			struct verbs_trace_rec rec[TELE_TRACE_PAGE];
		} tr;
	};
};

/* A device in the registry (malloc'ed: outside DPDK's memory, read by the telemetry threads). */
struct verbs_tele {
	uint32_t state;		 /* enum tele_state: the only word both sides write */
	uint32_t refs;		 /* callbacks holding the entry (reg_lock) */
	struct tele_req *req;	 /* while ASKED .. DONE */
	struct ordk_dev *dev;
	char driver[16];
	struct ordk_dev_attr attr; /* copied at open: what needs no answer */
	uint64_t epoch_tsc;	 /* the process's first ordk_dev_open(): timelines count from it */
	struct verbs_tele *next;
};

/** Run @p r on @p t's device lcore at its next poll, and wait. @return 0 or -ETIMEDOUT. */
int tele_ask(struct verbs_tele *t, struct tele_req *r);
/** The answer to @p r, on the device's lcore (verbs_tele_ep.c). */
void tele_answer(struct ordk_dev *dev, struct tele_req *r);
/** The device named @p name (or numbered, in open order), referenced; NULL if none. */
struct verbs_tele *tele_get(const char *name, bool by_index);
/** The @p i-th device (open order), referenced; NULL past the last. */
struct verbs_tele *tele_get_nth(unsigned int i);
void tele_put(struct verbs_tele *t);
/** A dict holding {"error": message}. @return 0 (what a callback returns). */
int tele_error(struct rte_tel_data *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Register the endpoints of verbs_tele_ep.c and verbs_trace.c (once per process). */
void tele_register_endpoints(void);
/**
 * "[<dev>,]<qpn>[,...]": the device named (*@p t, referenced) or NULL (the one
 * that has the QP), the QP number into r->qpn, what follows into *@p rest.
 * @return 0, or -1 with the error in @p d.
 */
int tele_qp_parse(const char *params, struct tele_req *r, struct rte_tel_data *d,
		  struct verbs_tele **t, const char **rest);
/** Ask @p r of @p t's device, or of the one device that has r->qpn. @return it, or NULL (error in @p d). */
struct verbs_tele *tele_qp_ask(struct verbs_tele *t, struct tele_req *r, struct rte_tel_data *d);
/** A page of a QP's timeline into r->tr, on the device's lcore (verbs_trace.c). */
void tele_answer_trace(struct ordk_dev *dev, struct tele_req *r);
/** /ordk/qp/trace (verbs_trace.c). */
int tele_ep_qp_trace(const char *cmd, const char *params, struct rte_tel_data *d);

/** Milliseconds a request waits for the device's poll. */
#define TELE_WAIT_MS 250u

#endif /* VERBS_TELE_H */
