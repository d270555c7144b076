/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/devargs: key tables on rte_kvargs, list brackets, the older list
 * spelling; the checks every boundary shares (addresses, QPNs, sizes), and the
 * Blue driver's mac= and ip= through them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "blue_args.h"
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
	char err[128];

	cr_assert_eq(ordk_devargs_u64("0x10", 0, 16, &x), 0);
	cr_assert_eq(x, 16);
	cr_assert_eq(ordk_devargs_u64("17", 0, 16, &x), -EINVAL);
	cr_assert_eq(ordk_devargs_u64("-1", 0, UINT64_MAX, &x), -EINVAL);
	cr_assert_eq(ordk_devargs_u64("3x", 0, 16, &x), -EINVAL);
	cr_assert_eq(ordk_devargs_mac("mac", "02:00:00:00:00:0a", &mac, err, sizeof(err)), 0);
	cr_assert_eq(mac, 0x02000000000aull);
	cr_assert_eq(ordk_devargs_mac("mac", "2:0:0:0:0:B", &mac, err, sizeof(err)), 0);
	cr_assert_eq(mac, 0x02000000000bull);
	cr_assert_eq(ordk_devargs_ipv4("ip", "10.0.0.1", &ip, err, sizeof(err)), 0);
	cr_assert_eq(ip, 0x0A000001u);
}

static void
mac_refused(const char *v, const char *names)
{
	char err[160] = "";
	uint64_t mac = 7;

	cr_expect_eq(ordk_devargs_mac("mac", v, &mac, err, sizeof(err)), -EINVAL, "%s", v);
	cr_expect_not_null(strstr(err, names), "%s: '%s' does not say '%s'", v, err, names);
	cr_expect_eq(mac, 7, "%s: nothing stored", v);
}

static void
ip_refused(const char *v, const char *names)
{
	char err[160] = "";
	uint32_t ip = 7;

	cr_expect_eq(ordk_devargs_ipv4("ip", v, &ip, err, sizeof(err)), -EINVAL, "%s", v);
	cr_expect_not_null(strstr(err, names), "%s: '%s' does not say '%s'", v, err, names);
	cr_expect_eq(ip, 7, "%s: nothing stored", v);
}

/* mac= and ip= are a device's own address: six octets, four, and unicast */
Test(devargs, mac_and_ip_are_strict_and_unicast)
{
	mac_refused("01:00:5e:00:00:01", "mac 01:00:5e:00:00:01: not a unicast address (multicast");
	mac_refused("ff:ff:ff:ff:ff:ff", "mac ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)");
	mac_refused("00:00:00:00:00:00", "mac 00:00:00:00:00:00: not a unicast address (zero)");
	mac_refused("+2:00:00:00:00:01", "mac '+2:00:00:00:00:01': not a MAC address");
	mac_refused(" 02:00:00:00:00:01", "not a MAC address");
	mac_refused("02:00:00:00:00:01:", "not a MAC address");
	mac_refused("002:00:00:00:00:01", "not a MAC address");
	mac_refused("02:00:00:00:00", "not a MAC address");
	mac_refused("", "not a MAC address");
	ip_refused("300.1.1.1", "ip '300.1.1.1': not an IPv4 address");
	ip_refused("010.0.0.1", "not an IPv4 address");
	ip_refused("10.0.0", "not an IPv4 address");
	ip_refused("255.255.255.255", "ip 255.255.255.255: not a unicast address (the limited broadcast)");
	ip_refused("224.0.0.1", "ip 224.0.0.1: not a unicast address (multicast");
	ip_refused("0.0.0.0", "ip 0.0.0.0: not a unicast address (0.0.0.0/8");
	ip_refused("127.0.0.1", "ip 127.0.0.1: not a unicast address (loopback");
}

static void
said(int rc, const char *err, const char *names)
{
	cr_expect_eq(rc, -EINVAL, "%s", names);
	cr_expect_not_null(strstr(err, names), "'%s' does not say '%s'", err, names);
}

