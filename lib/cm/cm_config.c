/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cluster config (see ordk_cm.h). jansson parses (it reports the line
 * and column of a syntax error); here every field is checked by name, and
 * the first wrong one is named in the error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "ordk_cm.h"
#include "ordk_devargs.h"

static int __attribute__((format(printf, 3, 4)))
fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && len > 0) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A node's or a service's address: a kernel socket connects to it, so loopback is fine. */
static int
ip_field(json_t *v, const char *name, char *out, char *err, size_t len)
{
	const char *s = json_string_value(v);
	struct in_addr a;

	if (s == NULL)
		return fail(err, len, "%s: not a string", name);
	if (inet_pton(AF_INET, s, &a) != 1)
		return fail(err, len, "%s: \"%s\" is not an IPv4 address", name, s);
	if (ordk_devargs_check_ipv4(name, ntohl(a.s_addr), ORDK_DEVARGS_IP_LOOPBACK, err, len) != 0)
		return -EINVAL;
	snprintf(out, ORDK_CM_IP_LEN, "%s", s);
	return 0;
}

static int
ip_list(json_t *v, const char *name, char (*out)[ORDK_CM_IP_LEN], unsigned int *n, char *err,
	size_t len)
{
	size_t i;
	json_t *e;

	if (!json_is_array(v))
		return fail(err, len, "%s: not a list of addresses", name);
	if (json_array_size(v) == 0 || json_array_size(v) > ORDK_CM_MAX_NODES)
		return fail(err, len, "%s: %zu nodes (1..%u)", name, json_array_size(v),
			    ORDK_CM_MAX_NODES);
	json_array_foreach(v, i, e) {
		char item[48];
		int rc;

		snprintf(item, sizeof(item), "%s[%zu]", name, i);
		rc = ip_field(e, item, out[i], err, len);
		if (rc != 0)
			return rc;
	}
	*n = (unsigned int)json_array_size(v);
	return 0;
}

static int
int_field(json_t *v, const char *name, long long lo, long long hi, long long *out, char *err,
	  size_t len)
{
	if (!json_is_integer(v))
		return fail(err, len, "%s: not an integer", name);
	*out = json_integer_value(v);
	if (*out < lo || *out > hi)
		return fail(err, len, "%s: %lld out of range (%lld..%lld)", name, *out, lo, hi);
	return 0;
}

/* A number: GiB; a string: bytes with an optional K, M or G. Both within ORDK_CM_MR_SIZE_MAX. */
static int
size_field(json_t *v, uint64_t *out, char *err, size_t len)
{
	const char *s = json_string_value(v);

	if (json_is_integer(v)) {
		long long g = json_integer_value(v);

		if (g <= 0 || (unsigned long long)g > ORDK_CM_MR_SIZE_MAX >> 30)
			return fail(err, len, "mr_size: %lld GiB out of range (1..%llu)", g,
				    ORDK_CM_MR_SIZE_MAX >> 30);
		*out = (uint64_t)g << 30;
		return 0;
	}
	if (s == NULL)
		return fail(err, len, "mr_size: neither a number (GiB) nor a size like \"64M\"");
	return ordk_devargs_size("mr_size", s, 1, ORDK_CM_MR_SIZE_MAX, out, err, len);
}

static int
str_field(json_t *v, const char *name, char *out, size_t outlen, char *err, size_t len)
{
	const char *s = json_string_value(v);

	if (s == NULL || *s == '\0')
		return fail(err, len, "%s: not a non-empty string", name);
	if (strlen(s) >= outlen)
		return fail(err, len, "%s: longer than %zu characters", name, outlen - 1);
	snprintf(out, outlen, "%s", s);
	return 0;
}

static int
port_field(json_t *v, const char *name, uint16_t *out, char *err, size_t len)
{
	long long p = 0;
	int rc = int_field(v, name, 1, 65535, &p, err, len);

	if (rc == 0)
		*out = (uint16_t)p;
	return rc;
}

static int
one_field(const char *k, json_t *v, struct ordk_cm_config *c, char *err, size_t len)
{
	long long x = 0;
	int rc;

	if (strcmp(k, "MN_ips") == 0)
		return ip_list(v, k, c->mn_ips, &c->n_mn, err, len);
	if (strcmp(k, "CN_ips") == 0)
		return ip_list(v, k, c->cn_ips, &c->n_cn, err, len);
	if (strcmp(k, "memcached_ip") == 0)
		return ip_field(v, k, c->memcached_ip, err, len);
	if (strcmp(k, "memcached_port") == 0)
		return port_field(v, k, &c->memcached_port, err, len);
	if (strcmp(k, "redis_ip") == 0)
		return ip_field(v, k, c->redis_ip, err, len);
	if (strcmp(k, "redis_port") == 0)
		return port_field(v, k, &c->redis_port, err, len);
	if (strcmp(k, "mr_size") == 0)
		return size_field(v, &c->mr_size, err, len);
	if (strcmp(k, "device") == 0)
		return str_field(v, k, c->device, sizeof(c->device), err, len);
	if (strcmp(k, "cluster") == 0) {
		rc = str_field(v, k, c->cluster, sizeof(c->cluster), err, len);
		if (rc == 0 && strspn(c->cluster, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						  "0123456789_-.") != strlen(c->cluster))
			rc = fail(err, len, "cluster: \"%s\": letters, digits, '_', '-', '.' only",
				  c->cluster);
		return rc;
	}
	if (strcmp(k, "ib_dev_id") == 0 || strcmp(k, "ib_port") == 0 || strcmp(k, "gid_idx") == 0) {
		rc = int_field(v, k, 0, 255, &x, err, len);
		if (rc == 0)
			*(k[0] == 'g' ? &c->gid_idx : k[3] == 'd' ? &c->ib_dev_id : &c->ib_port) = (int)x;
		return rc;
	}
	return fail(err, len, "%s: unknown field (known: MN_ips, CN_ips, memcached_ip, "
			      "memcached_port, redis_ip, redis_port, mr_size, device, cluster, "
			      "ib_dev_id, ib_port, gid_idx)", k);
}

int
ordk_cm_config_load(const char *path, struct ordk_cm_config *cfg, char *err, size_t err_len)
{
	json_error_t je;
	json_t *root, *v;
	const char *k;
	FILE *f;
	int rc = 0;

	if (path == NULL || cfg == NULL)
		return fail(err, err_len, "no config file given");
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		fail(err, err_len, "%s: %s", path, strerror(errno));
		return rc;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (root == NULL)
		return fail(err, err_len, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	*cfg = (struct ordk_cm_config){ .memcached_port = 11211, .redis_port = 6379,
					.device = "bluesim,port=0", .cluster = "ordk", .ib_port = 1 };
	if (!json_is_object(root))
		rc = fail(err, err_len, "%s: not a JSON object", path);
	json_object_foreach(root, k, v) {
		if (rc != 0)
			break;
		rc = one_field(k, v, cfg, err, err_len);
	}
	if (rc == 0 && cfg->n_mn == 0)
		rc = fail(err, err_len, "MN_ips: missing (the memory nodes' addresses)");
	else if (rc == 0 && cfg->n_cn == 0)
		rc = fail(err, err_len, "CN_ips: missing (the compute nodes' addresses)");
	else if (rc == 0 && cfg->memcached_ip[0] == '\0')
		rc = fail(err, err_len, "memcached_ip: missing (where the nodes meet)");
	else if (rc == 0 && cfg->mr_size == 0)
		rc = fail(err, err_len, "mr_size: missing (the memory node's region)");
	json_decref(root);
	return rc;
}
