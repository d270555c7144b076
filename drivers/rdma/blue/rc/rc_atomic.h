/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software atomics (rc_atomic.c): the responder executes each request once
 * and answers a repeated id from its replay cache.
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

bool rc_atomic_send(struct blue_qp *qp, struct rc_wqe *w);
void rc_atomic_rx_req(struct blue_qp *qp, const struct blue_ctrl_msg *m);
void rc_atomic_rx_resp(struct blue_qp *qp, const struct blue_ctrl_msg *m);

#endif /* RC_ATOMIC_H */
