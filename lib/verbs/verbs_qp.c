/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC queue pairs: creation (qpn = index << 8 | rand8, looked up through an
 * rte_hash), the RESET -> INIT -> RTR -> RTS state machine with ibverbs' RC
 * attribute masks, ManageQp on every transition, and the post entry points.
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "verbs_internal.h"

static const char *const state_names[ORDK_QPS_COUNT] = {
	[ORDK_QPS_RESET] = "RESET", [ORDK_QPS_INIT] = "INIT", [ORDK_QPS_RTR] = "RTR",
	[ORDK_QPS_RTS] = "RTS",	    [ORDK_QPS_ERR] = "ERR",
};

const char *
ordk_qp_state_str(enum ordk_qp_state s)
{
	return (unsigned int)s < ORDK_QPS_COUNT ? state_names[s] : "?";
}

struct ordk_qp *
verbs_qp_lookup(struct ordk_dev *dev, uint32_t qpn)
{
	void *qp = NULL;

	if (rte_hash_lookup_data(dev->qp_table, &qpn, &qp) < 0)
		return NULL;
	return qp;
}

struct blue_cmd
verbs_manage_qp_cmd(const struct ordk_qp *qp, bool valid, bool error)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } };

	c.qp = (struct blue_cmd_manage_qp){
		.is_valid = valid, .is_error = error, .qpn = qp->qpn,
		.peer_qpn = qp->attr.dest_qp_num, .peer_ip = qp->attr.dest_ip,
		.peer_mac = qp->attr.dest_mac, .pmtu = (uint8_t)qp->attr.path_mtu,
		/*
		 * The card accepts SEND packets only with REMOTE_WRITE in the QPC and
		 * READ responses only with LOCAL_WRITE (HW-INTERFACE.md 5.1), where an
		 * ibverbs QP receives SENDs with no remote access at all. So the card
		 * always gets both; incoming WRITEs are still gated by the MR's access.
		 */
		.rq_access_flags = (uint8_t)(qp->attr.qp_access_flags | BLUE_ACC_LOCAL_WRITE |
					     BLUE_ACC_REMOTE_WRITE),
		.qp_type = BLUE_QPT_RC,
		/* UDP source port of the card's own ACKs for this QP */
		.local_udp_port = 0x100 };
	return c;
}

int
verbs_manage_qp(struct ordk_qp *qp, bool valid, bool error)
{
	struct blue_cmd c = verbs_manage_qp_cmd(qp, valid, error);

	return blue_cmd_exec(&qp->dev->hw, &c);
}

