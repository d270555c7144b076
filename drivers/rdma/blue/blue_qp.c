/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Blue driver's QPs: numbers (qpn = index << 8 | rand8, an MR-table-like
 * key over the card's QPC slots), ManageQp on every transition, and the RC
 * transport (rc.h) behind the post and modify calls of lib/verbs; a UD QP's
 * calls go to the UD transport (blue_ud.c), which the card never sees.
 */
#include <assert.h>
#include <errno.h>
#include <string.h>

#include <rte_log.h>

#include "blue_verbs.h"

RTE_LOG_REGISTER(blue_qp_logtype, ordk.blue.qp, NOTICE);
#define QP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, blue_qp_logtype, "blue: " fmt "\n", ##__VA_ARGS__)

struct blue_cmd
blue_manage_qp_cmd(const struct blue_qp *qp, bool valid, bool error)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } };

	c.qp = (struct blue_cmd_manage_qp){
		.is_valid = valid, .is_error = error, .qpn = qp->vqp.qpn,
		.peer_qpn = qp->vqp.attr.dest_qp_num, .peer_ip = qp->vqp.attr.dest_ip,
		.peer_mac = qp->vqp.attr.dest_mac, .pmtu = (uint8_t)qp->vqp.attr.path_mtu,
		/*
		 * The card accepts SEND packets only with REMOTE_WRITE in the QPC and
		 * READ responses only with LOCAL_WRITE
		 * (doc/guides/drivers/blue_hw_interface.md section 5.1), where an
		 * ibverbs QP receives SENDs with no remote access at all. So the card
		 * always gets both, and gates incoming WRITEs by the MR's access only:
		 * the driver refuses a WRITE to a QP without REMOTE_WRITE at its report
		 * (rc_resp.c write_refuse()), after the card placed that packet. A
		 * ManageQp cannot drop the bit while the QP waits for no SEND: each
		 * one resets the card's PSN bitmap of the QP (section 3.1).
		 */
		.rq_access_flags = (uint8_t)(qp->vqp.attr.qp_access_flags | BLUE_ACC_LOCAL_WRITE |
					     BLUE_ACC_REMOTE_WRITE),
		.qp_type = BLUE_QPT_RC,
		/* UDP source port of the card's own ACKs for this QP */
		.local_udp_port = 0x100 };
	return c;
}

int
blue_manage_qp(struct blue_qp *qp, bool valid, bool error)
{
	struct blue_cmd c = blue_manage_qp_cmd(qp, valid, error);

	return blue_cmd_exec(&blue_qp_dev(qp)->hw, &c);
}

int
blue_qp_create(struct ordk_qp *oqp)
{
	struct blue_qp *qp = to_bqp(oqp);
	struct blue_dev *dev = blue_qp_dev(qp);
	int64_t qpn = mem_keys_alloc(&dev->qp_keys);
	int rc;

	if (qpn < 0) {
		QP_LOG(ERR, "qp_create: max_qp (%u QPs) reached", BLUE_MAX_QP - 1);
		return -ENOSPC;
	}
	qp->vqp.qpn = (uint32_t)qpn;
	qp->vqp.attr.path_mtu = ORDK_MTU_4096;
	if (verbs_qp_is_ud(&qp->vqp)) {
		/* its QPN is one of the card's, but no context: the card drops RC frames to it */
		rc = blue_ud_qp_init(qp);
		if (rc != 0) {
			blue_ud_qp_fini(qp);
			mem_keys_free(&dev->qp_keys, qp->vqp.qpn);
		}
		return rc;
	}
	blue_cc_qp_init(qp, dev->cc_on);
	rc = rc_qp_init(qp);
	if (rc != 0) {
		rc_qp_fini(qp);
		mem_keys_free(&dev->qp_keys, qp->vqp.qpn);
	}
	return rc;
}

