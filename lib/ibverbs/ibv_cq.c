/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PDs, MRs, CQs and completion channels on ordk_pd, ordk_mr and ordk_cq.
 *
 * A completion channel is an eventfd (EFD_SEMAPHORE: one read, one event).
 * An armed CQ's completions are taken out of ORDK by the progress thread into
 * the CQ's staging ring, one event is written to the channel, and
 * ibv_poll_cq() returns staged completions before new ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>

#include "ibv_internal.h"

/* ----------------------------------------------------------------- PD */

struct ibv_pd *
ibv_alloc_pd(struct ibv_context *c)
{
	struct ov_dev *d = ov_dev_of(c);
	struct ov_pd *p = calloc(1, sizeof(*p));

	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	p->o = ordk_pd_alloc(d->dev);
	pthread_mutex_unlock(&d->lock);
	if (p->o == NULL) {
		errno = rte_errno;
		free(p);
		return NULL;
	}
	p->pd.context = c;
	p->magic = OV_MAGIC_PD;
	return &p->pd;
}

int
ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct ov_pd *p = (struct ov_pd *)pd;
	struct ov_dev *d;
	int rc;

	if (!OV_LIVE(p, OV_MAGIC_PD))
		return EINVAL;
	d = ov_dev_of(pd->context);
	pthread_mutex_lock(&d->lock);
	rc = ordk_pd_free(p->o);
	pthread_mutex_unlock(&d->lock);
	if (rc != 0)
		return -rc;
	ov_retire(p, &p->magic);
	return 0;
}

/* ----------------------------------------------------------------- MR */

#define OV_ACCESS_DONE (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
/* hints a device may ignore */
#define OV_ACCESS_IGNORED (IBV_ACCESS_OPTIONAL_RANGE | IBV_ACCESS_HUGETLB)

static struct ibv_mr *
reg_mr(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access,
       const char *verb)
{
	unsigned int a = access & ~(unsigned int)OV_ACCESS_IGNORED;
	struct ov_dev *d;
	struct ov_mr *m;

	if (!OV_LIVE((struct ov_pd *)pd, OV_MAGIC_PD)) {
		errno = EINVAL;
		return NULL;
	}
	d = ov_dev_of(pd->context);
	if (a & IBV_ACCESS_ON_DEMAND) {
		OV_REFUSE(verb, "on-demand paging (ODP)");
		return NULL;
	}
	if (a & ~(unsigned int)OV_ACCESS_DONE) {
		OV_REFUSE(verb, "access flags other than local/remote write, read, atomic");
		return NULL;
	}
	if (iova != (uintptr_t)addr) {
		OV_REFUSE(verb, "an IOVA other than the address: peers address MRs by VA");
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	m->o = ordk_mr_reg(((struct ov_pd *)pd)->o, addr, len, a);
	pthread_mutex_unlock(&d->lock);
	if (m->o == NULL) {
		errno = rte_errno;
		free(m);
		return NULL;
	}
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = m->o->lkey;
	m->mr.rkey = m->o->rkey;
	m->magic = OV_MAGIC_MR;
	return &m->mr;
}

#undef ibv_reg_mr
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
struct ibv_mr *
ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return reg_mr(pd, addr, length, (uintptr_t)addr, (unsigned int)access, "ibv_reg_mr");
}

/* what ibv_reg_mr_iova() calls when its access flags are a constant (IBVERBS_1.7) */
#undef ibv_reg_mr_iova
struct ibv_mr *
ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return reg_mr(pd, addr, length, iova, (unsigned int)access, "ibv_reg_mr_iova");
}

struct ibv_mr *
ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
		 unsigned int access)
{
	return reg_mr(pd, addr, length, iova, access, "ibv_reg_mr_iova2");
}

int
ibv_dereg_mr(struct ibv_mr *mr)
{
	struct ov_mr *m = (struct ov_mr *)mr;
	struct ov_dev *d;
	int rc;

	if (!OV_LIVE(m, OV_MAGIC_MR))
		return EINVAL;
	d = ov_dev_of(mr->context);
	pthread_mutex_lock(&d->lock);
	rc = ordk_mr_dereg(m->o);
	pthread_mutex_unlock(&d->lock);
	if (rc != 0)
		return -rc;
	ov_retire(m, &m->magic);
	return 0;
}

/* ---------------------------------------------------- completion channel */

struct ibv_comp_channel *
ibv_create_comp_channel(struct ibv_context *c)
{
	struct ov_chan *ch = calloc(1, sizeof(*ch));

	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->ch.context = c;
	ch->ch.fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (ch->ch.fd < 0) {
		free(ch);
		return NULL;
	}
	ch->magic = OV_MAGIC_CHAN;
	return &ch->ch;
}

