/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two processes over net_memif, one core each, connected through lib/cm: a
 * 1 MiB WRITE into the server's buffer, then a SEND; the server checks the
 * bytes and answers with a SEND carrying its verdict. Every wait is bounded.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_ethdev.h>

#include "ordk_cm.h"
#include "ordk_env.h"
#include "sim_host.h"

#define LEN (1u << 20)


struct end {
	ORDK_ENV_EP_MEMBER; /* dev, attr, pd, cq, mr, buf, len */
	struct ordk_qp *qp;
	struct ordk_cm_info me, peer;
};

static int
end_open(struct end *e, const char *vdev, int idx)
{
	struct ordk_qp_init_attr ia = { .max_send_wr = 64, .max_recv_wr = 64 };
	uint8_t *buf;
	char args[128];

	test_eal_init(vdev);
	test_port_start(0, test_pool("mp", 4095));
	snprintf(args, sizeof(args), "bluesim,port=0,mac=02:00:00:00:00:%02x,ip=10.0.0.%d%s", idx,
		 idx, test_sim_devargs());
	buf = test_aligned(4096, LEN + 4096);
	memset(buf, 0, LEN + 4096);
	if (ordk_env_ep_open(&e->ep, args, 256, buf, LEN + 4096, 7) != 0)
		return e->dev == NULL ? -1 : -2;
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = ordk_qp_create(e->pd, &ia);
	if (!e->qp)
		return -2;
	e->me = (struct ordk_cm_info){ .qpn = ordk_qp_num(e->qp), .psn = 0, .ip = e->attr.ip,
				       .mac = e->attr.mac, .addr = (uint64_t)(uintptr_t)e->buf,
				       .rkey = e->mr->rkey, .len = LEN };
	return 0;
}

static int
wait_one(struct end *e, struct ordk_wc *wc, double seconds)
{
	double end = test_now_s() + seconds;

	while (test_now_s() < end)
		if (ordk_cq_poll(e->cq, wc, 1) == 1)
			return wc->status == ORDK_WC_SUCCESS ? 0 : -1;
	return -2;
}

static struct ordk_recv_wr
recv_wr(struct end *e, uint64_t id)
{
	struct ordk_recv_wr r = { .wr_id = id, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)e->buf + LEN, 64, e->mr->lkey };
	return r;
}

/*
 * The real server: posts its RECV once the QP is in INIT (accepted from INIT
 * on). @p ready gets a byte once its memif socket listens (the client waits
 * for it: a memif client started first fails at once).
 */
static int
server_run(const char *vdev, uint16_t port, int ready)
{
	struct end e = { 0 };
	struct ordk_wc wc;
	struct ordk_recv_wr r;
	struct ordk_send_wr s = { .wr_id = 9, .opcode = ORDK_WR_SEND_WITH_IMM, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };
	struct ordk_qp_attr a = { .qp_state = ORDK_QPS_INIT, .qp_access_flags = 7 };
	uint32_t bad = 0;

	if (end_open(&e, vdev, 2) != 0)
		return 10;
	if (write(ready, "r", 1) != 1)
		return 20;
	close(ready);
	/* early RECV, in INIT, before the connection exists (NCCL does this) */
	if (ordk_qp_modify(e.qp, &a, ORDK_QP_STATE | ORDK_QP_ACCESS_FLAGS) != 0)
		return 11;
	r = recv_wr(&e, 1);
	if (ordk_qp_post_recv(e.qp, &r, 1) != 1)
		return 12;
	if (ordk_cm_exchange(NULL, port, &e.me, &e.peer, 20000) != 0)
		return 13;
	{
		/* INIT already: finish RTR, RTS */
		struct ordk_qp_attr b = { .qp_state = ORDK_QPS_RTR, .path_mtu = ORDK_MTU_4096,
					  .dest_qp_num = e.peer.qpn, .rq_psn = e.peer.psn,
					  .dest_ip = e.peer.ip, .dest_mac = e.peer.mac };

		if (ordk_qp_modify(e.qp, &b, ORDK_QP_STATE | ORDK_QP_AV | ORDK_QP_PATH_MTU |
						     ORDK_QP_DEST_QPN | ORDK_QP_RQ_PSN |
						     ORDK_QP_MAX_DEST_RD_ATOMIC |
						     ORDK_QP_MIN_RNR_TIMER) != 0)
			return 14;
		b = (struct ordk_qp_attr){ .qp_state = ORDK_QPS_RTS, .sq_psn = e.me.psn,
					   .timeout = 14, .retry_cnt = 7, .rnr_retry = 7 };
		if (ordk_qp_modify(e.qp, &b, ORDK_QP_STATE | ORDK_QP_SQ_PSN | ORDK_QP_TIMEOUT |
						     ORDK_QP_RETRY_CNT | ORDK_QP_RNR_RETRY |
						     ORDK_QP_MAX_QP_RD_ATOMIC) != 0)
			return 15;
	}
	if (wait_one(&e, &wc, 20) != 0 || wc.opcode != ORDK_WC_RECV || wc.byte_len != 64)
		return 16;
	for (uint32_t i = 0; i < LEN; i++)
		bad += e.buf[i] != (uint8_t)(i * 13 + 5);
	e.buf[LEN + 64] = 0;
	s.imm_data = bad;
	s.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)e.buf + LEN + 64, 8, e.mr->lkey };
	if (ordk_qp_post_send(e.qp, &s, 1) != 1)
		return 17;
	if (wait_one(&e, &wc, 20) != 0)
		return 18;
	/* let the client's last ACK and completion through before leaving */
	for (double end = test_now_s() + 0.3; test_now_s() < end;)
		ordk_dev_poll(e.dev, 64);
	return bad == 0 ? 0 : 19;
}

