/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-doctor's cluster checks: memcached (a real one, bound to 127.0.0.1 as
 * systemd starts it), the registered nodes (real memcached), TUN capture and
 * mr_size (fabricated trees).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "doctor_cluster.h"
#include "fake_tree.h"
#include "svc_server.h"

static char root[64];

FAKE_TREE_SUITE(doctor_cluster, root);

/* A config: one memory node and @p ncn compute nodes at @p ip (10.77.0.x or 127.0.0.1). */
static struct ordk_cm_config
config(const char *node_ip, unsigned int ncn, uint16_t mport, const char *cluster)
{
	struct ordk_cm_config c = { .n_mn = 1, .n_cn = ncn, .memcached_port = mport,
				    .mr_size = 1ull << 30 };

	snprintf(c.mn_ips[0], sizeof(c.mn_ips[0]), "%s", node_ip);
	for (unsigned int i = 0; i < ncn; i++)
		snprintf(c.cn_ips[i], sizeof(c.cn_ips[i]), "%s", node_ip);
	snprintf(c.memcached_ip, sizeof(c.memcached_ip), "127.0.0.1");
	snprintf(c.cluster, sizeof(c.cluster), "%s", cluster);
	return c;
}

static const struct doc_finding *
one(struct doc_report *r, const char *check)
{
	const struct doc_finding *f = doc_find(r, check);

	cr_assert_not_null(f, "no '%s' finding", check);
	return f;
}

Test(doctor_cluster, memcached_bound_to_127_0_0_1_is_the_classic)
{
	struct doc_opts o = { .root = "" }; /* the real /proc/net/tcp */
	struct svc m;
	struct doc_report r = { .n = 0 };
	struct ordk_cm_config c;
	const struct doc_finding *f;

	cr_assert_eq(svc_start(&m, "memcached", "127.0.0.1"), 0);
	c = config("10.77.0.11", 2, m.port, "t");
	doc_check_memcached(&o, &c, &r);
	svc_stop(&m);
	f = one(&r, "memcached");
	cr_expect_eq(f->level, DOC_FAIL);
	cr_expect_not_null(strstr(f->detail, "listens on 127.0.0.1:"), "%s", f->detail);
	cr_expect_not_null(strstr(f->detail, "10.77.0.11"), "%s", f->detail);
	cr_expect_not_null(strstr(f->fix, "-l 0.0.0.0"), "%s", f->fix);
}

Test(doctor_cluster, memcached_on_one_host_is_fine_and_none_is_refused)
{
	struct doc_opts o = { .root = "" };
	struct svc m;
	struct doc_report r = { .n = 0 };
	struct ordk_cm_config c;

	cr_assert_eq(svc_start(&m, "memcached", "127.0.0.1"), 0);
	c = config("127.0.0.1", 2, m.port, "t");
	doc_check_memcached(&o, &c, &r);
	cr_expect_eq(one(&r, "memcached")->level, DOC_OK, "%s", one(&r, "memcached")->detail);
	svc_stop(&m);
	r.n = 0;
	doc_check_memcached(&o, &c, &r); /* the same port, nobody there now */
	cr_expect_eq(one(&r, "memcached")->level, DOC_FAIL);
	cr_expect_not_null(strstr(one(&r, "memcached")->detail, "Memcached connection refused"));
}

Test(doctor_cluster, the_registered_compute_nodes_against_the_config)
{
	struct doc_opts o = { .root = "" };
	struct svc m;
	struct doc_report r = { .n = 0 };
	struct ordk_cm_config c;
	struct ordk_cm_mc *mc;
	const struct ordk_cm_group g[] = { { "mn", 1 }, { "cn", 2 } };
	const struct doc_finding *f;

	cr_assert_eq(svc_start(&m, "memcached", "127.0.0.1"), 0);
	c = config("127.0.0.1", 2, m.port, "dn");
	mc = ordk_cm_mc_open("127.0.0.1", m.port, "dn", 60, 2000);
	cr_assert_not_null(mc);
	doc_check_nodes(&o, &c, &r);
	cr_expect_eq(one(&r, "nodes")->level, DOC_INFO, "nobody yet");
	/* cn0 arrives (and gives up at once): cn1 missing */
	cr_expect_eq(ordk_cm_mc_barrier(mc, "start", "cn", 0, g, 2, 0, NULL, 0), -ETIMEDOUT);
	r.n = 0;
	doc_check_nodes(&o, &c, &r);
	f = one(&r, "nodes");
	cr_expect_eq(f->level, DOC_WARN);
	cr_expect_not_null(strstr(f->detail, "1 of 2"), "%s", f->detail);
	cr_expect_not_null(strstr(f->detail, "missing: cn1"), "%s", f->detail);
	/* cn1 and an unconfigured cn2 come */
	ordk_cm_mc_barrier(mc, "start", "cn", 1, g, 2, 0, NULL, 0);
	r.n = 0;
	doc_check_nodes(&o, &c, &r);
	cr_expect_eq(one(&r, "nodes")->level, DOC_OK, "%s", one(&r, "nodes")->detail);
	cr_expect_eq(ordk_cm_mc_barrier(mc, "start", "cn", 2, g, 2, 0, NULL, 0), -EINVAL);
	r.n = 0;
	doc_check_nodes(&o, &c, &r);
	f = one(&r, "nodes");
	cr_expect_eq(f->level, DOC_FAIL);
	cr_expect_not_null(strstr(f->detail, "cn2 registered"), "%s", f->detail);
	ordk_cm_mc_close(mc);
	svc_stop(&m);
}

