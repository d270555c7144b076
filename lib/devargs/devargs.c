/* SPDX-License-Identifier: BSD-3-Clause */
/* Device arguments on rte_kvargs: key tables, list brackets, the older list spelling. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "ordk_devargs.h"

#define TOKENS_MAX RTE_KVARGS_MAX

struct token {
	const char *s;
	size_t len;
};

/* Split at the commas outside brackets. @return the number of tokens, or -1 when too many. */
static int
split(const char *s, struct token *t, int max)
{
	int n = 0, depth = 0;
	const char *start = s;

	for (const char *p = s;; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		if (*p == '\0' || (*p == ',' && depth == 0)) {
			if (p > start) {
				if (n == max)
					return -1;
				t[n++] = (struct token){ start, (size_t)(p - start) };
			}
			if (*p == '\0')
				return n;
			start = p + 1;
		}
	}
}

/* A list item of the older spelling: "dup:0.001", no '='. */
static bool
continues(const struct token *t)
{
	return memchr(t->s, '=', t->len) == NULL && memchr(t->s, ':', t->len) != NULL;
}

/*
 * "k=v,a:b,c:d,k2=v2" -> "k=[v,a:b,c:d],k2=v2": tokens like "a:b" (no '=')
 * after a key=value continue its value (the spelling before brackets).
 * @return 0, or -EINVAL when @p out is too small or there are too many tokens.
 */
static int
bracket_lists(const char *in, char *out, size_t cap)
{
	struct token t[TOKENS_MAX];
	int n = split(in, t, TOKENS_MAX);
	size_t o = 0;

	if (n < 0)
		return -EINVAL;
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		const char *eq = memchr(t[i].s, '=', t[i].len);
		int j = i + 1;
		int w;

		while (eq != NULL && eq[1] != '[' && j < n && continues(&t[j]))
			j++;
		if (j == i + 1) {
			w = snprintf(out + o, cap - o, "%s%.*s", o ? "," : "", (int)t[i].len, t[i].s);
		} else {
			size_t klen = (size_t)(eq - t[i].s) + 1;
			size_t vend = (size_t)(t[j - 1].s + t[j - 1].len - (eq + 1));

			w = snprintf(out + o, cap - o, "%s%.*s[%.*s]", o ? "," : "", (int)klen, t[i].s,
				     (int)vend, eq + 1);
			i = j - 1;
		}
		if (w < 0 || (size_t)w >= cap - o)
			return -EINVAL;
		o += (size_t)w;
	}
	return 0;
}

static const struct ordk_devarg *
find_key(const struct ordk_devargs_set *sets, unsigned int nsets, const char *key,
	 unsigned int *set)
{
	for (unsigned int s = 0; s < nsets; s++)
		for (unsigned int k = 0; k < sets[s].n; k++)
			if (strcmp(sets[s].keys[k].key, key) == 0) {
				*set = s;
				return &sets[s].keys[k];
			}
	return NULL;
}

static void
unknown_key(const struct ordk_devargs_set *sets, unsigned int nsets, const char *key, char *err,
	    size_t errlen)
{
	size_t o = (size_t)snprintf(err, errlen, "unknown key '%s' (keys:", key);

	for (unsigned int s = 0; s < nsets; s++)
		for (unsigned int k = 0; k < sets[s].n && o < errlen; k++)
			o += (size_t)snprintf(err + o, errlen - o, " %s", sets[s].keys[k].key);
	if (o < errlen)
		snprintf(err + o, errlen - o, ")");
}

/* Copy @p v into keep without its brackets; @return the copy, or NULL. */
static const char *
keep_value(const char *v, char *keep, size_t keep_len, size_t *used)
{
	size_t len = strlen(v);
	char *dst = keep + *used;

	if (v[0] == '[') {
		if (len < 2 || v[len - 1] != ']')
			return NULL;
		v++;
		len -= 2;
	}
	if (*used + len + 1 > keep_len)
		return NULL;
	memcpy(dst, v, len);
	dst[len] = '\0';
	*used += len + 1;
	return dst;
}

