/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "app_common.h"
#include "bluesim.h"
#include "ordk_devargs.h"
#include "ordk_verbs.h"

/* lib/env's frame pool is the one bluesim's ports receive into */
_Static_assert(ORDK_ENV_FRAME_ROOM >= BLUESIM_MBUF_DATA_ROOM,
	       "lib/env's frame pool must hold a bluesim frame");

int
app_eal_init(int argc, char **argv, bool user, const struct ordk_env_eal *d)
{
	char store[1024], *def[ORDK_ENV_EAL_MAX_ARGS + 1];
	int n;

	if (user)
		n = rte_eal_init(argc, argv);
	else {
		int k = ordk_env_eal_argv(d, def, store, sizeof(store));

		if (k < 0) {
			fprintf(stderr, "%s: default EAL arguments too long\n", d->prog);
			return -1;
		}
		n = rte_eal_init(k, def);
	}
	if (n < 0) {
		fprintf(stderr, "%s: EAL initialisation failed: %s (see ordk-doctor)\n", d->prog,
			rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
app_print_stats(FILE *f, const struct ordk_stats *st, bool all)
{
	for (unsigned int i = 0; i < ORDK_STATS_COUNT; i++) {
		uint64_t v = ordk_stats_value(st, i);

		if (all || v) {
			const char *mlx5 = ordk_stats_mlx5_name(i), *rxe = ordk_stats_rxe_name(i);
			char name[40];

			snprintf(name, sizeof(name), "%s:", ordk_stats_name(i));
			fprintf(f, "  %-22s %" PRIu64, name, v);
			/* the names of mlx5's and rxe's hw_counters for the same event */
			if (mlx5 != NULL)
				fprintf(f, "  (mlx5 %s%s%s)", mlx5, rxe != NULL ? ", rxe " : "",
					rxe != NULL ? rxe : "");
			fputc('\n', f);
		}
	}
}

void
app_print_xstats(FILE *f, struct ordk_dev *dev, bool all)
{
	int n = ordk_dev_xstats(dev, NULL, NULL, 0);
	const char **names;
	uint64_t *values;

	if (n <= 0) {
		fprintf(f, "  (the device has no model counters)\n");
		return;
	}
	names = calloc((size_t)n, sizeof(*names));
	values = calloc((size_t)n, sizeof(*values));
	if (names != NULL && values != NULL && ordk_dev_xstats(dev, names, values, (unsigned int)n) == n)
		for (int i = 0; i < n; i++)
			if (all || values[i])
				fprintf(f, "  %-26s %" PRIu64 "\n", names[i], values[i]);
	free(names);
	free(values);
}

void
app_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

int
app_parse_size(const char *s, uint64_t *out)
{
	return ordk_devargs_size("size", s, 0, UINT64_MAX, out, NULL, 0) == 0 ? 0 : -1;
}

int
app_opt_u64(const char *prog, const char *opt, const char *s, bool size, uint64_t lo,
	    uint64_t hi, uint64_t *out)
{
	char err[192];
	int rc = size ? ordk_devargs_size(opt, s, lo, hi, out, err, sizeof(err))
		      : ordk_devargs_number(opt, s, lo, hi, out, err, sizeof(err));

	if (rc != 0)
		fprintf(stderr, "%s: %s\n", prog, err);
	return rc != 0 ? -1 : 0;
}

/* ------------------------------------------------------------ devices */

int
app_start_port_wait(const char *devargs, struct rte_mempool *mp, bool client, double timeout_s)
{
	const char *p = strstr(devargs, "port=");
	char *end;
	unsigned long port;

	if (strncmp(devargs, "bluesim", 7) != 0 || p == NULL)
		return 0;
	port = strtoul(p + 5, &end, 10);
	if (end == p + 5 || port >= RTE_MAX_ETHPORTS)
		return 0; /* "loopback" or a name: the model checks it */
	return ordk_env_port_start_wait((uint16_t)port, mp, client, timeout_s);
}

/* bluesim,port=N[,...]: start port N when it is an ethdev nobody started. */
int
app_start_port_of(const char *devargs, struct rte_mempool *mp, bool client)
{
	int rc = app_start_port_wait(devargs, mp, client, ORDK_ENV_PEER_WAIT_S);
	const char *p = strstr(devargs, "port=");
	unsigned long port = p ? strtoul(p + 5, NULL, 10) : 0;

	if (rc == -ENODEV)
		fprintf(stderr, "no ethdev port %lu (give one with EAL --vdev or -a)\n", port);
	else if (rc == -EIO)
		fprintf(stderr, "cannot start ethdev port %lu\n", port);
	else if (rc != 0)
		fprintf(stderr, "port %lu: link down after %.0f s (is the peer running?)\n", port,
			ORDK_ENV_PEER_WAIT_S);
	return rc;
}

/* The user's devargs with port= replaced (loopback) and a MAC and IP added. */
void
app_bluesim_args(char *out, size_t len, const char *user, int port, int idx)
{
	size_t n = 0;
	const char *p = user;

	n += (size_t)snprintf(out, len, "bluesim");
	p = strchr(user, ',');
	while (p != NULL && *p) {
		const char *q = p + 1, *e = strchr(q, ',');
		size_t k = e ? (size_t)(e - q) : strlen(q);

		if (!(port >= 0 && strncmp(q, "port=", 5) == 0) && k > 0 && n < len)
			n += (size_t)snprintf(out + n, len - n, ",%.*s", (int)k, q);
		p = e;
	}
	if (port >= 0 && n < len)
		n += (size_t)snprintf(out + n, len - n, ",port=%d", port);
	if (strstr(user, "mac=") == NULL && n < len)
		n += (size_t)snprintf(out + n, len - n, ",mac=02:00:00:00:00:%02x", idx);
	if (strstr(user, "ip=") == NULL && n < len)
		n += (size_t)snprintf(out + n, len - n, ",ip=10.0.0.%d", idx);
	/* the test suites' hook: ORDK_TEST_SIM_DEVARGS=rtl=1 runs them on the RTL's behaviour */
	if (getenv("ORDK_TEST_SIM_DEVARGS") != NULL && *getenv("ORDK_TEST_SIM_DEVARGS") && n < len)
		snprintf(out + n, len - n, ",%s", getenv("ORDK_TEST_SIM_DEVARGS"));
}
