/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RC and UD queue pairs on ordk_qp: creation, the state machine with ibverbs' masks
 * mapped to ORDK's, the address vector (a RoCE v2 GID, IPv4-mapped, gives the
 * peer's IP; the IP gives its MAC, see ibv_dev.c), and posting.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "ibv_internal.h"

#define OV_MAX_RD_ATOM 16 /* ibv_query_device()'s max_qp_rd_atom */

/* a WR's sg_list goes to ORDK as it is */
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct ordk_sge) &&
		       offsetof(struct ibv_sge, addr) == offsetof(struct ordk_sge, addr) &&
		       offsetof(struct ibv_sge, length) == offsetof(struct ordk_sge, length) &&
		       offsetof(struct ibv_sge, lkey) == offsetof(struct ordk_sge, lkey),
	       "ibv_sge and ordk_sge have one layout");

/*
 * Capabilities above the device's: EINVAL, as rdma-core's providers answer. A
 * send WR gathers up to max_sge SGEs; a RECV lands in one buffer.
 */
static bool
caps_ok(const struct ov_dev *d, const struct ibv_qp_cap *c, const char *verb)
{
	if (c->max_inline_data <= d->attr.max_inline_data && c->max_send_sge <= d->attr.max_sge &&
	    c->max_recv_sge <= d->attr.max_recv_sge)
		return true;
	OV_LOG(ERR, "%s: max_inline_data %u, max_send_sge %u, max_recv_sge %u: at most %u, %u, %u\n",
	       verb, c->max_inline_data, c->max_send_sge, c->max_recv_sge, d->attr.max_inline_data,
	       d->attr.max_sge, d->attr.max_recv_sge);
	return false;
}

static struct ibv_qp *
qp_create(struct ibv_pd *pd, struct ibv_qp_init_attr *a, const char *verb)
{
	struct ov_cq *scq = (struct ov_cq *)a->send_cq, *rcq = (struct ov_cq *)a->recv_cq;
	bool ud = a->qp_type == IBV_QPT_UD;
	struct ordk_qp_init_attr oa = {
		/* ORDK answers READs from the responder's send queue: room for them */
		.max_send_wr = ud ? RTE_MAX(a->cap.max_send_wr, 1u)
				  : a->cap.max_send_wr + OV_MAX_RD_ATOM,
		.max_recv_wr = a->cap.max_recv_wr ? a->cap.max_recv_wr : 1,
		.qp_type = ud ? ORDK_QPT_UD : ORDK_QPT_RC,
	}, got;
	struct ov_dev *d;
	struct ov_qp *q;

	if (!OV_LIVE((struct ov_pd *)pd, OV_MAGIC_PD) || (scq != NULL && !OV_LIVE(scq, OV_MAGIC_CQ)) ||
	    (rcq != NULL && !OV_LIVE(rcq, OV_MAGIC_CQ)) ||
	    (a->srq != NULL && !OV_LIVE((struct ov_srq *)a->srq, OV_MAGIC_SRQ))) {
		errno = EINVAL;
		return NULL;
	}
	d = ov_dev_of(pd->context);
	oa.send_cq = scq != NULL ? scq->o : NULL;
	oa.recv_cq = rcq != NULL ? rcq->o : NULL;
	if (a->qp_type != IBV_QPT_RC && !ud) {
		OV_REFUSE(verb, a->qp_type == IBV_QPT_XRC_SEND || a->qp_type == IBV_QPT_XRC_RECV ?
				"XRC QPs: RC and UD only" : "this QP type: RC and UD only");
		return NULL;
	}
	/* on an SRQ its own receive queue is unused: max_recv_wr is not looked at */
	oa.srq = a->srq != NULL ? ((struct ov_srq *)a->srq)->o : NULL;
	if (!caps_ok(d, &a->cap, verb)) {
		errno = EINVAL;
		return NULL;
	}
	oa.max_inline_data = a->cap.max_inline_data;
	oa.max_send_sge = a->cap.max_send_sge;
	q = calloc(1, sizeof(*q));
	if (q == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	oa.qp_context = q; /* async events find their ov_qp (ibv_async.c) */
	pthread_mutex_lock(&d->lock);
	q->o = ordk_qp_create(((struct ov_pd *)pd)->o, &oa);
	if (q->o != NULL) {
		q->next = d->qps;
		d->qps = q;
	}
	pthread_mutex_unlock(&d->lock);
	if (q->o == NULL) {
		errno = rte_errno;
		free(q);
		return NULL;
	}
	q->d = d;
	q->sq_sig_all = (uint8_t)(a->sq_sig_all != 0);
	q->qp.context = pd->context;
	q->qp.qp_context = a->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = a->send_cq;
	q->qp.recv_cq = a->recv_cq;
	q->qp.srq = a->srq;
	q->qp.qp_num = ordk_qp_num(q->o);
	q->qp.state = IBV_QPS_RESET;
	q->qp.qp_type = a->qp_type;
	pthread_mutex_init(&q->qp.mutex, NULL);
	pthread_cond_init(&q->qp.cond, NULL);
	q->magic = OV_MAGIC_QP;
	if (a->srq != NULL)
		a->cap.max_recv_wr = 0;
	ordk_qp_query(q->o, NULL, &got); /* the inline bytes it got (rounded up to 64), its SGEs */
	a->cap.max_inline_data = got.max_inline_data;
	a->cap.max_send_sge = got.max_send_sge;
	a->cap.max_recv_sge = d->attr.max_recv_sge;
	return &q->qp;
}

struct ibv_qp *
ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	return qp_create(pd, a, "ibv_create_qp");
}

