/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the ordk-* applications and the examples share beyond lib/env (the
 * DPDK environment, ordk_env.h): EAL brought up from the user's arguments or
 * the defaults, messages, counters and JSON printed, sizes parsed, and
 * bluesim's devargs as the tools build them.
 */
#ifndef ORDK_APP_COMMON_H
#define ORDK_APP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ordk_env.h"

/**
 * rte_eal_init() with the user's EAL arguments @p argv[0..argc) when @p user
 * is true, else with ordk_env_eal_argv(@p d). @return 0 or -1 (message printed).
 */
int app_eal_init(int argc, char **argv, bool user, const struct ordk_env_eal *d);

struct ordk_dev;
struct ordk_stats;

/**
 * Print the nonzero (or all) counters of an ordk_stats, "  name: value" per line, followed
 * by "  (mlx5 <name>, rxe <name>)" for a counter those stacks also have.
 */
void app_print_stats(FILE *f, const struct ordk_stats *st, bool all);

/** Print the device model's xstats (drop reasons included), nonzero ones unless @p all. */
void app_print_xstats(FILE *f, struct ordk_dev *dev, bool all);

/** Write @p s as a JSON string (quoted, escaped). */
void app_json_str(FILE *f, const char *s);

/**
 * A size: decimal digits with an optional K, M or G (binary) suffix
 * (lib/devargs' ordk_devargs_size()).
 * @return 0, or -1 (empty, signed, not a number, trailing characters, overflow).
 */
int app_parse_size(const char *s, uint64_t *out);

/**
 * Option @p opt of @p prog: decimal digits, or with @p size a size (digits
 * and K, M or G), in [@p lo, @p hi], read by lib/devargs' shared parser so
 * that nothing wraps into the range (atoi() and a cast took "4294967297" as
 * 1). @return 0, or -1 with "prog: -s: 4294967297 out of range (1..1048576)"
 * printed.
 */
int app_opt_u64(const char *prog, const char *opt, const char *s, bool size, uint64_t lo,
		uint64_t hi, uint64_t *out);

/**
 * For "bluesim,port=N[,...]" devargs: ordk_env_port_start_wait() on ethdev
 * port N. Other devargs (port=loopback, a port name, another driver):
 * nothing to do. Prints nothing. @return 0 or its -errno.
 */
int app_start_port_wait(const char *devargs, struct rte_mempool *mp, bool client,
			double timeout_s);

/**
 * app_start_port_wait() for ORDK_ENV_PEER_WAIT_S seconds, with a message on
 * failure. @return 0 or -errno.
 */
int app_start_port_of(const char *devargs, struct rte_mempool *mp, bool client);

/**
 * The user's bluesim devargs with "port=" replaced by @p port (when >= 0) and
 * mac=02:00:00:00:00:<idx>, ip=10.0.0.<idx> added unless given.
 */
void app_bluesim_args(char *out, size_t len, const char *user, int port, int idx);

#endif /* ORDK_APP_COMMON_H */
