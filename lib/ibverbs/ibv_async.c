/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asynchronous events. ORDK raises them in its progress engine
 * (ordk_dev_poll(), which here always runs under the device lock: in a verb,
 * a linger or the progress thread) and hands each to ov_async_cb(). It is
 * queued for the context that owns the CQ or QP (a device or port event for
 * every context) and counted on that context's async_fd, an eventfd
 * (EFD_SEMAPHORE): the fd is readable while an event is pending, so poll()
 * and epoll work; ibv_get_async_event() reads it, then takes the event.
 *
 * As in rdma-core, an event's CQ or QP stays valid until the event is acked:
 * ibv_destroy_cq() / ibv_destroy_qp() drop the object's events not yet taken
 * and wait for the acks of those returned (ibv_ack_async_event()).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ibv_internal.h"

static bool
is_qp_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_QP_FATAL || t == IBV_EVENT_QP_REQ_ERR ||
	       t == IBV_EVENT_QP_ACCESS_ERR || t == IBV_EVENT_COMM_EST ||
	       t == IBV_EVENT_SQ_DRAINED || t == IBV_EVENT_PATH_MIG ||
	       t == IBV_EVENT_PATH_MIG_ERR || t == IBV_EVENT_QP_LAST_WQE_REACHED;
}

static bool
is_srq_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_SRQ_ERR || t == IBV_EVENT_SRQ_LIMIT_REACHED;
}

static bool
has_object(enum ibv_event_type t)
{
	return t == IBV_EVENT_CQ_ERR || is_qp_event(t) || is_srq_event(t);
}

/* One more event for context @p x (device lock held). */
static void
queue_event(struct ov_ctx *x, const struct ibv_async_event *e)
{
	uint64_t one = 1;

	if (x->ev_n == OV_ASYNC_MAX) {
		x->ev_lost++;
		OV_LOG(ERR, "async event '%s' lost: %d events wait for ibv_get_async_event()\n",
		       ibv_event_type_str(e->event_type), OV_ASYNC_MAX);
		return;
	}
	x->ev[(x->ev_first + x->ev_n++) % OV_ASYNC_MAX] = *e;
	if (write(x->vctx.context.async_fd, &one, sizeof(one)) != sizeof(one))
		OV_LOG(ERR, "async_fd: eventfd write failed: %s\n", strerror(errno));
}

void
ov_async_cb(struct ordk_dev *dev, const struct ordk_async_event *ev, void *arg)
{
	struct ov_dev *d = arg;
	/* ORDK's event types have ibv_event_type's values (ordk_verbs.h) */
	struct ibv_async_event e = { .event_type = (enum ibv_event_type)ev->event_type };
	struct ibv_context *owner = NULL;
	struct ordk_qp_init_attr ia;

	(void)dev;
	if (e.event_type == IBV_EVENT_CQ_ERR) {
		for (struct ov_cq *c = d->cqs; c != NULL; c = c->next)
			if (c->o == ev->element.cq) {
				e.element.cq = &c->cq;
				owner = c->cq.context;
			}
	} else if (is_srq_event(e.event_type)) {
		/* every SRQ is created with its ov_srq as its context */
		struct ov_srq *s = ordk_srq_context(ev->element.srq);

		if (s != NULL) {
			e.element.srq = &s->srq;
			owner = s->srq.context;
		}
	} else if (is_qp_event(e.event_type)) {
		/* every QP is created with its ov_qp as ORDK's qp_context */
		if (ordk_qp_query(ev->element.qp, NULL, &ia) == 0 && ia.qp_context != NULL) {
			e.element.qp = &((struct ov_qp *)ia.qp_context)->qp;
			owner = e.element.qp->context;
		}
	} else {
		e.element.port_num = 1; /* a device or port event: every context */
		for (struct ov_ctx *x = d->ctxs; x != NULL; x = x->next)
			queue_event(x, &e);
		return;
	}
	if (owner == NULL) {
		OV_LOG(WARNING, "async event '%s' for an object this library does not know: dropped\n",
		       ibv_event_type_str(e.event_type));
		return;
	}
	queue_event((struct ov_ctx *)verbs_get_ctx(owner), &e);
}

