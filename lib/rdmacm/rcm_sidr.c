/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UD ids (RDMA_PS_UDP): IBA's SIDR exchange over UDP, ORDK to ORDK.
 *
 * rdma_cm's UDP port space is a UDP port. A listening UD id reads datagrams
 * on its socket. rdma_connect() sends a SIDR_REQ from a socket of its own
 * connected to the listener's port, again every SIDR_RESEND_MS until a
 * SIDR_REP names its request ID or ORDK_RDMACM_TIMEOUT_MS passes
 * (UNREACHABLE -ETIMEDOUT, as the kernel's SIDR_REQ_ERROR). A port nobody
 * has bound refuses it (ICMP): tried again every 5 ms for
 * ORDK_RDMACM_REFUSED_MS, then UNREACHABLE with IBA's SIDR status 1 (service
 * ID not supported), which the kernel's IB CM answers for a service nobody
 * listens on. The listener's side is CONNECT_REQUEST on a new id (param.ud:
 * the private data, 180 bytes as the kernel's); rdma_accept() answers the
 * QPN and the Q_Key (the id's QP's, RDMA_UDP_QKEY),
 * rdma_reject() status 2 (UNREACHABLE 2 on the active side). The active
 * side's ESTABLISHED carries param.ud: QPN, Q_Key, an address handle's
 * attributes for the passive side's GID (what the SIDR_REP names, not the
 * address the program resolved), 136 bytes of private data. Nothing is
 * connected: the QPs were in RTS from rdma_create_qp(), rdma_disconnect()
 * only moves the QP to ERR. A request sent again (its answer lost, or not
 * given yet) is answered with the same SIDR_REP, or waits for the first:
 * the requests listeners took are kept (by the listener's port, the sender,
 * the request ID) until their id goes, whatever channel it moved to
 * (rdma_get_request() moves each to a channel of its own).
 *
 * Messages: rcm_conn.c's 256 bytes, in one datagram:
 *   0 "ORDKRCM1"  8 type (6 SIDR_REQ, 7 SIDR_REP)  9 status  10 private data length
 *   12 request ID (be32)  16 QPN (be32)  20 Q_Key (be32)  24 GID (16)  40 private data
 * Anything else on a listener's port is dropped and counted (garbage); a
 * SIDR_REQ whose GID is no IPv4 unicast device address is answered status 2
 * (bad_req), a SIDR_REP naming no UD QP ends the request (bad_req).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rcm_internal.h"

#define SIDR_REQ 6
#define SIDR_REP 7
/* IBA's SIDR_REP statuses (the kernel's enum ib_cm_sidr_status) */
#define SIDR_OK		 0
#define SIDR_UNSUPPORTED 1 /* no service at that ID: nobody listens */
#define SIDR_REJECT	 2 /* rejected by the service provider */

#define SIDR_RESEND_MS	500 /* a request not answered is sent again */
#define SIDR_REFUSED_MS 5   /* ... and one refused, while its window lasts */
#define SIDR_RX_BATCH	64  /* datagrams taken per wake-up (epoll comes back for the rest) */

static _Atomic uint32_t next_request;

/*
 * A request a listener took, until its id goes. seen_lock is a leaf: taken
 * under a channel's lock (the listener's or the id's), it takes none.
 */
struct rcm_sidr_seen {
	TAILQ_ENTRY(rcm_sidr_seen) next;
	uint16_t port; /* the listener's (network order) */
	struct sockaddr_in peer;
	uint32_t req;
	bool answered;
	uint8_t rep[RCM_MSG_LEN]; /* the SIDR_REP, once answered */
};
static TAILQ_HEAD(, rcm_sidr_seen) seen_list = TAILQ_HEAD_INITIALIZER(seen_list);
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

bool
rcm_is_ud(struct rdma_cm_id *cmid)
{
	return rcm_id_of(cmid) != NULL && cmid->qp_type == IBV_QPT_UD;
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, 4);
}

static uint32_t
get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static void
encode(uint8_t *m, uint8_t type, uint8_t status, uint32_t req, uint32_t qpn, uint32_t qkey,
       const void *pdata, uint8_t plen)
{
	union ibv_gid gid;

	memset(m, 0, RCM_MSG_LEN);
	memcpy(m, RCM_MSG_MAGIC, 8);
	m[8] = type;
	m[9] = status;
	m[10] = plen;
	put_be32(m + 12, req);
	put_be32(m + 16, qpn);
	put_be32(m + 20, qkey);
	if (rcm_dev_gid(&gid) == 0)
		memcpy(m + 24, gid.raw, 16);
	if (plen > 0)
		memcpy(m + 40, pdata, plen);
}

