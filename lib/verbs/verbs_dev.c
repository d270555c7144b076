/* SPDX-License-Identifier: BSD-3-Clause */
/* Devices (devargs, open, close, query, poll), PDs and CQs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "blue_vfio.h"
#include "verbs_internal.h"

RTE_LOG_REGISTER(ordk_verbs_logtype, ordk.verbs, NOTICE);

static unsigned int dev_count;

/* "02:00:00:00:00:01" */
static int
parse_mac(const char *s, uint64_t *mac)
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -EINVAL;
	*mac = 0;
	for (int i = 0; i < 6; i++) {
		if (b[i] > 0xFF)
			return -EINVAL;
		*mac = *mac << 8 | b[i];
	}
	if (*mac & (1ull << 40))
		return -EINVAL; /* multicast bit: not a station address */
	return 0;
}

static int
parse_ip(const char *s, uint32_t *ip)
{
	unsigned int b[4];
	char tail;

	if (sscanf(s, "%u.%u.%u.%u%c", &b[0], &b[1], &b[2], &b[3], &tail) != 4 || b[0] > 255 ||
	    b[1] > 255 || b[2] > 255 || b[3] > 255)
		return -EINVAL;
	*ip = b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
	return 0;
}

/* mac= and ip= are the driver's; the rest of the devargs go to the backend. */
static int
driver_args(const char *args, uint64_t *mac, uint32_t *ip)
{
	const char *p;
	char v[64];

	for (p = args; p != NULL && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t n = strcspn(p, ",");

		if (strncmp(p, "mac=", 4) == 0 || strncmp(p, "ip=", 3) == 0) {
			size_t k = strchr(p, '=') - p + 1;

			if (n - k >= sizeof(v))
				return -EINVAL;
			memcpy(v, p + k, n - k);
			v[n - k] = '\0';
			if (p[0] == 'm' ? parse_mac(v, mac) : parse_ip(v, ip)) {
				VERBS_LOG(ERR, "devargs: bad %.*s (mac=02:00:00:00:00:01, ip=10.0.0.1)",
					  (int)n, p);
				return -EINVAL;
			}
		}
	}
	return 0;
}

