/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK's DPDK environment (SPDK's env_dpdk): what the tools, the examples and
 * lib/ibverbs share to bring up EAL and the ethdev ports ORDK devices run on,
 * and to end a run. Default EAL arguments that work on a fresh machine, the
 * frame pool, a port started with one queue pair (net_ring, net_memif,
 * net_af_packet, a NIC), a net_ring pair, a bounded wait for a link, an
 * endpoint (a device with its PD, CQ and registered buffer), the end of a
 * two-process run over net_memif (linger) and EAL's cleanup.
 *
 * Ports are ethdev port ids: which port a device uses is the caller's
 * business (its devargs). Nothing here prints: failures are returned, and
 * the few that a run survives are logged on the type "ordk.env".
 */
#ifndef ORDK_ENV_H
#define ORDK_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ordk_verbs.h"

struct rte_mempool;

/* ---------------------------------------------------------------- EAL */

/** What the default EAL command line is made from. */
struct ordk_env_eal {
	const char *prog;      /**< argv[0] */
	const char *prefix;    /**< file prefix stem: "<prefix>-<pid>" */
	int lcore;	       /**< the one lcore to run on (-l) */
	unsigned int mem_mb;   /**< memory wanted (-m) */
	const char *vdev;      /**< a --vdev value, or NULL */
	const char *log_level; /**< a --log-level value after the defaults' *:4, or NULL */
	const char *huge_dir;  /**< sysfs hugepages dir (tests); NULL: the real one */
	const char *mounts;    /**< mount table (tests); NULL: /proc/mounts */
};

#define ORDK_ENV_EAL_MAX_ARGS 16

/**
 * Build the default EAL argv: --no-pci, -l <lcore>, hugepages when enough
 * 2 MiB pages are free (else --no-huge), -m, a unique --file-prefix (DPDK
 * telemetry stays on: its socket is /var/run/dpdk/<prefix>-<pid>/
 * dpdk_telemetry.v2, where ordk-stat and dpdk-telemetry.py look), errors
 * only (every log type at 4: the global level stays open, so
 * @p d->log_level can raise one type), and the vdev. Strings live in
 * @p store. @return argc, or -1 when @p store is too small.
 */
int ordk_env_eal_argv(const struct ordk_env_eal *d, char **argv, char *store, size_t store_len);

/** Free 2 MiB hugepages under @p huge_dir (NULL: /sys/kernel/mm/hugepages), in MiB. */
unsigned long ordk_env_hugepages_free_mb(const char *huge_dir);

/**
 * Is a hugetlbfs mounted (per the mount table @p mounts, NULL: /proc/mounts)?
 * Its directory goes to @p where when not NULL.
 */
bool ordk_env_hugetlbfs_mounted(const char *mounts, char *where, size_t where_len);

/** How long ordk_env_eal_cleanup() holds EAL's interrupt thread (the process ends before). */
#define ORDK_ENV_INTR_PARK_S 60.0

/**
 * Have EAL's interrupt thread run @p fn(@p arg) next, after any handler
 * running there: a new eventfd source (its fd in *@p efd before the callback
 * can run; @p fn reads it to take the event) is registered and signalled
 * once. The source is never unregistered. @return 0, or -1.
 */
int ordk_env_intr_fire(void (*fn)(void *arg), void *arg, int *efd);

/**
 * rte_eal_cleanup(), with EAL's interrupt thread parked first (in a callback
 * of its own eventfd source) so that it cannot walk handles in the memory the
 * cleanup unmaps (DPDK 22.11, see env_eal.c). For the end of a process: no
 * interrupt callback runs after it. @return rte_eal_cleanup()'s.
 */
int ordk_env_eal_cleanup(void);

/** Seconds of the monotonic clock (usable before EAL is up). */
double ordk_env_wall_s(void);

/** Seconds since an arbitrary point (TSC). */
double ordk_env_now_s(void);

/* -------------------------------------------------------------- ports */