#define ROUTE_HDR "Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT\n"

Test(doctor_cluster, a_tun_device_that_routes_the_peers_is_caught)
{
	struct doc_opts o = { .root = root };
	struct doc_report r = { .n = 0 };
	struct ordk_cm_config c = config("10.10.1.4", 2, 11211, "t");
	const struct doc_finding *f;

	fake_put(root, "/sys/class/net/Meta/tun_flags", "0x1002");
	fake_put(root, "/sys/class/net/eth1/mtu", "9000");
	/* Clash's TUN: the default route through Meta, and no route of the cluster's own */
	fake_put(root, "/proc/net/route",
		 ROUTE_HDR "Meta\t00000000\t0100A8C6\t0003\t0\t0\t0\t00000000\t0\t0\t0\n");
	doc_check_capture(&o, &c, &r);
	f = one(&r, "capture");
	cr_expect_eq(f->level, DOC_FAIL);
	cr_expect_not_null(strstr(f->detail, "10.10.1.4 goes through Meta"), "%s", f->detail);
	cr_expect_not_null(strstr(f->fix, "DIRECT"), "%s", f->fix);
	/* the experiment network routed directly: Meta remains, but harmless */
	fake_put(root, "/proc/net/route",
		 ROUTE_HDR "Meta\t00000000\t0100A8C6\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
			   "eth1\t00010A0A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n");
	r.n = 0;
	doc_check_capture(&o, &c, &r);
	f = one(&r, "capture");
	cr_expect_eq(f->level, DOC_INFO, "%s", f->detail);
	cr_expect_not_null(strstr(f->detail, "Meta is a TUN device"), "%s", f->detail);
}

Test(doctor_cluster, mr_size_against_memory_and_hugepages)
{
	struct doc_opts o = { .root = root };
	struct doc_report r = { .n = 0 };
	struct ordk_cm_config c = config("10.10.1.4", 2, 11211, "t");
	const struct doc_finding *f;

	fake_put(root, "/proc/meminfo", "MemTotal: 8388608 kB\nMemAvailable: 4194304 kB\n");
	fake_put(root, "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "100\n");
	c.mr_size = 32ull << 30; /* the seed's mr_size 32 on a 4 GiB node */
	doc_check_mr_size(&o, &c, &r);
	f = one(&r, "mr_size");
	cr_expect_eq(f->level, DOC_FAIL);
	cr_expect_not_null(strstr(f->detail, "mr_size 32768 MiB"), "%s", f->detail);
	cr_expect_not_null(strstr(f->fix, "lower mr_size"), "%s", f->fix);
	c.mr_size = 1ull << 30; /* fits the memory, not the 200 MiB of hugepages */
	r.n = 0;
	doc_check_mr_size(&o, &c, &r);
	cr_expect_eq(r.n, 2);
	cr_expect_eq(r.f[0].level, DOC_OK, "%s", r.f[0].detail);
	cr_expect_eq(r.f[1].level, DOC_WARN);
	cr_expect_not_null(strstr(r.f[1].detail, "200 MiB of free 2 MiB hugepages"), "%s",
			   r.f[1].detail);
	fake_put(root, "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "1024\n");
	r.n = 0;
	doc_check_mr_size(&o, &c, &r);
	cr_expect_eq(r.n, 1, "2 GiB of hugepages hold it");
}