struct ordk_qp *
ordk_qp_create(struct ordk_pd *pd, const struct ordk_qp_init_attr *ia)
{
	struct ordk_dev *dev;
	struct ordk_qp *qp;
	int64_t qpn;
	int rc;

	if (!pd_live(pd) || ia == NULL || !cq_live(ia->send_cq) || !cq_live(ia->recv_cq) ||
	    ia->send_cq->dev != pd->dev || ia->recv_cq->dev != pd->dev) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (ia->max_send_wr == 0 || ia->max_recv_wr == 0 || ia->max_send_wr > ORDK_MAX_QP_WR ||
	    ia->max_recv_wr > ORDK_MAX_QP_WR) {
		VERBS_LOG(ERR, "qp_create: max_send_wr %u or max_recv_wr %u "
			       "not in 1..max_qp_wr (%u)",
			  ia->max_send_wr, ia->max_recv_wr, ORDK_MAX_QP_WR);
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	qp = verbs_handle_alloc(sizeof(*qp), RTE_CACHE_LINE_SIZE);
	if (qp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	qp->magic = VERBS_MAGIC_QP;
	qp->dev = dev;
	qp->pd = pd;
	qp->scq = ia->send_cq;
	qp->rcq = ia->recv_cq;
	qp->ctx = ia->qp_context;
	qp->init = *ia;
	qp->attr.qp_state = ORDK_QPS_RESET;
	qp->attr.path_mtu = ORDK_MTU_4096;
	verbs_cc_qp_init(qp, dev->cc_on);
	qpn = mem_keys_alloc(&dev->qp_keys);
	if (qpn < 0) {
		verbs_handle_free(qp, sizeof(*qp));
		VERBS_LOG(ERR, "qp_create: max_qp (%u QPs) reached", BLUE_MAX_QP - 1);
		rte_errno = ENOSPC;
		return NULL;
	}
	qp->qpn = (uint32_t)qpn;
	rc = rc_qp_init(qp);
	if (rc == 0 && rte_hash_add_key_data(dev->qp_table, &qp->qpn, qp) != 0)
		rc = -ENOMEM;
	if (rc != 0) {
		rc_qp_fini(qp);
		mem_keys_free(&dev->qp_keys, qp->qpn);
		verbs_handle_free(qp, sizeof(*qp));
		rte_errno = -rc;
		return NULL;
	}
	pd->refs++;
	qp->scq->refs++;
	qp->rcq->refs++;
	dev->nqp++;
	return qp;
}

int
ordk_qp_destroy(struct ordk_qp *qp)
{
	struct ordk_dev *dev;
	int rc = 0;

	if (!qp_live(qp))
		return -EINVAL;
	dev = qp->dev;
	if (qp->attr.qp_state != ORDK_QPS_RESET)
		rc = verbs_manage_qp(qp, false, false); /* the card's QPC is cleared */
	if (qp->sched.on_active)
		TAILQ_REMOVE(&dev->rc.active, qp, sched.link);
	rc_timer_set(qp, 0); /* off the wheel */
	rte_hash_del_key(dev->qp_table, &qp->qpn);
	mem_keys_free(&dev->qp_keys, qp->qpn); /* the QPN is stale from now on */
	rc_qp_fini(qp);
	qp->pd->refs--;
	qp->scq->refs--;
	qp->rcq->refs--;
	dev->nqp--;
	verbs_handle_free(qp, sizeof(*qp));
	return rc;
}

uint32_t
ordk_qp_num(const struct ordk_qp *qp)
{
	return qp_live(qp) ? qp->qpn : 0;
}

int
ordk_qp_query(const struct ordk_qp *qp, struct ordk_qp_attr *attr, struct ordk_qp_init_attr *init)
{
	if (!qp_live(qp))
		return -EINVAL;
	if (attr != NULL)
		*attr = qp->attr;
	if (init != NULL)
		*init = qp->init;
	return 0;
}

int
ordk_qp_info(const struct ordk_qp *qp, struct ordk_qp_info *info)
{
	if (!qp_live(qp) || info == NULL)
		return -EINVAL;
	*info = (struct ordk_qp_info){
		.state = qp->attr.qp_state,
		.next_psn = qp->req.next_psn,
		.acked_psn = qp->comp.acked_psn,
		.expected_psn = qp->resp.epsn,
		.send_outstanding = qp->req.sq_user,
		.recv_posted = qp->resp.rq_q.count,
		.reads_outstanding = qp->req.rd_q.count,
		.retries = qp->comp.rtx_retries,
		.req_state = rc_state_name(RC_SM_REQ, qp->req.state),
		.comp_state = rc_state_name(RC_SM_COMP, qp->comp.state),
		/* a hole is one with PSNs beyond it (a report opens one at any epsn) */
		.hole_state = rc_state_name(RC_SM_HOLE,
					    blue_psn_diff(qp->resp.rx_top, qp->resp.epsn) > 0
						    ? rc_hole_state(&qp->resp)
						    : RC_HOLE_NONE),
		.probe_state = rc_state_name(RC_SM_PROBE, qp->resp.probe),
	};
	return 0;
}

/* ------------------------------------------------------- state machine */

/* Required and optional attribute bits per RC transition (IBA 11.2.4 / ibverbs). */
struct qp_transition {
	bool legal;
	unsigned int required;
	unsigned int optional;
};

#define RTR_REQ (ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU | ORDK_QP_DEST_QPN | \
		 ORDK_QP_RQ_PSN | ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER)
#define RTS_REQ (ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT | ORDK_QP_RETRY_CNT | \
		 ORDK_QP_RNR_RETRY | ORDK_QP_MAX_QP_RD_ATOMIC)

