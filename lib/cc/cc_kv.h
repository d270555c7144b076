/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "key=value,key=value" lists for the congestion-control parameters and the
 * test switch's queues: one splitter, each caller's own key setter.
 * Pure C: no DPDK, so the unit tests need no EAL.
 */
#ifndef CC_KV_H
#define CC_KV_H

#include <stddef.h>

/** Set one key of @p obj; 0, or -EINVAL with the reason in @p err. */
typedef int (*cc_kv_set_fn)(void *obj, const char *key, const char *val, char *err,
			    size_t errlen);

/**
 * Apply every "key=value" of @p args (comma-separated, at most 511 characters)
 * through @p set. @return 0, or -EINVAL with the reason in @p err (an item
 * without '=', a list too long, or what @p set said).
 */
int cc_kv_parse(const char *args, cc_kv_set_fn set, void *obj, char *err, size_t errlen);

/** Format a reason into @p err (if any); @return -EINVAL. */
int cc_kv_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* CC_KV_H */
