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

Test(cm_config, no_file_is_enoent)
{
	struct ordk_cm_config c;
	char err[128];

	cr_expect_eq(ordk_cm_config_load("/nonexistent/cluster.json", &c, err, sizeof(err)), -ENOENT);
	cr_expect_not_null(strstr(err, "No such file"));
}
