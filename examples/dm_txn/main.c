/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dm_txn: transactions on disaggregated memory with one-sided verbs only,
 * in the manner of CREST and the studies built on it.
 *
 *   dm_txn memory  [EAL args --] [-d devargs] [-c cm_port] [--records N] [-t seconds]
 *   dm_txn compute [EAL args --] [-d devargs] [-H host] [-c cm_port] [--records N]
 *                  [--workload ycsb|smallbank] [--theta T | --hot 40:0.95] [--keys K]
 *                  [--write-pct P] [--contexts C] [-D seconds | -n txns]
 *
 * The memory node registers a table of 64-byte records {lock, version,
 * 6 x u64 value} and only polls (the card's atomics are executed by its
 * software, exactly once). A compute node runs C transaction contexts, each
 * on its own QP, each a state machine: READ the read and write sets, lock
 * the write set with CMP_AND_SWP, validate by reading versions again, WRITE
 * the new values and versions, WRITE the locks free; any conflict aborts
 * and frees the locks taken. SmallBank's transfers keep the total balance:
 * checked at the end, with every lock free. See README.md.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "app_common.h"
#include "dm_txn.h"
#include "loop_a.h"

#define CM_PORT	     18860
#define MAX_REC	     ((64u << 20) / REC * 16) /* --records: a table of 1 GiB */
#define P	     "dm_txn"

struct ex_node N;
uint64_t hz, nrec;

/* a cluster (--config): memcached rendezvous, one memory node "mn0", compute nodes "cn<id>" */
struct ordk_cm_mc *mc;
struct ordk_cm_config cfg;
unsigned int node_id, idle_us;
double sync_s = 30;

/* --------------------------------------------------------- memory node */

/* Every compute node of the config: they offer their QPs, the memory node answers. */
static int
memory_meet(void)
{
	const struct ordk_cm_group all[] = { { "mn", 1 }, { "cn", cfg.n_cn } };

	if (ex_cluster_sync(mc, "start", "mn", 0, all, 2, sync_s) != 0)
		return -1;
	for (unsigned int k = 0; k < cfg.n_cn; k++)
		if (ex_mc_answer(&N, mc, "mn", 0, "cn", k, 256, sync_s) != 0)
			return -1;
	printf("memory: %u compute nodes connected through memcached at %s:%u\n", cfg.n_cn,
	       cfg.memcached_ip, cfg.memcached_port);
	return 0;
}

static int
memory_main(uint16_t cm_port, double seconds)
{
	struct rec *t = (struct rec *)N.buf;
	int lfd = mc ? -1 : ordk_cm_listen(cm_port);
	double until = ordk_env_now_s() + seconds;
	uint64_t iter = 0;
	unsigned int posted = 0, byes = 0, want = mc ? cfg.n_cn : 1;

	if (!mc && lfd < 0) {
		fprintf(stderr, "memory: cannot listen on %u\n", cm_port);
		return 1;
	}
	for (uint64_t i = 0; i < nrec; i++)
		t[i] = (struct rec){ .value = { BALANCE0, i } };
	printf("memory: %s, %" PRIu64 " records of %u B, QPs %s %u\n", N.attr.name, nrec, REC,
	       mc ? "through memcached, cluster" : "on port", mc ? cfg.n_cn : cm_port);
	if (mc && memory_meet() != 0)
		return 1;
	while (byes < want && ordk_env_now_s() < until) {
		struct ordk_wc wc[16];
		int k;

		if (ordk_dev_poll(N.dev, 64) == 0 && idle_us) {
			ordk_dev_idle(N.dev, idle_us * 1000ull); /* a planned pause: timers run on */
			usleep(idle_us);
		}
		if (!mc && (++iter & 1023) == 0 && ex_accept(&N, lfd, 256) < 0)
			break;
		for (; posted < N.nqp; posted++) { /* the compute node's BYE */
			struct ordk_recv_wr r = { .wr_id = posted, .num_sge = 1 };

			r.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)N.buf + nrec * REC, 64,
						   N.mr->lkey };
			ordk_qp_post_recv(N.qp[posted], &r, 1);
		}
		k = ordk_cq_poll(N.cq, wc, 16);
		for (int i = 0; i < k; i++)
			byes += wc[i].opcode >= ORDK_WC_RECV;
	}
	{
		struct ordk_stats st;

		ordk_dev_stats(N.dev, &st);
		printf("memory: %s (%u of %u said bye); %" PRIu64 " atomics executed, %" PRIu64
		       " replayed\n",
		       byes >= want ? "every compute node said bye" : "time is up", byes, want,
		       st.atomics_executed, st.atomics_replayed);
	}
	ordk_env_linger_server(N.dev, mc ? 0.2 : EX_SERVER_QUIET_S);
	if (lfd >= 0)
		close(lfd);
	return mc && byes < want ? 1 : 0;
}

