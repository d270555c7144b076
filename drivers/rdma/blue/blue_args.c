/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's own devargs: mac=, ip= (the address the card gets with
 * SetNetworkParam), trace= (lib/verbs' QP timelines) and cc=, cc_trace=, cc_<key>= (congestion control,
 * blue_cc.c). The backend's keys (bluesim's, VFIO's) are parsed by the
 * backend; each pass knows the other's keys, so an unknown one is refused.
 */
#include <errno.h>
#include <stdio.h>

#include "blue_args.h"
#include "ordk_devargs.h"

/* The card's own address: a unicast MAC and IPv4 (no loopback: frames go to the wire). */
static int
arg_mac(const char *v, void *arg, char *err, size_t errlen)
{
	return ordk_devargs_mac("mac", v, &((struct blue_net_args *)arg)->mac, err, errlen);
}

static int
arg_ip(const char *v, void *arg, char *err, size_t errlen)
{
	return ordk_devargs_ipv4("ip", v, &((struct blue_net_args *)arg)->ip, err, errlen);
}

/* trace=0 (none, the default), 1 (256 events per QP), or N events (rounded up to a power of two) */
static int
arg_trace(const char *v, void *arg, char *err, size_t errlen)
{
	uint64_t n;

	if (ordk_devargs_u64(v, 0, 65536, &n) == 0) {
		((struct blue_net_args *)arg)->trace = n == 1 ? 256u : (uint32_t)n;
		return 0;
	}
	snprintf(err, errlen, "trace '%s': 0 (off), 1 (256 events per QP) or events per QP, up to "
			      "65536", v);
	return -EINVAL;
}

#define CC_KEY(k) { "cc_" #k, blue_cc_arg_##k },
const struct ordk_devarg blue_net_devargs[BLUE_NET_DEVARGS_COUNT] = {
	{ "mac", arg_mac },
	{ "ip", arg_ip },
	{ "trace", arg_trace },
	{ "cc", blue_cc_arg_on },
	{ "cc_trace", blue_cc_arg_trace },
	BLUE_CC_KEYS(CC_KEY)
};
#undef CC_KEY

int
blue_net_args_parse(const char *args, const struct ordk_devarg *backend_keys, unsigned int n,
		    struct blue_net_args *net, char *err, size_t errlen)
{
	const struct ordk_devargs_set sets[2] = {
		{ blue_net_devargs, BLUE_NET_DEVARGS_COUNT, net, false },
		{ backend_keys, n, NULL, true },
	};
	char keep[512];

	return ordk_devargs_parse(args, sets, 2, keep, sizeof(keep), err, errlen);
}
