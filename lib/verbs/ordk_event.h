/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK verbs: asynchronous events, ibverbs' ibv_get_async_event model
 * (ordk_verbs.h includes this header; the threading and error rules are that
 * header's).
 */
#ifndef ORDK_EVENT_H
#define ORDK_EVENT_H

#include <stdint.h>

#include "ordk_compat.h"
#include "ordk_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/**
 * Asynchronous event types (ibv_event_type's names and values). ORDK raises
 * ORDK_EVENT_CQ_ERR (a CQ overflowed: it is in error), ORDK_EVENT_QP_FATAL
 * (a QP went to ERR by itself: a transport error such as RETRY_EXC_ERR or
 * RNR_RETRY_EXC_ERR, or its CQ in error), ORDK_EVENT_SRQ_LIMIT_REACHED (an
 * armed SRQ's outstanding RECVs fell below its limit) and
 * ORDK_EVENT_QP_LAST_WQE_REACHED (a QP on an SRQ reached ERR and flushed:
 * no RECV of the SRQ completes on it any more); the others are named for
 * code written against ibverbs and not raised today.
 */
enum ordk_event_type {
	ORDK_EVENT_CQ_ERR = 0,
	ORDK_EVENT_QP_FATAL,
	ORDK_EVENT_QP_REQ_ERR,
	ORDK_EVENT_QP_ACCESS_ERR,
	ORDK_EVENT_COMM_EST,
	ORDK_EVENT_SQ_DRAINED,
	ORDK_EVENT_PATH_MIG,
	ORDK_EVENT_PATH_MIG_ERR,
	ORDK_EVENT_DEVICE_FATAL, /**< IBTA's local catastrophic error */
	ORDK_EVENT_PORT_ACTIVE,
	ORDK_EVENT_PORT_ERR,
	ORDK_EVENT_LID_CHANGE,
	ORDK_EVENT_PKEY_CHANGE,
	ORDK_EVENT_SM_CHANGE,
	ORDK_EVENT_SRQ_ERR,
	ORDK_EVENT_SRQ_LIMIT_REACHED, /**< element.srq */
	ORDK_EVENT_QP_LAST_WQE_REACHED,
	ORDK_EVENT_COUNT
};

/** "CQ error", "QP fatal", ... (ibv_event_type_str's spirit). */
const char *ordk_event_type_str(enum ordk_event_type type);

/** An asynchronous event. */
struct ordk_async_event {
	enum ordk_event_type event_type;
	union {
		struct ordk_cq *cq; /**< CQ_ERR */
		struct ordk_qp *qp; /**< QP_* events, COMM_EST, SQ_DRAINED, PATH_MIG* */
		struct ordk_srq *srq; /**< SRQ_LIMIT_REACHED, SRQ_ERR */
	} element;
	uint32_t qp_num;	    /**< QP events: the QP's number (0 otherwise) */
};

/**
 * Take the oldest pending asynchronous event of the device (ibv_get_async_event
 * without the blocking and without the ack: the handles in an event may have
 * been destroyed since, which makes them stale, not dangerous: every call gets
 * -EINVAL). Events are raised by the progress engine (ordk_dev_poll(),
 * ordk_cq_poll()); up to 256 wait, and more are counted (async_events_lost).
 * @return 0 (@p ev filled), -EAGAIN (none pending), -EINVAL (NULL).
 * Call from the lcore that drives the device.
 */
int ordk_dev_get_async_event(struct ordk_dev *dev, struct ordk_async_event *ev);

/**
 * Have events delivered to @p cb instead of queued (NULL: back to the queue).
 * The callback runs on the lcore that drives the device, at the end of
 * ordk_dev_poll() (so also from inside ordk_cq_poll()), never in the middle of
 * the transport's work: it may modify or destroy objects, except the CQ that
 * is being polled. Events already queued are delivered at the next poll.
 * @return 0 or -EINVAL.
 */
int ordk_dev_set_async_cb(struct ordk_dev *dev,
			  void (*cb)(struct ordk_dev *dev, const struct ordk_async_event *ev,
				     void *arg),
			  void *arg);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* ORDK_EVENT_H */
