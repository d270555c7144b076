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

#include "bench_common.h"
#include "sim_host.h"

#define BUF (64u << 20)
#define MSG (64u << 10)
#define DEPTH 128u
#define LAT_ITERS 20000u

static double secs = 2;


/* The server: keeps its progress engine running, answers the latency pings. */
static int
server(const char *vdev, uint16_t port)
{
	struct bench_end e;
	volatile uint32_t *flag;
	struct ordk_wc wc[16];
	double end;

	bench_pin(1);
	test_eal_lcore = 1;
	bench_end_open(&e, vdev, 2, port, "", BUF, DEPTH + 8, 16);
	flag = (volatile uint32_t *)(e.buf + BUF - 64);
	/* bandwidth phase: the client's WRITEs land; ping-pong phase: echo */
	end = test_now_s() + 4 * secs + 30;
	for (uint32_t want = 1; test_now_s() < end;) {
		ordk_dev_poll(e.dev, 64);
		ordk_cq_poll(e.cq, wc, 16);
		if (*flag == want) {
			e.buf[BUF - 128] = 0;
			*(uint32_t *)(e.buf + BUF - 128) = want;
			bench_post_write(&e, BUF - 128, 8, BUF - 64, want % 64 == 0, NULL);
			if (want == LAT_ITERS)
				break;
			want++;
		}
	}
	/* the client acknowledges the last pong and exits first */
	bench_linger(&e, 0.1, 1.0);
	return 0;
}

static void
client(const char *vdev, uint16_t port, double *gbps, double *lat_us)
{
	struct bench_end e;
	struct ordk_wc wc[64];
	uint32_t posted = 0, done = 0;
	volatile uint32_t *flag;
	double t0, t, *lat = malloc(sizeof(double) * LAT_ITERS);

	bench_pin(0);
	bench_end_open(&e, vdev, 1, port, "", BUF, DEPTH + 8, 16);
	flag = (volatile uint32_t *)(e.buf + BUF - 64);
	t0 = test_now_s();
	do {
		while (posted - done < DEPTH) {
			uint32_t off = (posted % (BUF / MSG - 1)) * MSG;

			bench_post_write(&e, off, MSG, off, true, NULL);
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
		bench_post_write(&e, BUF - 128, 8, BUF - 64, it % 64 == 0, NULL);
		while (*flag != it) {
			ordk_dev_poll(e.dev, 64);
			ordk_cq_poll(e.cq, wc, 64);
		}
		lat[it - 1] = (test_now_s() - a) * 1e6 / 2;
	}
	qsort(lat, LAT_ITERS, sizeof(double), bench_cmp_double);
	*lat_us = lat[LAT_ITERS / 2];
	free(lat);
	bench_linger(&e, 0.3, 0.2); /* the server stops polling at 0.1 s and sleeps 1 s */
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
		bench_pin(1);
		close(a);
		while (read(b, buf, sizeof(buf)) > 0)
			;
		_exit(0);
	}
	close(b);
	bench_pin(0);
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
		bench_pin(1);
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
	bench_pin(0);
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
	qsort(lat, LAT_ITERS, sizeof(double), bench_cmp_double);
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
	status = test_reap(child, 30);
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
