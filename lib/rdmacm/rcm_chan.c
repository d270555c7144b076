/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event channels: an eventfd counting the queued events (EFD_SEMAPHORE: a
 * read takes one), so channel->fd is readable exactly while an event waits,
 * and rdma_get_cm_event() blocks, or fails with EAGAIN, as the application
 * set the fd. One thread per channel waits on the channel's sockets.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "rcm_internal.h"

RTE_LOG_REGISTER(rcm_logtype, ordk.rdmacm, NOTICE);

const char *const rcm_counter_names[RCM_C_MAX] = {
	[RCM_C_GARBAGE] = "garbage",
	[RCM_C_BAD_REQ] = "bad_req",
	[RCM_C_NO_LISTENER] = "no_listener",
	[RCM_C_TIMEOUT] = "timeout",
	[RCM_C_RESET] = "reset",
	[RCM_C_REJ_SENT] = "rej_sent",
	[RCM_C_REJ_RCVD] = "rej_rcvd",
	[RCM_C_ESTABLISHED] = "established",
	[RCM_C_DISCONNECTED] = "disconnected",
	[RCM_C_REFUSED_CALL] = "refused_call",
	[RCM_C_REFUSED_RETRY] = "refused_retry",
};
static _Atomic uint64_t counters[RCM_C_MAX];

void
rcm_count(enum rcm_counter c)
{
	atomic_fetch_add_explicit(&counters[c], 1, memory_order_relaxed);
}

/* ORDK's own: the counters by name, for tests (version ORDK_RDMACM_PRIVATE). */
int ordk_rdmacm_counter(const char *name, uint64_t *value);
int
ordk_rdmacm_counter(const char *name, uint64_t *value)
{
	for (int i = 0; i < RCM_C_MAX; i++)
		if (name != NULL && strcmp(name, rcm_counter_names[i]) == 0) {
			*value = atomic_load_explicit(&counters[i], memory_order_relaxed);
			return 0;
		}
	errno = ENOENT;
	return -1;
}

/* ORDK_RDMACM_STATS=1: one line at exit, for two-process tests and people */
static void __attribute__((destructor))
stats_at_exit(void)
{
	char line[512];
	size_t n = 0;
	const char *env = getenv("ORDK_RDMACM_STATS");

	if (env == NULL || strcmp(env, "1") != 0)
		return;
	for (int i = 0; i < RCM_C_MAX && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s=%" PRIu64, rcm_counter_names[i],
				      atomic_load_explicit(&counters[i], memory_order_relaxed));
	fprintf(stderr, "ordk-rdmacm: counters:%s\n", line);
}

int64_t
rcm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct rcm_chan *
rcm_chan_of(struct rdma_event_channel *ch)
{
	struct rcm_chan *c = (struct rcm_chan *)ch;

	return c != NULL && c->magic == RCM_MAGIC_CHAN ? c : NULL;
}

struct rcm_id *
rcm_id_of(struct rdma_cm_id *id)
{
	struct rcm_id *r = (struct rcm_id *)id;

	return r != NULL && r->magic == RCM_MAGIC_ID ? r : NULL;
}

struct rcm_event *
rcm_event_post(struct rcm_chan *c, struct rcm_id *id, enum rdma_cm_event_type type, int status)
{
	struct rcm_event *e = calloc(1, sizeof(*e));
	uint64_t one = 1;

	if (e == NULL) {
		RCM_LOG(ERR, "no memory for an event (%s): dropped\n", rdma_event_str(type));
		return NULL;
	}
	e->ev.id = &id->id;
	e->ev.event = type;
	e->ev.status = status;
	TAILQ_INSERT_TAIL(&c->events, e, next);
	if (write(c->ch.fd, &one, sizeof(one)) != sizeof(one))
		RCM_LOG(ERR, "eventfd write: %s\n", strerror(errno));
	return e;
}

int
rcm_watch(struct rcm_chan *c, struct rcm_id *id, uint32_t events, bool add)
{
	struct epoll_event ev = { .events = events, .data.ptr = id };

	if (epoll_ctl(c->epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, id->fd, &ev) != 0) {
		RCM_LOG(ERR, "epoll_ctl: %s\n", strerror(errno));
		return -errno;
	}
	return 0;
}

