/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The smallest program built against an installed ORDK, with nothing but
 * `pkg-config --cflags --libs libordk`: one bluesim device on its loopback
 * port, two RC QPs connected to each other, one RDMA WRITE, data checked.
 *   cc hello_ordk.c $(pkg-config --cflags --libs libordk) -o hello_ordk
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <ordk_verbs.h>
#include <ordk_version.h>

#define LEN 8192

static int
connect_qp(struct ordk_qp *qp, const struct ordk_dev_attr *at, uint32_t peer_qpn)
{
	struct ordk_qp_attr a = {
		.qp_state = ORDK_QPS_INIT,
		.qp_access_flags = ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE,
	};
	int rc = ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS);

	a.qp_state = ORDK_QPS_RTR;
	a.path_mtu = ORDK_MTU_4096;
	a.dest_qp_num = peer_qpn;
	a.dest_ip = at->ip;
	a.dest_mac = at->mac;
	if (rc == 0)
		rc = ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU |
					    ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
					    ORDK_QP_MAX_DEST_RD_ATOMIC | ORDK_QP_MIN_RNR_TIMER);
	a.qp_state = ORDK_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	if (rc == 0)
		rc = ordk_qp_modify(qp, &a, ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
					    ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
					    ORDK_QP_MAX_QP_RD_ATOMIC);
	return rc;
}

int
main(int argc, char **argv)
{
	char *eal[] = { argv[0], "--no-pci", "--no-huge", "-m", "256", "--no-shconf",
			"--no-telemetry", "--log-level=4", "-l", "0", NULL };
	struct ordk_dev_attr at;
	struct ordk_wc wc;
	struct ordk_qp *qp[2];
	char *buf = calloc(2, LEN);
	int got = 0;

	(void)argc;
	printf("headers %s, library %s\n", ORDK_VERSION, ordk_version());
	if (buf == NULL || rte_eal_init(10, eal) < 0)
		return 1;
	struct ordk_dev *dev = ordk_dev_open("bluesim,port=loopback");
	if (dev == NULL) {
		fprintf(stderr, "ordk_dev_open: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	ordk_dev_query(dev, &at);
	struct ordk_pd *pd = ordk_pd_alloc(dev);
	struct ordk_cq *cq = ordk_cq_create(dev, 16);
	struct ordk_mr *mr = ordk_mr_reg(pd, buf, 2 * LEN,
					 ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE);
	struct ordk_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .max_send_wr = 16,
					.max_recv_wr = 16 };

	if (pd == NULL || cq == NULL || mr == NULL)
		return 1;
	qp[0] = ordk_qp_create(pd, &ia);
	qp[1] = ordk_qp_create(pd, &ia);
	if (qp[0] == NULL || qp[1] == NULL || connect_qp(qp[0], &at, ordk_qp_num(qp[1])) != 0 ||
	    connect_qp(qp[1], &at, ordk_qp_num(qp[0])) != 0)
		return 1;
	for (int i = 0; i < LEN; i++)
		buf[i] = (char)(i * 7 + 3);
	struct ordk_send_wr wr = {
		.wr_id = 1, .opcode = ORDK_WR_RDMA_WRITE, .send_flags = ORDK_SEND_SIGNALED,
		.num_sge = 1, .sge = { (uintptr_t)buf, LEN, mr->lkey },
		.rdma = { (uintptr_t)(buf + LEN), mr->rkey },
	};
	if (ordk_qp_post_send(qp[0], &wr, 1) != 1)
		return 1;
	for (long spin = 0; got == 0 && spin < 200000000L; spin++)
		got = ordk_cq_poll(cq, &wc, 1);
	if (got != 1 || wc.status != ORDK_WC_SUCCESS || memcmp(buf, buf + LEN, LEN) != 0) {
		fprintf(stderr, "the WRITE did not land (%d completions)\n", got);
		return 1;
	}
	printf("%s: %d bytes written and verified\n", at.name, LEN);
	ordk_qp_destroy(qp[0]);
	ordk_qp_destroy(qp[1]);
	ordk_mr_dereg(mr);
	ordk_cq_destroy(cq);
	ordk_pd_free(pd);
	ordk_dev_close(dev);
	rte_eal_cleanup();
	free(buf);
	return 0;
}
