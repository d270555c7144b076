/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_transfer: KV-cache blocks moved between nodes with one-sided RDMA, in
 * the shape of Mooncake's transfer engine.
 *
 *   kv_transfer meta   [-p meta_port] [-t seconds]
 *   kv_transfer worker [EAL args --] [-d devargs] [-m meta_host] [-p meta_port] [-c cm_port]
 *                      [--pool MiB] [--host name] [-t seconds]
 *   kv_transfer client [EAL args --] [-d devargs] [-m meta_host] [-p meta_port] [-q qps]
 *                      [--bench] [-n blocks] [--shutdown]
 *
 * The metadata service (TCP, one line per request) maps a key to the node,
 * address, length and rkey of its block. Workers register a pool of memory
 * (an MR) with it and serve RDMA: they only poll. Clients put blocks with
 * RDMA WRITE and get them with RDMA READ, a large block striped over all
 * QPs, many transfers in flight; every block is verified (its bytes are a
 * function of its key). See README.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "app_common.h"
#include "ex.h"
#include "kv.h"
#include "kv_redis.h"

#define META_PORT   18800
#define CM_PORT	    18801
#define P	    "kv_transfer"

volatile sig_atomic_t stop;

/* metadata in Redis (--redis or --config): this worker's name and lease, the workers awaited */
bool redis;
static char wname[32];
static unsigned int lease_ms = 3000, idle_us;
unsigned int want_workers = 1;
bool keep_workers;

struct ex_node N;
unsigned int window = 16; /* WRs in flight per QP (--window) */
uint64_t hz;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* --------------------------------------------------------------- worker */

/* The worker's pool, registered in Redis (under a lease: *@p next_beat) or with the service. */
static int
worker_register(struct ex_node *n, uint16_t cm_port, const char *host, double *next_beat)
{
	char line[256];

	if (redis) {
		struct kvr_node me = { .cm_port = cm_port, .base = (uint64_t)(uintptr_t)n->buf,
				       .rkey = n->mr->rkey, .len = n->len };

		snprintf(me.host, sizeof(me.host), "%s", host);
		if (kvr_register(wname, &me, lease_ms) != 0)
			return -1;
		*next_beat = ordk_env_now_s() + lease_ms / 3000.0;
	} else {
		meta_send("REG %s %u %" PRIu64 " %u %zu\n", host, cm_port,
			  (uint64_t)(uintptr_t)n->buf, n->mr->rkey, n->len);
		if (meta_recv(line, sizeof(line)) != 0) {
			fprintf(stderr, "worker: the metadata service said: %s", line);
			return -1;
		}
	}
	return 0;
}

static int
worker_main(struct ex_node *n, const char *mhost, uint16_t mport, uint16_t cm_port,
	    const char *host, double seconds)
{
	int lfd = ordk_cm_listen(cm_port), bye = 0;
	double until = ordk_env_now_s() + seconds, next_beat = 0;
	uint64_t iter = 0;
	unsigned int posted = 0;
	int rc = 0;

	/*
	 * Touch the whole pool now: DPDK hands out fresh memory without writing
	 * it (it is known to be zero), and without hugepages every first write
	 * would page-fault in the middle of a transfer (puts ran at 1 GB/s).
	 */
	for (size_t off = 0; off < n->len; off += 4096)
		((volatile uint8_t *)n->buf)[off] = 0;
	if (lfd < 0 || (!redis && meta_connect(mhost, mport) != 0)) {
		fprintf(stderr, "worker: cannot listen on %u or reach the metadata service\n", cm_port);
		return 1;
	}
	if (worker_register(n, cm_port, host, &next_beat) != 0)
		return 1;
	printf("worker: %s, pool %zu MiB registered%s%s (rkey 0x%06x), QPs on port %u\n", n->attr.name,
	       n->len >> 20, redis ? " in redis as " : "", redis ? wname : "", n->mr->rkey, cm_port);
	fflush(stdout);
	/* one-sided transfers need nothing from the worker but polling; a client's BYE ends it */
	while (!stop && !bye && ordk_env_now_s() < until) {
		struct ordk_wc wc[16];
		int k;

		if (ordk_dev_poll(n->dev, 64) == 0 && idle_us) {
			ordk_dev_idle(n->dev, idle_us * 1000ull); /* a planned pause: timers run on */
			usleep(idle_us);
		}
		if ((++iter & 1023) == 0 && ex_accept(n, lfd, DEPTH) < 0)
			break;
		if (redis && (iter & 255) == 0 && ordk_env_now_s() >= next_beat) { /* the heartbeat */
			if (kvr_heartbeat(wname, lease_ms) != 0) {
				fprintf(stderr, "worker: %s: lease lost (late heartbeat?)\n", wname);
				rc = 1;
				break;
			}
			next_beat = ordk_env_now_s() + lease_ms / 3000.0;
		}
		for (; posted < n->nqp; posted++) { /* a RECV for each new client QP */
			struct ordk_recv_wr r = { .wr_id = posted, .num_sge = 1 };

			r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)n->buf + n->len - CTRL_BYTES, 64,
						   n->mr->lkey };
			ordk_qp_post_recv(n->qp[posted], &r, 1);
		}
		k = ordk_cq_poll(n->cq, wc, 16);
		for (int i = 0; i < k; i++)
			bye |= wc[i].opcode >= ORDK_WC_RECV;
	}
	printf("worker: %s\n", bye ? "the client said bye" : stop ? "stopped" : "time is up");
	if (redis)
		kvr_deregister(wname);
	if (getenv("KV_STATS") != NULL) {
		struct ordk_stats st;

		ordk_dev_stats(n->dev, &st);
		app_print_stats(stdout, &st, false);
	}
	if (ordk_env_linger_server(n->dev, redis ? 0.2 : EX_SERVER_QUIET_S) > 0) /* the client closes first */
		printf("worker: the client left\n");
	close(lfd);
	return rc;
}