void
rcm_unwatch(struct rcm_id *id)
{
	if (id->fd < 0)
		return;
	epoll_ctl(id->chan->epfd, EPOLL_CTL_DEL, id->fd, NULL);
	close(id->fd);
	id->fd = -1;
	id->deadline = 0;
}

static void
reap(struct rcm_chan *c)
{
	struct rcm_id *id;

	while ((id = TAILQ_FIRST(&c->reaped)) != NULL) {
		TAILQ_REMOVE(&c->reaped, id, reap);
		free(id);
	}
}

/*
 * The channel's thread. Ids destroyed by the application go to 'reaped'
 * and are freed here, before the next epoll_wait(): a batch already taken
 * may still name them (they are RCM_MAGIC_DEAD then and skipped).
 */
static void *
chan_thread(void *arg)
{
	struct rcm_chan *c = arg;
	struct epoll_event evs[16];

	for (;;) {
		int64_t now = rcm_now_ms(), next = now + 1000;
		struct rcm_id *id;
		int n, tmo;

		pthread_mutex_lock(&c->lock);
		reap(c);
		TAILQ_FOREACH(id, &c->ids, next)
			if (id->deadline != 0 && id->deadline < next)
				next = id->deadline;
		pthread_mutex_unlock(&c->lock);
		tmo = next > now ? (int)(next - now) : 0;
		n = epoll_wait(c->epfd, evs, 16, tmo);
		if (n < 0 && errno != EINTR) {
			RCM_LOG(ERR, "epoll_wait: %s: the channel's thread ends\n", strerror(errno));
			return NULL;
		}
		pthread_mutex_lock(&c->lock);
		if (c->stop) {
			pthread_mutex_unlock(&c->lock);
			return NULL;
		}
		for (int i = 0; i < n; i++) {
			id = evs[i].data.ptr;
			if (id == NULL || id->magic != RCM_MAGIC_ID || id->chan != c || id->fd < 0)
				continue;
			rcm_io(id, evs[i].events);
		}
		rcm_expire(c, rcm_now_ms());
		pthread_mutex_unlock(&c->lock);
	}
}

struct rdma_event_channel *
rdma_create_event_channel(void)
{
	struct rcm_chan *c = calloc(1, sizeof(*c));
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->ch.fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->stopfd = eventfd(0, EFD_CLOEXEC);
	TAILQ_INIT(&c->events);
	TAILQ_INIT(&c->ids);
	TAILQ_INIT(&c->reaped);
	pthread_mutex_init(&c->lock, NULL);
	c->magic = RCM_MAGIC_CHAN;
	if (c->ch.fd < 0 || c->epfd < 0 || c->stopfd < 0 ||
	    epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->stopfd, &ev) != 0 ||
	    pthread_create(&c->thread, NULL, chan_thread, c) != 0) {
		int err = errno != 0 ? errno : ENOMEM;

		RCM_LOG(ERR, "rdma_create_event_channel: %s\n", strerror(err));
		if (c->ch.fd >= 0)
			close(c->ch.fd);
		if (c->epfd >= 0)
			close(c->epfd);
		if (c->stopfd >= 0)
			close(c->stopfd);
		free(c);
		errno = err;
		return NULL;
	}
	pthread_setname_np(c->thread, "ordk-rdmacm");
	return &c->ch;
}

