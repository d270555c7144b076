/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One WRITE of 1 GiB between two devices of one process, on hugepages, the
 * bytes compared (suite big, full tier: it needs 2 GiB of free 2 MiB pages).
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_errno.h>

#include "func_common.h"

Test(verbs_big, one_gib_write_on_hugepages, .timeout = 300)
{
	const size_t G = 1ul << 30;
	uint8_t *src = mmap(NULL, G, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB,
			    -1, 0);
	uint8_t *dst = src == MAP_FAILED ? MAP_FAILED
					 : mmap(NULL, G, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	struct func_pair p;
	struct ordk_mr *ms, *md;
	struct ordk_wc wc;
	struct ordk_send_wr wr = { .wr_id = 7, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				   .send_flags = ORDK_SEND_SIGNALED };

	if (src == MAP_FAILED || dst == MAP_FAILED) {
		if (src != MAP_FAILED)
			munmap(src, G);
		cr_skip_test("a 1 GiB WRITE needs 2 GiB of free 2 MiB hugepages "
			     "(ORDK_HUGEPAGES=1280 devtools/setup.sh); skipped");
	}
	for (size_t i = 0; i < G; i += 8)
		*(uint64_t *)(src + i) = i * 0x9E3779B97F4A7C15ull;
	func_pair_open(&p, 4096, NULL);
	func_pair_qps(&p, ORDK_MTU_4096, 16);
	ms = ordk_mr_reg(p.s[0].pd, src, G, ORDK_ACCESS_LOCAL_WRITE);
	md = ordk_mr_reg(p.s[1].pd, dst, G, ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE);
	cr_assert(ms && md, "%s", rte_strerror(rte_errno));
	wr.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)src, (uint32_t)G, ms->lkey };
	wr.rdma.remote_addr = (uint64_t)(uintptr_t)dst;
	wr.rdma.rkey = md->rkey;
	cr_assert_eq(ordk_qp_post_send(p.s[0].qp, &wr, 1), 1);
	func_wait(&p, 0, &wc, 1, 240);
	cr_assert_eq(wc.status, ORDK_WC_SUCCESS);
	cr_assert_eq(wc.byte_len, G);
	cr_assert_eq(memcmp(src, dst, G), 0, "1 GiB byte for byte");
	cr_assert_eq(ordk_mr_dereg(ms), 0);
	cr_assert_eq(ordk_mr_dereg(md), 0);
	func_pair_close(&p);
	munmap(src, G);
	munmap(dst, G);
}
