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
 * connect to @p host:@p port, retrying until the server listens.
 * @return 0; -ETIMEDOUT (nothing within @p timeout_ms), -EPROTO (the peer
 *   is not ORDK or speaks another version), -EHOSTUNREACH (host did not
 *   resolve), or another negative errno of the socket calls.
 */
int ordk_cm_exchange(const char *host, uint16_t port, const struct ordk_cm_info *local,
		     struct ordk_cm_info *remote, int timeout_ms);

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
