/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Software atomics. The card has none (doc/guides/drivers/blue_hw_interface.md
 * section 5.3), so CMP_AND_SWP
 * and FETCH_AND_ADD travel as ORDK control frames and the responder's CPU
 * executes them on its host memory.
 * - Requester: an atomic is issued only when every earlier WR of its QP is
 *   acknowledged, and later WRs wait until it completed (a fence both ways).
 *   The request is resent on timeout with the same id.
 * - Responder: checks rkey, PD, REMOTE_ATOMIC access, bounds and 8-byte
 *   alignment in its own MR table, executes with CPU atomics, and keeps the
 *   last ORDK_ATOMIC_CACHE results: a resent request gets the saved result
 *   and is never executed twice. Only the expected request id executes; any
 *   other id not in the cache is ignored and counted (atomics_ignored).
 */
#include <errno.h>
#include <string.h>

#include "blue_verbs.h"

bool
rc_atomic_send(struct blue_qp *qp, struct rc_wqe *w)
{
	struct blue_ctrl_msg m = rc_ctrl_msg(qp, BLUE_CTRL_ATOMIC_REQ);

	m.atomic_req.req_id = w->atomic_id;
	m.atomic_req.op = w->opcode == ORDK_WR_ATOMIC_CMP_AND_SWP ? BLUE_CTRL_ATOMIC_CMP_AND_SWP
								    : BLUE_CTRL_ATOMIC_FETCH_AND_ADD;
	m.atomic_req.raddr = w->raddr;
	m.atomic_req.rkey = w->rkey;
	m.atomic_req.compare_add = w->compare_add;
	m.atomic_req.swap = w->swap;
	return rc_send_ctrl(qp, &m);
}

static uint8_t
check_target(struct blue_qp *qp, uint64_t raddr, uint32_t rkey)
{
	int rc = rc_mr_check(qp, rkey, raddr, 8, ORDK_ACCESS_REMOTE_ATOMIC);

	/* the QP's access gates atomics as the MR's does (IBA) */
	if (!(qp->vqp.attr.qp_access_flags & ORDK_ACCESS_REMOTE_ATOMIC)) {
		qp->vqp.st.access_refused++;
		return BLUE_CTRL_ATOMIC_REM_ACCESS_ERR;
	}
	if (rc == -EPERM)
		return BLUE_CTRL_ATOMIC_REM_ACCESS_ERR;
	if (rc != 0 || raddr % 8 != 0)
		return BLUE_CTRL_ATOMIC_REM_INV_REQ;
	return BLUE_CTRL_ATOMIC_OK;
}

void
rc_atomic_rx_req(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct rc_atomic_saved *c = &qp->resp.atomic_cache[m->atomic_req.req_id % ORDK_ATOMIC_CACHE];
	struct blue_ctrl_msg r = rc_ctrl_msg(qp, BLUE_CTRL_ATOMIC_RESP);

	if (c->valid && c->req_id == m->atomic_req.req_id) {
		/* a resent request: the saved result, never a second execution */
		qp->vqp.st.atomics_replayed++;
	} else if (m->atomic_req.req_id != qp->resp.atomic_expect) {
		/*
		 * Outside the window: the requester issues one atomic at a time, so a
		 * new request carries exactly the expected id, and a resent one an id
		 * in the cache. Anything else is stale or forged: adopting its id
		 * would make every later legitimate request look old.
		 */
		RC_LOG(DEBUG, "qp 0x%06x: atomic request id %u ignored (expected %u)", qp->vqp.qpn,
		       m->atomic_req.req_id, qp->resp.atomic_expect);
		qp->vqp.st.atomics_ignored++;
		return;
	} else {
		uint8_t st = check_target(qp, m->atomic_req.raddr, m->atomic_req.rkey);
		uint64_t orig = 0;

		if (st == BLUE_CTRL_ATOMIC_OK &&
		    verbs_mr_atomic((uint64_t *)(uintptr_t)m->atomic_req.raddr,
				    m->atomic_req.op == BLUE_CTRL_ATOMIC_CMP_AND_SWP,
				    m->atomic_req.compare_add, m->atomic_req.swap, &orig) != 0)
			st = BLUE_CTRL_ATOMIC_REM_ACCESS_ERR; /* the memory is gone */
		if (st == BLUE_CTRL_ATOMIC_OK) {
			qp->vqp.st.atomics_executed++;
		} else {
			qp->vqp.st.atomics_rejected++;
		}
		*c = (struct rc_atomic_saved){ .req_id = m->atomic_req.req_id, .valid = 1,
					       .status = st, .orig = orig };
		qp->resp.atomic_expect = m->atomic_req.req_id + 1;
	}
	r.atomic_resp.req_id = c->req_id;
	r.atomic_resp.status = c->status;
	r.atomic_resp.orig = c->orig;
	rc_send_ctrl(qp, &r); /* lost: the requester asks again and gets the saved answer */
}

void
rc_atomic_rx_resp(struct blue_qp *qp, const struct blue_ctrl_msg *m)
{
	struct rc_wqe *w = qp->req.atomic_wqe;

	if (w == NULL || m->atomic_resp.req_id != w->atomic_id) {
		qp->vqp.st.duplicates++; /* an answer to a request already answered */
		return;
	}
	qp->req.atomic_wqe = NULL;
	if (m->atomic_resp.status != BLUE_CTRL_ATOMIC_OK) {
		w->status = m->atomic_resp.status == BLUE_CTRL_ATOMIC_REM_ACCESS_ERR
				    ? ORDK_WC_REM_ACCESS_ERR : ORDK_WC_REM_INV_REQ_ERR;
		rc_wqe_to(qp, w, RC_WQE_ERROR);
		rc_qp_fail(qp, w->status);
		return;
	}
	/* the original value lands in the requester's local buffer */
	memcpy((void *)(uintptr_t)w->laddr, &m->atomic_resp.orig, 8);
	rc_wqe_to(qp, w, RC_WQE_DONE);
	qp->comp.rtx_retries = 0;
	qp->comp.rtx_backoff = 1;
	rc_complete_sends(qp);
	rc_timer_arm(qp);
	rc_activate(qp); /* later WRs may go now */
}
