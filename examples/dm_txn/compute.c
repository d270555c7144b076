/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dm_txn's compute node: C transaction contexts, each on its own QP, each a
 * state machine: READ the read and write sets, lock the write set with
 * CMP_AND_SWP, validate by reading versions again, WRITE the new values and
 * versions, WRITE the locks free; any conflict aborts and frees the locks
 * taken. At the end every lock must be free and, for SmallBank, the total
 * balance kept.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "app_common.h"
#include "dm_txn.h"
#include "loop_a.h"

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
struct zipf Z;
bool smallbank;
unsigned int keys_per_tx = 4, write_pct = 50;
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

/* EXECUTE's reads are in: the new values, then LOCK (or VALIDATE when read-only). */
static void
read_done(struct ctx *c)
{
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
}

/* A phase's completions are all in: decide the next step. */
static void
advance(struct ctx *c)
{
	switch (c->ph) {
	case P_READ:
		read_done(c);
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

/* QPs to the memory node (through memcached in a cluster), and where its table is. */
static int
compute_connect(const char *host, uint16_t cm_port, unsigned int nctx)
{
	if (mc) { /* SyncComputeNodes, then QPs through memcached */
		const struct ordk_cm_group all[] = { { "mn", 1 }, { "cn", cfg.n_cn } };

		if (ex_cluster_sync(mc, "start", "cn", node_id, all, 2, sync_s) != 0 ||
		    ex_mc_offer(&N, mc, "cn", node_id, "mn", 0, nctx, 64) != 0 ||
		    ex_mc_join(&N, mc, "cn", node_id, "mn", 0, sync_s) != 0)
			return -1;
	} else if (ex_connect(&N, host, cm_port, nctx, 64) != 0) {
		return -1;
	}
	raddr = N.peer[0].addr;
	rkey = N.peer[0].rkey;
	if ((uint64_t)N.peer[0].len < nrec * REC) {
		fprintf(stderr, "compute: the memory node has %u bytes, %" PRIu64 " needed\n",
			N.peer[0].len, nrec * REC);
		return -1;
	}
	return 0;
}

/*
 * Run transactions until @p until (or @p ntx of them), each context with one
 * in flight, and until every context is idle. @return 0, or 2 on an error
 * completion.
 */
static int
compute_run(unsigned int nctx, double until, uint64_t ntx, uint64_t *seed)
{
	int rc = 0;

	for (;;) {
		struct ordk_wc wc[32];
		int k;
		bool more = ntx ? S.tried < ntx : ordk_env_now_s() < until, busy = false;

		for (unsigned int i = 0; i < nctx; i++) {
			if (C[i].ph == P_IDLE && more && (!ntx || S.tried < ntx)) {
				if (!C[i].drawn)
					draw(&C[i], seed);
				if (la_admit(C[i].key, C[i].nkeys))
					begin(&C[i]);
			}
			busy |= C[i].ph != P_IDLE;
		}
		if (!busy && !more)
			break;
		la_tick(ordk_env_now_s());
		k = ordk_cq_poll(N.cq, wc, 32);
		if (k == 0 && idle_us) {
			ordk_dev_idle(N.dev, idle_us * 1000ull); /* a planned pause: timers run on */
			usleep(idle_us);
		}
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
	return rc;
}

/* The counts, rates and latencies of a run of @p secs seconds. */
static void
compute_report(double secs)
{
	double sum = 0;

	ex_sort(S.lat, S.nlat);
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

int
compute_main(const char *host, uint16_t cm_port, unsigned int nctx, double duration,
	     uint64_t ntx)
{
	uint64_t seed = 0x853C49E6748FEA9Bull ^ (uint64_t)getpid();
	double t0, secs, until;
	int rc = 0;

	if (compute_connect(host, cm_port, nctx) != 0)
		return 1;
	S.maxlat = 4u << 20;
	S.lat = malloc(sizeof(double) * S.maxlat);
	for (unsigned int i = 0; i < nctx; i++) {
		uint8_t *area = N.buf + (size_t)i * 4096;

		C[i] = (struct ctx){ .id = i, .qp = N.qp[i], .rd = (struct rec *)area,
				     .wr = (struct rec *)(area + MAX_KEYS_TX * REC),
				     .cas = (uint64_t *)(area + 2 * MAX_KEYS_TX * REC) };
	}
	printf("compute: %s, %u contexts, %s, %" PRIu64 " records, %s\n", N.attr.name, nctx,
	       smallbank ? "SmallBank transfers" : "YCSB-like", nrec,
	       Z.hot_n ? "hot set" : "Zipfian");
	t0 = ordk_env_now_s();
	until = t0 + duration;
	rc = compute_run(nctx, until, ntx, &seed);
	secs = ordk_env_now_s() - t0;
	compute_report(secs);
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