/* A datagram of @p len bytes that is ORDK's @p type; anything else is counted and dropped. */
static bool
valid(const uint8_t *m, ssize_t len, uint8_t type, const char *where)
{
	uint8_t max = type == SIDR_REQ ? RCM_SIDR_REQ_PDATA : RCM_SIDR_REP_PDATA;

	if (len == RCM_MSG_LEN && memcmp(m, RCM_MSG_MAGIC, 8) == 0 && m[8] == type && m[10] <= max)
		return true;
	rcm_count(RCM_C_GARBAGE);
	RCM_LOG(ERR, "%s: a datagram of %zd bytes that is not ORDK's %s: dropped\n", where, len,
		type == SIDR_REQ ? "SIDR_REQ" : "SIDR_REP");
	return false;
}

static void
send_to(int fd, const uint8_t *m, const struct sockaddr_in *to)
{
	if (sendto(fd, m, RCM_MSG_LEN, MSG_NOSIGNAL, (const struct sockaddr *)to, sizeof(*to)) < 0)
		RCM_LOG(INFO, "SIDR_REP to %s:%u: %s (a repeated request gets it again)\n",
			inet_ntoa(to->sin_addr), ntohs(to->sin_port), strerror(errno));
}

/* ---- the passive side: a listener's datagrams ---- */

/*
 * A request seen before on @p l's port (the same sender, the same request
 * ID): true, and its answer in @p rep if it has one (*@p answered).
 */
static bool
known(struct rcm_id *l, const struct sockaddr_in *from, uint32_t req, uint8_t *rep, bool *answered)
{
	struct rcm_sidr_seen *s;

	pthread_mutex_lock(&seen_lock);
	TAILQ_FOREACH(s, &seen_list, next)
		if (s->port == l->id.route.addr.src_sin.sin_port && s->req == req &&
		    s->peer.sin_addr.s_addr == from->sin_addr.s_addr && s->peer.sin_port == from->sin_port)
			break;
	if (s != NULL && s->answered)
		memcpy(rep, s->rep, RCM_MSG_LEN);
	*answered = s != NULL && s->answered;
	pthread_mutex_unlock(&seen_lock);
	return s != NULL;
}

/* @p id takes the request it was made for: kept until it goes. */
static int
remember(struct rcm_id *l, struct rcm_id *id)
{
	struct rcm_sidr_seen *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return -ENOMEM;
	s->port = l->id.route.addr.src_sin.sin_port;
	s->peer = id->sidr_peer;
	s->req = id->sidr_id;
	pthread_mutex_lock(&seen_lock);
	TAILQ_INSERT_TAIL(&seen_list, s, next);
	pthread_mutex_unlock(&seen_lock);
	id->sidr_seen = s;
	return 0;
}

/* A request no id takes: a SIDR_REP with @p status alone. */
static void
refuse(struct rcm_id *l, const struct sockaddr_in *from, uint32_t req, uint8_t status)
{
	uint8_t m[RCM_MSG_LEN];

	rcm_count(RCM_C_REJ_SENT); /* first: the requester may look as soon as it is sent */
	encode(m, SIDR_REP, status, req, 0, 0, NULL, 0);
	send_to(l->fd, m, from);
}

static void
on_request(struct rcm_id *l, const uint8_t *m, const struct sockaddr_in *from)
{
	uint32_t req = get_be32(m + 12), ip = get_be32(m + 36);
	uint8_t rep[RCM_MSG_LEN];
	struct rcm_event *e;
	struct rcm_id *id;
	bool answered;

	if (known(l, from, req, rep, &answered)) { /* sent again: our answer was lost, or is not given yet */
		if (answered)
			send_to(l->fd, rep, from);
		return;
	}
	if (!rcm_gid_ok(m + 24)) {
		rcm_count(RCM_C_BAD_REQ);
		RCM_LOG(ERR, "SIDR_REQ: the GID is not a unicast IPv4 device address (::ffff:a.b.c.d): rejected\n");
		refuse(l, from, req, SIDR_REJECT);
		return;
	}
	id = rcm_passive_id(l, IBV_QPT_UD);
	if (id != NULL) {
		id->sidr_id = req;
		id->sidr_peer = *from;
	}
	if (id == NULL || remember(l, id) != 0 || (id->sidr_fd = dup(l->fd)) < 0) {
		RCM_LOG(ERR, "no memory or descriptor for a SIDR_REQ: rejected\n");
		if (id != NULL) {
			rcm_sidr_forget(id);
			rcm_id_retire(id);
		}
		refuse(l, from, req, SIDR_REJECT);
		return;
	}
	id->state = RCM_REQ_RCVD;
	memcpy(id->id.route.addr.addr.ibaddr.dgid.raw, m + 24, 16);
	id->id.route.addr.dst_sin.sin_family = AF_INET;
	id->id.route.addr.dst_sin.sin_addr.s_addr = htonl(ip);
	id->id.route.addr.dst_sin.sin_port = from->sin_port;
	e = rcm_event_post(l->chan, id, RDMA_CM_EVENT_CONNECT_REQUEST, 0);
	if (e == NULL)
		return;
	e->ev.listen_id = &l->id;
	memcpy(e->pdata, m + 40, RCM_SIDR_REQ_PDATA); /* IB's size, zero-padded, as the kernel's */
	e->ev.param.ud.private_data = e->pdata;
	e->ev.param.ud.private_data_len = RCM_SIDR_REQ_PDATA;
}

