/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A QP on a shared receive queue (rc_recv.c): the SRQ's pool (lib/verbs,
 * struct ordk_srq) lends it RECVs, as many as its peer wants (the want of
 * its advert ACKs) within its share of the pool and the window, and it
 * advertises them as its own; leaving RTR/RTS it gives back those no SEND
 * consumed (doc/guides/prog_guide/architecture.md, shared receive queues).
 */
#ifndef RC_SRQ_H
#define RC_SRQ_H

#define RC_SRQ_WINDOW 16u /* RECVs an SRQ lends one QP at most (rc_srq_refill()) */

struct blue_qp;

/** The QP reached RTR: it counts in its SRQ's shares from now on. */
void rc_srq_join(struct blue_qp *qp);
/** In RTR/RTS: take RECVs from the pool while the peer wants them, up to the QP's share. */
void rc_srq_refill(struct blue_qp *qp);
/** It leaves RTR/RTS: its lent RECVs no SEND consumed go back to the pool (keys orphaned). */
void rc_srq_return(struct blue_qp *qp);
/** It reached ERR and flushed: QP_LAST_WQE_REACHED (no RECV of the SRQ completes on it again). */
void rc_srq_last_wqe(struct blue_qp *qp);

#endif /* RC_SRQ_H */