/**
 * The data room of the frame pool: an RDMA frame at PMTU 4096 with its
 * headers and the 4-byte trailer, or a raw (SimpleNic) frame of the same size,
 * in one mbuf (bluesim's BLUESIM_MBUF_DATA_ROOM).
 */
#define ORDK_ENV_FRAME_ROOM 4352u

/** An mbuf pool of @p n buffers of ORDK_ENV_FRAME_ROOM bytes. @return it or NULL (rte_errno). */
struct rte_mempool *ordk_env_frame_pool(const char *name, unsigned int n);

/**
 * Configure and start @p port with one RX and one TX queue (a net_af_packet
 * port with framesz= larger than @p mp's buffers gets a pool of its own).
 * @return 0 or a negative errno.
 */
int ordk_env_port_start(uint16_t port, struct rte_mempool *mp);

/**
 * Two started net_ring ports wired to each other (frames sent on one are
 * received on the other). @return 0 or a negative errno.
 */
int ordk_env_ring_pair(const char *name, struct rte_mempool *mp, uint16_t ports[2]);

/**
 * Wait until @p port's link is up, sleeping 1 ms between looks so EAL's
 * interrupt thread (which brings net_memif up) gets the CPU. @p kick: restart
 * the port every 250 ms while the link is down (DPDK 22.11's net_memif client
 * connects once, at start: started before its server listens, it stays down).
 * @return 0 or -ETIMEDOUT.
 */
int ordk_env_link_wait(uint16_t port, double timeout_s, bool kick);

/** How long a client waits for its server (a memif socket, a link, a TCP listener). */
#define ORDK_ENV_PEER_WAIT_S 30.0
/** How often a memif client tries its server's socket again. */
#define ORDK_ENV_PEER_RETRY_S 0.25

/**
 * Start @p port (one queue pair) and wait for its link, at most @p timeout_s
 * seconds (< 0: for good). A memif client (@p client) whose server is not
 * there yet (DPDK 22.11's net_memif connects its socket once, in
 * rte_eth_dev_start()) starts again every ORDK_ENV_PEER_RETRY_S, and restarts
 * while the link stays down (see ordk_env_link_wait()).
 * @return 0, -ENODEV (no such port: the vdev was not created), -EIO (cannot
 * start), -ECONNREFUSED (no server socket in time) or -ETIMEDOUT (link down).
 */
int ordk_env_port_start_wait(uint16_t port, struct rte_mempool *mp, bool client,
			     double timeout_s);

/**
 * Map every page of the process's net_memif regions now, writable
 * (MADV_POPULATE_WRITE), once their link is up. net_memif maps its shared
 * rings and buffers (1024 of bsize bytes each way) without populating them,
 * so each buffer's first use takes a page fault in both processes, one per
 * 4 KiB page a frame reaches: in a ping-pong the first 500-1000 round trips
 * (and, once more, the first frames above one page, a 4 KiB WRITE) ran 3-5x
 * slower. Harmless to repeat; the peer's use of the memory meanwhile is
 * unaffected (nothing is written). @return the bytes populated, or a negative
 * errno (a kernel before 5.14 has no MADV_POPULATE_WRITE: -EINVAL).
 */
long ordk_env_memif_prefault(void);

/** Does a unix socket listen at @p path (a file, or the abstract name), per /proc/net/unix? */
bool ordk_env_unix_listening(const char *path);

/**
 * Before a net_memif server port is created from @p vdev (a --vdev string):
 * claim its socket file. DPDK 22.11's memif unlinks the file only when its
 * port is removed, so a process that ended with its port (qperf -cm1's
 * server, a process per test, its device kept open by rdma_cm) leaves it
 * behind and the next server's bind fails. A file nobody listens on is
 * removed; while a server still listens there (one that is ending) this
 * waits, at most @p wait_s. Not a memif server with a socket file: nothing.
 * @return 1 removed, 0 nothing to do, -EADDRINUSE (still listened on,
 * logged) or another negative errno (logged).
 */
