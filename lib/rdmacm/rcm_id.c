/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_cm's ids and addresses: create and destroy, bind and listen (a TCP
 * socket on rdma_cm's port; a UDP one in the UDP port space, rcm_sidr.c),
 * resolving without ARP (at once, IPv4, the device IP's host from
 * ORDK_CM_PEERS), options, rdma_getaddrinfo.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rcm_internal.h"


/* Lock @p cmid's channel; NULL (errno EINVAL) when it is no live id. */
struct rcm_id *
rcm_lock_id(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = rcm_id_of(cmid);

	if (id == NULL) {
		errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&id->chan->lock);
	return id;
}

int
rcm_unlock_err(struct rcm_id *id, int err)
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
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB && ps != RDMA_PS_UDP) {
		RCM_REFUSE("rdma_create_id", EOPNOTSUPP, "port space IPoIB: IPoIB's multicast Q_Key");
		rcm_count(RCM_C_REFUSED_CALL);
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
	id->sidr_fd = -1;
	id->id.channel = channel;
	id->id.context = context;
	id->id.ps = ps;
	id->id.qp_type = ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC; /* as rdma-core's */
	pthread_mutex_lock(&c->lock);
	TAILQ_INSERT_TAIL(&c->ids, id, next);
	pthread_mutex_unlock(&c->lock);
	*out = &id->id;
	return 0;
}

struct rcm_id *
rcm_passive_id(struct rcm_id *l, enum ibv_qp_type qpt)
{
	struct rcm_id *id = calloc(1, sizeof(*id));

	if (id == NULL)
		return NULL;
	id->magic = RCM_MAGIC_ID;
	id->chan = l->chan;
	id->fd = -1;
	id->sidr_fd = -1;
	id->listener = l;
	id->id.verbs = l->id.verbs;
	id->id.channel = l->id.channel;
	id->id.context = l->id.context;
	id->id.ps = l->id.ps;
	id->id.port_num = 1;
	id->id.qp_type = qpt;
	id->id.route.addr.src_sin = l->id.route.addr.src_sin;
	id->id.route.addr.addr.ibaddr = l->id.route.addr.addr.ibaddr;
	TAILQ_INSERT_TAIL(&l->chan->ids, id, next);
	return id;
}

