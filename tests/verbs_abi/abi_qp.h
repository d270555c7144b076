/* SPDX-License-Identifier: BSD-3-Clause */
/* What the one-process libibverbs tests share. */
#ifndef ABI_QP_H
#define ABI_QP_H

#include <stdint.h>

#include <infiniband/verbs.h>

/**
 * Take RC QP @p qp from RESET to RTS towards QP @p peer at @p gid, as a verbs
 * program does (REMOTE_WRITE and REMOTE_READ, PMTU 1024, both PSNs @p psn);
 * the test fails at the first call that does not return 0.
 */
void abi_qp_to_rts(struct ibv_qp *qp, uint32_t peer, const union ibv_gid *gid, uint32_t psn);

/**
 * The same without a test framework (plain verbs programs such as async_cq_err.c):
 * 0, or the step that failed (1 INIT, 2 RTR, 3 RTS) with errno set by ibv_modify_qp.
 */
int abi_qp_try_rts(struct ibv_qp *qp, uint32_t peer, const union ibv_gid *gid, uint32_t psn);

#endif /* ABI_QP_H */