/* ----------------------------------------------------------------- main */

static void
usage(void)
{
	fprintf(stderr,
		"usage: kv_transfer meta   [-p meta_port] [-t seconds]\n"
		"       kv_transfer worker [EAL args --] [-d devargs] [-m meta_host] [-p meta_port]\n"
		"                          [-c cm_port] [--pool MiB] [--host name] [-t seconds]\n"
		"       kv_transfer client [EAL args --] [-d devargs] [-m meta_host] [-p meta_port]\n"
		"                          [-q qps] [--window wrs] [--bench] [-n blocks] [--shutdown]\n"
		"                          [--linger s] (stays connected s seconds at the end, 0.3)\n"
		"  metadata in redis: --redis IP[:PORT] or --config FILE (its redis_ip, cluster);\n"
		"    worker: --name wN [--lease ms] [--idle-us us]; client: [--workers N]\n"
		"    [--keep-workers]\n");
}

static const struct option long_opts[] = {
	{ "pool", required_argument, NULL, 'P' }, { "host", required_argument, NULL, 'H' },
	{ "bench", no_argument, NULL, 'b' },	  { "shutdown", no_argument, NULL, 'S' },
	{ "window", required_argument, NULL, 'w' },
	{ "redis", required_argument, NULL, 'R' },  { "config", required_argument, NULL, 'F' },
	{ "name", required_argument, NULL, 'N' },   { "lease", required_argument, NULL, 'L' },
	{ "workers", required_argument, NULL, 'W' },
	{ "keep-workers", no_argument, NULL, 'K' }, { "idle-us", required_argument, NULL, 'U' },
	{ "linger", required_argument, NULL, 'G' }, { "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * Metadata in Redis, from --config (its redis_ip and port, its cluster name,
 * and its device unless -d gave one) or --redis: connected here. @return 0
 * (also without Redis: the metadata service then) or -1 (printed).
 */
static int
redis_setup(const char *config, const char *redis_at, bool client, const char **devargs)
{
	static struct ordk_cm_config cfg = { .cluster = "ordk" }; /* *devargs may point into it */
	char rip[64] = "";
	unsigned int rport = 6379;

	if (config != NULL) { /* the cluster's file: redis_ip/redis_port, its name, the device */
		char err[256];

		if (ordk_cm_config_load(config, &cfg, err, sizeof(err)) != 0) {
			fprintf(stderr, "config %s refused: %s\n", config, err);
			return -1;
		}
		if (cfg.redis_ip[0] == '\0') {
			fprintf(stderr, "config %s: redis_ip: missing (kv_transfer keeps its metadata "
					"there)\n", config);
			return -1;
		}
		snprintf(rip, sizeof(rip), "%s", cfg.redis_ip);
		rport = cfg.redis_port;
		if (strcmp(*devargs, "bluesim,port=0") == 0)
			*devargs = cfg.device;
	} else if (redis_at != NULL && sscanf(redis_at, "%63[^:]:%u", rip, &rport) < 1) {
		fprintf(stderr, "kv_transfer: --redis IP[:PORT]\n");
		return -1;
	}
	redis = rip[0] != '\0';
	if (redis && !client && wname[0] == '\0') {
		fprintf(stderr, "kv_transfer: a worker with redis needs --name (e.g. w0)\n");
		return -1;
	}
	if (redis && (lease_ms < 300 || lease_ms > 600000 || want_workers == 0 ||
		      want_workers > MAX_NODES || rport == 0 || rport > 65535 ||
		      kvr_open(rip, (uint16_t)rport, cfg.cluster) != 0))
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	const char *role = argc > 1 ? argv[1] : "", *devargs = "bluesim,port=0", *mhost = "127.0.0.1";
	const char *host = "127.0.0.1", *redis_at = NULL, *config = NULL;
	uint16_t mport = META_PORT, cm_port = CM_PORT;
	unsigned int qps = 4, pool_mb = 512, count = 0;
	double seconds = 600, linger = 0;
	bool bench = false, shutdown_meta = false, client, bad = false;
	int targc, eal, c, rc;
	char **targv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (strcmp(role, "meta") != 0 && strcmp(role, "worker") != 0 && strcmp(role, "client") != 0) {
		usage();
		return 1;
	}
	argv[1] = argv[0];
	eal = ex_split_args(argc - 1, argv + 1, &targc, &targv);
	while ((c = getopt_long(targc, targv, "d:m:p:c:q:n:t:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd': devargs = optarg; break;
		case 'm': mhost = optarg; break;
		/* ports, counts and sizes through the shared parser (atoi() wrapped them) */
		case 'p': mport = (uint16_t)ex_num(P, "-p", optarg, 1, 65535, &bad); break;
		case 'c': cm_port = (uint16_t)ex_num(P, "-c", optarg, 1, 65535, &bad); break;
		case 'q': qps = (unsigned int)ex_num(P, "-q", optarg, 1, EX_MAX_QPS, &bad); break;
		case 'n': count = (unsigned int)ex_num(P, "-n", optarg, 0, MAX_KEYS, &bad); break;
		case 't': seconds = atof(optarg); break;
		case 'P': pool_mb = (unsigned int)ex_num(P, "--pool", optarg, 8, 16384, &bad); break;
		case 'H': host = optarg; break;
		case 'b': bench = true; break;
		case 'w': window = (unsigned int)ex_num(P, "--window", optarg, 1, DEPTH - 2, &bad);
			break;
		case 'S': shutdown_meta = true; break;
		case 'R': redis_at = optarg; break;
		case 'F': config = optarg; break;
		case 'N': snprintf(wname, sizeof(wname), "%s", optarg); break;
		case 'L': lease_ms = (unsigned int)atoi(optarg); break;
		case 'W': want_workers = (unsigned int)atoi(optarg); break;
		case 'K': keep_workers = true; break;
		case 'U': idle_us = (unsigned int)atoi(optarg); break;
		case 'G': linger = atof(optarg); break;
		default: usage(); return c == 'h' ? 0 : 1;
		}
	}
	if (bad)
		return 1;
	if (!(seconds > 0) || !(linger >= 0 && linger <= 60)) {
		fprintf(stderr, "kv_transfer: bad value (-t more than 0, --linger 0..60)\n");
		return 1;
	}
	if (strcmp(role, "meta") == 0)
		return meta_main(mport, seconds);
	client = strcmp(role, "client") == 0;
	if (redis_setup(config, redis_at, client, &devargs) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	if (ex_eal_init(eal, argv + 1, "kv", client, cm_port,
			(client ? 320 : pool_mb) + 256, devargs) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	if (ex_node_open(&N, devargs, client, client ? (264u << 20) : ((size_t)pool_mb << 20),
			 EX_MAX_QPS * DEPTH + 64) != 0)
		rc = 1;
	else if (client) {
		N.linger_s = linger;
		rc = client_main(mhost, mport, qps, bench, count, shutdown_meta);
	} else
		rc = worker_main(&N, mhost, mport, cm_port, host, seconds);
	ex_finish(&N);
	kvr_close();
	return rc;
}
