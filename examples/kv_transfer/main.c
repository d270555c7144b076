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
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>

#include "app_common.h"
#include "ex.h"
#include "kv_redis.h"

#define META_PORT   18800
#define CM_PORT	    18801
#define KEY_MAX	    64
#define MAX_KEYS    65536
#define MAX_NODES   16
#define DEPTH	    256u
#define CTRL_BYTES  4096u /* the end of every buffer: BYE messages */
#define STRIPE_MIN  (64u << 10)

static volatile sig_atomic_t stop;

/* metadata in Redis (--redis or --config): this worker's name, the lease, the workers seen */
static bool redis;
static char wname[32];
static unsigned int lease_ms = 3000, idle_us, want_workers = 1;
static bool keep_workers;
static struct kvr_node W[MAX_NODES];
static unsigned int nw;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* ------------------------------------------------------ metadata service */

struct meta_node {
	char host[64];
	unsigned int cm_port;
	uint64_t base, len, used;
	uint32_t rkey;
};

struct meta_key {
	char key[KEY_MAX];
	unsigned int node;
	uint64_t addr, len;
	bool used, committed;
};

static struct meta_node nodes[MAX_NODES];
static unsigned int nnodes, next_node;
static struct meta_key keys[MAX_KEYS];

static uint64_t
key_hash(const char *k)
{
	uint64_t h = 1469598103934665603ull;

	for (; *k; k++)
		h = (h ^ (uint8_t)*k) * 1099511628211ull;
	return h;
}

static struct meta_key *
key_slot(const char *k, bool create)
{
	for (uint64_t i = key_hash(k) % MAX_KEYS, n = 0; n < MAX_KEYS; n++, i = (i + 1) % MAX_KEYS) {
		if (keys[i].used && strcmp(keys[i].key, k) == 0)
			return &keys[i];
		if (!keys[i].used)
			return create ? &keys[i] : NULL;
	}
	return NULL;
}

/* One request line -> one reply line. @return false to end the service. */
static bool
meta_line(char *line, char *out, size_t len)
{
	char cmd[16], k[KEY_MAX + 1] = "", host[64];
	unsigned long long a, b, c, d;
	struct meta_key *e;

	if (sscanf(line, "%15s", cmd) != 1) {
		snprintf(out, len, "ERR empty\n");
		return true;
	}
	if (strcmp(cmd, "REG") == 0 &&
	    sscanf(line, "REG %63s %llu %llu %llu %llu", host, &a, &b, &c, &d) == 5) {
		if (nnodes == MAX_NODES || a == 0 || a > 65535) {
			snprintf(out, len, "ERR cannot register\n");
			return true;
		}
		nodes[nnodes] = (struct meta_node){ .cm_port = (unsigned int)a, .base = b,
						    .rkey = (uint32_t)c, .len = d };
		snprintf(nodes[nnodes].host, sizeof(nodes[nnodes].host), "%s", host);
		snprintf(out, len, "OK %u\n", nnodes++);
	} else if (strcmp(cmd, "PUT") == 0 && sscanf(line, "PUT %64s %llu", k, &a) == 2 &&
		   strlen(k) < KEY_MAX) {
		e = key_slot(k, true);
		if (e == NULL || nnodes == 0 || a == 0) {
			snprintf(out, len, "ERR no room\n");
			return true;
		}
		if (!e->used || e->len < a) { /* a new block, placed round-robin over the nodes */
			unsigned int tries = 0, nd = next_node % nnodes;
			uint64_t need = (a + 4095) & ~4095ull;

			while (tries < nnodes && nodes[nd].used + need > nodes[nd].len - CTRL_BYTES)
				nd = (nd + 1) % nnodes, tries++;
			if (tries == nnodes) {
				snprintf(out, len, "ERR pools full\n");
				return true;
			}
			next_node = nd + 1;
			*e = (struct meta_key){ .node = nd, .addr = nodes[nd].base + nodes[nd].used,
						.used = true };
			snprintf(e->key, sizeof(e->key), "%s", k);
			nodes[nd].used += need;
		}
		e->len = a;
		e->committed = false;
		snprintf(out, len, "OK %u %llu %u\n", e->node, (unsigned long long)e->addr,
			 nodes[e->node].rkey);
	} else if (strcmp(cmd, "COMMIT") == 0 && sscanf(line, "COMMIT %64s", k) == 1) {
		e = key_slot(k, false);
		if (e != NULL)
			e->committed = true;
		snprintf(out, len, e != NULL ? "OK\n" : "ERR missing\n");
	} else if (strcmp(cmd, "GET") == 0 && sscanf(line, "GET %64s", k) == 1) {
		e = key_slot(k, false);
		if (e == NULL || !e->committed)
			snprintf(out, len, "ERR missing\n");
		else
			snprintf(out, len, "OK %u %llu %u %llu\n", e->node, (unsigned long long)e->addr,
				 nodes[e->node].rkey, (unsigned long long)e->len);
	} else if (strcmp(cmd, "NODE") == 0 && sscanf(line, "NODE %llu", &a) == 1) {
		if (a >= nnodes)
			snprintf(out, len, "ERR no such node\n");
		else
			snprintf(out, len, "OK %s %u\n", nodes[a].host, nodes[a].cm_port);
	} else if (strcmp(cmd, "SHUTDOWN") == 0) {
		snprintf(out, len, "OK\n");
		return false;
	} else {
		snprintf(out, len, "ERR bad request\n");
	}
	return true;
}

