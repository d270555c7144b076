/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RDMA WRITE over bluesim between two processes on net_memif (one core each),
 * against TCP over loopback measured in the same run (suite 'perf').
 *   - WRITE bandwidth, 64 KiB messages, 128 in flight;
 *   - 8 B WRITE latency (ping-pong, RTT / 2, median);
 *   - TCP: bulk throughput with 64 KiB writes; 8 B and 64 B ping-pong RTT / 2.
 * usage: bench_write [seconds per case, default 2]
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "ordk_cm.h"
#include "sim_host.h"

#define BUF (64u << 20)
#define MSG (64u << 10)
#define DEPTH 128u
#define LAT_ITERS 20000u

static double secs = 2;


static void
pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct end {
	struct ordk_dev *dev;
	struct ordk_cq *cq;
	struct ordk_qp *qp;
	struct ordk_mr *mr;
	uint8_t *buf;
	struct ordk_cm_info me, peer;
};

static void
end_open(struct end *e, const char *vdev, int idx, uint16_t port)
{
	struct ordk_qp_init_attr ia = { .max_send_wr = DEPTH + 8, .max_recv_wr = 16 };
	struct ordk_dev_attr a;
	struct ordk_pd *pd;
	struct rte_eth_link link;
	char args[128];
	double until;

	test_eal_init(vdev);
	test_port_start(0, test_pool("bw_pool", 8191));
	until = test_now_s() + 10;
	do {
		rte_eth_link_get_nowait(0, &link);
	} while (!link.link_status && test_now_s() < until);
	snprintf(args, sizeof(args), "bluesim,port=0,mac=02:00:00:00:00:%02x,ip=10.0.0.%d,idle_us=5",
		 idx, idx);
	e->dev = ordk_dev_open(args);
	if (e->dev == NULL)
		exit(2);
	ordk_dev_query(e->dev, &a);
	pd = ordk_pd_alloc(e->dev);
	e->cq = ordk_cq_create(e->dev, 4096);
	ia.send_cq = ia.recv_cq = e->cq;
	e->qp = ordk_qp_create(pd, &ia);
	e->buf = rte_zmalloc("bw_buf", BUF, 4096);
	e->mr = ordk_mr_reg(pd, e->buf, BUF, 7);
	if (!e->qp || !e->mr)
		exit(3);
	e->me = (struct ordk_cm_info){ .qpn = ordk_qp_num(e->qp), .ip = a.ip, .mac = a.mac,
				       .addr = (uint64_t)(uintptr_t)e->buf, .rkey = e->mr->rkey };
	if (ordk_cm_exchange(idx == 2 ? NULL : "127.0.0.1", port, &e->me, &e->peer, 20000) != 0 ||
	    ordk_cm_connect_qp(e->qp, &e->me, &e->peer, ORDK_MTU_4096, 7) != 0)
		exit(4);
}

static void
post_write(struct end *e, uint32_t off, uint32_t len, uint32_t roff, bool signaled)
{
	struct ordk_send_wr w = { .opcode = ORDK_WR_RDMA_WRITE, .num_sge = 1,
				  .send_flags = signaled ? ORDK_SEND_SIGNALED : 0 };

	w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)e->buf + off, len, e->mr->lkey };
	w.rdma.remote_addr = e->peer.addr + roff;
	w.rdma.rkey = e->peer.rkey;
	while (ordk_qp_post_send(e->qp, &w, 1) != 1)
		ordk_dev_poll(e->dev, 64);
}

/* The server: keeps its progress engine running, answers the latency pings. */
static int
server(const char *vdev, uint16_t port)
{
	struct end e;
	volatile uint32_t *flag;
	struct ordk_wc wc[16];
	double end;

	pin(1);
	test_eal_lcore = 1;
	end_open(&e, vdev, 2, port);
	flag = (volatile uint32_t *)(e.buf + BUF - 64);
	/* bandwidth phase: the client's WRITEs land; ping-pong phase: echo */
	end = test_now_s() + 4 * secs + 30;
	for (uint32_t want = 1; test_now_s() < end;) {
		ordk_dev_poll(e.dev, 64);
		ordk_cq_poll(e.cq, wc, 16);
		if (*flag == want) {
			e.buf[BUF - 128] = 0;
			*(uint32_t *)(e.buf + BUF - 128) = want;
			post_write(&e, BUF - 128, 8, BUF - 64, want % 64 == 0);
			if (want == LAT_ITERS)
				break;
			want++;
		}
	}
	for (double t = test_now_s() + 0.3; test_now_s() < t;)
		ordk_dev_poll(e.dev, 64), ordk_cq_poll(e.cq, wc, 16);
	return 0;
}

static void
client(const char *vdev, uint16_t port, double *gbps, double *lat_us)
{
	struct end e;
	struct ordk_wc wc[64];
	uint32_t posted = 0, done = 0;
	volatile uint32_t *flag;
	double t0, t, *lat = malloc(sizeof(double) * LAT_ITERS);

	pin(0);
	end_open(&e, vdev, 1, port);
	flag = (volatile uint32_t *)(e.buf + BUF - 64);
	t0 = test_now_s();
	do {
		while (posted - done < DEPTH) {
			uint32_t off = (posted % (BUF / MSG - 1)) * MSG;

			post_write(&e, off, MSG, off, true);
			posted++;
		}
		int k = ordk_cq_poll(e.cq, wc, 64);

		for (int i = 0; i < k; i++)
			if (wc[i].status != ORDK_WC_SUCCESS)
				exit(5);
		done += (uint32_t)k;
		t = test_now_s() - t0;
	} while (t < secs);
	while (done < posted) {
		int k = ordk_cq_poll(e.cq, wc, 64);

		done += (uint32_t)(k > 0 ? k : 0);
	}
	t = test_now_s() - t0;
	*gbps = (double)done * MSG * 8 / t / 1e9;

	for (uint32_t it = 1; it <= LAT_ITERS; it++) {
		double a = test_now_s();

		*(uint32_t *)(e.buf + BUF - 128) = it;
		post_write(&e, BUF - 128, 8, BUF - 64, it % 64 == 0);
		while (*flag != it) {
			ordk_dev_poll(e.dev, 64);
			ordk_cq_poll(e.cq, wc, 64);
		}
		lat[it - 1] = (test_now_s() - a) * 1e6 / 2;
	}
	qsort(lat, LAT_ITERS, sizeof(double), cmp_double);
	*lat_us = lat[LAT_ITERS / 2];
	free(lat);
	for (double t1 = test_now_s() + 0.3; test_now_s() < t1;)
		ordk_dev_poll(e.dev, 64), ordk_cq_poll(e.cq, wc, 64);
}

