/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-baseline: what a user would use instead of ORDK, measured on the same
 * machine in the same run as ordk-perf (devtools/bench.sh compares them).
 *
 *   ordk-baseline tcp_bulk [seconds]          TCP over loopback, 64 KiB writes (Gb/s)
 *   ordk-baseline tcp_pingpong <bytes> [n]    TCP ping-pong, RTT/2 median (usec)
 *   ordk-baseline memcpy [bytes] [seconds]    one core's memcpy bandwidth (Gb/s)
 *   ordk-baseline raw_rx|raw_tx <bytes> [seconds] [socket]
 *                                             raw frames over net_memif, no RDMA:
 *                                             raw_rx prints the frame rate it got
 *   ordk-baseline raw_pong [socket]           echoes every frame back until told to stop
 *   ordk-baseline raw_ping <bytes> [n] [socket] [--histogram=FILE]
 *                                             raw ping-pong over net_memif: RTT/2
 *                                             typical, p99, p99.9 (usec), as ordk-perf
 *
 * Each prints "<name> <value>" lines for scripts. The TCP peers are a forked
 * child pinned to the other CPU; raw_rx/raw_tx and raw_pong/raw_ping are two
 * processes (the first the memif server on lcore 0, the second the client on
 * lcore 1, as ordk-perf's server and client).
 */
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "app_common.h"
#include "perf.h"

#define P "ordk-baseline"

static void
pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ------------------------------------------------------------------ TCP */

static int
tcp_pair(int *a, int *b)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof(sa)) || listen(ls, 1) ||
	    getsockname(ls, (struct sockaddr *)&sa, &sl))
		return -1;
	*a = socket(AF_INET, SOCK_STREAM, 0);
	if (*a < 0 || connect(*a, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		return -1;
	*b = accept(ls, NULL, NULL);
	close(ls);
	setsockopt(*a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(*b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return *b < 0 ? -1 : 0;
}

static int
read_all(int fd, char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, buf + got, n - got);

		if (k <= 0)
			return -1;
		got += (size_t)k;
	}
	return 0;
}

static int
tcp_bulk(double secs)
{
	static char buf[64 << 10];
	uint64_t bytes = 0;
	double t0, t = 1e-9;
	int a, b;
	pid_t pid;

	if (tcp_pair(&a, &b) != 0)
		return 1;
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
	t0 = ordk_env_wall_s();
	do {
		ssize_t k = write(a, buf, sizeof(buf));

		if (k <= 0)
			break;
		bytes += (uint64_t)k;
		t = ordk_env_wall_s() - t0;
	} while (t < secs);
	close(a);
	waitpid(pid, NULL, 0);
	printf("tcp_bulk_gbps %.3f\n", (double)bytes * 8 / t / 1e9);
	return 0;
}

static int
tcp_pingpong(size_t size, unsigned int n)
{
	char *buf = calloc(1, size);
	double *lat = malloc(sizeof(double) * n);
	int a, b;
	pid_t pid;

	if (buf == NULL || lat == NULL || tcp_pair(&a, &b) != 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		pin(1);
		close(a);
		while (read_all(b, buf, size) == 0 && write(b, buf, size) == (ssize_t)size)
			;
		_exit(0);
	}
	close(b);
	pin(0);
	for (unsigned int i = 0; i < n; i++) {
		double t0 = ordk_env_wall_s();

		if (write(a, buf, size) != (ssize_t)size || read_all(a, buf, size) != 0) {
			fprintf(stderr, "ordk-baseline: TCP ping-pong broke at %u\n", i);
			return 1;
		}
		lat[i] = (ordk_env_wall_s() - t0) * 1e6 / 2;
	}
	close(a);
	waitpid(pid, NULL, 0);
	qsort(lat, n, sizeof(double), cmp_double);
	printf("tcp_pingpong_%zub_us %.3f\n", size, lat[n / 2]);
	free(lat);
	free(buf);
	return 0;
}

/* ---------------------------------------------------------------- memcpy */

static int
memcpy_bw(size_t size, double secs)
{
	const size_t span = 256u << 20; /* beyond the caches, as messages would be */
	char *src = malloc(span), *dst = malloc(span);
	uint64_t bytes = 0;
	size_t off = 0;
	double t0, t = 1e-9;

	if (src == NULL || dst == NULL || size == 0 || size > span)
		return 1;
	memset(src, 1, span);
	memset(dst, 2, span);
	pin(0);
	t0 = ordk_env_wall_s();
	do {
		for (int i = 0; i < 64; i++) {
			memcpy(dst + off, src + off, size);
			bytes += size;
			off = off + size + size > span ? 0 : off + size;
		}
		t = ordk_env_wall_s() - t0;
	} while (t < secs);
	*(volatile char *)&dst[0] = dst[off]; /* the copies are used: keep them */
	printf("memcpy_gbps %.3f\n", (double)bytes * 8 / t / 1e9);
	free(src);
	free(dst);
	return 0;
}

/* ------------------------------------------------------- raw net_memif */

/*
 * EAL on lcore 0 (the memif server) or 1 (the client), a pool of 8 KiB
 * buffers and port 0 up. @return the pool, or NULL (said why).
 */
static struct rte_mempool *
raw_up(bool server, const char *sock, const char *prog)
{
	static char vdev[200];
	struct ordk_env_eal d = { .prog = prog, .prefix = server ? "ordk-raw-rx" : "ordk-raw-tx",
				  .lcore = server ? 0 : 1, .mem_mb = 256, .vdev = vdev };
	struct rte_mempool *mp;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		d.lcore = 0;
	snprintf(vdev, sizeof(vdev), "net_memif0,role=%s,socket=%s,bsize=8192",
		 server ? "server" : "client", sock);
	if (app_eal_init(0, NULL, false, &d) != 0)
		return NULL;
	mp = rte_pktmbuf_pool_create("raw_pool", 8191, 256, 0, RTE_PKTMBUF_HEADROOM + 8192,
				     SOCKET_ID_ANY);
	/* the client waits for its server's socket; both map the memif pages at link-up */
	if (mp == NULL || ordk_env_port_start_wait(0, mp, !server, ORDK_ENV_PEER_WAIT_S) != 0) {
		fprintf(stderr, P ": net_memif port did not come up\n");
		return NULL;
	}
	return mp;
}

static void
raw_down(void)
{
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	ordk_env_eal_cleanup();
}

static int
raw(bool rx, uint32_t size, double secs, const char *sock, const char *prog)
{
	struct rte_mempool *mp = raw_up(rx, sock, prog);
	struct rte_mbuf *m[32];
	uint64_t frames = 0;
	double t0, last = 0, end;
	int rc = 0;

	if (mp == NULL)
		return 1;
	if (rx) {
		/* count until the sender has been quiet for 300 ms, then stop polling */
		t0 = 0;
		end = ordk_env_wall_s() + secs + 20;
		while (ordk_env_wall_s() < end) {
			uint16_t k = rte_eth_rx_burst(0, 0, m, 32);

			if (k > 0) {
				if (t0 == 0)
					t0 = ordk_env_wall_s();
				frames += k;
				last = ordk_env_wall_s();
				rte_pktmbuf_free_bulk(m, k);
			} else if (t0 != 0 && ordk_env_wall_s() - last > 0.3)
				break;
		}
		if (frames == 0 || last <= t0) {
			fprintf(stderr, P ": no frames received\n");
			rc = 1;
		} else
			printf("raw_memif_%ub_mpps %.3f\nraw_memif_%ub_gbps %.3f\n", size,
			       (double)frames / (last - t0) / 1e6, size,
			       (double)frames * size * 8 / (last - t0) / 1e9);
		usleep(300 * 1000); /* the receiver closes first; see ordk-perf's linger() */
	} else {
		end = ordk_env_wall_s() + secs;
		while (ordk_env_wall_s() < end) {
			if (rte_pktmbuf_alloc_bulk(mp, m, 32) != 0)
				continue;
			for (int i = 0; i < 32; i++) {
				char *p = rte_pktmbuf_append(m[i], (uint16_t)size);

				memset(p, 0, 12); /* no MAC: the receiver only counts */
			}
			uint16_t k = rte_eth_tx_burst(0, 0, m, 32);

			frames += k;
			if (k < 32)
				rte_pktmbuf_free_bulk(m + k, 32u - k);
		}
		printf("raw_memif_tx_frames %" PRIu64 "\n", frames);
		usleep(1500 * 1000); /* stay quiet while the receiver closes */
	}
	raw_down();
	return rc;
}

/*
 * The ping-pong's frame: no MACs (net_memif delivers anything), a local
 * experimental EtherType, the sequence number, and the stop mark.
 */
#define PP_ETHERTYPE 0x88B5u
#define PP_SEQ_OFF   14u
#define PP_STOP_OFF  22u
#define PP_WARMUP    200u /* round trips before the measured ones (caches, branch predictors) */
#define PP_WAIT_S    2.0  /* an echo later than this: the peer is gone */
#define PP_IDLE_S    60.0 /* raw_pong: no frame for this long */

/* Echo every frame until the stop mark; then wait for the client to leave first. */
static int
raw_pong(const char *sock, const char *prog)
{
	struct rte_mempool *mp = raw_up(true, sock, prog);
	struct rte_mbuf *m[32];
	double last;
	bool stop = false;
	uint64_t echoed = 0;

	if (mp == NULL)
		return 1;
	last = ordk_env_now_s();
	while (!stop) {
		uint16_t k = rte_eth_rx_burst(0, 0, m, 32), sent = 0;

		if (k == 0) {
			if (ordk_env_now_s() - last > PP_IDLE_S) {
				fprintf(stderr, P ": raw_pong: no frame for %.0f s\n", PP_IDLE_S);
				break;
			}
			continue;
		}
		last = ordk_env_now_s();
		for (uint16_t i = 0; i < k; i++)
			if (rte_pktmbuf_data_len(m[i]) > PP_STOP_OFF &&
			    rte_pktmbuf_mtod(m[i], uint8_t *)[PP_STOP_OFF] != 0)
				stop = true;
		while (sent < k && ordk_env_now_s() - last < PP_WAIT_S)
			sent += rte_eth_tx_burst(0, 0, m + sent, k - sent);
		if (sent < k)
			rte_pktmbuf_free_bulk(m + sent, k - sent);
		echoed += sent;
	}
	printf("raw_pong_frames %" PRIu64 "\n", echoed);
	ordk_env_linger_server(NULL, 0.3);
	raw_down();
	return stop ? 0 : 1;
}

/* One round trip of frame @p seq; @return 0, or -1 when no echo came in time. */
static int
ping_once(struct rte_mempool *mp, uint32_t size, uint64_t seq, bool stop)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp), *in[4];
	uint64_t deadline = rte_get_tsc_cycles() + (uint64_t)(PP_WAIT_S * (double)rte_get_tsc_hz());
	uint8_t *p;

	if (m == NULL || (p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)size)) == NULL)
		return -1;
	memset(p, 0, 12);
	p[12] = PP_ETHERTYPE >> 8;
	p[13] = PP_ETHERTYPE & 0xFF;
	memcpy(p + PP_SEQ_OFF, &seq, sizeof(seq));
	p[PP_STOP_OFF] = stop;
	while (rte_eth_tx_burst(0, 0, &m, 1) == 0)
		if (rte_get_tsc_cycles() > deadline) {
			rte_pktmbuf_free(m);
			return -1;
		}
	while (rte_get_tsc_cycles() < deadline) {
		uint16_t k = rte_eth_rx_burst(0, 0, in, 4);
		bool mine = false;

		for (uint16_t i = 0; i < k; i++) {
			uint64_t got;

			if (rte_pktmbuf_data_len(in[i]) != size)
				continue;
			memcpy(&got, rte_pktmbuf_mtod_offset(in[i], uint8_t *, PP_SEQ_OFF),
			       sizeof(got));
			mine |= got == seq;
		}
		rte_pktmbuf_free_bulk(in, k);
		if (mine)
			return 0;
	}
	return -1;
}

