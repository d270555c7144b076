/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP exchange of QP attributes. A record is 48 bytes, big-endian:
 * "ORDKCM01" (8), qpn, psn, ip, count (4 x u32), mac, addr (2 x u64),
 * rkey, len (2 x u32). The client sends count records (count in the first;
 * 0 means 1), the server answers with as many. Every wait is bounded.
 * Every record received, here or from memcached, is checked in cm_decode():
 * a peer's record is input like any other.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cm_internal.h"
#include "ordk_cm.h"
#include "ordk_devargs.h"

RTE_LOG_REGISTER(ordk_cm_logtype, ordk.cm, NOTICE);

#define CM_MAGIC "ORDKCM01"

int64_t
cm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
put(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t
get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

void
cm_encode(const struct ordk_cm_info *in, uint8_t *b, uint32_t count)
{
	memset(b, 0, CM_LEN);
	memcpy(b, CM_MAGIC, 8);
	put(b + 8, in->qpn, 4);
	put(b + 12, in->psn, 4);
	put(b + 16, in->ip, 4);
	put(b + 20, count, 4);
	put(b + 24, in->mac, 8);
	put(b + 32, in->addr, 8);
	put(b + 40, in->rkey, 4);
	put(b + 44, in->len, 4);
}

/*
 * The peer a record names becomes a QP's peer (ordk_cm_connect_qp): a QPN an
 * RC QP can reach, a 24-bit PSN, a unicast MAC and IPv4 the card can send to
 * (no loopback), a buffer that does not wrap. @return 0, or -EINVAL with the
 * field named in @p why.
 */
static int
peer_ok(const struct ordk_cm_info *r, char *why, size_t len)
{
	if (ordk_devargs_check_qpn("peer qpn", r->qpn, why, len) != 0 ||
	    ordk_devargs_check_range("peer psn", r->psn, 0, 0xFFFFFF, why, len) != 0 ||
	    ordk_devargs_check_mac("peer mac", r->mac, why, len) != 0 ||
	    ordk_devargs_check_ipv4("peer ip", r->ip, 0, why, len) != 0)
		return -EINVAL;
	if (r->addr + r->len < r->addr) {
		snprintf(why, len, "peer addr 0x%" PRIx64 ": with len %" PRIu32 " it wraps", r->addr,
			 r->len);
		return -EINVAL;
	}
	return 0;
}

int
cm_decode(const uint8_t *b, struct ordk_cm_info *out, const char *from, unsigned int i)
{
	char why[160];

	if (memcmp(b, CM_MAGIC, 8) != 0) {
		CM_LOG(ERR, "record %u from %s: not an ORDK record", i, from);
		return -EPROTO;
	}
	out->qpn = (uint32_t)get(b + 8, 4);
	out->psn = (uint32_t)get(b + 12, 4);
	out->ip = (uint32_t)get(b + 16, 4);
	out->mac = get(b + 24, 8);
	out->addr = get(b + 32, 8);
	out->rkey = (uint32_t)get(b + 40, 4);
	out->len = (uint32_t)get(b + 44, 4);
	if (peer_ok(out, why, sizeof(why)) != 0) {
		CM_LOG(ERR, "%s, in record %u from %s", why, i, from);
		return -EPROTO;
	}
	return 0;
}

static int
wait_fd(int fd, short ev, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int64_t left = deadline - cm_now_ms();
	int rc;

	if (left <= 0)
		return -ETIMEDOUT;
	rc = poll(&p, 1, (int)left);
	if (rc < 0)
		return -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

static int
io_all(int fd, uint8_t *b, size_t n, bool wr, int64_t deadline)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k;
		int rc = wait_fd(fd, wr ? POLLOUT : POLLIN, deadline);

		if (rc != 0)
			return rc;
		k = wr ? send(fd, b + done, n - done, MSG_NOSIGNAL) : recv(fd, b + done, n - done, 0);
		if (k == 0)
			return -ECONNRESET;
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		done += (size_t)k;
	}
	return 0;
}