/* ----------------------------------------------------------------- main */

/* --config: the cluster's file, checked against this node's role, and memcached. */
static int
cluster_open(const char *path, bool compute)
{
	mc = ex_cluster_open(path, &cfg, (int)(sync_s * 1000));
	if (mc == NULL)
		return -1;
	if (cfg.n_mn != 1)
		fprintf(stderr, "config %s: MN_ips: dm_txn runs one memory node, %u listed\n", path,
			cfg.n_mn);
	else if (compute && node_id >= cfg.n_cn)
		fprintf(stderr, "config %s: CN_ips lists %u compute nodes: --id %u is not one\n", path,
			cfg.n_cn, node_id);
	else if (!compute && nrec * REC + 4096 > cfg.mr_size)
		fprintf(stderr, "config %s: mr_size: %" PRIu64 " bytes hold %" PRIu64
				" records of %u B, --records asks for %" PRIu64 "\n",
			path, cfg.mr_size, (cfg.mr_size - 4096) / REC, REC, nrec);
	else
		return 0;
	ordk_cm_mc_close(mc);
	mc = NULL;
	return -1;
}

static void
usage(void)
{
	fprintf(stderr,
		"usage: dm_txn memory  [EAL args --] [-d devargs] [-c cm_port] [--records N] [-t s]\n"
		"       dm_txn compute [EAL args --] [-d devargs] [-H host] [-c cm_port] [--records N]\n"
		"                      [--workload ycsb|smallbank] [--theta T | --hot 40:0.95]\n"
		"                      [--keys K] [--write-pct P] [--contexts C] [-D s | -n txns]\n"
		"                      [--hot [K/]N:p] [--loop_a[=key|worker]] [--loop_a_ai_step A]\n"
		"                      [--loop_a_nf F] [--loop_a_hi R] [--loop_a_period_us U]\n"
		"  a cluster: [--config FILE [--id N] [--sync-timeout s]] [--idle-us us]\n");
}

static const struct option long_opts[] = {
	{ "records", required_argument, NULL, 'R' }, { "workload", required_argument, NULL, 'W' },
	{ "theta", required_argument, NULL, 'T' },   { "hot", required_argument, NULL, 'O' },
	{ "keys", required_argument, NULL, 'K' },    { "write-pct", required_argument, NULL, 'P' },
	{ "contexts", required_argument, NULL, 'C' }, { "help", no_argument, NULL, 'h' },
	{ "config", required_argument, NULL, 'F' },   { "id", required_argument, NULL, 'I' },
	{ "sync-timeout", required_argument, NULL, 'Y' },
	{ "idle-us", required_argument, NULL, 'U' },
	{ "loop_a", optional_argument, NULL, 'A' },
	{ "loop_a_ai_step", required_argument, NULL, 'a' },
	{ "loop_a_nf", required_argument, NULL, 'f' },
	{ "loop_a_hi", required_argument, NULL, 'i' },
	{ "loop_a_period_us", required_argument, NULL, 'e' },
	{ NULL, 0, NULL, 0 },
};

/* Every option but the role's; main() defaults them. */
struct args {
	const char *devargs, *host, *config;
	uint16_t cm_port;
	unsigned int nctx, hot_of, hot_k;
	struct la_cfg la;
	double theta, duration, seconds, hot_p;
	uint64_t ntx;
};

