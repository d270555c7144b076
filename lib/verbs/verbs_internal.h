/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Internals of lib/verbs and lib/rc: the objects behind ordk_verbs.h.
 * A device owns everything; one lcore drives it (ordk_dev_poll()).
 */
#ifndef VERBS_INTERNAL_H
#define VERBS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/queue.h>

#include <rte_hash.h>
#include <rte_log.h>

#include "blue_dev.h"
#include "cc_rp.h"
#include "mem_internal.h"
#include "ordk_verbs.h"
#include "ordk_wire.h"
#include "rc.h"

extern int ordk_verbs_logtype;
#define VERBS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ordk_verbs_logtype, "ordk.verbs: " fmt "\n", ##__VA_ARGS__)

#define ORDK_MAX_QP_WR	  4096u
#define ORDK_MAX_CQE	  (1u << 20)
#define ORDK_MAX_CQ	  65536u /* CQs and PDs are software: bounded to what query says */
#define ORDK_MAX_PD	  65536u

struct ordk_mr_int;

#define VERBS_EVENTS 256u /* asynchronous events waiting for the application */

struct ordk_dev {
	struct blue_dev hw;
	char name[32];
	struct mem_keys mr_keys;
	struct mem_pgt pgt;
	struct mem_pins pins;
	struct mem_keys qp_keys;
	struct rte_hash *qp_table;		  /* qpn -> struct ordk_qp * */
	struct ordk_mr_int *mr_by_slot[BLUE_MAX_MR]; /* responder-side rkey checks */
	uint32_t npd, nmr, ncq, nqp;
	struct rc_engine rc;		  /* the transport's engine (lib/rc/rc.h) */
	struct ordk_rc_stats st;
	/* asynchronous events (verbs_event.c) */
	bool cq_error;		  /* a CQ went to error: its QPs go to ERR at the next poll */
	struct ordk_async_event ev[VERBS_EVENTS];
	uint32_t ev_head, ev_count;
	void (*ev_cb)(struct ordk_dev *dev, const struct ordk_async_event *ev, void *arg);
	void *ev_arg;
	/* congestion control (verbs_cc.c): devargs cc=, cc_*= */
	struct cc_params cc;
	bool cc_on;		  /* new QPs start with it on */
	FILE *cc_trace;		  /* cc_trace=FILE: every QP's rate changes, trace CSV */
};

/*
 * Handles (verbs_handle.c): objects live in an arena whose addresses are never
 * reused; a handle is live while its object's magic is in place.
 */
#define VERBS_MAGIC_PD 0x4B445050u /* "PPDK" */
#define VERBS_MAGIC_MR 0x4B44524Du
#define VERBS_MAGIC_CQ 0x4B445143u
#define VERBS_MAGIC_QP 0x4B445051u
void *verbs_handle_alloc(size_t size, size_t align);
void verbs_handle_free(void *obj, size_t size);
bool verbs_handle_live(const void *h, size_t magic_off, uint32_t magic);
#define VERBS_LIVE(h, type, m) verbs_handle_live((h), offsetof(type, magic), (m))
#define pd_live(pd) VERBS_LIVE(pd, struct ordk_pd, VERBS_MAGIC_PD)
#define mr_live(mr) VERBS_LIVE(mr, struct ordk_mr_int, VERBS_MAGIC_MR)
#define cq_live(cq) VERBS_LIVE(cq, struct ordk_cq, VERBS_MAGIC_CQ)
#define qp_live(qp) VERBS_LIVE(qp, struct ordk_qp, VERBS_MAGIC_QP)

struct ordk_pd {
	uint32_t magic;
	struct ordk_dev *dev;
	uint32_t refs;
	uint32_t handle;
};

struct ordk_mr_int {
	struct ordk_mr pub;
	uint32_t magic;
	uint32_t pgt_start;
	uint32_t pgt_n;
	uint64_t iova; /* where the device sees addr (identity with the model) */
};

struct ordk_cq {
	uint32_t magic;
	struct ordk_dev *dev;
	struct ordk_wc *wc;
	uint32_t size;
	uint32_t head;	/* oldest */
	uint32_t count;
	uint32_t refs;
	bool error;	/* overflowed: see ordk_cq_poll() */
};

struct ordk_qp {
	uint32_t magic;
	struct ordk_dev *dev;
	struct ordk_pd *pd;
	struct ordk_cq *scq, *rcq;
	void *ctx;
	uint32_t qpn;
	struct ordk_qp_attr attr;
	struct ordk_qp_init_attr init;
	bool cc_on;		   /* DCQCN paces this QP, its data goes out ECT(0) */
	struct cc_rp cc;
	/* the transport (lib/rc/rc.h), in rxe's parts */
	struct rc_sched sched;
	struct rc_req req;
	struct rc_comp comp;
	struct rc_resp resp;
	struct ordk_rc_stats st;
};

/* verbs */
struct ordk_qp *verbs_qp_lookup(struct ordk_dev *dev, uint32_t qpn);
struct ordk_mr_int *verbs_mr_lookup(struct ordk_dev *dev, uint32_t key);
/**
 * Execute an atomic on MR memory for the peer (CMP_AND_SWP if @p cas, else
 * FETCH_AND_ADD), guarded: @return 0 (@p orig set), or -EFAULT when the memory
 * is gone (unmapped under the MR).
 */
int verbs_mr_atomic(uint64_t *p, bool cas, uint64_t compare_add, uint64_t swap, uint64_t *orig);
void verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc);
/** The ManageQp command telling the card @p qp's context (valid, error). */
struct blue_cmd verbs_manage_qp_cmd(const struct ordk_qp *qp, bool valid, bool error);
/** Execute it and wait (control path only). @return 0 or blue_cmd_exec()'s error. */
int verbs_manage_qp(struct ordk_qp *qp, bool valid, bool error);
/** Queue an asynchronous event about @p qp (QP events) or @p cq (CQ_ERR). */
void verbs_event_raise(struct ordk_dev *dev, enum ordk_event_type type, struct ordk_qp *qp,
		       struct ordk_cq *cq);
/** After the transport's work: QPs of CQs in error to ERR, events to the callback. */
void verbs_event_run(struct ordk_dev *dev);
/* verbs_cc.c: congestion control's glue (lib/cc does the work) */
int verbs_cc_devargs(struct ordk_dev *dev, const char *devargs);
void verbs_cc_close(struct ordk_dev *dev);
void verbs_cc_qp_init(struct ordk_qp *qp, bool on);
bool verbs_cc_gate(struct ordk_qp *qp, uint32_t pmtu, uint32_t *cap);
void verbs_cc_sent(struct ordk_qp *qp, uint32_t bytes, uint32_t pkts);
void verbs_cc_cnp(struct ordk_qp *qp);

/* The QP's ACK timeout and reordering hold in TSC cycles (rc_qp_set_timeout()). */
static inline uint64_t
rc_timeout_tsc(const struct ordk_qp *qp)
{
	return qp->comp.timeout_tsc;
}

static inline uint64_t
rc_hold_tsc(const struct ordk_qp *qp)
{
	return qp->comp.hold_tsc;
}

#endif /* VERBS_INTERNAL_H */