static void
listener_rx(struct rcm_id *l)
{
	uint8_t m[RCM_MSG_LEN];

	for (int i = 0; i < SIDR_RX_BATCH && l->fd >= 0; i++) {
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		ssize_t k = recvfrom(l->fd, m, sizeof(m), MSG_TRUNC, (struct sockaddr *)&from, &flen);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return; /* EAGAIN: all taken */
		if (flen != sizeof(from) || from.sin_family != AF_INET)
			continue;
		if (valid(m, k, SIDR_REQ, "UD listener"))
			on_request(l, m, &from);
	}
}

/* ---- the active side ---- */

static void
unreachable(struct rcm_id *id, int status, const uint8_t *m)
{
	struct rcm_event *e = rcm_event_post(id->chan, id, RDMA_CM_EVENT_UNREACHABLE, status);

	if (e != NULL && m != NULL) { /* a SIDR_REP's private data, as the kernel gives it */
		memcpy(e->pdata, m + 40, RCM_SIDR_REP_PDATA);
		e->ev.param.ud.private_data = e->pdata;
		e->ev.param.ud.private_data_len = RCM_SIDR_REP_PDATA;
	}
	rcm_close_conn(id);
}

/* The request was refused (nobody has the port): again in a moment while its window lasts. */
static void
refused(struct rcm_id *id)
{
	int64_t now = rcm_now_ms();

	if (now < id->refused_until) {
		rcm_count(RCM_C_REFUSED_RETRY);
		id->deadline = now + SIDR_REFUSED_MS;
		return;
	}
	rcm_count(RCM_C_NO_LISTENER);
	RCM_LOG(INFO, "SIDR_REQ to %s:%u: nobody listens\n", inet_ntoa(id->tcp_dst.sin_addr),
		ntohs(id->tcp_dst.sin_port));
	unreachable(id, SIDR_UNSUPPORTED, NULL);
}

/* (Again) the SIDR_REQ in id->tx; the next try is due in SIDR_RESEND_MS unless it was refused. */
static void
send_request(struct rcm_id *id)
{
	int64_t next = rcm_now_ms() + SIDR_RESEND_MS;

	id->deadline = 0;
	if (send(id->fd, id->tx, RCM_MSG_LEN, MSG_NOSIGNAL) < 0) {
		if (errno == ECONNREFUSED) { /* an earlier request's refusal, reported now */
			refused(id);
			return;
		}
		RCM_LOG(INFO, "SIDR_REQ: %s (sent again later)\n", strerror(errno));
	}
	id->deadline = next < id->sidr_until ? next : id->sidr_until;
}

