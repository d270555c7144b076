/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK connection setup, minimal: a TCP exchange of QP attributes between
 * two processes (like perftest's), a rendezvous through memcached for a
 * cluster of nodes, and a helper that takes a QP to RTS.
 */
#ifndef ORDK_CM_H
#define ORDK_CM_H

#include <stdint.h>

#include "ordk_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* libordk's API: exported although ORDK builds with hidden visibility (the version map picks) */
#pragma GCC visibility push(default)

/**
 * What each side tells the other. A record received (TCP or memcached) is
 * refused with -EPROTO, logged (`ordk.cm`) with the field named ("peer mac
 * ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)"), unless it names a
 * peer a QP can have: qpn 2..0xffffff (0 and 1 are IBA's special QPs), psn
 * 24 bits, a unicast mac (not zero, broadcast or multicast), a unicast ip
 * (not 0.0.0.0/8, 224.0.0.0/4, 255.255.255.255, nor loopback 127.0.0.0/8,
 * which the card cannot reach), and addr + len not wrapping.
 */
struct ordk_cm_info {
	uint32_t qpn;
	uint32_t psn;  /**< first PSN this side sends with: 0..ORDK_PSN_FIRST_MAX */
	uint32_t ip;   /**< the device's IPv4 (ordk_dev_attr) */
	uint64_t mac;  /**< the device's MAC (ordk_dev_attr) */
	uint64_t addr; /**< optional: a buffer the peer may access */
	uint32_t rkey;
	uint32_t len;
};

#define ORDK_CM_DEFAULT_PORT 18515 /* perftest's default port */

/**
 * Exchange @p local for the peer's info over TCP. @p host NULL: be the
 * server (listen on @p port on every address, accept one client); else
 * connect to @p host:@p port, retrying until the server listens. Every
 * wait, the TCP handshake too, ends by @p timeout_ms (<= 0: 10 s): a host
 * that drops SYNs costs @p timeout_ms, not the kernel's ~2 minutes.
 * @return 0; -ETIMEDOUT (nothing within @p timeout_ms: no server listening
 *   or no answer at all), -EPROTO (the peer is not ORDK, speaks another
 *   version, or its record names no peer a QP can have), -EHOSTUNREACH (host did not
 *   resolve), or another negative errno of the socket calls.
 */
int ordk_cm_exchange(const char *host, uint16_t port, const struct ordk_cm_info *local,
		     struct ordk_cm_info *remote, int timeout_ms);

/**
 * Several QPs at once, for servers that keep polling while clients come:
 * ordk_cm_listen() opens the listening socket (every address, @p port);
 * ordk_cm_accept() takes a waiting client's records (at most @p max; *@p n
 * says how many) within @p timeout_ms (0: only look) and returns the
 * connection, or -EAGAIN when nobody came; the server then makes its QPs and
 * answers with exactly *@p n records through ordk_cm_reply(), which closes
 * the connection. ordk_cm_connect() is the client's side: @p n records out,
 * @p n back. Records are the same as ordk_cm_exchange()'s (which is n = 1).
 * @return a socket (listen, accept), 0, or a negative errno (-E2BIG: more
 *   records than @p max; -EPROTO: not an ORDK peer, or a record refused).
 */
int ordk_cm_listen(uint16_t port);
int ordk_cm_accept(int lfd, struct ordk_cm_info *remote, unsigned int max, unsigned int *n,
		   int timeout_ms);
int ordk_cm_reply(int fd, const struct ordk_cm_info *local, unsigned int n);
int ordk_cm_connect(const char *host, uint16_t port, const struct ordk_cm_info *local,
		    struct ordk_cm_info *remote, unsigned int n, int timeout_ms);

/**
 * RESET -> INIT -> RTR -> RTS with the peer's attributes: path MTU @p mtu,
 * access @p access, default timeout/retry values. @return 0 or ordk_qp_modify's error.
 */
int ordk_cm_connect_qp(struct ordk_qp *qp, const struct ordk_cm_info *local,
		       const struct ordk_cm_info *remote, enum ordk_mtu mtu, unsigned int access);


/*
 * Rendezvous through a memcached server, the way CREST-like clusters meet:
 * every node publishes its QP records under keys named by role and id, its
 * peers wait for them, and named barriers wait for exactly the configured
 * nodes. Keys: "<cluster>/qp/<role><id>><role><id>" (records from the
 * first node for the second), "<cluster>/bar/<name>/<role><id>". Use a
 * cluster name of its own per run (stale keys of an earlier run with the
 * same name would be read as this run's); every key expires after the
 * session's TTL. One session per thread (libmemcached's are not shared).
 */
struct ordk_cm_mc;

/** A role and how many nodes play it: ids 0 .. count - 1. */
struct ordk_cm_group {
	const char *role; /**< e.g. "mn", "cn" (letters, digits, '_' only) */
	unsigned int count;
};

/**
 * Connect to memcached at @p host:@p port, waiting at most @p timeout_ms for
 * it to answer. @p cluster names this run's keys (NULL: "ordk"); keys live
 * @p ttl_s seconds (0: 600).
 * @return a session, or NULL with rte_errno: ECONNREFUSED (nothing answered
 *   in time), EINVAL (bad name), ENOMEM.
 */
struct ordk_cm_mc *ordk_cm_mc_open(const char *host, uint16_t port, const char *cluster,
				   unsigned int ttl_s, int timeout_ms);
void ordk_cm_mc_close(struct ordk_cm_mc *mc);

/**
 * Publish @p n records of node @p role/@p id for node @p to_role/@p to_id.
 * @return 0, -EINVAL (bad name, n 0 or above ORDK_CM_MC_MAX_RECS),
 *   -ECONNREFUSED (the server is gone), -EIO (another memcached error).
 */
int ordk_cm_mc_publish(struct ordk_cm_mc *mc, const char *role, unsigned int id,
		       const char *to_role, unsigned int to_id, const struct ordk_cm_info *recs,
		       unsigned int n);

/**
 * Wait at most @p timeout_ms for the records node @p from_role/@p from_id
 * published for @p role/@p id; at most @p max go to @p recs, *@p n says how many.
 * @return 0, -ETIMEDOUT, -E2BIG (more than @p max), -EPROTO (not records, or
 *   a record refused as ordk_cm_info says), -EINVAL, -ECONNREFUSED, -EIO.
 */
int ordk_cm_mc_fetch(struct ordk_cm_mc *mc, const char *from_role, unsigned int from_id,
		     const char *role, unsigned int id, struct ordk_cm_info *recs, unsigned int max,
		     unsigned int *n, int timeout_ms);

#define ORDK_CM_MC_MAX_RECS 64u

/**
 * Barrier @p name: node @p role/@p id arrives, then waits at most
 * @p timeout_ms until every node of @p groups (exactly: ids 0 .. count - 1
 * of each role) arrived. When it times out, @p missing (if not NULL) lists
 * who did not come ("cn1 cn2"); a node beyond the configured count that
 * arrived (id == count) fails it too, named in @p missing with a '+'.
 * @return 0, -ETIMEDOUT (someone missing), -EEXIST (more nodes than
 *   configured), -EINVAL (@p role/@p id not among @p groups: it arrives all the
 *   same, so the configured nodes see one too many), -ECONNREFUSED, -EIO.
 */
int ordk_cm_mc_barrier(struct ordk_cm_mc *mc, const char *name, const char *role,
		       unsigned int id, const struct ordk_cm_group *groups, unsigned int ngroups,
		       int timeout_ms, char *missing, size_t missing_len);

/**
 * How many nodes of @p role (ids 0 .. @p max - 1) arrived at barrier
 * @p name so far, without arriving. @return the count or a negative errno.
 */
int ordk_cm_mc_arrived(struct ordk_cm_mc *mc, const char *name, const char *role,
		       unsigned int max);

/*
 * The cluster config, a JSON file like CREST's:
 *   { "MN_ips": ["10.10.1.3"], "CN_ips": ["10.10.1.4", "10.10.1.2"],
 *     "memcached_ip": "10.10.1.3", "memcached_port": 11211, "mr_size": 16,
 *     "device": "bluesim,port=0", "cluster": "tpcc1",
 *     "redis_ip": "10.10.1.3", "redis_port": 6379, "ib_dev_id": 0, "ib_port": 1, "gid_idx": 3 }
 * mr_size: a number is GiB (as CREST's), a string takes K, M or G ("64M");
 * either in 1..ORDK_CM_MR_SIZE_MAX bytes, the string read so that no
 * overflow passes ("18446744073709551615" and "99999999999999999999" are out
 * of range, not 16 EiB). Addresses: unicast IPv4 (not 0.0.0.0/8,
 * 224.0.0.0/4 or 255.255.255.255); loopback is fine, these are the kernel's
 * sockets, not the card's. ib_dev_id, ib_port and gid_idx are read and
 * range-checked only: ORDK names its device by devargs in "device". Any
 * other field is refused.
 */
#define ORDK_CM_MAX_NODES 32u
#define ORDK_CM_IP_LEN	  64u
/**
 * The largest mr_size: 128 TiB, a 47-bit user address space (x86-64, arm64
 * with 4-level tables), so no device registers more; the device's own limits
 * (ordk_dev_attr's max_mr_size per MR) apply where the memory is registered.
 */
#define ORDK_CM_MR_SIZE_MAX (1ull << 47)

struct ordk_cm_config {
	char mn_ips[ORDK_CM_MAX_NODES][ORDK_CM_IP_LEN];
	unsigned int n_mn;
	char cn_ips[ORDK_CM_MAX_NODES][ORDK_CM_IP_LEN];
	unsigned int n_cn;
	char memcached_ip[ORDK_CM_IP_LEN];
	uint16_t memcached_port; /**< default 11211 */
	char redis_ip[ORDK_CM_IP_LEN];	/**< empty: none configured */
	uint16_t redis_port;		/**< default 6379 */
	uint64_t mr_size;		/**< bytes */
	char device[256];		/**< devargs; default "bluesim,port=0" */
	char cluster[33];		/**< key prefix in the services; default "ordk" */
	int ib_dev_id, ib_port, gid_idx;
};

/**
 * Read and check the cluster config in @p path. On error @p err (when not
 * NULL) says which field is wrong and why, e.g. "CN_ips[1]: \"10.0.0.300\" is
 * not an IPv4 address", "mr_size: 18446744073709551615 out of range (1..140737488355328)".
 * @return 0, -ENOENT (no such file), -EINVAL (not JSON, or a field wrong).
 */
int ordk_cm_config_load(const char *path, struct ordk_cm_config *cfg, char *err,
			size_t err_len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* ORDK_CM_H */
