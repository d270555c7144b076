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

#define MAGIC RCM_MSG_MAGIC

static const uint8_t pdata_max[RCM_MSG_MAX + 1] = {
	[RCM_REQ] = RCM_REQ_PDATA, [RCM_REP] = RCM_REP_PDATA, [RCM_RTU] = 0,
	[RCM_REJ] = RCM_REJ_PDATA, [RCM_DREQ] = RCM_DREQ_PDATA,
};
static const char *const msg_name[RCM_MSG_MAX + 1] = {
	[0] = "?", [RCM_REQ] = "REQ", [RCM_REP] = "REP", [RCM_RTU] = "RTU",
	[RCM_REJ] = "REJ", [RCM_DREQ] = "DREQ",
};

/* How long a handshake step may take (ORDK_RDMACM_TIMEOUT_MS, default 20 s). */
int64_t
rcm_step_ms(void)
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

int
rcm_send_msg(struct rcm_id *id, enum rcm_msg_type type, uint8_t reason, const void *pdata, uint8_t plen)
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
void
rcm_close_conn(struct rcm_id *id)
{
	rcm_unwatch(id);
	id->reconnect = false;
	id->deadline = 0;
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
	uint32_t qpn = get32(m + 16), psn = get32(m + 20);

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
	if (!rcm_gid_ok(m + 24)) {
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
	rcm_close_conn(id);
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
	id = rcm_passive_id(l, IBV_QPT_RC);
	if (id == NULL) {
		RCM_LOG(ERR, "no memory for a connection request: refused\n");
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	id->fd = fd;
	id->state = RCM_REQ_WAIT;
	id->deadline = rcm_now_ms() + rcm_step_ms();
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
		rcm_send_msg(id, RCM_REJ, (uint8_t)why, NULL, 0);
		rcm_count(RCM_C_REJ_SENT);
		rcm_id_retire(id);
		return;
	}
	if (id->listener == NULL || id->listener->state != RCM_LISTEN) {
		rcm_send_msg(id, RCM_REJ, RCM_REJ_INVALID_SERVICE_ID, NULL, 0);
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
		rcm_send_msg(id, RCM_REJ, (uint8_t)why, NULL, 0);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_CONNECT_ERROR, -EPROTO);
		rcm_close_conn(id);
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
	if (rc != 0 || rcm_send_msg(id, RCM_RTU, 0, NULL, 0) != 0) {
		rcm_send_msg(id, RCM_REJ, RCM_REJ_NO_QP, NULL, 0);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_CONNECT_ERROR, rc != 0 ? -rc : -ECONNRESET);
		rcm_close_conn(id);
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
		rcm_close_conn(id);
		return;
	case RCM_CONNECTED * 16 + RCM_DREQ:
		/*
		 * DISCONNECTED, the QP left as it is until the program's own
		 * rdma_disconnect(), as the kernel's rdma_cm: a SEND of ours whose
		 * ACK is on its way still completes, not flushed.
		 */
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_DISCONNECTED, 0);
		rcm_count(RCM_C_DISCONNECTED);
		rcm_close_conn(id);
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
	if (err == ECONNREFUSED) {
		if (!rcm_refused_again(id))
			rcm_no_listener(id);
		return;
	}
	if (err != 0) {
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_UNREACHABLE, -err);
		rcm_close_conn(id);
		return;
	}
	id->state = RCM_REQ_SENT;
	rcm_watch(id->chan, id, EPOLLIN, false);
}

void
rcm_io(struct rcm_id *id, uint32_t events)
{
	if (id->id.qp_type == IBV_QPT_UD) { /* SIDR, over UDP */
		rcm_sidr_io(id);
		return;
	}
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
				rcm_close_conn(id);
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
		if (id->id.qp_type == IBV_QPT_UD) { /* SIDR: the request again, or given up */
			rcm_sidr_expire(id, now);
			continue;
		}
		if (id->reconnect) { /* a refused connect's next try */
			id->reconnect = false;
			rcm_tcp_connect(id);
			continue;
		}
		if (id->state == RCM_DISCONNECTING) {
			rcm_close_conn(id);
			continue;
		}
		rcm_count(RCM_C_TIMEOUT);
		RCM_LOG(INFO, "connection step timed out (state %d)\n", id->state);
		if (id->state == RCM_CONNECTING || id->state == RCM_REQ_SENT) {
			rcm_event_post(c, id, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT);
			rcm_close_conn(id);
		} else {
			fail(id, -ETIMEDOUT);
		}
	}
}

/* ---- the application's calls that run the exchange ---- */

static uint8_t
cap8(uint8_t v, uint8_t max)
{
	return v < max ? v : max;
}

