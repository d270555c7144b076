/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_transfer's metadata in Redis (hiredis), the way Mooncake's transfer
 * engine keeps its segments in a store with leases. Keys of cluster C:
 *   C:node:<w>    hash {host, cm_port, base, rkey, len}    lease: PEXPIRE
 *   C:used:<w>    bytes of w's pool handed out (INCRBY)    same lease
 *   C:blocks:<w>  hash {key -> "addr len rkey"}            same lease
 * The worker refreshes the three every lease/3 (its heartbeat); when it dies
 * they expire together, so its blocks leave the metadata within one lease.
 * Allocation and commit run as Lua scripts that first check the worker's
 * node key: nothing is written for a worker whose lease ran out.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "kv_redis.h"

static redisContext *R;
static char C[40];

/* KEYS[1] node, KEYS[2] used; ARGV[1] bytes: the new total, or -1 (no such worker) */
static const char alloc_lua[] =
	"if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end "
	"local t = redis.call('PTTL', KEYS[1]) "
	"local v = redis.call('INCRBY', KEYS[2], ARGV[1]) "
	"redis.call('PEXPIRE', KEYS[2], t) return v";
/* KEYS[1] node, KEYS[2] blocks; ARGV key, value: 1, or 0 (no such worker) */
static const char commit_lua[] =
	"if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end "
	"local t = redis.call('PTTL', KEYS[1]) "
	"redis.call('HSET', KEYS[2], ARGV[1], ARGV[2]) "
	"redis.call('PEXPIRE', KEYS[2], t) return 1";

int
kvr_open(const char *ip, uint16_t port, const char *cluster)
{
	struct timeval tv = { 2, 0 };

	snprintf(C, sizeof(C), "kv:%s", cluster ? cluster : "ordk");
	R = redisConnectWithTimeout(ip, port, tv);
	if (R == NULL || R->err) {
		fprintf(stderr, "redis at %s:%u: %s\n", ip, port, R ? R->errstr : "no memory");
		return -1;
	}
	redisSetTimeout(R, tv);
	return 0;
}

void
kvr_close(void)
{
	if (R != NULL)
		redisFree(R);
	R = NULL;
}

/* Run a command; @return its integer (or 0 for OK/strings), -1 on error (printed). */
static long long
cmd(const char *fmt, ...)
{
	redisReply *r;
	long long v = 0;
	va_list ap;

	va_start(ap, fmt);
	r = redisvCommand(R, fmt, ap);
	va_end(ap);
	if (r == NULL || r->type == REDIS_REPLY_ERROR) {
		fprintf(stderr, "redis: %s\n", r ? r->str : R->errstr);
		v = -1;
	} else if (r->type == REDIS_REPLY_INTEGER) {
		v = r->integer;
	}
	if (r != NULL)
		freeReplyObject(r);
	return v;
}

int
kvr_register(const char *w, const struct kvr_node *n, unsigned int lease_ms)
{
	if (cmd("DEL %s:node:%s %s:used:%s %s:blocks:%s", C, w, C, w, C, w) < 0 ||
	    cmd("HSET %s:node:%s host %s cm_port %u base %" PRIu64 " rkey %u len %" PRIu64, C, w,
		n->host, n->cm_port, n->base, n->rkey, n->len) < 0 ||
	    cmd("PEXPIRE %s:node:%s %u", C, w, lease_ms) < 0 ||
	    cmd("SET %s:used:%s 0 PX %u", C, w, lease_ms) < 0)
		return -1;
	return 0;
}

int
kvr_heartbeat(const char *w, unsigned int lease_ms)
{
	/* pipelined: three PEXPIREs, one round trip */
	redisReply *r;
	int rc = 0, alive = 0;

	redisAppendCommand(R, "PEXPIRE %s:node:%s %u", C, w, lease_ms);
	redisAppendCommand(R, "PEXPIRE %s:used:%s %u", C, w, lease_ms);
	redisAppendCommand(R, "PEXPIRE %s:blocks:%s %u", C, w, lease_ms);
	for (int i = 0; i < 3; i++) {
		if (redisGetReply(R, (void **)&r) != REDIS_OK) {
			fprintf(stderr, "redis: %s\n", R->errstr);
			return -1;
		}
		if (i == 0 && r->type == REDIS_REPLY_INTEGER)
			alive = r->integer == 1;
		freeReplyObject(r);
	}
	if (!alive) /* our lease ran out before this beat: we are gone from the metadata */
		rc = -1;
	return rc;
}