void
ov_async_purge(struct ov_dev *d, const void *element)
{
	for (struct ov_ctx *x = d->ctxs; x != NULL; x = x->next) {
		uint32_t kept = 0;

		for (uint32_t i = 0; i < x->ev_n; i++) {
			const struct ibv_async_event *e = &x->ev[(x->ev_first + i) % OV_ASYNC_MAX];

			if (has_object(e->event_type) && (const void *)e->element.cq == element)
				continue;
			x->ev[(x->ev_first + kept++) % OV_ASYNC_MAX] = *e;
		}
		/* async_fd keeps counting them: ibv_get_async_event() reads past */
		x->ev_n = kept;
	}
}

void
ov_async_wait_acks(pthread_mutex_t *m, pthread_cond_t *cv, const uint32_t *acked,
		   uint32_t reported)
{
	pthread_mutex_lock(m);
	while (*acked != reported)
		pthread_cond_wait(cv, m);
	pthread_mutex_unlock(m);
}

int
ibv_get_async_event(struct ibv_context *c, struct ibv_async_event *event)
{
	struct ov_ctx *x = (struct ov_ctx *)verbs_get_ctx(c);
	bool got = false;
	uint64_t v;

	while (!got) {
		if (read(c->async_fd, &v, sizeof(v)) != sizeof(v))
			return -1; /* errno from read: EAGAIN on a non-blocking fd */
		pthread_mutex_lock(&x->d->lock);
		if (x->ev_n > 0) { /* else its object was destroyed since: the next */
			*event = x->ev[x->ev_first];
			x->ev_first = (x->ev_first + 1) % OV_ASYNC_MAX;
			x->ev_n--;
			got = true;
			if (event->event_type == IBV_EVENT_CQ_ERR)
				((struct ov_cq *)event->element.cq)->async_reported++;
			else if (is_qp_event(event->event_type))
				((struct ov_qp *)event->element.qp)->async_reported++;
			else if (is_srq_event(event->event_type))
				((struct ov_srq *)event->element.srq)->async_reported++;
		}
		pthread_mutex_unlock(&x->d->lock);
	}
	return 0;
}

void
ibv_ack_async_event(struct ibv_async_event *event)
{
	pthread_mutex_t *m;
	pthread_cond_t *cv;
	uint32_t *acked;

	if (event->event_type == IBV_EVENT_CQ_ERR) {
		m = &event->element.cq->mutex;
		cv = &event->element.cq->cond;
		acked = &event->element.cq->async_events_completed;
	} else if (is_qp_event(event->event_type)) {
		m = &event->element.qp->mutex;
		cv = &event->element.qp->cond;
		acked = &event->element.qp->events_completed;
	} else if (is_srq_event(event->event_type)) {
		m = &event->element.srq->mutex;
		cv = &event->element.srq->cond;
		acked = &event->element.srq->events_completed;
	} else {
		return; /* device and port events hold nothing */
	}
	pthread_mutex_lock(m);
	++*acked;
	pthread_cond_signal(cv);
	pthread_mutex_unlock(m);
}

const char *
ibv_event_type_str(enum ibv_event_type event)
{
	static const char *const s[] = {
		[IBV_EVENT_CQ_ERR] = "CQ error",
		[IBV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[IBV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[IBV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[IBV_EVENT_COMM_EST] = "communication established",
		[IBV_EVENT_SQ_DRAINED] = "send queue drained",
		[IBV_EVENT_PATH_MIG] = "path migrated",
		[IBV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[IBV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[IBV_EVENT_PORT_ACTIVE] = "port active",
		[IBV_EVENT_PORT_ERR] = "port error",
		[IBV_EVENT_LID_CHANGE] = "LID change",
		[IBV_EVENT_PKEY_CHANGE] = "P_Key change",
		[IBV_EVENT_SM_CHANGE] = "SM change",
		[IBV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[IBV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[IBV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[IBV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[IBV_EVENT_GID_CHANGE] = "GID table change",
		[IBV_EVENT_WQ_FATAL] = "WQ fatal",
	};

	if ((unsigned int)event >= sizeof(s) / sizeof(s[0]) || s[event] == NULL)
		return "unknown";
	return s[event];
}
