/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbs ORDK does not have (memory windows, XRC and tag-matching SRQs,
 * multicast, ECE, the extended CQ, flows, DMs, counters, ...): each fails with
 * EOPNOTSUPP and one line naming it, never crashes. doc/guides/prog_guide/verbs_compat.md
 * lists every ibv_* function.
 */
#include <errno.h>
#include <stddef.h>

#include "ibv_internal.h"

int
ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	OV_REFUSE("ibv_attach_mcast", "multicast (UD to unicast addresses only)");
	return EOPNOTSUPP;
}

int
ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)
{
	(void)qp;
	(void)gid;
	(void)lid;
	OV_REFUSE("ibv_detach_mcast", "multicast (UD to unicast addresses only)");
	return EOPNOTSUPP;
}

int
ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	OV_REFUSE("ibv_query_ece", "enhanced connection establishment");
	return EOPNOTSUPP;
}

int
ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	OV_REFUSE("ibv_set_ece", "enhanced connection establishment");
	return EOPNOTSUPP;
}

/* Kernel-ABI converters (librdmacm's kernel paths): nothing to convert. */
void ibv_copy_qp_attr_from_kern(void *dst, const void *src);
void ibv_copy_ah_attr_from_kern(void *dst, const void *src);
void ibv_copy_path_rec_from_kern(void *dst, const void *src);

void
ibv_copy_qp_attr_from_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
	OV_REFUSE("ibv_copy_qp_attr_from_kern", "no kernel verbs");
}

void
ibv_copy_ah_attr_from_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
	OV_REFUSE("ibv_copy_ah_attr_from_kern", "no kernel verbs");
}

void
ibv_copy_path_rec_from_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
	OV_REFUSE("ibv_copy_path_rec_from_kern", "no kernel verbs");
}

void ibv_copy_path_rec_to_kern(void *dst, const void *src);
void
ibv_copy_path_rec_to_kern(void *dst, const void *src)
{
	(void)dst;
	(void)src;
	OV_REFUSE("ibv_copy_path_rec_to_kern", "no kernel verbs");
}

/* --------------------------------------------- the rest of the symbols */

int
ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length,
	     int access)
{
	(void)mr;
	(void)flags;
	(void)pd;
	(void)addr;
	(void)length;
	(void)access;
	OV_REFUSE("ibv_rereg_mr", "re-registration: deregister and register again");
	return IBV_REREG_MR_ERR_INPUT; /* the old MR is still valid */
}

int
ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	(void)cq;
	(void)cqe;
	OV_REFUSE("ibv_resize_cq", "CQ resizing: create the CQ with the size it needs");
	return EOPNOTSUPP;
}

struct ibv_mr *
ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,
		  int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	OV_REFUSE("ibv_reg_dmabuf_mr", "dma-buf memory (a kernel object)");
	return NULL;
}

struct ibv_mr *
ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	(void)pd;
	(void)mr_handle;
	OV_REFUSE("ibv_import_mr", "no kernel objects to import");
	return NULL;
}

void
ibv_unimport_mr(struct ibv_mr *mr)
{
	(void)mr;
	OV_REFUSE("ibv_unimport_mr", "no kernel objects to import");
}

struct ibv_dm *
ibv_import_dm(struct ibv_context *c, uint32_t dm_handle)
{
	(void)c;
	(void)dm_handle;
	OV_REFUSE("ibv_import_dm", "no kernel objects to import");
	return NULL;
}

void
ibv_unimport_dm(struct ibv_dm *dm)
{
	(void)dm;
	OV_REFUSE("ibv_unimport_dm", "no kernel objects to import");
}

/* ------------------------------------------- context ops the inlines call */

static struct ibv_mw *
alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	(void)pd;
	(void)type;
	OV_REFUSE("ibv_alloc_mw", "memory windows");
	return NULL;
}

static int
bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *bind)
{
	(void)qp;
	(void)mw;
	(void)bind;
	OV_REFUSE("ibv_bind_mw", "memory windows");
	return EOPNOTSUPP;
}

static int
dealloc_mw(struct ibv_mw *mw)
{
	(void)mw;
	OV_REFUSE("ibv_dealloc_mw", "memory windows");
	return EOPNOTSUPP;
}

static struct ibv_cq_ex *
create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_create_cq_ex", "extended CQs (timestamps, ibv_start_poll): use ibv_create_cq");
	return NULL;
}