static struct qp_transition
transition(enum ordk_qp_state cur, enum ordk_qp_state next)
{
	struct qp_transition t = { false, 0, 0 };

	if (next == ORDK_QPS_RESET || next == ORDK_QPS_ERR)
		return (struct qp_transition){ true, ORDK_QP_STATE, 0 };
	switch (cur) {
	case ORDK_QPS_RESET:
		if (next == ORDK_QPS_INIT)
			t = (struct qp_transition){ true, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS, 0 };
		break;
	case ORDK_QPS_INIT:
		if (next == ORDK_QPS_INIT)
			t = (struct qp_transition){ true, 0, ORDK_QP_ACCESS_FLAGS };
		else if (next == ORDK_QPS_RTR)
			t = (struct qp_transition){ true, RTR_REQ, ORDK_QP_ACCESS_FLAGS };
		break;
	case ORDK_QPS_RTR:
		if (next == ORDK_QPS_RTS)
			t = (struct qp_transition){ true, RTS_REQ,
						    ORDK_QP_ACCESS_FLAGS | ORDK_QP_MIN_RNR_TIMER };
		break;
	case ORDK_QPS_RTS:
		if (next == ORDK_QPS_RTS)
			t = (struct qp_transition){ true, 0,
						    ORDK_QP_ACCESS_FLAGS | ORDK_QP_MIN_RNR_TIMER };
		break;
	default:
		break;
	}
	return t;
}

