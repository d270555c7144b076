/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The checks every boundary shares (ordk_devargs.h): addresses, QPNs,
 * ranges and sizes, each refused with the field named and the reason.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ordk_devargs.h"

static int refuse(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int
refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

const char *
ordk_devargs_mac_str(uint64_t mac, char buf[ORDK_DEVARGS_MAC_STRLEN])
{
	snprintf(buf, ORDK_DEVARGS_MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x",
		 (unsigned int)(mac >> 40 & 0xFF), (unsigned int)(mac >> 32 & 0xFF),
		 (unsigned int)(mac >> 24 & 0xFF), (unsigned int)(mac >> 16 & 0xFF),
		 (unsigned int)(mac >> 8 & 0xFF), (unsigned int)(mac & 0xFF));
	return buf;
}

const char *
ordk_devargs_ipv4_str(uint32_t ip, char buf[ORDK_DEVARGS_IPV4_STRLEN])
{
	snprintf(buf, ORDK_DEVARGS_IPV4_STRLEN, "%u.%u.%u.%u", ip >> 24, ip >> 16 & 0xFF,
		 ip >> 8 & 0xFF, ip & 0xFF);
	return buf;
}

int
ordk_devargs_check_mac(const char *field, uint64_t mac, char *err, size_t errlen)
{
	char s[ORDK_DEVARGS_MAC_STRLEN];
	const char *why = NULL;

	if (mac >> 48)
		return refuse(err, errlen, "%s 0x%" PRIx64 ": more than 48 bits", field, mac);
	if (mac == 0)
		why = "zero";
	else if (mac == 0xFFFFFFFFFFFFull)
		why = "broadcast";
	else if (mac & (1ull << 40))
		why = "multicast: the group bit of the first octet is set";
	if (why == NULL)
		return 0;
	return refuse(err, errlen, "%s %s: not a unicast address (%s)", field,
		      ordk_devargs_mac_str(mac, s), why);
}

int
ordk_devargs_check_ipv4(const char *field, uint32_t ip, unsigned int flags, char *err,
			size_t errlen)
{
	char s[ORDK_DEVARGS_IPV4_STRLEN];
	const char *why = NULL;

	if (ip >> 24 == 0)
		why = "0.0.0.0/8, this network";
	else if (ip == 0xFFFFFFFFu)
		why = "the limited broadcast";
	else if (ip >> 28 == 0xE)
		why = "multicast, 224.0.0.0/4";
	else if (ip >> 24 == 127 && !(flags & ORDK_DEVARGS_IP_LOOPBACK))
		why = "loopback, 127.0.0.0/8: the card cannot reach it";
	if (why == NULL)
		return 0;
	return refuse(err, errlen, "%s %s: not a unicast address (%s)", field,
		      ordk_devargs_ipv4_str(ip, s), why);
}

int
ordk_devargs_check_qpn(const char *field, uint32_t qpn, char *err, size_t errlen)
{
	if (qpn > 0xFFFFFFu)
		return refuse(err, errlen, "%s 0x%" PRIx32 ": out of range (0x000002..0xffffff)",
			      field, qpn);
	if (qpn < 2)
		return refuse(err, errlen, "%s 0x%06" PRIx32 ": reserved (QP0 and QP1 are IBA's "
			      "SMI and GSI)", field, qpn);
	return 0;
}

int
ordk_devargs_check_range(const char *field, uint64_t v, uint64_t lo, uint64_t hi, char *err,
			 size_t errlen)
{
	if (v >= lo && v <= hi)
		return 0;
	return refuse(err, errlen, "%s: %" PRIu64 " out of range (%" PRIu64 "..%" PRIu64 ")", field,
		      v, lo, hi);
}

/* Digits, a K/M/G suffix when @p suffix_ok, in [lo, hi]; what ordk_devargs_size() says. */
static int
parse_num(const char *field, const char *s, bool suffix_ok, uint64_t lo, uint64_t hi,
	  uint64_t *out, char *err, size_t errlen)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;
	int range;

	/* strtoull() would take a sign or spaces: digits first, or it is not a number */
	if (s == NULL || *s < '0' || *s > '9')
		goto not_a_number;
	errno = 0;
	v = strtoull(s, &end, 10);
	range = errno;
	if (suffix_ok) {
		switch (*end) {
		case 'k': case 'K': shift = 10; end++; break;
		case 'm': case 'M': shift = 20; end++; break;
		case 'g': case 'G': shift = 30; end++; break;
		default: break;
		}
	}
	if (*end != '\0')
		goto not_a_number;
	/* ERANGE: beyond 2^64 - 1 (strtoull() then says ULLONG_MAX); then the suffix's overflow */
	if (range == ERANGE || v > UINT64_MAX >> shift || (uint64_t)v << shift < lo ||
	    (uint64_t)v << shift > hi)
		return refuse(err, errlen, "%s: %s out of range (%" PRIu64 "..%" PRIu64 ")", field, s,
			      lo, hi);
	*out = (uint64_t)v << shift;
	return 0;
not_a_number:
	return refuse(err, errlen, "%s: \"%s\" is not %s", field, s != NULL ? s : "",
		      suffix_ok ? "a size (digits and K, M or G)" : "a number (decimal digits)");
}

int
ordk_devargs_size(const char *field, const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
		  char *err, size_t errlen)
{
	return parse_num(field, s, true, lo, hi, out, err, errlen);
}

int
ordk_devargs_number(const char *field, const char *s, uint64_t lo, uint64_t hi, uint64_t *out,
		    char *err, size_t errlen)
{
	return parse_num(field, s, false, lo, hi, out, err, errlen);
}
