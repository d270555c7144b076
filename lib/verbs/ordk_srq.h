/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK verbs: shared receive queues (ordk_verbs.h includes it). A pool of
 * RECVs the QPs created on it receive into; the card has no receive queue,
 * so the pool lends each QP a few RECVs at a time, which it advertises to
 * its peer (doc/guides/prog_guide/architecture.md, shared receive queues).
 */
#ifndef ORDK_SRQ_H
#define ORDK_SRQ_H

#include <stdint.h>

#include "ordk_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/** A shared receive queue's attributes (ibv_srq_attr). */
struct ordk_srq_attr {
	uint32_t max_wr;    /**< RECVs outstanding at most: 1..max_srq_wr */
	uint32_t max_sge;   /**< 0..max_srq_sge (1) */
	uint32_t srq_limit; /**< armed when non-zero: ORDK_EVENT_SRQ_LIMIT_REACHED, once */
};

/** Attribute mask bits for ordk_srq_modify() (ibv_srq_attr_mask values). */
enum ordk_srq_attr_mask {
	ORDK_SRQ_MAX_WR = 1u << 0, /**< resize: refused (-ENOTSUP) */
	ORDK_SRQ_LIMIT = 1u << 1,
};

/**
 * Create a shared receive queue on @p pd: a pool of RECVs its QPs (created
 * with ordk_qp_init_attr.srq) receive into. The card has no receive queue,
 * so the pool lends each QP a few RECVs at a time, which it advertises to
 * its peer (doc/guides/prog_guide/architecture.md, shared receive queues).
 * @p ctx is returned in events (ordk_srq_context()).
 * @return the SRQ, or NULL with rte_errno: EINVAL (NULL, max_wr 0 or above
 *   max_srq_wr, max_sge above max_srq_sge, srq_limit above max_wr), ENOSPC
 *   (max_srq SRQs exist), ENOMEM.
 */
struct ordk_srq *ordk_srq_create(struct ordk_pd *pd, const struct ordk_srq_attr *attr, void *ctx);

/** @return 0, -EBUSY (a QP uses it), -EINVAL (NULL or already destroyed). */
int ordk_srq_destroy(struct ordk_srq *srq);

/**
 * Post RECVs to the pool (the SGE's lkey on the SRQ's PD, with LOCAL_WRITE).
 * @return WRs accepted, from the first; when fewer than @p n, rte_errno tells
 *   why WR[return value] was not: EINVAL (num_sge, a stale SRQ), EPERM (lkey
 *   not of this PD or not covering the SGE), ENOMEM (max_wr RECVs outstanding:
 *   counted in srq_overrun).
 */
int ordk_srq_post_recv(struct ordk_srq *srq, const struct ordk_recv_wr *wr, int n);

/**
 * Arm the limit (ORDK_SRQ_LIMIT; 0 disarms). @return 0, -EINVAL (limit above
 * max_wr, an unknown bit), -ENOTSUP (ORDK_SRQ_MAX_WR: the pool is not resized).
 */
int ordk_srq_modify(struct ordk_srq *srq, const struct ordk_srq_attr *attr, unsigned int mask);

/** @return 0 or -EINVAL; srq_limit is 0 once the limit fired. */
int ordk_srq_query(const struct ordk_srq *srq, struct ordk_srq_attr *attr);

/** The @p ctx given at creation (NULL for a stale SRQ). */
void *ordk_srq_context(const struct ordk_srq *srq);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* ORDK_SRQ_H */
