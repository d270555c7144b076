/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "app_common.h"
#include "ex.h"

int
ex_split_args(int argc, char **argv, int *targc, char ***targv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			/* the example's arguments start at "--", which stands in for argv[0] */
			*targc = argc - i;
			*targv = argv + i;
			return i;
		}
	*targc = argc;
	*targv = argv;
	return 0;
}

static uint64_t
opt(const char *prog, const char *name, const char *s, bool size, uint64_t lo, uint64_t hi,
    bool *bad)
{
	uint64_t v = 0;

	if (app_opt_u64(prog, name, s, size, lo, hi, &v) != 0) {
		*bad = true;
		return 0;
	}
	return v;
}

uint64_t
ex_num(const char *prog, const char *name, const char *s, uint64_t lo, uint64_t hi, bool *bad)
{
	return opt(prog, name, s, false, lo, hi, bad);
}

uint64_t
ex_size(const char *prog, const char *name, const char *s, uint64_t lo, uint64_t hi, bool *bad)
{
	return opt(prog, name, s, true, lo, hi, bad);
}

int
ex_eal_init(int eal_argc, char **argv, const char *name, bool client, uint16_t port,
	    unsigned int mem_mb, const char *devargs)
{
	char vdev[200], prefix[64];
	struct ordk_env_eal d = { .prog = argv[0], .prefix = prefix, .mem_mb = mem_mb,
				  .lcore = client && sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0 };

	snprintf(prefix, sizeof(prefix), "ordk-%s", name);
	if (devargs == NULL || strncmp(devargs, "bluesim", 7) == 0) {
		snprintf(vdev, sizeof(vdev), "net_memif0,role=%s,socket=/tmp/ordk-%s-%u.sock,bsize=8192",
			 client ? "client" : "server", name, port);
		d.vdev = vdev;
	}
	return app_eal_init(eal_argc, argv, eal_argc > 0, &d);
}

int
ex_node_open(struct ex_node *n, const char *devargs, bool client, size_t len, uint32_t cqe)
{
	struct rte_mempool *mp = ordk_env_frame_pool("ex_pool", 8191);
	char args[512];

	memset(n, 0, sizeof(*n));
	n->client = client;
	if (mp == NULL || app_start_port_of(devargs, mp, client) != 0)
		return -1;
	if (strncmp(devargs, "bluesim", 7) == 0)
		app_bluesim_args(args, sizeof(args), devargs, -1, client ? 1 : 2);
	else
		snprintf(args, sizeof(args), "%s", devargs);
	if (ordk_env_ep_open(&n->ep, args, cqe, NULL, len, 15) == 0)
		return 0;
	if (n->dev == NULL)
		fprintf(stderr, "cannot open device '%s': %s\n", args, rte_strerror(rte_errno));
	else
		fprintf(stderr, "cannot register %zu bytes: %s\n", len, rte_strerror(rte_errno));
	return -1;
}

void
ex_node_close(struct ex_node *n)
{
	for (unsigned int q = 0; q < n->nqp; q++)
		ordk_qp_destroy(n->qp[q]);
	ordk_env_ep_close(&n->ep);
	memset(n, 0, sizeof(*n));
}

struct ordk_cm_info
ex_record(const struct ex_node *n, const struct ordk_qp *qp)
{
	return (struct ordk_cm_info){ .qpn = ordk_qp_num(qp), .ip = n->attr.ip, .mac = n->attr.mac,
				      .addr = (uint64_t)(uintptr_t)n->buf, .rkey = n->mr->rkey,
				      .len = n->len > UINT32_MAX ? UINT32_MAX : (uint32_t)n->len };
}

