/* SPDX-License-Identifier: BSD-3-Clause */
/* bluesim's devargs (port=, fault=[...], seed=, ...): one key table on lib/devargs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "ordk_devargs.h"
#include "sim_internal.h"

static const char *const fault_names[BLUESIM_FAULT_COUNT] = {
	"drop", "dup", "reorder", "corrupt", "delay",
};

/* "drop", "dup-rx", "corrupt-tx": the kind's index and its directions (1 tx, 2 rx). */
static int
fault_kind(char *name, int *dirs, char *err, uint32_t err_len)
{
	char *dash = strchr(name, '-');
	int k;

	*dirs = 3;
	if (dash != NULL) {
		if (strcmp(dash + 1, "tx") == 0)
			*dirs = 1;
		else if (strcmp(dash + 1, "rx") == 0)
			*dirs = 2;
		else {
			snprintf(err, err_len, "fault '%s': direction must be tx or rx", name);
			return -EINVAL;
		}
		*dash = '\0';
	}
	for (k = 0; k < BLUESIM_FAULT_COUNT; k++)
		if (strcmp(name, fault_names[k]) == 0)
			return k;
	snprintf(err, err_len, "fault '%s': unknown kind (drop, dup, reorder, corrupt, delay)", name);
	return -EINVAL;
}

