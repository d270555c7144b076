/* SPDX-License-Identifier: BSD-3-Clause */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_ethdev.h>

#include "bench_common.h"
#include "sim_host.h"

void
bench_pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

int
bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
bench_end_open(struct bench_end *e, const char *vdev, int idx, uint16_t port,
	       const char *extra_devargs, size_t len, uint32_t send_depth, uint32_t recv_depth)
{
	struct ordk_qp_init_attr ia = { .max_send_wr = send_depth, .max_recv_wr = recv_depth };
	struct rte_eth_link link;
	char args[256];
	double until;
	int rc;

	test_eal_init(vdev);
	test_port_start(0, test_pool("bench_pool", 8191));
	until = test_now_s() + 10;
	do {
		rte_eth_link_get_nowait(0, &link);
	} while (!link.link_status && test_now_s() < until);
	snprintf(args, sizeof(args), "bluesim,port=0,mac=02:00:00:00:00:%02x,ip=10.0.0.%d,idle_us=5%s",
		 idx, idx, extra_devargs);
	rc = ordk_env_ep_open(&e->ep, args, 4096, NULL, len, 7);
	if (e->dev == NULL) {
		fprintf(stderr, "bench: cannot open '%s'\n", args);
		exit(2);
	}
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = rc == 0 ? ordk_qp_create(e->pd, &ia) : NULL;
	if (!e->qp) {
		fprintf(stderr, "bench: QP or MR creation failed\n");
		exit(3);
	}
	e->me = (struct ordk_cm_info){ .qpn = ordk_qp_num(e->qp), .ip = e->attr.ip,
				       .mac = e->attr.mac, .addr = (uint64_t)(uintptr_t)e->buf,
				       .rkey = e->mr->rkey };
	if (ordk_cm_exchange(idx == 2 ? NULL : "127.0.0.1", port, &e->me, &e->peer, 20000) != 0 ||
	    ordk_cm_connect_qp(e->qp, &e->me, &e->peer, ORDK_MTU_4096, 7) != 0) {
		fprintf(stderr, "bench: connection failed\n");
		exit(4);
	}
}

void
bench_post_write(struct bench_end *e, uint32_t off, uint32_t len, uint32_t roff, bool signaled,
		 const uint32_t *imm)
{
	struct ordk_send_wr w = { .opcode = imm ? ORDK_WR_RDMA_WRITE_WITH_IMM : ORDK_WR_RDMA_WRITE,
				  .num_sge = 1, .send_flags = signaled ? ORDK_SEND_SIGNALED : 0,
				  .imm_data = imm ? *imm : 0 };

	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)e->buf + off, len, e->mr->lkey };
	w.rdma.remote_addr = e->peer.addr + roff;
	w.rdma.rkey = e->peer.rkey;
	while (ordk_qp_post_send(e->qp, &w, 1) != 1)
		ordk_dev_poll(e->dev, 64);
}
