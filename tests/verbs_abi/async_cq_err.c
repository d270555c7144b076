/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A plain verbs program, built against Debian's <infiniband/verbs.h> and
 * linked with the system's libibverbs, run on ORDK through ordk-run (one
 * process, loopback): it overflows a CQ and must get IBV_EVENT_CQ_ERR for it,
 * then IBV_EVENT_QP_FATAL for both QPs that use it, through the context's
 * async_fd (waited for with poll(): only the progress thread runs the device
 * meanwhile), and ibv_poll_cq() must return the completions the CQ held, then
 * an error. Exit 0 and "PASS", or 1 and the reason.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "abi_qp.h"

#define CQE 2
#define WRITES 6

static int
fail(const char *what)
{
	printf("FAIL: %s (errno %d: %s)\n", what, errno, strerror(errno));
	return 1;
}

/* The next async event, waited for on async_fd (10 s at most), printed and acked. */
static int
next_event(struct ibv_context *c, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = c->async_fd, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1)
		return fail("async_fd did not become readable within 10 s");
	if (ibv_get_async_event(c, ev))
		return fail("ibv_get_async_event");
	printf("async event: %s\n", ibv_event_type_str(ev->event_type));
	ibv_ack_async_event(ev);
	return 0;
}

static int
overflow(struct ibv_context *c, struct ibv_cq *cq, struct ibv_qp *a, struct ibv_qp *b,
	 struct ibv_mr *mr)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, 64, mr->lkey };
	struct ibv_send_wr w[WRITES], *bad;
	struct ibv_async_event ev;
	struct ibv_wc wc[WRITES];
	int n, fatal_a = 0, fatal_b = 0;

	/* one chain, one call: all are posted before the first completes */
	for (int i = 0; i < WRITES; i++)
		w[i] = (struct ibv_send_wr){ .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
					     .opcode = IBV_WR_RDMA_WRITE,
					     .send_flags = IBV_SEND_SIGNALED,
					     .next = i + 1 < WRITES ? &w[i + 1] : NULL,
					     .wr.rdma = { (uintptr_t)mr->addr + 4096, mr->rkey } };
	if (ibv_post_send(a, w, &bad))
		return fail("ibv_post_send");
	/* nobody polls: the progress thread completes them and overflows the CQ */
	if (next_event(c, &ev))
		return 1;
	if (ev.event_type != IBV_EVENT_CQ_ERR || ev.element.cq != cq)
		return fail("the first event is not IBV_EVENT_CQ_ERR for the CQ");
	while (!fatal_a || !fatal_b) {
		if (next_event(c, &ev))
			return 1;
		if (ev.event_type != IBV_EVENT_QP_FATAL || (ev.element.qp != a && ev.element.qp != b))
			return fail("an event other than IBV_EVENT_QP_FATAL for one of the QPs");
		fatal_a |= ev.element.qp == a;
		fatal_b |= ev.element.qp == b;
	}
	n = ibv_poll_cq(cq, WRITES, wc);
	if (n != CQE)
		return fail("ibv_poll_cq did not return the completions the CQ held");
	if (ibv_poll_cq(cq, WRITES, wc) >= 0)
		return fail("ibv_poll_cq on the CQ in error did not fail");
	return 0;
}

int
main(void)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *c = l != NULL && l[0] != NULL ? ibv_open_device(l[0]) : NULL;
	struct ibv_pd *pd = c != NULL ? ibv_alloc_pd(c) : NULL;
	struct ibv_cq *cq = c != NULL ? ibv_create_cq(c, CQE, NULL, NULL, 0) : NULL;
	struct ibv_cq *rcq = c != NULL ? ibv_create_cq(c, 16, NULL, NULL, 0) : NULL;
	char *buf = calloc(2, 4096);
	struct ibv_mr *mr = pd != NULL ? ibv_reg_mr(pd, buf, 8192, IBV_ACCESS_LOCAL_WRITE |
								     IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = WRITES, .max_recv_wr = 1,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *a, *b;
	union ibv_gid gid;

	if (mr == NULL || cq == NULL || rcq == NULL)
		return fail("setting up the device, PD, CQs or MR");
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	if (a == NULL || b == NULL || ibv_query_gid(c, 1, 0, &gid) ||
	    abi_qp_try_rts(a, b->qp_num, &gid, 0) || abi_qp_try_rts(b, a->qp_num, &gid, 0))
		return fail("setting up the QPs");
	if (overflow(c, cq, a, b, mr))
		return 1;
	/* every event was acked: the destroys do not wait */
	if (ibv_destroy_qp(a) || ibv_destroy_qp(b) || ibv_destroy_cq(cq) || ibv_destroy_cq(rcq) ||
	    ibv_dereg_mr(mr) || ibv_dealloc_pd(pd) || ibv_close_device(c))
		return fail("tearing down");
	ibv_free_device_list(l);
	free(buf);
	printf("PASS\n");
	return 0;
}
