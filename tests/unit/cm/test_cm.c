/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/cm: several QPs' records in one connection, a server that only looks,
 * bad peers, and records that name a peer no QP can have (either direction).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log_capture.h"
#include "ordk_cm.h"

static uint16_t
a_port(void)
{
	return (uint16_t)(30000 + getpid() % 20000);
}

static struct ordk_cm_info
rec(uint32_t i)
{
	return (struct ordk_cm_info){ .qpn = 0x100 + i, .psn = i, .ip = 0x0A000001,
				      .mac = 0x020000000001ull, .addr = 0x7f0000001000ull + i,
				      .rkey = 0x4400 + i, .len = 4096 * (i + 1) };
}

struct cli {
	uint16_t port;
	unsigned int n;
	struct ordk_cm_info got[8];
	int rc;
	bool single;
};

static void *
client(void *arg)
{
	struct cli *c = arg;
	struct ordk_cm_info mine[8];

	for (unsigned int i = 0; i < c->n; i++)
		mine[i] = rec(i);
	c->rc = c->single ? ordk_cm_exchange("127.0.0.1", c->port, &mine[0], &c->got[0], 5000)
			  : ordk_cm_connect("127.0.0.1", c->port, mine, c->got, c->n, 5000);
	return NULL;
}

Test(cm, three_qps_in_one_connection)
{
	struct cli c = { .port = a_port(), .n = 3 };
	struct ordk_cm_info in[8], out[3];
	unsigned int n = 0;
	pthread_t t;
	int lfd = ordk_cm_listen(c.port), fd;

	cr_assert_geq(lfd, 0);
	cr_expect_eq(ordk_cm_accept(lfd, in, 8, &n, 0), -EAGAIN, "nobody came yet");
	pthread_create(&t, NULL, client, &c);
	fd = ordk_cm_accept(lfd, in, 8, &n, 5000);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_assert_eq(n, 3);
	for (unsigned int i = 0; i < 3; i++) {
		cr_expect_eq(in[i].qpn, 0x100 + i);
		cr_expect_eq(in[i].addr, 0x7f0000001000ull + i);
		cr_expect_eq(in[i].len, 4096 * (i + 1));
		out[i] = rec(10 + i);
	}
	cr_assert_eq(ordk_cm_reply(fd, out, 3), 0);
	pthread_join(t, NULL);
	cr_assert_eq(c.rc, 0, "%s", strerror(-c.rc));
	for (unsigned int i = 0; i < 3; i++) {
		cr_expect_eq(c.got[i].qpn, 0x10a + i);
		cr_expect_eq(c.got[i].rkey, 0x440a + i);
	}
	close(lfd);
}

Test(cm, the_one_qp_exchange_meets_the_server_side)
{
	struct cli c = { .port = (uint16_t)(a_port() + 1), .n = 1, .single = true };
	struct ordk_cm_info in[2], out = rec(7);
	unsigned int n = 0;
	pthread_t t;
	int lfd = ordk_cm_listen(c.port), fd;

	cr_assert_geq(lfd, 0);
	pthread_create(&t, NULL, client, &c);
	fd = ordk_cm_accept(lfd, in, 2, &n, 5000);
	cr_assert_geq(fd, 0);
	cr_expect_eq(n, 1);
	cr_assert_eq(ordk_cm_reply(fd, &out, 1), 0);
	pthread_join(t, NULL);
	cr_assert_eq(c.rc, 0);
	cr_expect_eq(c.got[0].qpn, 0x107);
	close(lfd);
}

