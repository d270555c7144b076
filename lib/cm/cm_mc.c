/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rendezvous through memcached (libmemcached as the client). A value of
 * the "qp" keys is what the TCP exchange sends: n records of CM_LEN bytes,
 * the count in the first. A barrier key's value is "1"; a barrier is
 * passed when every configured node's key is there. Waits look every 5 ms
 * until their deadline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libmemcached/memcached.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "cm_internal.h"
#include "ordk_cm.h"


#define MC_LOOK_US 5000
#define MC_NAME_MAX 32
#define MC_KEY_MAX 200

struct ordk_cm_mc {
	memcached_st *mc;
	char cluster[MC_NAME_MAX + 1];
	time_t ttl;
};

/* Names go into keys: letters, digits, '_', '-', '.' only, not empty. */
static bool
name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > MC_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-' || s[i] == '.'))
			return false;
	return true;
}

static int
err_of(memcached_return_t r)
{
	switch (r) {
	case MEMCACHED_SUCCESS:
		return 0;
	case MEMCACHED_NOTFOUND:
		return -ENOENT;
	case MEMCACHED_CONNECTION_FAILURE:
	case MEMCACHED_CONNECTION_SOCKET_CREATE_FAILURE:
	case MEMCACHED_SERVER_MARKED_DEAD:
	case MEMCACHED_SERVER_TEMPORARILY_DISABLED:
	case MEMCACHED_UNKNOWN_READ_FAILURE:
	case MEMCACHED_WRITE_FAILURE:
	case MEMCACHED_READ_FAILURE:
	case MEMCACHED_ERRNO:
	case MEMCACHED_TIMEOUT:
		return -ECONNREFUSED;
	default:
		return -EIO;
	}
}

static memcached_st *
client_new(const char *host, uint16_t port)
{
	memcached_st *m = memcached_create(NULL);

	if (m == NULL)
		return NULL;
	memcached_behavior_set(m, MEMCACHED_BEHAVIOR_CONNECT_TIMEOUT, 1000);
	memcached_behavior_set(m, MEMCACHED_BEHAVIOR_POLL_TIMEOUT, 2000);
	memcached_behavior_set(m, MEMCACHED_BEHAVIOR_RETRY_TIMEOUT, 0);
	memcached_behavior_set(m, MEMCACHED_BEHAVIOR_TCP_NODELAY, 1);
	if (memcached_server_add(m, host, port) != MEMCACHED_SUCCESS) {
		memcached_free(m);
		return NULL;
	}
	return m;
}

