/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Blue driver's verbs objects: its device (the card's rings and command
 * queue, the MR table and PGT, the QP numbers, the RC transport's engine) and
 * its QPs and MRs, each after lib/verbs' part (ordk_driver.h). The driver
 * completes the public handle types struct blue_dev and struct blue_qp with
 * them; lib/verbs never sees these definitions.
 */
#ifndef BLUE_VERBS_H
#define BLUE_VERBS_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_hash.h>
#include <rte_log.h>

#include "blue_cc.h"
#include "blue_hw.h"
#include "mem_internal.h"
#include "ordk_driver.h"
#include "rc.h"

#define ORDK_MAX_QP_WR 4096u
/* bytes a send WR carries inline (ORDK_SEND_INLINE): a slot per send queue position (lib/verbs) */
#define BLUE_MAX_INLINE 256u
/* SGEs a send WR gathers (ibverbs' max_sge; UCX asks 5 for RC, 6 for UD): rc_sgl.c */
#define BLUE_MAX_SEND_SGE 16u

struct blue_mr;

struct blue_dev {
	struct verbs_dev vdev;	/* lib/verbs' part: name, counters, events, QP table */
	struct blue_hw hw;
	struct mem_keys mr_keys;
	struct mem_pgt pgt;
	struct mem_pins pins;
	struct mem_keys qp_keys;
	struct blue_mr *mr_by_slot[BLUE_MAX_MR]; /* responder-side rkey checks */
	struct rc_engine rc;	/* the transport's engine (rc.h) */
	/* congestion control (blue_cc.c): devargs cc=, cc_<key>=, cc_trace= */
	struct cc_params cc;
	bool cc_on;		/* new QPs start with it on */
	FILE *cc_trace;		/* cc_trace=FILE: every QP's rate changes, trace CSV */
};

struct blue_mr {
	struct verbs_mr vmr;	/* lib/verbs' part; vmr.pub is what the application holds */
	uint32_t pgt_start;
	uint32_t pgt_n;
	uint64_t iova;		/* where the device sees addr (identity with the model) */
};

/* A UD message's bytes at most: the port's MTU (IBA: a UD message fits the path MTU). */
#define BLUE_UD_MAX_MSG 4096u
/* Messages a UD QP reassembles at once (fragmented, one per source QP): blue_ud.c */
#define BLUE_UD_RASM 8u

/* A UD message arriving in fragments (FIRST .. LAST), from one source QP. */
struct blue_ud_rasm {
	bool busy;
	uint32_t src_ip, sqpn;	/* its source */
	uint32_t next_psn;	/* the PSN its next fragment must carry */
	uint32_t len;		/* bytes in buf */
	uint64_t stamp;		/* when it began (the oldest gives way) */
	uint8_t *buf;		/* BLUE_UD_MAX_MSG bytes */
};

/*
 * A UD QP's transport (blue_ud.c): send WRs waiting for room on the SimpleNic
 * ring (an inline WR's bytes, a gather WR's SGEs in lib/verbs' slot of its
 * number), posted RECVs, messages being reassembled.
 */
struct blue_ud {
	struct ordk_send_wr *sq;
	struct rc_fifo sq_q;
	uint32_t sq_pos;	/* send WRs posted: the number (lib/verbs slot) of the next */
	uint32_t frag_off;	/* the oldest WR's bytes sent in fragments so far */
	struct ordk_recv_wr *rq;
	struct rc_fifo rq_q;
	uint32_t psn;		/* the next frame's BTH PSN (from sq_psn) */
	struct blue_ud_rasm rasm[BLUE_UD_RASM];
	uint64_t rasm_stamp;
};

struct blue_qp {
	struct verbs_qp vqp;	/* lib/verbs' part: pd, CQs, attributes, counters */
	bool cc_on;		/* DCQCN paces this QP, its data goes out ECT(0) */
	struct cc_rp cc;
	/* the transport (rc.h), in rxe's parts */
	struct rc_sched sched;
	struct rc_req req;
	struct rc_comp comp;
	struct rc_resp resp;
	struct blue_ud ud;	/* a UD QP's (vqp.init.qp_type): the RC parts stay unused */
};

/* ------------------------------------------------ handles and objects */

/** The driver's device behind a handle lib/verbs passes (its first member is the library's part). */
static inline struct blue_dev *
to_bdev(struct ordk_dev *dev)
{
	return (struct blue_dev *)((uintptr_t)dev - offsetof(struct blue_dev, vdev));
}

/* to_bdev() of a const handle (the ops that only read) */
static inline const struct blue_dev *
to_bdev_const(const struct ordk_dev *dev)
{
	return (const struct blue_dev *)((uintptr_t)dev - offsetof(struct blue_dev, vdev));
}