struct ibv_qp *
ov_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *a)
{
	struct ibv_qp_init_attr ia;

	(void)c;
	if (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		OV_REFUSE("ibv_create_qp_ex", "send_ops_flags: the ibv_wr_* API (use ibv_post_send)");
		return NULL;
	}
	if (a->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD || a->pd == NULL) {
		OV_REFUSE("ibv_create_qp_ex", "attributes other than a PD (XRC, RSS, TSO, create flags)");
		return NULL;
	}
	memcpy(&ia, a, sizeof(ia)); /* ibv_qp_init_attr is ibv_qp_init_attr_ex's head */
	return qp_create(a->pd, &ia, "ibv_create_qp_ex");
}

struct ibv_qp_ex *
ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	(void)qp;
	OV_REFUSE("ibv_qp_to_qp_ex", "the ibv_wr_* API: use ibv_post_send");
	return NULL;
}

static const enum ordk_qp_state to_ordk_state[] = {
	[IBV_QPS_RESET] = ORDK_QPS_RESET, [IBV_QPS_INIT] = ORDK_QPS_INIT,
	[IBV_QPS_RTR] = ORDK_QPS_RTR,	  [IBV_QPS_RTS] = ORDK_QPS_RTS,
	[IBV_QPS_SQD] = ORDK_QPS_COUNT,	  [IBV_QPS_SQE] = ORDK_QPS_COUNT,
	[IBV_QPS_ERR] = ORDK_QPS_ERR,
};

static const enum ibv_qp_state to_ibv_state[ORDK_QPS_COUNT] = {
	[ORDK_QPS_RESET] = IBV_QPS_RESET, [ORDK_QPS_INIT] = IBV_QPS_INIT,
	[ORDK_QPS_RTR] = IBV_QPS_RTR,	  [ORDK_QPS_RTS] = IBV_QPS_RTS,
	[ORDK_QPS_ERR] = IBV_QPS_ERR,
};

/* (see ov_query_port() for the LID) */
int
ov_av_ip(const struct ov_dev *d, const struct ibv_ah_attr *ah, uint32_t *ip, const char *verb)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const uint8_t *g = ah->grh.dgid.raw;

	if (!ah->is_global) {
		*ip = (d->attr.ip & 0xffff0000u) | ah->dlid;
		return 0;
	}
	if (memcmp(g, v4mapped, sizeof(v4mapped)) != 0) {
		OV_LOG(ERR, "%s: the destination GID is not an IPv4-mapped RoCE v2 GID\n", verb);
		return EINVAL;
	}
	*ip = (uint32_t)g[12] << 24 | (uint32_t)g[13] << 16 | (uint32_t)g[14] << 8 | g[15];
	return 0;
}

