/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm's connection calls over TCP, ORDK to ORDK.
 *
 * The active side connects to the listener's TCP port (rdma_cm's port; the
 * device IP mapped through ORDK_CM_PEERS) and the two run IB CM's exchange
 * as fixed 256-byte messages:
 *   0  "ORDKRCM1"          16 qpn (be32)   20 psn (be32)   24 gid (16)
 *   8  type  9 reason  10 private data length  11 path MTU  12 initiator depth
 *   13 responder resources  14 retry count  15 RNR retry   40 private data (<= 196)
 * REQ (active: its QP, depths, up to 56 bytes), REP (passive, up to 196),
 * RTU, REJ (a reason, up to 148), DREQ. PSNs are 0 both ways. Every message
 * is checked before it is believed: the exchange's port is open to anyone.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rcm_internal.h"

#define MAGIC "ORDKRCM1"

static const uint8_t pdata_max[RCM_MSG_MAX + 1] = {
	[RCM_REQ] = RCM_REQ_PDATA, [RCM_REP] = RCM_REP_PDATA, [RCM_RTU] = 0,
	[RCM_REJ] = RCM_REJ_PDATA, [RCM_DREQ] = RCM_DREQ_PDATA,
};
static const char *const msg_name[RCM_MSG_MAX + 1] = {
	[0] = "?", [RCM_REQ] = "REQ", [RCM_REP] = "REP", [RCM_RTU] = "RTU",
	[RCM_REJ] = "REJ", [RCM_DREQ] = "DREQ",
};

/* How long a handshake step may take (ORDK_RDMACM_TIMEOUT_MS, default 20 s). */
static int64_t
step_ms(void)
{
	const char *env = getenv("ORDK_RDMACM_TIMEOUT_MS");
	long v = env != NULL ? strtol(env, NULL, 10) : 0;

	return v > 0 && v <= 600000 ? v : 20000;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void
encode(uint8_t *b, enum rcm_msg_type type, const struct rcm_id *id, uint8_t reason,
       const void *pdata, uint8_t plen)
{
	union ibv_gid gid;

	memset(b, 0, RCM_MSG_LEN);
	memcpy(b, MAGIC, 8);
	b[8] = (uint8_t)type;
	b[9] = reason;
	b[10] = plen;
	if (type == RCM_REQ || type == RCM_REP) {
		b[11] = rcm_dev_mtu();
		b[12] = id->init_depth;
		b[13] = id->resp_res;
		b[14] = id->retry;
		b[15] = id->rnr_retry;
		put32(b + 16, id->qpn);
		put32(b + 20, 0);
		if (rcm_dev_gid(&gid) == 0)
			memcpy(b + 24, gid.raw, 16);
	}
	if (plen > 0 && pdata != NULL)
		memcpy(b + 40, pdata, plen);
}

/* Write a whole message, waiting at most a second for room (the socket is non-blocking). */
static int
send_raw(int fd, const uint8_t *b)
{
	size_t done = 0;
	int64_t end = rcm_now_ms() + 1000;

	while (done < RCM_MSG_LEN) {
		ssize_t k = send(fd, b + done, RCM_MSG_LEN - done, MSG_NOSIGNAL);

		if (k > 0) {
			done += (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN && rcm_now_ms() < end) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };

			poll(&p, 1, 100);
			continue;
		}
		return k < 0 ? -errno : -EIO;
	}
	return 0;
}

static int
send_msg(struct rcm_id *id, enum rcm_msg_type type, uint8_t reason, const void *pdata, uint8_t plen)
{
	uint8_t b[RCM_MSG_LEN];
	int rc;

	if (id->fd < 0)
		return -ENOTCONN;
	encode(b, type, id, reason, pdata, plen);
	rc = send_raw(id->fd, b);
	if (rc != 0)
		RCM_LOG(INFO, "sending %s: %s\n", msg_name[type], strerror(-rc));
	return rc;
}

/* An event with the message's private data (padded to IB's size for the message, as the kernel's). */
static struct rcm_event *
post_msg_event(struct rcm_id *id, enum rdma_cm_event_type type, int status, const uint8_t *m)
{
	struct rcm_event *e = rcm_event_post(id->chan, id, type, status);
	uint8_t t;

	if (e == NULL || m == NULL)
		return e;
	t = m[8];
	memcpy(e->pdata, m + 40, pdata_max[t]);
	e->ev.param.conn.private_data = pdata_max[t] > 0 ? e->pdata : NULL;
	e->ev.param.conn.private_data_len = pdata_max[t];
	if (t == RCM_REQ) {
		/* as the kernel's: the passive side's view, to hand back to rdma_accept() */
		e->ev.param.conn.responder_resources = m[12];
		e->ev.param.conn.initiator_depth = m[13];
	} else {
		e->ev.param.conn.initiator_depth = m[12];
		e->ev.param.conn.responder_resources = m[13];
	}
	e->ev.param.conn.retry_count = m[14];
	e->ev.param.conn.rnr_retry_count = m[15];
	e->ev.param.conn.flow_control = 1;
	e->ev.param.conn.qp_num = get32(m + 16);
	return e;
}