struct ordk_cm_mc *
ordk_cm_mc_open(const char *host, uint16_t port, const char *cluster, unsigned int ttl_s,
		int timeout_ms)
{
	int64_t deadline = cm_now_ms() + (timeout_ms > 0 ? timeout_ms : 10000);
	struct ordk_cm_mc *s;
	memcached_return_t r = MEMCACHED_FAILURE;

	if (cluster == NULL)
		cluster = "ordk";
	if (host == NULL || *host == '\0' || port == 0 || !name_ok(cluster)) {
		rte_errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	snprintf(s->cluster, sizeof(s->cluster), "%s", cluster);
	s->ttl = ttl_s ? (time_t)ttl_s : 600;
	/* the server may start after us: a fresh client per try, until the deadline */
	do {
		s->mc = client_new(host, port);
		if (s->mc == NULL) {
			free(s);
			rte_errno = ENOMEM;
			return NULL;
		}
		r = memcached_version(s->mc);
		if (r == MEMCACHED_SUCCESS)
			return s;
		memcached_free(s->mc);
		s->mc = NULL;
		usleep(20000);
	} while (cm_now_ms() < deadline);
	CM_LOG(ERR, "memcached at %s:%u did not answer: %s", host, port,
	       memcached_strerror(NULL, r));
	free(s);
	rte_errno = ECONNREFUSED;
	return NULL;
}

void
ordk_cm_mc_close(struct ordk_cm_mc *mc)
{
	if (mc == NULL)
		return;
	memcached_free(mc->mc);
	free(mc);
}

static int
qp_key(const struct ordk_cm_mc *mc, char *key, const char *from, unsigned int from_id,
       const char *to, unsigned int to_id)
{
	if (!name_ok(from) || !name_ok(to))
		return -EINVAL;
	return snprintf(key, MC_KEY_MAX, "%s/qp/%s%u>%s%u", mc->cluster, from, from_id, to, to_id);
}

int
ordk_cm_mc_publish(struct ordk_cm_mc *mc, const char *role, unsigned int id,
		   const char *to_role, unsigned int to_id, const struct ordk_cm_info *recs,
		   unsigned int n)
{
	uint8_t v[ORDK_CM_MC_MAX_RECS * CM_LEN];
	char key[MC_KEY_MAX];
	int kl;

	if (mc == NULL || recs == NULL || n == 0 || n > ORDK_CM_MC_MAX_RECS)
		return -EINVAL;
	kl = qp_key(mc, key, role, id, to_role, to_id);
	if (kl < 0)
		return kl;
	for (unsigned int i = 0; i < n; i++)
		cm_encode(&recs[i], v + i * CM_LEN, i == 0 ? n : 0);
	return err_of(memcached_set(mc->mc, key, (size_t)kl, (const char *)v, n * CM_LEN, mc->ttl,
				    0));
}

/* Decode a "qp" value (of key @p key): n records, the count in the first. */
static int
decode_value(const uint8_t *v, size_t len, struct ordk_cm_info *recs, unsigned int max,
	     unsigned int *n, const char *key)
{
	char from[MC_KEY_MAX + 16];
	uint32_t count;
	int rc;

	snprintf(from, sizeof(from), "memcached key %s", key);
	if (len < CM_LEN || len % CM_LEN != 0) {
		CM_LOG(ERR, "%s: %zu bytes are not whole records of %d", from, len, CM_LEN);
		return -EPROTO;
	}
	count = (uint32_t)v[20] << 24 | (uint32_t)v[21] << 16 | (uint32_t)v[22] << 8 | v[23];
	if (count == 0 || count * (size_t)CM_LEN != len) {
		CM_LOG(ERR, "%s: the first record counts %u, the value holds %zu", from, count,
		       len / CM_LEN);
		return -EPROTO;
	}
	if (count > max)
		return -E2BIG;
	for (uint32_t i = 0; i < count; i++) {
		rc = cm_decode(v + i * CM_LEN, &recs[i], from, i);
		if (rc != 0)
			return rc;
	}
	*n = count;
	return 0;
}

int
ordk_cm_mc_fetch(struct ordk_cm_mc *mc, const char *from_role, unsigned int from_id,
		 const char *role, unsigned int id, struct ordk_cm_info *recs, unsigned int max,
		 unsigned int *n, int timeout_ms)
{
	int64_t deadline = cm_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	char key[MC_KEY_MAX];
	int kl;

	if (mc == NULL || recs == NULL || n == NULL || max == 0)
		return -EINVAL;
	kl = qp_key(mc, key, from_role, from_id, role, id);
	if (kl < 0)
		return kl;
	for (;;) {
		memcached_return_t r;
		size_t len = 0;
		uint32_t flags;
		char *v = memcached_get(mc->mc, key, (size_t)kl, &len, &flags, &r);
		int rc;

		if (v != NULL) {
			rc = decode_value((const uint8_t *)v, len, recs, max, n, key);
			free(v);
			return rc;
		}
		rc = err_of(r);
		if (rc != -ENOENT && rc != 0)
			return rc;
		if (cm_now_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(MC_LOOK_US);
	}
}

static int
bar_key(const struct ordk_cm_mc *mc, char *key, const char *name, const char *role,
	unsigned int id)
{
	return snprintf(key, MC_KEY_MAX, "%s/bar/%s/%s%u", mc->cluster, name, role, id);
}

/* Is node @p role/@p id at barrier @p name? 1, 0 or a negative errno. */
static int
arrived(struct ordk_cm_mc *mc, const char *name, const char *role, unsigned int id)
{
	char key[MC_KEY_MAX];
	int kl = bar_key(mc, key, name, role, id), rc;

	rc = err_of(memcached_exist(mc->mc, key, (size_t)kl));
	return rc == 0 ? 1 : rc == -ENOENT ? 0 : rc;
}

static void
add_name(char *out, size_t len, size_t *at, const char *pre, const char *role, unsigned int id)
{
	int k;

	if (out == NULL || *at >= len)
		return;
	k = snprintf(out + *at, len - *at, "%s%s%s%u", *at ? " " : "", pre, role, id);
	if (k > 0)
		*at += (size_t)k;
}

/* One look at everyone: how many are missing (named in @p out), or a negative errno. */
static int
look(struct ordk_cm_mc *mc, const char *name, const struct ordk_cm_group *g, unsigned int ng,
     char *out, size_t len, bool *extra)
{
	size_t at = 0;
	int missing = 0;

	if (out != NULL && len > 0)
		out[0] = '\0';
	*extra = false;
	for (unsigned int i = 0; i < ng; i++) {
		int a;

		for (unsigned int id = 0; id < g[i].count; id++) {
			a = arrived(mc, name, g[i].role, id);
			if (a < 0)
				return a;
			if (a == 0) {
				missing++;
				add_name(out, len, &at, "", g[i].role, id);
			}
		}
		a = arrived(mc, name, g[i].role, g[i].count);
		if (a < 0)
			return a;
		if (a == 1) {
			*extra = true;
			add_name(out, len, &at, "+", g[i].role, g[i].count);
		}
	}
	return missing;
}

int
ordk_cm_mc_barrier(struct ordk_cm_mc *mc, const char *name, const char *role,
		   unsigned int id, const struct ordk_cm_group *groups, unsigned int ngroups,
		   int timeout_ms, char *missing, size_t missing_len)
{
	int64_t deadline = cm_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	char key[MC_KEY_MAX];
	bool mine = false, extra;
	int kl, rc;

	if (mc == NULL || !name_ok(name) || !name_ok(role) || groups == NULL || ngroups == 0)
		return -EINVAL;
	for (unsigned int i = 0; i < ngroups; i++) {
		if (!name_ok(groups[i].role))
			return -EINVAL;
		mine |= strcmp(groups[i].role, role) == 0 && id < groups[i].count;
	}
	/* arrive even when not configured: the configured nodes then see one too many */
	kl = bar_key(mc, key, name, role, id);
	rc = err_of(memcached_set(mc->mc, key, (size_t)kl, "1", 1, mc->ttl, 0));
	if (rc != 0)
		return rc;
	if (!mine)
		return -EINVAL;
	for (;;) {
		rc = look(mc, name, groups, ngroups, missing, missing_len, &extra);
		if (rc < 0)
			return rc;
		if (extra)
			return -EEXIST;
		if (rc == 0)
			return 0;
		if (cm_now_ms() >= deadline)
			return -ETIMEDOUT;
		usleep(MC_LOOK_US);
	}
}

int
ordk_cm_mc_arrived(struct ordk_cm_mc *mc, const char *name, const char *role, unsigned int max)
{
	int n = 0;

	if (mc == NULL || !name_ok(name) || !name_ok(role))
		return -EINVAL;
	for (unsigned int id = 0; id < max; id++) {
		int a = arrived(mc, name, role, id);

		if (a < 0)
			return a;
		n += a;
	}
	return n;
}
