/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Device arguments ("port=0,fault=[drop:0.01,dup:0.001],seed=7") on DPDK's
 * rte_kvargs, with a key table per owner: each value goes to its key's
 * handler, a key no table knows is refused with its name in the message.
 * Lists sit in brackets (rte_kvargs' syntax); the older spelling that lets a
 * list continue after a comma ("fault=drop:0.01,dup:0.001") is read as the
 * bracketed one. Used by the Blue driver, its VFIO backend and bluesim.
 *
 * Also the checks every boundary shares for what comes from outside ORDK:
 * a device's or a peer's MAC and IPv4 address, a peer's QPN, a number or a
 * size in a range. Devargs, lib/cm's peer records and cluster config,
 * ordk_qp_modify() and the examples' command lines refuse the same values
 * with the same words.
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

/**
 * Devarg @p key's station MAC "02:00:00:00:00:01" (six octets of one or two
 * hex digits), checked by ordk_devargs_check_mac().
 * @return 0, or -EINVAL with the reason in @p err.
 */
int ordk_devargs_mac(const char *key, const char *value, uint64_t *mac, char *err, size_t errlen);

/**
 * Devarg @p key's dotted IPv4 address as a number (10.0.0.1 = 0x0A000001),
 * checked by ordk_devargs_check_ipv4() as a device's address (no loopback).
 * @return 0, or -EINVAL with the reason in @p err.
 */
int ordk_devargs_ipv4(const char *key, const char *value, uint32_t *ip, char *err, size_t errlen);

/*
 * The shared checks. Each returns 0, or -EINVAL with "<field> <value>: <why>"
 * in @p err (when not NULL); @p field is what the caller's user knows the
 * value as ("peer mac", "dest_ip", "mr_size", "-s").
 */

#define ORDK_DEVARGS_MAC_STRLEN	 18u /* "ff:ff:ff:ff:ff:ff" and its NUL */
#define ORDK_DEVARGS_IPV4_STRLEN 16u /* "255.255.255.255" and its NUL */

/** @p mac (48 bits, first octet most significant) as "02:00:00:00:00:01" in @p buf. */
const char *ordk_devargs_mac_str(uint64_t mac, char buf[ORDK_DEVARGS_MAC_STRLEN]);
/** @p ip (10.0.0.1 = 0x0A000001) as "10.0.0.1" in @p buf. */
const char *ordk_devargs_ipv4_str(uint32_t ip, char buf[ORDK_DEVARGS_IPV4_STRLEN]);

/**
 * A station MAC: 48 bits, not zero, the group bit (bit 0 of the first
 * octet) clear, so neither broadcast nor multicast.
 */
int ordk_devargs_check_mac(const char *field, uint64_t mac, char *err, size_t errlen);

/** ordk_devargs_check_ipv4() flag: loopback is fine (a kernel socket's peer, not the card's). */
#define ORDK_DEVARGS_IP_LOOPBACK 1u

/**
 * A unicast IPv4 address: not in 0.0.0.0/8 ("this network", never a
 * destination), not multicast (224.0.0.0/4), not the limited broadcast
 * 255.255.255.255, and not loopback (127.0.0.0/8: a card sends every frame
 * to the wire, where no host answers for it) unless @p flags has
 * ORDK_DEVARGS_IP_LOOPBACK. A subnet's directed broadcast cannot be told
 * without its netmask and passes.
 */
int ordk_devargs_check_ipv4(const char *field, uint32_t ip, unsigned int flags, char *err,
			    size_t errlen);

/**
 * A QPN a QP may name as its peer: 24 bits (IBA 9.2), and not 0 or 1 (IBA's
 * SMI and GSI QPs, which an RC QP never reaches; a Blue card numbers its QPs
 * from 0x100, doc/guides/drivers/blue_hw_interface.md section 5.3).
 */
int ordk_devargs_check_qpn(const char *field, uint32_t qpn, char *err, size_t errlen);

/** @p v in [@p lo, @p hi]: else "<field>: <v> out of range (<lo>..<hi>)". */
int ordk_devargs_check_range(const char *field, uint64_t v, uint64_t lo, uint64_t hi, char *err,
			     size_t errlen);

/**
 * A size in [@p lo, @p hi]: decimal digits with an optional K, M or G
 * (binary, either case). The digits are read with strtoull() and ERANGE, the
 * suffix's multiplication is checked, so no overflow wraps into the range.
 * @return 0, or -EINVAL with "<field>: \"<s>\" is not a size ..." or
 *   "<field>: <s> out of range (<lo>..<hi>)" in @p err.
 */
int ordk_devargs_size(const char *field, const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
		      char *err, size_t errlen);

/** As ordk_devargs_size(), decimal digits only: a port, a count. */
int ordk_devargs_number(const char *field, const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
			char *err, size_t errlen);

#endif /* ORDK_DEVARGS_H */
