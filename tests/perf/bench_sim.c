/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bluesim throughput (suite 'perf', never in the default tests): frames/s and
 * Gb/s of the model's TX and RX paths at 64 B and 4 KiB payloads, two models
 * over net_ring (one process, one core) and over net_memif (two processes),
 * with one core's memcpy bandwidth measured in the same run as the reference.
 * usage: bench_sim [seconds per case, default 1.5]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "sim_host.h"

#define BUF (8u << 20)

static double secs = 1.5;


struct side {
	struct sim_host h;
	uint8_t *buf;
	uint64_t mac;
	uint32_t ip, qpn, key, psn;
	uint64_t tsc; /* cycles spent in bluesim_poll */
};

static void
side_init(struct side *s, uint16_t port, uint64_t mac, uint32_t ip, uint32_t qpn, uint32_t key)
{
	struct bluesim_config cfg;

	bluesim_config_defaults(&cfg);
	cfg.port_id = port;
	cfg.clock_ns = NULL;
	memset(s, 0, sizeof(*s));
	sim_host_init(&s->h, &cfg);
	sim_host_start(&s->h, mac, ip);
	s->mac = mac;
	s->ip = ip;
	s->qpn = qpn;
	s->key = key;
	s->buf = test_aligned(1 << 21, BUF);
	memset(s->buf, 1, BUF);
	sim_host_reg_mr(&s->h, key, s->buf, BUF, BLUE_ACC_ALL, 0);
}

static void
side_qp(struct side *s, uint32_t peer_qpn, uint32_t peer_ip, uint64_t peer_mac)
{
	sim_host_qp(&s->h, s->qpn, peer_qpn, peer_ip, peer_mac, BLUE_PMTU_4096, BLUE_ACC_ALL);
}

/* Keep the Send ring topped up with WRITEs of @p len bytes (items of up to 64 KiB). */
static void
feed(struct side *s, uint32_t peer_qpn, uint32_t peer_ip, uint64_t peer_mac, uint32_t peer_key,
     uint64_t peer_buf, uint32_t len)
{
	uint32_t tail = sim_host_reg(&s->h, BLUE_RING_REG(BLUE_SEND_RING_BASE(0), BLUE_CSR_REG_TAIL));
	uint32_t free_items = blue_ring_free(s->h.head[BLUE_RING_SEND0], tail) / 2;

	for (uint32_t i = 0; i < free_items && i < 64; i++) {
		uint32_t off = (s->psn * 64u) % (BUF - 65536);
		struct blue_send_item it = {
			.opcode = BLUE_WR_RDMA_WRITE, .valid = 1, .msn = 1, .total_len = len,
			.rkey = peer_key, .dqp_ip = peer_ip, .raddr = peer_buf + off,
			.psn = s->psn & BLUE_PSN_MASK, .qp_type = BLUE_QPT_RC, .dqpn = peer_qpn,
			.pmtu = BLUE_PMTU_4096, .is_first = 1, .is_last = 1, .sqpn = s->qpn,
			.dst_mac = peer_mac, .lkey = s->key, .len = len,
			.laddr = (uint64_t)(uintptr_t)s->buf + off,
		};

		sim_host_send(&s->h, &it);
		s->psn += (len + 4095) / 4096;
	}
}

static void
drain_meta(struct side *s)
{
	struct blue_meta_report r;

	for (int i = 0; i < 256 && sim_host_meta(&s->h, &r) > 0; i++)
		;
}

static void
poll_timed(struct side *s)
{
	uint64_t t0 = rte_rdtsc();

	bluesim_poll(s->h.sim, 64);
	s->tsc += rte_rdtsc() - t0;
}

static double
memcpy_gbs(void)
{
	uint8_t *a = aligned_alloc(4096, 64 << 20), *b = aligned_alloc(4096, 64 << 20);
	double t0, t;
	uint64_t bytes = 0;

	memset(a, 1, 64 << 20);
	memset(b, 2, 64 << 20);
	t0 = test_now_s();
	do {
		for (size_t off = 0; off < (64u << 20); off += 4096)
			memcpy(b + off, a + ((off * 7) % (64u << 20)), 4096);
		bytes += 64u << 20;
		t = test_now_s() - t0;
	} while (t < secs);
	free(a);
	free(b);
	return (double)bytes / t / 1e9;
}

static double
row(const char *wire, uint32_t payload, uint64_t frames, double t, uint64_t tx_tsc, uint64_t rx_tsc,
    uint64_t tx_frames)
{
	double hz = (double)rte_get_tsc_hz();

	printf("%-10s %7u %12.0f %10.2f %14.0f %14.0f\n", wire, payload, frames / t,
	       frames * payload * 8.0 / t / 1e9,
	       tx_frames ? tx_tsc / hz * 1e9 / tx_frames : 0.0,
	       frames ? rx_tsc / hz * 1e9 / frames : 0.0);
	return frames * payload * 8.0 / t / 1e9;
}

static double
bench_ring(uint32_t payload)
{
	static int n;
	struct side A, B;
	uint16_t p0, p1;
	char name[32];
	struct rte_mempool *mp;
	double t0, t;

	snprintf(name, sizeof(name), "bp%d", n);
	mp = test_pool(name, 8191);
	snprintf(name, sizeof(name), "bw%d", n++);
	test_ring_pair(name, false, &p0, &p1, NULL);
	test_port_start(p0, mp);
	test_port_start(p1, mp);
	side_init(&A, p0, 0x020000000001ull, 0x0A000001, 0x101, 0x1101);
	side_init(&B, p1, 0x020000000002ull, 0x0A000002, 0x201, 0x2201);
	side_qp(&A, B.qpn, B.ip, B.mac);
	side_qp(&B, A.qpn, A.ip, A.mac);
	t0 = test_now_s();
	do {
		feed(&A, B.qpn, B.ip, B.mac, B.key, (uint64_t)(uintptr_t)B.buf,
		     payload == 64 ? 64 : 65536);
		poll_timed(&A);
		poll_timed(&B);
		drain_meta(&A);
		drain_meta(&B);
		t = test_now_s() - t0;
	} while (t < secs);
	t = row("net_ring", payload, bluesim_xstat(B.h.sim, "rx_rdma"), t, A.tsc, B.tsc,
		bluesim_xstat(A.h.sim, "tx_packets"));
	sim_host_fini(&A.h);
	sim_host_fini(&B.h);
	return t;
}