/*
 * Every QP starts at PSN 0 both ways, whatever the application chose. The
 * card takes first PSNs 0..ORDK_PSN_FIRST_MAX only; passing the application's
 * through, folded into that range (psn % 0x7fff80, alike on both peers), made
 * perftest's ib_read_bw fail with RETRY_EXC_ERR on its first READ: ORDK
 * answers READs in the responder's send PSN space, which starts at sq_psn at
 * RTS, and perftest's bandwidth servers stay in RTR, so they answer from PSN
 * 0 whatever PSN they told the peer (doc/guides/prog_guide/verbs_compat.md). Peers agree
 * since both sides do this; ORDK's own tools use 0 too.
 */
static uint32_t
ov_psn(uint32_t psn)
{
	(void)psn;
	return 0;
}

/* The access flags a QP takes (ORDK's values are ibverbs' for these four). */
#define OV_QP_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
		      IBV_ACCESS_REMOTE_ATOMIC)

/*
 * ibverbs' attribute mask to ORDK's; PKEY_INDEX and PORT are checked and
 * dropped. Unknown access bits are refused (EINVAL), as a kernel provider does.
 */
static int
attr_in(struct ov_dev *d, bool ud, const struct ibv_qp_attr *a, int m, struct ordk_qp_attr *o,
	unsigned int *om)
{
	static const struct { int ibv; unsigned int ordk; } bits[] = {
		{ IBV_QP_STATE, ORDK_QP_STATE },
		{ IBV_QP_ACCESS_FLAGS, ORDK_QP_ACCESS_FLAGS },
		{ IBV_QP_PATH_MTU, ORDK_QP_PATH_MTU },
		{ IBV_QP_DEST_QPN, ORDK_QP_DEST_QPN },
		{ IBV_QP_RQ_PSN, ORDK_QP_RQ_PSN },
		{ IBV_QP_SQ_PSN, ORDK_QP_SQ_PSN },
		{ IBV_QP_AV, ORDK_QP_AV },
		{ IBV_QP_TIMEOUT, ORDK_QP_TIMEOUT },
		{ IBV_QP_RETRY_CNT, ORDK_QP_RETRY_CNT },
		{ IBV_QP_RNR_RETRY, ORDK_QP_RNR_RETRY },
		{ IBV_QP_MIN_RNR_TIMER, ORDK_QP_MIN_RNR_TIMER },
		{ IBV_QP_MAX_QP_RD_ATOMIC, ORDK_QP_MAX_QP_RD_ATOMIC },
		{ IBV_QP_MAX_DEST_RD_ATOMIC, ORDK_QP_MAX_DEST_RD_ATOMIC },
		{ IBV_QP_QKEY, ORDK_QP_QKEY },
	};
	int known = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_CUR_STATE;

	*om = 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		known |= bits[i].ibv;
		if (m & bits[i].ibv)
			*om |= bits[i].ordk;
	}
	if (ud) /* UD's RESET->INIT requires them (ORDK checks them); RC's are dropped */
		*om |= (m & IBV_QP_PKEY_INDEX ? ORDK_QP_PKEY_INDEX : 0) |
		       (m & IBV_QP_PORT ? ORDK_QP_PORT : 0);
	if (m & ~known) {
		OV_REFUSE("ibv_modify_qp", "alternate paths, SQD, rate limits, capabilities");
		return EOPNOTSUPP;
	}
	if (((m & IBV_QP_ACCESS_FLAGS) && (a->qp_access_flags & ~(unsigned int)OV_QP_ACCESS)) ||
	    ((m & IBV_QP_PORT) && a->port_num != 1) ||
	    ((m & IBV_QP_PKEY_INDEX) && a->pkey_index != 0) ||
	    ((m & IBV_QP_STATE) && ((unsigned int)a->qp_state > IBV_QPS_ERR ||
				    to_ordk_state[a->qp_state] == ORDK_QPS_COUNT)))
		return EINVAL;
	memset(o, 0, sizeof(*o));
	o->qp_state = (m & IBV_QP_STATE) ? to_ordk_state[a->qp_state] : ORDK_QPS_RESET;
	o->qp_access_flags = a->qp_access_flags & OV_QP_ACCESS;
	o->path_mtu = (enum ordk_mtu)a->path_mtu;
	o->dest_qp_num = a->dest_qp_num;
	o->rq_psn = ov_psn(a->rq_psn);
	o->sq_psn = ov_psn(a->sq_psn);
	o->timeout = a->timeout;
	o->retry_cnt = a->retry_cnt;
	o->rnr_retry = a->rnr_retry;
	o->min_rnr_timer = a->min_rnr_timer;
	o->max_rd_atomic = a->max_rd_atomic;
	o->max_dest_rd_atomic = a->max_dest_rd_atomic;
	o->qkey = a->qkey;
	o->pkey_index = a->pkey_index;
	o->port_num = a->port_num;
	if (ud) /* UD has no PSNs received: its first sent one is the application's */
		o->sq_psn = a->sq_psn & 0xFFFFFFu;
	if (m & IBV_QP_AV) {
		int rc = ov_av_ip(d, &a->ah_attr, &o->dest_ip, "ibv_modify_qp");

		if (rc != 0)
			return rc;
		o->dest_mac = ov_mac_of(o->dest_ip);
	}
	return 0;
}