int
rdma_destroy_id(struct rdma_cm_id *cmid)
{
	struct rcm_id *id = rcm_lock_id(cmid), *o;
	struct rcm_chan *c;
	bool own;

	if (id == NULL)
		return -1;
	c = id->chan;
	own = id->own_chan;
	if (id->state == RCM_CONNECTED) /* the peer sees DISCONNECTED, as when the kernel tears down */
		rcm_send_msg(id, RCM_DREQ, 0, NULL, 0);
	/* connections to a listener that goes: unclaimed ones go too, the others forget it */
	TAILQ_FOREACH(o, &c->ids, next)
		if (o->listener == id)
			o->listener = NULL;
	rcm_sidr_forget(id);
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
	bool ud = rcm_is_ud(cmid);
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
	/* the UDP port space's port is a UDP port (SO_REUSEADDR there would let two ids share it) */
	fd = socket(AF_INET, (ud ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	if (!ud)
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
		return rcm_unlock_err(id, EINVAL);
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
	struct rcm_id *id = rcm_id_of(cmid);
	struct sockaddr_in any = { .sin_family = AF_INET };

	/* an id never bound listens on every address, a port chosen (the kernel binds it so) */
	if (id != NULL && id->state == RCM_IDLE && rdma_bind_addr(cmid, (struct sockaddr *)&any) != 0)
		return -1;
	id = rcm_lock_id(cmid);
	if (id == NULL)
		return -1;
	if (id->state != RCM_BOUND)
		return rcm_unlock_err(id, EINVAL);
	if (cmid->qp_type != IBV_QPT_UD && listen(id->fd, backlog > 0 ? backlog : 128) != 0)
		return rcm_unlock_err(id, errno);
	if (rcm_watch(id->chan, id, EPOLLIN, true) != 0)
		return rcm_unlock_err(id, EIO);
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
		return rcm_unlock_err(id, EINVAL);
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
	struct rcm_id *id = rcm_lock_id(cmid);
	struct ibv_sa_path_rec *p;

	(void)timeout_ms; /* one hop, nothing to ask */
	if (id == NULL)
		return -1;
	if (id->state != RCM_ADDR_RESOLVED)
		return rcm_unlock_err(id, EINVAL);
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

/* An address in an allocation of its own, as rdma-core's (rdma_freeaddrinfo frees it). */
static int
copy_addr(struct sockaddr **dst, socklen_t *dst_len, const struct sockaddr *src, socklen_t len)
{
	if (src == NULL || len < sizeof(sa_family_t) || len > sizeof(struct sockaddr_storage)) {
		RCM_LOG(ERR, "rdma_getaddrinfo: a hints address of %u bytes\n", (unsigned int)len);
		errno = EINVAL;
		return -1;
	}
	*dst = malloc(len);
	if (*dst == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(*dst, src, len);
	*dst_len = len;
	return 0;
}

/* @p node / @p service through the host's resolver (IPv4): the source address if passive, else the destination. */
static int
resolve_name(const char *node, const char *service, const struct rdma_addrinfo *hints,
	     struct rdma_addrinfo *r)
{
	struct addrinfo h = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	int rc;

	if (hints->ai_flags & RAI_PASSIVE)
		h.ai_flags |= AI_PASSIVE;
	if (hints->ai_flags & RAI_NUMERICHOST)
		h.ai_flags |= AI_NUMERICHOST;
	rc = getaddrinfo(node, service, &h, &ai);
	if (rc != 0) {
		errno = rc == EAI_SYSTEM ? errno : EADDRNOTAVAIL;
		return rc;
	}
	r->ai_family = AF_INET;
	if (hints->ai_flags & RAI_PASSIVE)
		rc = copy_addr(&r->ai_src_addr, &r->ai_src_len, ai->ai_addr, sizeof(struct sockaddr_in));
	else
		rc = copy_addr(&r->ai_dst_addr, &r->ai_dst_len, ai->ai_addr, sizeof(struct sockaddr_in));
	freeaddrinfo(ai);
	return rc;
}

/*
 * As rdma-core's: @p node and @p service resolved, or with neither the
 * hints' addresses (libfabric passes a peer's name as ai_dst_addr); a source
 * address in the hints is the result's unless the name gave one.
 */
int
rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		 struct rdma_addrinfo **res)
{
	static const struct rdma_addrinfo none;
	struct rdma_addrinfo *r;
	int rc = 0;

	if (res == NULL || (node == NULL && service == NULL && hints == NULL)) {
		errno = EINVAL;
		return -1;
	}
	if (hints == NULL)
		hints = &none;
	if (hints->ai_family != 0 && hints->ai_family != AF_INET && hints->ai_family != AF_INET6) {
		RCM_LOG(ERR, "rdma_getaddrinfo: family %d: ORDK's rdma_cm speaks IPv4\n", hints->ai_family);
		errno = EAFNOSUPPORT;
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		errno = ENOMEM;
		return -1;
	}
	r->ai_flags = hints->ai_flags;
	r->ai_family = hints->ai_family;
	r->ai_port_space = hints->ai_port_space != 0 ? hints->ai_port_space : RDMA_PS_TCP;
	r->ai_qp_type = hints->ai_qp_type != 0 ? hints->ai_qp_type
		: r->ai_port_space == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC;
	if (node != NULL || service != NULL)
		rc = resolve_name(node, service, hints, r);
	else if (hints->ai_dst_len > 0)
		rc = copy_addr(&r->ai_dst_addr, &r->ai_dst_len, hints->ai_dst_addr, hints->ai_dst_len);
	if (rc == 0 && r->ai_src_len == 0 && hints->ai_src_len > 0)
		rc = copy_addr(&r->ai_src_addr, &r->ai_src_len, hints->ai_src_addr, hints->ai_src_len);
	if (rc != 0) {
		int err = errno;

		rdma_freeaddrinfo(r);
		errno = err;
		return rc;
	}
	*res = r;
	return 0;
}

void
rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res != NULL) {
		struct rdma_addrinfo *n = res->ai_next;

		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res);
		res = n;
	}
}