int
bluesim_parse_faults(const char *list, struct bluesim_fault_cfg *f, char *err, uint32_t err_len)
{
	char buf[512], *save = NULL, *tok;

	if (list == NULL || strlen(list) >= sizeof(buf)) {
		snprintf(err, err_len, "fault list missing or too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':'), *end;
		int dirs, k;
		double rate;

		if (colon == NULL) {
			snprintf(err, err_len, "fault '%s': expected kind:rate", tok);
			return -EINVAL;
		}
		*colon = '\0';
		k = fault_kind(tok, &dirs, err, err_len);
		if (k < 0)
			return k;
		errno = 0;
		rate = strtod(colon + 1, &end);
		if (errno != 0 || end == colon + 1 || *end != '\0' || !(rate >= 0.0 && rate <= 1.0)) {
			snprintf(err, err_len, "fault '%s': rate '%s' is not a number in [0, 1]",
				 tok, colon + 1);
			return -EINVAL;
		}
		if (dirs & 1)
			f->rate[BLUESIM_DIR_TX][k] = rate;
		if (dirs & 2)
			f->rate[BLUESIM_DIR_RX][k] = rate;
	}
	return 0;
}

/* A number in [min, max] for key @p key, or -EINVAL naming it. */
static int
number(const char *key, const char *v, uint64_t min, uint64_t max, uint64_t *x, char *err,
       size_t errlen)
{
	if (ordk_devargs_u64(v, min, max, x) == 0)
		return 0;
	snprintf(err, errlen, "%s: '%s' is not a valid number (%" PRIu64 "..%" PRIu64 ")", key, v,
		 min, max);
	return -EINVAL;
}

static int
arg_port(const char *v, void *arg, char *err, size_t errlen)
{
	struct bluesim_config *cfg = arg;
	uint64_t x;
	uint16_t pid;

	if (strcmp(v, "loopback") == 0)
		cfg->port_id = BLUESIM_PORT_LOOPBACK;
	else if (ordk_devargs_u64(v, 0, RTE_MAX_ETHPORTS - 1, &x) == 0)
		cfg->port_id = (uint16_t)x;
	else if (rte_eth_dev_get_port_by_name(v, &pid) == 0)
		cfg->port_id = pid;
	else {
		snprintf(err, errlen, "port '%s': no such ethdev", v);
		return -ENODEV;
	}
	return 0;
}

static int
arg_fault(const char *v, void *arg, char *err, size_t errlen)
{
	return bluesim_parse_faults(v, &((struct bluesim_config *)arg)->fault, err,
				    (uint32_t)errlen);
}

static int
arg_seed(const char *v, void *arg, char *err, size_t errlen)
{
	return number("seed", v, 0, UINT64_MAX, &((struct bluesim_config *)arg)->fault.seed, err,
		      errlen);
}

/* A field of the config from a number x in [min, max]: field = value (an expression of x). */
#define NUM_ARG(fn_name, key, min, max, field, value)                                \
	static int fn_name(const char *v, void *arg, char *err, size_t errlen)       \
	{                                                                             \
		uint64_t x;                                                           \
		int rc = number(key, v, min, max, &x, err, errlen);                   \
                                                                                      \
		if (rc == 0)                                                          \
			((struct bluesim_config *)arg)->field = (value);              \
		return rc;                                                            \
	}

NUM_ARG(arg_reorder_depth, "reorder_depth", 1, SIM_HELD_MAX, fault.reorder_depth, (uint32_t)x)
NUM_ARG(arg_delay_us, "delay_us", 0, 10000000, fault.delay_us, (uint32_t)x)
NUM_ARG(arg_idle_us, "idle_us", 1, 1000000, idle_timeout_ns, (uint32_t)(x * 1000))
NUM_ARG(arg_fcs, "fcs", 0, 1, fcs, x != 0)
NUM_ARG(arg_rtl, "rtl", 0, 1, rtl, x != 0)
/* cnp=1 (strict mode): the notification point as the RTL's (bluesim.h) */
NUM_ARG(arg_cnp, "cnp", 0, 1, cnp, x != 0)
NUM_ARG(arg_zcopy, "zcopy", 0, 1, zcopy, x != 0)

/* a driver key too: the PMD reads the same value (sim_backend.c) */
static int
arg_snic_slot(const char *v, void *arg, char *err, size_t errlen)
{
	uint64_t x;

	if (ordk_devargs_u64(v, 128, BLUE_SIMPLE_NIC_RX_SLOT_SIZE, &x) != 0 || (x & (x - 1)) != 0) {
		snprintf(err, errlen, "snic_slot: '%s' is not a power of two in 128..%u", v,
			 BLUE_SIMPLE_NIC_RX_SLOT_SIZE);
		return -EINVAL;
	}
	((struct bluesim_config *)arg)->snic_slot = (uint32_t)x;
	return 0;
}

static int
arg_pcap(const char *v, void *arg, char *err, size_t errlen)
{
	if (*v == '\0') {
		snprintf(err, errlen, "pcap: empty file name");
		return -EINVAL;
	}
	((struct bluesim_config *)arg)->pcap_path = v;
	return 0;
}

const struct ordk_devarg bluesim_devargs[BLUESIM_DEVARGS_COUNT] = {
	{ "port", arg_port },	  { "fault", arg_fault },
	{ "seed", arg_seed },	  { "reorder_depth", arg_reorder_depth },
	{ "delay_us", arg_delay_us }, { "idle_us", arg_idle_us },
	{ "fcs", arg_fcs },	  { "rtl", arg_rtl },
	{ "cnp", arg_cnp },	  { "snic_slot", arg_snic_slot },
	{ "pcap", arg_pcap },	  { "zcopy", arg_zcopy },
};

int
bluesim_parse_devargs(const char *args, struct bluesim_config *cfg, char *keep,
		      uint32_t keep_len, char *err, uint32_t err_len)
{
	struct ordk_devargs_set set = { bluesim_devargs, BLUESIM_DEVARGS_COUNT, cfg };
	int rc;

	if (cfg == NULL) {
		snprintf(err, err_len, "no configuration to fill");
		return -EINVAL;
	}
	rc = ordk_devargs_parse(args, &set, 1, keep, keep_len, err, err_len);
	if (rc == 0 && cfg->rtl && cfg->cnp) {
		/* the RTL sends CNPs anyway; it reports none it receives */
		snprintf(err, err_len, "cnp=1: a strict-mode key (rtl=1 reports no CNP it receives)");
		return -EINVAL;
	}
	return rc;
}