int
blue_qp_destroy(struct ordk_qp *oqp)
{
	struct blue_qp *qp = to_bqp(oqp);
	struct blue_dev *dev = blue_qp_dev(qp);
	int rc = 0;

	if (verbs_qp_is_ud(&qp->vqp)) {
		if (qp->sched.on_active)
			TAILQ_REMOVE(&dev->rc.active, qp, sched.link);
		mem_keys_free(&dev->qp_keys, qp->vqp.qpn);
		blue_ud_qp_fini(qp);
		return 0;
	}
	if (qp->vqp.attr.qp_state != ORDK_QPS_RESET) {
		rc_ack_last_word(qp);
		rc_read_keys_revoke_all(qp); /* before: confirmed with the ManageQp (in order) */
		rc = blue_manage_qp(qp, false, false); /* the card's QPC is cleared */
	}
	if (qp->sched.on_active)
		TAILQ_REMOVE(&dev->rc.active, qp, sched.link);
	rc_timer_set(qp, 0); /* off the wheel */
	mem_keys_free(&dev->qp_keys, qp->vqp.qpn); /* the QPN is stale from now on */
	rc_qp_fini(qp);
	return rc;
}

static_assert(BLUE_PSN_FIRST_MAX == ORDK_PSN_FIRST_MAX, "the API states the card's first-PSN limit");