Test(devargs, the_shared_address_checks)
{
	char err[160];

	cr_expect_eq(ordk_devargs_check_mac("peer mac", 0x020000000001ull, err, sizeof(err)), 0);
	cr_expect_eq(ordk_devargs_check_mac("peer mac", 0xFEFFFFFFFFFFull, err, sizeof(err)), 0,
		     "the group bit clear: unicast, locally administered");
	said(ordk_devargs_check_mac("peer mac", 0xFFFFFFFFFFFFull, err, sizeof(err)), err,
	     "peer mac ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)");
	said(ordk_devargs_check_mac("peer mac", 0x333300000001ull, err, sizeof(err)), err,
	     "peer mac 33:33:00:00:00:01: not a unicast address (multicast");
	said(ordk_devargs_check_mac("peer mac", 0, err, sizeof(err)), err, "(zero)");
	said(ordk_devargs_check_mac("peer mac", 1ull << 48, err, sizeof(err)), err,
	     "peer mac 0x1000000000000: more than 48 bits");

	cr_expect_eq(ordk_devargs_check_ipv4("peer ip", 0x0A000001u, 0, err, sizeof(err)), 0);
	cr_expect_eq(ordk_devargs_check_ipv4("peer ip", 0xDFFFFFFEu, 0, err, sizeof(err)), 0,
		     "223.255.255.254: below multicast");
	cr_expect_eq(ordk_devargs_check_ipv4("peer ip", 0x01000000u, 0, err, sizeof(err)), 0,
		     "1.0.0.0: above 0/8");
	said(ordk_devargs_check_ipv4("peer ip", 0xFFFFFFFFu, 0, err, sizeof(err)), err,
	     "peer ip 255.255.255.255: not a unicast address (the limited broadcast)");
	said(ordk_devargs_check_ipv4("peer ip", 0xE0000001u, 0, err, sizeof(err)), err,
	     "peer ip 224.0.0.1: not a unicast address (multicast, 224.0.0.0/4)");
	said(ordk_devargs_check_ipv4("peer ip", 0xEFFFFFFFu, 0, err, sizeof(err)), err,
	     "239.255.255.255: not a unicast address (multicast");
	said(ordk_devargs_check_ipv4("peer ip", 0, 0, err, sizeof(err)), err,
	     "peer ip 0.0.0.0: not a unicast address (0.0.0.0/8");
	said(ordk_devargs_check_ipv4("peer ip", 0x00010203u, 0, err, sizeof(err)), err,
	     "0.1.2.3: not a unicast address (0.0.0.0/8");
	said(ordk_devargs_check_ipv4("peer ip", 0x7F000001u, 0, err, sizeof(err)), err,
	     "peer ip 127.0.0.1: not a unicast address (loopback, 127.0.0.0/8: the card cannot");
	cr_expect_eq(ordk_devargs_check_ipv4("memcached_ip", 0x7F000001u, ORDK_DEVARGS_IP_LOOPBACK,
					     err, sizeof(err)),
		     0, "a kernel socket's peer may be loopback");
	said(ordk_devargs_check_ipv4("memcached_ip", 0xFFFFFFFFu, ORDK_DEVARGS_IP_LOOPBACK, err,
				     sizeof(err)),
	     err, "memcached_ip 255.255.255.255");

	cr_expect_eq(ordk_devargs_check_qpn("peer qpn", 2, err, sizeof(err)), 0);
	cr_expect_eq(ordk_devargs_check_qpn("peer qpn", 0xFFFFFF, err, sizeof(err)), 0);
	said(ordk_devargs_check_qpn("peer qpn", 1, err, sizeof(err)), err,
	     "peer qpn 0x000001: reserved");
	said(ordk_devargs_check_qpn("peer qpn", 0, err, sizeof(err)), err, "reserved");
	said(ordk_devargs_check_qpn("peer qpn", 1u << 24, err, sizeof(err)), err,
	     "peer qpn 0x1000000: out of range");
	cr_expect_eq(ordk_devargs_check_range("peer psn", 0xFFFFFF, 0, 0xFFFFFF, err, sizeof(err)), 0);
	said(ordk_devargs_check_range("peer psn", 1u << 24, 0, 0xFFFFFF, err, sizeof(err)), err,
	     "peer psn: 16777216 out of range (0..16777215)");
}

static void
size_refused(const char *s, const char *names)
{
	char err[160] = "";
	uint64_t v = 7;

	said(ordk_devargs_size("mr_size", s, 1, 1ull << 47, &v, err, sizeof(err)), err, names);
	cr_expect_eq(v, 7, "%s: nothing stored", s);
}

