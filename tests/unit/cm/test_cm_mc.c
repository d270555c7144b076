/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/cm's rendezvous through a real memcached, started here and stopped by its PID. */
#include <criterion/criterion.h>
#include <errno.h>
#include <libmemcached/memcached.h>
#include <pthread.h>
#include <rte_errno.h>
#include <string.h>

#include "log_capture.h"
#include "ordk_cm.h"
#include "svc_server.h"

static struct svc mcd;

static void
up(void)
{
	cr_assert_eq(svc_start(&mcd, "memcached", "127.0.0.1"), 0, "memcached did not start");
}

static void
down(void)
{
	svc_stop(&mcd);
}

TestSuite(cm_mc, .init = up, .fini = down, .timeout = 60);

static struct ordk_cm_mc *
session(void)
{
	struct ordk_cm_mc *m = ordk_cm_mc_open("127.0.0.1", mcd.port, "t", 60, 5000);

	cr_assert_not_null(m, "open: %s", strerror(rte_errno));
	return m;
}

static struct ordk_cm_info
rec(uint32_t i)
{
	return (struct ordk_cm_info){ .qpn = 0x200 + i, .psn = 7 * i, .ip = 0x0A000002,
				      .mac = 0x020000000002ull, .addr = 0x7f0000002000ull + i,
				      .rkey = 0x5500 + i, .len = 8192 };
}

static void *
late_publisher(void *arg)
{
	struct ordk_cm_info r[3] = { rec(0), rec(1), rec(2) };
	struct ordk_cm_mc *m = session();

	(void)arg;
	usleep(100000); /* the reader is waiting by then (it must, to pass) */
	cr_assert_eq(ordk_cm_mc_publish(m, "mn", 0, "cn", 1, r, 3), 0);
	ordk_cm_mc_close(m);
	return NULL;
}

Test(cm_mc, a_reader_waits_for_records_published_later)
{
	struct ordk_cm_mc *m = session();
	struct ordk_cm_info got[4];
	unsigned int n = 0;
	pthread_t t;
	int rc;

	cr_expect_eq(ordk_cm_mc_fetch(m, "mn", 0, "cn", 1, got, 4, &n, 0), -ETIMEDOUT,
		     "nothing published yet");
	pthread_create(&t, NULL, late_publisher, NULL);
	rc = ordk_cm_mc_fetch(m, "mn", 0, "cn", 1, got, 4, &n, 5000);
	pthread_join(t, NULL);
	cr_assert_eq(rc, 0, "%s", strerror(-rc));
	cr_assert_eq(n, 3);
	for (unsigned int i = 0; i < 3; i++) {
		cr_expect_eq(got[i].qpn, 0x200 + i);
		cr_expect_eq(got[i].psn, 7 * i);
		cr_expect_eq(got[i].addr, 0x7f0000002000ull + i);
		cr_expect_eq(got[i].rkey, 0x5500 + i);
		cr_expect_eq(got[i].mac, 0x020000000002ull);
	}
	cr_expect_eq(ordk_cm_mc_fetch(m, "mn", 0, "cn", 1, got, 2, &n, 0), -E2BIG);
	cr_expect_eq(ordk_cm_mc_fetch(m, "mn", 0, "cn", 0, got, 4, &n, 0), -ETIMEDOUT,
		     "records for cn1 are not cn0's");
	ordk_cm_mc_close(m);
}

Test(cm_mc, a_value_that_is_not_records_is_refused)
{
	struct ordk_cm_mc *m = session();
	memcached_st *raw = memcached_create(NULL);
	struct ordk_cm_info got[4];
	const char *key = "t/qp/mn0>cn0";
	unsigned int n;

	memcached_server_add(raw, "127.0.0.1", mcd.port);
	cr_assert_eq(memcached_set(raw, key, strlen(key), "garbage", 7, 60, 0), MEMCACHED_SUCCESS);
	cr_expect_eq(ordk_cm_mc_fetch(m, "mn", 0, "cn", 0, got, 4, &n, 0), -EPROTO);
	memcached_free(raw);
	cr_expect_eq(ordk_cm_mc_publish(m, "m n", 0, "cn", 0, got, 1), -EINVAL, "space in a key");
	ordk_cm_mc_close(m);
}

/*
 * A record another node published is input like any other: one naming a peer
 * no QP can have (here the second of three) fails the fetch, the field and the
 * key named in the log.
 */
