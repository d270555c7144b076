/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK verbs: address handles, where a UD QP's datagrams go (ordk_verbs.h
 * includes this header; the threading and error rules are that header's).
 */
#ifndef ORDK_AH_H
#define ORDK_AH_H

#include <stdint.h>

#include "ordk_compat.h"
#include "ordk_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/** The 40-byte GRH at the start of a UD RECV's buffer (IPv4: the IP header in its last 20). */
#define ORDK_GRH_LEN 40u

/** Where a UD datagram goes (an address vector without a QP). */
struct ordk_ah_attr {
	uint32_t dest_ip;  /**< IPv4, numeric, unicast */
	uint64_t dest_mac; /**< unicast */
};

/**
 * Create an address handle for UD sends. Experimental.
 * @return the AH, or NULL with rte_errno: EINVAL (NULL, a dead PD, an IP or
 *   MAC no datagram can go to: the reason is logged), ENOMEM.
 */
ORDK_EXPERIMENTAL
struct ordk_ah *ordk_ah_create(struct ordk_pd *pd, const struct ordk_ah_attr *attr);

/** @return 0, -EINVAL (NULL or already destroyed). Experimental. */
ORDK_EXPERIMENTAL
int ordk_ah_destroy(struct ordk_ah *ah);

/** The attributes of @p ah. @return 0 or -EINVAL. Experimental. */
ORDK_EXPERIMENTAL
int ordk_ah_query(const struct ordk_ah *ah, struct ordk_ah_attr *attr);

/**
 * The address that answers the sender of the UD receive completion @p wc
 * (ORDK_WC_GRH set), whose RECV buffer starts with @p grh (ORDK_GRH_LEN
 * bytes): its IP from the GRH's IPv4 header, its MAC from @p wc.
 * Experimental. @return 0, -EINVAL (NULL, no GRH, not an IPv4 GRH).
 */
ORDK_EXPERIMENTAL
int ordk_ah_init_from_wc(const struct ordk_wc *wc, const void *grh, struct ordk_ah_attr *attr);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* ORDK_AH_H */