static int
run_pairs(const struct rte_kvargs *kv, const struct ordk_devargs_set *sets, unsigned int nsets,
	  char *keep, size_t keep_len, char *err, size_t errlen)
{
	size_t used = 0;

	for (unsigned int i = 0; i < kv->count; i++) {
		const struct rte_kvargs_pair *p = &kv->pairs[i];
		unsigned int s = 0;
		const struct ordk_devarg *k = find_key(sets, nsets, p->key, &s);
		const char *v;
		int rc;

		if (p->value == NULL) {
			snprintf(err, errlen, "'%s': expected key=value", p->key);
			return -EINVAL;
		}
		if (k == NULL) {
			unknown_key(sets, nsets, p->key, err, errlen);
			return -EINVAL;
		}
		v = keep_value(p->value, keep, keep_len, &used);
		if (v == NULL) {
			snprintf(err, errlen, "%s=%s: %s", p->key, p->value,
				 p->value[0] == '[' ? "unclosed bracket" : "too long");
			return -EINVAL;
		}
		if (k->fn != NULL && !sets[s].others && (rc = k->fn(v, sets[s].arg, err, errlen)) != 0)
			return rc;
	}
	return 0;
}

int
ordk_devargs_parse(const char *args, const struct ordk_devargs_set *sets, unsigned int nsets,
		   char *keep, size_t keep_len, char *err, size_t errlen)
{
	struct rte_kvargs *kv;
	char *norm;
	size_t cap;
	int rc;

	if (args == NULL || keep == NULL || (sets == NULL && nsets > 0)) {
		snprintf(err, errlen, "devargs missing");
		return -EINVAL;
	}
	cap = strlen(args) + 2 * TOKENS_MAX + 1;
	norm = malloc(cap);
	if (norm == NULL)
		return -ENOMEM;
	if (bracket_lists(args, norm, cap) != 0) {
		snprintf(err, errlen, "devargs: more than %d keys", TOKENS_MAX);
		free(norm);
		return -EINVAL;
	}
	kv = norm[0] != '\0' ? rte_kvargs_parse(norm, NULL) : NULL;
	if (norm[0] != '\0' && kv == NULL) {
		snprintf(err, errlen, "devargs '%s': not key=value pairs", args);
		free(norm);
		return -EINVAL;
	}
	rc = kv != NULL ? run_pairs(kv, sets, nsets, keep, keep_len, err, errlen) : 0;
	rte_kvargs_free(kv);
	free(norm);
	return rc;
}

int
ordk_devargs_u64(const char *value, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (value == NULL || *value == '\0' || *value == '-' || *value == ' ')
		return -EINVAL;
	errno = 0;
	x = strtoull(value, &end, 0);
	if (errno != 0 || *end != '\0' || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

/* One to two hex digits: @return the octet, or -1. */
static int
hex_octet(const char **p)
{
	int v = 0, n = 0;

	for (; n < 2; n++, (*p)++) {
		char c = **p;
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			break;
		v = v << 4 | d;
	}
	return n > 0 ? v : -1;
}

int
ordk_devargs_mac(const char *key, const char *value, uint64_t *mac, char *err, size_t errlen)
{
	const char *p = value;
	uint64_t m = 0;

	/* by hand: sscanf's %x would take signs, spaces and 0x */
	for (int i = 0; i < 6; i++) {
		int b = hex_octet(&p);

		if (b < 0 || *p != (i < 5 ? ':' : '\0')) {
			snprintf(err, errlen, "%s '%s': not a MAC address (six hex octets: "
				 "%s=02:00:00:00:00:01)", key, value, key);
			return -EINVAL;
		}
		m = m << 8 | (uint64_t)b;
		p++;
	}
	if (ordk_devargs_check_mac(key, m, err, errlen) != 0)
		return -EINVAL;
	*mac = m;
	return 0;
}

int
ordk_devargs_ipv4(const char *key, const char *value, uint32_t *ip, char *err, size_t errlen)
{
	struct in_addr a;

	/* inet_pton: four decimal octets, no signs, spaces or leading zeros */
	if (inet_pton(AF_INET, value, &a) != 1) {
		snprintf(err, errlen, "%s '%s': not an IPv4 address (%s=10.0.0.1)", key, value, key);
		return -EINVAL;
	}
	if (ordk_devargs_check_ipv4(key, ntohl(a.s_addr), 0, err, errlen) != 0)
		return -EINVAL;
	*ip = ntohl(a.s_addr);
	return 0;
}
