/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_transfer's client: puts (RDMA WRITE) and batch gets (RDMA READ) of
 * blocks of every size, a large block striped over all QPs, many transfers
 * in flight, every block verified (its bytes are a function of its key);
 * the blocks' places from the metadata service or from Redis.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>

#include "app_common.h"
#include "kv.h"
#include "kv_redis.h"
#include "ordk_devargs.h"

#define STRIPE_MIN  (64u << 10)

struct loc {
	uint64_t addr, len;
	uint32_t rkey;
	unsigned int q0; /* the block's worker's first QP (its nq QPs follow) */
};

struct xfer { /* one request of a batch */
	uint32_t left;	/* stripes not completed */
	uint64_t t0;
	int status;
};

/*
 * What the metadata (a worker's record, a block's location) says is a peer's
 * input: a worker's port must be one, a block as long as the one asked for (a
 * longer READ would land beyond its slot). @return 0 or -1, said.
 */
static int
meta_port_ok(const char *who, unsigned int port)
{
	char err[128];

	if (ordk_devargs_check_range("cm_port", port, 1, 65535, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "client: the metadata of %s: %s\n", who, err);
	return -1;
}

static int
meta_len_ok(unsigned int i, uint64_t len, size_t size)
{
	char err[128];

	if (ordk_devargs_check_range("len", len, size, size, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "client: the metadata of block %u: %s\n", i, err);
	return -1;
}

/* the workers seen in Redis, and the QPs to each (the client's -q) */
static struct kvr_node W[MAX_NODES];
static unsigned int nw, nq;

static uint64_t
seed_of(const char *key)
{
	return meta_key_hash(key);
}

/* A large block goes out in stripes over every QP (at least STRIPE_MIN each). */
static uint64_t
stripe_of(uint64_t len)
{
	uint64_t stripe = (len / nq + 4095) & ~4095ull;

	return stripe < STRIPE_MIN ? STRIPE_MIN : stripe;
}

/* Stripes a block puts on each QP at most. */
static uint32_t
stripes_per_qp(uint64_t len)
{
	uint64_t n = (len + stripe_of(len) - 1) / stripe_of(len);

	return (uint32_t)((n + nq - 1) / nq);
}

/*
 * Post the stripes of one block (WRITE from or READ into @p local), stripe k
 * on QP k % nq; the caller made sure every QP has room. @p id marks them.
 * @return the number of stripes, or 0 when a post failed.
 */
static uint32_t
post_stripes(enum ordk_wr_opcode op, uint64_t local, const struct loc *l, uint64_t id,
	     unsigned int *outstanding)
{
	uint64_t stripe = stripe_of(l->len);
	uint32_t k = 0;

	for (uint64_t off = 0; off < l->len; off += stripe, k++) {
		unsigned int q = l->q0 + k % nq;
		/* the QP rides in the top byte: completions say where room came free */
		struct ordk_send_wr w = { .wr_id = (uint64_t)q << 56 | id, .opcode = op, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		uint32_t len = (uint32_t)(l->len - off < stripe ? l->len - off : stripe);

		w.sge = (struct ordk_sge){ local + off, len, N.mr->lkey };
		w.rdma.remote_addr = l->addr + off;
		w.rdma.rkey = l->rkey;
		if (ordk_qp_post_send(N.qp[q], &w, 1) != 1)
			return 0;
		outstanding[q]++;
	}
	return k;
}

/*
 * Move @p n blocks: op WRITE (put) or READ (get), block i between local
 * offset i * slot and locs[i]. Many in flight; per-block latency in lat[i]
 * (usec). @return the number of failed blocks.
 */
static unsigned int
transfer(enum ordk_wr_opcode op, const struct loc *locs, unsigned int n, size_t slot, double *lat)
{
	static struct xfer x[MAX_KEYS];
	unsigned int outstanding[EX_MAX_QPS] = { 0 }, next = 0, done = 0, failed = 0;
	double until = ordk_env_now_s() + 60;

	while (done < n && ordk_env_now_s() < until) {
		struct ordk_wc wc[64];
		int k;

		/* keep posting while every QP has room for this block's stripes */
		while (next < n) {
			uint32_t need = stripes_per_qp(locs[next].len), s;
			bool room = true;

			for (unsigned int q = locs[next].q0; q < locs[next].q0 + nq; q++)
				room &= outstanding[q] + need <= window;
			if (!room)
				break;
			x[next] = (struct xfer){ .t0 = rte_get_tsc_cycles() };
			s = post_stripes(op, (uint64_t)(uintptr_t)N.buf + (uint64_t)next * slot,
					 &locs[next], next, outstanding);
			if (s == 0)
				return n; /* cannot post: every block counts as failed */
			x[next].left = s;
			next++;
		}
		k = ordk_cq_poll(N.cq, wc, 64);
		for (int i = 0; i < k; i++) {
			uint64_t id = wc[i].wr_id & ((1ull << 56) - 1);
			struct xfer *t = &x[id];

			outstanding[wc[i].wr_id >> 56]--;
			if (wc[i].status != ORDK_WC_SUCCESS) {
				if (t->status == 0)
					fprintf(stderr, "client: block %" PRIu64 " on QP 0x%06x: %s\n",
						id, wc[i].qp_num, ordk_wc_status_str(wc[i].status));
				t->status = -1;
			}
			if (--t->left == 0) {
				lat[id] = (double)(rte_get_tsc_cycles() - t->t0) * 1e6 / hz;
				failed += t->status != 0;
				done++;
			}
		}
	}
	if (done < n)
		fprintf(stderr, "client: %u of %u blocks still in flight after 60 s\n", n - done, n);
	return failed + (n - done);
}

static void
key_of(char *k, size_t len, size_t size, unsigned int i)
{
	snprintf(k, len, "layer%02u/blk-%zu-%u", i % 32, size, i);
}

/* Redis: block i on worker i % nw, its room taken from that worker's pool. */
static int
redis_place(size_t size, unsigned int n, struct loc *locs)
{
	uint64_t need = (size + 4095) & ~4095ull, off;

	for (unsigned int i = 0; i < n; i++) {
		const struct kvr_node *w = &W[i % nw];

		if (kvr_alloc(w->name, need, &off) != 0) {
			fprintf(stderr, "client: worker %s is gone from the metadata\n", w->name);
			return -1;
		}
		if (off + need > w->len - CTRL_BYTES) {
			fprintf(stderr, "client: the pool of %s is full\n", w->name);
			return -1;
		}
		locs[i] = (struct loc){ .addr = w->base + off, .len = size, .rkey = w->rkey,
					.q0 = (i % nw) * nq };
	}
	return 0;
}

static int
redis_commit(size_t size, unsigned int n, const struct loc *locs)
{
	char k[KEY_MAX];

	for (unsigned int i = 0; i < n; i++) {
		key_of(k, sizeof(k), size, i);
		if (kvr_commit(W[i % nw].name, k, locs[i].addr, size, locs[i].rkey) != 0) {
			fprintf(stderr, "client: %s: worker %s is gone\n", k, W[i % nw].name);
			return -1;
		}
	}
	return 0;
}

/* Redis: where each block is, from every live worker's records. */
static int
redis_locate(size_t size, unsigned int n, struct loc *locs)
{
	static char names[MAX_KEYS][KEY_MAX];
	static const char *kp[MAX_KEYS];
	static struct kvr_loc where[MAX_KEYS];
	int found;

	for (unsigned int i = 0; i < n; i++) {
		key_of(names[i], KEY_MAX, size, i);
		kp[i] = names[i];
	}
	found = kvr_lookup(W, nw, kp, n, where);
	if (found != (int)n) {
		fprintf(stderr, "client: %d of %u blocks of %zu B are in the metadata\n", found, n,
			size);
		return -1;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (meta_len_ok(i, where[i].len, size) != 0)
			return -1;
		locs[i] = (struct loc){ .addr = where[i].addr, .len = where[i].len,
					.rkey = where[i].rkey, .q0 = (unsigned int)where[i].node * nq };
	}
	return 0;
}

/* put (WRITE) n blocks of @p size: meta PUT, transfer, meta COMMIT. */
static int
kv_put_many(size_t size, unsigned int n, size_t slot, double *lat, double *secs)
{
	static struct loc locs[MAX_KEYS];
	char k[KEY_MAX], line[256];
	unsigned int node;
	uint64_t t0;

	for (unsigned int i = 0; i < n; i++) { /* the data: a function of the key */
		key_of(k, sizeof(k), size, i);
		ex_fill(N.buf + (size_t)i * slot, size, seed_of(k));
	}
	for (unsigned int i = 0; i < n && !redis; i++) { /* pipelined PUTs */
		key_of(k, sizeof(k), size, i);
		meta_send("PUT %s %zu\n", k, size);
	}
	if (redis && redis_place(size, n, locs) != 0)
		return -1;
	for (unsigned int i = 0; i < n && !redis; i++) {
		unsigned long long addr;

		if (meta_recv(line, sizeof(line)) != 0 ||
		    sscanf(line, "OK %u %llu %u", &node, &addr, &locs[i].rkey) != 3) {
			fprintf(stderr, "client: PUT refused: %s", line);
			return -1;
		}
		locs[i].addr = addr;
		locs[i].len = size;
	}
	if (n > N.len / slot - 1) {
		fprintf(stderr, "client: %u blocks of %zu B do not fit the local buffer\n", n, size);
		return -1;
	}
	t0 = rte_get_tsc_cycles();
	if (transfer(ORDK_WR_RDMA_WRITE, locs, n, slot, lat) != 0) {
		fprintf(stderr, "client: a WRITE failed\n");
		return -1;
	}
	*secs = (double)(rte_get_tsc_cycles() - t0) / hz;
	if (redis)
		return redis_commit(size, n, locs);
	for (unsigned int i = 0; i < n; i++) {
		key_of(k, sizeof(k), size, i);
		meta_send("COMMIT %s\n", k);
	}
	for (unsigned int i = 0; i < n; i++)
		if (meta_recv(line, sizeof(line)) != 0)
			return -1;
	return 0;
}

/* batch_get (READ) n blocks of @p size into zeroed buffers, each verified. */
static int
kv_batch_get(size_t size, unsigned int n, size_t slot, double *lat, double *secs)
{
	static struct loc locs[MAX_KEYS];
	char k[KEY_MAX], line[256];
	uint64_t t0;
	unsigned int bad = 0;

	for (unsigned int i = 0; i < n && !redis; i++) {
		key_of(k, sizeof(k), size, i);
		meta_send("GET %s\n", k);
	}
	if (redis && redis_locate(size, n, locs) != 0)
		return -1;
	for (unsigned int i = 0; i < n && !redis; i++) {
		unsigned int node;
		unsigned long long addr, len;

		if (meta_recv(line, sizeof(line)) != 0 ||
		    sscanf(line, "OK %u %llu %u %llu", &node, &addr, &locs[i].rkey, &len) != 4) {
			fprintf(stderr, "client: GET refused: %s", line);
			return -1;
		}
		if (meta_len_ok(i, len, size) != 0)
			return -1;
		locs[i].addr = addr;
		locs[i].len = len;
	}
	for (unsigned int i = 0; i < n; i++)
		memset(N.buf + (size_t)i * slot, 0, size);
	t0 = rte_get_tsc_cycles();
	if (transfer(ORDK_WR_RDMA_READ, locs, n, slot, lat) != 0) {
		fprintf(stderr, "client: a READ failed\n");
		return -1;
	}
	*secs = (double)(rte_get_tsc_cycles() - t0) / hz;
	for (unsigned int i = 0; i < n; i++) {
		size_t at;

		key_of(k, sizeof(k), size, i);
		at = ex_check(N.buf + (size_t)i * slot, size, seed_of(k));
		if (at != size && bad++ < 3) {
			/* late data after the completion, or data never placed? look again */
			struct ordk_wc wc[8];
			size_t again;

			for (double t = ordk_env_now_s() + 0.1; ordk_env_now_s() < t;)
				ordk_cq_poll(N.cq, wc, 8);
			again = ex_check(N.buf + (size_t)i * slot, size, seed_of(k));
			fprintf(stderr, "client: block %s (%s) differs at byte %zu; 100 ms later %s\n",
				k, redis ? W[locs[i].q0 / nq].name : "worker", at,
				again == size ? "it is right: the data came after its completion"
					      : "it still differs");
		}
	}
	return bad ? -1 : 0;
}

static void
report(const char *what, size_t size, unsigned int n, double secs, double *lat)
{
	ex_sort(lat, n);
	printf(" %-9s %9zu %7u %12.0f %10.3f %10.2f %10.2f\n", what, size, n, n / secs,
	       (double)size * n / secs / 1e9, ex_pct(lat, n, 50), ex_pct(lat, n, 99));
}

/* Redis: wait for the workers (--workers), then nq QPs to each, in name order. */
static int
redis_connect_workers(unsigned int qps)
{
	double until = ordk_env_now_s() + 30;
	int k;

	while ((k = kvr_nodes(W, MAX_NODES)) < (int)want_workers) {
		if (k < 0 || ordk_env_now_s() > until) {
			fprintf(stderr, "client: %d of %u workers registered within 30 s\n", k,
				want_workers);
			return -1;
		}
		usleep(20000);
	}
	nw = (unsigned int)k;
	if (nw * qps > EX_MAX_QPS) {
		fprintf(stderr, "client: %u workers x %u QPs: more than %u\n", nw, qps, EX_MAX_QPS);
		return -1;
	}
	nq = qps;
	for (unsigned int j = 0; j < nw; j++) {
		if (meta_port_ok(W[j].name, W[j].cm_port) != 0 ||
		    ex_connect(&N, W[j].host, (uint16_t)W[j].cm_port, qps, DEPTH) != 0)
			return -1;
		printf("client: %s, %u QPs to worker %s at %s:%u (pool %" PRIu64 " MiB)\n",
		       N.attr.name, qps, W[j].name, W[j].host, W[j].cm_port, W[j].len >> 20);
	}
	return 0;
}

/* QPs to the workers: every one registered in Redis, or the service's node 0. */
static int
client_connect(const char *mhost, uint16_t mport, unsigned int qps)
{
	char line[256], host[64];
	unsigned int cm_port;

	if (redis) {
		if (redis_connect_workers(qps) != 0)
			return -1;
	} else if (meta_connect(mhost, mport) != 0) {
		fprintf(stderr, "client: cannot reach the metadata service at %s:%u\n", mhost, mport);
		return -1;
	}
	for (double until = ordk_env_now_s() + 30; !redis;) { /* a worker may still be starting */
		meta_send("NODE 0\n");
		if (meta_recv(line, sizeof(line)) == 0 &&
		    sscanf(line, "OK %63s %u", host, &cm_port) == 2)
			break;
		if (ordk_env_now_s() > until) {
			fprintf(stderr, "client: no worker registered within 30 s (%s)", line);
			return -1;
		}
		usleep(50000);
	}
	if (!redis) {
		if (meta_port_ok(host, cm_port) != 0 ||
		    ex_connect(&N, host, (uint16_t)cm_port, qps, DEPTH) != 0)
			return -1;
		nq = N.nqp;
		printf("client: %s, %u QPs to the worker at %s:%u\n", N.attr.name, nq, host, cm_port);
	}
	return 0;
}

int
client_main(const char *mhost, uint16_t mport, unsigned int qps, bool bench, unsigned int count,
	    bool shutdown_meta)
{
	static const size_t sizes[] = { 4096, 16384, 65536, 262144, 1u << 20, 4u << 20 };
	static double lat[MAX_KEYS];
	char line[256];
	int rc = 0;

	if (client_connect(mhost, mport, qps) != 0)
		return 1;
	printf(" %-9s %9s %7s %12s %10s %10s %10s\n", "op", "bytes", "blocks", "requests/s", "GB/s",
	       "p50[us]", "p99[us]");
	/* the short run: 64 KiB and 4 MiB blocks; --bench: every size, 64 MiB of each */
	for (unsigned int s = 0; s < 6 && rc == 0; s++) {
		size_t size = sizes[s], slot = size;
		unsigned int n = count ? count : (unsigned int)((bench ? 64u << 20 : 4u << 20) / size);
		double secs;

		if (!bench && size != 65536 && size != (4u << 20))
			continue;
		if (n < 4)
			n = 4;
		if (n > (N.len - CTRL_BYTES) / slot - 1)
			n = (unsigned int)((N.len - CTRL_BYTES) / slot - 1);
		if (n > MAX_KEYS)
			n = MAX_KEYS;
		rc = kv_put_many(size, n, slot, lat, &secs);
		if (rc == 0)
			report("put", size, n, secs, lat);
		if (rc == 0)
			rc = kv_batch_get(size, n, slot, lat, &secs);
		if (rc == 0)
			report("batch_get", size, n, secs, lat);
	}
	if (rc == 0 && bench) { /* the figure Mooncake users quote: one 4 MiB push */
		double one[21], secs;

		for (unsigned int i = 0; i < 21 && rc == 0; i++)
			rc = kv_put_many(4u << 20, 1, 4u << 20, &one[i], &secs);
		ex_sort(one, 21);
		if (rc == 0)
			printf("one 4 MiB push: %.1f us (median of 21, min %.1f us)\n", one[10], one[0]);
	}
	printf("client: %s\n", rc == 0 ? "every block verified" : "FAILED");
	for (unsigned int j = 0; j < (redis ? nw : 1) && !keep_workers; j++) {
		/* a worker stops on our BYE */
		struct ordk_send_wr w = { .opcode = ORDK_WR_SEND, .num_sge = 1,
					  .send_flags = ORDK_SEND_SIGNALED };
		struct ordk_wc wc;

		w.sge = (struct ordk_sge){ (uint64_t)(uintptr_t)N.buf, 4, N.mr->lkey };
		ordk_qp_post_send(N.qp[j * nq], &w, 1);
		ex_wait(&N, &wc, 1, EX_BYE_WAIT_S);
	}
	if (shutdown_meta) {
		meta_send("SHUTDOWN\n");
		meta_recv(line, sizeof(line));
	}
	return rc == 0 ? 0 : 2;
}