/* The connection ends (lock held): socket closed, nothing more expected. */
static void
close_conn(struct rcm_id *id)
{
	rcm_unwatch(id);
	id->state = RCM_CLOSED;
}

/*
 * A peer's REQ or REP names the QP ours will talk to: a QPN an RC QP can
 * reach (not IBA's 0 and 1, 24 bits), a 24-bit PSN, an MTU, and a GID that
 * is an IPv4 device address (::ffff:a.b.c.d, unicast, not loopback: the card
 * cannot reach 127/8). @return 0 or an IBA reject reason, logged.
 */
static int
check_peer(const uint8_t *m, const char *what)
{
	static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	uint32_t qpn = get32(m + 16), psn = get32(m + 20), ip = get32(m + 36);

	if (qpn < 2 || qpn > 0xffffff) {
		RCM_LOG(ERR, "%s names QP %u: no RC QP has that number\n", what, qpn);
		return RCM_REJ_NO_QP;
	}
	if (psn > 0xffffff) {
		RCM_LOG(ERR, "%s: PSN 0x%x is not 24 bits\n", what, psn);
		return RCM_REJ_NO_QP;
	}
	if (m[11] < IBV_MTU_256 || m[11] > IBV_MTU_4096) {
		RCM_LOG(ERR, "%s: path MTU %u is not IBA's 1..5\n", what, m[11]);
		return RCM_REJ_NO_QP;
	}
	if (memcmp(m + 24, v4, 12) != 0 || ip >> 24 == 0 || ip >> 24 == 127 || ip >> 28 == 0xe ||
	    ip == 0xffffffff) {
		RCM_LOG(ERR, "%s: GID is not a unicast IPv4 device address (::ffff:a.b.c.d)\n", what);
		return RCM_REJ_INVALID_GID;
	}
	return 0;
}

static void
take_peer(struct rcm_id *id, const uint8_t *m)
{
	id->peer_mtu = m[11];
	id->peer_init_depth = m[12];
	id->peer_resp_res = m[13];
	id->peer_retry = m[14];
	id->peer_rnr_retry = m[15];
	id->peer_qpn = get32(m + 16);
	id->peer_psn = get32(m + 20);
	memcpy(id->peer_gid.raw, m + 24, 16);
	memcpy(id->id.route.addr.addr.ibaddr.dgid.raw, m + 24, 16);
}

/* The connection failed in @p id's state (lock held): the event that says so, once. */
static void
fail(struct rcm_id *id, int status)
{
	switch (id->state) {
	case RCM_REQ_WAIT: /* never the application's: it goes without a word */
		rcm_id_retire(id);
		return;
	case RCM_CONNECTED:
		rcm_qp_err(id);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_DISCONNECTED, 0);
		rcm_count(RCM_C_DISCONNECTED);
		break;
	case RCM_CONNECTING:
	case RCM_REQ_SENT:
	case RCM_REP_RCVD:
	case RCM_REQ_RCVD:
	case RCM_REP_SENT:
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_CONNECT_ERROR, status);
		break;
	default:
		break;
	}
	close_conn(id);
}

