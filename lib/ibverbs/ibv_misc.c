/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rest of the public ABI other libraries in the process import (DPDK's
 * mlx plugins, librdmacm): fork support (nothing to protect: ORDK pins no
 * pages through a kernel), strings, L2 resolution.
 */
#include <errno.h>
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
	static const char *const n[] = { "PORT_NOP", "PORT_DOWN", "PORT_INIT", "PORT_ARMED",
					  "PORT_ACTIVE", "PORT_ACTIVE_DEFER" };

	return (unsigned int)s < sizeof(n) / sizeof(n[0]) ? n[s] : "invalid state";
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