int
ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct ov_qp *q = (struct ov_qp *)qp;
	struct ordk_qp_attr o;
	unsigned int om;
	int rc;

	if (!OV_LIVE(q, OV_MAGIC_QP) || attr == NULL)
		return EINVAL;
	rc = attr_in(q->d, qp->qp_type == IBV_QPT_UD, attr, mask, &o, &om);
	if (rc != 0)
		return rc;
	pthread_mutex_lock(&q->d->lock);
	rc = ordk_qp_modify(q->o, &o, om);
	pthread_mutex_unlock(&q->d->lock);
	if (rc != 0)
		return -rc;
	if (mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

/*
 * 0: not guaranteed. The card places each packet where its PSN says, and
 * after a loss the resent packets land after later ones of the same message.
 */
int
ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;
}

int
ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init)
{
	struct ov_qp *q = (struct ov_qp *)qp;
	struct ordk_qp_init_attr oi;
	struct ordk_qp_attr o;
	uint32_t ip;
	int rc;

	(void)mask; /* everything is filled in */
	if (!OV_LIVE(q, OV_MAGIC_QP) || attr == NULL)
		return EINVAL;
	pthread_mutex_lock(&q->d->lock);
	rc = ordk_qp_query(q->o, &o, &oi);
	pthread_mutex_unlock(&q->d->lock);
	if (rc != 0)
		return -rc;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (unsigned int)o.qp_state < ORDK_QPS_COUNT ? to_ibv_state[o.qp_state]
								   : IBV_QPS_ERR;
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = (enum ibv_mtu)o.path_mtu;
	attr->qp_access_flags = o.qp_access_flags;
	attr->dest_qp_num = o.dest_qp_num;
	attr->rq_psn = o.rq_psn;
	attr->sq_psn = o.sq_psn;
	attr->timeout = o.timeout;
	attr->retry_cnt = o.retry_cnt;
	attr->rnr_retry = o.rnr_retry;
	attr->min_rnr_timer = o.min_rnr_timer;
	attr->max_rd_atomic = o.max_rd_atomic;
	attr->max_dest_rd_atomic = o.max_dest_rd_atomic;
	attr->qkey = o.qkey;
	attr->port_num = 1;
	attr->ah_attr.is_global = 1;
	attr->ah_attr.port_num = 1;
	ip = o.dest_ip;
	attr->ah_attr.grh.dgid.raw[10] = 0xff;
	attr->ah_attr.grh.dgid.raw[11] = 0xff;
	for (int i = 0; i < 4; i++)
		attr->ah_attr.grh.dgid.raw[12 + i] = (uint8_t)(ip >> (24 - 8 * i));
	attr->cap.max_send_wr = oi.max_send_wr;
	attr->cap.max_recv_wr = oi.srq != NULL ? 0 : oi.max_recv_wr;
	attr->cap.max_send_sge = oi.max_send_sge;
	attr->cap.max_recv_sge = q->d->attr.max_recv_sge;
	attr->cap.max_inline_data = oi.max_inline_data;
	if (init != NULL) {
		memset(init, 0, sizeof(*init));
		init->qp_context = qp->qp_context;
		init->send_cq = qp->send_cq;
		init->recv_cq = qp->recv_cq;
		init->srq = qp->srq;
		init->cap = attr->cap;
		init->qp_type = qp->qp_type;
		init->sq_sig_all = q->sq_sig_all;
	}
	return 0;
}