Test(verbs_memif, two_processes_write_and_send, .timeout = 90)
{
	char sock[64], vs[160], vc[160];
	uint16_t port = (uint16_t)(20000 + getpid() % 20000);
	struct end e = { 0 };
	struct ordk_wc wc;
	struct ordk_recv_wr r;
	struct ordk_send_wr w = { .wr_id = 1, .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1 };
	struct ordk_send_wr s = { .wr_id = 2, .opcode = ORDK_WR_SEND, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };
	int status = -1, pfd[2];
	pid_t child;
	char byte;

	snprintf(sock, sizeof(sock), "/tmp/ordk-vm-%d.sock", (int)getpid());
	unlink(sock);
	snprintf(vs, sizeof(vs), "--vdev=net_memif0,role=server,socket=%s,bsize=8192,rsize=11", sock);
	snprintf(vc, sizeof(vc), "--vdev=net_memif0,role=client,socket=%s,bsize=8192,rsize=11", sock);
	cr_assert_eq(pipe(pfd), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		test_eal_lcore = 1;
		close(pfd[0]);
		_exit(server_run(vs, port, pfd[1]));
	}
	close(pfd[1]);
	/* wait for the server's socket, not for luck (was: a 200 ms sleep) */
	cr_assert_eq(read(pfd[0], &byte, 1), 1, "the server did not start");
	close(pfd[0]);
	cr_assert_eq(end_open(&e, vc, 1), 0, "client: %s", rte_strerror(rte_errno));
	cr_assert_eq(ordk_cm_exchange("127.0.0.1", port, &e.me, &e.peer, 20000), 0);
	cr_assert_eq(ordk_cm_connect_qp(e.qp, &e.me, &e.peer, ORDK_MTU_4096, 7), 0);
	r = recv_wr(&e, 3);
	cr_assert_eq(ordk_qp_post_recv(e.qp, &r, 1), 1);
	for (uint32_t i = 0; i < LEN; i++)
		e.buf[i] = (uint8_t)(i * 13 + 5);
	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)e.buf, LEN, e.mr->lkey };
	w.rdma.remote_addr = e.peer.addr;
	w.rdma.rkey = e.peer.rkey;
	s.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)e.buf, 64, e.mr->lkey };
	cr_assert_eq(ordk_qp_post_send(e.qp, &w, 1), 1);
	cr_assert_eq(ordk_qp_post_send(e.qp, &s, 1), 1);
	cr_assert_eq(wait_one(&e, &wc, 20), 0, "SEND completion");
	cr_assert_eq(wc.wr_id, 2);
	cr_assert_eq(wait_one(&e, &wc, 20), 0, "the server's answer");
	cr_assert_eq(wc.opcode, ORDK_WC_RECV);
	cr_assert_eq(wc.wc_flags & ORDK_WC_WITH_IMM, ORDK_WC_WITH_IMM);
	cr_assert_eq(wc.imm_data, 0, "server found %u bad bytes", wc.imm_data);
	cr_assert_eq(wc.byte_len, 8);
	/*
	 * ACK the answer, then wait for the server without polling: DPDK
	 * 22.11's net_memif faults in rx_burst once the peer process is gone.
	 */
	for (double end = test_now_s() + 0.1; test_now_s() < end;)
		ordk_dev_poll(e.dev, 64);
	status = test_reap(child, 20);
	unlink(sock);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "server exit %d", WEXITSTATUS(status));
}