/* The service runs without EAL (no TSC frequency): its clock is ordk_env_wall_s(). */
static int
meta_main(uint16_t port, double seconds)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct pollfd p[64];
	char in[64][512];
	size_t have[64] = { 0 };
	int one = 1, np = 1;
	double until = ordk_env_wall_s() + seconds;
	bool run = true;

	p[0].fd = socket(AF_INET, SOCK_STREAM, 0);
	p[0].events = POLLIN;
	setsockopt(p[0].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(p[0].fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(p[0].fd, 16) != 0) {
		perror("kv_transfer meta: cannot listen");
		return 1;
	}
	printf("meta: listening on port %u\n", port);
	while (run && !stop && ordk_env_wall_s() < until) {
		if (poll(p, (nfds_t)np, 200) <= 0)
			continue;
		if ((p[0].revents & POLLIN) && np < 64) {
			p[np].fd = accept(p[0].fd, NULL, NULL);
			p[np].events = POLLIN;
			have[np] = 0;
			setsockopt(p[np].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			np += p[np].fd >= 0;
		}
		for (int i = 1; i < np; i++) {
			ssize_t k;
			char *nl;

			if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = read(p[i].fd, in[i] + have[i], sizeof(in[i]) - 1 - have[i]);
			if (k <= 0) { /* gone: the last one takes its place */
				close(p[i].fd);
				p[i] = p[np - 1];
				memcpy(in[i], in[np - 1], have[np - 1]);
				have[i] = have[np - 1];
				np--;
				i--;
				continue;
			}
			have[i] += (size_t)k;
			in[i][have[i]] = '\0';
			while ((nl = strchr(in[i], '\n')) != NULL) {
				char out[256];

				*nl = '\0';
				run &= meta_line(in[i], out, sizeof(out));
				if (write(p[i].fd, out, strlen(out)) < 0)
					break;
				have[i] -= (size_t)(nl + 1 - in[i]);
				memmove(in[i], nl + 1, have[i] + 1);
			}
			if (have[i] == sizeof(in[i]) - 1)
				have[i] = 0; /* a line too long: dropped */
		}
	}
	for (int i = 0; i < np; i++)
		close(p[i].fd);
	printf("meta: %u nodes, done\n", nnodes);
	return 0;
}

/* ------------------------------------------------- talking to the service */

static FILE *meta_in, *meta_out;

static int
meta_connect(const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char svc[8];
	int fd = -1, one = 1;

	snprintf(svc, sizeof(svc), "%u", port);
	if (getaddrinfo(host, svc, &hints, &res) != 0)
		return -1;
	for (int i = 0; i < 100 && fd < 0; i++) { /* the service may be starting */
		fd = socket(res->ai_family, SOCK_STREAM, 0);
		if (connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
			close(fd);
			fd = -1;
			usleep(50000);
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	meta_in = fdopen(fd, "r");
	meta_out = fdopen(dup(fd), "w");
	return meta_in && meta_out ? 0 : -1;
}

/* Send a request (or several, pipelined) ... */
static void
meta_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void
meta_send(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(meta_out, fmt, ap);
	va_end(ap);
}

/* ... and read one answer line. @return 0 for "OK ...". */
static int
meta_recv(char *line, size_t len)
{
	fflush(meta_out);
	if (fgets(line, (int)len, meta_in) == NULL)
		return -1;
	return strncmp(line, "OK", 2) == 0 ? 0 : -1;
}

/* --------------------------------------------------------------- worker */

static int
worker_main(struct ex_node *n, const char *mhost, uint16_t mport, uint16_t cm_port,
	    const char *host, double seconds)
{
	int lfd = ordk_cm_listen(cm_port), bye = 0;
	char line[256];
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
	if (redis) {
		struct kvr_node me = { .cm_port = cm_port, .base = (uint64_t)(uintptr_t)n->buf,
				       .rkey = n->mr->rkey, .len = n->len };

		snprintf(me.host, sizeof(me.host), "%s", host);
		if (kvr_register(wname, &me, lease_ms) != 0)
			return 1;
		next_beat = ordk_env_now_s() + lease_ms / 3000.0;
	} else {
		meta_send("REG %s %u %" PRIu64 " %u %zu\n", host, cm_port,
			  (uint64_t)(uintptr_t)n->buf, n->mr->rkey, n->len);
		if (meta_recv(line, sizeof(line)) != 0) {
			fprintf(stderr, "worker: the metadata service said: %s", line);
			return 1;
		}
	}
	printf("worker: %s, pool %zu MiB registered%s%s (rkey 0x%06x), QPs on port %u\n", n->at.name,
	       n->len >> 20, redis ? " in redis as " : "", redis ? wname : "", n->mr->rkey, cm_port);
	fflush(stdout);
	/* one-sided transfers need nothing from the worker but polling; a client's BYE ends it */
	while (!stop && !bye && ordk_env_now_s() < until) {
		struct ordk_wc wc[16];
		int k;

		if (ordk_dev_poll(n->dev, 64) == 0 && idle_us)
			usleep(idle_us);
		if ((++iter & 1023) == 0 && ex_accept(n, lfd, DEPTH) < 0)
			break;
		/* the heartbeat */
		if (redis && (iter & 255) == 0 && ordk_env_now_s() >= next_beat) {
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
	/* the client closes first */
	if (ordk_env_linger_server(n->dev, redis ? 0.2 : EX_SERVER_QUIET_S) > 0)
		printf("worker: the client left\n");
	close(lfd);
	return rc;
}

/* --------------------------------------------------------------- client */

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

static struct ex_node N;
static unsigned int nq, window = 16; /* WRs in flight per QP (--window) */
static uint64_t hz;

static uint64_t
seed_of(const char *key)
{
	return key_hash(key);
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
	for (unsigned int i = 0; i < n; i++)
		locs[i] = (struct loc){ .addr = where[i].addr, .len = where[i].len,
					.rkey = where[i].rkey, .q0 = (unsigned int)where[i].node * nq };
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
		if (ex_connect(&N, W[j].host, (uint16_t)W[j].cm_port, qps, DEPTH) != 0)
			return -1;
		printf("client: %s, %u QPs to worker %s at %s:%u (pool %" PRIu64 " MiB)\n",
		       N.at.name, qps, W[j].name, W[j].host, W[j].cm_port, W[j].len >> 20);
	}
	return 0;
}

static int
client_main(const char *mhost, uint16_t mport, unsigned int qps, bool bench, unsigned int count,
	    bool shutdown_meta)
{
	static const size_t sizes[] = { 4096, 16384, 65536, 262144, 1u << 20, 4u << 20 };
	static double lat[MAX_KEYS];
	char line[256], host[64];
	unsigned int cm_port;
	int rc = 0;

	if (redis) {
		if (redis_connect_workers(qps) != 0)
			return 1;
	} else if (meta_connect(mhost, mport) != 0) {
		fprintf(stderr, "client: cannot reach the metadata service at %s:%u\n", mhost, mport);
		return 1;
	}
	for (double until = ordk_env_now_s() + 30; !redis;) { /* a worker may still be starting */
		meta_send("NODE 0\n");
		if (meta_recv(line, sizeof(line)) == 0 &&
		    sscanf(line, "OK %63s %u", host, &cm_port) == 2)
			break;
		if (ordk_env_now_s() > until) {
			fprintf(stderr, "client: no worker registered within 30 s (%s)", line);
			return 1;
		}
		usleep(50000);
	}
	if (!redis) {
		if (ex_connect(&N, host, (uint16_t)cm_port, qps, DEPTH) != 0)
			return 1;
		nq = N.nqp;
		printf("client: %s, %u QPs to the worker at %s:%u\n", N.at.name, nq, host, cm_port);
	}
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

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
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
	const char *role = argc > 1 ? argv[1] : "", *devargs = "bluesim,port=0", *mhost = "127.0.0.1";
	const char *host = "127.0.0.1", *redis_at = NULL, *config = NULL;
	struct ordk_cm_config cfg = { .cluster = "ordk" };
	char rip[64] = "";
	unsigned int rport = 6379;
	uint16_t mport = META_PORT, cm_port = CM_PORT;
	unsigned int qps = 4, pool_mb = 512, count = 0;
	double seconds = 600, linger = 0;
	bool bench = false, shutdown_meta = false, client;
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
	while ((c = getopt_long(targc, targv, "d:m:p:c:q:n:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': devargs = optarg; break;
		case 'm': mhost = optarg; break;
		case 'p': mport = (uint16_t)atoi(optarg); break;
		case 'c': cm_port = (uint16_t)atoi(optarg); break;
		case 'q': qps = (unsigned int)atoi(optarg); break;
		case 'n': count = (unsigned int)atoi(optarg); break;
		case 't': seconds = atof(optarg); break;
		case 'P': pool_mb = (unsigned int)atoi(optarg); break;
		case 'H': host = optarg; break;
		case 'b': bench = true; break;
		case 'w': window = (unsigned int)atoi(optarg); break;
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
	if (mport == 0 || cm_port == 0 || qps == 0 || qps > EX_MAX_QPS || pool_mb < 8 ||
	    pool_mb > 16384 || count > MAX_KEYS || !(seconds > 0) || window == 0 ||
	    window > DEPTH - 2 || !(linger >= 0 && linger <= 60)) {
		fprintf(stderr, "kv_transfer: bad value (-q 1..%u, --pool 8..16384, -n ..%u, "
				"--window 1..%u, --linger 0..60)\n", EX_MAX_QPS, MAX_KEYS, DEPTH - 2);
		return 1;
	}
	if (strcmp(role, "meta") == 0)
		return meta_main(mport, seconds);
	client = strcmp(role, "client") == 0;
	if (config != NULL) { /* the cluster's file: redis_ip/redis_port, its name, the device */
		char err[256];

		if (ordk_cm_config_load(config, &cfg, err, sizeof(err)) != 0) {
			fprintf(stderr, "config %s refused: %s\n", config, err);
			return 1;
		}
		if (cfg.redis_ip[0] == '\0') {
			fprintf(stderr, "config %s: redis_ip: missing (kv_transfer keeps its metadata "
					"there)\n", config);
			return 1;
		}
		snprintf(rip, sizeof(rip), "%s", cfg.redis_ip);
		rport = cfg.redis_port;
		if (strcmp(devargs, "bluesim,port=0") == 0)
			devargs = cfg.device;
	} else if (redis_at != NULL && sscanf(redis_at, "%63[^:]:%u", rip, &rport) < 1) {
		fprintf(stderr, "kv_transfer: --redis IP[:PORT]\n");
		return 1;
	}
	redis = rip[0] != '\0';
	if (redis && !client && wname[0] == '\0') {
		fprintf(stderr, "kv_transfer: a worker with redis needs --name (e.g. w0)\n");
		return 1;
	}
	if (redis && (lease_ms < 300 || lease_ms > 600000 || want_workers == 0 ||
		      want_workers > MAX_NODES || rport == 0 || rport > 65535 ||
		      kvr_open(rip, (uint16_t)rport, cfg.cluster) != 0))
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
