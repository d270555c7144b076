/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/cm's cluster config: the seed's file read, each wrong field named. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ordk_cm.h"

static char path[64];

static void
write_cfg(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ordk-cfg-test-%d.json", getpid());
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
}

static void
rm(void)
{
	unlink(path);
}

TestSuite(cm_config, .fini = rm);

Test(cm_config, the_seeds_file_reads)
{
	struct ordk_cm_config c;
	char err[256] = "";

	write_cfg("{\n  \"MN_ips\": [\"10.10.1.3\"],\n  \"CN_ips\": [\"10.10.1.4\", \"10.10.1.2\", "
		  "\"10.10.1.5\"],\n  \"ib_dev_id\": 2,\n  \"ib_port\": 1,\n  \"gid_idx\": 3,\n"
		  "  \"mr_size\": 32,\n  \"memcached_ip\": \"10.10.1.3\"\n}\n");
	cr_assert_eq(ordk_cm_config_load(path, &c, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(c.n_mn, 1);
	cr_expect_eq(c.n_cn, 3);
	cr_expect_str_eq(c.cn_ips[1], "10.10.1.2");
	cr_expect_str_eq(c.memcached_ip, "10.10.1.3");
	cr_expect_eq(c.memcached_port, 11211);
	cr_expect_eq(c.mr_size, 32ull << 30);
	cr_expect_eq(c.ib_dev_id, 2);
	cr_expect_eq(c.gid_idx, 3);
	cr_expect_str_eq(c.device, "bluesim,port=0");
	cr_expect_str_eq(c.cluster, "ordk");
}

Test(cm_config, ours_with_a_size_and_services)
{
	struct ordk_cm_config c;
	char err[256] = "";

	write_cfg("{\"MN_ips\":[\"10.77.0.10\"],\"CN_ips\":[\"10.77.0.11\",\"10.77.0.12\"],"
		  "\"memcached_ip\":\"10.77.0.2\",\"memcached_port\":11311,\"mr_size\":\"64M\","
		  "\"redis_ip\":\"10.77.0.2\",\"device\":\"bluesim,port=0,ip=10.78.0.10\","
		  "\"cluster\":\"run-1\"}");
	cr_assert_eq(ordk_cm_config_load(path, &c, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(c.mr_size, 64ull << 20);
	cr_expect_eq(c.memcached_port, 11311);
	cr_expect_str_eq(c.redis_ip, "10.77.0.2");
	cr_expect_eq(c.redis_port, 6379);
	cr_expect_str_eq(c.cluster, "run-1");
}

static void
refused(const char *text, const char *names)
{
	struct ordk_cm_config c;
	char err[256] = "";

	write_cfg(text);
	cr_expect_eq(ordk_cm_config_load(path, &c, err, sizeof(err)), -EINVAL, "%s", text);
	cr_expect_not_null(strstr(err, names), "'%s' does not name '%s'", err, names);
}

#define OK_REST "\"MN_ips\":[\"10.0.0.1\"],\"memcached_ip\":\"10.0.0.1\",\"mr_size\":1"

Test(cm_config, each_wrong_field_is_named)
{
	refused("{" OK_REST ",\"CN_ips\":[\"10.0.0.2\",\"10.0.0.300\"]}", "CN_ips[1]");
	refused("{" OK_REST "}", "CN_ips: missing");
	refused("{" OK_REST ",\"CN_ips\":[]}", "CN_ips: 0 nodes");
	refused("{" OK_REST ",\"CN_ips\":\"10.0.0.2\"}", "CN_ips: not a list");
	refused("{\"MN_ips\":[\"10.0.0.1\"],\"CN_ips\":[\"10.0.0.2\"],\"mr_size\":1}",
		"memcached_ip: missing");
	refused("{\"MN_ips\":[\"10.0.0.1\"],\"CN_ips\":[\"10.0.0.2\"],\"memcached_ip\":\"x\","
		"\"mr_size\":1}", "memcached_ip: \"x\"");
	refused("{" OK_REST ",\"CN_ips\":[\"10.0.0.2\"],\"memcached_port\":70000}",
		"memcached_port: 70000 out of range");
	refused("{\"MN_ips\":[\"10.0.0.1\"],\"CN_ips\":[\"10.0.0.2\"],\"memcached_ip\":\"10.0.0.1\","
		"\"mr_size\":\"lots\"}", "mr_size: \"lots\"");
	refused("{\"MN_ips\":[\"10.0.0.1\"],\"CN_ips\":[\"10.0.0.2\"],\"memcached_ip\":\"10.0.0.1\","
		"\"mr_size\":-4}", "mr_size: -4");
	refused("{" OK_REST ",\"CN_ips\":[\"10.0.0.2\"],\"ib_devid\":2}", "ib_devid: unknown field");
	refused("{" OK_REST ",\"CN_ips\":[\"10.0.0.2\"],\"cluster\":\"a b\"}", "cluster: \"a b\"");
	refused("{" OK_REST ",\n\"CN_ips\":[\"10.0.0.2\",]}", ":2:");
	refused("[1, 2]", "not a JSON object");
}

#define NO_SIZE "\"MN_ips\":[\"10.0.0.1\"],\"CN_ips\":[\"10.0.0.2\"],\"memcached_ip\":\"10.0.0.1\""

/* Sizes that overflowed the old parser into 16 EiB, and the bound both forms share. */
Test(cm_config, mr_size_is_bounded_and_no_overflow_passes)
{
	struct ordk_cm_config c;
	char err[256] = "";

	refused("{" NO_SIZE ",\"mr_size\":\"18446744073709551615\"}",
		"mr_size: 18446744073709551615 out of range (1..140737488355328)");
	refused("{" NO_SIZE ",\"mr_size\":\"99999999999999999999999\"}",
		"mr_size: 99999999999999999999999 out of range (1..140737488355328)");
	refused("{" NO_SIZE ",\"mr_size\":\"17179869184G\"}", "mr_size: 17179869184G out of range");
	refused("{" NO_SIZE ",\"mr_size\":\"131073G\"}", "mr_size: 131073G out of range");
	refused("{" NO_SIZE ",\"mr_size\":\"0M\"}", "mr_size: 0M out of range");
	refused("{" NO_SIZE ",\"mr_size\":\"-1\"}", "mr_size: \"-1\" is not a size");
	refused("{" NO_SIZE ",\"mr_size\":\"1T\"}", "mr_size: \"1T\" is not a size");
	refused("{" NO_SIZE ",\"mr_size\":131073}", "mr_size: 131073 GiB out of range (1..131072)");
	/* beyond a JSON integer (long long): jansson refuses it, naming the number */
	refused("{" NO_SIZE ",\"mr_size\":18446744073709551615}", "18446744073709551615");

	write_cfg("{" NO_SIZE ",\"mr_size\":\"131072G\"}");
	cr_assert_eq(ordk_cm_config_load(path, &c, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(c.mr_size, 1ull << 47, "ORDK_CM_MR_SIZE_MAX, 128 TiB");
	write_cfg("{" NO_SIZE ",\"mr_size\":131072}");
	cr_assert_eq(ordk_cm_config_load(path, &c, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(c.mr_size, 1ull << 47, "ORDK_CM_MR_SIZE_MAX, 128 TiB");
	write_cfg("{" NO_SIZE ",\"mr_size\":\"4k\"}");
	cr_assert_eq(ordk_cm_config_load(path, &c, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(c.mr_size, 4096);
}

/* The nodes' and services' addresses: unicast; loopback is a kernel socket's, fine. */
Test(cm_config, addresses_are_unicast)
{
	struct ordk_cm_config c;
	char err[256] = "";

	refused("{" OK_REST ",\"CN_ips\":[\"10.0.0.2\",\"255.255.255.255\"]}",
		"CN_ips[1] 255.255.255.255: not a unicast address (the limited broadcast)");
	refused("{\"MN_ips\":[\"224.0.0.1\"],\"CN_ips\":[\"10.0.0.2\"],\"memcached_ip\":"
		"\"10.0.0.1\",\"mr_size\":1}",
		"MN_ips[0] 224.0.0.1: not a unicast address (multicast");
	refused("{\"MN_ips\":[\"10.0.0.1\"],\"CN_ips\":[\"10.0.0.2\"],\"memcached_ip\":"
		"\"0.0.0.0\",\"mr_size\":1}",
		"memcached_ip 0.0.0.0: not a unicast address");
	refused("{" OK_REST ",\"CN_ips\":[\"10.0.0.2\"],\"redis_ip\":\"239.1.1.1\"}",
		"redis_ip 239.1.1.1: not a unicast address");

	write_cfg("{\"MN_ips\":[\"127.0.0.1\"],\"CN_ips\":[\"127.0.0.1\"],\"memcached_ip\":"
		  "\"127.0.0.1\",\"mr_size\":1}");
	cr_assert_eq(ordk_cm_config_load(path, &c, err, sizeof(err)), 0, "%s", err);
	cr_expect_str_eq(c.memcached_ip, "127.0.0.1");
}

Test(cm_config, no_file_is_enoent)
{
	struct ordk_cm_config c;
	char err[128];

	cr_expect_eq(ordk_cm_config_load("/nonexistent/cluster.json", &c, err, sizeof(err)), -ENOENT);
	cr_expect_not_null(strstr(err, "No such file"));
}