void
rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	struct rcm_chan *c = rcm_chan_of(channel);
	struct rcm_event *e;
	uint64_t one = 1;

	if (c == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	c->stop = true;
	pthread_mutex_unlock(&c->lock);
	if (write(c->stopfd, &one, sizeof(one)) != sizeof(one))
		RCM_LOG(ERR, "eventfd write: %s\n", strerror(errno));
	pthread_join(c->thread, NULL);
	if (!TAILQ_EMPTY(&c->ids))
		RCM_LOG(WARNING, "rdma_destroy_event_channel: ids still on the channel\n");
	while ((e = TAILQ_FIRST(&c->events)) != NULL) {
		TAILQ_REMOVE(&c->events, e, next);
		free(e);
	}
	reap(c);
	close(c->epfd);
	close(c->stopfd);
	c->magic = RCM_MAGIC_DEAD;
	/*
	 * A thread still inside rdma_get_cm_event() (rping's event thread
	 * when main returns): the kernel's channel would keep it blocked on
	 * the fd, so the fd and the channel stay, leaked, and it waits on.
	 */
	if (atomic_load(&c->waiters) > 0)
		return;
	close(c->ch.fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int
rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	struct rcm_chan *c = rcm_chan_of(channel);

	if (c == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	atomic_fetch_add(&c->waiters, 1);
	for (;;) {
		struct rcm_event *e;
		uint64_t v;
		ssize_t r = read(c->ch.fd, &v, sizeof(v)); /* blocks unless the fd is O_NONBLOCK */

		if (r < 0) {
			if (errno == EINTR)
				continue;
			atomic_fetch_sub(&c->waiters, 1);
			return -1; /* EAGAIN: nothing waits on a non-blocking channel */
		}
		if (c->magic != RCM_MAGIC_CHAN) /* destroyed under us: wait on, as on the kernel's */
			continue;
		pthread_mutex_lock(&c->lock);
		e = TAILQ_FIRST(&c->events);
		if (e != NULL)
			TAILQ_REMOVE(&c->events, e, next);
		pthread_mutex_unlock(&c->lock);
		if (e != NULL) {
			atomic_fetch_sub(&c->waiters, 1);
			*event = &e->ev;
			return 0;
		}
		/* the count of an event its destroyed id took along: take the next */
	}
}

int
rdma_ack_cm_event(struct rdma_cm_event *event)
{
	struct rcm_event *e = (struct rcm_event *)event;

	if (e == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* the id is not touched: it may be destroyed already (rdma-core's would have waited) */
	free(e);
	return 0;
}

/* Drop @p id's queued events (lock held): its eventfd counts stay, taken as stale. */
static void
drop_events(struct rcm_chan *c, struct rcm_id *id)
{
	struct rcm_event *e, *t;

	for (e = TAILQ_FIRST(&c->events); e != NULL; e = t) {
		t = TAILQ_NEXT(e, next);
		if (e->ev.id == &id->id || e->ev.listen_id == &id->id) {
			TAILQ_REMOVE(&c->events, e, next);
			free(e);
		}
	}
}

/* The id leaves its channel (lock held); freed by the channel's thread. */
void
rcm_id_retire(struct rcm_id *id)
{
	struct rcm_chan *c = id->chan;

	rcm_unwatch(id);
	drop_events(c, id);
	rcm_sync_keep(id, NULL);
	TAILQ_REMOVE(&c->ids, id, next);
	id->magic = RCM_MAGIC_DEAD;
	TAILQ_INSERT_TAIL(&c->reaped, id, reap);
}

/*
 * Move @p cmid, its socket and its waiting events to @p channel, as rdma-core
 * does: NULL makes the id synchronous (a private channel of its own); a
 * synchronous id moved to a channel is asynchronous from then on (libfabric
 * resolves an address synchronously, then migrates the id to its EQ's channel),
 * and its private channel goes.
 */
int
rdma_migrate_id(struct rdma_cm_id *cmid, struct rdma_event_channel *channel)
{
	struct rcm_id *id = rcm_id_of(cmid);
	struct rdma_event_channel *mine = NULL;
	struct rcm_chan *to, *from, *a, *b;
	struct rcm_event *e, *t;
	uint64_t one = 1;
	uint32_t watch = 0;
	bool was_own, watched;

	if (id == NULL || (channel != NULL && rcm_chan_of(channel) == NULL) ||
	    (channel == NULL && id->sync)) {
		errno = EINVAL;
		return -1;
	}
	if (channel == NULL) {
		mine = rdma_create_event_channel();
		if (mine == NULL)
			return -1;
		channel = mine;
	}
	to = rcm_chan_of(channel);
	from = id->chan;
	if (from == to)
		return 0;
	/* both locks, in address order */
	a = from < to ? from : to;
	b = from < to ? to : from;
	pthread_mutex_lock(&a->lock);
	pthread_mutex_lock(&b->lock);
	/* a socket in the old channel's epoll goes to the new one's (a bound one is in none yet) */
	watched = id->fd >= 0 && id->state != RCM_BOUND;
	if (watched) {
		struct epoll_event ev;

		watch = id->state == RCM_CONNECTING ? EPOLLOUT | EPOLLIN : EPOLLIN;
		epoll_ctl(from->epfd, EPOLL_CTL_DEL, id->fd, &ev);
	}
	TAILQ_REMOVE(&from->ids, id, next);
	TAILQ_INSERT_TAIL(&to->ids, id, next);
	id->chan = to;
	id->id.channel = &to->ch;
	was_own = id->own_chan;
	if (was_own) /* a synchronous id's last event goes with its private channel */
		rcm_sync_keep(id, NULL);
	id->sync = mine != NULL;
	id->own_chan = mine != NULL;
	/* its waiting events go along, in their order */
	for (e = TAILQ_FIRST(&from->events); e != NULL; e = t) {
		t = TAILQ_NEXT(e, next);
		if (e->ev.id != cmid)
			continue;
		TAILQ_REMOVE(&from->events, e, next);
		TAILQ_INSERT_TAIL(&to->events, e, next);
		if (write(to->ch.fd, &one, sizeof(one)) != sizeof(one))
			RCM_LOG(ERR, "eventfd write: %s\n", strerror(errno));
	}
	if (watched)
		rcm_watch(to, id, watch, true);
	pthread_mutex_unlock(&b->lock);
	pthread_mutex_unlock(&a->lock);
	if (was_own) /* the private channel of a synchronous id: nothing else on it */
		rdma_destroy_event_channel(&from->ch);
	return 0;
}

void
rcm_sync_keep(struct rcm_id *id, struct rdma_cm_event *ev)
{
	if (id->sync_ev != NULL)
		rdma_ack_cm_event(id->sync_ev);
	id->sync_ev = ev;
	id->id.event = ev;
}

int
rcm_sync_wait(struct rcm_id *id, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;
	int status;
	enum rdma_cm_event_type got;

	if (rdma_get_cm_event(&id->chan->ch, &ev) != 0)
		return -1;
	got = ev->event;
	status = ev->status;
	pthread_mutex_lock(&id->chan->lock);
	rcm_sync_keep(id, ev);
	pthread_mutex_unlock(&id->chan->lock);
	if (got != want || status != 0) {
		RCM_LOG(INFO, "waited for %s, got %s (status %d)\n", rdma_event_str(want),
			rdma_event_str(got), status);
		/* as rdma-core's ucma_complete() */
		errno = got == RDMA_CM_EVENT_REJECTED ? ECONNREFUSED :
			status < 0 ? -status : status > 0 ? status : EINVAL;
		return -1;
	}
	return 0;
}

const char *
rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const names[] = {
		[RDMA_CM_EVENT_ADDR_RESOLVED] = "RDMA_CM_EVENT_ADDR_RESOLVED",
		[RDMA_CM_EVENT_ADDR_ERROR] = "RDMA_CM_EVENT_ADDR_ERROR",
		[RDMA_CM_EVENT_ROUTE_RESOLVED] = "RDMA_CM_EVENT_ROUTE_RESOLVED",
		[RDMA_CM_EVENT_ROUTE_ERROR] = "RDMA_CM_EVENT_ROUTE_ERROR",
		[RDMA_CM_EVENT_CONNECT_REQUEST] = "RDMA_CM_EVENT_CONNECT_REQUEST",
		[RDMA_CM_EVENT_CONNECT_RESPONSE] = "RDMA_CM_EVENT_CONNECT_RESPONSE",
		[RDMA_CM_EVENT_CONNECT_ERROR] = "RDMA_CM_EVENT_CONNECT_ERROR",
		[RDMA_CM_EVENT_UNREACHABLE] = "RDMA_CM_EVENT_UNREACHABLE",
		[RDMA_CM_EVENT_REJECTED] = "RDMA_CM_EVENT_REJECTED",
		[RDMA_CM_EVENT_ESTABLISHED] = "RDMA_CM_EVENT_ESTABLISHED",
		[RDMA_CM_EVENT_DISCONNECTED] = "RDMA_CM_EVENT_DISCONNECTED",
		[RDMA_CM_EVENT_DEVICE_REMOVAL] = "RDMA_CM_EVENT_DEVICE_REMOVAL",
		[RDMA_CM_EVENT_MULTICAST_JOIN] = "RDMA_CM_EVENT_MULTICAST_JOIN",
		[RDMA_CM_EVENT_MULTICAST_ERROR] = "RDMA_CM_EVENT_MULTICAST_ERROR",
		[RDMA_CM_EVENT_ADDR_CHANGE] = "RDMA_CM_EVENT_ADDR_CHANGE",
		[RDMA_CM_EVENT_TIMEWAIT_EXIT] = "RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};

	if ((unsigned int)event < sizeof(names) / sizeof(names[0]))
		return names[event];
	return "UNKNOWN EVENT";
}
