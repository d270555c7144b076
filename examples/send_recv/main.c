/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * send_recv: two processes, SEND/RECV ping-pong over bluesim on any DPDK port.
 * The server echoes every message; the client measures round trips.
 *
 *   server: send_recv [EAL args --] [-s size] [-n iters] [-p port] [-d devargs]
 *   client: send_recv [EAL args --] [-s size] [-n iters] [-p port] [-d devargs] <server host>
 *
 * Without EAL arguments both sides use net_memif over /tmp/ordk-send-recv.sock
 * (server on lcore 0, client on lcore 1). Attributes go over TCP (lib/cm).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "ordk_cm.h"
#include "ordk_verbs.h"

#define DEPTH 16u

static int
eal_init(int argc, char **argv, bool client)
{
	char prefix[64], vdev[160];
	char *def[] = { argv[0], "--no-pci", "--no-huge", "-m", "512", "--no-shconf",
			"--no-telemetry", "--log-level=4", "-l", client ? "1" : "0", prefix, vdev,
			NULL };

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return rte_eal_init(i, argv) < 0 ? -1 : i + 1;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ordk-sr-%d", (int)getpid());
	snprintf(vdev, sizeof(vdev),
		 "--vdev=net_memif0,role=%s,socket=/tmp/ordk-send-recv.sock,bsize=8192",
		 client ? "client" : "server");
	return rte_eal_init((int)(sizeof(def) / sizeof(def[0])) - 1, def) < 0 ? -1 : 1;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	uint32_t size = 64, iters = 10000;
	uint16_t port = ORDK_CM_DEFAULT_PORT;
	const char *devargs = "bluesim,port=0", *host = NULL;
	struct ordk_qp_init_attr ia = { .max_send_wr = DEPTH * 2, .max_recv_wr = DEPTH * 2 };
	struct ordk_dev_attr at;
	struct ordk_cm_info me, peer;
	struct ordk_dev *dev;
	struct ordk_pd *pd;
	struct ordk_cq *cq;
	struct ordk_qp *qp;
	struct ordk_mr *mr;
	uint8_t *buf;
	uint64_t *rtt, hz;
	int first, c, rc;
	bool client = false;

	setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines appear even when piped */
	/* the role decides the default EAL arguments: look for a host argument first */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			client = false;
	client = argc > 1 && argv[argc - 1][0] != '-' && strchr(argv[argc - 1], '=') == NULL &&
		 (argc < 3 || argv[argc - 2][0] != '-' || strlen(argv[argc - 2]) != 2);
	first = eal_init(argc, argv, client);
	if (first < 0)
		rte_exit(EXIT_FAILURE, "EAL initialisation failed\n");
	argc -= first - 1;
	argv += first - 1;
	while ((c = getopt(argc, argv, "s:n:p:d:h")) != -1) {
		switch (c) {
		case 's':
			size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			iters = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'p':
			port = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'd':
			devargs = optarg;
			break;
		default:
			printf("usage: send_recv [EAL args --] [-s size] [-n iters] [-p port] "
			       "[-d devargs] [server host]\n");
			return c == 'h' ? 0 : 1;
		}
	}
	if (size == 0 || size > (1u << 20) || iters == 0 || iters > 100000000)
		rte_exit(EXIT_FAILURE, "-s 1..1048576, -n 1..100000000\n");
	host = optind < argc ? argv[optind] : NULL;
	client = host != NULL;

	struct rte_mempool *mp = rte_pktmbuf_pool_create("sr_pool", 8191, 256, 0,
							 RTE_PKTMBUF_HEADROOM + 4352, SOCKET_ID_ANY);
	struct rte_eth_conf conf = { 0 };

	if (mp == NULL || rte_eth_dev_count_avail() == 0 || rte_eth_dev_configure(0, 1, 1, &conf) ||
	    rte_eth_rx_queue_setup(0, 0, 1024, SOCKET_ID_ANY, NULL, mp) ||
	    rte_eth_tx_queue_setup(0, 0, 1024, SOCKET_ID_ANY, NULL) || rte_eth_dev_start(0))
		rte_exit(EXIT_FAILURE, "cannot start ethdev port 0 (give one with --vdev)\n");

	char args[256];
	struct rte_eth_link link;
	uint64_t until = rte_get_tsc_cycles() + 10 * rte_get_tsc_hz();

	/*
	 * Frames sent before the link is up may be lost: wait for it (bounded),
	 * sleeping so EAL's interrupt thread, which connects net_memif, gets
	 * the CPU. A memif client connects once, at start: restart it while down.
	 */
	for (uint64_t kick = rte_get_tsc_cycles();; usleep(1000)) {
		rte_eth_link_get_nowait(0, &link);
		if (link.link_status || rte_get_tsc_cycles() > until)
			break;
		if (client && rte_get_tsc_cycles() - kick > rte_get_tsc_hz() / 4) {
			rte_eth_dev_stop(0);
			rte_eth_dev_start(0);
			kick = rte_get_tsc_cycles();
		}
	}
	if (!link.link_status)
		rte_exit(EXIT_FAILURE, "port 0: link down after 10 s (is the peer running?)\n");

	snprintf(args, sizeof(args), "%s,mac=02:00:00:00:00:%02x,ip=10.0.0.%d", devargs,
		 client ? 1 : 2, client ? 1 : 2);
	dev = ordk_dev_open(args);
	if (dev == NULL)
		rte_exit(EXIT_FAILURE, "ordk_dev_open(%s): %s\n", args, rte_strerror(rte_errno));
	ordk_dev_query(dev, &at);
	pd = ordk_pd_alloc(dev);
	cq = ordk_cq_create(dev, 1024);
	ia.send_cq = ia.recv_cq = cq;
	qp = ordk_qp_create(pd, &ia);
	buf = rte_zmalloc("sr_buf", 2 * DEPTH * (size_t)size + 4096, 4096);
	mr = buf ? ordk_mr_reg(pd, buf, 2 * DEPTH * (size_t)size + 4096, ORDK_ACCESS_LOCAL_WRITE) : NULL;
	rtt = calloc(iters, sizeof(*rtt));
	if (!pd || !cq || !qp || !mr || !rtt)
		rte_exit(EXIT_FAILURE, "cannot create objects: %s\n", rte_strerror(rte_errno));
	me = (struct ordk_cm_info){ .qpn = ordk_qp_num(qp), .ip = at.ip, .mac = at.mac };
	printf("%s: %s, QPN 0x%06x, %u x %u B\n", at.name, client ? "client" : "server", me.qpn,
	       iters, size);
	rc = ordk_cm_exchange(host, port, &me, &peer, 30000);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "exchange with the peer: %s\n", strerror(-rc));
	if (ordk_cm_connect_qp(qp, &me, &peer, ORDK_MTU_4096, ORDK_ACCESS_LOCAL_WRITE) != 0)
		rte_exit(EXIT_FAILURE, "cannot connect the QP\n");
	printf("connected to QPN 0x%06x at %u.%u.%u.%u\n", peer.qpn, peer.ip >> 24,
	       (peer.ip >> 16) & 0xFF, (peer.ip >> 8) & 0xFF, peer.ip & 0xFF);

	/* keep DEPTH RECVs posted, one buffer each */
	for (uint32_t i = 0; i < DEPTH; i++) {
		struct ordk_recv_wr r = { .wr_id = i, .num_sge = 1 };

		r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf + (uint64_t)i * size, size,
					   mr->lkey };
		ordk_qp_post_recv(qp, &r, 1);
	}
	hz = rte_get_tsc_hz();
	uint64_t deadline = rte_get_tsc_cycles() + (uint64_t)(20 + iters / 10000) * hz;
	uint32_t done = 0;

	while (done < iters && rte_get_tsc_cycles() < deadline) {
		struct ordk_send_wr s = { .opcode = ORDK_WR_SEND, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		struct ordk_wc wc;
		uint64_t t0 = rte_get_tsc_cycles();
		bool got = false, sent = !client;

		s.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf + (uint64_t)DEPTH * size, size,
					   mr->lkey };
		if (client)
			ordk_qp_post_send(qp, &s, 1);
		while ((!got || !sent) && rte_get_tsc_cycles() < deadline) {
			if (ordk_cq_poll(cq, &wc, 1) != 1)
				continue;
			if (wc.status != ORDK_WC_SUCCESS)
				rte_exit(EXIT_FAILURE, "completion error: %s\n",
					 ordk_wc_status_str(wc.status));
			if (wc.opcode == ORDK_WC_SEND) {
				sent = true;
				continue;
			}
			got = true;
			{
				/* repost the buffer; the server echoes */
				struct ordk_recv_wr r = { .wr_id = wc.wr_id, .num_sge = 1 };

				r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf + wc.wr_id * size,
							   size, mr->lkey };
				ordk_qp_post_recv(qp, &r, 1);
			}
			if (!client) {
				ordk_qp_post_send(qp, &s, 1);
				sent = false;
			}
		}
		if (!got || !sent)
			break; /* the deadline: reported below */
		rtt[done++] = rte_get_tsc_cycles() - t0;
	}
	/* let the last ACKs through */
	for (uint64_t end = rte_get_tsc_cycles() + hz / 5; rte_get_tsc_cycles() < end;)
		ordk_dev_poll(dev, 64);
	if (done < iters)
		rte_exit(EXIT_FAILURE, "only %u of %u round trips before the deadline\n", done, iters);
	printf("%u round trips done\n", done);
	if (client) {
		qsort(rtt, iters, sizeof(*rtt), cmp_u64);
		printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
		       "99%% percentile[usec]   99.9%% percentile[usec]\n");
		printf(" %-7u %-10u %-7.2f        %-7.2f      %-7.2f         %-7.2f                "
		       "%-7.2f\n",
		       size, iters, rtt[0] * 1e6 / hz / 2, rtt[iters - 1] * 1e6 / hz / 2,
		       rtt[iters / 2] * 1e6 / hz / 2, rtt[(size_t)(iters * 0.99)] * 1e6 / hz / 2,
		       rtt[(size_t)(iters * 0.999)] * 1e6 / hz / 2);
		printf("(SEND/RECV latency = RTT / 2, as perftest reports it)\n");
	} else {
		printf("server: echoed %u messages\n", done);
	}
	/*
	 * DPDK 22.11's net_memif misbehaves when a peer's disconnect meets its
	 * own teardown: the client closes first, the server stays quiet (no
	 * polling) for a second before it does.
	 */
	if (!client)
		usleep(1000 * 1000);
	ordk_qp_destroy(qp);
	ordk_mr_dereg(mr);
	ordk_cq_destroy(cq);
	ordk_pd_free(pd);
	ordk_dev_close(dev);
	rte_eth_dev_stop(0);
	rte_eth_dev_close(0);
	rte_eal_cleanup();
	return 0;
}