int
ibv_destroy_qp(struct ibv_qp *qp)
{
	struct ov_qp *q = (struct ov_qp *)qp;
	int rc;

	if (!OV_LIVE(q, OV_MAGIC_QP))
		return EINVAL;
	pthread_mutex_lock(&q->d->lock);
	rc = ordk_qp_destroy(q->o);
	if (rc == 0) {
		for (struct ov_qp **p = &q->d->qps; *p != NULL; p = &(*p)->next)
			if (*p == q) {
				*p = q->next;
				break;
			}
		ov_async_purge(q->d, qp);
	}
	pthread_mutex_unlock(&q->d->lock);
	if (rc != 0)
		return -rc;
	ov_async_wait_acks(&qp->mutex, &qp->cond, &qp->events_completed, q->async_reported);
	pthread_mutex_destroy(&qp->mutex);
	pthread_cond_destroy(&qp->cond);
	ov_retire(q, &q->magic);
	return 0;
}

/* ---------------------------------------------------------------- posting */

static const enum ordk_wr_opcode wr_op[] = {
	[IBV_WR_RDMA_WRITE] = ORDK_WR_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = ORDK_WR_RDMA_WRITE_WITH_IMM,
	[IBV_WR_SEND] = ORDK_WR_SEND,
	[IBV_WR_SEND_WITH_IMM] = ORDK_WR_SEND_WITH_IMM,
	[IBV_WR_RDMA_READ] = ORDK_WR_RDMA_READ,
	[IBV_WR_ATOMIC_CMP_AND_SWP] = ORDK_WR_ATOMIC_CMP_AND_SWP,
	[IBV_WR_ATOMIC_FETCH_AND_ADD] = ORDK_WR_ATOMIC_FETCH_AND_ADD,
};

static int
send_wr_in(const struct ov_qp *q, const struct ibv_send_wr *w, struct ordk_send_wr *o)
{
	if ((unsigned int)w->opcode > IBV_WR_ATOMIC_FETCH_AND_ADD) {
		OV_REFUSE("ibv_post_send", "this opcode (LOCAL_INV, BIND_MW, SEND_WITH_INV, TSO, ...)");
		return EOPNOTSUPP;
	}
	if (w->num_sge < 0 || (w->num_sge > 0 && w->sg_list == NULL))
		return EINVAL;
	memset(o, 0, sizeof(*o));
	o->wr_id = w->wr_id;
	o->opcode = wr_op[w->opcode];
	o->send_flags = ((w->send_flags & IBV_SEND_SIGNALED) || q->sq_sig_all ? ORDK_SEND_SIGNALED : 0) |
			(w->send_flags & IBV_SEND_FENCE ? ORDK_SEND_FENCE : 0) |
			(w->send_flags & IBV_SEND_SOLICITED ? ORDK_SEND_SOLICITED : 0) |
			/* copied at the post (lib/verbs' inline area): the lkey is not looked at */
			(w->send_flags & IBV_SEND_INLINE ? ORDK_SEND_INLINE : 0);
	/* the gather list as it is (ibv_sge is ordk_sge): read during the post only */
	o->num_sge = w->num_sge;
	o->sg_list = w->num_sge > 0 ? (const struct ordk_sge *)(const void *)w->sg_list : NULL;
	o->imm_data = w->imm_data;
	if (q->qp.qp_type == IBV_QPT_UD) {
		struct ov_ah *ah = (struct ov_ah *)w->wr.ud.ah;

		if (!OV_LIVE(ah, OV_MAGIC_AH))
			return EINVAL;
		o->ud.ah = ah->o;
		o->ud.remote_qpn = w->wr.ud.remote_qpn;
		o->ud.remote_qkey = w->wr.ud.remote_qkey;
	} else if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		o->atomic.remote_addr = w->wr.atomic.remote_addr;
		o->atomic.rkey = w->wr.atomic.rkey;
		o->atomic.compare_add = w->wr.atomic.compare_add;
		o->atomic.swap = w->wr.atomic.swap;
	} else {
		o->rdma.remote_addr = w->wr.rdma.remote_addr;
		o->rdma.rkey = w->wr.rdma.rkey;
	}
	return 0;
}

