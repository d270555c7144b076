/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * kv_transfer's parts and what they share: main.c (the options and the
 * worker), kv_meta.c (the metadata service and its line protocol),
 * kv_client.c (the client: puts and batch gets, every block verified) and
 * kv_redis.c (the metadata in Redis instead).
 */
#ifndef KV_H
#define KV_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ex.h"

#define KEY_MAX	    64
#define MAX_KEYS    65536
#define MAX_NODES   16
#define DEPTH	    256u
#define CTRL_BYTES  4096u /* the end of every buffer: BYE messages */

extern volatile sig_atomic_t stop; /* SIGINT or SIGTERM */

/* metadata in Redis (--redis or --config); the client waits for --workers, --keep-workers */
extern bool redis;
extern unsigned int want_workers;
extern bool keep_workers;

/* this process's node, WRs in flight per QP (--window), the TSC rate */
extern struct ex_node N;
extern unsigned int window;
extern uint64_t hz;

/* kv_meta.c: the service, and a client's connection to it */
int meta_main(uint16_t port, double seconds);
uint64_t meta_key_hash(const char *k);
int meta_connect(const char *host, uint16_t port);
void meta_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int meta_recv(char *line, size_t len);

/* kv_client.c */
int client_main(const char *mhost, uint16_t mport, unsigned int qps, bool bench, unsigned int count,
		bool shutdown_meta);

#endif /* KV_H */