/* Send @p n records (the count rides in the first). */
static int
send_infos(int fd, const struct ordk_cm_info *info, unsigned int n, int64_t deadline)
{
	uint8_t b[CM_LEN];
	int rc = 0;

	for (unsigned int i = 0; i < n && rc == 0; i++) {
		cm_encode(&info[i], b, i == 0 ? n : 0);
		rc = io_all(fd, b, CM_LEN, true, deadline);
	}
	return rc;
}

/* "tcp peer 10.0.0.2:40000" of @p fd, for the log. */
static const char *
peer_name(int fd, char *out, size_t len)
{
	struct sockaddr_storage a = { .ss_family = AF_UNSPEC };
	socklen_t alen = sizeof(a);
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (getpeername(fd, (struct sockaddr *)&a, &alen) != 0)
		a.ss_family = AF_UNSPEC;
	if (a.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)&a;

		/* the listener takes IPv4 too: an IPv4 client as 10.0.0.2, not ::ffff:10.0.0.2 */
		if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
			inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], ip, sizeof(ip));
		else
			inet_ntop(AF_INET6, &a6->sin6_addr, ip, sizeof(ip));
		port = ntohs(a6->sin6_port);
	} else if (a.ss_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)&a;

		inet_ntop(AF_INET, &a4->sin_addr, ip, sizeof(ip));
		port = ntohs(a4->sin_port);
	}
	snprintf(out, len, "tcp peer %s:%u", ip, port);
	return out;
}

/* Receive records: as many as the first says (at most @p max). */
static int
recv_infos(int fd, struct ordk_cm_info *info, unsigned int max, unsigned int *n,
	   int64_t deadline)
{
	uint8_t b[CM_LEN];
	char from[INET6_ADDRSTRLEN + 24];
	uint32_t count;
	int rc = io_all(fd, b, CM_LEN, false, deadline);

	if (rc != 0)
		return rc;
	peer_name(fd, from, sizeof(from));
	rc = cm_decode(b, &info[0], from, 0); /* a stranger first: its 'count' means nothing */
	if (rc != 0)
		return rc;
	count = (uint32_t)get(b + 20, 4);
	if (count == 0)
		count = 1;
	if (count > max)
		return -E2BIG;
	for (uint32_t i = 1; i < count && rc == 0; i++) {
		rc = io_all(fd, b, CM_LEN, false, deadline);
		if (rc == 0)
			rc = cm_decode(b, &info[i], from, i);
	}
	*n = count;
	return rc;
}

static int
listen_on(uint16_t port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(port),
				  .sin6_addr = IN6ADDR_ANY_INIT };
	int one = 1, zero = 0, ls, rc;

	ls = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0)
		return -errno;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(ls, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)); /* IPv4 too */
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(ls, 8) != 0) {
		rc = -errno;
		close(ls);
		return rc;
	}
	return ls;
}

static int
server(uint16_t port, const struct ordk_cm_info *local, struct ordk_cm_info *remote,
       int64_t deadline)
{
	unsigned int n;
	int ls = listen_on(port), fd, rc;

	if (ls < 0)
		return ls;
	rc = wait_fd(ls, POLLIN, deadline);
	fd = rc == 0 ? accept(ls, NULL, NULL) : -1;
	if (rc == 0 && fd < 0)
		rc = -errno;
	close(ls);
	if (rc != 0)
		return rc;
	rc = recv_infos(fd, remote, 1, &n, deadline);
	if (rc == 0)
		rc = send_infos(fd, local, 1, deadline);
	close(fd);
	return rc;
}

/*
 * One connect that cannot outlive @p deadline: non-blocking, then a poll for
 * the handshake (a host that drops SYNs would block connect() ~2 minutes).
 * @return a connected socket or a negative errno (-ETIMEDOUT: no answer).
 */
static int
connect_by(const struct addrinfo *ai, int64_t deadline)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), err = 0, rc;
	socklen_t len = sizeof(err);

	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	rc = errno == EINPROGRESS ? wait_fd(fd, POLLOUT, deadline) : -errno;
	if (rc == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
		rc = -errno;
	else if (rc == 0 && err != 0)
		rc = -err;
	if (rc != 0) {
		close(fd);
		return rc;
	}
	return fd;
}

