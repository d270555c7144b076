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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "app_common.h"
#include "ex.h"
#include "loop_a.h"

#define CM_PORT	     18860
#define REC	     64u
#define MAX_KEYS_TX  8u
#define MAX_CTX	     16u
#define BALANCE0     1000u
#define VAL_OFF	     16u /* lock 8, version 8, then the value */

struct rec {
	uint64_t lock, version, value[6];
};

static struct ex_node N;
static uint64_t hz, nrec;

/* a cluster (--config): memcached rendezvous, one memory node "mn0", compute nodes "cn<id>" */
static struct ordk_cm_mc *mc;
static struct ordk_cm_config cfg;
static unsigned int node_id, idle_us;
static double sync_s = 30;

/* ------------------------------------------------------------ key choice */

struct zipf {
	uint64_t n;
	double theta, alpha, zetan, eta;
	uint64_t hot_n;	  /* hot-set regime: hot_n keys get hot_p of the accesses */
	double hot_p;
};

static double
zeta(uint64_t n, double theta)
{
	double s = 0;

	for (uint64_t i = 1; i <= n; i++)
		s += 1.0 / pow((double)i, theta);
	return s;
}

static void
zipf_init(struct zipf *z, uint64_t n, double theta)
{
	double zeta2 = zeta(2, theta);

	z->n = n;
	z->theta = theta;
	z->zetan = zeta(n, theta);
	z->alpha = 1.0 / (1.0 - theta);
	z->eta = (1 - pow(2.0 / (double)n, 1 - theta)) / (1 - zeta2 / z->zetan);
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double
unif(uint64_t *s)
{
	return (double)(rnd(s) >> 11) / (double)(1ull << 53);
}

/* Gray et al.'s Zipfian generator (YCSB's), rank 0 the hottest, scattered over the table. */
static uint64_t
zipf_next(const struct zipf *z, uint64_t *s)
{
	double u = unif(s), uz = u * z->zetan;
	uint64_t r;

	if (z->hot_n) /* "1 of 40 warehouses gets 95% of accesses" */
		return unif(s) < z->hot_p ? rnd(s) % z->hot_n : z->hot_n + rnd(s) % (z->n - z->hot_n);
	if (z->theta == 0)
		return rnd(s) % z->n;
	if (uz < 1.0)
		r = 0;
	else if (uz < 1.0 + pow(0.5, z->theta))
		r = 1;
	else
		r = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1, z->alpha));
	if (r >= z->n)
		r = z->n - 1;
	return (r * 0x9E3779B97F4A7C15ull) % z->n; /* the hot keys are not neighbours */
}

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
	printf("memory: %s, %" PRIu64 " records of %u B, QPs %s %u\n", N.at.name, nrec, REC,
	       mc ? "through memcached, cluster" : "on port", mc ? cfg.n_cn : cm_port);
	if (mc && memory_meet() != 0)
		return 1;
	while (byes < want && ordk_env_now_s() < until) {
		struct ordk_wc wc[16];
		int k;

		if (ordk_dev_poll(N.dev, 64) == 0 && idle_us)
			usleep(idle_us);
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

/* -------------------------------------------------------- compute node */

enum phase { P_IDLE, P_READ, P_LOCK, P_VALIDATE, P_COMMIT, P_UNLOCK };

struct ctx {
	unsigned int id;
	struct ordk_qp *qp;
	enum phase ph;
	unsigned int nkeys, nwrite, waiting, locked;
	uint64_t key[MAX_KEYS_TX];
	bool write[MAX_KEYS_TX];
	uint64_t version[MAX_KEYS_TX];
	int64_t amount;
	uint64_t t0;
	bool failed; /* a check in this phase failed */
	bool drawn;  /* the next transaction is drawn, waiting for admission */
	/* local landing area: READ results, CAS results */
	struct rec *rd;
	uint64_t *cas;
	struct rec *wr; /* the new values */
};

struct stats {
	uint64_t tried, committed, aborted, lock_fail, validate_fail, errors;
	double *lat;
	uint64_t nlat, maxlat;
};

static struct ctx C[MAX_CTX];
static struct stats S;
static struct zipf Z;
static bool smallbank;
static unsigned int keys_per_tx = 4, write_pct = 50;
static uint64_t raddr;
static uint32_t rkey;

static uint64_t
wr_id(const struct ctx *c, unsigned int i)
{
	return ((uint64_t)c->id << 32) | i;
}

static void
post(struct ctx *c, enum ordk_wr_opcode op, unsigned int i, uint64_t local, uint32_t len,
     uint64_t remote, uint64_t cmp, uint64_t swap)
{
	struct ordk_send_wr w = { .wr_id = wr_id(c, i), .opcode = op, .num_sge = 1,
				  .send_flags = ORDK_SEND_SIGNALED };

	w.sge = (struct ordk_sge){ local, len, N.mr->lkey };
	if (op == ORDK_WR_ATOMIC_CMP_AND_SWP) {
		w.atomic.remote_addr = remote;
		w.atomic.rkey = rkey;
		w.atomic.compare_add = cmp;
		w.atomic.swap = swap;
	} else {
		w.rdma.remote_addr = remote;
		w.rdma.rkey = rkey;
	}
	if (ordk_qp_post_send(c->qp, &w, 1) == 1)
		c->waiting++;
	else
		c->failed = true, S.errors++;
}

static uint64_t
raddr_of(uint64_t key)
{
	return raddr + key * REC;
}

/* Draw the next transaction of @p c (its keys wait for admission: see loop_a.h). */
static void
draw(struct ctx *c, uint64_t *seed)
{
	c->nkeys = smallbank ? 2 : keys_per_tx;
	c->nwrite = 0;
	for (unsigned int i = 0; i < c->nkeys; i++) {
		bool dup;

		do { /* distinct keys */
			c->key[i] = zipf_next(&Z, seed);
			dup = false;
			for (unsigned int j = 0; j < i; j++)
				dup |= c->key[j] == c->key[i];
		} while (dup);
		c->write[i] = smallbank || rnd(seed) % 100 < write_pct;
		c->nwrite += c->write[i];
	}
	c->amount = (int64_t)(rnd(seed) % 100) + 1;
	c->t0 = rte_get_tsc_cycles(); /* the latency includes the wait for admission */
	c->drawn = true;
}

static void
begin(struct ctx *c)
{
	c->drawn = false;
	c->failed = false;
	c->locked = 0;
	S.tried++;
	/* EXECUTE: read every record of the read and write sets */
	c->ph = P_READ;
	for (unsigned int i = 0; i < c->nkeys; i++)
		post(c, ORDK_WR_RDMA_READ, i, (uint64_t)(uintptr_t)&c->rd[i], REC, raddr_of(c->key[i]),
		     0, 0);
}

/*
 * Commit: WRITE the new versions and values, and only once they completed
 * (the peer acknowledged them, so they are in place) free the locks: the
 * card places packets as they come, so an unlock sent behind the data could
 * land first after a loss and let another transaction read old values
 * under a free lock.
 */
static void
commit(struct ctx *c)
{
	c->ph = P_COMMIT;
	for (unsigned int i = 0; i < c->nkeys; i++)
		if (c->write[i])
			post(c, ORDK_WR_RDMA_WRITE, i, (uint64_t)(uintptr_t)&c->wr[i].version, REC - 8,
			     raddr_of(c->key[i]) + 8, 0, 0);
}

/* Free the locks taken (after a commit's data, or on abort). */
static void
unlock(struct ctx *c)
{
	c->ph = P_UNLOCK;
	for (unsigned int i = 0; i < c->nkeys; i++) {
		if (!c->write[i] || !(c->locked & (1u << i)))
			continue;
		c->wr[i].lock = 0;
		post(c, ORDK_WR_RDMA_WRITE, i, (uint64_t)(uintptr_t)&c->wr[i].lock, 8,
		     raddr_of(c->key[i]), 0, 0);
	}
	if (c->waiting == 0) /* nothing to free */
		c->ph = P_IDLE;
}

static void
account(struct ctx *c, bool committed)
{
	la_done(c->key, c->nkeys, committed);
	if (committed) {
		S.committed++;
		if (S.nlat < S.maxlat)
			S.lat[S.nlat++] = (double)(rte_get_tsc_cycles() - c->t0) * 1e6 / hz;
	} else {
		S.aborted++;
	}
}

/* A phase's completions are all in: decide the next step. */
static void
advance(struct ctx *c)
{
	switch (c->ph) {
	case P_READ:
		if (c->failed) {
			unlock(c);
			account(c, false);
			return;
		}
		for (unsigned int i = 0; i < c->nkeys; i++) {
			c->version[i] = c->rd[i].version;
			c->wr[i] = c->rd[i];
			c->wr[i].version++;
		}
		if (smallbank) { /* a transfer: from key 0 to key 1, when the balance allows */
			int64_t amt = (int64_t)c->rd[0].value[0] >= c->amount ? c->amount : 0;

			c->wr[0].value[0] -= (uint64_t)amt;
			c->wr[1].value[0] += (uint64_t)amt;
		} else {
			for (unsigned int i = 0; i < c->nkeys; i++)
				c->wr[i].value[1]++;
		}
		if (c->nwrite == 0) { /* read-only: validate straight away */
			c->ph = P_VALIDATE;
			for (unsigned int i = 0; i < c->nkeys; i++)
				post(c, ORDK_WR_RDMA_READ, i, (uint64_t)(uintptr_t)&c->rd[i], 16,
				     raddr_of(c->key[i]), 0, 0);
			return;
		}
		c->ph = P_LOCK;
		for (unsigned int i = 0; i < c->nkeys; i++)
			if (c->write[i])
				post(c, ORDK_WR_ATOMIC_CMP_AND_SWP, i, (uint64_t)(uintptr_t)&c->cas[i],
				     8, raddr_of(c->key[i]), 0, c->id + 1);
		return;
	case P_LOCK:
		for (unsigned int i = 0; i < c->nkeys; i++)
			if (c->write[i]) {
				if (c->cas[i] == 0)
					c->locked |= 1u << i;
				else
					c->failed = true;
			}
		if (c->failed) {
			S.lock_fail++;
			unlock(c);
			account(c, false);
			return;
		}
		c->ph = P_VALIDATE;
		for (unsigned int i = 0; i < c->nkeys; i++)
			post(c, ORDK_WR_RDMA_READ, i, (uint64_t)(uintptr_t)&c->rd[i], 16,
			     raddr_of(c->key[i]), 0, 0);
		return;
	case P_VALIDATE:
		for (unsigned int i = 0; i < c->nkeys; i++) {
			uint64_t want_lock = c->write[i] ? c->id + 1 : 0;

			if (c->rd[i].version != c->version[i] || c->rd[i].lock != want_lock)
				c->failed = true;
		}
		if (c->failed) {
			S.validate_fail++;
			unlock(c);
			account(c, false);
			return;
		}
		if (c->nwrite == 0) {
			account(c, true);
			c->ph = P_IDLE;
			return;
		}
		commit(c);
		return;
	case P_COMMIT: /* the data is in place: committed; now free the locks */
		if (c->failed) { /* cannot happen without an error completion: counted there */
			c->ph = P_IDLE;
			return;
		}
		account(c, true);
		unlock(c);
		return;
	case P_UNLOCK:
		c->ph = P_IDLE;
		return;
	default:
		return;
	}
}

/* At the end: every lock free and, for SmallBank, the total balance kept. */
static int
check_table(void)
{
	const uint64_t chunk = 32768 / REC;
	uint64_t total = 0, locked = 0;
	struct rec *buf = (struct rec *)(N.buf + MAX_CTX * 4096); /* 64 KiB beyond the contexts */

	for (uint64_t k = 0; k < nrec; k += chunk) {
		uint64_t n = nrec - k < chunk ? nrec - k : chunk;
		struct ordk_send_wr w = { .opcode = ORDK_WR_RDMA_READ, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		struct ordk_wc wc;

		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)buf, (uint32_t)(n * REC), N.mr->lkey };
		w.rdma.remote_addr = raddr_of(k);
		w.rdma.rkey = rkey;
		if (ordk_qp_post_send(C[0].qp, &w, 1) != 1 || ex_wait(&N, &wc, 1, 10) != 1 ||
		    wc.status != ORDK_WC_SUCCESS) {
			fprintf(stderr, "compute: cannot read the table back\n");
			return -1;
		}
		for (uint64_t i = 0; i < n; i++) {
			total += buf[i].value[0];
			locked += buf[i].lock != 0;
		}
	}
	printf("check: %" PRIu64 " records, %" PRIu64 " locked", nrec, locked);
	if (smallbank)
		printf(", total balance %" PRIu64 " (%s %" PRIu64 ")", total,
		       total == nrec * BALANCE0 ? "kept: was" : "BROKEN: was", nrec * BALANCE0);
	printf("\n");
	return locked == 0 && (!smallbank || total == nrec * BALANCE0) ? 0 : -1;
}

