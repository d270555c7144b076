/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Two processes, one model each, joined by net_memif: a WRITE from one lands
 * byte-exact in the other's memory, its payload sent without a copy in the
 * model (zcopy); and frames the model still holds over an MR's memory when the
 * MR goes away are dropped, never read from freed pages. The child is the memif
 * server; its exit status is its verdict. Every loop is time-bounded.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rte_ethdev.h>

#include "sim_host.h"
#include "sim_internal.h"

#define LEN (256u << 10)
#define QPN_S 0x000201u
#define QPN_C 0x000101u
#define KEY_S 0x00002201u
#define KEY_C 0x00001101u
#define MAC_S 0x020000000002ull
#define MAC_C 0x020000000001ull
#define IP_S 0x0A000002u
#define IP_C 0x0A000001u


static uint8_t
pattern(uint32_t i)
{
	return (uint8_t)(i * 13 + 5);
}

static struct sim_host h;

/* One side's model on port 0; its MR over @p buf, or over fresh memory when *buf is NULL. */
static void
side(const char *vdev, uint64_t mac, uint32_t ip, uint8_t **buf, uint32_t key,
     const struct bluesim_fault_cfg *faults)
{
	struct bluesim_config cfg;
	struct rte_mempool *mp;

	test_eal_init(vdev);
	mp = test_pool("memif_pool", 4095);
	test_port_start(0, mp);
	bluesim_config_defaults(&cfg);
	cfg.port_id = 0;
	cfg.clock_ns = NULL;
	cfg.zcopy = true; /* off by default: this is what it does when on */
	if (faults != NULL)
		cfg.fault = *faults;
	sim_host_init(&h, &cfg);
	sim_host_start(&h, mac, ip);
	if (*buf == NULL)
		*buf = test_aligned(1 << 21, LEN);
	memset(*buf, 0, LEN);
	cr_assert(sim_host_reg_mr(&h, key, *buf, LEN, BLUE_ACC_ALL, 0));
}

static int
server(const char *vdev, int wfd)
{
	uint8_t *buf = NULL;
	uint64_t va;
	struct blue_meta_report r;
	double end = test_now_s() + 20;
	int last = 0;

	side(vdev, MAC_S, IP_S, &buf, KEY_S, NULL);
	cr_assert(sim_host_qp(&h, QPN_S, QPN_C, IP_C, MAC_C, BLUE_PMTU_4096, BLUE_ACC_ALL));
	va = (uint64_t)(uintptr_t)buf; /* the client WRITEs here: tell it, as lib/cm will */
	if (write(wfd, &va, sizeof(va)) != sizeof(va))
		return 4;
	close(wfd);
	while (test_now_s() < end && last == 0) {
		bluesim_poll(h.sim, 64);
		while (sim_host_meta(&h, &r) > 0)
			if (r.kind == BLUE_META_HEADER_WRITE && r.opcode == BLUE_OP_WRITE_LAST)
				last = 1;
	}
	if (!last)
		return 2;
	for (uint32_t i = 0; i < LEN; i++)
		if (buf[i] != pattern(i))
			return 3;
	return 0;
}

/* The server's child process: @return its pid; *peer_va: its buffer. */
static pid_t
start_server(char *sock, size_t socklen, char *vc, size_t vclen, uint64_t *peer_va)
{
	char vs[160];
	pid_t child;
	int pfd[2];

	snprintf(sock, socklen, "/tmp/ordk-memif-%d.sock", (int)getpid());
	unlink(sock);
	snprintf(vs, sizeof(vs), "--vdev=net_memif0,role=server,socket=%s,bsize=8192,rsize=10", sock);
	snprintf(vc, vclen, "--vdev=net_memif0,role=client,socket=%s,bsize=8192,rsize=10", sock);
	cr_assert_eq(pipe(pfd), 0);
	child = fork();
	if (child == 0)
		test_eal_lcore = 1; /* one core per process */
	cr_assert_geq(child, 0);
	if (child == 0) {
		close(pfd[0]);
		_exit(server(vs, pfd[1]));
	}
	close(pfd[1]);
	/* the server's buffer address arrives once its socket and MR exist */
	cr_assert_eq(read(pfd[0], peer_va, sizeof(*peer_va)), (ssize_t)sizeof(*peer_va),
		     "server did not start");
	close(pfd[0]);
	return child;
}

/* The client's model with its MR over @p buf (NULL: fresh memory), QP, link up, a WRITE. */
static uint8_t *
client_write(const char *vc, uint8_t *buf, uint64_t peer_va,
	     const struct bluesim_fault_cfg *faults)
{
	struct rte_eth_link link;
	double end;

	side(vc, MAC_C, IP_C, &buf, KEY_C, faults);
	for (uint32_t i = 0; i < LEN; i++)
		buf[i] = pattern(i);
	cr_assert(sim_host_qp(&h, QPN_C, QPN_S, IP_S, MAC_S, BLUE_PMTU_4096, BLUE_ACC_ALL));
	end = test_now_s() + 15;
	do {
		rte_eth_link_get_nowait(0, &link);
		usleep(1000);
	} while (!link.link_status && test_now_s() < end);
	cr_assert(link.link_status, "memif link never came up");

	{
		struct blue_send_item it = {
			.opcode = BLUE_WR_RDMA_WRITE, .valid = 1, .msn = 1, .total_len = LEN,
			.rkey = KEY_S, .dqp_ip = IP_S, .raddr = peer_va,
			.qp_type = BLUE_QPT_RC, .dqpn = QPN_S, .flags = BLUE_SEND_SIGNALED,
			.pmtu = BLUE_PMTU_4096, .is_first = 1, .is_last = 1, .sqpn = QPN_C,
			.dst_mac = MAC_S, .lkey = KEY_C, .len = LEN,
			.laddr = (uint64_t)(uintptr_t)buf,
		};

		sim_host_send(&h, &it);
	}
	return buf;
}

