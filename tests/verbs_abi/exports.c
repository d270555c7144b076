/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A plain verbs program, linked with the system's libibverbs: prints what
 * libibverbs' device-free functions return (strings, rate conversions) for
 * every value of their enums and a little beyond. exports.sh runs it on
 * rdma-core's library and on ORDK's (through ordk-run) and compares.
 */
#include <stdio.h>

#include <infiniband/verbs.h>

int
main(void)
{
	static const int mbps[] = { -5, 0, 1, 2500, 5000, 10000, 14062, 20000, 25781, 28125, 30000,
				    40000, 53125, 56250, 60000, 80000, 99999, 103125, 112500,
				    120000, 168750, 206250, 309375, 425000, 637500, 850000,
				    1275000 };

	for (int r = -1; r <= IBV_RATE_1200_GBPS + 1; r++)
		printf("rate %d: mult %d, mbps %d\n", r, ibv_rate_to_mult((enum ibv_rate)r),
		       ibv_rate_to_mbps((enum ibv_rate)r));
	for (int m = -1; m <= 500; m++)
		if (mult_to_ibv_rate(m) != IBV_RATE_MAX)
			printf("mult %d: rate %d\n", m, mult_to_ibv_rate(m));
	for (size_t i = 0; i < sizeof(mbps) / sizeof(mbps[0]); i++)
		printf("mbps %d: rate %d\n", mbps[i], mbps_to_ibv_rate(mbps[i]));
	for (int t = -1; t <= IBV_NODE_UNSPECIFIED + 1; t++)
		printf("node type %d: %s\n", t, ibv_node_type_str((enum ibv_node_type)t));
	for (int s = 0; s <= IBV_PORT_ACTIVE_DEFER + 1; s++)
		printf("port state %d: %s\n", s, ibv_port_state_str((enum ibv_port_state)s));
	for (int s = 0; s <= IBV_WC_TM_RNDV_INCOMPLETE + 1; s++)
		printf("wc status %d: %s\n", s, ibv_wc_status_str((enum ibv_wc_status)s));
	for (int e = 0; e <= IBV_EVENT_WQ_FATAL + 1; e++)
		printf("event %d: %s\n", e, ibv_event_type_str((enum ibv_event_type)e));
	return 0;
}