/* A passive id for a connection that came to listener @p l (lock held). */
static void
take_conn(struct rcm_id *l)
{
	struct sockaddr_in peer;
	socklen_t plen = sizeof(peer);
	int fd = accept4(l->fd, (struct sockaddr *)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct rcm_id *id;
	int one = 1;

	if (fd < 0) {
		if (errno != EAGAIN && errno != EINTR)
			RCM_LOG(ERR, "accept on port %u: %s\n", ntohs(l->id.route.addr.src_sin.sin_port),
				strerror(errno));
		return;
	}
	id = calloc(1, sizeof(*id));
	if (id == NULL) {
		RCM_LOG(ERR, "no memory for a connection request: refused\n");
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	id->magic = RCM_MAGIC_ID;
	id->chan = l->chan;
	id->fd = fd;
	id->state = RCM_REQ_WAIT;
	id->listener = l;
	id->deadline = rcm_now_ms() + step_ms();
	id->id.verbs = l->id.verbs;
	id->id.channel = l->id.channel;
	id->id.context = l->id.context;
	id->id.ps = l->id.ps;
	id->id.port_num = 1;
	id->id.qp_type = IBV_QPT_RC;
	id->id.route.addr.src_sin = l->id.route.addr.src_sin;
	id->id.route.addr.addr.ibaddr = l->id.route.addr.addr.ibaddr;
	TAILQ_INSERT_TAIL(&l->chan->ids, id, next);
	if (rcm_watch(l->chan, id, EPOLLIN, true) != 0)
		rcm_id_retire(id);
}

static void
on_req(struct rcm_id *id, const uint8_t *m)
{
	struct rcm_event *e;
	int why = check_peer(m, "REQ");
	uint32_t ip;

	if (why != 0) {
		rcm_count(RCM_C_BAD_REQ);
		send_msg(id, RCM_REJ, (uint8_t)why, NULL, 0);
		rcm_count(RCM_C_REJ_SENT);
		rcm_id_retire(id);
		return;
	}
	if (id->listener == NULL || id->listener->state != RCM_LISTEN) {
		send_msg(id, RCM_REJ, RCM_REJ_INVALID_SERVICE_ID, NULL, 0);
		rcm_count(RCM_C_REJ_SENT);
		rcm_id_retire(id);
		return;
	}
	take_peer(id, m);
	/* the peer as rdma_cm names it: its device IP, the TCP connection's port */
	ip = get32(m + 36);
	id->id.route.addr.dst_sin.sin_family = AF_INET;
	id->id.route.addr.dst_sin.sin_addr.s_addr = htonl(ip);
	id->state = RCM_REQ_RCVD;
	id->deadline = 0;
	e = post_msg_event(id, RDMA_CM_EVENT_CONNECT_REQUEST, 0, m);
	if (e != NULL)
		e->ev.listen_id = &id->listener->id;
}

static void
on_rep(struct rcm_id *id, const uint8_t *m)
{
	int why = check_peer(m, "REP"), rc;

	if (why != 0) {
		rcm_count(RCM_C_BAD_REQ);
		send_msg(id, RCM_REJ, (uint8_t)why, NULL, 0);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_CONNECT_ERROR, -EPROTO);
		close_conn(id);
		return;
	}
	take_peer(id, m);
	id->deadline = 0;
	if (id->id.qp == NULL) { /* the application moves its QP, then rdma_establish() */
		id->state = RCM_REP_RCVD;
		post_msg_event(id, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, m);
		return;
	}
	rc = rcm_qp_rtr_rts(id);
	if (rc != 0 || send_msg(id, RCM_RTU, 0, NULL, 0) != 0) {
		send_msg(id, RCM_REJ, RCM_REJ_NO_QP, NULL, 0);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_CONNECT_ERROR, rc != 0 ? -rc : -ECONNRESET);
		close_conn(id);
		return;
	}
	id->state = RCM_CONNECTED;
	rcm_count(RCM_C_ESTABLISHED);
	post_msg_event(id, RDMA_CM_EVENT_ESTABLISHED, 0, m);
}

/* One whole message in @p id's state (lock held). */
static void
on_msg(struct rcm_id *id, const uint8_t *m)
{
	uint8_t type = m[8];
	struct rcm_event *e;

	if (memcmp(m, MAGIC, 8) != 0 || type == 0 || type > RCM_MSG_MAX || m[10] > pdata_max[type]) {
		rcm_count(RCM_C_GARBAGE);
		RCM_LOG(ERR, "a message that is not ORDK's rdma_cm exchange (%s): connection closed\n",
			memcmp(m, MAGIC, 8) != 0 ? "no magic" : "bad type or length");
		fail(id, -EPROTO);
		return;
	}
	switch (id->state * 16 + type) {
	case RCM_REQ_WAIT * 16 + RCM_REQ:
		on_req(id, m);
		return;
	case RCM_REQ_SENT * 16 + RCM_REP:
		on_rep(id, m);
		return;
	case RCM_REP_SENT * 16 + RCM_RTU:
		id->state = RCM_CONNECTED;
		id->deadline = 0;
		rcm_count(RCM_C_ESTABLISHED);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_ESTABLISHED, 0);
		return;
	case RCM_REQ_SENT * 16 + RCM_REJ:
	case RCM_REP_SENT * 16 + RCM_REJ:
	case RCM_REP_RCVD * 16 + RCM_REJ:
		rcm_count(RCM_C_REJ_RCVD);
		rcm_qp_err(id);
		e = post_msg_event(id, RDMA_CM_EVENT_REJECTED, m[9], m);
		if (e != NULL)
			e->ev.param.conn.qp_num = 0;
		close_conn(id);
		return;
	case RCM_CONNECTED * 16 + RCM_DREQ:
		fail(id, 0); /* DISCONNECTED, the QP to ERR */
		return;
	default:
		if (id->state == RCM_DISCONNECTING) /* the peer's own DREQ crossed ours */
			return;
		rcm_count(RCM_C_GARBAGE);
		RCM_LOG(ERR, "%s out of turn (connection state %d): connection closed\n", msg_name[type],
			id->state);
		fail(id, -EPROTO);
	}
}