static void
established(struct rcm_id *id, const uint8_t *m)
{
	uint32_t qpn = get_be32(m + 16), qkey = get_be32(m + 20);
	struct rcm_event *e;
	struct ibv_ah_attr *ah;

	if (qpn < 2 || qpn > 0xffffff || !rcm_gid_ok(m + 24)) {
		rcm_count(RCM_C_BAD_REQ);
		RCM_LOG(ERR, "SIDR_REP names QP %u and a GID no UD QP can reach: the request ends\n", qpn);
		unreachable(id, -EPROTO, NULL);
		return;
	}
	if (id->qkey != 0 && qkey != id->qkey) { /* the kernel's cma_set_qkey() refuses it so */
		rcm_count(RCM_C_BAD_REQ);
		RCM_LOG(ERR, "SIDR_REP: Q_Key 0x%x, this id's QP has 0x%x\n", qkey, id->qkey);
		rcm_event_post(id->chan, id, RDMA_CM_EVENT_ADDR_ERROR, -EINVAL);
		rcm_close_conn(id);
		return;
	}
	id->qkey = qkey;
	memcpy(id->id.route.addr.addr.ibaddr.dgid.raw, m + 24, 16);
	rcm_count(RCM_C_ESTABLISHED);
	e = rcm_event_post(id->chan, id, RDMA_CM_EVENT_ESTABLISHED, 0);
	rcm_close_conn(id);
	if (e == NULL)
		return;
	memcpy(e->pdata, m + 40, RCM_SIDR_REP_PDATA);
	e->ev.param.ud.private_data = e->pdata;
	e->ev.param.ud.private_data_len = RCM_SIDR_REP_PDATA;
	e->ev.param.ud.qp_num = qpn;
	e->ev.param.ud.qkey = qkey;
	ah = &e->ev.param.ud.ah_attr; /* RoCE v2: the GRH names the peer, as the kernel's path does */
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, m + 24, 16);
	ah->grh.sgid_index = 0;
	ah->grh.hop_limit = 64;
	ah->port_num = 1;
}

static void
active_rx(struct rcm_id *id)
{
	uint8_t m[RCM_MSG_LEN];

	for (int i = 0; i < SIDR_RX_BATCH && id->state == RCM_REQ_SENT; i++) {
		ssize_t k = recv(id->fd, m, sizeof(m), MSG_TRUNC); /* a longer datagram: its length */

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			if (errno == ECONNREFUSED)
				refused(id);
			return;
		}
		if (!valid(m, k, SIDR_REP, "UD connect"))
			continue;
		if (get_be32(m + 12) != id->sidr_id) /* the answer to an earlier request: not ours */
			continue;
		if (m[9] != SIDR_OK) {
			rcm_count(RCM_C_REJ_RCVD);
			RCM_LOG(INFO, "SIDR_REP: status %u (%s)\n", m[9],
				m[9] == SIDR_REJECT ? "rejected" : m[9] == SIDR_UNSUPPORTED ? "no such service" : "?");
			unreachable(id, m[9], m);
			return;
		}
		established(id, m);
	}
}

void
rcm_sidr_io(struct rcm_id *id)
{
	if (id->state == RCM_LISTEN)
		listener_rx(id);
	else if (id->state == RCM_REQ_SENT)
		active_rx(id);
}

void
rcm_sidr_expire(struct rcm_id *id, int64_t now)
{
	if (id->state != RCM_REQ_SENT)
		return;
	if (now >= id->sidr_until) {
		rcm_count(RCM_C_TIMEOUT);
		RCM_LOG(INFO, "SIDR_REQ to %s:%u: no answer\n", inet_ntoa(id->tcp_dst.sin_addr),
			ntohs(id->tcp_dst.sin_port));
		unreachable(id, -ETIMEDOUT, NULL);
		return;
	}
	send_request(id);
}

