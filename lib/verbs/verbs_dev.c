/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Devices (found by name in the build's driver table, opened, queried,
 * polled, closed through the driver's ops), their counters, PDs and CQs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "mem_internal.h"
#include "verbs_internal.h"
#include "verbs_tele.h"

RTE_LOG_REGISTER(ordk_verbs_logtype, ordk.verbs, NOTICE);

/* "<name>", "<name>,args" or "<name>:args": the driver, and its args in *args. */
static const struct ordk_driver *
driver_find(const char *devargs, const char **args)
{
	size_t n = strcspn(devargs, ",:");

	*args = devargs[n] != '\0' ? devargs + n + 1 : devargs + n;
	for (unsigned int i = 0; ordk_drivers[i] != NULL; i++)
		if (strlen(ordk_drivers[i]->name) == n && strncmp(devargs, ordk_drivers[i]->name, n) == 0)
			return ordk_drivers[i];
	return NULL;
}

static void
driver_names(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; ordk_drivers[i] != NULL && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", ordk_drivers[i]->name);
}

/* The library's part once the driver is up: limits, the QP table. */
static int
dev_setup(struct verbs_dev *dev, struct ordk_dev *odev)
{
	static unsigned int tables;
	struct rte_hash_parameters hp = { .key_len = sizeof(uint32_t), .hash_func = rte_jhash,
					  .socket_id = SOCKET_ID_ANY };
	char hname[RTE_HASH_NAMESIZE];

	dev->ops->query(odev, &dev->attr);
	dev->attr.max_cq = ORDK_MAX_CQ;
	dev->attr.max_cqe = ORDK_MAX_CQE;
	dev->attr.max_pd = ORDK_MAX_PD;
	dev->attr.max_srq = ORDK_MAX_SRQ;
	dev->attr.max_srq_wr = ORDK_MAX_SRQ_WR;
	dev->attr.max_srq_sge = 1;
	snprintf(dev->attr.name, sizeof(dev->attr.name), "%s", dev->name);
	snprintf(hname, sizeof(hname), "ordk_qpt_%u", tables++);
	hp.name = hname;
	hp.entries = RTE_MAX(2 * dev->attr.max_qp, 8u);
	dev->qp_table = rte_hash_create(&hp);
	return dev->qp_table != NULL ? 0 : -ENOMEM;
}

struct ordk_dev *
ordk_dev_open(const char *devargs)
{
	const struct ordk_driver *drv;
	struct ordk_dev *odev;
	struct verbs_dev *dev;
	const char *args;
	char names[128];
	int rc;

	if (devargs == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	drv = driver_find(devargs, &args);
	if (drv == NULL) {
		driver_names(names, sizeof(names));
		VERBS_LOG(ERR, "%s: unknown device (drivers: %s)", devargs, names);
		rte_errno = EINVAL;
		return NULL;
	}
	mem_guard_init(); /* verbs_mr_atomic() */
	odev = rte_zmalloc("ordk_dev", drv->ops->dev_size, RTE_CACHE_LINE_SIZE);
	if (odev == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	dev = vdev(odev);
	dev->ops = drv->ops;
	TAILQ_INIT(&dev->mrs);
	rc = dev->ops->open(odev, args);
	if (rc == 0) {
		rc = dev_setup(dev, odev);
		if (rc == 0)
			rc = verbs_tele_open(odev, drv->name); /* seen by DPDK telemetry from now on */
		if (rc != 0) {
			rte_hash_free(dev->qp_table);
			dev->ops->close(odev);
		}
	}
	if (rc != 0) {
		rte_free(odev);
		rte_errno = -rc; /* the driver's errno: EINVAL, ENODEV, ENOMEM, ETIMEDOUT, ... */
		return NULL;
	}
	return odev;
}

int
ordk_dev_close(struct ordk_dev *odev)
{
	struct verbs_dev *dev = vdev(odev);

	if (dev == NULL)
		return -EINVAL;
	if (dev->nqp || dev->ncq || dev->nmr || dev->npd) {
		VERBS_LOG(ERR, "%s: close with %u QPs, %u CQs, %u MRs, %u PDs still alive", dev->name,
			  dev->nqp, dev->ncq, dev->nmr, dev->npd);
		return -EBUSY;
	}
	verbs_tele_close(odev); /* before anything goes: a request may be pending */
	dev->ops->close(odev);
	rte_hash_free(dev->qp_table);
	rte_free(odev);
	return 0;
}

int
ordk_dev_query(const struct ordk_dev *odev, struct ordk_dev_attr *a)
{
	const struct verbs_dev *dev = vdev_const(odev);

	if (dev == NULL || a == NULL)
		return -EINVAL;
	*a = dev->attr;
	return 0;
}

unsigned int
ordk_dev_poll(struct ordk_dev *odev, unsigned int budget)
{
	struct verbs_dev *dev = vdev(odev);
	unsigned int work;

	if (dev == NULL || budget == 0)
		return 0;
	work = dev->ops->poll(odev, budget);
	if (unlikely(dev->cq_error || (dev->ev_cb != NULL && dev->ev_count > 0)))
		verbs_event_run(odev);
	/* a telemetry request (verbs_tele.c): answered here, between two polls' work */
	if (unlikely(__atomic_load_n(&dev->tele->state, __ATOMIC_RELAXED) == TELE_ASKED))
		verbs_tele_serve(odev);
	return work;
}

int
ordk_dev_idle(struct ordk_dev *dev, uint64_t ns)
{
	if (dev == NULL)
		return -EINVAL;
	if (vdev(dev)->ops->idle == NULL)
		return -ENOTSUP;
	vdev(dev)->ops->idle(dev, ns);
	return 0;
}

int
ordk_dev_xstats(struct ordk_dev *dev, const char **names, uint64_t *values, unsigned int n)
{
	if (dev == NULL || (n > 0 && (names == NULL || values == NULL)))
		return -EINVAL;
	if (vdev(dev)->ops->xstats == NULL)
		return 0;
	return vdev(dev)->ops->xstats(dev, n ? names : NULL, n ? values : NULL, n);
}

int
ordk_dev_port_link(struct ordk_dev *dev, bool up)
{
	if (dev == NULL)
		return -EINVAL;
	if (vdev(dev)->ops->port_link == NULL)
		return -ENOTSUP;
	vdev(dev)->ops->port_link(dev, up);
	return 0;
}

int
ordk_dev_set_faults(struct ordk_dev *dev, const char *spec)
{
	if (dev == NULL || spec == NULL)
		return -EINVAL;
	if (vdev(dev)->ops->set_faults == NULL)
		return -ENOTSUP;
	return vdev(dev)->ops->set_faults(dev, spec);
}

int
ordk_dev_card_poll(struct ordk_dev *dev, unsigned int budget)
{
	if (dev == NULL)
		return -EINVAL;
	if (vdev(dev)->ops->card_poll == NULL)
		return -ENOTSUP;
	return vdev(dev)->ops->card_poll(dev, budget);
}

/* -------------------------------------------------------------------- PD */

struct ordk_pd *
ordk_pd_alloc(struct ordk_dev *odev)
{
	static uint32_t handles;
	struct verbs_dev *dev = vdev(odev);
	struct ordk_pd *pd;

	if (dev == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (dev->npd >= ORDK_MAX_PD) {
		VERBS_LOG(ERR, "%s: pd_alloc: max_pd (%u PDs) reached", dev->name, ORDK_MAX_PD);
		rte_errno = ENOSPC;
		return NULL;
	}
	pd = verbs_handle_alloc(sizeof(*pd), 0);
	if (pd == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	pd->magic = VERBS_MAGIC_PD;
	pd->dev = odev;
	pd->handle = ++handles;
	dev->npd++;
	return pd;
}

int
ordk_pd_free(struct ordk_pd *pd)
{
	if (!pd_live(pd))
		return -EINVAL;
	if (pd->refs)
		return -EBUSY;
	vdev(pd->dev)->npd--;
	verbs_handle_free(pd, sizeof(*pd));
	return 0;
}

/* -------------------------------------------------------------------- CQ */

struct ordk_cq *
ordk_cq_create(struct ordk_dev *odev, uint32_t cqe)
{
	struct verbs_dev *dev = vdev(odev);
	struct ordk_cq *cq;

	if (dev == NULL || cqe == 0 || cqe > ORDK_MAX_CQE) {
		if (dev != NULL)
			VERBS_LOG(ERR, "%s: cq_create: cqe %u is not in 1..max_cqe (%u)", dev->name,
				  cqe, ORDK_MAX_CQE);
		rte_errno = EINVAL;
		return NULL;
	}
	if (dev->ncq >= ORDK_MAX_CQ) {
		VERBS_LOG(ERR, "%s: cq_create: max_cq (%u CQs) reached", dev->name, ORDK_MAX_CQ);
		rte_errno = ENOSPC;
		return NULL;
	}
	cq = verbs_handle_alloc(sizeof(*cq), RTE_CACHE_LINE_SIZE);
	if (cq != NULL)
		cq->wc = rte_zmalloc("ordk_cq_wc", sizeof(*cq->wc) * rte_align32pow2(cqe),
				     RTE_CACHE_LINE_SIZE);
	if (cq == NULL || cq->wc == NULL) {
		if (cq != NULL)
			verbs_handle_free(cq, sizeof(*cq));
		rte_errno = ENOMEM;
		return NULL;
	}
	cq->magic = VERBS_MAGIC_CQ;
	cq->dev = odev;
	cq->size = cqe;
	cq->mask = rte_align32pow2(cqe) - 1;
	dev->ncq++;
	return cq;
}

int
ordk_cq_destroy(struct ordk_cq *cq)
{
	if (!cq_live(cq))
		return -EINVAL;
	if (cq->refs)
		return -EBUSY;
	vdev(cq->dev)->ncq--;
	rte_free(cq->wc);
	verbs_handle_free(cq, sizeof(*cq));
	return 0;
}

void
verbs_cq_push(struct ordk_cq *cq, const struct ordk_wc *wc)
{
	if (unlikely(cq->count == cq->size || cq->error)) {
		/*
		 * The CQ is too small for the work posted: counted, never written past.
		 * As in ibverbs, it is in error from now on and its QPs go to ERR
		 * (verbs_event_run(), after the transport's work).
		 */
		vdev(cq->dev)->st.cq_overflow++;
		if (!cq->error) {
			VERBS_LOG(ERR, "CQ overflow (%u entries): completion of wr_id %" PRIu64
				    " lost; the CQ is in error, its QPs go to ERR",
			       cq->size, wc->wr_id);
			cq->error = true;
			vdev(cq->dev)->cq_error = true;
			verbs_event_raise(cq->dev, ORDK_EVENT_CQ_ERR, NULL, cq);
		}
		return;
	}
	cq->wc[(cq->head + cq->count) & cq->mask] = *wc;
	cq->count++;
}

int
ordk_cq_poll(struct ordk_cq *cq, struct ordk_wc *wc, int n)
{
	int k = 0;

	/* a stale handle reads as zeros (verbs_handle.c): no magic */
	if (cq == NULL || cq->magic != VERBS_MAGIC_CQ || wc == NULL || n < 0)
		return -EINVAL;
	if (cq->count < (uint32_t)n)
		ordk_dev_poll(cq->dev, 64);
	while (k < n && cq->count > 0) {
		wc[k++] = cq->wc[cq->head];
		cq->head = (cq->head + 1) & cq->mask;
		cq->count--;
	}
	/* what it held first, then the error (see ordk_verbs.h) */
	if (unlikely(cq->error) && k == 0)
		return -EOVERFLOW;
	return k;
}

const char *
ordk_wc_status_str(enum ordk_wc_status s)
{
	static const char *const names[ORDK_WC_STATUS_COUNT] = {
		[ORDK_WC_SUCCESS] = "success",
		[ORDK_WC_LOC_LEN_ERR] = "local length error",
		[ORDK_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[ORDK_WC_LOC_PROT_ERR] = "local protection error",
		[ORDK_WC_WR_FLUSH_ERR] = "WR flushed",
		[ORDK_WC_BAD_RESP_ERR] = "bad response error",
		[ORDK_WC_LOC_ACCESS_ERR] = "local access error",
		[ORDK_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[ORDK_WC_REM_ACCESS_ERR] = "remote access error",
		[ORDK_WC_REM_OP_ERR] = "remote operation error",
		[ORDK_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[ORDK_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[ORDK_WC_GENERAL_ERR] = "general error",
	};

	return (unsigned int)s < ORDK_WC_STATUS_COUNT ? names[s] : "unknown";
}