struct ordk_dev *
ordk_dev_open(const char *devargs)
{
	struct rte_hash_parameters hp = { .entries = BLUE_MAX_QP * 2, .key_len = sizeof(uint32_t),
					  .hash_func = rte_jhash, .socket_id = SOCKET_ID_ANY };
	struct ordk_dev *dev;
	char err[256] = "", hname[RTE_HASH_NAMESIZE];
	unsigned int n = dev_count;
	uint64_t mac = 0x020000000000ull | (n + 1);
	uint32_t ip = 0x0A000000u | ((n + 1) & 0xFF);
	int rc;

	if (devargs == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (strncmp(devargs, "blue:", 5) != 0 &&
	    (strncmp(devargs, "bluesim", 7) != 0 || (devargs[7] != '\0' && devargs[7] != ','))) {
		VERBS_LOG(ERR, "%s: unknown device (bluesim,port=<ethdev|loopback> or blue:<bdf>)",
			  devargs);
		rte_errno = EINVAL;
		return NULL;
	}
	if (driver_args(devargs, &mac, &ip) != 0) {
		rte_errno = EINVAL;
		return NULL;
	}
	mem_guard_init(); /* verbs_mr_atomic() */
	dev = rte_zmalloc("ordk_dev", sizeof(*dev), RTE_CACHE_LINE_SIZE);
	if (dev == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (strncmp(devargs, "blue:", 5) == 0) /* the card, through VFIO */
		rc = blue_vfio_backend_open(devargs + 5, &dev->hw.be, err, sizeof(err));
	else
		rc = blue_sim_backend_open(devargs[7] ? devargs + 8 : "", &dev->hw.be, err, sizeof(err));
	if (rc != 0) {
		VERBS_LOG(ERR, "%s: %s", devargs, err);
		rte_free(dev);
		rte_errno = rc == -ENOMEM ? ENOMEM :
			    (rc == -ENODEV || strstr(err, "ethdev") ? ENODEV : (rc < 0 ? -rc : EINVAL));
		return NULL;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", dev->hw.be.name);
	snprintf(hname, sizeof(hname), "ordk_qpt_%u", n);
	hp.name = hname;
	dev->qp_table = rte_hash_create(&hp);
	if (dev->qp_table == NULL || mem_keys_init(&dev->mr_keys, BLUE_MAX_MR, 0, rte_rdtsc()) ||
	    mem_keys_init(&dev->qp_keys, BLUE_MAX_QP, 1, rte_rdtsc() ^ 0x5555) ||
	    mem_pgt_init(&dev->pgt, BLUE_PGT_ENTRIES)) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = blue_dev_start(&dev->hw, mac, ip);
	if (rc != 0)
		goto fail;
	TAILQ_INIT(&dev->rc.active);
	dev->rc.tsc_hz = rte_get_tsc_hz();
	rc = verbs_cc_devargs(dev, devargs);
	if (rc != 0)
		goto fail;
	rc_wheel_init(dev);
	dev_count++;
	VERBS_LOG(INFO, "%s: open, MAC %012" PRIx64 ", IP %u.%u.%u.%u", dev->name, mac, ip >> 24,
		  (ip >> 16) & 0xFF, (ip >> 8) & 0xFF, ip & 0xFF);
	return dev;
fail:
	verbs_cc_close(dev);
	blue_dev_close(&dev->hw);
	rte_hash_free(dev->qp_table);
	mem_keys_fini(&dev->mr_keys);
	mem_keys_fini(&dev->qp_keys);
	mem_pgt_fini(&dev->pgt);
	rte_free(dev);
	rte_errno = -rc;
	return NULL;
}

int
ordk_dev_close(struct ordk_dev *dev)
{
	if (dev == NULL)
		return -EINVAL;
	if (dev->nqp || dev->ncq || dev->nmr || dev->npd) {
		VERBS_LOG(ERR, "%s: close with %u QPs, %u CQs, %u MRs, %u PDs still alive", dev->name,
			  dev->nqp, dev->ncq, dev->nmr, dev->npd);
		return -EBUSY;
	}
	verbs_cc_close(dev);
	blue_dev_close(&dev->hw);
	rte_hash_free(dev->qp_table);
	mem_keys_fini(&dev->mr_keys);
	mem_keys_fini(&dev->qp_keys);
	mem_pgt_fini(&dev->pgt);
	mem_pins_fini(&dev->pins);
	rte_free(dev);
	return 0;
}

int
ordk_dev_query(const struct ordk_dev *dev, struct ordk_dev_attr *a)
{
	if (dev == NULL || a == NULL)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", dev->name);
	a->mac = dev->hw.mac;
	a->ip = dev->hw.ip;
	a->max_qp = BLUE_MAX_QP - 1;
	a->max_qp_wr = ORDK_MAX_QP_WR;
	a->max_sge = 1;
	a->max_cq = ORDK_MAX_CQ;
	a->max_cqe = ORDK_MAX_CQE;
	a->max_mr = BLUE_MAX_MR;
	a->max_pd = ORDK_MAX_PD;
	a->max_mr_size = 0x7FFFFFFFull;
	a->max_msg_sz = 1u << 31;
	a->pgt_entries = BLUE_PGT_ENTRIES;
	return 0;
}

unsigned int
ordk_dev_poll(struct ordk_dev *dev, unsigned int budget)
{
	unsigned int work;

	if (dev == NULL || budget == 0)
		return 0;
	work = blue_backend_poll(&dev->hw, budget);
	work += blue_cmd_poll(&dev->hw);
	work += rc_poll(dev, budget);
	if (unlikely(dev->cq_error || (dev->ev_cb != NULL && dev->ev_count > 0)))
		verbs_event_run(dev);
	return work;
}

int
ordk_dev_stats(const struct ordk_dev *dev, struct ordk_stats *st)
{
	const char *names[256];
	uint64_t values[256];
	unsigned int n;

	if (dev == NULL || st == NULL)
		return -EINVAL;
	*st = dev->st;
	/* the CNPs the card sent: only a model counts them (xstat cnp_sent) */
	n = dev->hw.be.ops->xstats == NULL
		    ? 0
		    : dev->hw.be.ops->xstats((struct blue_backend *)&dev->hw.be, names, values, 256);
	for (unsigned int i = 0; i < n && i < 256; i++)
		if (strcmp(names[i], "cnp_sent") == 0)
			st->cnps_sent = values[i];
	return 0;
}

int
ordk_qp_stats(const struct ordk_qp *qp, struct ordk_stats *st)
{
	if (!qp_live(qp) || st == NULL)
		return -EINVAL;
	*st = qp->st;
	return 0;
}

int
ordk_dev_xstats(struct ordk_dev *dev, const char **names, uint64_t *values, unsigned int n)
{
	if (dev == NULL || (n > 0 && (names == NULL || values == NULL)))
		return -EINVAL;
	if (dev->hw.be.ops->xstats == NULL)
		return 0;
	return (int)dev->hw.be.ops->xstats(&dev->hw.be, n ? names : NULL, n ? values : NULL, n);
}

int
ordk_dev_stats_reset(struct ordk_dev *dev)
{
	const void *key;
	void *data;
	uint32_t it = 0;

	if (dev == NULL)
		return -EINVAL;
	memset(&dev->st, 0, sizeof(dev->st));
	while (rte_hash_iterate(dev->qp_table, &key, &data, &it) >= 0)
		memset(&((struct ordk_qp *)data)->st, 0, sizeof(((struct ordk_qp *)data)->st));
	if (dev->hw.be.ops->xstats_reset != NULL)
		dev->hw.be.ops->xstats_reset(&dev->hw.be);
	return 0;
}

int
ordk_dev_set_faults(struct ordk_dev *dev, const char *spec)
{
	char err[160] = "";
	int rc;

	if (dev == NULL || spec == NULL)
		return -EINVAL;
	if (dev->hw.be.ops->set_faults == NULL)
		return -ENOTSUP;
	rc = dev->hw.be.ops->set_faults(&dev->hw.be, spec, err, sizeof(err));
	if (rc != 0)
		VERBS_LOG(ERR, "%s: faults '%s': %s", dev->name, spec, err);
	return rc;
}

/* -------------------------------------------------------------------- PD */

struct ordk_pd *
ordk_pd_alloc(struct ordk_dev *dev)
{
	static uint32_t handles;
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
	pd->dev = dev;
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
	pd->dev->npd--;
	verbs_handle_free(pd, sizeof(*pd));
	return 0;
}

/* -------------------------------------------------------------------- CQ */

struct ordk_cq *
ordk_cq_create(struct ordk_dev *dev, uint32_t cqe)
{
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
		cq->wc = rte_zmalloc("ordk_cq_wc", sizeof(*cq->wc) * cqe, RTE_CACHE_LINE_SIZE);
	if (cq == NULL || cq->wc == NULL) {
		if (cq != NULL)
			verbs_handle_free(cq, sizeof(*cq));
		rte_errno = ENOMEM;
		return NULL;
	}
	cq->magic = VERBS_MAGIC_CQ;
	cq->dev = dev;
	cq->size = cqe;
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
	cq->dev->ncq--;
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
		cq->dev->st.cq_overflow++;
		if (!cq->error) {
			RC_LOG(ERR, "CQ overflow (%u entries): completion of wr_id %" PRIu64
				    " lost; the CQ is in error, its QPs go to ERR",
			       cq->size, wc->wr_id);
			cq->error = true;
			cq->dev->cq_error = true;
			verbs_event_raise(cq->dev, ORDK_EVENT_CQ_ERR, NULL, cq);
		}
		return;
	}
	cq->wc[(cq->head + cq->count) % cq->size] = *wc;
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
		cq->head = (cq->head + 1) % cq->size;
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