int
rcm_sidr_connect(struct rdma_cm_id *cmid, struct rdma_conn_param *param)
{
	struct rcm_id *id = rcm_lock_id(cmid);
	const void *pdata = param != NULL ? param->private_data : NULL;
	uint8_t plen = param != NULL ? param->private_data_len : 0;
	int64_t now = rcm_now_ms();
	int fd, err;

	if (id == NULL)
		return -1;
	if (id->state != RCM_ROUTE_RESOLVED && id->state != RCM_ADDR_RESOLVED)
		return rcm_unlock_err(id, EINVAL);
	if (plen > RCM_SIDR_REQ_PDATA || (plen > 0 && pdata == NULL)) {
		RCM_LOG(ERR, "rdma_connect: %u bytes of private data (a UD id's SIDR_REQ: at most %u)\n",
			plen, RCM_SIDR_REQ_PDATA);
		return rcm_unlock_err(id, EINVAL);
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&id->tcp_dst, sizeof(id->tcp_dst)) != 0) {
		err = errno;
		if (fd >= 0)
			close(fd);
		RCM_LOG(ERR, "rdma_connect: a UDP socket to %s:%u: %s\n", inet_ntoa(id->tcp_dst.sin_addr),
			ntohs(id->tcp_dst.sin_port), strerror(err));
		return rcm_unlock_err(id, err);
	}
	id->fd = fd;
	if (rcm_watch(id->chan, id, EPOLLIN, true) != 0) {
		rcm_unwatch(id);
		return rcm_unlock_err(id, EIO);
	}
	id->sidr_id = atomic_fetch_add(&next_request, 1) ^ (uint32_t)getpid() << 12;
	encode(id->tx, SIDR_REQ, 0, id->sidr_id, 0, 0, pdata, plen);
	id->state = RCM_REQ_SENT;
	id->refused_until = now + rcm_refused_ms();
	id->sidr_until = now + rcm_step_ms();
	send_request(id);
	pthread_mutex_unlock(&id->chan->lock);
	return id->sync ? rcm_sync_wait(id, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

/* The passive side's answer (lock held): sent from the listener's port, kept for a repeated request. */
static void
answer(struct rcm_id *id, uint8_t status, uint32_t qpn, const void *pdata, uint8_t plen)
{
	struct rcm_sidr_seen *s = id->sidr_seen;

	encode(id->tx, SIDR_REP, status, id->sidr_id, qpn, status == SIDR_OK ? id->qkey : 0, pdata, plen);
	send_to(id->sidr_fd, id->tx, &id->sidr_peer);
	close(id->sidr_fd);
	id->sidr_fd = -1;
	pthread_mutex_lock(&seen_lock);
	memcpy(s->rep, id->tx, RCM_MSG_LEN);
	s->answered = true;
	pthread_mutex_unlock(&seen_lock);
	rcm_close_conn(id);
}

/* A passive UD id waiting for its answer, and private data that fits a SIDR_REP (lock held). */
static bool
may_answer(struct rcm_id *id, const void *pdata, uint8_t plen, const char *call)
{
	if (id->state != RCM_REQ_RCVD || id->sidr_seen == NULL || id->sidr_fd < 0) {
		errno = EINVAL;
		return false;
	}
	if (plen > RCM_SIDR_REP_PDATA || (plen > 0 && pdata == NULL)) {
		RCM_LOG(ERR, "%s: %u bytes of private data (a SIDR_REP: at most %u)\n", call, plen,
			RCM_SIDR_REP_PDATA);
		errno = EINVAL;
		return false;
	}
	return true;
}

int
rcm_sidr_accept(struct rdma_cm_id *cmid, struct rdma_conn_param *param)
{
	struct rcm_id *id = rcm_lock_id(cmid);
	uint32_t qpn;

	if (id == NULL)
		return -1;
	if (!may_answer(id, param ? param->private_data : NULL, param ? param->private_data_len : 0,
			"rdma_accept"))
		return rcm_unlock_err(id, errno);
	qpn = cmid->qp != NULL ? cmid->qp->qp_num : param != NULL ? param->qp_num : 0;
	if (qpn < 2 || qpn > 0xffffff) {
		RCM_LOG(ERR, "rdma_accept: no UD QP (rdma_create_qp, or conn_param's qp_num: %u)\n", qpn);
		return rcm_unlock_err(id, EINVAL);
	}
	if (id->qkey == 0) /* librdmacm passes the kernel no Q_Key: the id's, or the UDP port space's */
		id->qkey = RDMA_UDP_QKEY;
	answer(id, SIDR_OK, qpn, param ? param->private_data : NULL, param ? param->private_data_len : 0);
	rcm_count(RCM_C_ESTABLISHED);
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

int
rcm_sidr_reject(struct rdma_cm_id *cmid, const void *pdata, uint8_t plen)
{
	struct rcm_id *id = rcm_lock_id(cmid);

	if (id == NULL)
		return -1;
	if (!may_answer(id, pdata, plen, "rdma_reject"))
		return rcm_unlock_err(id, errno);
	answer(id, SIDR_REJECT, 0, pdata, plen);
	rcm_count(RCM_C_REJ_SENT);
	pthread_mutex_unlock(&id->chan->lock);
	return 0;
}

void
rcm_sidr_forget(struct rcm_id *id)
{
	if (id->sidr_fd >= 0 && id->sidr_seen != NULL) { /* never answered: rejected, as the kernel's IB CM does */
		rcm_count(RCM_C_REJ_SENT);
		answer(id, SIDR_REJECT, 0, NULL, 0);
	}
	if (id->sidr_fd >= 0)
		close(id->sidr_fd);
	id->sidr_fd = -1;
	if (id->sidr_seen != NULL) {
		pthread_mutex_lock(&seen_lock);
		TAILQ_REMOVE(&seen_list, id->sidr_seen, next);
		pthread_mutex_unlock(&seen_lock);
		free(id->sidr_seen);
		id->sidr_seen = NULL;
	}
}
