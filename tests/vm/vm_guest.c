/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VM rig's guest side: ORDK over blue:<bdf> through the real VFIO code
 * (vfio-pci, no-IOMMU mode: the card gets physical addresses, hugepage
 * memory). Two QPs of the one device are connected to each other (the
 * host's model loops its frames back), and a WRITE, a READ and a SEND move
 * data that is checked; an MR is registered and deregistered; all closes.
 * Before that: the PMD refuses the device without snic_iova0=0 (the rig's
 * device sees guest-physical addresses, so the SimpleNic RX buffer cannot sit
 * at IOVA 0 as the RTL needs), and after the open PCI_COMMAND has bus
 * mastering set (read back through sysfs).
 *
 *   vm_guest <bdf> [extra devargs]   (prints "VMTEST ok|FAIL <what>" lines and a summary)
 */
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "ordk_cm.h"
#include "ordk_verbs.h"
#include "vm_common.h"

#define LEN (8u << 20) /* four hugepages: the MR spans pages that need not be adjacent */

static bool
wait_wc(struct ordk_cq *cq, struct ordk_wc *wc)
{
	for (long i = 0; i < 200000000L; i++)
		if (ordk_cq_poll(cq, wc, 1) == 1)
			return wc->status == ORDK_WC_SUCCESS;
	return false;
}

int
main(int argc, char **argv)
{
	/* rte_eal_init() takes char **: writable words (compound literals) */
	char *eal[] = { argv[0], (char[]){ "-l" }, (char[]){ "0" }, (char[]){ "--no-pci" },
			(char[]){ "--iova-mode=pa" }, (char[]){ "-m" }, (char[]){ "64" },
			(char[]){ "--no-telemetry" }, (char[]){ "--log-level=4" },
			(char[]){ "--file-prefix=ordk-vmguest" }, NULL };
	struct ordk_qp_init_attr ia = { .max_send_wr = 16, .max_recv_wr = 16 };
	char args[256];
	struct ordk_dev *dev;
	struct ordk_dev_attr at;
	struct ordk_pd *pd;
	struct ordk_cq *cq;
	struct ordk_qp *qa, *qb;
	struct ordk_mr *mr, *extra;
	uint8_t *buf, *buf2;
	struct ordk_wc wc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2 || argc > 3 || rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0) {
		printf("VMTEST FAIL eal: %s\nVMTEST: 0 passed, 1 failed\n", rte_strerror(rte_errno));
		return 1;
	}
	snprintf(args, sizeof(args),
		 "blue:%s,vendor=0x1af4,device=0x1110,bar=2,mac=02:00:00:00:00:05,ip=10.0.0.5%s",
		 argv[1], argc == 3 ? argv[2] : "");
	{ /* the RTL's SimpleNic RX at DMA address 0 needs a chosen IOVA: refused here */
		char strict[256];
		char *k;

		snprintf(strict, sizeof(strict), "%s", args);
		k = strstr(strict, ",snic_iova0=0");
		if (k != NULL) {
			memmove(k, k + 13, strlen(k + 13) + 1);
			dev = ordk_dev_open(strict);
			vm_result(dev == NULL, "without snic_iova0=0 the PMD refuses (device sees PAs)",
			       "opened");
			if (dev != NULL)
				ordk_dev_close(dev);
		}
	}
	dev = ordk_dev_open(args);
	printf("VMTEST devargs %s\n", args);
	vm_result(dev != NULL, "open blue: through vfio-pci", rte_strerror(rte_errno));
	if (dev == NULL)
		goto out;
	vm_check_bus_master(argv[1]);
	ordk_dev_query(dev, &at);
	pd = ordk_pd_alloc(dev);
	cq = ordk_cq_create(dev, 64);
	ia.send_cq = ia.recv_cq = cq;
	qa = ordk_qp_create(pd, &ia);
	qb = ordk_qp_create(pd, &ia);
	buf = rte_zmalloc("vm_buf", LEN, 2u << 20); /* hugepage memory: physically contiguous */
	mr = buf ? ordk_mr_reg(pd, buf, LEN, 15) : NULL;
	vm_result(pd && cq && qa && qb && mr, "PD, CQ, two QPs, an MR", rte_strerror(rte_errno));
	if (!mr)
		goto out;
	{
		struct ordk_cm_info a = { .qpn = ordk_qp_num(qa), .ip = at.ip, .mac = at.mac },
				    b = { .qpn = ordk_qp_num(qb), .ip = at.ip, .mac = at.mac };

		vm_result(ordk_cm_connect_qp(qa, &a, &b, ORDK_MTU_4096, 15) == 0 &&
			       ordk_cm_connect_qp(qb, &b, &a, ORDK_MTU_4096, 15) == 0,
		       "two QPs connected to each other (the model loops frames back)", "modify");
	}
	for (uint32_t i = 0; i < LEN / 2; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	{ /* WRITE the first half onto the second */
		struct ordk_send_wr w = { .wr_id = 1, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };

		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf, 65536, mr->lkey };
		w.rdma.remote_addr = (uint64_t)(uintptr_t)buf + LEN / 2;
		w.rdma.rkey = mr->rkey;
		vm_result(ordk_qp_post_send(qa, &w, 1) == 1 && wait_wc(cq, &wc) &&
			       memcmp(buf, buf + LEN / 2, 65536) == 0,
		       "RDMA WRITE 64 KiB, data checked", ordk_wc_status_str(wc.status));
	}
	{ /* READ it back into a third place */
		struct ordk_send_wr w = { .wr_id = 2, .opcode = ORDK_WR_RDMA_READ, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };

		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf + 65536, 65536, mr->lkey };
		w.rdma.remote_addr = (uint64_t)(uintptr_t)buf + LEN / 2;
		w.rdma.rkey = mr->rkey;
		vm_result(ordk_qp_post_send(qa, &w, 1) == 1 && wait_wc(cq, &wc) &&
			       memcmp(buf, buf + 65536, 65536) == 0,
		       "RDMA READ 64 KiB, data checked", ordk_wc_status_str(wc.status));
	}
	{ /* SEND 4 KiB into a RECV */
		struct ordk_recv_wr r = { .wr_id = 3, .num_sge = 1 };
		struct ordk_send_wr w = { .wr_id = 4, .opcode = ORDK_WR_SEND, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		bool ok;
		int got = 0;

		r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf + LEN - 8192, 4096, mr->lkey };
		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf + 4096, 4096, mr->lkey };
		ok = ordk_qp_post_recv(qb, &r, 1) == 1 && ordk_qp_post_send(qa, &w, 1) == 1;
		for (int i = 0; ok && i < 2; i++)
			got += wait_wc(cq, &wc);
		vm_result(ok && got == 2 && memcmp(buf + 4096, buf + LEN - 8192, 4096) == 0,
		       "SEND 4 KiB into a RECV, data checked", ordk_wc_status_str(wc.status));
	}
	buf2 = rte_zmalloc("vm_buf2", 2u << 20, 2u << 20);
	extra = buf2 ? ordk_mr_reg(pd, buf2, 2u << 20, 15) : NULL;
	vm_result(extra != NULL && ordk_mr_dereg(extra) == 0, "another MR registered and deregistered",
	       rte_strerror(rte_errno));
	{
		int rc = ordk_qp_destroy(qa) | ordk_qp_destroy(qb) | ordk_mr_dereg(mr) |
			 ordk_cq_destroy(cq) | ordk_pd_free(pd) | ordk_dev_close(dev);

		vm_result(rc == 0, "a clean close", "an object did not close");
	}
out:
	rte_eal_cleanup();
	return vm_summary();
}
