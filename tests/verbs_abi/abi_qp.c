/* SPDX-License-Identifier: BSD-3-Clause */
/* What the one-process libibverbs tests share (abi_qp.h). */
#include <errno.h>
#include <string.h>

#include <criterion/criterion.h>

#include "abi_qp.h"

void
abi_qp_to_rts(struct ibv_qp *qp, uint32_t peer, const union ibv_gid *gid, uint32_t psn)
{
	static const char *const step[] = { "", "INIT", "RTR", "RTS" };
	int rc = abi_qp_try_rts(qp, peer, gid, psn);

	cr_assert_eq(rc, 0, "ibv_modify_qp to %s: %s", step[rc], strerror(errno));
}
