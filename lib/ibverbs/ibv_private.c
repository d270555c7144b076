/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma-core's provider interface (symbol version IBVERBS_PRIVATE_34). The
 * provider libraries in the process (libmlx5, libmlx4, libefa: perftest and
 * DPDK's mlx plugins link them) are bound at load time (BIND_NOW), so these
 * names must exist for them to load. ORDK has no providers: a provider's
 * constructor registers with verbs_register_driver_34(), which ignores it,
 * and since ibv_get_device_list() lists ORDK's device only, no provider
 * device is ever opened and nothing below is called by a working program.
 * Each one, if called, says so in one line and fails.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ibv_internal.h"

bool verbs_allow_disassociate_destroy;

void verbs_register_driver_34(const void *ops);
void
verbs_register_driver_34(const void *ops)
{
	(void)ops; /* ORDK's device needs no provider */
}

/*
 * A provider's log line (verbs_err() and friends): libefa's efadv_query_device()
 * says "Not an EFA device" through it when libfabric asks about ordk0. As in
 * rdma-core: printed to stderr only at or below VERBS_LOG_LEVEL (0, the
 * default: nothing; 1 errors ... 4 debug).
 */
void __verbs_log(void *ctx, uint32_t level, const char *fmt, ...);
void
__verbs_log(void *ctx, uint32_t level, const char *fmt, ...)
{
	const char *env = getenv("VERBS_LOG_LEVEL");
	va_list ap;

	(void)ctx;
	if (env == NULL || level > strtoul(env, NULL, 0))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void
provider_call(const char *fn)
{
	OV_LOG(ERR, "%s: rdma-core provider interface, not in ORDK (no providers)\n", fn);
	errno = EOPNOTSUPP;
}

#define OV_INT_STUB(fn)             \
	int fn(void);               \
	int fn(void)                \
	{                           \
		provider_call(#fn); \
		return EOPNOTSUPP;  \
	}
#define OV_PTR_STUB(fn)             \
	void *fn(void);             \
	void *fn(void)              \
	{                           \
		provider_call(#fn); \
		return NULL;        \
	}
#define OV_VOID_STUB(fn)            \
	void fn(void);              \
	void fn(void)               \
	{                           \
		provider_call(#fn); \
	}

OV_VOID_STUB(verbs_init_cq)
OV_VOID_STUB(verbs_set_ops)
OV_VOID_STUB(verbs_uninit_context)
OV_PTR_STUB(_verbs_init_and_alloc_context)
OV_PTR_STUB(verbs_open_device)
OV_INT_STUB(execute_ioctl)
OV_INT_STUB(ibv_cmd_advise_mr)
OV_INT_STUB(ibv_cmd_alloc_dm)
OV_INT_STUB(ibv_cmd_alloc_mw)
OV_INT_STUB(ibv_cmd_alloc_pd)
OV_INT_STUB(ibv_cmd_attach_mcast)
OV_INT_STUB(ibv_cmd_close_xrcd)
OV_INT_STUB(ibv_cmd_create_ah)
OV_INT_STUB(ibv_cmd_create_counters)
OV_INT_STUB(ibv_cmd_create_cq)
OV_INT_STUB(ibv_cmd_create_cq_ex)
OV_INT_STUB(ibv_cmd_create_flow)
OV_INT_STUB(ibv_cmd_create_flow_action_esp)
OV_INT_STUB(ibv_cmd_create_qp_ex)
OV_INT_STUB(ibv_cmd_create_qp_ex2)
OV_INT_STUB(ibv_cmd_create_rwq_ind_table)
OV_INT_STUB(ibv_cmd_create_srq)
OV_INT_STUB(ibv_cmd_create_srq_ex)
OV_INT_STUB(ibv_cmd_create_wq)
OV_INT_STUB(ibv_cmd_dealloc_mw)
OV_INT_STUB(ibv_cmd_dealloc_pd)
OV_INT_STUB(ibv_cmd_dereg_mr)
OV_INT_STUB(ibv_cmd_destroy_ah)
OV_INT_STUB(ibv_cmd_destroy_counters)
OV_INT_STUB(ibv_cmd_destroy_cq)
OV_INT_STUB(ibv_cmd_destroy_flow)
OV_INT_STUB(ibv_cmd_destroy_flow_action)
OV_INT_STUB(ibv_cmd_destroy_qp)
OV_INT_STUB(ibv_cmd_destroy_rwq_ind_table)
OV_INT_STUB(ibv_cmd_destroy_srq)
OV_INT_STUB(ibv_cmd_destroy_wq)
OV_INT_STUB(ibv_cmd_detach_mcast)
OV_INT_STUB(ibv_cmd_free_dm)
OV_INT_STUB(ibv_cmd_get_context)
OV_INT_STUB(ibv_cmd_modify_cq)
OV_INT_STUB(ibv_cmd_modify_flow_action_esp)
OV_INT_STUB(ibv_cmd_modify_qp)
OV_INT_STUB(ibv_cmd_modify_qp_ex)
OV_INT_STUB(ibv_cmd_modify_srq)
OV_INT_STUB(ibv_cmd_modify_wq)
OV_INT_STUB(ibv_cmd_open_qp)
OV_INT_STUB(ibv_cmd_open_xrcd)
OV_INT_STUB(ibv_cmd_query_context)
OV_INT_STUB(ibv_cmd_query_device_any)
OV_INT_STUB(ibv_cmd_query_mr)
OV_INT_STUB(ibv_cmd_query_port)
OV_INT_STUB(ibv_cmd_query_qp)
OV_INT_STUB(ibv_cmd_query_srq)
OV_INT_STUB(ibv_cmd_read_counters)
OV_INT_STUB(ibv_cmd_reg_dm_mr)
OV_INT_STUB(ibv_cmd_reg_dmabuf_mr)
OV_INT_STUB(ibv_cmd_reg_mr)
OV_INT_STUB(ibv_cmd_rereg_mr)
OV_INT_STUB(ibv_cmd_resize_cq)
