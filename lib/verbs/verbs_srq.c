/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared receive queues, the library's part: the pool of RECVs (a ring, the
 * oldest at head), its limit event, and what the driver calls to lend RECVs
 * to the QPs on it and to have them back (doc/guides/prog_guide/architecture.md,
 * shared receive queues). The card has no receive queue: how many RECVs a QP
 * holds and when it takes more is the driver's (rc_recv.c rc_srq_refill()).
 */
#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "verbs_internal.h"

static int
srq_attr_check(const struct verbs_dev *dev, const struct ordk_srq_attr *a)
{
	if (a->max_wr == 0 || a->max_wr > dev->attr.max_srq_wr ||
	    a->max_sge > dev->attr.max_srq_sge || a->srq_limit > a->max_wr) {
		VERBS_LOG(ERR, "%s: srq_create: max_wr %u not in 1..%u, max_sge %u above %u, or "
			       "srq_limit %u above max_wr", dev->name, a->max_wr,
			  dev->attr.max_srq_wr, a->max_sge, dev->attr.max_srq_sge, a->srq_limit);
		return -EINVAL;
	}
	return 0;
}

struct ordk_srq *
ordk_srq_create(struct ordk_pd *pd, const struct ordk_srq_attr *a, void *ctx)
{
	struct verbs_dev *dev;
	struct ordk_srq *srq;

	if (!pd_live(pd) || a == NULL || srq_attr_check(vdev(pd->dev), a) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = vdev(pd->dev);
	if (dev->nsrq >= dev->attr.max_srq) {
		VERBS_LOG(ERR, "%s: srq_create: max_srq (%u SRQs) reached", dev->name,
			  dev->attr.max_srq);
		rte_errno = ENOSPC;
		return NULL;
	}
	srq = verbs_handle_alloc(sizeof(*srq), RTE_CACHE_LINE_SIZE);
	if (srq != NULL)
		srq->wr = rte_zmalloc("ordk_srq", sizeof(*srq->wr) * rte_align32pow2(a->max_wr), 0);
	if (srq == NULL || srq->wr == NULL) {
		if (srq != NULL)
			verbs_handle_free(srq, sizeof(*srq));
		rte_errno = ENOMEM;
		return NULL;
	}
	srq->magic = VERBS_MAGIC_SRQ;
	srq->dev = pd->dev;
	srq->pd = pd;
	srq->ctx = ctx;
	srq->attr = *a;
	srq->attr.max_sge = dev->attr.max_srq_sge;
	srq->mask = rte_align32pow2(a->max_wr) - 1;
	TAILQ_INIT(&srq->qps);
	pd->refs++;
	dev->nsrq++;
	return srq;
}

int
ordk_srq_destroy(struct ordk_srq *srq)
{
	if (!srq_live(srq))
		return -EINVAL;
	if (srq->nqp > 0)
		return -EBUSY;
	srq->pd->refs--;
	vdev(srq->dev)->nsrq--;
	rte_free(srq->wr);
	verbs_handle_free(srq, sizeof(*srq));
	return 0;
}

static int
srq_post_one(struct ordk_srq *srq, const struct ordk_recv_wr *wr)
{
	const struct ordk_dev_ops *ops = vdev(srq->dev)->ops;

	if (wr->num_sge < 0 || wr->num_sge > 1)
		return -EINVAL;
	if (ops->srq_recv_check != NULL) {
		int rc = ops->srq_recv_check(srq, wr);

		if (rc != 0)
			return rc;
	}
	if (srq->count + srq->lent >= srq->attr.max_wr) {
		vdev(srq->dev)->st.srq_overrun++;
		return -ENOMEM;
	}
	srq->wr[(srq->head + srq->count++) & srq->mask] = *wr;
	return 0;
}

int
ordk_srq_post_recv(struct ordk_srq *srq, const struct ordk_recv_wr *wr, int n)
{
	struct verbs_qp *qp;
	int i;

	if (!srq_live(srq) || wr == NULL || n < 0) {
		rte_errno = EINVAL;
		return 0;
	}
	for (i = 0; i < n; i++) {
		int rc = srq_post_one(srq, &wr[i]);

		if (rc != 0) {
			rte_errno = -rc;
			break;
		}
	}
	/* QPs that found the pool empty take the new RECVs at their next step */
	if (i > 0)
		TAILQ_FOREACH(qp, &srq->qps, srq_link)
			vdev(srq->dev)->ops->post_done((struct ordk_qp *)qp);
	return i;
}

int
ordk_srq_modify(struct ordk_srq *srq, const struct ordk_srq_attr *a, unsigned int mask)
{
	if (!srq_live(srq) || a == NULL ||
	    (mask & ~(unsigned int)(ORDK_SRQ_MAX_WR | ORDK_SRQ_LIMIT)))
		return -EINVAL;
	if (mask & ORDK_SRQ_MAX_WR) {
		VERBS_LOG(ERR, "%s: srq_modify: an SRQ cannot be resized (max_wr %u)",
			  vdev(srq->dev)->name, srq->attr.max_wr);
		return -ENOTSUP;
	}
	if ((mask & ORDK_SRQ_LIMIT) && a->srq_limit > srq->attr.max_wr) {
		VERBS_LOG(ERR, "%s: srq_modify: srq_limit %u above max_wr %u", vdev(srq->dev)->name,
			  a->srq_limit, srq->attr.max_wr);
		return -EINVAL;
	}
	if (mask & ORDK_SRQ_LIMIT)
		srq->attr.srq_limit = a->srq_limit;
	return 0;
}

int
ordk_srq_query(const struct ordk_srq *srq, struct ordk_srq_attr *a)
{
	if (!srq_live(srq) || a == NULL)
		return -EINVAL;
	*a = srq->attr;
	return 0;
}

void *
ordk_srq_context(const struct ordk_srq *srq)
{
	return srq_live(srq) ? srq->ctx : NULL;
}

/* ------------------------------------------------- the driver's calls */

bool
verbs_srq_take(struct ordk_srq *srq, struct ordk_recv_wr *wr)
{
	if (srq->count == 0)
		return false;
	*wr = srq->wr[srq->head];
	srq->head = (srq->head + 1) & srq->mask;
	srq->count--;
	srq->lent++;
	return true;
}

void
verbs_srq_give_back(struct ordk_srq *srq, const struct ordk_recv_wr *wr)
{
	srq->head = (srq->head - 1) & srq->mask;
	srq->wr[srq->head] = *wr;
	srq->count++;
	srq->lent--;
}

void
verbs_srq_consumed(struct ordk_srq *srq)
{
	srq->lent--;
	/* IBA: armed, the limit fires once when the RECVs outstanding drop below it */
	if (srq->attr.srq_limit != 0 && srq->count + srq->lent < srq->attr.srq_limit) {
		srq->attr.srq_limit = 0;
		verbs_event_raise_srq(srq->dev, ORDK_EVENT_SRQ_LIMIT_REACHED, srq);
	}
}
