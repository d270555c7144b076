/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue pairs (RC and UD), the library's part: creation and destruction (the driver
 * numbers the QP; lib/verbs finds it by number through an rte_hash), the
 * RESET -> INIT -> RTR -> RTS state machine with ibverbs' RC attribute masks
 * and value ranges, and the post entry points. The driver tells its device
 * and runs its transport (ops->qp_modify, ops->post_send, ...).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_malloc.h>

#include "ordk_devargs.h"
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

	if (rte_hash_lookup_data(vdev(dev)->qp_table, &qpn, &qp) < 0)
		return NULL;
	return qp;
}

static int
qp_create_check(const struct ordk_pd *pd, const struct ordk_qp_init_attr *ia)
{
	uint32_t max_wr;

	if (!pd_live(pd) || ia == NULL || !cq_live(ia->send_cq) || !cq_live(ia->recv_cq) ||
	    ia->send_cq->dev != pd->dev || ia->recv_cq->dev != pd->dev)
		return -EINVAL;
	if (ia->srq != NULL && (!srq_live(ia->srq) || ia->srq->dev != pd->dev)) {
		VERBS_LOG(ERR, "qp_create: the SRQ is stale or of another device");
		return -EINVAL;
	}
	max_wr = vdev(pd->dev)->attr.max_qp_wr;
	/* on an SRQ the QP has no receive queue of its own: max_recv_wr is not looked at */
	if (ia->max_send_wr == 0 || ia->max_send_wr > max_wr ||
	    (ia->srq == NULL && (ia->max_recv_wr == 0 || ia->max_recv_wr > max_wr))) {
		VERBS_LOG(ERR, "qp_create: max_send_wr %u or max_recv_wr %u "
			       "not in 1..max_qp_wr (%u)",
			  ia->max_send_wr, ia->max_recv_wr, max_wr);
		return -EINVAL;
	}
	if (ia->qp_type != 0 && ia->qp_type != ORDK_QPT_RC && ia->qp_type != ORDK_QPT_UD) {
		VERBS_LOG(ERR, "qp_create: qp_type %d is neither RC nor UD", (int)ia->qp_type);
		return -EINVAL;
	}
	if (ia->qp_type == ORDK_QPT_UD && vdev(pd->dev)->attr.max_ud_msg == 0) {
		VERBS_LOG(ERR, "qp_create: this device has no UD QPs");
		return -EINVAL;
	}
	if (ia->max_inline_data > vdev(pd->dev)->attr.max_inline_data) {
		VERBS_LOG(ERR, "qp_create: max_inline_data %u is above the device's (%u)",
			  ia->max_inline_data, vdev(pd->dev)->attr.max_inline_data);
		return -EINVAL;
	}
	if (ia->max_send_sge > vdev(pd->dev)->attr.max_sge) {
		VERBS_LOG(ERR, "qp_create: max_send_sge %u is above the device's max_sge (%u)",
			  ia->max_send_sge, vdev(pd->dev)->attr.max_sge);
		return -EINVAL;
	}
	return 0;
}

/*
 * The slots of the QP's send WRs (ordk_driver.h): a registered area of inline
 * bytes and, for an RC QP that gathers, the packets its driver assembles from
 * several SGEs; and the WRs' gather lists. Not the caller's memory: an inline
 * WR's bytes must outlive the post (the card reads them when it sends, and
 * again when it resends), and the card reads only registered memory.
 * @return 0 or a negative errno.
 */