Test(cm_mc, a_record_naming_no_reachable_peer_is_refused)
{
	static const struct {
		uint32_t qpn, ip;
		uint64_t mac;
		const char *names;
	} bad[] = {
		{ 0x201, 0xFFFFFFFFu, 0x020000000002ull,
		  "peer ip 255.255.255.255: not a unicast address (the limited broadcast)" },
		{ 0x201, 0x0A000002u, 0xFFFFFFFFFFFFull,
		  "peer mac ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)" },
		{ 0x201, 0x0A000002u, 0x333300000001ull,
		  "peer mac 33:33:00:00:00:01: not a unicast address (multicast" },
		{ 0x201, 0xEF000001u, 0x020000000002ull, "peer ip 239.0.0.1: not a unicast address" },
		{ 1, 0x0A000002u, 0x020000000002ull, "peer qpn 0x000001: reserved" },
	};
	struct ordk_cm_mc *m = session();
	struct ordk_cm_info r[3] = { rec(0), rec(1), rec(2) }, got[4];
	struct log_capture log;
	unsigned int n = 0;
	int rc;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r[1].qpn = bad[i].qpn;
		r[1].ip = bad[i].ip;
		r[1].mac = bad[i].mac;
		cr_assert_eq(ordk_cm_mc_publish(m, "mn", 0, "cn", 2, r, 3), 0);
		log_capture_start(&log);
		rc = ordk_cm_mc_fetch(m, "mn", 0, "cn", 2, got, 4, &n, 0);
		cr_expect_eq(rc, -EPROTO, "%s: %d", bad[i].names, rc);
		cr_expect_not_null(strstr(log_capture_text(&log), bad[i].names),
				   "'%s' does not say '%s'", log_capture_text(&log), bad[i].names);
		cr_expect_not_null(strstr(log_capture_text(&log),
					  "in record 1 from memcached key t/qp/mn0>cn2"),
				   "%s", log_capture_text(&log));
		log_capture_stop(&log);
	}
	r[1] = rec(1);
	cr_assert_eq(ordk_cm_mc_publish(m, "mn", 0, "cn", 2, r, 3), 0);
	rc = ordk_cm_mc_fetch(m, "mn", 0, "cn", 2, got, 4, &n, 0);
	cr_expect_eq(rc, 0, "the same records, every peer reachable: %s", strerror(-rc));
	cr_expect_eq(n, 3);
	ordk_cm_mc_close(m);
}

struct arrival {
	const char *role;
	unsigned int id;
	int rc;
	char missing[64];
};

static const struct ordk_cm_group cluster3[] = { { "mn", 1 }, { "cn", 2 } };

static void *
arrive(void *arg)
{
	struct arrival *a = arg;
	struct ordk_cm_mc *m = session();

	a->rc = ordk_cm_mc_barrier(m, "start", a->role, a->id, cluster3, 2, 3000, a->missing,
				   sizeof(a->missing));
	ordk_cm_mc_close(m);
	return NULL;
}

static int64_t
ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void
run(struct arrival *a, unsigned int n)
{
	pthread_t t[4];

	for (unsigned int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, arrive, &a[i]);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

Test(cm_mc, the_barrier_passes_when_exactly_the_configured_nodes_came)
{
	struct arrival a[3] = { { "mn", 0 }, { "cn", 0 }, { "cn", 1 } };
	struct ordk_cm_mc *m;

	run(a, 3);
	for (unsigned int i = 0; i < 3; i++)
		cr_expect_eq(a[i].rc, 0, "%s%u: %s (%s)", a[i].role, a[i].id, strerror(-a[i].rc),
			     a[i].missing);
	m = session();
	cr_expect_eq(ordk_cm_mc_arrived(m, "start", "cn", 8), 2);
	cr_expect_eq(ordk_cm_mc_arrived(m, "start", "mn", 8), 1);
	ordk_cm_mc_close(m);
}

Test(cm_mc, a_compute_node_that_never_comes_is_named_in_bounded_time)
{
	struct arrival a[2] = { { "mn", 0 }, { "cn", 0 } };
	int64_t t0 = ms(), took;

	run(a, 2);
	took = ms() - t0;
	for (unsigned int i = 0; i < 2; i++) {
		cr_expect_eq(a[i].rc, -ETIMEDOUT);
		cr_expect_str_eq(a[i].missing, "cn1");
	}
	cr_expect(took >= 2900 && took < 6000, "took %lld ms for a 3 s timeout", (long long)took);
}

Test(cm_mc, one_node_more_than_configured_fails_everyone)
{
	struct arrival extra = { "cn", 2 };
	struct arrival a[3] = { { "mn", 0 }, { "cn", 0 }, { "cn", 1 } };

	run(&extra, 1); /* cn2 first: it is not in the config, but it arrives */
	cr_expect_eq(extra.rc, -EINVAL, "cn2 is not in the config");
	run(a, 3);
	for (unsigned int i = 0; i < 3; i++) {
		cr_expect_eq(a[i].rc, -EEXIST, "%s%u: %d", a[i].role, a[i].id, a[i].rc);
		/* a node that looks before the others came also names them ("mn0 +cn2") */
		cr_expect(strstr(a[i].missing, "+cn2") != NULL, "%s%u names '%s'", a[i].role,
			  a[i].id, a[i].missing);
	}
}

Test(cm_mc, no_server_is_refused_in_bounded_time)
{
	uint16_t p = svc_free_port();
	int64_t t0 = ms();

	cr_expect_null(ordk_cm_mc_open("127.0.0.1", p, "t", 60, 300));
	cr_expect_eq(rte_errno, ECONNREFUSED);
	cr_expect_lt(ms() - t0, 3000);
	cr_expect_null(ordk_cm_mc_open("127.0.0.1", mcd.port, "bad name", 60, 300));
	cr_expect_eq(rte_errno, EINVAL);
}