int ordk_env_memif_claim(const char *vdev, double wait_s);

/** Stop and close every ethdev port (before rte_eal_cleanup()). */
void ordk_env_close_ports(void);

/* ----------------------------------------------------------- endpoint */

/*
 * An endpoint's fields: an ORDK device with what a program opens on it
 * first, its attributes, a PD, one CQ and one registered buffer. QPs are the
 * caller's (how many, how deep, when), destroyed before ordk_env_ep_close().
 * Written once, for struct ordk_env_ep and for ORDK_ENV_EP_MEMBER.
 */
#define ORDK_ENV_EP_FIELDS                                                  \
	struct ordk_dev *dev;                                               \
	struct ordk_dev_attr attr; /* ordk_dev_query()'s */                 \
	struct ordk_pd *pd;                                                 \
	struct ordk_cq *cq;                                                 \
	struct ordk_mr *mr; /* buf, len bytes */                            \
	uint8_t *buf;                                                       \
	size_t len;                                                         \
	bool buf_owned /* rte_zmalloc()'ed here, rte_free()'d at close */

/** An endpoint (see ORDK_ENV_EP_FIELDS). */
struct ordk_env_ep {
	ORDK_ENV_EP_FIELDS;
};

/**
 * An endpoint as a struct's member (the Linux kernel's struct_group()): the
 * struct reaches its fields as its own (s->dev, s->pd) and the whole as s->ep,
 * for ordk_env_ep_open() and ordk_env_ep_close(). Both views are the same
 * bytes: C11 anonymous members, one union.
 */
#define ORDK_ENV_EP_MEMBER                                                  \
	union {                                                             \
		struct {                                                    \
			ORDK_ENV_EP_FIELDS;                                 \
		};                                                          \
		struct ordk_env_ep ep;                                      \
	}

/**
 * Open the device @p devargs, query it, allocate a PD, create a CQ of @p cqe
 * entries, and register @p len bytes of @p buf with @p access (ORDK_ACCESS_*),
 * or, @p buf NULL, of a zeroed 4 KiB-aligned rte_zmalloc() buffer the
 * endpoint owns. It stops at the first failure, with rte_errno set: @p ep->dev
 * NULL says the device did not open; @p len 0 or above the device's
 * max_mr_size is EINVAL, logged, before any buffer is allocated; what was
 * made stays for ordk_env_ep_close(). @return 0 or -1.
 */
int ordk_env_ep_open(struct ordk_env_ep *ep, const char *devargs, uint32_t cqe, void *buf,
		     size_t len, unsigned int access);

/**
 * Deregister the MR, destroy the CQ, free the PD and close the device (those
 * that exist: after a failed open too), free an owned buffer, zero @p ep.
 * @return 0, or the first failure's negative errno (the rest are still done).
 */
int ordk_env_ep_close(struct ordk_env_ep *ep);

/* ------------------------------------------------ the end of a run */

/** The end of a two-process run over net_memif: poll @p dev 50 ms, then stay quiet @p quiet_s. */
void ordk_env_linger(struct ordk_dev *dev, double quiet_s);

/** How long a server waits for its net_memif peer to leave first (ordk_env_linger_server()). */
#define ORDK_ENV_PEER_LEAVE_S 10.0

/**
 * The server's end of a two-process run: poll 50 ms (ordk_env_linger()), then
 * wait for the peer to leave first. Over net_memif that is seen: the link goes
 * down, and the disconnect has run its course in EAL's interrupt thread
 * before this returns (at most ORDK_ENV_PEER_LEAVE_S). Other ports do not see
 * the peer go: stay quiet @p quiet_s instead.
 * @return 1: the peer left, 0: not seen (quiet instead), -ETIMEDOUT: it stayed.
 */
int ordk_env_linger_server(struct ordk_dev *dev, double quiet_s);

#endif /* ORDK_ENV_H */