Test(cm, too_many_records_and_strangers_are_refused)
{
	struct cli c = { .port = (uint16_t)(a_port() + 2), .n = 5 };
	struct ordk_cm_info in[8];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	unsigned int n = 0;
	pthread_t t;
	int lfd = ordk_cm_listen(c.port), s;
	char junk[48];

	cr_assert_geq(lfd, 0);
	pthread_create(&t, NULL, client, &c);
	cr_expect_eq(ordk_cm_accept(lfd, in, 4, &n, 5000), -E2BIG);
	pthread_join(t, NULL);
	cr_expect_neq(c.rc, 0, "the client sees the connection go");

	/* not ORDK: 48 bytes of something else */
	sa.sin_port = htons(c.port);
	s = socket(AF_INET, SOCK_STREAM, 0);
	cr_assert_eq(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
	memset(junk, 'x', sizeof(junk));
	cr_assert_eq(write(s, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	cr_expect_eq(ordk_cm_accept(lfd, in, 8, &n, 5000), -EPROTO);
	close(s);
	cr_expect_eq(ordk_cm_accept(-1, in, 8, &n, 0), -EINVAL);
	cr_expect_eq(ordk_cm_connect("127.0.0.1", c.port, in, in, 0, 100), -EINVAL);
	close(lfd);
	cr_expect_eq(ordk_cm_connect("127.0.0.1", c.port, in, in, 1, 200), -ETIMEDOUT,
		     "nobody listens");
}

static int64_t
ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * A host that never answers: a listener on 127.0.0.1 whose accept queue is
 * full drops every further SYN (Linux), as an unreachable host does. A
 * blocking connect() would wait out the SYN retries (~2 minutes); the
 * caller's timeout must bound it.
 */
Test(cm, a_host_that_drops_syns_ends_within_the_timeout, .timeout = 20)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)(a_port() + 3)) };
	struct pollfd p;
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	struct ordk_cm_info in = rec(0), out;
	int ls = socket(AF_INET, SOCK_STREAM, 0), filler = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	int64_t t0;
	int rc;

	cr_assert(ls >= 0 && filler >= 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	cr_assert_eq(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	cr_assert_eq(listen(ls, 0), 0);
	/* one connection nobody accepts fills a backlog of 0 */
	cr_assert_eq(connect(filler, (struct sockaddr *)&sa, sizeof(sa)), 0);
	p = (struct pollfd){ .fd = ls, .events = POLLIN };
	cr_assert_eq(poll(&p, 1, 5000), 1, "the filler reaches the accept queue");
	/* a listener's tcp_info: unacked = queued connections, sacked = the backlog */
	cr_assert_eq(getsockopt(ls, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
	cr_assert_gt(ti.tcpi_unacked, ti.tcpi_sacked, "the accept queue is full");

	t0 = ms_now();
	rc = ordk_cm_connect("127.0.0.1", ntohs(sa.sin_port), &in, &out, 1, 500);
	cr_expect_eq(rc, -ETIMEDOUT, "%s", strerror(-rc));
	cr_expect_lt(ms_now() - t0, 2500, "the wait took %lld ms", (long long)(ms_now() - t0));
	t0 = ms_now();
	rc = ordk_cm_exchange("127.0.0.1", ntohs(sa.sin_port), &in, &out, 300);
	cr_expect_eq(rc, -ETIMEDOUT, "%s", strerror(-rc));
	cr_expect_lt(ms_now() - t0, 2300);
	close(filler);
	close(ls);
}

/* A record as a peer would send it (cm.c's layout: 48 bytes, big-endian). */
struct raw {
	uint32_t qpn, psn, ip;
	uint64_t mac, addr;
	uint32_t len;
	const char *names; /* what the refusal's log must say */
};

static void
be(uint8_t *p, uint64_t v, int n)
{
	for (int i = n - 1; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static void
encode(const struct raw *r, uint8_t *b)
{
	memset(b, 0, 48);
	memcpy(b, "ORDKCM01", 8);
	be(b + 8, r->qpn, 4);
	be(b + 12, r->psn, 4);
	be(b + 16, r->ip, 4);
	be(b + 20, 1, 4);
	be(b + 24, r->mac, 8);
	be(b + 32, r->addr, 8);
	be(b + 40, 0x4400, 4);
	be(b + 44, r->len, 4);
}

#define GOOD_IP	 0x0A000009u
#define GOOD_MAC 0x020000000009ull

static const struct raw bad_records[] = {
	{ 0x100, 0, GOOD_IP, 0xFFFFFFFFFFFFull, 0, 0,
	  "peer mac ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)" },
	{ 0x100, 0, GOOD_IP, 0x01005E000001ull, 0, 0,
	  "peer mac 01:00:5e:00:00:01: not a unicast address (multicast" },
	{ 0x100, 0, GOOD_IP, 0, 0, 0, "peer mac 00:00:00:00:00:00: not a unicast address (zero)" },
	{ 0x100, 0, 0xFFFFFFFFu, GOOD_MAC, 0, 0,
	  "peer ip 255.255.255.255: not a unicast address (the limited broadcast)" },
	{ 0x100, 0, 0xE0000001u, GOOD_MAC, 0, 0, "peer ip 224.0.0.1: not a unicast address" },
	{ 0x100, 0, 0, GOOD_MAC, 0, 0, "peer ip 0.0.0.0: not a unicast address" },
	{ 0x100, 0, 0x7F000001u, GOOD_MAC, 0, 0, "peer ip 127.0.0.1: not a unicast address" },
	{ 1, 0, GOOD_IP, GOOD_MAC, 0, 0, "peer qpn 0x000001: reserved" },
	{ 0, 0, GOOD_IP, GOOD_MAC, 0, 0, "peer qpn 0x000000: reserved" },
	{ 0x1000000, 0, GOOD_IP, GOOD_MAC, 0, 0, "peer qpn 0x1000000: out of range" },
	{ 0x100, 0x1000000, GOOD_IP, GOOD_MAC, 0, 0, "peer psn: 16777216 out of range" },
	{ 0x100, 0, GOOD_IP, GOOD_MAC, 0xFFFFFFFFFFFFF000ull, 0x2000,
	  "peer addr 0xfffffffffffff000: with len 8192 it wraps" },
};

static int
raw_connect(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons(port) };
	int s = socket(AF_INET, SOCK_STREAM, 0);

	cr_assert_eq(connect(s, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	return s;
}

/* A client's record naming a peer no QP can have: the server refuses it, naming the field. */
Test(cm, a_clients_record_naming_no_reachable_peer_is_refused)
{
	uint16_t port = (uint16_t)(a_port() + 4);
	int lfd = ordk_cm_listen(port), s, fd;
	struct ordk_cm_info in[2];
	struct log_capture log;
	unsigned int n = 0;
	uint8_t b[48];

	cr_assert_geq(lfd, 0);
	for (size_t i = 0; i < sizeof(bad_records) / sizeof(bad_records[0]); i++) {
		s = raw_connect(port);
		encode(&bad_records[i], b);
		cr_assert_eq(write(s, b, sizeof(b)), (ssize_t)sizeof(b));
		log_capture_start(&log);
		fd = ordk_cm_accept(lfd, in, 2, &n, 5000);
		cr_expect_eq(fd, -EPROTO, "%s: %d", bad_records[i].names, fd);
		cr_expect_not_null(strstr(log_capture_text(&log), bad_records[i].names),
				   "'%s' does not say '%s'", log_capture_text(&log),
				   bad_records[i].names);
		cr_expect_not_null(strstr(log_capture_text(&log), "in record 0 from tcp peer 127.0.0.1:"),
				   "%s", log_capture_text(&log));
		log_capture_stop(&log);
		if (fd >= 0)
			close(fd);
		close(s);
	}
	/* and a good one still passes: the edges of the ranges */
	s = raw_connect(port);
	encode(&(struct raw){ 0xFFFFFF, 0xFFFFFF, 0xDFFFFFFEu, 0xFEFFFFFFFFFFull,
			      0xFFFFFFFFFFFFD000ull, 0x2000, NULL }, b);
	cr_assert_eq(write(s, b, sizeof(b)), (ssize_t)sizeof(b));
	fd = ordk_cm_accept(lfd, in, 2, &n, 5000);
	cr_assert_geq(fd, 0, "%s", strerror(-fd));
	cr_expect_eq(n, 1);
	cr_expect_eq(in[0].qpn, 0xFFFFFF);
	cr_expect_eq(in[0].ip, 0xDFFFFFFEu);
	cr_expect_eq(in[0].mac, 0xFEFFFFFFFFFFull);
	close(fd);
	close(s);
	close(lfd);
}

struct bad_server {
	int ls;
	const struct raw *r;
};

/* Take one client's record and answer with @p r. */
static void *
answer_badly(void *arg)
{
	struct bad_server *sv = arg;
	int fd = accept(sv->ls, NULL, NULL);
	uint8_t b[48];

	if (fd >= 0) {
		if (read(fd, b, sizeof(b)) == (ssize_t)sizeof(b)) {
			encode(sv->r, b);
			if (write(fd, b, sizeof(b)) != (ssize_t)sizeof(b))
				fprintf(stderr, "answer_badly: short write\n");
		}
		close(fd);
	}
	return NULL;
}

/* The server's answer is checked the same way on the client's side. */
Test(cm, a_servers_record_naming_no_reachable_peer_is_refused)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				  .sin_port = htons((uint16_t)(a_port() + 5)) };
	struct bad_server sv = { socket(AF_INET, SOCK_STREAM, 0), &bad_records[0] };
	struct ordk_cm_info me = rec(0), got;
	struct log_capture log;
	pthread_t t;
	int one = 1, rc;

	setsockopt(sv.ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	cr_assert_eq(bind(sv.ls, (struct sockaddr *)&sa, sizeof(sa)), 0, "%s", strerror(errno));
	cr_assert_eq(listen(sv.ls, 1), 0);
	pthread_create(&t, NULL, answer_badly, &sv);
	log_capture_start(&log);
	rc = ordk_cm_exchange("127.0.0.1", ntohs(sa.sin_port), &me, &got, 5000);
	pthread_join(t, NULL);
	cr_expect_eq(rc, -EPROTO, "%s", strerror(-rc));
	cr_expect_not_null(strstr(log_capture_text(&log), "peer mac ff:ff:ff:ff:ff:ff: not a "
							  "unicast address (broadcast), in record 0 "
							  "from tcp peer 127.0.0.1:"),
			   "%s", log_capture_text(&log));
	log_capture_stop(&log);
	close(sv.ls);
}