static int
compute_main(const char *host, uint16_t cm_port, unsigned int nctx, double duration,
	     uint64_t ntx)
{
	uint64_t seed = 0x853C49E6748FEA9Bull ^ (uint64_t)getpid();
	double t0, secs, until;
	int rc = 0;

	if (mc) { /* SyncComputeNodes, then QPs through memcached */
		const struct ordk_cm_group all[] = { { "mn", 1 }, { "cn", cfg.n_cn } };

		if (ex_cluster_sync(mc, "start", "cn", node_id, all, 2, sync_s) != 0 ||
		    ex_mc_offer(&N, mc, "cn", node_id, "mn", 0, nctx, 64) != 0 ||
		    ex_mc_join(&N, mc, "cn", node_id, "mn", 0, sync_s) != 0)
			return 1;
	} else if (ex_connect(&N, host, cm_port, nctx, 64) != 0) {
		return 1;
	}
	raddr = N.peer[0].addr;
	rkey = N.peer[0].rkey;
	if ((uint64_t)N.peer[0].len < nrec * REC) {
		fprintf(stderr, "compute: the memory node has %u bytes, %" PRIu64 " needed\n",
			N.peer[0].len, nrec * REC);
		return 1;
	}
	S.maxlat = 4u << 20;
	S.lat = malloc(sizeof(double) * S.maxlat);
	for (unsigned int i = 0; i < nctx; i++) {
		uint8_t *area = N.buf + (size_t)i * 4096;

		C[i] = (struct ctx){ .id = i, .qp = N.qp[i], .rd = (struct rec *)area,
				     .wr = (struct rec *)(area + MAX_KEYS_TX * REC),
				     .cas = (uint64_t *)(area + 2 * MAX_KEYS_TX * REC) };
	}
	printf("compute: %s, %u contexts, %s, %" PRIu64 " records, %s\n", N.at.name, nctx,
	       smallbank ? "SmallBank transfers" : "YCSB-like", nrec,
	       Z.hot_n ? "hot set" : "Zipfian");
	t0 = ordk_env_now_s();
	until = t0 + duration;
	for (;;) {
		struct ordk_wc wc[32];
		int k;
		bool more = ntx ? S.tried < ntx : ordk_env_now_s() < until, busy = false;

		for (unsigned int i = 0; i < nctx; i++) {
			if (C[i].ph == P_IDLE && more && (!ntx || S.tried < ntx)) {
				if (!C[i].drawn)
					draw(&C[i], &seed);
				if (la_admit(C[i].key, C[i].nkeys))
					begin(&C[i]);
			}
			busy |= C[i].ph != P_IDLE;
		}
		if (!busy && !more)
			break;
		la_tick(ordk_env_now_s());
		k = ordk_cq_poll(N.cq, wc, 32);
		if (k == 0 && idle_us)
			usleep(idle_us);
		for (int i = 0; i < k; i++) {
			struct ctx *c = &C[wc[i].wr_id >> 32];

			if (wc[i].status != ORDK_WC_SUCCESS) {
				fprintf(stderr, "compute: context %u: %s\n", c->id,
					ordk_wc_status_str(wc[i].status));
				S.errors++;
				c->failed = true;
				rc = 2;
			}
			if (--c->waiting == 0)
				advance(c);
		}
		if (rc != 0 || ordk_env_now_s() > until + 60)
			break;
	}
	secs = ordk_env_now_s() - t0;
	ex_sort(S.lat, S.nlat);
	{
		double sum = 0;

		for (uint64_t i = 0; i < S.nlat; i++)
			sum += S.lat[i];
		printf(" %-10s %12s %12s\n", "", "count", "per second");
		printf(" %-10s %12" PRIu64 " %12.0f\n", "tried", S.tried, S.tried / secs);
		printf(" %-10s %12" PRIu64 " %12.0f\n", "committed", S.committed, S.committed / secs);
		printf(" %-10s %12" PRIu64 " %12.0f   (%.2f%%: %" PRIu64 " lock, %" PRIu64
		       " validation)\n",
		       "aborted", S.aborted, S.aborted / secs,
		       S.tried ? 100.0 * S.aborted / S.tried : 0, S.lock_fail, S.validate_fail);
		printf(" latency of committed [usec]: avg %.2f  p50 %.2f  p90 %.2f  p99 %.2f  p999 %.2f\n",
		       S.nlat ? sum / S.nlat : 0, ex_pct(S.lat, S.nlat, 50), ex_pct(S.lat, S.nlat, 90),
		       ex_pct(S.lat, S.nlat, 99), ex_pct(S.lat, S.nlat, 99.9));
	}
	la_report(stdout);
	if (rc == 0 && S.committed + S.aborted != S.tried) {
		fprintf(stderr, "compute: %" PRIu64 " transactions unaccounted for\n",
			S.tried - S.committed - S.aborted);
		rc = 2;
	}
	if (mc) { /* every compute node stopped writing before anyone checks */
		const struct ordk_cm_group cns[] = { { "cn", cfg.n_cn } };

		if (rc == 0 && ex_cluster_sync(mc, "done", "cn", node_id, cns, 1, sync_s) != 0)
			rc = 3;
	}
	if (rc == 0 && check_table() != 0)
		rc = 2;
	printf("compute: %s\n", rc == 0 ? "invariant holds" : "FAILED");
	{ /* the memory node stops on our BYE */
		struct ordk_send_wr w = { .opcode = ORDK_WR_SEND, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		struct ordk_wc wc;

		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)N.buf, 4, N.mr->lkey };
		if (ordk_qp_post_send(N.qp[0], &w, 1) == 1)
			ex_wait(&N, &wc, 1, EX_BYE_WAIT_S);
	}
	free(S.lat);
	return rc;
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

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
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
	const char *role = argc > 1 ? argv[1] : "", *devargs = NULL, *host = "127.0.0.1";
	const char *config = NULL;
	uint16_t cm_port = CM_PORT;
	unsigned int nctx = 8, hot_of = 0, hot_k = 1;
	struct la_cfg la = { .mode = LA_OFF, .ai_step = 4, .nf = 2, .hi = 0.2, .period_s = 0.005 };
	double theta = 0.99, duration = 5, seconds = 600, hot_p = 0;
	uint64_t ntx = 0;
	bool client;
	int targc, eal, c, rc;
	char **targv;

	setvbuf(stdout, NULL, _IOLBF, 0);
	nrec = 100000;
	if (strcmp(role, "memory") != 0 && strcmp(role, "compute") != 0) {
		usage();
		return 1;
	}
	argv[1] = argv[0];
	eal = ex_split_args(argc - 1, argv + 1, &targc, &targv);
	while ((c = getopt_long(targc, targv, "d:H:c:D:n:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': devargs = optarg; break;
		case 'H': host = optarg; break;
		case 'c': cm_port = (uint16_t)atoi(optarg); break;
		case 'D': duration = atof(optarg); break;
		case 'n': ntx = strtoull(optarg, NULL, 0); break;
		case 't': seconds = atof(optarg); break;
		case 'R': nrec = strtoull(optarg, NULL, 0); break;
		case 'W':
			if (strcmp(optarg, "smallbank") == 0)
				smallbank = true;
			else if (strcmp(optarg, "ycsb") != 0) {
				usage();
				return 1;
			}
			break;
		case 'T': theta = atof(optarg); break;
		case 'O':
			if (sscanf(optarg, "%u/%u:%lf", &hot_k, &hot_of, &hot_p) != 3 &&
			    (hot_k = 1, sscanf(optarg, "%u:%lf", &hot_of, &hot_p) != 2)) {
				usage();
				return 1;
			}
			break;
		case 'K': keys_per_tx = (unsigned int)atoi(optarg); break;
		case 'P': write_pct = (unsigned int)atoi(optarg); break;
		case 'C': nctx = (unsigned int)atoi(optarg); break;
		case 'F': config = optarg; break;
		case 'I': node_id = (unsigned int)atoi(optarg); break;
		case 'Y': sync_s = atof(optarg); break;
		case 'U': idle_us = (unsigned int)atoi(optarg); break;
		case 'A':
			if (optarg == NULL || strcmp(optarg, "key") == 0)
				la.mode = LA_KEY;
			else if (strcmp(optarg, "worker") == 0)
				la.mode = LA_WORKER;
			else {
				usage();
				return 1;
			}
			break;
		case 'a': la.ai_step = (unsigned int)atoi(optarg); break;
		case 'f': la.nf = (unsigned int)atoi(optarg); break;
		case 'i': la.hi = atof(optarg); break;
		case 'e': la.period_s = atof(optarg) * 1e-6; break;
		default: usage(); return c == 'h' ? 0 : 1;
		}
	}
	if (nrec < 16 || nrec > (64u << 20) / REC * 16 || nctx == 0 || nctx > MAX_CTX ||
	    keys_per_tx == 0 || keys_per_tx > MAX_KEYS_TX || write_pct > 100 || theta < 0 ||
	    theta >= 1 ||
	    (hot_of && (hot_of < 2 || hot_k == 0 || hot_k >= hot_of || !(hot_p > 0 && hot_p < 1))) ||
	    !(duration > 0) || cm_port == 0 || !(sync_s > 0) || idle_us > 100000 || la.nf < 2 ||
	    la.ai_step == 0 || !(la.hi > 0 && la.hi < 1) || !(la.period_s > 0)) {
		fprintf(stderr, "dm_txn: bad value (--records 16.., --contexts 1..%u, --keys 1..%u, "
				"--theta [0, 1), --hot [K/]N:p, --loop_a_nf 2.., --loop_a_hi (0, 1))\n", MAX_CTX, MAX_KEYS_TX);
		return 1;
	}
	client = strcmp(role, "compute") == 0;
	if (config != NULL && cluster_open(config, client) != 0)
		return 1;
	if (devargs == NULL)
		devargs = config ? cfg.device : "bluesim,port=0";
	if (ex_eal_init(eal, argv + 1, "txn", client, cm_port,
			256 + (unsigned int)(nrec * REC >> 20), devargs) != 0)
		return 1;
	hz = rte_get_tsc_hz();
	la.max = nctx;
	la_init(&la);
	if (client) {
		zipf_init(&Z, nrec, theta);
		if (hot_of) {
			Z.hot_n = nrec * hot_k / hot_of; /* "hot_k of hot_of warehouses" */
			Z.hot_p = hot_p;
		}
	}
	if (ex_node_open(&N, devargs, client, client ? MAX_CTX * 4096 + (64u << 10)
						     : nrec * REC + 4096,
			 MAX_CTX * 128 + 64) != 0)
		rc = 1;
	else if (client)
		rc = compute_main(host, cm_port, nctx, duration, ntx);
	else
		rc = memory_main(cm_port, seconds);
	ex_finish(&N);
	ordk_cm_mc_close(mc);
	return rc;
}
