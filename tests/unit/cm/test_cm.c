/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/cm: several QPs' records in one connection, a server that only looks, bad peers. */
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