int
rdma_connect(struct rdma_cm_id *cmid, struct rdma_conn_param *param)
{
	struct rdma_conn_param none = { .retry_count = 7, .rnr_retry_count = 7 };
	struct rcm_id *id;

	if (rcm_is_ud(cmid)) /* SIDR (rcm_sidr.c) */
		return rcm_sidr_connect(cmid, param);
	id = rcm_lock_id(cmid);
	if (id == NULL)
		return -1;
	if (param == NULL)
		param = &none;
	if (id->state != RCM_ROUTE_RESOLVED && id->state != RCM_ADDR_RESOLVED)
		return rcm_unlock_err(id, EINVAL);
	if (param->private_data_len > RCM_REQ_PDATA || (param->private_data_len && !param->private_data)) {
		RCM_LOG(ERR, "rdma_connect: %u bytes of private data (at most %u)\n",
			param->private_data_len, RCM_REQ_PDATA);
		return rcm_unlock_err(id, EINVAL);
	}
	id->qpn = cmid->qp != NULL ? cmid->qp->qp_num : param->qp_num;
	if (id->qpn == 0) {
		RCM_LOG(ERR, "rdma_connect: no QP (rdma_create_qp, or conn_param's qp_num)\n");
		return rcm_unlock_err(id, EINVAL);
	}
	id->init_depth = cap8(param->initiator_depth, rcm_dev_max_rd());
	id->resp_res = cap8(param->responder_resources, rcm_dev_max_rd());
	id->retry = cap8(param->retry_count, 7);
	id->rnr_retry = cap8(param->rnr_retry_count, 7);
	encode(id->tx, RCM_REQ, id, 0, param->private_data, param->private_data_len);
	rcm_connect_first(id);
	pthread_mutex_unlock(&id->chan->lock);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int
rdma_accept(struct rdma_cm_id *cmid, struct rdma_conn_param *param)
{
	const void *pd = NULL;
	uint8_t plen = 0;
	struct rcm_id *id;
	int rc;

	if (rcm_is_ud(cmid))
		return rcm_sidr_accept(cmid, param);
	id = rcm_lock_id(cmid);
	if (id == NULL)
		return -1;
	if (id->state != RCM_REQ_RCVD)
		return rcm_unlock_err(id, EINVAL);
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
			return rcm_unlock_err(id, EINVAL);
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
		return rcm_unlock_err(id, EINVAL);
	}
	rc = rcm_qp_rtr_rts(id);
	if (rc != 0) {
		rcm_send_msg(id, RCM_REJ, RCM_REJ_NO_QP, NULL, 0);
		rcm_count(RCM_C_REJ_SENT);
		rcm_close_conn(id);
		return rcm_unlock_err(id, rc);
	}
	if (rcm_send_msg(id, RCM_REP, 0, pd, plen) != 0) {
		rcm_qp_err(id);
		rcm_close_conn(id);
		return rcm_unlock_err(id, ECONNRESET);
	}
	id->state = RCM_REP_SENT;
	id->deadline = rcm_now_ms() + rcm_step_ms();
	pthread_mutex_unlock(&id->chan->lock);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int
rdma_reject(struct rdma_cm_id *cmid, const void *private_data, uint8_t private_data_len)
{
	struct rcm_id *id;

	if (rcm_is_ud(cmid))
		return rcm_sidr_reject(cmid, private_data, private_data_len);
	id = rcm_lock_id(cmid);
	if (id == NULL)
		return -1;
	if (id->state != RCM_REQ_RCVD)
		return rcm_unlock_err(id, EINVAL);
	if (private_data_len > RCM_REJ_PDATA || (private_data_len && private_data == NULL))
		return rcm_unlock_err(id, EINVAL);
	rcm_send_msg(id, RCM_REJ, RCM_REJ_CONSUMER_DEFINED, private_data, private_data_len);
	rcm_count(RCM_C_REJ_SENT);
	rcm_close_conn(id);
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rdma_establish(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = rcm_lock_id(cmid);

	if (id == NULL)
		return -1;
	if (id->state != RCM_REP_RCVD)
		return rcm_unlock_err(id, EINVAL);
	if (rcm_send_msg(id, RCM_RTU, 0, NULL, 0) != 0) {
		fail(id, -ECONNRESET);
		return rcm_unlock_err(id, ECONNRESET);
	}
	id->state = RCM_CONNECTED;
	rcm_count(RCM_C_ESTABLISHED);
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rdma_disconnect(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = rcm_lock_id(cmid);

	if (id == NULL)
		return -1;
	rcm_qp_err(id);
	switch (id->state) {
	case RCM_CONNECTED:
		rcm_send_msg(id, RCM_DREQ, 0, NULL, 0);
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
		rcm_close_conn(id); /* a handshake given up */
		break;
	case RCM_CLOSED:
	case RCM_DISCONNECTING:
		break;
	default:
		return rcm_unlock_err(id, EINVAL);
	}
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}
