/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ORDK connection setup, minimal: a TCP exchange of QP attributes between
 * two processes (like perftest's), and a helper that takes a QP to RTS.
 */
#ifndef ORDK_CM_H
#define ORDK_CM_H

#include <stdint.h>

#include "ordk_verbs.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What each side tells the other. */
struct ordk_cm_info {
	uint32_t qpn;
	uint32_t psn;  /**< first PSN this side sends with (keep it below 112: see doc) */
	uint32_t ip;
	uint64_t mac;
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
 *   or no answer at all), -EPROTO (the peer
 *   is not ORDK or speaks another version), -EHOSTUNREACH (host did not
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
 *   records than @p max; -EPROTO: not an ORDK peer).
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

#ifdef __cplusplus
}
#endif

#endif /* ORDK_CM_H */