/*
 * Bytes of this process's net_memif regions and how many of them are mapped
 * (smaps' Size and Rss of the memfd:memif_region_N mappings).
 */
static void
memif_rss(unsigned long *size_kb, unsigned long *rss_kb)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	unsigned long v;

	*size_kb = *rss_kb = 0;
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strchr(line, '-') != NULL && strchr(line, ':') != NULL && line[0] != ' ' &&
		    strstr(line, " kB") == NULL)
			in = strstr(line, "/memfd:memif_region_") != NULL; /* a mapping's first line */
		else if (in && sscanf(line, "Size: %lu kB", &v) == 1)
			*size_kb += v;
		else if (in && sscanf(line, "Rss: %lu kB", &v) == 1)
			*rss_kb += v;
	}
	fclose(f);
}

/* Once the link is up, every page of the memif regions is mapped: @return 0 or what was not. */
static int
memif_populated(void)
{
	unsigned long size, rss;

	memif_rss(&size, &rss);
	if (size == 0)
		return 1; /* no region found: the test reads the wrong names */
	return rss == size ? 0 : 2;
}

/*
 * net_memif maps its rings and buffers without populating them: without
 * ordk_env_memif_prefault() at link-up, each buffer's first frame took page
 * faults in both processes (a ping-pong's first 500-1000 round trips 3-5x
 * slower, and once more at the first frame above one 4 KiB page). The sides
 * start as the tools do (ordk_env_port_start_wait()); neither polls the port.
 */
Test(verbs_memif, pages_mapped_before_the_first_frame, .timeout = 60)
{
	char sock[64], vs[160], vc[160];
	unsigned long size, rss;
	int status, up[2], done[2];
	pid_t child;
	char byte;

	snprintf(sock, sizeof(sock), "/tmp/ordk-vmp-%d.sock", (int)getpid());
	unlink(sock);
	snprintf(vs, sizeof(vs), "--vdev=net_memif0,role=server,socket=%s,bsize=8192", sock);
	snprintf(vc, sizeof(vc), "--vdev=net_memif0,role=client,socket=%s,bsize=8192", sock);
	cr_assert_eq(pipe(up), 0);
	cr_assert_eq(pipe(done), 0);
	child = fork();
	cr_assert_geq(child, 0);
	if (child == 0) {
		int rc;

		test_eal_lcore = 1;
		close(up[0]);
		close(done[1]);
		test_eal_init(vs);
		if (write(up[1], "r", 1) != 1)
			_exit(10);
		if (ordk_env_port_start_wait(0, test_pool("mp", 4095), false, 20) != 0)
			_exit(11);
		rc = memif_populated();
		/* stay until the client has looked at its own pages */
		if (read(done[0], &byte, 1) != 1)
			_exit(12);
		_exit(rc == 0 ? 0 : 20 + rc);
	}
	close(up[1]);
	close(done[0]);
	cr_assert_eq(read(up[0], &byte, 1), 1, "the server did not start");
	test_eal_init(vc);
	cr_assert_eq(ordk_env_port_start_wait(0, test_pool("mp", 4095), true, 20), 0);
	memif_rss(&size, &rss);
	cr_expect_gt(size, 0, "no memif region in /proc/self/smaps");
	cr_expect_eq(rss, size, "client: %lu of %lu kB of the memif regions mapped", rss, size);
	cr_assert_eq(write(done[1], "d", 1), 1);
	status = test_reap(child, 20);
	unlink(sock);
	cr_assert(WIFEXITED(status));
	cr_assert_eq(WEXITSTATUS(status), 0, "server exit %d (22: its pages not mapped)",
		     WEXITSTATUS(status));
}
