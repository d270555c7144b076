/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The active side's TCP connection to the listener's port, and a refused
 * one tried again while nobody listens yet (rcm_conn.c runs the exchange).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rcm_internal.h"

/*
 * How long a refused connect is tried again (ORDK_RDMACM_REFUSED_MS, default
 * 1000; 0: REJECTED at once). The kernel's IB CM rejects a REQ nobody listens
 * for at once, but its active side takes milliseconds to get there (ARP, path
 * records, pinning); ORDK's takes microseconds, and programs whose server
 * listens again just after a step of their own protocol (perftest -R: its
 * data QPs connect as soon as the client's side of the last control exchange
 * ends, the server listens once its SEND of it is acknowledged) find nobody.
 */
#define RCM_REFUSED_RETRY_MS 5

int64_t
rcm_refused_ms(void)
{
	const char *env = getenv("ORDK_RDMACM_REFUSED_MS");
	long v = env != NULL ? strtol(env, NULL, 10) : -1;

	return v >= 0 && v <= 600000 ? v : 1000;
}

/* A refused connect (lock held): tried again in a moment while its window lasts. @return true if so */
bool
rcm_refused_again(struct rcm_id *id)
{
	int64_t now = rcm_now_ms();

	if (now >= id->refused_until)
		return false;
	rcm_unwatch(id);
	rcm_count(RCM_C_REFUSED_RETRY);
	id->state = RCM_CONNECTING;
	id->reconnect = true;
	id->deadline = now + RCM_REFUSED_RETRY_MS;
	return true;
}

/* Nobody listens: what IB says of a service ID without one (lock held). */
void
rcm_no_listener(struct rcm_id *id)
{
	rcm_count(RCM_C_NO_LISTENER);
	RCM_LOG(INFO, "connect to %s:%u: nobody listens\n", inet_ntoa(id->tcp_dst.sin_addr),
		ntohs(id->tcp_dst.sin_port));
	rcm_event_post(id->chan, id, RDMA_CM_EVENT_REJECTED, RCM_REJ_INVALID_SERVICE_ID);
	rcm_close_conn(id);
}

/*
 * The active side's TCP connection to the listener's port (lock held); the
 * REQ in id->tx goes once it is up (on_connected). What the connect says
 * comes as an event, as the kernel's rdma_cm tells it.
 */
void
rcm_tcp_connect(struct rcm_id *id)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), one = 1, err;

	id->state = RCM_CONNECTING;
	if (fd < 0) {
		err = errno;
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_UNREACHABLE, -err);
		rcm_close_conn(id);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	id->fd = fd;
	id->deadline = rcm_now_ms() + rcm_step_ms();
	if (connect(fd, (struct sockaddr *)&id->tcp_dst, sizeof(id->tcp_dst)) == 0 || errno == EINPROGRESS) {
		if (rcm_watch(id->chan, id, EPOLLOUT | EPOLLIN, true) == 0)
			return;
		err = EIO;
	} else {
		err = errno;
	}
	if (err == ECONNREFUSED) {
		if (!rcm_refused_again(id))
			rcm_no_listener(id);
		return;
	}
	rcm_event_post(id->chan, id, RDMA_CM_EVENT_UNREACHABLE, -err);
	rcm_close_conn(id);
}


/* rdma_connect()'s connect (lock held): refused ones are tried again from now on. */
void
rcm_connect_first(struct rcm_id *id)
{
	id->refused_until = rcm_now_ms() + rcm_refused_ms();
	rcm_tcp_connect(id);
}