/*
 * Ping-pong: one frame out, wait for its echo, the next. The samples are the
 * differences between consecutive sends, halved (RTT/2), and the figures
 * perftest's (perf_lat_stats(), as ordk-perf's latency rows).
 */
static int
raw_ping(uint32_t size, uint64_t n, const char *sock, const char *hist, const char *prog)
{
	struct rte_mempool *mp = raw_up(false, sock, prog);
	uint64_t *t = malloc((n + 1) * sizeof(*t)), hz = rte_get_tsc_hz();
	struct perf_lat l;
	FILE *f = NULL;
	int rc = 1;

	if (mp == NULL || t == NULL)
		goto out;
	for (uint64_t i = 0; i < PP_WARMUP + n + 1; i++) {
		if (i >= PP_WARMUP)
			t[i - PP_WARMUP] = rte_get_tsc_cycles();
		if (ping_once(mp, size, i, false) != 0) {
			fprintf(stderr, P ": raw_ping: no echo of frame %" PRIu64 " within %.0f s\n",
				i, PP_WAIT_S);
			goto out;
		}
	}
	for (uint64_t i = 0; i < n; i++)
		t[i] = t[i + 1] - t[i];
	if (hist != NULL) {
		f = fopen(hist, "w");
		if (f == NULL || fprintf(f, PERF_HIST_HEAD "\n") < 0 ||
		    perf_hist_write(f, "raw_pingpong", size, t, n, (double)hz / 1e9 * 2) != 0 ||
		    fclose(f) != 0) {
			fprintf(stderr, P ": --histogram=%s: cannot write it\n", hist);
			goto out;
		}
	}
	if (perf_lat_stats(t, n, (double)hz / 1e6 * 2, &l) != 0)
		goto out;
	printf("raw_pingpong_%ub_us %.3f\nraw_pingpong_%ub_p99_us %.3f\n"
	       "raw_pingpong_%ub_p999_us %.3f\n", size, l.t_typical, size, l.p99, size, l.p999);
	rc = 0;
out:
	/* the server echoes the stop mark, then waits for this side to leave first */
	if (mp != NULL && ping_once(mp, size, UINT64_MAX, true) != 0)
		fprintf(stderr, P ": raw_ping: raw_pong did not confirm the stop\n");
	free(t);
	if (mp != NULL)
		raw_down();
	return rc;
}

