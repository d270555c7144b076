/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software atomics (rc_atomic.c): up to max_rd_atomic in flight per QP; the
 * responder executes each exactly once, in request-id order and only once
 * every PSN before it arrived, answering a repeated id from its replay cache
 * (doc/guides/prog_guide/architecture.md, an atomic).
 */
#ifndef RC_ATOMIC_H
#define RC_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#define ORDK_ATOMIC_CACHE 64u	 /* responder replay cache entries per QP */

struct blue_qp;
struct blue_ctrl_msg;
struct rc_wqe;

struct rc_atomic_saved {
	uint32_t req_id;
	uint8_t valid;
	uint8_t status;
	uint64_t orig;
};

/* A request held: an earlier id, or the PSNs before its psn, not here yet (rc_atomic.c). */
struct rc_atomic_held {
	uint32_t req_id, psn, rkey;
	uint8_t valid, op;   /* op: blue_ctrl_atomic_op */
	uint64_t raddr, compare_add, swap;
};

bool rc_atomic_send(struct blue_qp *qp, struct rc_wqe *w);
/** The timer fired: every outstanding atomic's request goes again (same id). */
void rc_atomic_resend(struct blue_qp *qp);
void rc_atomic_rx_req(struct blue_qp *qp, const struct blue_ctrl_msg *m);
/** Execute the held atomic requests now due (in id order, their PSNs arrived). */
void rc_atomic_progress(struct blue_qp *qp);
void rc_atomic_rx_resp(struct blue_qp *qp, const struct blue_ctrl_msg *m);

#endif /* RC_ATOMIC_H */