/* what overflowed in the config's own parser: 2^64 - 1 and beyond, a suffix's product */
Test(devargs, sizes_no_overflow_passes)
{
	char err[160];
	uint64_t v = 0;

	cr_expect_eq(ordk_devargs_size("mr_size", "64M", 1, 1ull << 47, &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 64ull << 20);
	cr_expect_eq(ordk_devargs_size("-s", "4k", 1, 1u << 20, &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 4096);
	cr_expect_eq(ordk_devargs_size("mr_size", "140737488355328", 1, 1ull << 47, &v, err,
				       sizeof(err)),
		     0, "the bound itself");
	cr_expect_eq(ordk_devargs_size("mr_size", "131072G", 1, 1ull << 47, &v, err, sizeof(err)),
		     0);
	cr_expect_eq(v, 1ull << 47);
	size_refused("18446744073709551615",
		     "mr_size: 18446744073709551615 out of range (1..140737488355328)");
	size_refused("99999999999999999999999999", "mr_size: 99999999999999999999999999 out of range");
	size_refused("17179869184G", "mr_size: 17179869184G out of range"); /* 2^64 */
	size_refused("18014398509481984K", "out of range"); /* 2^64 */
	size_refused("131073G", "mr_size: 131073G out of range (1..140737488355328)");
	size_refused("140737488355329", "out of range");
	size_refused("0", "mr_size: 0 out of range");
	size_refused("0G", "out of range");
	size_refused("lots", "mr_size: \"lots\" is not a size");
	size_refused("-1", "mr_size: \"-1\" is not a size");
	size_refused(" 1", "is not a size");
	size_refused("+1", "is not a size");
	size_refused("0x10", "is not a size");
	size_refused("1KB", "is not a size");
	size_refused("1T", "is not a size");
	size_refused("", "is not a size");

	/* a number: the same reading, no suffix */
	cr_expect_eq(ordk_devargs_number("-p", "65535", 1, 65535, &v, err, sizeof(err)), 0);
	cr_expect_eq(v, 65535);
	said(ordk_devargs_number("-p", "70000", 1, 65535, &v, err, sizeof(err)), err,
	     "-p: 70000 out of range (1..65535)");
	said(ordk_devargs_number("-p", "4294985156", 1, 65535, &v, err, sizeof(err)), err,
	     "-p: 4294985156 out of range");
	said(ordk_devargs_number("-n", "18446744073709551616", 1, UINT64_MAX, &v, err, sizeof(err)),
	     err, "-n: 18446744073709551616 out of range");
	said(ordk_devargs_number("-n", "4k", 1, UINT64_MAX, &v, err, sizeof(err)), err,
	     "-n: \"4k\" is not a number (decimal digits)");
	said(ordk_devargs_number("-n", "-1", 1, UINT64_MAX, &v, err, sizeof(err)), err,
	     "-n: \"-1\" is not a number");
}

/* The Blue driver's mac= and ip=, the card's own address, through its devargs pass. */
Test(devargs, the_blue_drivers_address_is_unicast)
{
	struct blue_net_args net = { 0 };
	char err[160] = "";

	cr_assert_eq(blue_net_args_parse("mac=02:00:00:00:00:07,ip=10.0.0.7", NULL, 0, &net, err,
					 sizeof(err)),
		     0, "%s", err);
	cr_expect_eq(net.mac, 0x020000000007ull);
	cr_expect_eq(net.ip, 0x0A000007u);
	said(blue_net_args_parse("mac=ff:ff:ff:ff:ff:ff", NULL, 0, &net, err, sizeof(err)), err,
	     "mac ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)");
	said(blue_net_args_parse("mac=00:00:00:00:00:00", NULL, 0, &net, err, sizeof(err)), err,
	     "mac 00:00:00:00:00:00: not a unicast address (zero)");
	said(blue_net_args_parse("ip=255.255.255.255", NULL, 0, &net, err, sizeof(err)), err,
	     "ip 255.255.255.255: not a unicast address (the limited broadcast)");
	said(blue_net_args_parse("ip=239.1.2.3", NULL, 0, &net, err, sizeof(err)), err,
	     "ip 239.1.2.3: not a unicast address (multicast");
	said(blue_net_args_parse("ip=0.0.0.0", NULL, 0, &net, err, sizeof(err)), err,
	     "ip 0.0.0.0: not a unicast address");
	said(blue_net_args_parse("ip=127.0.0.1", NULL, 0, &net, err, sizeof(err)), err,
	     "ip 127.0.0.1: not a unicast address (loopback");
	cr_expect_eq(net.mac, 0x020000000007ull, "a refused value leaves the address as it was");
	cr_expect_eq(net.ip, 0x0A000007u);
}
