/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/verbs' own internals: handles, limits of the software objects, logging.
 * Drivers see ordk_driver.h only.
 */
#ifndef VERBS_INTERNAL_H
#define VERBS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_log.h>

#include "ordk_driver.h"
#include "ordk_verbs.h"

extern int ordk_verbs_logtype;
#define VERBS_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ordk_verbs_logtype, "ordk.verbs: " fmt "\n", ##__VA_ARGS__)

#define ORDK_MAX_CQE	  (1u << 20)
#define ORDK_MAX_CQ	  65536u /* CQs and PDs are software: bounded to what query says */
#define ORDK_MAX_PD	  65536u
#define ORDK_MAX_SRQ	  65536u /* SRQs are software pools too */
#define ORDK_MAX_SRQ_WR	  32768u
#define VERBS_ACCESS_ALL                                                                 \
	(ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE | ORDK_ACCESS_REMOTE_READ | \
	 ORDK_ACCESS_REMOTE_ATOMIC)

/*
 * Handles (verbs_handle.c): objects live in an arena whose addresses are never
 * reused; a handle is live while its object's magic is in place.
 */
#define VERBS_MAGIC_PD 0x4B445050u /* "PPDK" */
#define VERBS_MAGIC_MR 0x4B44524Du
#define VERBS_MAGIC_CQ 0x4B445143u
#define VERBS_MAGIC_QP 0x4B445051u
#define VERBS_MAGIC_SRQ 0x4B445253u
#define VERBS_MAGIC_AH 0x4B444841u
void *verbs_handle_alloc(size_t size, size_t align);
void verbs_handle_free(void *obj, size_t size);
bool verbs_handle_live(const void *h, size_t magic_off, uint32_t magic);
#define VERBS_LIVE(h, type, m) verbs_handle_live((h), offsetof(type, magic), (m))
#define pd_live(pd) VERBS_LIVE(pd, struct ordk_pd, VERBS_MAGIC_PD)
#define mr_live(mr) VERBS_LIVE(mr, struct verbs_mr, VERBS_MAGIC_MR)
#define cq_live(cq) VERBS_LIVE(cq, struct ordk_cq, VERBS_MAGIC_CQ)
#define qp_live(qp) VERBS_LIVE(qp, struct verbs_qp, VERBS_MAGIC_QP)
#define srq_live(srq) VERBS_LIVE(srq, struct ordk_srq, VERBS_MAGIC_SRQ)
#define ah_live(ah) VERBS_LIVE(ah, struct ordk_ah, VERBS_MAGIC_AH)

/** @p from's counters added to @p to's. */
void verbs_stats_add(struct ordk_stats *to, const struct ordk_stats *from);

/** Queue an SRQ's event (SRQ_LIMIT_REACHED). */
void verbs_event_raise_srq(struct ordk_dev *dev, enum ordk_event_type type, struct ordk_srq *srq);

/** After the driver's work: QPs of CQs in error to ERR, events to the callback. */
void verbs_event_run(struct ordk_dev *dev);

/* telemetry (verbs_tele.c) */
/** Register @p dev (opened by driver @p driver) for the /ordk/ endpoints. @return 0 or -ENOMEM. */
int verbs_tele_open(struct ordk_dev *dev, const char *driver);
/** Unregister it, once no telemetry callback holds it (answering their requests meanwhile). */
void verbs_tele_close(struct ordk_dev *dev);
/** Answer the pending telemetry request (ordk_dev_poll() saw one). */
void verbs_tele_serve(struct ordk_dev *dev);

/* QP timelines (verbs_trace.c) */
/** A timeline of @p depth events (rounded up to a power of two, at most 65536; 0: none). */
int verbs_trace_qp_init(struct verbs_qp *qp, uint32_t depth);
void verbs_trace_qp_fini(struct verbs_qp *qp);

#endif /* VERBS_INTERNAL_H */