static int
wr_slots(struct verbs_qp *qp)
{
	uint32_t want = qp->init.max_inline_data, sge = qp->init.max_send_sge;
	size_t len;

	qp->inl_slots = rte_align32pow2(qp->init.max_send_wr);
	if (sge > 1) {
		qp->sgl = rte_zmalloc("ordk_sgl", sizeof(*qp->sgl) * sge * qp->inl_slots, 0);
		if (qp->sgl == NULL)
			return -ENOMEM;
	}
	if (want > 0)
		qp->inl_stride = RTE_MIN(RTE_ALIGN_CEIL(want, 64u), vdev(qp->dev)->attr.max_inline_data);
	qp->gat_stride = sge > 1 && !verbs_qp_is_ud(qp) ? (sge - 1) * VERBS_GATHER_PKT : 0;
	len = (size_t)(qp->inl_stride + qp->gat_stride) * qp->inl_slots;
	if (len == 0)
		return 0;
	qp->inl = rte_zmalloc("ordk_inline", len, RTE_CACHE_LINE_SIZE);
	if (qp->inl == NULL)
		return -ENOMEM;
	qp->inl_mr = ordk_mr_reg(qp->pd, qp->inl, len, 0);
	if (qp->inl_mr == NULL) {
		VERBS_LOG(ERR, "qp_create: cannot register the send WR slots (%zu bytes): %s", len,
			  rte_strerror(rte_errno));
		rte_free(qp->inl);
		qp->inl = NULL;
		return -rte_errno;
	}
	qp->init.max_inline_data = qp->inl_stride; /* what the QP got */
	return 0;
}

static void
wr_slots_free(struct verbs_qp *qp)
{
	rte_free(qp->sgl);
	qp->sgl = NULL;
	if (qp->inl_mr == NULL) {
		rte_free(qp->inl); /* (allocated, its registration failed: freed there) */
		qp->inl = NULL;
		return;
	}
	/* the device still has it: leave the memory rather than let the card read freed bytes */
	if (ordk_mr_dereg(qp->inl_mr) == 0)
		rte_free(qp->inl);
	qp->inl_mr = NULL;
	qp->inl = NULL;
}