int
ordk_qp_modify(struct ordk_qp *qp, const struct ordk_qp_attr *a, unsigned int mask)
{
	enum ordk_qp_state cur, next;
	struct qp_transition t;
	struct ordk_qp_attr old;
	int rc;

	if (!qp_live(qp) || a == NULL)
		return -EINVAL;
	cur = qp->attr.qp_state;
	next = (mask & ORDK_QP_STATE) ? a->qp_state : cur;
	if ((unsigned int)next >= ORDK_QPS_COUNT) {
		VERBS_LOG(ERR, "qp 0x%06x: unknown state %d", qp->qpn, (int)next);
		return -EINVAL;
	}
	t = transition(cur, next);
	if (!t.legal) {
		VERBS_LOG(ERR, "qp 0x%06x: %s -> %s is not a legal transition", qp->qpn,
			  ordk_qp_state_str(cur), ordk_qp_state_str(next));
		return -EINVAL;
	}
	if ((mask & t.required) != t.required) {
		VERBS_LOG(ERR, "qp 0x%06x: %s -> %s needs attribute mask 0x%x, missing 0x%x",
			  qp->qpn, ordk_qp_state_str(cur), ordk_qp_state_str(next), t.required,
			  t.required & ~mask);
		return -EINVAL;
	}
	if (mask & ~(t.required | t.optional | ORDK_QP_STATE)) {
		VERBS_LOG(ERR, "qp 0x%06x: %s -> %s does not take attribute bits 0x%x", qp->qpn,
			  ordk_qp_state_str(cur), ordk_qp_state_str(next),
			  mask & ~(t.required | t.optional | ORDK_QP_STATE));
		return -EINVAL;
	}
	if (((mask & ORDK_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~(unsigned int)BLUE_ACC_ALL)) ||
	    ((mask & ORDK_QP_PATH_MTU) && !blue_pmtu_valid(a->path_mtu)) ||
	    ((mask & ORDK_QP_DEST_QPN) && a->dest_qp_num > BLUE_QPN_MASK) ||
	    ((mask & ORDK_QP_RQ_PSN) && a->rq_psn > BLUE_PSN_MASK) ||
	    ((mask & ORDK_QP_SQ_PSN) && a->sq_psn > BLUE_PSN_MASK) ||
	    ((mask & ORDK_QP_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((mask & ORDK_QP_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((mask & ORDK_QP_TIMEOUT) && a->timeout > 31) ||
	    ((mask & ORDK_QP_MAX_QP_RD_ATOMIC) && a->max_rd_atomic > ORDK_MAX_RD_ATOMIC) ||
	    ((mask & ORDK_QP_MAX_DEST_RD_ATOMIC) && a->max_dest_rd_atomic > ORDK_MAX_RD_ATOMIC) ||
	    ((mask & ORDK_QP_AV) && (a->dest_mac == 0 || a->dest_mac >> 48 || a->dest_ip == 0))) {
		VERBS_LOG(ERR, "qp 0x%06x: an attribute value is out of range", qp->qpn);
		return -EINVAL;
	}
	if (((mask & ORDK_QP_RQ_PSN) && !blue_psn_first_ok(a->rq_psn)) ||
	    ((mask & ORDK_QP_SQ_PSN) && !blue_psn_first_ok(a->sq_psn))) {
		VERBS_LOG(ERR, "qp 0x%06x: a first PSN in 0x7ffff0..0xffff7f (rq_psn 0x%06x, sq_psn "
			  "0x%06x) would lock the card's PSN bitmap unit on its first packet "
			  "(open-rdma RTL: it starts 2^23 PSNs away); choose one outside", qp->qpn,
			  a->rq_psn, a->sq_psn);
		return -EINVAL;
	}

	old = qp->attr;
	if (mask & ORDK_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = a->qp_access_flags;
	if (mask & ORDK_QP_PATH_MTU)
		qp->attr.path_mtu = a->path_mtu;
	if (mask & ORDK_QP_DEST_QPN)
		qp->attr.dest_qp_num = a->dest_qp_num;
	if (mask & ORDK_QP_RQ_PSN)
		qp->attr.rq_psn = a->rq_psn;
	if (mask & ORDK_QP_SQ_PSN)
		qp->attr.sq_psn = a->sq_psn;
	if (mask & ORDK_QP_AV) {
		qp->attr.dest_ip = a->dest_ip;
		qp->attr.dest_mac = a->dest_mac;
	}
	if (mask & ORDK_QP_TIMEOUT)
		qp->attr.timeout = a->timeout;
	if (mask & ORDK_QP_RETRY_CNT)
		qp->attr.retry_cnt = a->retry_cnt;
	if (mask & ORDK_QP_RNR_RETRY)
		qp->attr.rnr_retry = a->rnr_retry;
	if (mask & ORDK_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & ORDK_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & ORDK_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;

	/*
	 * The card learns every transition (ManageQp; it also resets its PSN
	 * bitmap). Its context is valid only in RTR and RTS: the card checks no
	 * QP state, so in RESET, INIT and ERR nothing may land through the QP.
	 */
	rc = verbs_manage_qp(qp, next == ORDK_QPS_RTR || next == ORDK_QPS_RTS,
			     next == ORDK_QPS_ERR);
	if (rc != 0) {
		qp->attr = old;
		return rc;
	}
	qp->attr.qp_state = next;
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

/* ------------------------------------------------------------------ post */

/* Post WRs one by one until one is refused; @return how many went in. */
static int
post_many(struct ordk_qp *qp, const void *wrs, size_t wr_size, int n,
	  int (*post_one)(struct ordk_qp *, const void *))
{
	int i;

	if (qp == NULL || wrs == NULL || n < 0) {
		rte_errno = EINVAL;
		return 0;
	}
	for (i = 0; i < n; i++) {
		int rc = post_one(qp, (const uint8_t *)wrs + (size_t)i * wr_size);

		if (rc != 0) {
			rte_errno = -rc;
			break;
		}
	}
	if (i > 0)
		rc_activate(qp);
	return i;
}

static int
post_send_one(struct ordk_qp *qp, const void *wr)
{
	return rc_post_send(qp, wr);
}

static int
post_recv_one(struct ordk_qp *qp, const void *wr)
{
	return rc_post_recv(qp, wr);
}

int
ordk_qp_post_send(struct ordk_qp *qp, const struct ordk_send_wr *wr, int n)
{
	return post_many(qp, wr, sizeof(*wr), n, post_send_one);
}

int
ordk_qp_post_recv(struct ordk_qp *qp, const struct ordk_recv_wr *wr, int n)
{
	return post_many(qp, wr, sizeof(*wr), n, post_recv_one);
}
