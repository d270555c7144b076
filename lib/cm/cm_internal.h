/* SPDX-License-Identifier: BSD-3-Clause */
/* What the TCP exchange and the memcached rendezvous share: the record's encoding. */
#ifndef ORDK_CM_INTERNAL_H
#define ORDK_CM_INTERNAL_H

#include <stdint.h>

#include <rte_log.h>

#include "ordk_cm.h"

extern int ordk_cm_logtype;
#define CM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ordk_cm_logtype, "ordk.cm: " fmt "\n", ##__VA_ARGS__)

#define CM_LEN 48 /* one record on the wire and in a memcached value */

/* Encode @p in into @p b (CM_LEN bytes); @p count rides in the first record. */
void cm_encode(const struct ordk_cm_info *in, uint8_t *b, uint32_t count);
/*
 * Decode record @p i that came from @p from (a TCP peer, a memcached key) and
 * check the peer it names. @return 0, or -EPROTO (not an ORDK record, or a
 * field out of range: logged, the field and @p from named).
 */
int cm_decode(const uint8_t *b, struct ordk_cm_info *out, const char *from, unsigned int i);
/* Milliseconds of the monotonic clock. */
int64_t cm_now_ms(void);

#endif /* ORDK_CM_INTERNAL_H */