int
main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	uint64_t size = 65536, n = 20000;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(cmd, "tcp_bulk") == 0)
		return tcp_bulk(argc > 2 ? atof(argv[2]) : 2);
	/* sizes and counts through the shared parser: atoi() took "4294967356" as 60 */
	if (strcmp(cmd, "tcp_pingpong") == 0 && argc > 2) {
		if (app_opt_u64(P, "tcp_pingpong <bytes>", argv[2], true, 1, 16u << 20, &size) ||
		    (argc > 3 &&
		     app_opt_u64(P, "tcp_pingpong [n]", argv[3], false, 1, 100000000, &n)))
			return 1;
		return tcp_pingpong((size_t)size, (unsigned int)n);
	}
	if (strcmp(cmd, "memcpy") == 0) {
		if (argc > 2 &&
		    app_opt_u64(P, "memcpy [bytes]", argv[2], true, 1, 256u << 20, &size) != 0)
			return 1;
		return memcpy_bw((size_t)size, argc > 3 ? atof(argv[3]) : 1);
	}
	if (strcmp(cmd, "raw_pong") == 0)
		return raw_pong(argc > 2 ? argv[2] : "/tmp/ordk-baseline.sock", argv[0]);
	if (strcmp(cmd, "raw_ping") == 0 && argc > 2) {
		const char *hist = NULL;

		if (strncmp(argv[argc - 1], "--histogram=", 12) == 0)
			hist = argv[--argc] + 12;
		n = 20000;
		if (app_opt_u64(P, "raw_ping <bytes>", argv[2], true, 60, 8000, &size) ||
		    (argc > 3 && app_opt_u64(P, "raw_ping [n]", argv[3], false, 3, 100000000, &n)))
			return 1;
		return raw_ping((uint32_t)size, n, argc > 4 ? argv[4] : "/tmp/ordk-baseline.sock",
				hist, argv[0]);
	}
	if ((strcmp(cmd, "raw_rx") == 0 || strcmp(cmd, "raw_tx") == 0) && argc > 2) {
		if (app_opt_u64(P, "raw <bytes>", argv[2], true, 60, 8000, &size) != 0)
			return 1;
		return raw(cmd[4] == 'r', (uint32_t)size, argc > 3 ? atof(argv[3]) : 2,
			   argc > 4 ? argv[4] : "/tmp/ordk-baseline.sock", argv[0]);
	}
	fprintf(stderr,
		"usage: ordk-baseline tcp_bulk [s] | tcp_pingpong <bytes> [n] | memcpy [bytes] [s]\n"
		"       | raw_rx <bytes> [s] [socket] | raw_tx <bytes> [s] [socket]\n"
		"       | raw_pong [socket] | raw_ping <bytes> [n] [socket] [--histogram=FILE]\n");
	return 1;
}
