/* SPDX-License-Identifier: BSD-3-Clause */
/* The verbs API end to end over two bluesim devices: the first WRITE. */
#include <criterion/criterion.h>
#include <string.h>

#include "func_common.h"

Test(verbs_basic, write_lands_byte_exact, .timeout = 60)
{
	struct func_pair p;
	struct ordk_wc wc;
	struct ordk_send_wr wr = { .wr_id = 42, .opcode = ORDK_WR_RDMA_WRITE,
				   .send_flags = ORDK_SEND_SIGNALED, .num_sge = 1 };

	func_pair_open(&p, 4 << 20, NULL);
	func_pair_qps(&p, ORDK_MTU_1024, 64);
	for (uint32_t i = 0; i < 10000; i++)
		p.s[0].buf[i] = (uint8_t)(i * 7 + 1);
	wr.sge = (struct ordk_sge){ .addr = (uint64_t)(uintptr_t)p.s[0].buf, .length = 10000,
				    .lkey = p.s[0].mr->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)p.s[1].buf + 3;
	wr.rdma.rkey = p.s[1].mr->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1);
	func_wait(&p, 0, &wc, 1, 5);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS, "%s", ordk_wc_status_str(wc.status));
	cr_assert_eq(wc.wr_id, 42);
	cr_assert_eq(wc.opcode, ORDK_WC_RDMA_WRITE);
	cr_assert_eq(memcmp(p.s[1].buf + 3, p.s[0].buf, 10000), 0);
	func_pair_close(&p);
}
