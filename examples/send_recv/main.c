/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * send_recv: two processes, SEND/RECV ping-pong over bluesim on any DPDK port.
 * The server echoes every message; the client measures round trips.
 *
 *   server: send_recv [EAL args --] [-s size] [-n iters] [-p port] [-d devargs]
 *   client: send_recv [EAL args --] [-s size] [-n iters] [-p port] [-d devargs] <server host>
 *
 * Without EAL arguments both sides use net_memif over /tmp/ordk-send-recv-<port>.sock
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

#include "ex.h"

#define DEPTH 16u

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

struct args {
	uint32_t size, iters;
	uint16_t port;
	const char *devargs, *host;
};

/* Our arguments (after "--"). @return false when main() returns *@p status at once. */
static bool
parse_args(int argc, char **argv, struct args *a, int *status)
{
	bool bad = false;
	int c;

	while ((c = getopt(argc, argv, "s:n:p:d:h")) != -1) {
		switch (c) {
		/* the shared parser: strtoul() and a cast took "-s 4294967297" as 1 */
		case 's':
			a->size = (uint32_t)ex_size("send_recv", "-s", optarg, 1, 1u << 20, &bad);
			break;
		case 'n':
			a->iters = (uint32_t)ex_num("send_recv", "-n", optarg, 1, 100000000, &bad);
			break;
		case 'p':
			a->port = (uint16_t)ex_num("send_recv", "-p", optarg, 1, 65535, &bad);
			break;
		case 'd':
			a->devargs = optarg;
			break;
		default:
			printf("usage: send_recv [EAL args --] [-s size] [-n iters] [-p port] "
			       "[-d devargs] [server host]\n");
			*status = c == 'h' ? 0 : 1;
			return false;
		}
	}
	*status = 1;
	a->host = optind < argc ? argv[optind] : NULL;
	return !bad;
}

/* A RECV into buffer @p i (DEPTH of them, one message each). */
static void
post_recv(struct ex_node *n, struct ordk_qp *qp, uint64_t i, uint32_t size)
{
	struct ordk_recv_wr r = { .wr_id = i, .num_sge = 1 };

	r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)n->buf + i * size, size, n->mr->lkey };
	ordk_qp_post_recv(qp, &r, 1);
}

/*
 * The ping-pong: the client sends and waits for the echo, the server echoes
 * what arrives. @return the round trips done before the deadline, each one's
 * TSC time in @p rtt.
 */
static uint32_t
ping_pong(struct ex_node *n, struct ordk_qp *qp, const struct args *a, bool client, uint64_t hz,
	  uint64_t *rtt)
{
	uint32_t size = a->size, iters = a->iters, done = 0;
	uint64_t deadline = rte_get_tsc_cycles() + (uint64_t)(20 + iters / 10000) * hz;

	while (done < iters && rte_get_tsc_cycles() < deadline) {
		struct ordk_send_wr s = { .opcode = ORDK_WR_SEND, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		struct ordk_wc wc;
		uint64_t t0 = rte_get_tsc_cycles();
		bool got = false, sent = !client;

		s.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)n->buf + (uint64_t)DEPTH * size, size,
					   n->mr->lkey };
		if (client)
			ordk_qp_post_send(qp, &s, 1);
		while ((!got || !sent) && rte_get_tsc_cycles() < deadline) {
			if (ordk_cq_poll(n->cq, &wc, 1) != 1)
				continue;
			if (wc.status != ORDK_WC_SUCCESS)
				rte_exit(EXIT_FAILURE, "completion error: %s\n",
					 ordk_wc_status_str(wc.status));
			if (wc.opcode == ORDK_WC_SEND) {
				sent = true;
				continue;
			}
			got = true;
			post_recv(n, qp, wc.wr_id, size); /* repost the buffer; the server echoes */
			if (!client) {
				ordk_qp_post_send(qp, &s, 1);
				sent = false;
			}
		}
		if (!got || !sent)
			break; /* the deadline: reported by the caller */
		rtt[done++] = rte_get_tsc_cycles() - t0;
	}
	return done;
}