static int
make_qps(struct ex_node *n, unsigned int count, uint32_t depth)
{
	struct ordk_qp_init_attr ia = { .send_cq = n->cq, .recv_cq = n->cq, .max_send_wr = depth,
					.max_recv_wr = depth };

	if (n->nqp + count > EX_MAX_QPS)
		return -1;
	for (unsigned int i = 0; i < count; i++) {
		n->qp[n->nqp + i] = ordk_qp_create(n->pd, &ia);
		if (n->qp[n->nqp + i] == NULL) {
			fprintf(stderr, "cannot create a QP: %s\n", rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

static int
connect_qps(struct ex_node *n, unsigned int first, unsigned int count)
{
	for (unsigned int q = first; q < first + count; q++) {
		struct ordk_cm_info me = ex_record(n, n->qp[q]);

		if (ordk_cm_connect_qp(n->qp[q], &me, &n->peer[q], ORDK_MTU_4096, 15) != 0) {
			fprintf(stderr, "cannot bring QP %u to RTS\n", q);
			return -1;
		}
	}
	n->nqp = first + count;
	return 0;
}

int
ex_connect(struct ex_node *n, const char *host, uint16_t port, unsigned int nqp, uint32_t depth)
{
	struct ordk_cm_info me[EX_MAX_QPS];
	unsigned int first = n->nqp;
	int rc;

	if (nqp == 0 || make_qps(n, nqp, depth) != 0)
		return -1;
	for (unsigned int i = 0; i < nqp; i++)
		me[i] = ex_record(n, n->qp[first + i]);
	rc = ordk_cm_connect(host, port, me, &n->peer[first], nqp, EX_CONNECT_MS);
	if (rc == -ETIMEDOUT) {
		fprintf(stderr, "Couldn't connect to %s:%u: no answer within %d s\n", host, port,
			EX_CONNECT_MS / 1000);
		return -1;
	}
	if (rc != 0) {
		fprintf(stderr, "cannot reach %s:%u: %s\n", host, port, strerror(-rc));
		return -1;
	}
	return connect_qps(n, first, nqp);
}

int
ex_accept(struct ex_node *n, int lfd, uint32_t depth)
{
	struct ordk_cm_info me[EX_MAX_QPS];
	unsigned int first = n->nqp, count = 0;
	int fd = ordk_cm_accept(lfd, &n->peer[first], EX_MAX_QPS - first, &count, 0);

	if (fd == -EAGAIN)
		return 0;
	if (fd < 0) {
		fprintf(stderr, "a client that did not connect: %s\n", strerror(-fd));
		return 0; /* a bad client does not stop the server */
	}
	if (make_qps(n, count, depth) != 0) {
		close(fd);
		return -1;
	}
	for (unsigned int i = 0; i < count; i++)
		me[i] = ex_record(n, n->qp[first + i]);
	if (ordk_cm_reply(fd, me, count) != 0)
		return -1;
	return connect_qps(n, first, count) == 0 ? 1 : -1;
}

void
ex_finish(struct ex_node *n)
{
	if (n->client && n->dev != NULL)
		ordk_env_linger(n->dev, n->linger_s > 0 ? n->linger_s : 0.3);
	if (n->dev != NULL && getenv("ORDK_XSTATS") != NULL) /* the rig's post-mortem */
		app_print_xstats(stderr, n->dev, false);
	ex_node_close(n);
	ordk_env_close_ports();
	ordk_env_eal_cleanup();
}

int
ex_wait(struct ex_node *n, struct ordk_wc *wc, int want, double seconds)
{
	double until = ordk_env_now_s() + seconds;
	int got = 0;

	while (got < want && ordk_env_now_s() < until) {
		int k = ordk_cq_poll(n->cq, wc + got, want - got);

		if (k > 0)
			got += k;
	}
	return got;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
ex_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

double
ex_pct(double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return 0;
	i = (size_t)((double)n * p / 100.0);
	return v[i < n ? i : n - 1];
}

static inline uint64_t
xorshift(uint64_t x)
{
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

void
ex_fill(uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		x = xorshift(x);
		memcpy(p + i, &x, 8);
	}
	for (; i < len; i++)
		p[i] = (uint8_t)(seed + i);
}

size_t
ex_check(const uint8_t *p, size_t len, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		x = xorshift(x);
		if (memcmp(p + i, &x, 8) != 0)
			for (size_t k = 0; k < 8; k++)
				if (p[i + k] != ((const uint8_t *)&x)[k])
					return i + k;
	}
	for (; i < len; i++)
		if (p[i] != (uint8_t)(seed + i))
			return i;
	return len;
}

struct ordk_cm_mc *
ex_cluster_open(const char *path, struct ordk_cm_config *cfg, int timeout_ms)
{
	struct ordk_cm_mc *mc;
	char err[256];

	if (ordk_cm_config_load(path, cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "config %s refused: %s\n", path, err);
		return NULL;
	}
	mc = ordk_cm_mc_open(cfg->memcached_ip, cfg->memcached_port, cfg->cluster, 0, timeout_ms);
	if (mc == NULL)
		fprintf(stderr,
			"Memcached connection refused: nothing answered at %s:%u (memcached_ip) "
			"within %d ms; is it bound to 127.0.0.1 on another host? (ordk-doctor "
			"--config %s)\n",
			cfg->memcached_ip, cfg->memcached_port, timeout_ms, path);
	return mc;
}

int
ex_cluster_sync(struct ordk_cm_mc *mc, const char *name, const char *role, unsigned int id,
		const struct ordk_cm_group *groups, unsigned int ngroups, double seconds)
{
	char missing[256] = "";
	int rc = ordk_cm_mc_barrier(mc, name, role, id, groups, ngroups, (int)(seconds * 1000),
				    missing, sizeof(missing));

	if (rc == 0)
		return 0;
	if (rc == -ETIMEDOUT)
		fprintf(stderr, "%s%u: Sync timeout at '%s' after %.0f s: missing %s (the config "
				"lists them; start every node, or list only the ones you start)\n",
			role, id, name, seconds, missing);
	else if (rc == -EEXIST || rc == -EINVAL)
		fprintf(stderr, "%s%u: at '%s': more nodes than the config lists (%s)\n", role, id,
			name, missing[0] ? missing : "this one");
	else
		fprintf(stderr, "%s%u: barrier '%s': %s\n", role, id, name, strerror(-rc));
	return -1;
}

int
ex_mc_offer(struct ex_node *n, struct ordk_cm_mc *mc, const char *role, unsigned int id,
	    const char *to_role, unsigned int to_id, unsigned int nqp, uint32_t depth)
{
	struct ordk_cm_info me[EX_MAX_QPS];
	unsigned int first = n->nqp;
	int rc;

	if (nqp == 0 || make_qps(n, nqp, depth) != 0)
		return -1;
	for (unsigned int i = 0; i < nqp; i++)
		me[i] = ex_record(n, n->qp[first + i]);
	rc = ordk_cm_mc_publish(mc, role, id, to_role, to_id, me, nqp);
	if (rc != 0)
		fprintf(stderr, "%s%u: cannot publish QP records: %s\n", role, id, strerror(-rc));
	return rc == 0 ? 0 : -1;
}

int
ex_mc_answer(struct ex_node *n, struct ordk_cm_mc *mc, const char *role, unsigned int id,
	     const char *from_role, unsigned int from_id, uint32_t depth, double seconds)
{
	struct ordk_cm_info me[EX_MAX_QPS];
	unsigned int first = n->nqp, count = 0;
	int rc = ordk_cm_mc_fetch(mc, from_role, from_id, role, id, &n->peer[first],
				  EX_MAX_QPS - first, &count, (int)(seconds * 1000));

	if (rc != 0) {
		fprintf(stderr, "%s%u: no QP records from %s%u: %s\n", role, id, from_role, from_id,
			strerror(-rc));
		return -1;
	}
	if (make_qps(n, count, depth) != 0)
		return -1;
	for (unsigned int i = 0; i < count; i++)
		me[i] = ex_record(n, n->qp[first + i]);
	rc = ordk_cm_mc_publish(mc, role, id, from_role, from_id, me, count);
	if (rc != 0) {
		fprintf(stderr, "%s%u: cannot publish QP records: %s\n", role, id, strerror(-rc));
		return -1;
	}
	return connect_qps(n, first, count);
}

int
ex_mc_join(struct ex_node *n, struct ordk_cm_mc *mc, const char *role, unsigned int id,
	   const char *to_role, unsigned int to_id, double seconds)
{
	unsigned int first = n->nqp, count = 0;
	/* ex_mc_offer() made the QPs past n->nqp: count them */
	unsigned int made = 0;
	int rc;

	while (first + made < EX_MAX_QPS && n->qp[first + made] != NULL)
		made++;
	rc = ordk_cm_mc_fetch(mc, to_role, to_id, role, id, &n->peer[first], EX_MAX_QPS - first,
			      &count, (int)(seconds * 1000));
	if (rc != 0 || count != made) {
		fprintf(stderr, "%s%u: no answer from %s%u: %s\n", role, id, to_role, to_id,
			rc ? strerror(-rc) : "another number of QPs");
		return -1;
	}
	return connect_qps(n, first, count);
}