/* What only the card judges: read/atomic depth, first PSNs its bitmap unit takes. */
int
blue_qp_check(const struct ordk_qp *oqp, const struct ordk_qp_attr *a, unsigned int mask)
{
	const struct blue_qp *qp = to_bqp_const(oqp);

	if (verbs_qp_is_ud(&qp->vqp))
		return 0; /* no card context: lib/verbs' checks are all */
	if (((mask & ORDK_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~(unsigned int)BLUE_ACC_ALL)) ||
	    ((mask & ORDK_QP_PATH_MTU) && !blue_pmtu_valid(a->path_mtu)) ||
	    ((mask & ORDK_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > ORDK_MAX_RD_ATOMIC) ||
	    ((mask & ORDK_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > ORDK_MAX_RD_ATOMIC)) {
		QP_LOG(ERR, "qp 0x%06x: an attribute value is out of range", qp->vqp.qpn);
		return -EINVAL;
	}
	if (((mask & ORDK_QP_RQ_PSN) && !blue_psn_first_ok(a->rq_psn)) ||
	    ((mask & ORDK_QP_SQ_PSN) && !blue_psn_first_ok(a->sq_psn))) {
		QP_LOG(ERR, "qp 0x%06x: a first PSN above 0x%06x (rq_psn 0x%06x, sq_psn 0x%06x): "
		       "the card's PSN bitmap resets to a window that misreads it (behind it: "
		       "never tracked, and the RTL's bitmap unit locks; inside it: reported as "
		       "arrived at once); choose one in 0..0x%06x", qp->vqp.qpn, BLUE_PSN_FIRST_MAX,
		       a->rq_psn, a->sq_psn, BLUE_PSN_FIRST_MAX);
		return -EINVAL;
	}
	return 0;
}

int
blue_qp_modify(struct ordk_qp *oqp, enum ordk_qp_state cur, enum ordk_qp_state next)
{
	struct blue_qp *qp = to_bqp(oqp);
	/*
	 * The card learns every transition (ManageQp; it also resets its PSN
	 * bitmap). Its context is valid only in RTR and RTS: the card checks no
	 * QP state, so in RESET, INIT and ERR nothing may land through the QP.
	 */
	int rc;

	if (verbs_qp_is_ud(&qp->vqp)) {
		blue_ud_modify(qp, cur, next);
		return 0;
	}
	/*
	 * Leaving RTS, the READs' keys go first: the card runs commands in
	 * order, so its word on the ManageQp, which this waits for, is its word
	 * on them too, and the flush reports no READ whose buffer it still knows.
	 */
	if (next == ORDK_QPS_ERR || next == ORDK_QPS_RESET) {
		/*
		 * An application leaving a connection (rdma_disconnect()) has seen
		 * the peer's last message complete: a NIC that acknowledges on
		 * arrival has sent its ACK, so the peer's SEND completes. Here the
		 * ACK may still be due: it goes now, as at destroy.
		 */
		rc_ack_last_word(qp);
		rc_read_keys_revoke_all(qp);
	}
	rc = blue_manage_qp(qp, next == ORDK_QPS_RTR || next == ORDK_QPS_RTS, next == ORDK_QPS_ERR);
	if (rc != 0)
		return rc;
	qp->vqp.attr.qp_state = next;
	rc_qp_set_timeout(qp);
	if (next == ORDK_QPS_RESET)
		rc_qp_reset(qp);
	else if (next == ORDK_QPS_ERR)
		rc_qp_flush(qp);
	else if (next == ORDK_QPS_RTR && cur == ORDK_QPS_INIT)
		rc_qp_to_rtr(qp);
	else if (next == ORDK_QPS_RTS && cur == ORDK_QPS_RTR)
		rc_qp_to_rts(qp);
	return 0;
}

void
blue_qp_flush(struct ordk_qp *oqp)
{
	struct blue_qp *qp = to_bqp(oqp);

	if (verbs_qp_is_ud(&qp->vqp))
		blue_ud_flush(qp);
	else
		rc_qp_flush(qp);
}

void
blue_qp_info(const struct ordk_qp *oqp, struct ordk_qp_info *info)
{
	const struct blue_qp *qp = to_bqp_const(oqp);

	if (verbs_qp_is_ud(&qp->vqp)) {
		blue_ud_info(qp, info);
		return;
	}
	info->next_psn = qp->req.next_psn;
	info->acked_psn = qp->comp.acked_psn;
	info->expected_psn = qp->resp.epsn;
	info->rx_open = qp->resp.rx_open;
	info->send_outstanding = qp->req.sq_user;
	info->recv_posted = qp->resp.rq_q.count;
	info->reads_outstanding = qp->req.rd_q.count;
	info->retries = qp->comp.rtx_retries;
	info->recv_adverts = qp->req.adv_q.count;
	info->req_state = rc_state_name(RC_SM_REQ, qp->req.state);
	info->comp_state = rc_state_name(RC_SM_COMP, qp->comp.state);
	/* a hole is one with PSNs beyond it (a report opens one at any epsn) */
	info->hole_state = rc_state_name(RC_SM_HOLE, blue_psn_diff(qp->resp.rx_top, qp->resp.epsn) > 0 ?
							     rc_hole_state(&qp->resp) :
							     RC_HOLE_NONE);
	info->probe_state = rc_state_name(RC_SM_PROBE, qp->resp.probe);
	info->active = qp->sched.on_active;
}

int
blue_post_send(struct ordk_qp *oqp, const struct ordk_send_wr *wr)
{
	struct blue_qp *qp = to_bqp(oqp);

	return verbs_qp_is_ud(&qp->vqp) ? blue_ud_post_send(qp, wr) : rc_post_send(qp, wr);
}

int
blue_post_recv(struct ordk_qp *oqp, const struct ordk_recv_wr *wr)
{
	struct blue_qp *qp = to_bqp(oqp);

	return verbs_qp_is_ud(&qp->vqp) ? blue_ud_post_recv(qp, wr) : rc_post_recv(qp, wr);
}

int
blue_srq_recv_check(const struct ordk_srq *srq, const struct ordk_recv_wr *wr)
{
	if (wr->num_sge == 1 && wr->sge.length > 0 &&
	    rc_mr_check_pd(to_bdev(srq->dev), srq->pd, wr->sge.lkey, wr->sge.addr, wr->sge.length,
			   ORDK_ACCESS_LOCAL_WRITE) != 0)
		return -EPERM;
	return 0;
}

void
blue_post_done(struct ordk_qp *oqp)
{
	struct blue_qp *qp = to_bqp(oqp);
	rc_activate(qp);
}