/* Child: the receiving model on a memif server; prints its frame count on a pipe. */
static void
memif_pair(uint32_t payload)
{
	char sock[64], vs[160], vc[160];
	int pfd[2], status;
	pid_t child;

	snprintf(sock, sizeof(sock), "/tmp/ordk-bench-%d-%u.sock", (int)getpid(), payload);
	unlink(sock);
	snprintf(vs, sizeof(vs), "--vdev=net_memif0,role=server,socket=%s,bsize=8192,rsize=11", sock);
	snprintf(vc, sizeof(vc), "--vdev=net_memif0,role=client,socket=%s,bsize=8192,rsize=11", sock);
	if (pipe(pfd) != 0)
		return;
	fflush(stdout);
	child = fork();
	if (child == 0)
		test_eal_lcore = 1; /* one core per process */
	if (child == 0) {
		struct side B;
		struct rte_mempool *mp;
		uint64_t info[3];
		double t0, end;

		test_eal_init(vs);
		mp = test_pool("mb", 8191);
		test_port_start(0, mp);
		side_init(&B, 0, 0x020000000002ull, 0x0A000002, 0x201, 0x2201);
		side_qp(&B, 0x101, 0x0A000001, 0x020000000001ull);
		info[0] = (uint64_t)(uintptr_t)B.buf;
		if (write(pfd[1], info, 8) != 8)
			_exit(1);
		/* receive until the client has been quiet for 300 ms, at most 4 x secs */
		end = test_now_s() + 4 * secs + 10;
		t0 = 0;
		uint64_t last = 0;
		double quiet = test_now_s();
		while (test_now_s() < end) {
			uint64_t got;

			poll_timed(&B);
			drain_meta(&B);
			got = bluesim_xstat(B.h.sim, "rx_rdma");
			if (got != last) {
				if (last == 0)
					t0 = test_now_s();
				last = got;
				quiet = test_now_s();
			} else if (last > 0 && test_now_s() - quiet > 0.3) {
				break;
			}
		}
		info[0] = last;
		info[1] = B.tsc;
		double dur = quiet - t0;
		memcpy(&info[2], &dur, 8);
		if (write(pfd[1], info, sizeof(info)) != sizeof(info))
			_exit(1);
		_exit(0);
	}
	/* parent: the sender */
	{
		struct side A;
		struct rte_mempool *mp;
		struct rte_eth_link link;
		uint64_t peer_buf, info[3];
		double t0, dur;

		if (read(pfd[0], &peer_buf, 8) != 8) {
			printf("net_memif  server failed to start\n");
			waitpid(child, &status, 0);
			return;
		}
		test_eal_init(vc);
		mp = test_pool("ma", 8191);
		test_port_start(0, mp);
		side_init(&A, 0, 0x020000000001ull, 0x0A000001, 0x101, 0x1101);
		side_qp(&A, 0x201, 0x0A000002, 0x020000000002ull);
		t0 = test_now_s();
		do {
			rte_eth_link_get_nowait(0, &link);
		} while (!link.link_status && test_now_s() - t0 < 10);
		t0 = test_now_s();
		while (test_now_s() - t0 < secs) {
			feed(&A, 0x201, 0x0A000002, 0x020000000002ull, 0x2201, peer_buf,
			     payload == 64 ? 64 : 65536);
			poll_timed(&A);
			drain_meta(&A);
		}
		if (read(pfd[0], info, sizeof(info)) == sizeof(info)) {
			memcpy(&dur, &info[2], 8);
			row("net_memif", payload, info[0], dur > 0 ? dur : secs, A.tsc, info[1],
			    bluesim_xstat(A.h.sim, "tx_packets"));
		}
		waitpid(child, &status, 0);
		unlink(sock);
		sim_host_fini(&A.h);
	}
}

int
main(int argc, char **argv)
{
	double gbs, ring4k;

	if (argc > 1)
		secs = atof(argv[1]);
	if (argc > 2 && strcmp(argv[2], "memif") == 0) {
		/* one memif case per process (each side needs its own EAL) */
		memif_pair((uint32_t)atoi(argv[3]));
		return 0;
	}
	test_eal_init(NULL);
	gbs = memcpy_gbs();
	printf("bluesim throughput, %.1f s per case, one core per model process\n", secs);
	printf("reference: memcpy of 4 KiB blocks on one core: %.2f GB/s (%.1f Gb/s)\n", gbs,
	       gbs * 8);
	printf("%-10s %7s %12s %10s %14s %14s\n", "wire", "payload", "frames/s", "Gb/s",
	       "TX ns/frame", "RX ns/frame");
	bench_ring(64);
	ring4k = bench_ring(4096);
	fflush(stdout);
	for (int i = 0; i < 2; i++) {
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "%s %g memif %u", argv[0], secs, i ? 4096u : 64u);
		if (system(cmd) != 0)
			printf("net_memif case failed\n");
	}
	/* a 4 KiB frame is copied twice in one process (MR -> mbuf, mbuf -> MR) */
	printf("ratio net_ring_4k/memcpy: %.2f\n", ring4k / (gbs * 8));
	return 0;
}