static int
client(const char *host, uint16_t port, const struct ordk_cm_info *local,
       struct ordk_cm_info *remote, unsigned int n, int64_t deadline)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
	char svc[8];
	int rc = -ETIMEDOUT;

	snprintf(svc, sizeof(svc), "%u", port);
	if (getaddrinfo(host, svc, &hints, &res) != 0 || res == NULL)
		return -EHOSTUNREACH;
	/* the server may not listen yet: retry a refusal until the deadline */
	while (cm_now_ms() < deadline) {
		int fd = connect_by(res, deadline), one = 1;
		unsigned int got = 0;
		int64_t left;

		if (fd >= 0) {
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			rc = send_infos(fd, local, n, deadline);
			if (rc == 0)
				rc = recv_infos(fd, remote, n, &got, deadline);
			if (rc == 0 && got != n)
				rc = -EPROTO;
			close(fd);
			break;
		}
		rc = fd;
		if (rc != -ECONNREFUSED && rc != -EINTR)
			break;
		left = deadline - cm_now_ms();
		if (left > 0)
			usleep((useconds_t)(left < 20 ? left : 20) * 1000);
	}
	freeaddrinfo(res);
	return rc == -ECONNREFUSED && cm_now_ms() >= deadline ? -ETIMEDOUT : rc;
}

int
ordk_cm_exchange(const char *host, uint16_t port, const struct ordk_cm_info *local,
		 struct ordk_cm_info *remote, int timeout_ms)
{
	int64_t deadline = cm_now_ms() + (timeout_ms > 0 ? timeout_ms : 10000);

	if (local == NULL || remote == NULL)
		return -EINVAL;
	return host == NULL ? server(port, local, remote, deadline)
			    : client(host, port, local, remote, 1, deadline);
}

static int64_t
deadline_of(int timeout_ms)
{
	return cm_now_ms() + (timeout_ms > 0 ? timeout_ms : 10000);
}

int
ordk_cm_listen(uint16_t port)
{
	return listen_on(port);
}

int
ordk_cm_accept(int lfd, struct ordk_cm_info *remote, unsigned int max, unsigned int *n,
	       int timeout_ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	int fd, rc;

	if (lfd < 0 || remote == NULL || n == NULL || max == 0)
		return -EINVAL;
	rc = poll(&p, 1, timeout_ms > 0 ? timeout_ms : 0);
	if (rc < 0)
		return -errno;
	if (rc == 0)
		return -EAGAIN;
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* a client that connected sends at once: a short bound */
	rc = recv_infos(fd, remote, max, n, deadline_of(2000));
	if (rc != 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int
ordk_cm_reply(int fd, const struct ordk_cm_info *local, unsigned int n)
{
	int rc;

	if (fd < 0 || local == NULL || n == 0)
		return -EINVAL;
	rc = send_infos(fd, local, n, deadline_of(2000));
	close(fd);
	return rc;
}

int
ordk_cm_connect(const char *host, uint16_t port, const struct ordk_cm_info *local,
		struct ordk_cm_info *remote, unsigned int n, int timeout_ms)
{
	if (host == NULL || local == NULL || remote == NULL || n == 0)
		return -EINVAL;
	return client(host, port, local, remote, n, deadline_of(timeout_ms));
}

int
ordk_cm_connect_qp(struct ordk_qp *qp, const struct ordk_cm_info *local,
		   const struct ordk_cm_info *remote, enum ordk_mtu mtu, unsigned int access)
{
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = access };
	int rc;

	rc = ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS);
	if (rc != 0)
		return rc;
	a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTR, .path_mtu = mtu,
				   .dest_qp_num = remote->qpn, .rq_psn = remote->psn,
				   .dest_ip = remote->ip, .dest_mac = remote->mac,
				   .max_dest_rd_atomic = 16, .min_rnr_timer = 12 };
	rc = ordk_qp_modify(qp, &a,
			    ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU | ORDK_QP_DEST_QPN |
				    ORDK_QP_RQ_PSN | ORDK_QP_MAX_DEST_RD_ATOMIC |
				    ORDK_QP_MIN_RNR_TIMER);
	if (rc != 0)
		return rc;
	a = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS, .sq_psn = local->psn, .timeout = 14,
				   .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 16 };
	return ordk_qp_modify(qp, &a,
			      ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
				      ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
				      ORDK_QP_MAX_QP_RD_ATOMIC);
}
