/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues on ordk_srq: basic SRQs (XRC and tag matching are
 * refused, ibv_refuse.c create_srq_ex()), their RECVs, the limit event, and
 * destruction refused (EBUSY) while QPs use them. How ORDK shares one pool
 * among QPs on a card without a receive queue:
 * doc/guides/prog_guide/architecture.md, shared receive queues.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "ibv_internal.h"

struct ibv_srq *
ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct ov_pd *p = (struct ov_pd *)pd;
	struct ordk_srq_attr oa;
	struct ov_srq *s;
	struct ov_dev *d;

	if (!OV_LIVE(p, OV_MAGIC_PD) || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	d = ov_dev_of(pd->context);
	oa = (struct ordk_srq_attr){ .max_wr = attr->attr.max_wr, .max_sge = attr->attr.max_sge,
				     .srq_limit = attr->attr.srq_limit };
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	s->o = ordk_srq_create(p->o, &oa, s); /* events find their ov_srq (ibv_async.c) */
	pthread_mutex_unlock(&d->lock);
	if (s->o == NULL) {
		errno = rte_errno;
		free(s);
		return NULL;
	}
	s->d = d;
	s->srq.context = pd->context;
	s->srq.srq_context = attr->srq_context;
	s->srq.pd = pd;
	pthread_mutex_init(&s->srq.mutex, NULL);
	pthread_cond_init(&s->srq.cond, NULL);
	s->magic = OV_MAGIC_SRQ;
	attr->attr.max_sge = d->attr.max_srq_sge; /* what it got */
	return &s->srq;
}

int
ibv_destroy_srq(struct ibv_srq *srq)
{
	struct ov_srq *s = (struct ov_srq *)srq;
	int rc;

	if (!OV_LIVE(s, OV_MAGIC_SRQ))
		return EINVAL;
	pthread_mutex_lock(&s->d->lock);
	rc = ordk_srq_destroy(s->o);
	if (rc == 0)
		ov_async_purge(s->d, srq);
	pthread_mutex_unlock(&s->d->lock);
	if (rc != 0)
		return -rc; /* EBUSY: a QP uses it */
	ov_async_wait_acks(&srq->mutex, &srq->cond, &srq->events_completed, s->async_reported);
	pthread_mutex_destroy(&srq->mutex);
	pthread_cond_destroy(&srq->cond);
	ov_retire(s, &s->magic);
	return 0;
}

int
ov_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct ov_srq *s = (struct ov_srq *)srq;

	if (!OV_LIVE(s, OV_MAGIC_SRQ)) {
		if (bad != NULL)
			*bad = wr;
		return EINVAL;
	}
	return ov_post_recv_list(s->d, NULL, s->o, wr, bad);
}

int
ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a, int mask)
{
	struct ov_srq *s = (struct ov_srq *)srq;
	struct ordk_srq_attr oa;
	int rc;

	if (!OV_LIVE(s, OV_MAGIC_SRQ) || a == NULL || (mask & ~(IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT)))
		return EINVAL;
	if (mask & IBV_SRQ_MAX_WR) {
		/* the device does not say IBV_DEVICE_SRQ_RESIZE */
		OV_REFUSE("ibv_modify_srq", "IBV_SRQ_MAX_WR: an SRQ is not resized");
		return EOPNOTSUPP;
	}
	oa = (struct ordk_srq_attr){ .srq_limit = a->srq_limit };
	pthread_mutex_lock(&s->d->lock);
	rc = ordk_srq_modify(s->o, &oa, (mask & IBV_SRQ_LIMIT) ? ORDK_SRQ_LIMIT : 0);
	pthread_mutex_unlock(&s->d->lock);
	return -rc;
}

int
ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a)
{
	struct ov_srq *s = (struct ov_srq *)srq;
	struct ordk_srq_attr oa;
	int rc;

	if (!OV_LIVE(s, OV_MAGIC_SRQ) || a == NULL)
		return EINVAL;
	pthread_mutex_lock(&s->d->lock);
	rc = ordk_srq_query(s->o, &oa);
	pthread_mutex_unlock(&s->d->lock);
	if (rc != 0)
		return -rc;
	a->max_wr = oa.max_wr;
	a->max_sge = oa.max_sge;
	a->srq_limit = oa.srq_limit;
	return 0;
}
