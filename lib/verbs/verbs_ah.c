/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Address handles, the library's alone: a UD send's destination (IPv4 and
 * MAC, checked as a QP's peer is), and the answer to a UD receive from its
 * GRH (the sender's IPv4 header, in the GRH's last 20 bytes as rxe puts it)
 * and its completion (the sender's MAC).
 */
#include <errno.h>
#include <string.h>

#include <rte_errno.h>

#include "ordk_devargs.h"
#include "verbs_internal.h"

#define GRH_IP_OFF 20u /* the IPv4 header's place in a RoCE v2 GRH */

bool
verbs_ah_ok(const struct ordk_ah *ah, const struct ordk_dev *dev)
{
	return ah_live(ah) && ah->dev == dev;
}

struct ordk_ah *
ordk_ah_create(struct ordk_pd *pd, const struct ordk_ah_attr *attr)
{
	struct ordk_ah *ah;
	char why[128];

	if (!pd_live(pd) || attr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (ordk_devargs_check_mac("dest_mac", attr->dest_mac, why, sizeof(why)) != 0 ||
	    ordk_devargs_check_ipv4("dest_ip", attr->dest_ip, 0, why, sizeof(why)) != 0) {
		VERBS_LOG(ERR, "ah_create: %s", why);
		rte_errno = EINVAL;
		return NULL;
	}
	ah = verbs_handle_alloc(sizeof(*ah), 0);
	if (ah == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	ah->magic = VERBS_MAGIC_AH;
	ah->dev = pd->dev;
	ah->pd = pd;
	ah->attr = *attr;
	pd->refs++;
	return ah;
}

int
ordk_ah_destroy(struct ordk_ah *ah)
{
	if (!ah_live(ah))
		return -EINVAL;
	ah->pd->refs--;
	verbs_handle_free(ah, sizeof(*ah));
	return 0;
}

int
ordk_ah_query(const struct ordk_ah *ah, struct ordk_ah_attr *attr)
{
	if (!ah_live(ah) || attr == NULL)
		return -EINVAL;
	*attr = ah->attr;
	return 0;
}

int
ordk_ah_init_from_wc(const struct ordk_wc *wc, const void *grh, struct ordk_ah_attr *attr)
{
	const uint8_t *ip;

	if (wc == NULL || grh == NULL || attr == NULL || !(wc->wc_flags & ORDK_WC_GRH))
		return -EINVAL;
	ip = (const uint8_t *)grh + GRH_IP_OFF;
	if (ip[0] != 0x45) { /* IPv4, no options: what a UD frame carries */
		VERBS_LOG(ERR, "ah_init_from_wc: the GRH holds no IPv4 header");
		return -EINVAL;
	}
	memset(attr, 0, sizeof(*attr));
	attr->dest_ip = (uint32_t)ip[12] << 24 | (uint32_t)ip[13] << 16 | (uint32_t)ip[14] << 8 |
			ip[15];
	attr->dest_mac = wc->src_mac;
	return 0;
}
