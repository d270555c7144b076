/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ordk-stat's telemetry client: DPDK's telemetry socket (v2) of a running
 * process, found by its file prefix, its PID or its path, and queried.
 * The protocol (DPDK's telemetry guide): a SOCK_SEQPACKET unix socket at
 * <runtime dir>/dpdk_telemetry.v2; on connect the process sends
 * {"version", "pid", "max_output_len"}; each command sent ("/ordk/dev/list",
 * "/ordk/dev/stats,bluesim0") gets one message back, {"<command>": <data>}.
 * Nothing here needs EAL.
 */
#ifndef STAT_CLIENT_H
#define STAT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#define STAT_SOCKET_NAME "dpdk_telemetry.v2"

struct stat_conn {
	int fd;
	long pid;	   /* the process's, from its first message */
	size_t max_len;	   /* the longest reply it sends */
	char path[108];	   /* sun_path */
	char program[64];  /* /proc/<pid>/comm */
	char *buf;	   /* max_len + 1 bytes */
};

/**
 * Where EAL puts its runtime directories, as EAL chooses it:
 * $RUNTIME_DIRECTORY, else /var/run for root, else $XDG_RUNTIME_DIR or /tmp;
 * then "/dpdk".
 */
void stat_runtime_dir(char *buf, size_t len);

/** The socket of the process with file prefix @p prefix into @p buf. */
void stat_prefix_path(const char *prefix, char *buf, size_t len);

/**
 * The telemetry sockets under the runtime directory (one per process with
 * telemetry on), into @p paths (at most @p max). @return how many.
 */
unsigned int stat_list_sockets(char (*paths)[108], unsigned int max);

/** Connect to @p path and read its first message. @return 0, or -1 with @p err set. */
int stat_connect(struct stat_conn *c, const char *path, char *err, size_t errlen);

/**
 * Send @p cmd and return its reply's data (a new reference), or NULL with
 * @p err set (the connection failed, the reply did not parse, or the
 * command is unknown to the process: its data is null).
 */
json_t *stat_query(struct stat_conn *c, const char *cmd, char *err, size_t errlen);

/** stat_query() with a printf-style command. */
json_t *stat_queryf(struct stat_conn *c, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

void stat_close(struct stat_conn *c);

#endif /* STAT_CLIENT_H */
