/* SPDX-License-Identifier: BSD-3-Clause */
/* What the TCP exchange and the memcached rendezvous share: the record's encoding. */
#ifndef ORDK_CM_INTERNAL_H
#define ORDK_CM_INTERNAL_H

#include <stdint.h>

#include "ordk_cm.h"

#define CM_LEN 48 /* one record on the wire and in a memcached value */

/* Encode @p in into @p b (CM_LEN bytes); @p count rides in the first record. */
void cm_encode(const struct ordk_cm_info *in, uint8_t *b, uint32_t count);
/* @return 0, or -EPROTO (not an ORDK record or a field out of range). */
int cm_decode(const uint8_t *b, struct ordk_cm_info *out);
/* Milliseconds of the monotonic clock. */
int64_t cm_now_ms(void);

#endif /* ORDK_CM_INTERNAL_H */
