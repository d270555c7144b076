/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles on ordk_ah, for UD sends: the address vector gives the
 * peer's IPv4 as a QP's does (an IPv4-mapped RoCE v2 GID, or the LID in this
 * device's /16), the IP its MAC (ov_mac_of()). From a receive: the GRH holds
 * the sender's IPv4 header in its last 20 bytes (RoCE v2 over IPv4, as rxe
 * writes it), whose source address answers it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "ibv_internal.h"

#define OV_GRH_IP 20 /* the IPv4 header's place in a RoCE v2 GRH */

struct ibv_ah *
ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ov_pd *p = (struct ov_pd *)pd;
	struct ordk_ah_attr oa;
	struct ov_dev *d;
	struct ov_ah *a;
	int rc;

	if (!OV_LIVE(p, OV_MAGIC_PD) || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	d = ov_dev_of(pd->context);
	if (attr->port_num > 1) {
		errno = EINVAL;
		return NULL;
	}
	rc = ov_av_ip(d, attr, &oa.dest_ip, "ibv_create_ah");
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	oa.dest_mac = ov_mac_of(oa.dest_ip);
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	a->o = ordk_ah_create(p->o, &oa);
	pthread_mutex_unlock(&d->lock);
	if (a->o == NULL) {
		errno = rte_errno;
		free(a);
		return NULL;
	}
	a->ah.context = pd->context;
	a->ah.pd = pd;
	a->magic = OV_MAGIC_AH;
	return &a->ah;
}

int
ibv_destroy_ah(struct ibv_ah *ah)
{
	struct ov_ah *a = (struct ov_ah *)ah;
	struct ov_dev *d;
	int rc;

	if (!OV_LIVE(a, OV_MAGIC_AH))
		return EINVAL;
	d = ov_dev_of(ah->context);
	pthread_mutex_lock(&d->lock);
	rc = ordk_ah_destroy(a->o);
	pthread_mutex_unlock(&d->lock);
	if (rc != 0)
		return -rc;
	ov_retire(a, &a->magic);
	return 0;
}

int
ibv_init_ah_from_wc(struct ibv_context *c, uint8_t port, struct ibv_wc *wc, struct ibv_grh *grh,
		    struct ibv_ah_attr *ah)
{
	const uint8_t *ip = (const uint8_t *)grh + OV_GRH_IP;

	(void)c;
	if (wc == NULL || grh == NULL || ah == NULL || port > 1)
		return EINVAL;
	/* RoCE has no LIDs: the GRH is where the sender is (rdma-core's answer too) */
	if (!(wc->wc_flags & IBV_WC_GRH) || ip[0] != 0x45) {
		OV_LOG(ERR, "ibv_init_ah_from_wc: the completion has no IPv4 GRH\n");
		return EINVAL;
	}
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = 1;
	ah->sl = wc->sl;
	ah->grh.hop_limit = 0xff;
	ah->grh.dgid.raw[10] = 0xff;
	ah->grh.dgid.raw[11] = 0xff;
	memcpy(&ah->grh.dgid.raw[12], ip + 12, 4); /* the sender's IPv4: the IP header's source */
	return 0;
}

struct ibv_ah *
ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port)
{
	struct ibv_ah_attr attr;
	int rc;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	rc = ibv_init_ah_from_wc(pd->context, port, wc, grh, &attr);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	return ibv_create_ah(pd, &attr);
}