static void
on_connected(struct rcm_id *id)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(id->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		err = errno;
	if (err == 0 && send_raw(id->fd, id->tx) != 0)
		err = ECONNRESET;
	if (err == ECONNREFUSED) { /* nobody listens: what IB says of a service ID without one */
		rcm_count(RCM_C_NO_LISTENER);
		RCM_LOG(INFO, "connect to %s:%u: nobody listens\n", inet_ntoa(id->tcp_dst.sin_addr),
			ntohs(id->tcp_dst.sin_port));
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_REJECTED, RCM_REJ_INVALID_SERVICE_ID);
		close_conn(id);
		return;
	}
	if (err != 0) {
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_UNREACHABLE, -err);
		close_conn(id);
		return;
	}
	id->state = RCM_REQ_SENT;
	rcm_watch(id->chan, id, EPOLLIN, false);
}

void
rcm_io(struct rcm_id *id, uint32_t events)
{
	if (id->state == RCM_LISTEN) {
		take_conn(id);
		return;
	}
	if (id->state == RCM_CONNECTING) {
		if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			on_connected(id);
		return;
	}
	/* whole messages while the connection lasts; the id may go in on_msg() */
	while (id->fd >= 0 && id->magic == RCM_MAGIC_ID) {
		ssize_t k = recv(id->fd, id->rx + id->rxlen, RCM_MSG_LEN - id->rxlen, 0);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return;
		if (k <= 0) {
			if (id->rxlen > 0) { /* part of a message, then the end */
				rcm_count(RCM_C_GARBAGE);
				RCM_LOG(ERR, "connection closed in the middle of a message (%u bytes)\n",
					id->rxlen);
			}
			if (id->state != RCM_DISCONNECTING && id->state != RCM_REQ_WAIT &&
			    id->state != RCM_CONNECTED)
				rcm_count(RCM_C_RESET);
			if (id->state == RCM_DISCONNECTING)
				close_conn(id);
			else
				fail(id, k < 0 ? -errno : -ECONNRESET);
			return;
		}
		id->rxlen += (uint32_t)k;
		if (id->rxlen == RCM_MSG_LEN) {
			id->rxlen = 0;
			on_msg(id, id->rx);
		}
	}
}

void
rcm_expire(struct rcm_chan *c, int64_t now)
{
	struct rcm_id *id, *t;

	for (id = TAILQ_FIRST(&c->ids); id != NULL; id = t) {
		t = TAILQ_NEXT(id, next);
		if (id->deadline == 0 || id->deadline > now)
			continue;
		id->deadline = 0;
		if (id->state == RCM_DISCONNECTING) {
			close_conn(id);
			continue;
		}
		rcm_count(RCM_C_TIMEOUT);
		RCM_LOG(INFO, "connection step timed out (state %d)\n", id->state);
		if (id->state == RCM_CONNECTING || id->state == RCM_REQ_SENT) {
			rcm_event_post(c, id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
			close_conn(id);
		} else {
			fail(id, -ETIMEDOUT);
		}
	}
}

/* ---- the application's calls ---- */

/* Lock @p cmid's channel; NULL (errno EINVAL) when it is no live id. */
static struct rcm_id *
lock_id(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = rcm_id_of(cmid);

	if (id == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&id->chan->lock);
	return id;
}

static int
unlock_err(struct rcm_id *id, int err)
{
	pthread_mutex_unlock(&id->chan->lock);
	errno = err;
	return -1;
}

int
rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **out, void *context,
	       enum rdma_port_space ps)
{
	struct rcm_chan *c;
	struct rcm_id *id;
	bool own = channel == NULL;

