/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the ordk-* applications share: EAL arguments that work on a fresh
 * machine when the user gives none, and the ethdev plumbing bluesim needs
 * (a port started with one queue pair, a net_ring pair, a bounded link wait).
 */
#ifndef ORDK_APP_COMMON_H
#define ORDK_APP_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rte_mempool;

/** What the default EAL command line is made from. */
struct app_eal_defaults {
	const char *prog;      /**< argv[0] */
	const char *prefix;    /**< file prefix stem: "<prefix>-<pid>" */
	int lcore;	       /**< the one lcore to run on (-l) */
	unsigned int mem_mb;   /**< memory wanted (-m) */
	const char *vdev;      /**< a --vdev value, or NULL */
	const char *log_level; /**< a --log-level value after the defaults' *:4, or NULL */
	const char *huge_dir;  /**< sysfs hugepages dir (tests); NULL: the real one */
	const char *mounts;    /**< mount table (tests); NULL: /proc/mounts */
};

#define APP_EAL_MAX_ARGS 16

/**
 * Build the default EAL argv: --no-pci, -l <lcore>, hugepages when enough
 * 2 MiB pages are free (else --no-huge), -m, a unique --file-prefix,
 * --no-telemetry, warnings only (every log type at 4: the global level stays
 * open, so @p d->log_level can raise one type), and the vdev. Strings live in @p store.
 * @return argc, or -1 when @p store is too small.
 */
int app_eal_default_argv(const struct app_eal_defaults *d, char **argv, char *store,
			 size_t store_len);

/** Free 2 MiB hugepages under @p huge_dir (NULL: /sys/kernel/mm/hugepages), in MiB. */
unsigned long app_hugepages_free_mb(const char *huge_dir);

/**
 * Is a hugetlbfs mounted (per the mount table @p mounts, NULL: /proc/mounts)?
 * Its directory goes to @p where when not NULL.
 */
bool app_hugetlbfs_mounted(const char *mounts, char *where, size_t where_len);

/**
 * rte_eal_init() with the user's EAL arguments @p argv[0..argc) when @p user
 * is true, else with app_eal_default_argv(@p d). @return 0 or -1 (message printed).
 */
int app_eal_init(int argc, char **argv, bool user, const struct app_eal_defaults *d);

/** Configure and start @p port with one RX and one TX queue. @return 0 or -errno. */
int app_port_start(uint16_t port, struct rte_mempool *mp);

/**
 * Two started net_ring ports wired to each other (frames sent on one are
 * received on the other). @return 0 or -errno.
 */
int app_ring_pair(const char *name, struct rte_mempool *mp, uint16_t ports[2]);

/**
 * Wait until @p port's link is up, sleeping 1 ms between looks so EAL's
 * interrupt thread (which brings net_memif up) gets the CPU. @p kick: restart
 * the port every 250 ms while the link is down (DPDK 22.11's net_memif client
 * connects once, at start: started before its server listens, it stays down).
 * @return 0 or -ETIMEDOUT.
 */
int app_link_wait(uint16_t port, double timeout_s, bool kick);

/** An mbuf pool whose buffers hold a bluesim frame at PMTU 4096. */
struct rte_mempool *app_frame_pool(const char *name, unsigned int n);

struct ordk_dev;
struct ordk_stats;

/** Print the nonzero (or all) counters of an ordk_stats, "  name: value" per line. */
void app_print_stats(FILE *f, const struct ordk_stats *st, bool all);

/** Print the device model's xstats (drop reasons included), nonzero ones unless @p all. */
void app_print_xstats(FILE *f, struct ordk_dev *dev, bool all);

/** Write @p s as a JSON string (quoted, escaped). */
void app_json_str(FILE *f, const char *s);

/**
 * A size: decimal digits with an optional K, M or G (binary) suffix.
 * @return 0, or -1 (empty, signed, not a number, trailing characters, overflow).
 */
int app_parse_size(const char *s, uint64_t *out);

/** How long a client waits for its server (a memif socket, a link, a TCP listener). */
#define APP_PEER_WAIT_S 30.0
/** How often a memif client tries its server's socket again. */
#define APP_PEER_RETRY_S 0.25

/**
 * For "bluesim,port=N[,...]" devargs: start ethdev port N (one queue pair)
 * and wait for its link, at most @p timeout_s seconds (< 0: for good). A
 * memif client (@p client) whose server is not there yet (DPDK 22.11's
 * net_memif connects its socket once, in rte_eth_dev_start()) starts again
 * every APP_PEER_RETRY_S, and restarts while the link stays down (see
 * app_link_wait()). Other devargs: nothing to do. Prints nothing.
 * @return 0, -ENODEV (no such port: the vdev was not created), -EIO (cannot
 * start), -ECONNREFUSED (no server socket in time) or -ETIMEDOUT (link down).
 */
int app_start_port_wait(const char *devargs, struct rte_mempool *mp, bool client,
			double timeout_s);

/**
 * app_start_port_wait() for APP_PEER_WAIT_S seconds, with a message on
 * failure. @return 0 or -errno.
 */
int app_start_port_of(const char *devargs, struct rte_mempool *mp, bool client);

/**
 * The user's bluesim devargs with "port=" replaced by @p port (when >= 0) and
 * mac=02:00:00:00:00:<idx>, ip=10.0.0.<idx> added unless given.
 */
void app_bluesim_args(char *out, size_t len, const char *user, int port, int idx);

/** The end of a two-process run over net_memif (see app_common.c). */
void app_linger(struct ordk_dev *dev, double quiet_s);

/** How long a server waits for its net_memif peer to leave first (app_linger_server()). */
#define APP_PEER_LEAVE_S 10.0

/**
 * The server's end of a two-process run: poll 50 ms (app_linger()), then wait
 * for the peer to leave first. Over net_memif that is seen: the link goes
 * down, and the disconnect has run its course in EAL's interrupt thread
 * before this returns (at most APP_PEER_LEAVE_S). Other ports do not see the
 * peer go: stay quiet @p quiet_s instead.
 * @return 1: the peer left, 0: not seen (quiet instead), -ETIMEDOUT: it stayed.
 */
int app_linger_server(struct ordk_dev *dev, double quiet_s);

/**
 * Have EAL's interrupt thread run @p fn(@p arg) next, after any handler
 * running there: a new eventfd source (its fd in *@p efd before the callback
 * can run; @p fn reads it to take the event) is registered and signalled
 * once. The source is never unregistered. @return 0, or -1.
 */
int app_intr_fire(void (*fn)(void *arg), void *arg, int *efd);

/** How long app_eal_cleanup() holds EAL's interrupt thread (the process ends before). */
#define APP_INTR_PARK_S 60.0

/**
 * rte_eal_cleanup(), with EAL's interrupt thread parked first (in a callback
 * of its own eventfd source) so that it cannot walk handles in the memory the
 * cleanup unmaps (DPDK 22.11, see app_common.c). For the end of a process:
 * no interrupt callback runs after it.
 */
int app_eal_cleanup(void);

/** Stop and close every ethdev port (before rte_eal_cleanup()). */
void app_close_ports(void);

/** Seconds of the monotonic clock (usable before EAL is up). */
double app_wall_s(void);

/** Seconds since an arbitrary point (TSC). */
double app_now_s(void);

#endif /* ORDK_APP_COMMON_H */