struct ordk_qp *
ordk_qp_create(struct ordk_pd *pd, const struct ordk_qp_init_attr *ia)
{
	struct verbs_dev *dev;
	struct verbs_qp *qp;
	int rc = qp_create_check(pd, ia);

	if (rc != 0) {
		rte_errno = -rc;
		return NULL;
	}
	dev = vdev(pd->dev);
	qp = verbs_handle_alloc(dev->ops->qp_size, RTE_CACHE_LINE_SIZE);
	if (qp == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	qp->magic = VERBS_MAGIC_QP;
	qp->dev = pd->dev;
	qp->pd = pd;
	qp->scq = ia->send_cq;
	qp->rcq = ia->recv_cq;
	qp->srq = ia->srq;
	qp->ctx = ia->qp_context;
	qp->init = *ia;
	if (qp->init.qp_type == 0)
		qp->init.qp_type = ORDK_QPT_RC;
	if (qp->init.max_send_sge == 0)
		qp->init.max_send_sge = 1;
	qp->attr.qp_state = ORDK_QPS_RESET;
	rc = verbs_trace_qp_init(qp, dev->trace_depth); /* trace=: its timeline, before any event */
	if (rc == 0)
		rc = wr_slots(qp);
	if (rc == 0)
		rc = dev->ops->qp_create((struct ordk_qp *)qp);
	if (rc == 0 && rte_hash_add_key_data(dev->qp_table, &qp->qpn, qp) != 0) {
		dev->ops->qp_destroy((struct ordk_qp *)qp);
		rc = -ENOMEM;
	}
	if (rc != 0) {
		wr_slots_free(qp);
		verbs_trace_qp_fini(qp);
		verbs_handle_free(qp, dev->ops->qp_size);
		rte_errno = -rc;
		return NULL;
	}
	pd->refs++;
	qp->scq->refs++;
	qp->rcq->refs++;
	if (qp->srq != NULL) {
		qp->srq->nqp++;
		TAILQ_INSERT_TAIL(&qp->srq->qps, qp, srq_link);
	}
	dev->nqp++;
	return (struct ordk_qp *)qp;
}

int
ordk_qp_destroy(struct ordk_qp *oqp)
{
	struct verbs_qp *qp = vqp(oqp);
	struct verbs_dev *dev;
	int rc;

	if (!qp_live(qp))
		return -EINVAL;
	dev = vdev(qp->dev);
	rc = dev->ops->qp_destroy(oqp);
	rte_hash_del_key(dev->qp_table, &qp->qpn);
	qp->pd->refs--;
	qp->scq->refs--;
	qp->rcq->refs--;
	if (qp->srq != NULL) {
		qp->srq->nqp--;
		TAILQ_REMOVE(&qp->srq->qps, qp, srq_link);
	}
	dev->nqp--;
	verbs_stats_add(&dev->st, &qp->st); /* the device's totals keep its counts */
	wr_slots_free(qp);
	verbs_trace_qp_fini(qp);
	verbs_handle_free(qp, dev->ops->qp_size);
	return rc;
}

uint32_t
ordk_qp_num(const struct ordk_qp *qp)
{
	return qp_live(qp) ? vqp_const(qp)->qpn : 0;
}

int
ordk_qp_query(const struct ordk_qp *qp, struct ordk_qp_attr *attr, struct ordk_qp_init_attr *init)
{
	if (!qp_live(qp))
		return -EINVAL;
	if (attr != NULL)
		*attr = vqp_const(qp)->attr;
	if (init != NULL)
		*init = vqp_const(qp)->init;
	return 0;
}

int
ordk_qp_info(const struct ordk_qp *qp, struct ordk_qp_info *info)
{
	if (!qp_live(qp) || info == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	vdev(vqp_const(qp)->dev)->ops->qp_info(qp, info);
	info->state = vqp_const(qp)->attr.qp_state;
	return 0;
}

/* Congestion control is the pacing driver's (ops->qp_cc_enable, qp_cc_query). */
int
ordk_qp_cc_enable(struct ordk_qp *qp, bool on)
{
	if (!qp_live(qp))
		return -EINVAL;
	if (vdev(vqp(qp)->dev)->ops->qp_cc_enable == NULL)
		return -ENOTSUP;
	return vdev(vqp(qp)->dev)->ops->qp_cc_enable(qp, on);
}

int
ordk_qp_cc_query(const struct ordk_qp *qp, struct ordk_qp_cc *cc)
{
	if (!qp_live(qp) || cc == NULL)
		return -EINVAL;
	memset(cc, 0, sizeof(*cc));
	if (vdev(vqp_const(qp)->dev)->ops->qp_cc_query == NULL)
		return -ENOTSUP;
	return vdev(vqp_const(qp)->dev)->ops->qp_cc_query(qp, cc);
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

#define UD_INIT_REQ (ORDK_QP_STATE | ORDK_QP_PKEY_INDEX | ORDK_QP_PORT | ORDK_QP_QKEY)

/* A UD QP's transitions (IBA 11.2.4.2 for UD): no peer, no PSNs received, no timers. */
static struct qp_transition
transition_ud(enum ordk_qp_state cur, enum ordk_qp_state next)
{
	struct qp_transition t = { false, 0, 0 };

	if (cur == ORDK_QPS_RESET && next == ORDK_QPS_INIT)
		t = (struct qp_transition){ true, UD_INIT_REQ, 0 };
	else if (cur == ORDK_QPS_INIT && next == ORDK_QPS_INIT)
		t = (struct qp_transition){ true, 0, UD_INIT_REQ & ~ORDK_QP_STATE };
	else if (cur == ORDK_QPS_INIT && next == ORDK_QPS_RTR)
		t = (struct qp_transition){ true, ORDK_QP_STATE, ORDK_QP_PKEY_INDEX | ORDK_QP_QKEY };
	else if (cur == ORDK_QPS_RTR && next == ORDK_QPS_RTS)
		t = (struct qp_transition){ true, ORDK_QP_STATE | ORDK_QP_SQ_PSN, ORDK_QP_QKEY };
	else if (cur == ORDK_QPS_RTS && next == ORDK_QPS_RTS)
		t = (struct qp_transition){ true, 0, ORDK_QP_QKEY };
	return t;
}

static struct qp_transition
transition(bool ud, enum ordk_qp_state cur, enum ordk_qp_state next)
{
	struct qp_transition t = { false, 0, 0 };

	if (next == ORDK_QPS_RESET || next == ORDK_QPS_ERR)
		return (struct qp_transition){ true, ORDK_QP_STATE, 0 };
	if (ud)
		return transition_ud(cur, next);
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

/* The transition from cur to next with attribute bits @p mask: legal, with what it needs. */
static int
check_transition(const struct verbs_qp *qp, enum ordk_qp_state cur, enum ordk_qp_state next,
		 unsigned int mask)
{
	struct qp_transition t;

	if ((unsigned int)next >= ORDK_QPS_COUNT) {
		VERBS_LOG(ERR, "qp 0x%06x: unknown state %d", qp->qpn, (int)next);
		return -EINVAL;
	}
	t = transition(verbs_qp_is_ud(qp), cur, next);
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
	return 0;
}

#define QPN_PSN_MASK 0xFFFFFFu /* 24 bits (IBA 9.2) */

/* Value ranges of IBA and ibverbs; the driver judges its own limits (ops->qp_check). */
static int
check_values(const struct verbs_qp *qp, const struct ordk_qp_attr *a, unsigned int mask)
{
	if (((mask & ORDK_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~(unsigned int)VERBS_ACCESS_ALL)) ||
	    ((mask & ORDK_QP_PATH_MTU) &&
	     (a->path_mtu < ORDK_MTU_256 || a->path_mtu > ORDK_MTU_4096)) ||
	    ((mask & ORDK_QP_RQ_PSN) && a->rq_psn > QPN_PSN_MASK) ||
	    ((mask & ORDK_QP_SQ_PSN) && a->sq_psn > QPN_PSN_MASK) ||
	    ((mask & ORDK_QP_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((mask & ORDK_QP_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((mask & ORDK_QP_TIMEOUT) && a->timeout > 31) ||
	    ((mask & ORDK_QP_PKEY_INDEX) && a->pkey_index != 0) ||
	    ((mask & ORDK_QP_PORT) && a->port_num != 1)) {
		VERBS_LOG(ERR, "qp 0x%06x: an attribute value is out of range", qp->qpn);
		return -EINVAL;
	}
	return 0;
}

/*
 * The peer a caller names (from lib/cm, its own exchange or ibverbs): a QPN an
 * RC QP can reach and a unicast MAC and IPv4 the card can send to, the field
 * named in the log.
 */
static int
check_peer(const struct verbs_qp *qp, const struct ordk_qp_attr *a, unsigned int mask)
{
	char why[128];

	if (((mask & ORDK_QP_DEST_QPN) &&
	     ordk_devargs_check_qpn("dest_qp_num", a->dest_qp_num, why, sizeof(why)) != 0) ||
	    ((mask & ORDK_QP_AV) &&
	     (ordk_devargs_check_mac("dest_mac", a->dest_mac, why, sizeof(why)) != 0 ||
	      ordk_devargs_check_ipv4("dest_ip", a->dest_ip, 0, why, sizeof(why)) != 0))) {
		VERBS_LOG(ERR, "qp 0x%06x: %s", qp->qpn, why);
		return -EINVAL;
	}
	return 0;
}

/* The attributes @p mask names, from @p a into @p attr. */
static void
apply_attrs(struct ordk_qp_attr *attr, const struct ordk_qp_attr *a, unsigned int mask)
{
	if (mask & ORDK_QP_ACCESS_FLAGS)
		attr->qp_access_flags = a->qp_access_flags;
	if (mask & ORDK_QP_PATH_MTU)
		attr->path_mtu = a->path_mtu;
	if (mask & ORDK_QP_DEST_QPN)
		attr->dest_qp_num = a->dest_qp_num;
	if (mask & ORDK_QP_RQ_PSN)
		attr->rq_psn = a->rq_psn;
	if (mask & ORDK_QP_SQ_PSN)
		attr->sq_psn = a->sq_psn;
	if (mask & ORDK_QP_AV) {
		attr->dest_ip = a->dest_ip;
		attr->dest_mac = a->dest_mac;
	}
	if (mask & ORDK_QP_TIMEOUT)
		attr->timeout = a->timeout;
	if (mask & ORDK_QP_RETRY_CNT)
		attr->retry_cnt = a->retry_cnt;
	if (mask & ORDK_QP_RNR_RETRY)
		attr->rnr_retry = a->rnr_retry;
	if (mask & ORDK_QP_MIN_RNR_TIMER)
		attr->min_rnr_timer = a->min_rnr_timer;
	if (mask & ORDK_QP_MAX_QP_RD_ATOMIC)
		attr->max_rd_atomic = a->max_rd_atomic;
	if (mask & ORDK_QP_MAX_DEST_RD_ATOMIC)
		attr->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & ORDK_QP_QKEY)
		attr->qkey = a->qkey;
	if (mask & ORDK_QP_PKEY_INDEX)
		attr->pkey_index = a->pkey_index;
	if (mask & ORDK_QP_PORT)
		attr->port_num = a->port_num;
}

int
ordk_qp_modify(struct ordk_qp *oqp, const struct ordk_qp_attr *a, unsigned int mask)
{
	struct verbs_qp *qp = vqp(oqp);
	const struct ordk_dev_ops *ops;
	enum ordk_qp_state cur, next;
	struct ordk_qp_attr old;
	int rc;

	if (!qp_live(qp) || a == NULL)
		return -EINVAL;
	ops = vdev(qp->dev)->ops;
	cur = qp->attr.qp_state;
	next = (mask & ORDK_QP_STATE) ? a->qp_state : cur;
	rc = check_transition(qp, cur, next, mask);
	if (rc == 0)
		rc = check_values(qp, a, mask);
	if (rc == 0)
		rc = check_peer(qp, a, mask);
	if (rc == 0)
		rc = ops->qp_check(oqp, a, mask);
	if (rc != 0)
		return rc;
	old = qp->attr;
	apply_attrs(&qp->attr, a, mask);
	rc = ops->qp_modify(oqp, cur, next);
	if (rc != 0) {
		qp->attr = old;
		return rc;
	}
	qp->attr.qp_state = next;
	if (next != cur)
		verbs_trace(oqp, VERBS_TRACE_state, cur, next);
	return 0;
}

/* ------------------------------------------------------------------ post */

/* Post WRs one by one until one is refused; @return how many went in. */
static int
post_many(struct ordk_qp *oqp, const void *wrs, size_t wr_size, int n,
	  int (*post_one)(struct ordk_qp *, const void *))
{
	struct verbs_qp *qp = vqp(oqp);
	int i;

	if (qp == NULL || wrs == NULL || n < 0) {
		rte_errno = EINVAL;
		return 0;
	}
	for (i = 0; i < n; i++) {
		int rc = post_one(oqp, (const uint8_t *)wrs + (size_t)i * wr_size);

		if (rc != 0) {
			rte_errno = -rc;
			break;
		}
	}
	if (i > 0)
		vdev(qp->dev)->ops->post_done(oqp);
	return i;
}

static int
post_send_one(struct ordk_qp *qp, const void *v)
{
	const struct ordk_send_wr *wr = v;
	const struct verbs_qp *q = vqp(qp);

	/* the gather list's shape; its SGEs are the driver's to check (lkeys, bounds) */
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > q->init.max_send_sge ||
	    (wr->sg_list == NULL && wr->num_sge > 1)) {
		VERBS_LOG(ERR, "qp 0x%06x: post_send: num_sge %d (the QP's max_send_sge is %u%s)",
			  q->qpn, wr->num_sge, q->init.max_send_sge,
			  wr->sg_list == NULL && wr->num_sge > 1 ? "; sg_list is NULL" : "");
		return -EINVAL;
	}
	if (verbs_wr_len(wr) > vdev(q->dev)->attr.max_msg_sz) {
		VERBS_LOG(ERR, "qp 0x%06x: post_send: %" PRIu64 " bytes: above max_msg_sz (%u)", q->qpn,
			  verbs_wr_len(wr), vdev(q->dev)->attr.max_msg_sz);
		return -EINVAL;
	}
	return vdev(q->dev)->ops->post_send(qp, wr);
}

static int
post_recv_one(struct ordk_qp *qp, const void *wr)
{
	if (vqp(qp)->srq != NULL) {
		VERBS_LOG(ERR, "qp 0x%06x: post_recv: the QP receives from its SRQ", vqp(qp)->qpn);
		return -EINVAL;
	}
	return vdev(vqp(qp)->dev)->ops->post_recv(qp, wr);
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