/* perftest's latency table of the client's round trips (sorted here). */
static void
report(const struct args *a, uint64_t *rtt, uint64_t hz)
{
	uint32_t size = a->size, iters = a->iters;

	qsort(rtt, iters, sizeof(*rtt), cmp_u64);
	printf(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
	       "99%% percentile[usec]   99.9%% percentile[usec]\n");
	printf(" %-7u %-10u %-7.2f        %-7.2f      %-7.2f         %-7.2f                "
	       "%-7.2f\n",
	       size, iters, rtt[0] * 1e6 / hz / 2, rtt[iters - 1] * 1e6 / hz / 2,
	       rtt[iters / 2] * 1e6 / hz / 2, rtt[(size_t)(iters * 0.99)] * 1e6 / hz / 2,
	       rtt[(size_t)(iters * 0.999)] * 1e6 / hz / 2);
	printf("(SEND/RECV latency = RTT / 2, as perftest reports it)\n");
}

int
main(int argc, char **argv)
{
	struct args a = { .size = 64, .iters = 10000, .port = ORDK_CM_DEFAULT_PORT,
			  .devargs = "bluesim,port=0" };
	struct ordk_qp_init_attr ia = { .max_send_wr = DEPTH * 2, .max_recv_wr = DEPTH * 2 };
	struct ordk_cm_info me, peer;
	struct ex_node n;
	struct ordk_qp *qp;
	uint64_t *rtt, hz;
	int eal, targc, rc, status;
	char **targv, **all = argv;
	uint32_t done;
	bool client;

	setvbuf(stdout, NULL, _IOLBF, 0); /* progress lines appear even when piped */
	/* EAL arguments before "--"; ours after it (or all of them): the role picks the defaults */
	eal = ex_split_args(argc, argv, &targc, &targv);
	if (!parse_args(targc, targv, &a, &status))
		return status;
	client = a.host != NULL;
	if (ex_eal_init(eal, all, "send-recv", client, a.port, 512, a.devargs) != 0)
		return 1;
	/* port up (a memif client retries until its server listens), device, PD, CQ, buffer */
	if (ex_node_open(&n, a.devargs, client, 2 * DEPTH * (size_t)a.size + 4096, 1024) != 0)
		rte_exit(EXIT_FAILURE, "cannot open the device over %s\n", a.devargs);
	ia.send_cq = ia.recv_cq = n.cq;
	qp = ordk_qp_create(n.pd, &ia);
	rtt = calloc(a.iters, sizeof(*rtt));
	if (!qp || !rtt)
		rte_exit(EXIT_FAILURE, "cannot create objects: %s\n", rte_strerror(rte_errno));
	n.qp[n.nqp++] = qp; /* closed with the node */
	me = (struct ordk_cm_info){ .qpn = ordk_qp_num(qp), .ip = n.attr.ip, .mac = n.attr.mac };
	printf("%s: %s, QPN 0x%06x, %u x %u B\n", n.attr.name, client ? "client" : "server", me.qpn,
	       a.iters, a.size);
	rc = ordk_cm_exchange(a.host, a.port, &me, &peer, 30000);
	if (rc == -ETIMEDOUT && client)
		rte_exit(EXIT_FAILURE, "Couldn't connect to %s:%u: no answer within 30 s\n", a.host,
			 a.port);
	if (rc != 0)
		rte_exit(EXIT_FAILURE, "exchange with the peer: %s\n", strerror(-rc));
	if (ordk_cm_connect_qp(qp, &me, &peer, ORDK_MTU_4096, ORDK_ACCESS_LOCAL_WRITE) != 0)
		rte_exit(EXIT_FAILURE, "cannot connect the QP\n");
	printf("connected to QPN 0x%06x at %u.%u.%u.%u\n", peer.qpn, peer.ip >> 24,
	       (peer.ip >> 16) & 0xFF, (peer.ip >> 8) & 0xFF, peer.ip & 0xFF);

	/* keep DEPTH RECVs posted, one buffer each */
	for (uint32_t i = 0; i < DEPTH; i++)
		post_recv(&n, qp, i, a.size);
	hz = rte_get_tsc_hz();
	done = ping_pong(&n, qp, &a, client, hz, rtt);
	/* let the last ACKs through */
	for (uint64_t end = rte_get_tsc_cycles() + hz / 5; rte_get_tsc_cycles() < end;)
		ordk_dev_poll(n.dev, 64);
	if (done < a.iters)
		rte_exit(EXIT_FAILURE, "only %u of %u round trips before the deadline\n", done,
			 a.iters);
	printf("%u round trips done\n", done);
	if (client)
		report(&a, rtt, hz);
	else
		printf("server: echoed %u messages\n", done);
	/* net_memif's teardown: the client closes first (ex_finish lingers), the server waits */
	if (!client)
		usleep(1000 * 1000);
	free(rtt);
	ex_finish(&n);
	return 0;
}