static struct ibv_srq *
create_srq_ex(struct ibv_context *c, struct ibv_srq_init_attr_ex *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_create_srq_ex", "XRC and tag-matching SRQs: basic SRQs only");
	return NULL;
}

static struct ibv_xrcd *
open_xrcd(struct ibv_context *c, struct ibv_xrcd_init_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_open_xrcd", "XRC");
	return NULL;
}

static struct ibv_qp *
open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_open_qp", "XRC");
	return NULL;
}

static struct ibv_td *
alloc_td(struct ibv_context *c, struct ibv_td_init_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_alloc_td", "thread domains");
	return NULL;
}

static struct ibv_pd *
alloc_parent_domain(struct ibv_context *c, struct ibv_parent_domain_init_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_alloc_parent_domain", "parent domains");
	return NULL;
}

static struct ibv_dm *
alloc_dm(struct ibv_context *c, struct ibv_alloc_dm_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_alloc_dm", "device memory");
	return NULL;
}

static struct ibv_wq *
create_wq(struct ibv_context *c, struct ibv_wq_init_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_create_wq", "work queues (RSS)");
	return NULL;
}

static struct ibv_flow *
create_flow(struct ibv_qp *qp, struct ibv_flow_attr *a)
{
	(void)qp;
	(void)a;
	OV_REFUSE("ibv_create_flow", "flow steering");
	return NULL;
}

static struct ibv_counters *
create_counters(struct ibv_context *c, struct ibv_counters_init_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_create_counters", "counter objects (ORDK's are ordk_dev_stats)");
	return NULL;
}

static int
query_rt_values(struct ibv_context *c, struct ibv_values_ex *v)
{
	(void)c;
	(void)v;
	OV_REFUSE("ibv_query_rt_values_ex", "real-time values");
	return EOPNOTSUPP;
}

static int
advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
	  struct ibv_sge *sg, uint32_t n)
{
	(void)pd;
	(void)advice;
	(void)flags;
	(void)sg;
	(void)n;
	OV_REFUSE("ibv_advise_mr", "on-demand paging (ODP)");
	return EOPNOTSUPP;
}

static struct ibv_mr *
alloc_null_mr(struct ibv_pd *pd)
{
	(void)pd;
	OV_REFUSE("ibv_alloc_null_mr", "null MRs");
	return NULL;
}

static int
modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
{
	(void)cq;
	(void)a;
	OV_REFUSE("ibv_modify_cq", "CQ moderation");
	return EOPNOTSUPP;
}

static struct ibv_flow_action *
create_flow_action_esp(struct ibv_context *c, struct ibv_flow_action_esp_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_create_flow_action_esp", "flow actions (IPsec offload)");
	return NULL;
}

static struct ibv_rwq_ind_table *
create_rwq_ind_table(struct ibv_context *c, struct ibv_rwq_ind_table_init_attr *a)
{
	(void)c;
	(void)a;
	OV_REFUSE("ibv_create_rwq_ind_table", "work queues (RSS)");
	return NULL;
}

static int
modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *a)
{
	(void)qp;
	(void)a;
	OV_REFUSE("ibv_modify_qp_rate_limit", "rate limits (congestion control paces a QP: cc=1)");
	return EOPNOTSUPP;
}

void
ov_set_refused_ops(struct verbs_context *v)
{
	v->context.ops.alloc_mw = alloc_mw;
	v->context.ops.bind_mw = bind_mw;
	v->context.ops.dealloc_mw = dealloc_mw;
	v->create_cq_ex = create_cq_ex;
	v->create_srq_ex = create_srq_ex;
	v->open_xrcd = open_xrcd;
	v->open_qp = open_qp;
	v->alloc_td = alloc_td;
	v->alloc_parent_domain = alloc_parent_domain;
	v->alloc_dm = alloc_dm;
	v->create_wq = create_wq;
	v->ibv_create_flow = create_flow;
	v->create_counters = create_counters;
	v->query_rt_values = query_rt_values;
	v->advise_mr = advise_mr;
	v->alloc_null_mr = alloc_null_mr;
	v->modify_cq = modify_cq;
	v->modify_qp_rate_limit = modify_qp_rate_limit;
	v->create_flow_action_esp = create_flow_action_esp;
	v->create_rwq_ind_table = create_rwq_ind_table;
}