	if (out == NULL || (channel != NULL && rcm_chan_of(channel) == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB) {
		RCM_REFUSE("rdma_create_id", EOPNOTSUPP, "port spaces UDP and IPoIB: UD QPs");
		return -1;
	}
	if (own) { /* synchronous use: calls wait for their own events */
		channel = rdma_create_event_channel();
		if (channel == NULL)
			return -1;
	}
	c = rcm_chan_of(channel);
	id = calloc(1, sizeof(*id));
	if (id == NULL) {
		if (own)
			rdma_destroy_event_channel(channel);
		errno = ENOMEM;
		return -1;
	}
	id->magic = RCM_MAGIC_ID;
	id->chan = c;
	id->sync = own;
	id->own_chan = own;
	id->fd = -1;
	id->id.channel = channel;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = IBV_QPT_RC;
	pthread_mutex_lock(&c->lock);
	TAILQ_INSERT_TAIL(&c->ids, id, next);
	pthread_mutex_unlock(&c->lock);
	*out = &id->id;
	return 0;
}

int
rdma_destroy_id(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = lock_id(cmid), *o;
	struct rcm_chan *c;
	bool own;

	if (id == NULL)
		return -1;
	c = id->chan;
	own = id->own_chan;
	if (id->state == RCM_CONNECTED) /* the peer sees DISCONNECTED, as when the kernel tears down */
		send_msg(id, RCM_DREQ, 0, NULL, 0);
	/* connections to a listener that goes: unclaimed ones go too, the others forget it */
	TAILQ_FOREACH(o, &c->ids, next)
		if (o->listener == id)
			o->listener = NULL;
	rcm_id_retire(id);
	pthread_mutex_unlock(&c->lock);
	if (own)
		rdma_destroy_event_channel(&c->ch);
	return 0;
}

/* AF_INET, or AF_INET6 that is IPv4 (mapped or any) @return 0 or -1 (EAFNOSUPPORT) */
static int
to_sin(const struct sockaddr *a, struct sockaddr_in *out)
{
	memset(out, 0, sizeof(*out));
	out->sin_family = AF_INET;
	if (a == NULL)
		return 0;
	if (a->sa_family == AF_INET) {
		memcpy(out, a, sizeof(*out));
		return 0;
	}
	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;

		out->sin_port = a6->sin6_port;
		if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
			memcpy(&out->sin_addr, &a6->sin6_addr.s6_addr[12], 4);
			return 0;
		}
		if (IN6_IS_ADDR_UNSPECIFIED(&a6->sin6_addr))
			return 0;
	}
	RCM_LOG(ERR, "address family %d: ORDK's rdma_cm speaks IPv4 (RoCE v2 on IPv4)\n", a->sa_family);
	errno = EAFNOSUPPORT;
	return -1;
}

