/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous events (ibverbs' ibv_get_async_event model): a per-device
 * queue the progress engine fills and the application drains, or a callback.
 * A CQ in error takes its QPs to ERR here, after the transport's work, never
 * from inside it (a completion push happens in the middle of queue walks).
 */
#include <errno.h>
#include <inttypes.h>

#include <rte_branch_prediction.h>
#include <rte_hash.h>

#include "verbs_internal.h"

const char *
ordk_event_type_str(enum ordk_event_type type)
{
	static const char *const names[ORDK_EVENT_COUNT] = {
		[ORDK_EVENT_CQ_ERR] = "CQ error",
		[ORDK_EVENT_QP_FATAL] = "QP fatal error",
		[ORDK_EVENT_QP_REQ_ERR] = "QP invalid request error",
		[ORDK_EVENT_QP_ACCESS_ERR] = "QP access error",
		[ORDK_EVENT_COMM_EST] = "communication established",
		[ORDK_EVENT_SQ_DRAINED] = "send queue drained",
		[ORDK_EVENT_PATH_MIG] = "path migrated",
		[ORDK_EVENT_PATH_MIG_ERR] = "path migration error",
		[ORDK_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[ORDK_EVENT_PORT_ACTIVE] = "port active",
		[ORDK_EVENT_PORT_ERR] = "port error",
		[ORDK_EVENT_LID_CHANGE] = "LID change",
		[ORDK_EVENT_PKEY_CHANGE] = "P_Key change",
		[ORDK_EVENT_SM_CHANGE] = "SM change",
		[ORDK_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[ORDK_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[ORDK_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
	};

	return (unsigned int)type < ORDK_EVENT_COUNT ? names[type] : "unknown";
}

/* A new event of @p type at the queue's end, or NULL (the queue is full: counted). */
static struct ordk_async_event *
event_new(struct verbs_dev *dev, enum ordk_event_type type)
{
	struct ordk_async_event *e;

	if (dev->ev_count == VERBS_EVENTS) {
		/* one line a run of losses, not one a loss: a program that never reads them */
		dev->st.async_events_lost++;
		if (dev->ev_lost_run++ == 0)
			VERBS_LOG(ERR, "%s: event queue full (%u): %s lost; more are counted "
				  "(async_events_lost) until the queue has room",
				  dev->name, VERBS_EVENTS, ordk_event_type_str(type));
		return NULL;
	}
	if (unlikely(dev->ev_lost_run != 0)) {
		VERBS_LOG(ERR, "%s: %" PRIu64 " events lost while the event queue was full",
			  dev->name, dev->ev_lost_run);
		dev->ev_lost_run = 0;
	}
	e = &dev->ev[(dev->ev_head + dev->ev_count++) % VERBS_EVENTS];
	*e = (struct ordk_async_event){ .event_type = type };
	return e;
}

void
verbs_event_raise_srq(struct ordk_dev *odev, enum ordk_event_type type, struct ordk_srq *srq)
{
	struct ordk_async_event *e = event_new(vdev(odev), type);

	if (e == NULL)
		return;
	e->element.srq = srq;
	VERBS_LOG(INFO, "%s: event: %s (an SRQ)", vdev(odev)->name, ordk_event_type_str(type));
}

void
verbs_event_raise(struct ordk_dev *odev, enum ordk_event_type type, struct ordk_qp *qp,
		  struct ordk_cq *cq)
{
	struct verbs_dev *dev = vdev(odev);
	struct ordk_async_event *e = event_new(dev, type);

	if (e == NULL)
		return;
	if (qp != NULL) {
		e->element.qp = qp;
		e->qp_num = vqp(qp)->qpn;
	} else {
		e->element.cq = cq;
	}
	VERBS_LOG(INFO, "%s: event: %s%s", dev->name, ordk_event_type_str(type),
		  qp != NULL ? " (a QP)" : " (a CQ)");
}

int
ordk_dev_get_async_event(struct ordk_dev *odev, struct ordk_async_event *ev)
{
	struct verbs_dev *dev = vdev(odev);

	if (dev == NULL || ev == NULL)
		return -EINVAL;
	if (dev->ev_count == 0)
		return -EAGAIN;
	*ev = dev->ev[dev->ev_head];
	dev->ev_head = (dev->ev_head + 1) % VERBS_EVENTS;
	dev->ev_count--;
	return 0;
}

int
ordk_dev_set_async_cb(struct ordk_dev *odev,
		      void (*cb)(struct ordk_dev *dev, const struct ordk_async_event *ev,
				 void *arg),
		      void *arg)
{
	struct verbs_dev *dev = vdev(odev);

	if (dev == NULL)
		return -EINVAL;
	dev->ev_cb = cb;
	dev->ev_arg = arg;
	return 0;
}

/* Every QP on a CQ in error goes to ERR (its WRs flushed) and says so. */
static void
cq_errors_to_qps(struct ordk_dev *odev)
{
	const struct ordk_qp_attr err = { .qp_state = ORDK_QPS_ERR };
	struct verbs_dev *dev = vdev(odev);
	const void *key;
	void *data;
	uint32_t it = 0;

	dev->cq_error = false;
	while (rte_hash_iterate(dev->qp_table, &key, &data, &it) >= 0) {
		struct verbs_qp *qp = data;
		enum ordk_qp_state s = qp->attr.qp_state;

		if ((!qp->scq->error && !qp->rcq->error) || s == ORDK_QPS_RESET ||
		    s == ORDK_QPS_ERR)
			continue;
		VERBS_LOG(ERR, "%s: qp 0x%06x: its %s CQ is in error (overflow); QP to ERR",
			  dev->name, qp->qpn, qp->scq->error ? "send" : "receive");
		/* modify never adds or removes QPs: the iteration stays valid */
		if (ordk_qp_modify(data, &err, ORDK_QP_STATE) != 0) {
			/* the device did not confirm: the driver stops the QP anyway */
			dev->ops->qp_flush(data);
			qp->attr.qp_state = ORDK_QPS_ERR;
		}
		verbs_event_raise(odev, ORDK_EVENT_QP_FATAL, data, NULL);
	}
}

void
verbs_event_run(struct ordk_dev *odev)
{
	struct verbs_dev *dev = vdev(odev);

	if (unlikely(dev->cq_error))
		cq_errors_to_qps(odev);
	if (dev->ev_cb == NULL)
		return;
	while (dev->ev_count > 0 && dev->ev_cb != NULL) {
		struct ordk_async_event e;

		ordk_dev_get_async_event(odev, &e);
		dev->ev_cb(odev, &e, dev->ev_arg);
	}
}
