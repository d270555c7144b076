/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Device arguments ("port=0,fault=[drop:0.01,dup:0.001],seed=7") on DPDK's
 * rte_kvargs, with a key table per owner: each value goes to its key's
 * handler, a key no table knows is refused with its name in the message.
 * Lists sit in brackets (rte_kvargs' syntax); the older spelling that lets a
 * list continue after a comma ("fault=drop:0.01,dup:0.001") is read as the
 * bracketed one. Used by the Blue driver, its VFIO backend and bluesim.
 */
#ifndef ORDK_DEVARGS_H
#define ORDK_DEVARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * A key's handler: @p value is never NULL (brackets of a list removed) and
 * stays valid while the caller's @p keep buffer does (ordk_devargs_parse()).
 * @return 0, or a negative errno (-EINVAL, -ENODEV, ...) with the reason in @p err.
 */
typedef int (*ordk_devarg_fn)(const char *value, void *arg, char *err, size_t errlen);

/** A key and its handler; a NULL handler accepts the key for another owner. */
struct ordk_devarg {
	const char *key;
	ordk_devarg_fn fn;
};

/**
 * One owner's keys (an array of @p n) and the argument its handlers get.
 * With @p others set, the keys are accepted and their handlers not run: they
 * belong to another parser of the same string (the driver's mac= and ip= in
 * the backend's pass, and the reverse).
 */
struct ordk_devargs_set {
	const struct ordk_devarg *keys;
	unsigned int n;
	void *arg;
	bool others;
};

/**
 * Parse @p args (key=value pairs separated by commas, lists in brackets) and
 * run each key's handler in order. Values are copied into @p keep.
 * @return 0; -EINVAL with the reason in @p err (unknown key, no value, an
 * unclosed bracket, too long for @p keep); or a handler's error.
 */
int ordk_devargs_parse(const char *args, const struct ordk_devargs_set *sets, unsigned int nsets,
		       char *keep, size_t keep_len, char *err, size_t errlen);

/** An unsigned number (decimal or 0x hex) in [min, max]: @return 0 or -EINVAL. */
int ordk_devargs_u64(const char *value, uint64_t min, uint64_t max, uint64_t *out);

/** A station MAC "02:00:00:00:00:01" (no multicast bit): @return 0 or -EINVAL. */
int ordk_devargs_mac(const char *value, uint64_t *mac);

/** A dotted IPv4 address, as a number (10.0.0.1 = 0x0A000001): @return 0 or -EINVAL. */
int ordk_devargs_ipv4(const char *value, uint32_t *ip);

#endif /* ORDK_DEVARGS_H */