int
rdma_bind_addr(struct rdma_cm_id *cmid, struct sockaddr *addr)
{
	struct rcm_id *id = rcm_id_of(cmid);
	struct sockaddr_in sin, any;
	socklen_t len = sizeof(sin);
	int fd, one = 1, rc;

	if (id == NULL || addr == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (to_sin(addr, &sin) != 0)
		return -1;
	if (rcm_device() == NULL)
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	rc = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	/* the device's IP (or one ORDK_CM_PEERS serves) is not the host's: its port on every address */
	if (rc != 0 && errno == EADDRNOTAVAIL &&
	    (sin.sin_addr.s_addr == rcm_dev_ip() ||
	     rcm_peer_host(sin.sin_addr.s_addr) != sin.sin_addr.s_addr)) {
		any = sin;
		any.sin_addr.s_addr = htonl(INADDR_ANY);
		rc = bind(fd, (struct sockaddr *)&any, sizeof(any));
	}
	if (rc != 0) {
		int err = errno;

		RCM_LOG(INFO, "rdma_bind_addr %s:%u: %s\n", inet_ntoa(sin.sin_addr), ntohs(sin.sin_port),
			strerror(err));
		close(fd);
		errno = err;
		return -1;
	}
	getsockname(fd, (struct sockaddr *)&any, &len);
	pthread_mutex_lock(&id->chan->lock);
	if (id->state != RCM_IDLE) {
		close(fd);
		return unlock_err(id, EINVAL);
	}
	sin.sin_port = any.sin_port;
	id->fd = fd;
	id->state = RCM_BOUND;
	cmid->verbs = rcm_device();
	cmid->port_num = 1;
	cmid->route.addr.src_sin = sin;
	rcm_dev_gid(&cmid->route.addr.addr.ibaddr.sgid);
	cmid->route.addr.addr.ibaddr.pkey = htons(0xffff);
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rdma_listen(struct rdma_cm_id *cmid, int backlog)
{
	struct rcm_id *id = lock_id(cmid);

	if (id == NULL)
		return -1;
	if (id->state != RCM_BOUND)
		return unlock_err(id, EINVAL);
	if (listen(id->fd, backlog > 0 ? backlog : 128) != 0)
		return unlock_err(id, errno);
	if (rcm_watch(id->chan, id, EPOLLIN, true) != 0)
		return unlock_err(id, EIO);
	id->state = RCM_LISTEN;
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rdma_resolve_addr(struct rdma_cm_id *cmid, struct sockaddr *src_addr, struct sockaddr *dst_addr,
		  int timeout_ms)
{
	struct rcm_id *id = rcm_id_of(cmid);
	struct sockaddr_in src, dst;
	uint32_t dip;

	(void)timeout_ms; /* nothing is asked on the wire: resolved at once */
	if (id == NULL || dst_addr == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (to_sin(dst_addr, &dst) != 0 || to_sin(src_addr, &src) != 0)
		return -1;
	if (rcm_device() == NULL)
		return -1;
	pthread_mutex_lock(&id->chan->lock);
	if (id->state != RCM_IDLE && id->state != RCM_BOUND && id->state != RCM_ADDR_RESOLVED)
		return unlock_err(id, EINVAL);
	if (id->state == RCM_BOUND) { /* a bound active id: its socket was for a listen that never came */
		close(id->fd);
		id->fd = -1;
	}
	if (src.sin_addr.s_addr == htonl(INADDR_ANY))
		src.sin_addr.s_addr = rcm_dev_ip();
	dip = dst.sin_addr.s_addr;
	cmid->verbs = rcm_device();
	cmid->port_num = 1;
	cmid->route.addr.src_sin = src;
	cmid->route.addr.dst_sin = dst;
	rcm_dev_gid(&cmid->route.addr.addr.ibaddr.sgid);
	memset(&cmid->route.addr.addr.ibaddr.dgid, 0, sizeof(union ibv_gid));
	cmid->route.addr.addr.ibaddr.dgid.raw[10] = 0xff;
	cmid->route.addr.addr.ibaddr.dgid.raw[11] = 0xff;
	memcpy(&cmid->route.addr.addr.ibaddr.dgid.raw[12], &dip, 4);
	cmid->route.addr.addr.ibaddr.pkey = htons(0xffff);
	id->tcp_dst = dst;
	id->tcp_dst.sin_addr.s_addr = rcm_peer_host(dip);
	id->state = RCM_ADDR_RESOLVED;
	rcm_event_post(id->chan, id, RDMA_CM_EVENT_ADDR_RESOLVED, 0);
	pthread_mutex_unlock(&id->chan->lock);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ADDR_RESOLVED) : 0;
}

int
rdma_resolve_route(struct rdma_cm_id *cmid, int timeout_ms)
{
	struct rcm_id *id = lock_id(cmid);
	struct ibv_sa_path_rec *p;

	(void)timeout_ms; /* one hop, nothing to ask */
	if (id == NULL)
		return -1;
	if (id->state != RCM_ADDR_RESOLVED)
		return unlock_err(id, EINVAL);
	p = &id->path;
	memset(p, 0, sizeof(*p));
	p->sgid = cmid->route.addr.addr.ibaddr.sgid;
	p->dgid = cmid->route.addr.addr.ibaddr.dgid;
	p->pkey = htons(0xffff);
	p->hop_limit = 64;
	p->mtu = rcm_dev_mtu();
	p->numb_path = 1;
	cmid->route.path_rec = p;
	cmid->route.num_paths = 1;
	id->state = RCM_ROUTE_RESOLVED;
	rcm_event_post(id->chan, id, RDMA_CM_EVENT_ROUTE_RESOLVED, 0);
	pthread_mutex_unlock(&id->chan->lock);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ROUTE_RESOLVED) : 0;
}

static uint8_t
cap8(uint8_t v, uint8_t max)
{
	return v < max ? v : max;
}

int
rdma_connect(struct rdma_cm_id *cmid, struct rdma_conn_param *param)
{
	struct rcm_id *id = lock_id(cmid);
	struct rdma_conn_param none = { .retry_count = 7, .rnr_retry_count = 7 };
	int fd, one = 1, rc;

	if (id == NULL)
		return -1;
	if (param == NULL)
		param = &none;
	if (id->state != RCM_ROUTE_RESOLVED && id->state != RCM_ADDR_RESOLVED)
		return unlock_err(id, EINVAL);
	if (param->private_data_len > RCM_REQ_PDATA || (param->private_data_len && !param->private_data)) {
		RCM_LOG(ERR, "rdma_connect: %u bytes of private data (at most %u)\n",
			param->private_data_len, RCM_REQ_PDATA);
		return unlock_err(id, EINVAL);
	}
	id->qpn = cmid->qp != NULL ? cmid->qp->qp_num : param->qp_num;
	if (id->qpn == 0) {
		RCM_LOG(ERR, "rdma_connect: no QP (rdma_create_qp, or conn_param's qp_num)\n");
		return unlock_err(id, EINVAL);
	}
	id->init_depth = cap8(param->initiator_depth, rcm_dev_max_rd());
	id->resp_res = cap8(param->responder_resources, rcm_dev_max_rd());
	id->retry = cap8(param->retry_count, 7);
	id->rnr_retry = cap8(param->rnr_retry_count, 7);
	encode(id->tx, RCM_REQ, id, 0, param->private_data, param->private_data_len);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return unlock_err(id, errno);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	id->fd = fd;
	id->deadline = rcm_now_ms() + step_ms();
	rc = connect(fd, (struct sockaddr *)&id->tcp_dst, sizeof(id->tcp_dst));
	if (rc == 0 || errno == EINPROGRESS) {
		id->state = RCM_CONNECTING;
		rcm_watch(id->chan, id, EPOLLOUT | EPOLLIN, true);
	} else {
		int err = errno;

		/* what the connect says comes as an event, as the kernel's rdma_cm tells it */
		id->state = RCM_CONNECTING;
		if (err == ECONNREFUSED) {
			rcm_count(RCM_C_NO_LISTENER);
			rcm_event_post(id->chan, id, RDMA_CM_EVENT_REJECTED, RCM_REJ_INVALID_SERVICE_ID);
		} else {
			rcm_event_post(id->chan, id, RDMA_CM_EVENT_UNREACHABLE, -err);
		}
		close(fd);
		id->fd = -1;
		id->deadline = 0;
		id->state = RCM_CLOSED;
	}
	pthread_mutex_unlock(&id->chan->lock);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int
rdma_accept(struct rdma_cm_id *cmid, struct rdma_conn_param *param)
{
	struct rcm_id *id = lock_id(cmid);
	const void *pd = NULL;
	uint8_t plen = 0;
	int rc;

	if (id == NULL)
		return -1;
	if (id->state != RCM_REQ_RCVD)
		return unlock_err(id, EINVAL);
	/* as rdma-core: what the REQ allows, lowered by what the caller asks */
	id->resp_res = cap8(id->peer_init_depth, rcm_dev_max_rd());
	id->init_depth = cap8(id->peer_resp_res, rcm_dev_max_rd());
	id->retry = cap8(id->peer_retry, 7);
	id->rnr_retry = 7;
	id->qpn = cmid->qp != NULL ? cmid->qp->qp_num : 0;
	if (param != NULL) {
		if (param->private_data_len > RCM_REP_PDATA ||
		    (param->private_data_len && !param->private_data)) {
			RCM_LOG(ERR, "rdma_accept: %u bytes of private data (at most %u)\n",
				param->private_data_len, RCM_REP_PDATA);
			return unlock_err(id, EINVAL);
		}
		id->resp_res = cap8(id->resp_res, param->responder_resources);
		id->init_depth = cap8(id->init_depth, param->initiator_depth);
		id->rnr_retry = cap8(param->rnr_retry_count, 7);
		if (cmid->qp == NULL)
			id->qpn = param->qp_num;
		pd = param->private_data;
		plen = param->private_data_len;
	}
	if (id->qpn == 0) {
		RCM_LOG(ERR, "rdma_accept: no QP (rdma_create_qp, or conn_param's qp_num)\n");
		return unlock_err(id, EINVAL);
	}
	rc = rcm_qp_rtr_rts(id);
	if (rc != 0) {
		send_msg(id, RCM_REJ, RCM_REJ_NO_QP, NULL, 0);
		rcm_count(RCM_C_REJ_SENT);
		close_conn(id);
		return unlock_err(id, rc);
	}
	if (send_msg(id, RCM_REP, 0, pd, plen) != 0) {
		rcm_qp_err(id);
		close_conn(id);
		return unlock_err(id, ECONNRESET);
	}
	id->state = RCM_REP_SENT;
	id->deadline = rcm_now_ms() + step_ms();
	pthread_mutex_unlock(&id->chan->lock);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int
rdma_reject(struct rdma_cm_id *cmid, const void *private_data, uint8_t private_data_len)
{
	struct rcm_id *id = lock_id(cmid);

	if (id == NULL)
		return -1;
	if (id->state != RCM_REQ_RCVD)
		return unlock_err(id, EINVAL);
	if (private_data_len > RCM_REJ_PDATA || (private_data_len && private_data == NULL))
		return unlock_err(id, EINVAL);
	send_msg(id, RCM_REJ, RCM_REJ_CONSUMER_DEFINED, private_data, private_data_len);
	rcm_count(RCM_C_REJ_SENT);
	close_conn(id);
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rdma_establish(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = lock_id(cmid);

	if (id == NULL)
		return -1;
	if (id->state != RCM_REP_RCVD)
		return unlock_err(id, EINVAL);
	if (send_msg(id, RCM_RTU, 0, NULL, 0) != 0) {
		fail(id, -ECONNRESET);
		return unlock_err(id, ECONNRESET);
	}
	id->state = RCM_CONNECTED;
	rcm_count(RCM_C_ESTABLISHED);
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rdma_disconnect(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = lock_id(cmid);

	if (id == NULL)
		return -1;
	rcm_qp_err(id);
	switch (id->state) {
	case RCM_CONNECTED:
		send_msg(id, RCM_DREQ, 0, NULL, 0);
		/* the peer closes when it read the DREQ: our close would reset it first */
		shutdown(id->fd, SHUT_WR);
		id->state = RCM_DISCONNECTING;
		id->deadline = rcm_now_ms() + 2000;
		rcm_count(RCM_C_DISCONNECTED);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_DISCONNECTED, 0);
		break;
	case RCM_CONNECTING:
	case RCM_REQ_SENT:
	case RCM_REP_SENT:
	case RCM_REP_RCVD:
		close_conn(id); /* a handshake given up */
		break;
	case RCM_CLOSED:
	case RCM_DISCONNECTING:
		break;
	default:
		return unlock_err(id, EINVAL);
	}
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rdma_notify(struct rdma_cm_id *cmid, enum ibv_event_type event)
{
	(void)event; /* the RTU is ORDK's to send: nothing waits for the first completion */
	if (rcm_id_of(cmid) == NULL) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
rdma_set_option(struct rdma_cm_id *cmid, int level, int optname, void *optval, size_t optlen)
{
	(void)optval;
	(void)optlen;
	if (rcm_id_of(cmid) == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* TOS, REUSEADDR, AFONLY, ACK_TIMEOUT, IB path records: no meaning here, accepted */
	if ((level == RDMA_OPTION_ID && optname >= RDMA_OPTION_ID_TOS &&
	     optname <= RDMA_OPTION_ID_ACK_TIMEOUT) ||
	    (level == RDMA_OPTION_IB && optname == RDMA_OPTION_IB_PATH)) {
		RCM_LOG(DEBUG, "rdma_set_option(%d, %d): accepted, ignored\n", level, optname);
		return 0;
	}
	RCM_LOG(ERR, "rdma_set_option: level %d option %d unknown\n", level, optname);
	errno = ENOSYS;
	return -1;
}

__be16
rdma_get_src_port(struct rdma_cm_id *cmid)
{
	return rcm_id_of(cmid) != NULL ? cmid->route.addr.src_sin.sin_port : 0;
}

__be16
rdma_get_dst_port(struct rdma_cm_id *cmid)
{
	return rcm_id_of(cmid) != NULL ? cmid->route.addr.dst_sin.sin_port : 0;
}

/* ---- addresses ---- */

int
rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		 struct rdma_addrinfo **res)
{
	struct addrinfo h = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct rdma_addrinfo *r;
	bool passive = hints != NULL && (hints->ai_flags & RAI_PASSIVE);
	int rc;

	if (res == NULL || (node == NULL && service == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (hints != NULL && hints->ai_family != 0 && hints->ai_family != AF_INET &&
	    hints->ai_family != AF_INET6) {
		RCM_LOG(ERR, "rdma_getaddrinfo: family %d: ORDK's rdma_cm speaks IPv4\n", hints->ai_family);
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (passive)
		h.ai_flags |= AI_PASSIVE;
	if (hints != NULL && (hints->ai_flags & RAI_NUMERICHOST))
		h.ai_flags |= AI_NUMERICHOST;
	rc = getaddrinfo(node, service, &h, &ai);
	if (rc != 0) {
		errno = rc == EAI_SYSTEM ? errno : EADDRNOTAVAIL;
		return rc;
	}
	r = calloc(1, sizeof(*r) + 2 * sizeof(struct sockaddr_in));
	if (r == NULL) {
		freeaddrinfo(ai);
		errno = ENOMEM;
		return -1;
	}
	r->ai_flags = hints != NULL ? hints->ai_flags : 0;
	r->ai_family = AF_INET;
	r->ai_qp_type = hints != NULL && hints->ai_qp_type != 0 ? hints->ai_qp_type : IBV_QPT_RC;
	r->ai_port_space = hints != NULL && hints->ai_port_space != 0 ? hints->ai_port_space : RDMA_PS_TCP;
	if (passive) {
		r->ai_src_addr = (struct sockaddr *)(r + 1);
		r->ai_src_len = sizeof(struct sockaddr_in);
		memcpy(r->ai_src_addr, ai->ai_addr, sizeof(struct sockaddr_in));
	} else {
		r->ai_dst_addr = (struct sockaddr *)(r + 1);
		r->ai_dst_len = sizeof(struct sockaddr_in);
		memcpy(r->ai_dst_addr, ai->ai_addr, sizeof(struct sockaddr_in));
		if (hints != NULL && hints->ai_src_addr != NULL && hints->ai_src_addr->sa_family == AF_INET) {
			r->ai_src_addr = (struct sockaddr *)((struct sockaddr_in *)(r + 1) + 1);
			r->ai_src_len = sizeof(struct sockaddr_in);
			memcpy(r->ai_src_addr, hints->ai_src_addr, sizeof(struct sockaddr_in));
		}
	}
	freeaddrinfo(ai);
	*res = r;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res != NULL) {
		struct rdma_addrinfo *n = res->ai_next;

		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res);
		res = n;
	}
}
