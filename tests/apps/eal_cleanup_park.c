/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The end of a process with a net_memif server port, made deterministic:
 * EAL's interrupt thread is kept busy (a callback of ours sleeps 300 ms)
 * while the cleanup runs, so it walks its sources only after
 * rte_eal_memory_detach() unmapped the handles of memif's (still registered)
 * listener, as a loaded machine made it happen by chance.
 *   eal_cleanup_park park   ordk_env_eal_cleanup(): the thread is parked first; exit 0
 *   eal_cleanup_park bare   rte_eal_cleanup(): SIGSEGV (DPDK 22.11), the hazard
 *                           ordk_env_eal_cleanup() is for; its test expects exactly that
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_eal.h>
#include <rte_ethdev.h>

#include "app_common.h"

static int alarm_ran;

static void
alarm_cb(void *arg)
{
	(void)arg;
	__atomic_store_n(&alarm_ran, 1, __ATOMIC_RELEASE);
}

static void
slow_cb(void *arg)
{
	uint64_t v;

	if (read(*(int *)arg, &v, sizeof(v)) == sizeof(v))
		usleep(300 * 1000); /* the interrupt thread is busy through the cleanup */
}

int
main(int argc, char **argv)
{
	static int efd;
	char sock[64], vdev[128], prefix[64];
	struct ordk_env_eal d = { .prog = argv[0], .prefix = prefix, .mem_mb = 64 };
	struct rte_eth_conf conf = { 0 };
	struct rte_mempool *mp;
	bool park = argc > 1 && strcmp(argv[1], "park") == 0;

	if (argc < 2 || (!park && strcmp(argv[1], "bare") != 0)) {
		fprintf(stderr, "usage: eal_cleanup_park park|bare\n");
		return 2;
	}
	snprintf(sock, sizeof(sock), "/tmp/ordk-park-%d.sock", (int)getpid());
	snprintf(vdev, sizeof(vdev), "net_memif0,role=server,socket=%s", sock);
	snprintf(prefix, sizeof(prefix), "ordk-park");
	d.vdev = vdev;
	if (app_eal_init(0, argv, false, &d) != 0)
		return 2;
	/* the memif server's listener registers with the interrupt thread */
	mp = rte_pktmbuf_pool_create("park_pool", 511, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (mp == NULL || rte_eth_dev_configure(0, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(0, 0, 64, 0, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(0, 0, 64, 0, NULL) != 0 || rte_eth_dev_start(0) != 0) {
		fprintf(stderr, "eal_cleanup_park: cannot start the memif server port\n");
		return 2;
	}
	/* an EAL alarm, as ordk_env_linger() sets: rte_eal_alarm_cleanup() will unregister it */
	if (rte_eal_alarm_set(1, alarm_cb, NULL) != 0)
		return 2;
	while (!__atomic_load_n(&alarm_ran, __ATOMIC_ACQUIRE))
		usleep(1000);
	ordk_env_close_ports(); /* DPDK 22.11's memif leaves its listener registered */
	/* keep the interrupt thread busy for 300 ms from now */
	if (ordk_env_intr_fire(slow_cb, &efd, &efd) != 0)
		return 2;
	usleep(50 * 1000); /* it is inside slow_cb now (it has 250 ms left) */
	if ((park ? ordk_env_eal_cleanup() : rte_eal_cleanup()) != 0)
		return 2;
	usleep(600 * 1000); /* the thread, if free, walks its sources now */
	printf("eal_cleanup_park %s: the process ends cleanly\n", argv[1]);
	return 0;
}