int
ibv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ov_chan *ch = (struct ov_chan *)channel;

	if (!OV_LIVE(ch, OV_MAGIC_CHAN))
		return EINVAL;
	if (channel->refcnt > 0)
		return EBUSY;
	close(channel->fd);
	ov_retire(ch, &ch->magic);
	return 0;
}

int
ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct ov_chan *ch = (struct ov_chan *)channel;
	struct ov_dev *d = ov_dev_of(channel->context);
	struct ov_cq *c;
	uint64_t v;
	int flags;

	ov_app_wait(d);
	/* a blocking channel: poll for the event first (a non-blocking one returns at once) */
	flags = fcntl(channel->fd, F_GETFL);
	if (flags >= 0 && !(flags & O_NONBLOCK))
		(void)ov_event_spin(d, ch);
	if (read(channel->fd, &v, sizeof(v)) != sizeof(v))
		return -1; /* errno from read: EAGAIN on a non-blocking fd */
	pthread_mutex_lock(&d->lock);
	c = ch->head;
	if (c != NULL && --c->pending == 0) {
		ch->head = c->ev_next;
		if (ch->head == NULL)
			ch->tail = NULL;
	}
	pthread_mutex_unlock(&d->lock);
	if (c == NULL) {
		errno = EIO;
		return -1;
	}
	*cq = &c->cq;
	*cq_context = c->cq.cq_context;
	return 0;
}

void
ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ----------------------------------------------------------------- CQ */

