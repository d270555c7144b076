/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rest of the public ABI other libraries in the process import (DPDK's
 * mlx plugins, librdmacm): fork support (nothing to protect: ORDK pins no
 * pages through a kernel), strings, the rate conversions, L2 resolution.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "ibv_internal.h"

int
ibv_fork_init(void)
{
	return 0;
}

enum ibv_fork_status
ibv_is_fork_initialized(void)
{
	return IBV_FORK_UNNEEDED;
}

int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);

int
ibv_dontfork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

int
ibv_dofork_range(void *base, size_t size)
{
	(void)base;
	(void)size;
	return 0;
}

const char *
ibv_port_state_str(enum ibv_port_state s)
{
	static const char *const n[] = { "no state change (NOP)", "down", "init", "armed",
					  "active", "active defer" };

	return (unsigned int)s < sizeof(n) / sizeof(n[0]) ? n[s] : "unknown";
}

const char *
ibv_node_type_str(enum ibv_node_type t)
{
	static const char *const n[] = {
		[IBV_NODE_CA] = "InfiniBand channel adapter",
		[IBV_NODE_SWITCH] = "InfiniBand switch",
		[IBV_NODE_ROUTER] = "InfiniBand router",
		[IBV_NODE_RNIC] = "iWARP NIC",
		[IBV_NODE_USNIC] = "usNIC",
		[IBV_NODE_USNIC_UDP] = "usNIC UDP",
		[IBV_NODE_UNSPECIFIED] = "unspecified",
	};

	return (unsigned int)t < sizeof(n) / sizeof(n[0]) && n[t] != NULL ? n[t] : "unknown";
}

/* ibverbs' link rates: the multiple of 2.5 Gb/s (-1: none) and Mb/s of each */
static const struct {
	enum ibv_rate rate;
	int mult, mbps;
} rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },	     { IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },	     { IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },     { IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },     { IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },   { IBV_RATE_14_GBPS, -1, 14062 },
	{ IBV_RATE_56_GBPS, -1, 56250 },     { IBV_RATE_112_GBPS, -1, 112500 },
	{ IBV_RATE_168_GBPS, -1, 168750 },   { IBV_RATE_25_GBPS, -1, 25781 },
	{ IBV_RATE_100_GBPS, -1, 103125 },   { IBV_RATE_200_GBPS, -1, 206250 },
	{ IBV_RATE_300_GBPS, -1, 309375 },   { IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },     { IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },  { IBV_RATE_800_GBPS, 320, 850000 },
	{ IBV_RATE_1200_GBPS, 480, 1275000 },
};

#define N_RATES (sizeof(rates) / sizeof(rates[0]))

/* @p rate's row, or -1 */
static int
rate_row(enum ibv_rate rate)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (rates[i].rate == rate)
			return (int)i;
	return -1;
}

/* The rate whose multiple (@p mbps false) or Mb/s is @p v, or IBV_RATE_MAX */
static enum ibv_rate
rate_of(int v, bool mbps)
{
	for (size_t i = 0; i < N_RATES && v > 0; i++)
		if ((mbps ? rates[i].mbps : rates[i].mult) == v)
			return rates[i].rate;
	return IBV_RATE_MAX;
}

int
ibv_rate_to_mult(enum ibv_rate rate)
{
	int i = rate_row(rate);

	return i < 0 ? -1 : rates[i].mult;
}

int
ibv_rate_to_mbps(enum ibv_rate rate)
{
	int i = rate_row(rate);

	return i < 0 ? -1 : rates[i].mbps;
}

enum ibv_rate
mult_to_ibv_rate(int mult)
{
	return rate_of(mult, false);
}

enum ibv_rate
mbps_to_ibv_rate(int mbps)
{
	return rate_of(mbps, true);
}

/* The peer's MAC from its GID, the way every ORDK device derives its own. */
int ibv_resolve_eth_l2_from_gid(struct ibv_context *c, struct ibv_ah_attr *attr,
				uint8_t eth_mac[6], uint16_t *vid);
int
ibv_resolve_eth_l2_from_gid(struct ibv_context *c, struct ibv_ah_attr *attr, uint8_t eth_mac[6],
			    uint16_t *vid)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	const uint8_t *g = attr->grh.dgid.raw;

	(void)c;
	if (!attr->is_global || memcmp(g, v4mapped, sizeof(v4mapped)) != 0)
		return EINVAL;
	eth_mac[0] = 0x02;
	eth_mac[1] = 0x00;
	memcpy(eth_mac + 2, g + 12, 4);
	if (vid != NULL)
		*vid = 0xffff; /* no VLAN */
	return 0;
}

struct ibv_context *
ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	OV_REFUSE("ibv_import_device", "no kernel verbs file to import");
	return NULL;
}

struct ibv_pd *
ibv_import_pd(struct ibv_context *c, uint32_t pd_handle)
{
	(void)c;
	(void)pd_handle;
	OV_REFUSE("ibv_import_pd", "no kernel objects to import");
	return NULL;
}

void
ibv_unimport_pd(struct ibv_pd *pd)
{
	(void)pd;
	OV_REFUSE("ibv_unimport_pd", "no kernel objects to import");
}
