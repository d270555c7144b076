/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver's own devargs: mac=, ip= (the address the card gets with
 * SetNetworkParam) and cc=, cc_trace=, cc_<key>= (congestion control,
 * blue_cc.c). The backend's keys (bluesim's, VFIO's) are parsed by the
 * backend; each pass knows the other's keys, so an unknown one is refused.
 */
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

#define CC_KEY(k) { "cc_" #k, blue_cc_arg_##k },
const struct ordk_devarg blue_net_devargs[BLUE_NET_DEVARGS_COUNT] = {
	{ "mac", arg_mac },
	{ "ip", arg_ip },
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