/* Our arguments (after "--"), checked. @return false when main() returns *@p status at once. */
static bool
parse_args(int targc, char **targv, struct args *a, int *status)
{
	bool bad = false;
	int c;

	while ((c = getopt_long(targc, targv, "d:H:c:D:n:t:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'd': a->devargs = optarg; break;
		case 'H': a->host = optarg; break;
		/* the port and the table's size through the shared parser (atoi() wrapped them) */
		case 'c': a->cm_port = (uint16_t)ex_num(P, "-c", optarg, 1, 65535, &bad); break;
		case 'D': a->duration = atof(optarg); break;
		case 'n': a->ntx = strtoull(optarg, NULL, 0); break;
		case 't': a->seconds = atof(optarg); break;
		case 'R': nrec = ex_num(P, "--records", optarg, 16, MAX_REC, &bad); break;
		case 'W':
			if (strcmp(optarg, "smallbank") == 0)
				smallbank = true;
			else if (strcmp(optarg, "ycsb") != 0) {
				usage();
				*status = 1;
				return false;
			}
			break;
		case 'T': a->theta = atof(optarg); break;
		case 'O':
			if (sscanf(optarg, "%u/%u:%lf", &a->hot_k, &a->hot_of, &a->hot_p) != 3 &&
			    (a->hot_k = 1, sscanf(optarg, "%u:%lf", &a->hot_of, &a->hot_p) != 2)) {
				usage();
				*status = 1;
				return false;
			}
			break;
		case 'K': keys_per_tx = (unsigned int)atoi(optarg); break;
		case 'P': write_pct = (unsigned int)atoi(optarg); break;
		case 'C': a->nctx = (unsigned int)atoi(optarg); break;
		case 'F': a->config = optarg; break;
		case 'I': node_id = (unsigned int)atoi(optarg); break;
		case 'Y': sync_s = atof(optarg); break;
		case 'U': idle_us = (unsigned int)atoi(optarg); break;
		case 'A':
			if (optarg == NULL || strcmp(optarg, "key") == 0)
				a->la.mode = LA_KEY;
			else if (strcmp(optarg, "worker") == 0)
				a->la.mode = LA_WORKER;
			else {
				usage();
				*status = 1;
				return false;
			}
			break;
		case 'a': a->la.ai_step = (unsigned int)atoi(optarg); break;
		case 'f': a->la.nf = (unsigned int)atoi(optarg); break;
		case 'i': a->la.hi = atof(optarg); break;
		case 'e': a->la.period_s = atof(optarg) * 1e-6; break;
		default: usage(); *status = c == 'h' ? 0 : 1; return false;
		}
	}
	if (bad) {
		*status = 1;
		return false;
	}
	if (a->nctx == 0 || a->nctx > MAX_CTX ||
	    keys_per_tx == 0 || keys_per_tx > MAX_KEYS_TX || write_pct > 100 || a->theta < 0 ||
	    a->theta >= 1 ||
	    (a->hot_of && (a->hot_of < 2 || a->hot_k == 0 || a->hot_k >= a->hot_of ||
			   !(a->hot_p > 0 && a->hot_p < 1))) ||
	    !(a->duration > 0) || !(sync_s > 0) || idle_us > 100000 ||
	    a->la.nf < 2 || a->la.ai_step == 0 || !(a->la.hi > 0 && a->la.hi < 1) ||
	    !(a->la.period_s > 0)) {
		fprintf(stderr, "dm_txn: bad value (--contexts 1..%u, --keys 1..%u, "
				"--theta [0, 1), --hot [K/]N:p, --loop_a_nf 2.., --loop_a_hi (0, 1))\n", MAX_CTX, MAX_KEYS_TX);
		*status = 1;
		return false;
	}
	return true;
}

int
main(int argc, char **argv)
{
	const char *role = argc > 1 ? argv[1] : "";
	struct args a = { .host = "127.0.0.1", .cm_port = CM_PORT, .nctx = 8, .hot_k = 1,
			  .la = { .mode = LA_OFF, .ai_step = 4, .nf = 2, .hi = 0.2,
				  .period_s = 0.005 },
			  .theta = 0.99, .duration = 5, .seconds = 600 };
	bool client;
	int targc, eal, rc, status;
	char **targv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	nrec = 100000;
	if (strcmp(role, "memory") != 0 && strcmp(role, "compute") != 0) {
		usage();
		return 1;
	}
	argv[1] = argv[0];
	eal = ex_split_args(argc - 1, argv + 1, &targc, &targv);
	if (!parse_args(targc, targv, &a, &status))
		return status;
	client = strcmp(role, "compute") == 0;
	if (a.config != NULL && cluster_open(a.config, client) != 0)
		return 1;
	if (a.devargs == NULL)
		a.devargs = a.config ? cfg.device : "bluesim,port=0";
	if (ex_eal_init(eal, argv + 1, "txn", client, a.cm_port,
			256 + (unsigned int)(nrec * REC >> 20), a.devargs) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	a.la.max = a.nctx;
	la_init(&a.la);
	if (client) {
		zipf_init(&Z, nrec, a.theta);
		if (a.hot_of) {
			Z.hot_n = nrec * a.hot_k / a.hot_of; /* "hot_k of hot_of warehouses" */
			Z.hot_p = a.hot_p;
		}
	}
	if (ex_node_open(&N, a.devargs, client, client ? MAX_CTX * 4096 + (64u << 10)
						     : nrec * REC + 4096,
			 MAX_CTX * 128 + 64) != 0)
		rc = 1;
	else if (client)
		rc = compute_main(a.host, a.cm_port, a.nctx, a.duration, a.ntx);
	else
		rc = memory_main(a.cm_port, a.seconds);
	ex_finish(&N);
	ordk_cm_mc_close(mc);
	return rc;
}
