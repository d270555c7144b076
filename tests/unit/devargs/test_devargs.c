/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/devargs: key tables on rte_kvargs, list brackets, the older list spelling. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ordk_devargs.h"

struct seen {
	char port[32];
	char fault[64];
	int calls;
};

static int
on_port(const char *v, void *arg, char *err, size_t errlen)
{
	struct seen *s = arg;

	if (strcmp(v, "none") == 0) {
		snprintf(err, errlen, "port '%s': no such port", v);
		return -ENODEV;
	}
	snprintf(s->port, sizeof(s->port), "%s", v);
	s->calls++;
	return 0;
}

static int
on_fault(const char *v, void *arg, char *err, size_t errlen)
{
	struct seen *s = arg;

	(void)err;
	(void)errlen;
	snprintf(s->fault, sizeof(s->fault), "%s", v);
	s->calls++;
	return 0;
}

static const struct ordk_devarg keys[] = { { "port", on_port }, { "fault", on_fault } };
static const struct ordk_devarg other_keys[] = { { "mac", on_port } };

static int
parse(const char *args, struct seen *s, char *err)
{
	const struct ordk_devargs_set sets[2] = { { keys, 2, s, false }, { other_keys, 1, s, true } };
	char keep[128];

	memset(s, 0, sizeof(*s));
	err[0] = '\0';
	return ordk_devargs_parse(args, sets, 2, keep, sizeof(keep), err, 256);
}

Test(devargs, brackets_and_older_lists)
{
	struct seen s;
	char err[256];

	cr_assert_eq(parse("port=0,fault=[drop:0.01,dup:0.001]", &s, err), 0, "%s", err);
	cr_assert_str_eq(s.port, "0");
	cr_assert_str_eq(s.fault, "drop:0.01,dup:0.001", "brackets removed");
	cr_assert_eq(parse("fault=drop:0.01,dup:0.001,port=1", &s, err), 0, "%s", err);
	cr_assert_str_eq(s.fault, "drop:0.01,dup:0.001", "the older spelling reads the same");
	cr_assert_str_eq(s.port, "1");
	cr_assert_eq(parse("", &s, err), 0, "nothing to parse");
	cr_assert_eq(s.calls, 0);
}

Test(devargs, unknown_key_is_named)
{
	struct seen s;
	char err[256];

	cr_assert_eq(parse("port=0,fualt=drop:0.01", &s, err), -EINVAL);
	cr_assert(strstr(err, "unknown key 'fualt'") != NULL, "%s", err);
	cr_assert(strstr(err, "fault") != NULL, "the keys are listed: %s", err);
	cr_assert_eq(parse("port", &s, err), -EINVAL, "no value");
	cr_assert(strstr(err, "key=value") != NULL, "%s", err);
	cr_assert_eq(parse("fault=[drop:0.01", &s, err), -EINVAL);
	cr_assert(strstr(err, "bracket") != NULL, "%s", err);
}

Test(devargs, other_owners_keys_and_handler_errors)
{
	struct seen s;
	char err[256];

	cr_assert_eq(parse("mac=02:00:00:00:00:01,port=2", &s, err), 0, "%s", err);
	cr_assert_eq(s.calls, 1, "another owner's handler is not run");
	cr_assert_eq(parse("port=none", &s, err), -ENODEV, "the handler's errno, as a value");
	cr_assert(strstr(err, "no such port") != NULL, "%s", err);
}

Test(devargs, values)
{
	uint64_t x, mac;
	uint32_t ip;

	cr_assert_eq(ordk_devargs_u64("0x10", 0, 16, &x), 0);
	cr_assert_eq(x, 16);
	cr_assert_eq(ordk_devargs_u64("17", 0, 16, &x), -EINVAL);
	cr_assert_eq(ordk_devargs_u64("-1", 0, UINT64_MAX, &x), -EINVAL);
	cr_assert_eq(ordk_devargs_u64("3x", 0, 16, &x), -EINVAL);
	cr_assert_eq(ordk_devargs_mac("02:00:00:00:00:0a", &mac), 0);
	cr_assert_eq(mac, 0x02000000000aull);
	cr_assert_eq(ordk_devargs_mac("01:00:00:00:00:01", &mac), -EINVAL, "multicast");
	cr_assert_eq(ordk_devargs_ipv4("10.0.0.1", &ip), 0);
	cr_assert_eq(ip, 0x0A000001u);
	cr_assert_eq(ordk_devargs_ipv4("300.1.1.1", &ip), -EINVAL);
}
