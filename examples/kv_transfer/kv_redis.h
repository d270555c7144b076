/* SPDX-License-Identifier: BSD-3-Clause */
/* kv_transfer's metadata in Redis: workers with leases, their blocks (see kv_redis.c). */
#ifndef KV_REDIS_H
#define KV_REDIS_H

#include <stdarg.h>
#include <stdint.h>

struct kvr_node {
	char name[32]; /* "w0" */
	char host[64];
	unsigned int cm_port;
	uint64_t base, len;
	uint32_t rkey;
};

struct kvr_loc {
	int node; /* index into the kvr_nodes() list, -1: no such block */
	uint64_t addr, len;
	uint32_t rkey;
};

/* Connect (keys "kv:<cluster>:..."). @return 0 or -1 (printed). */
int kvr_open(const char *ip, uint16_t port, const char *cluster);
void kvr_close(void);
/* A worker: its node record, a zero 'used', both with a lease of @p lease_ms. */
int kvr_register(const char *w, const struct kvr_node *n, unsigned int lease_ms);
/* Refresh the lease. @return 0, or -1 (the lease had run out, or redis is gone). */
int kvr_heartbeat(const char *w, unsigned int lease_ms);
/* A worker that stops cleanly takes its records away at once. */
void kvr_deregister(const char *w);
/* The live workers, sorted by name. @return how many, or -1. */
int kvr_nodes(struct kvr_node *out, unsigned int max);
/* @p need bytes of worker @p w's pool: *@p off from its base. @return 0 or -1 (gone). */
int kvr_alloc(const char *w, uint64_t need, uint64_t *off);
/* Publish block @p key at @p addr on @p w. @return 0 or -1 (the worker is gone). */
int kvr_commit(const char *w, const char *key, uint64_t addr, uint64_t len, uint32_t rkey);
/* Where are @p keys? out[i].node -1 when nowhere. @return how many were found, or -1. */
int kvr_lookup(const struct kvr_node *nodes, unsigned int nn, const char *const *keys,
	       unsigned int nk, struct kvr_loc *out);

#endif /* KV_REDIS_H */