static inline struct blue_qp *
to_bqp(struct ordk_qp *qp)
{
	return (struct blue_qp *)((uintptr_t)qp - offsetof(struct blue_qp, vqp));
}

static inline const struct blue_qp *
to_bqp_const(const struct ordk_qp *qp)
{
	return (const struct blue_qp *)((uintptr_t)qp - offsetof(struct blue_qp, vqp));
}

static inline struct blue_mr *
to_bmr(struct verbs_mr *mr)
{
	return (struct blue_mr *)((uintptr_t)mr - offsetof(struct blue_mr, vmr));
}

/** The handle lib/verbs knows a device or QP by (for the calls of ordk_driver.h). */
static inline struct ordk_dev *
blue_dev_handle(struct blue_dev *dev)
{
	return (struct ordk_dev *)(void *)&dev->vdev;
}

static inline struct ordk_qp *
blue_qp_handle(struct blue_qp *qp)
{
	return (struct ordk_qp *)(void *)&qp->vqp;
}

/** The device a QP belongs to. */
static inline struct blue_dev *
blue_qp_dev(const struct blue_qp *qp)
{
	return to_bdev(qp->vqp.dev);
}

/* blue_mr.c */
/** The MR of key @p key (lkey or rkey), or NULL. */
struct blue_mr *blue_mr_lookup(struct blue_dev *dev, uint32_t key);
int blue_mr_reg(struct ordk_dev *dev, struct verbs_mr *mr);
int blue_mr_dereg(struct ordk_dev *dev, struct verbs_mr *mr);

/* blue_qp.c */
/** The ManageQp command telling the card @p qp's context (valid, error). */
struct blue_cmd blue_manage_qp_cmd(const struct blue_qp *qp, bool valid, bool error);
/** Execute it and wait (control path only). @return 0 or blue_cmd_exec()'s error. */
int blue_manage_qp(struct blue_qp *qp, bool valid, bool error);
int blue_qp_create(struct ordk_qp *qp);
int blue_qp_destroy(struct ordk_qp *qp);
int blue_qp_check(const struct ordk_qp *qp, const struct ordk_qp_attr *a, unsigned int mask);
int blue_qp_modify(struct ordk_qp *qp, enum ordk_qp_state cur, enum ordk_qp_state next);
void blue_qp_flush(struct ordk_qp *qp);
void blue_qp_info(const struct ordk_qp *qp, struct ordk_qp_info *info);
int blue_post_send(struct ordk_qp *qp, const struct ordk_send_wr *wr);
int blue_post_recv(struct ordk_qp *qp, const struct ordk_recv_wr *wr);
void blue_post_done(struct ordk_qp *qp);
int blue_srq_recv_check(const struct ordk_srq *srq, const struct ordk_recv_wr *wr);

/* blue_ud.c: UD QPs on the SimpleNic path */
/** The bytes of a UD message at most on @p dev (BLUE_UD_MAX_MSG), 0: none. */
uint32_t blue_ud_max_msg(const struct blue_dev *dev);
/** The payload bytes of one UD frame at most (a SimpleNic RX slot less the headers), 0: none. */
uint32_t blue_ud_frag_max(const struct blue_dev *dev);
int blue_ud_qp_init(struct blue_qp *qp);
void blue_ud_qp_fini(struct blue_qp *qp);
/** The transition @p cur -> @p next (no card context: nothing to tell the card). */
void blue_ud_modify(struct blue_qp *qp, enum ordk_qp_state cur, enum ordk_qp_state next);
/** To ERR: every queued WR completes with WR_FLUSH_ERR. */
void blue_ud_flush(struct blue_qp *qp);
void blue_ud_info(const struct blue_qp *qp, struct ordk_qp_info *info);
int blue_ud_post_send(struct blue_qp *qp, const struct ordk_send_wr *wr);
int blue_ud_post_recv(struct blue_qp *qp, const struct ordk_recv_wr *wr);
/** The engine's turn of a UD QP: queued datagrams to the SimpleNic ring. */
enum rc_step blue_ud_step(struct blue_qp *qp);
/** A UD frame off the SimpleNic RX ring: checked, placed in a RECV, or dropped and counted. */
void blue_ud_rx(struct blue_dev *dev, const uint8_t *f, uint32_t len);

/* The QP's ACK timeout and reordering hold in TSC cycles (rc_qp_set_timeout()). */
static inline uint64_t
rc_timeout_tsc(const struct blue_qp *qp)
{
	return qp->comp.timeout_tsc;
}

static inline uint64_t
rc_hold_tsc(const struct blue_qp *qp)
{
	return qp->comp.hold_tsc;
}

#endif /* BLUE_VERBS_H */