/* ------------------------------------------------------------------ TCP */

static int
tcp_pair(int *a, int *b)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl))
		return -1;
	*a = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(*a, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -1;
	*b = accept(ls, NULL, NULL);
	close(ls);
	setsockopt(*a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(*b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return *b < 0 ? -1 : 0;
}

static double
tcp_bulk(void)
{
	static char buf[MSG];
	int a, b;
	uint64_t bytes = 0;
	double t0, t = 1e-9;
	pid_t pid;

	if (tcp_pair(&a, &b) != 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		pin(1);
		close(a);
		while (read(b, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(b);
	pin(0);
	t0 = test_now_s();
	do {
		ssize_t k = write(a, buf, sizeof(buf));

		if (k <= 0)
			break;
		bytes += (uint64_t)k;
		t = test_now_s() - t0;
	} while (t < secs);
	close(a);
	waitpid(pid, NULL, 0);
	return bytes * 8.0 / t / 1e9;
}

static double
tcp_pingpong(size_t size)
{
	char buf[64] = { 0 };
	double *lat = malloc(sizeof(double) * LAT_ITERS), r;
	int a, b;
	pid_t pid;

	if (tcp_pair(&a, &b) != 0)
		return 0;
	pid = fork();
	if (pid == 0) {
		pin(1);
		close(a);
		for (;;) {
			size_t got = 0;

			while (got < size) {
				ssize_t k = read(b, buf + got, size - got);

				if (k <= 0)
					_exit(0);
				got += (size_t)k;
			}
			if (write(b, buf, size) != (ssize_t)size)
				_exit(0);
		}
	}
	close(b);
	pin(0);
	for (uint32_t i = 0; i < LAT_ITERS; i++) {
		double t0 = test_now_s();
		size_t got = 0;

		if (write(a, buf, size) != (ssize_t)size)
			break;
		while (got < size) {
			ssize_t k = read(a, buf + got, size - got);

			if (k <= 0)
				break;
			got += (size_t)k;
		}
		lat[i] = (test_now_s() - t0) * 1e6 / 2;
	}
	close(a);
	waitpid(pid, NULL, 0);
	qsort(lat, LAT_ITERS, sizeof(double), cmp_double);
	r = lat[LAT_ITERS / 2];
	free(lat);
	return r;
}

int
main(int argc, char **argv)
{
	char sock[64], vs[160], vc[160];
	uint16_t port = (uint16_t)(21000 + getpid() % 20000);
	double gbps = 0, lat = 0, tb, tp8, tp64;
	int status = -1;
	pid_t child;

	if (argc > 1)
		secs = atof(argv[1]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(sock, sizeof(sock), "/tmp/ordk-bw-%d.sock", (int)getpid());
	unlink(sock);
	snprintf(vs, sizeof(vs), "--vdev=net_memif0,role=server,socket=%s,bsize=8192,rsize=11", sock);
	snprintf(vc, sizeof(vc), "--vdev=net_memif0,role=client,socket=%s,bsize=8192,rsize=11", sock);
	/* TCP first: before EAL exists in this process */
	tb = tcp_bulk();
	tp8 = tcp_pingpong(8);
	tp64 = tcp_pingpong(64);
	child = fork();
	if (child == 0)
		_exit(server(vs, port));
	usleep(200000);
	client(vc, port, &gbps, &lat);
	for (double end = test_now_s() + 30; test_now_s() < end;)
		if (waitpid(child, &status, WNOHANG) == child)
			break;
	if (!WIFEXITED(status)) {
		kill(child, SIGKILL);
		waitpid(child, &status, 0);
	}
	unlink(sock);
	printf("ORDK over bluesim, two processes on net_memif (one core each), vs TCP over loopback\n");
	printf("%-36s %12s %12s %8s\n", "measure", "ORDK", "TCP", "ratio");
	printf("%-36s %9.2f Gb %9.2f Gb %8.2f\n", "WRITE 64 KiB bandwidth / TCP bulk", gbps, tb,
	       tb > 0 ? gbps / tb : 0);
	printf("%-36s %9.2f us %9.2f us %8.2f\n", "8 B WRITE latency / TCP 8 B RTT/2", lat, tp8,
	       tp8 > 0 ? lat / tp8 : 0);
	printf("%-36s %12s %9.2f us %8.2f\n", "8 B WRITE latency / TCP 64 B RTT/2", "", tp64,
	       tp64 > 0 ? lat / tp64 : 0);
	printf("ratio write_bw_64k/tcp_bulk: %.2f\n", tb > 0 ? gbps / tb : 0);
	printf("ratio write_lat_8b/tcp_pingpong_8b: %.3f\n", tp8 > 0 ? lat / tp8 : 0);
	printf("ratio write_lat_8b/tcp_pingpong_64b: %.3f\n", tp64 > 0 ? lat / tp64 : 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