void
kvr_deregister(const char *w)
{
	cmd("DEL %s:node:%s %s:used:%s %s:blocks:%s", C, w, C, w, C, w);
}

static uint64_t
field(const redisReply *r, const char *name)
{
	for (size_t i = 0; i + 1 < r->elements; i += 2)
		if (strcmp(r->element[i]->str, name) == 0)
			return strtoull(r->element[i + 1]->str, NULL, 0);
	return 0;
}

int
kvr_nodes(struct kvr_node *out, unsigned int max)
{
	redisReply *keys = redisCommand(R, "KEYS %s:node:*", C);
	unsigned int n = 0;

	if (keys == NULL || keys->type != REDIS_REPLY_ARRAY) {
		if (keys)
			freeReplyObject(keys);
		return -1;
	}
	for (size_t i = 0; i < keys->elements && n < max; i++) {
		redisReply *h = redisCommand(R, "HGETALL %s", keys->element[i]->str);
		const char *w = strrchr(keys->element[i]->str, ':') + 1;

		if (h != NULL && h->type == REDIS_REPLY_ARRAY && h->elements >= 10) {
			struct kvr_node *d = &out[n++];
			uint64_t port;

			snprintf(d->name, sizeof(d->name), "%s", w);
			for (size_t k = 0; k + 1 < h->elements; k += 2)
				if (strcmp(h->element[k]->str, "host") == 0)
					snprintf(d->host, sizeof(d->host), "%s", h->element[k + 1]->str);
			/* kept whole up to UINT_MAX: the client refuses what is no port */
			port = field(h, "cm_port");
			d->cm_port = port > UINT_MAX ? UINT_MAX : (unsigned int)port;
			d->base = field(h, "base");
			d->rkey = (uint32_t)field(h, "rkey");
			d->len = field(h, "len");
		}
		if (h)
			freeReplyObject(h);
	}
	freeReplyObject(keys);
	/* a stable order: by name */
	for (unsigned int i = 1; i < n; i++)
		for (unsigned int j = i; j > 0 && strcmp(out[j - 1].name, out[j].name) > 0; j--) {
			struct kvr_node t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return (int)n;
}

int
kvr_alloc(const char *w, uint64_t need, uint64_t *off)
{
	long long v = cmd("EVAL %s 2 %s:node:%s %s:used:%s %" PRIu64, alloc_lua, C, w, C, w, need);

	if (v < 0)
		return -1;
	*off = (uint64_t)v - need;
	return 0;
}

int
kvr_commit(const char *w, const char *key, uint64_t addr, uint64_t len, uint32_t rkey)
{
	char v[96];

	snprintf(v, sizeof(v), "%" PRIu64 " %" PRIu64 " %u", addr, len, rkey);
	return cmd("EVAL %s 2 %s:node:%s %s:blocks:%s %s %s", commit_lua, C, w, C, w, key, v) == 1
		       ? 0
		       : -1;
}

int
kvr_lookup(const struct kvr_node *nodes, unsigned int nn, const char *const *keys,
	   unsigned int nk, struct kvr_loc *out)
{
	int found = 0;

	for (unsigned int i = 0; i < nk; i++) /* pipelined: every key on every worker */
		for (unsigned int j = 0; j < nn; j++)
			redisAppendCommand(R, "HGET %s:blocks:%s %s", C, nodes[j].name, keys[i]);
	for (unsigned int i = 0; i < nk; i++) {
		out[i].node = -1;
		for (unsigned int j = 0; j < nn; j++) {
			redisReply *r;
			unsigned long long a, l;
			unsigned int k;

			if (redisGetReply(R, (void **)&r) != REDIS_OK) {
				fprintf(stderr, "redis: %s\n", R->errstr);
				return -1;
			}
			if (r->type == REDIS_REPLY_STRING &&
			    sscanf(r->str, "%llu %llu %u", &a, &l, &k) == 3 && out[i].node < 0) {
				out[i] = (struct kvr_loc){ .node = (int)j, .addr = a, .len = l,
							   .rkey = k };
				found++;
			}
			freeReplyObject(r);
		}
	}
	return found;
}