Test(sim_memif, two_processes_write_byte_exact, .timeout = 60)
{
	char sock[64], vc[160];
	pid_t child;
	int status = -1;
	uint64_t peer_va = 0;
	double end;

	child = start_server(sock, sizeof(sock), vc, sizeof(vc), &peer_va);
	(void)client_write(vc, NULL, peer_va, NULL);
	/*
	 * Poll until every packet is on the wire, then wait for the server
	 * without polling: DPDK 22.11's net_memif faults in rx_burst once the
	 * peer process is gone.
	 */
	end = test_now_s() + 20;
	while (test_now_s() < end && (h.sim->st.tx_packets < LEN / 4096 || h.sim->txq_len > 0))
		bluesim_poll(h.sim, 64);
	status = test_reap(child, end > test_now_s() ? end - test_now_s() : 0);
	unlink(sock);
	cr_assert(WIFEXITED(status), "server did not exit");
	cr_assert_eq(WEXITSTATUS(status), 0, "server verdict %d (2: no LAST, 3: bytes differ)",
		     WEXITSTATUS(status));
	cr_assert_geq(bluesim_xstat(h.sim, "tx_packets"), LEN / 4096);
	/* net_memif copies what it sends: every payload went to it as MR memory */
	cr_assert_eq(bluesim_xstat(h.sim, "tx_zcopy"), LEN / 4096);
}

/*
 * The delay fault holds every frame in the model, over the MR's memory (zcopy);
 * the MR goes (its memory unmapped from the model, as ibv_dereg_mr does), then
 * its pages are freed: the held frames are dropped and counted, and when their
 * delay is up nothing reads the freed pages (which would be SIGSEGV here).
 */
Test(sim_memif, zcopy_frames_held_over_a_deregistered_mr_are_dropped, .timeout = 60)
{
	struct bluesim_fault_cfg f = { .reorder_depth = 3, .delay_us = 300000 };
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };
	struct blue_cmd q = { .hdr = { .opcode = BLUE_CMD_MANAGE_QP, .valid = 1 } };
	const uint32_t npkt = LEN / 4096;
	char sock[64], vc[160];
	uint8_t *map, *buf;
	uint64_t peer_va = 0;
	pid_t child;
	double end;

	f.rate[BLUESIM_DIR_TX][BLUESIM_FAULT_DELAY] = 1.0;
	/* the MR on pages of its own, to be unmapped: 2 MiB aligned inside 4 MiB */
	map = mmap(NULL, 4u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(map, MAP_FAILED);
	buf = (uint8_t *)RTE_ALIGN_CEIL((uintptr_t)map, (uintptr_t)2 << 20);
	child = start_server(sock, sizeof(sock), vc, sizeof(vc), &peer_va);
	buf = client_write(vc, buf, peer_va, &f);
	end = test_now_s() + 10;
	while (test_now_s() < end && h.sim->st.tx_packets < npkt)
		bluesim_poll(h.sim, 64);
	cr_assert_eq(h.sim->st.tx_zcopy, npkt, "every payload attached, none copied");
	cr_assert_eq(h.sim->zc_inflight, npkt, "held by the delay fault");

	/* QP destroyed, MR deregistered, memory unmapped from the device, then freed */
	q.qp = (struct blue_cmd_manage_qp){ .is_valid = 0, .qpn = QPN_C };
	cr_assert(sim_host_cmd(&h, &q).is_success);
	c.mr = (struct blue_cmd_update_mr_table){ .mr_key = KEY_C, .mr_length = 0 };
	cr_assert(sim_host_cmd(&h, &c).is_success);
	cr_assert_eq(bluesim_dma_unmap(h.sim, (uint64_t)(uintptr_t)buf, LEN), 0);
	cr_assert_eq(h.sim->zc_inflight, 0, "no frame over the MR's memory is left");
	cr_assert_eq(bluesim_xstat(h.sim, "tx_zcopy_recalled"), npkt);
	cr_assert_eq(munmap(map, 4u << 20), 0);
	/* past the delay: nothing is left to send, nothing reads the freed pages */
	end = test_now_s() + 0.6;
	while (test_now_s() < end)
		bluesim_poll(h.sim, 64);
	cr_assert_eq(h.sim->fault[BLUESIM_DIR_TX].nheld, 0);
	kill(child, SIGTERM);
	(void)test_reap(child, 10);
	unlink(sock);
}