#define OV_BATCH 32

/* What ibv_poll_cq() needs to tell an idle device (see ov_linger_leave()). */
static void
count_posted(struct ov_dev *d, const struct ordk_send_wr *o, int k)
{
	for (int i = 0; i < k; i++) {
		if (o[i].send_flags & ORDK_SEND_SIGNALED) {
			d->sq_out++;
			d->unsig_tail = 0;
		} else {
			d->unsig_tail++;
		}
	}
}

int
ov_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct ov_qp *q = (struct ov_qp *)qp;
	struct ibv_send_wr *first[OV_BATCH];
	struct ordk_send_wr o[OV_BATCH];
	int rc = 0;

	if (!OV_LIVE(q, OV_MAGIC_QP)) {
		if (bad != NULL)
			*bad = wr;
		return EINVAL;
	}
	ov_app_call(q->d);
	pthread_mutex_lock(&q->d->lock);
	ov_linger_enter(q->d, true);
	while (wr != NULL && rc == 0) {
		int n = 0, k;

		for (; wr != NULL && n < OV_BATCH; wr = wr->next, n++) {
			first[n] = wr;
			rc = send_wr_in(q, wr, &o[n]);
			if (rc != 0)
				break;
		}
		k = n > 0 ? ordk_qp_post_send(q->o, o, n) : 0;
		count_posted(q->d, o, k);
		if (k < n) {
			rc = rte_errno ? rte_errno : ENOMEM;
			wr = first[k];
		} /* else if rc != 0: wr is the refused one */
	}
	pthread_mutex_unlock(&q->d->lock);
	if (rc != 0 && bad != NULL)
		*bad = wr;
	return rc;
}

int
ov_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct ov_qp *q = (struct ov_qp *)qp;

	if (!OV_LIVE(q, OV_MAGIC_QP)) {
		if (bad != NULL)
			*bad = wr;
		return EINVAL;
	}
	return ov_post_recv_list(q->d, q->o, NULL, wr, bad);
}

int
ov_post_recv_list(struct ov_dev *d, struct ordk_qp *qp, struct ordk_srq *srq,
		  struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct ibv_recv_wr *first[OV_BATCH];
	struct ordk_recv_wr o[OV_BATCH];
	int rc = 0;

	ov_app_call(d);
	pthread_mutex_lock(&d->lock);
	while (wr != NULL && rc == 0) {
		int n = 0, k;

		for (; wr != NULL && n < OV_BATCH; wr = wr->next, n++) {
			if (wr->num_sge > 1 || wr->num_sge < 0 ||
			    (wr->num_sge > 0 && wr->sg_list == NULL)) {
				rc = EINVAL;
				break;
			}
			first[n] = wr;
			o[n].wr_id = wr->wr_id;
			o[n].num_sge = wr->num_sge;
			if (wr->num_sge == 1) {
				o[n].sge.addr = wr->sg_list[0].addr;
				o[n].sge.length = wr->sg_list[0].length;
				o[n].sge.lkey = wr->sg_list[0].lkey;
			}
		}
		k = n == 0	    ? 0
		    : srq != NULL ? ordk_srq_post_recv(srq, o, n)
				  : ordk_qp_post_recv(qp, o, n);
		if (k < n) {
			rc = rte_errno ? rte_errno : ENOMEM;
			wr = first[k];
		}
	}
	pthread_mutex_unlock(&d->lock);
	if (rc != 0 && bad != NULL)
		*bad = wr;
	return rc;
}