struct ibv_cq *
ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context, struct ibv_comp_channel *channel,
	      int comp_vector)
{
	struct ov_dev *d = ov_dev_of(c);
	struct ov_cq *q;

	if (cqe < 1 || comp_vector != 0 ||
	    (channel != NULL && !OV_LIVE((struct ov_chan *)channel, OV_MAGIC_CHAN))) {
		errno = EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (q == NULL || (q->staged = calloc((size_t)cqe, sizeof(*q->staged))) == NULL) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->cap = (uint32_t)cqe;
	q->d = d;
	pthread_mutex_lock(&d->lock);
	q->o = ordk_cq_create(d->dev, (uint32_t)cqe);
	if (q->o != NULL) {
		q->next = d->cqs; /* for armed CQs and async events */
		d->cqs = q;
		if (channel != NULL)
			channel->refcnt++;
	}
	pthread_mutex_unlock(&d->lock);
	if (q->o == NULL) {
		errno = rte_errno;
		free(q->staged);
		free(q);
		return NULL;
	}
	q->cq.context = c;
	q->cq.channel = channel;
	q->cq.cq_context = cq_context;
	q->cq.cqe = cqe;
	pthread_mutex_init(&q->cq.mutex, NULL);
	pthread_cond_init(&q->cq.cond, NULL);
	q->magic = OV_MAGIC_CQ;
	return &q->cq;
}

int
ibv_destroy_cq(struct ibv_cq *cq)
{
	struct ov_cq *q = (struct ov_cq *)cq;
	struct ov_dev *d;
	int rc;

	if (!OV_LIVE(q, OV_MAGIC_CQ))
		return EINVAL;
	d = q->d;
	pthread_mutex_lock(&d->lock);
	rc = ordk_cq_destroy(q->o);
	if (rc == 0) {
		for (struct ov_cq **p = &d->cqs; *p != NULL; p = &(*p)->next)
			if (*p == q) {
				*p = q->next;
				break;
			}
		ov_async_purge(d, cq);
	}
	if (rc == 0 && cq->channel != NULL) {
		struct ov_chan *ch = (struct ov_chan *)cq->channel;

		for (struct ov_cq **p = &ch->head, *prev = NULL; *p != NULL; prev = *p, p = &(*p)->ev_next)
			if (*p == q) {
				*p = q->ev_next;
				if (ch->tail == q)
					ch->tail = prev;
				break;
			}
		cq->channel->refcnt--;
	}
	pthread_mutex_unlock(&d->lock);
	if (rc != 0)
		return -rc;
	ov_async_wait_acks(&cq->mutex, &cq->cond, &cq->async_events_completed, q->async_reported);
	pthread_mutex_destroy(&cq->mutex);
	pthread_cond_destroy(&cq->cond);
	free(q->staged);
	q->staged = NULL;
	ov_retire(q, &q->magic);
	return 0;
}

static const enum ibv_wc_status wc_status[ORDK_WC_STATUS_COUNT] = {
	[ORDK_WC_SUCCESS] = IBV_WC_SUCCESS,
	[ORDK_WC_LOC_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
	[ORDK_WC_LOC_QP_OP_ERR] = IBV_WC_LOC_QP_OP_ERR,
	[ORDK_WC_LOC_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
	[ORDK_WC_WR_FLUSH_ERR] = IBV_WC_WR_FLUSH_ERR,
	[ORDK_WC_BAD_RESP_ERR] = IBV_WC_BAD_RESP_ERR,
	[ORDK_WC_LOC_ACCESS_ERR] = IBV_WC_LOC_ACCESS_ERR,
	[ORDK_WC_REM_INV_REQ_ERR] = IBV_WC_REM_INV_REQ_ERR,
	[ORDK_WC_REM_ACCESS_ERR] = IBV_WC_REM_ACCESS_ERR,
	[ORDK_WC_REM_OP_ERR] = IBV_WC_REM_OP_ERR,
	[ORDK_WC_RETRY_EXC_ERR] = IBV_WC_RETRY_EXC_ERR,
	[ORDK_WC_RNR_RETRY_EXC_ERR] = IBV_WC_RNR_RETRY_EXC_ERR,
	[ORDK_WC_GENERAL_ERR] = IBV_WC_GENERAL_ERR,
};

#define OV_WC_SL_ROCE_V2_IPV4 0xA /* UDP (8) | IPv4 (2) */

static void
wc_out(struct ibv_wc *w, const struct ordk_wc *o)
{
	memset(w, 0, sizeof(*w));
	w->wr_id = o->wr_id;
	w->status = (unsigned int)o->status < ORDK_WC_STATUS_COUNT ? wc_status[o->status]
								   : IBV_WC_GENERAL_ERR;
	w->opcode = (enum ibv_wc_opcode)o->opcode; /* same values (ordk_verbs.h) */
	w->byte_len = o->byte_len;
	w->qp_num = o->qp_num;
	w->pkey_index = 0;
	if (o->wc_flags & ORDK_WC_WITH_IMM) {
		w->wc_flags = IBV_WC_WITH_IMM;
		w->imm_data = o->imm_data; /* carried as the sender gave it: network order */
	}
	/*
	 * UD: the sender's QPN; no LID. RoCE has no SL in its frames: sl says the
	 * packet type as mlx5 reports it (bit 3: UDP, RoCE v2; bits 2:0: the L3
	 * header, 2 = IPv4), which UCX 1.13 reads to find the GRH's address family
	 * (with 0, "GRH", it read an IPv6 destination out of the IPv4 header and
	 * dropped every datagram).
	 */
	if (o->wc_flags & ORDK_WC_GRH) {
		w->wc_flags |= IBV_WC_GRH;
		w->src_qp = o->src_qp;
		w->sl = OV_WC_SL_ROCE_V2_IPV4;
	}
}

int
ov_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct ov_cq *q = (struct ov_cq *)cq;
	struct ordk_wc o[32];
	uint32_t sends = 0;
	int got = 0;

	if (n < 0 || !OV_LIVE(q, OV_MAGIC_CQ))
		return -1;
	ov_app_call(q->d);
	pthread_mutex_lock(&q->d->lock);
	ov_linger_enter(q->d, false);
	while (got < n && q->nstaged > 0) {
		sends += q->staged[q->first].opcode < ORDK_WC_RECV;
		wc_out(&wc[got++], &q->staged[q->first]);
		q->first = (q->first + 1) % q->cap;
		q->nstaged--;
	}
	while (got < n) {
		int want = n - got < 32 ? n - got : 32;
		int k = ordk_cq_poll(q->o, o, want);

		if (k < 0 && got == 0)
			got = -1; /* -EOVERFLOW: in error and empty (IBV_EVENT_CQ_ERR was raised) */
		for (int i = 0; i < k; i++) {
			sends += o[i].opcode < ORDK_WC_RECV;
			wc_out(&wc[got++], &o[i]);
		}
		if (k < want)
			break;
	}
	if (got > 0)
		ov_linger_leave(q->d, sends, cq->channel != NULL);
	pthread_mutex_unlock(&q->d->lock);
	ov_app_call(q->d);
	return got;
}

int
ov_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	struct ov_cq *q = (struct ov_cq *)cq;

	(void)solicited_only; /* every completion is an event: allowed by the spec */
	if (!OV_LIVE(q, OV_MAGIC_CQ) || cq->channel == NULL)
		return EINVAL;
	pthread_mutex_lock(&q->d->lock);
	q->armed = true;
	pthread_mutex_unlock(&q->d->lock);
	ov_app_wait(q->d); /* an event is what it waits for now */
	return 0;
}
