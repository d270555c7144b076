/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the examples share: EAL arguments (the user's before "--", or ones
 * that work on one machine: net_memif between two processes), one "node"
 * (device, PD, CQ, a registered buffer, QPs), connecting QPs through lib/cm,
 * bounded waits, and latency percentiles.
 */
#ifndef ORDK_EX_H
#define ORDK_EX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ordk_cm.h"
#include "ordk_env.h"
#include "ordk_verbs.h"

#define EX_MAX_QPS 16u

/*
 * The end of a run over net_memif: the client says bye and waits for its
 * completion at most EX_BYE_WAIT_S, long enough for a resend of a lost bye
 * (with 0.5 s, blockstore_loss's target waited out its whole 90 s), though
 * under loss the server's ACK may need a resend the server no longer polls
 * for; then it lingers (0.3 s, or ex_node.linger_s) and closes. The server,
 * having read the bye, polls 50 ms and waits for the client to leave first
 * (ordk_env_linger_server(): net_memif faults when polled after its peer left, and
 * when the peer's disconnect meets the server's rte_eal_cleanup()); over a
 * port that cannot see the client go it stays quiet EX_SERVER_QUIET_S.
 */
#define EX_BYE_WAIT_S	  2.0
#define EX_SERVER_QUIET_S 2.0
#define EX_CONNECT_MS	  30000 /* the TCP connect and exchange with a server, bounded */

struct ex_node {
	ORDK_ENV_EP_MEMBER; /* dev, attr, pd, cq, mr, buf, len (lib/env's endpoint) */
	struct ordk_qp *qp[EX_MAX_QPS];
	struct ordk_cm_info peer[EX_MAX_QPS]; /* the peer's records: its QPN, MR addr/rkey/len */
	unsigned int nqp;
	bool client;
	double linger_s; /* a client's linger before it closes (0: 0.3 s) */
};

/**
 * Split argv at "--": *@p targc / *@p targv are the example's own
 * arguments (targv[0] is the program name). @return the EAL argc (0 when
 * the user gave no EAL arguments).
 */
int ex_split_args(int argc, char **argv, int *targc, char ***targv);

/**
 * Option @p opt of @p prog: a number (ex_num, decimal digits) or a size
 * (ex_size, digits and K, M or G) in [@p lo, @p hi], read by the shared
 * parser (app_opt_u64()). @return it, or 0 with *@p bad set and the reason
 * printed ("send_recv: -s: 4294967297 out of range (1..1048576)").
 */
uint64_t ex_num(const char *prog, const char *opt, const char *s, uint64_t lo, uint64_t hi,
		bool *bad);
uint64_t ex_size(const char *prog, const char *opt, const char *s, uint64_t lo, uint64_t hi,
		 bool *bad);

/**
 * EAL: the user's arguments (@p eal_argc > 0), or defaults: --no-pci, one
 * lcore (0 for the server, 1 for the client), hugepages when usable, and
 * net_memif over /tmp/ordk-<name>-<port>.sock when @p devargs is bluesim's.
 * @return 0 or -1 (message printed).
 */
int ex_eal_init(int eal_argc, char **argv, const char *name, bool client, uint16_t port,
		unsigned int mem_mb, const char *devargs);

/**
 * Device (starting its bluesim port), PD, CQ of @p cqe, @p len bytes
 * registered (refused, said, when more than the device's max_mr_size).
 */
int ex_node_open(struct ex_node *n, const char *devargs, bool client, size_t len, uint32_t cqe);
void ex_node_close(struct ex_node *n);

/** This node's record for @p qp: QPN, addresses, and its buffer's addr/rkey/len. */
struct ordk_cm_info ex_record(const struct ex_node *n, const struct ordk_qp *qp);

/** Client: make @p nqp QPs, exchange records with @p host:@p port, connect them. */
int ex_connect(struct ex_node *n, const char *host, uint16_t port, unsigned int nqp,
	       uint32_t depth);

/**
 * Server: when a client waits on @p lfd (ordk_cm_listen), make as many QPs
 * as it asks for, answer, connect. @return 1 (a client came), 0 (nobody), -1.
 */
int ex_accept(struct ex_node *n, int lfd, uint32_t depth);

/**
 * The end of an example process: the client lingers (see ordk_env_linger()) so
 * the server closes last, then the node, the ports and EAL close.
 */
void ex_finish(struct ex_node *n);

/** Poll until @p want completions are in @p wc or @p seconds passed. @return how many. */
int ex_wait(struct ex_node *n, struct ordk_wc *wc, int want, double seconds);

/** Sorts @p v; percentile @p p (0..100) of @p n values (0 when n is 0). */
double ex_pct(double *v, size_t n, double p);
void ex_sort(double *v, size_t n);

/* ------------------------------------------------ a cluster (lib/cm) */

/**
 * Read the cluster config @p path (message naming the wrong field printed)
 * and connect to its memcached (waiting at most @p timeout_ms). @return the
 * session, or NULL (message printed).
 */
struct ordk_cm_mc *ex_cluster_open(const char *path, struct ordk_cm_config *cfg, int timeout_ms);

/**
 * The seed's SyncComputeNodes: node @p role/@p id waits at barrier @p name
 * for every node of @p groups; on timeout it prints who is missing.
 * @return 0 or -1 (message printed).
 */
int ex_cluster_sync(struct ordk_cm_mc *mc, const char *name, const char *role, unsigned int id,
		    const struct ordk_cm_group *groups, unsigned int ngroups, double seconds);

/** Make @p nqp QPs and publish their records for @p to_role/@p to_id. */
int ex_mc_offer(struct ex_node *n, struct ordk_cm_mc *mc, const char *role, unsigned int id,
		const char *to_role, unsigned int to_id, unsigned int nqp, uint32_t depth);

/**
 * The answering side: wait for @p from_role/@p from_id's records, make as
 * many QPs, publish ours for it, connect. @return 0 or -1 (message printed).
 */
int ex_mc_answer(struct ex_node *n, struct ordk_cm_mc *mc, const char *role, unsigned int id,
		 const char *from_role, unsigned int from_id, uint32_t depth, double seconds);

/** The offering side, after ex_mc_offer(): wait for the answer, connect. */
int ex_mc_join(struct ex_node *n, struct ordk_cm_mc *mc, const char *role, unsigned int id,
	       const char *to_role, unsigned int to_id, double seconds);

/** A fast deterministic byte pattern for data checks. */
void ex_fill(uint8_t *p, size_t len, uint64_t seed);
/** @return the first offset that differs from ex_fill(seed), or len. */
size_t ex_check(const uint8_t *p, size_t len, uint64_t seed);

#endif /* ORDK_EX_H */
