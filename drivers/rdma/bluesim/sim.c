/* SPDX-License-Identifier: BSD-3-Clause */
/* bluesim: creation, stepping, counters and devargs. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "mem_internal.h"
#include "sim_internal.h"

RTE_LOG_REGISTER(bluesim_logtype, ordk.bluesim, NOTICE);

static_assert(offsetof(struct sim_stats, fault_tx_dup) - offsetof(struct sim_stats, fault_tx_drop) ==
		      BLUESIM_FAULT_DUP * sizeof(uint64_t) &&
	      offsetof(struct sim_stats, fault_tx_delay) - offsetof(struct sim_stats, fault_tx_drop) ==
		      BLUESIM_FAULT_DELAY * sizeof(uint64_t) &&
	      offsetof(struct sim_stats, fault_rx_delay) - offsetof(struct sim_stats, fault_rx_drop) ==
		      BLUESIM_FAULT_DELAY * sizeof(uint64_t),
	      "fault counters follow enum bluesim_fault");

uint64_t
sim_now_ns(struct bluesim *sim)
{
	if (sim->cfg.clock_ns != NULL)
		return sim->cfg.clock_ns(sim->cfg.clock_arg);
	/* ns = tsc * (1e9 / hz), in 32.32 fixed point: no division per call */
	return (uint64_t)(((unsigned __int128)rte_get_tsc_cycles() * sim->ns_per_tsc_q32) >> 32);
}

void
bluesim_config_defaults(struct bluesim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->name = "bluesim";
	cfg->port_id = BLUESIM_PORT_LOOPBACK;
	cfg->socket_id = SOCKET_ID_ANY;
	cfg->fcs = true;
	cfg->idle_timeout_ns = 20000; /* the card's 5000 cycles at 250 MHz */
	cfg->fault.reorder_depth = 3;
	cfg->fault.delay_us = 100;
	cfg->snic_slot = BLUE_SIMPLE_NIC_RX_SLOT_SIZE;
}

static void *
zalloc(const struct bluesim_config *cfg, size_t n)
{
	return rte_zmalloc_socket("bluesim", n, RTE_CACHE_LINE_SIZE, cfg->socket_id);
}

void
bluesim_destroy(struct bluesim *sim)
{
	if (sim == NULL)
		return;
	sim_port_release_all(sim);
	if (sim->pcap != NULL)
		ordk_pcapng_close(sim->pcap);
	if (sim->own_pool)
		rte_mempool_free(sim->pool);
	if (sim->own_bar)
		rte_free(sim->bar);
	rte_free(sim->mrs);
	rte_free(sim->pgt);
	rte_free(sim->qpcs);
	rte_free(sim->dirty);
	rte_free(sim->meta_q);
	rte_free(sim->lb);
	rte_free(sim->maps);
	rte_free(sim->cnp_last_ns);
	rte_free(sim);
}

struct bluesim *
bluesim_create(const struct bluesim_config *cfg)
{
	struct bluesim *sim;

	if (cfg == NULL || (cfg->port_id != BLUESIM_PORT_LOOPBACK &&
			    !rte_eth_dev_is_valid_port(cfg->port_id))) {
		rte_errno = EINVAL;
		return NULL;
	}
	if (cfg->pool != NULL && rte_pktmbuf_data_room_size(cfg->pool) <
					 RTE_PKTMBUF_HEADROOM + ORDK_WIRE_MAX_FRAME) {
		RTE_LOG(ERR, USER1, "bluesim: mbuf pool data room %u < %u (a PMTU-4096 frame)\n",
			rte_pktmbuf_data_room_size(cfg->pool),
			RTE_PKTMBUF_HEADROOM + ORDK_WIRE_MAX_FRAME);
		rte_errno = EINVAL;
		return NULL;
	}
	mem_guard_init(); /* MR copies: see sim_dma.c */
	sim = zalloc(cfg, sizeof(*sim));
	if (sim == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	sim->cfg = *cfg;
	snprintf(sim->name, sizeof(sim->name), "%s", cfg->name ? cfg->name : "bluesim");
	sim->cfg.name = sim->name;
	sim->cfg.pcap_path = NULL;
	if (sim->cfg.fault.reorder_depth == 0)
		sim->cfg.fault.reorder_depth = 3;
	sim->tsc_hz = rte_get_tsc_hz();
	sim->ns_per_tsc_q32 = (uint64_t)(((unsigned __int128)1000000000u << 32) / sim->tsc_hz);
	sim->rng = cfg->fault.seed ? cfg->fault.seed : 0x9E3779B97F4A7C15ull;

	if (cfg->bar != NULL) { /* served where the host (or a VM) put it */
		sim->bar = (uint8_t *)(uintptr_t)cfg->bar;
		memset(sim->bar, 0, BLUE_BAR0_SIZE);
	} else {
		sim->bar = zalloc(cfg, BLUE_BAR0_SIZE);
		sim->own_bar = true;
	}
	sim->mrs = zalloc(cfg, sizeof(*sim->mrs) * BLUE_MAX_MR);
	sim->pgt = zalloc(cfg, sizeof(*sim->pgt) * BLUE_PGT_ENTRIES);
	sim->qpcs = zalloc(cfg, sizeof(*sim->qpcs) * BLUE_MAX_QP);
	sim->dirty = zalloc(cfg, sizeof(*sim->dirty) * BLUE_MAX_QP);
	sim->meta_q = zalloc(cfg, sizeof(*sim->meta_q) * SIM_META_PENDING);
	sim->lb = zalloc(cfg, sizeof(*sim->lb) * SIM_LOOPBACK_RING);
	sim->cnp_last_ns = zalloc(cfg, sizeof(*sim->cnp_last_ns) * BLUE_MAX_QP);
	if (!sim->bar || !sim->mrs || !sim->pgt || !sim->qpcs || !sim->dirty || !sim->meta_q ||
	    !sim->lb || !sim->cnp_last_ns)
		goto nomem;
	if (sim->cfg.snic_slot == 0)
		sim->cfg.snic_slot = BLUE_SIMPLE_NIC_RX_SLOT_SIZE;
	if (sim->cfg.rtl) {
		/* SimpleNic's base register resets to 0 and nothing writes it */
		sim->raw_ready = true;
		sim->raw_base = 0;
	}
	for (uint32_t i = 0; i < BLUE_MAX_QP; i++)
		sim_qpc_reset_bitmap(&sim->qpcs[i]);
	sim_rings_init(sim);

	if (cfg->pool != NULL) {
		sim->pool = cfg->pool;
	} else {
		char pname[RTE_MEMPOOL_NAMESIZE];

		snprintf(pname, sizeof(pname), "bsim_%p", (void *)sim);
		sim->pool = rte_pktmbuf_pool_create(pname, 4095, 128, 0,
						    RTE_PKTMBUF_HEADROOM + BLUESIM_MBUF_DATA_ROOM,
						    cfg->socket_id);
		if (sim->pool == NULL)
			goto nomem;
		sim->own_pool = true;
	}
	if (cfg->pcap_path != NULL) {
		sim->pcap = ordk_pcapng_open(cfg->pcap_path, "ORDK bluesim");
		if (sim->pcap == NULL || ordk_pcapng_add_interface(sim->pcap, sim->name,
								   "bluesim port") < 0) {
			int e = errno ? errno : EIO;

			SIM_LOG(ERR, sim, "cannot write capture %s: %s", cfg->pcap_path,
				strerror(e));
			bluesim_destroy(sim);
			rte_errno = e;
			return NULL;
		}
	}
	SIM_LOG(INFO, sim, "created on %s%s%s",
		cfg->port_id == BLUESIM_PORT_LOOPBACK ? "loopback" : "port",
		sim->cfg.fcs ? ", FCS trailer" : "", sim->cfg.rtl ? ", as the RTL (rtl=1)" : "");
	return sim;
nomem:
	bluesim_destroy(sim);
	rte_errno = ENOMEM;
	return NULL;
}

volatile void *
bluesim_bar0(struct bluesim *sim)
{
	return sim == NULL ? NULL : sim->bar;
}

unsigned int
bluesim_poll(struct bluesim *sim, unsigned int budget)
{
	unsigned int work = 0;

	if (sim == NULL || budget == 0)
		return 0;
	work += sim_cmd_poll(sim, budget);
	work += sim_snic_tx_poll(sim, budget);
	work += sim_send_poll(sim, budget);
	work += sim_port_flush(sim);
	work += sim_port_rx(sim, budget);
	work += sim_idle_scan(sim);
	work += sim_meta_flush(sim);
	work += sim_port_flush(sim); /* loss ACKs made while receiving */
	return work;
}

void
bluesim_set_faults(struct bluesim *sim, const struct bluesim_fault_cfg *f)
{
	if (sim == NULL || f == NULL)
		return;
	sim->cfg.fault = *f;
	if (sim->cfg.fault.reorder_depth == 0)
		sim->cfg.fault.reorder_depth = 3;
	if (f->seed != 0)
		sim->rng = f->seed;
}

int
bluesim_get_faults(const struct bluesim *sim, struct bluesim_fault_cfg *f)
{
	if (sim == NULL || f == NULL)
		return -EINVAL;
	*f = sim->cfg.fault;
	return 0;
}

/* ------------------------------------------------------------- counters */

static const char *const xstat_names[] = {
#define SIM_STAT_NAME(n) #n,
	SIM_STATS(SIM_STAT_NAME)
#undef SIM_STAT_NAME
};
#define NXSTATS (sizeof(xstat_names) / sizeof(xstat_names[0]))
static_assert(NXSTATS * sizeof(uint64_t) == sizeof(struct sim_stats), "xstats table");

unsigned int
bluesim_xstats_count(void)
{
	return NXSTATS;
}

const char *
bluesim_xstat_name(unsigned int i)
{
	return i < NXSTATS ? xstat_names[i] : NULL;
}

unsigned int
bluesim_xstats_get(const struct bluesim *sim, uint64_t *values)
{
	if (sim == NULL || values == NULL)
		return 0;
	memcpy(values, &sim->st, sizeof(sim->st));
	return NXSTATS;
}

uint64_t
bluesim_xstat(const struct bluesim *sim, const char *name)
{
	const uint64_t *v = (const uint64_t *)&sim->st;

	for (unsigned int i = 0; i < NXSTATS; i++)
		if (strcmp(xstat_names[i], name) == 0)
			return v[i];
	return UINT64_MAX;
}

void
bluesim_xstats_reset(struct bluesim *sim)
{
	if (sim != NULL)
		memset(&sim->st, 0, sizeof(sim->st));
}

/* -------------------------------------------------------------- devargs */

static const char *const fault_names[BLUESIM_FAULT_COUNT] = {
	"drop", "dup", "reorder", "corrupt", "delay",
};

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
		char *colon = strchr(tok, ':'), *end, *dash;
		int dirs = 3, k;
		double rate;

		if (colon == NULL) {
			snprintf(err, err_len, "fault '%s': expected kind:rate", tok);
			return -EINVAL;
		}
		*colon = '\0';
		dash = strchr(tok, '-');
		if (dash != NULL) {
			if (strcmp(dash + 1, "tx") == 0)
				dirs = 1;
			else if (strcmp(dash + 1, "rx") == 0)
				dirs = 2;
			else {
				snprintf(err, err_len, "fault '%s': direction must be tx or rx", tok);
				return -EINVAL;
			}
			*dash = '\0';
		}
		for (k = 0; k < BLUESIM_FAULT_COUNT; k++)
			if (strcmp(tok, fault_names[k]) == 0)
				break;
		if (k == BLUESIM_FAULT_COUNT) {
			snprintf(err, err_len,
				 "fault '%s': unknown kind (drop, dup, reorder, corrupt, delay)", tok);
			return -EINVAL;
		}
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

static int
parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (*v == '\0' || *v == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno != 0 || *end != '\0' || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

/*
 * key=value pairs separated by commas; a token without '=' continues the
 * previous value (so fault=drop:0.01,dup:0.001 keeps its commas).
 */
int
bluesim_parse_devargs(const char *args, struct bluesim_config *cfg, char *keep,
		      uint32_t keep_len, char *err, uint32_t err_len)
{
	char *p, *key = NULL, *val = NULL, *tok, *next;
	uint64_t x;

	if (args == NULL || cfg == NULL || keep == NULL || strlen(args) >= keep_len) {
		snprintf(err, err_len, "devargs missing or too long");
		return -EINVAL;
	}
	snprintf(keep, keep_len, "%s", args);
	/* join continuation tokens: turn "k=v,a,b,k2=v2" into pairs split at ",k2=" */
	for (tok = keep; tok != NULL; tok = next) {
		next = strchr(tok, ',');
		while (next != NULL) {
			char *eq = strchr(next + 1, '='), *comma = strchr(next + 1, ',');

			if (eq != NULL && (comma == NULL || eq < comma))
				break; /* the next token is a key=value */
			next = comma;
		}
		if (next != NULL)
			*next++ = '\0';
		p = strchr(tok, '=');
		if (p == NULL) {
			if (*tok != '\0' && strcmp(tok, "bluesim") != 0) {
				snprintf(err, err_len, "devargs: '%s' is not key=value", tok);
				return -EINVAL;
			}
			continue;
		}
		*p = '\0';
		key = tok;
		val = p + 1;
		if (strcmp(key, "port") == 0) {
			uint16_t pid;

			if (strcmp(val, "loopback") == 0)
				cfg->port_id = BLUESIM_PORT_LOOPBACK;
			else if (parse_u64(val, RTE_MAX_ETHPORTS - 1, &x) == 0)
				cfg->port_id = (uint16_t)x;
			else if (rte_eth_dev_get_port_by_name(val, &pid) == 0)
				cfg->port_id = pid;
			else {
				snprintf(err, err_len, "port '%s': no such ethdev", val);
				return -EINVAL;
			}
		} else if (strcmp(key, "fault") == 0) {
			if (bluesim_parse_faults(val, &cfg->fault, err, err_len) != 0)
				return -EINVAL;
		} else if (strcmp(key, "seed") == 0) {
			if (parse_u64(val, UINT64_MAX, &cfg->fault.seed) != 0)
				goto bad_number;
		} else if (strcmp(key, "reorder_depth") == 0) {
			if (parse_u64(val, SIM_HELD_MAX, &x) != 0 || x == 0)
				goto bad_number;
			cfg->fault.reorder_depth = (uint32_t)x;
		} else if (strcmp(key, "delay_us") == 0) {
			if (parse_u64(val, 10000000, &x) != 0)
				goto bad_number;
			cfg->fault.delay_us = (uint32_t)x;
		} else if (strcmp(key, "idle_us") == 0) {
			if (parse_u64(val, 1000000, &x) != 0 || x == 0)
				goto bad_number;
			cfg->idle_timeout_ns = (uint32_t)(x * 1000);
		} else if (strcmp(key, "fcs") == 0) {
			if (parse_u64(val, 1, &x) != 0)
				goto bad_number;
			cfg->fcs = x != 0;
		} else if (strcmp(key, "rtl") == 0) {
			if (parse_u64(val, 1, &x) != 0)
				goto bad_number;
			cfg->rtl = x != 0;
		} else if (strcmp(key, "cnp") == 0) {
			if (parse_u64(val, 1, &x) != 0)
				goto bad_number;
			cfg->cnp = x != 0;
		} else if (strcmp(key, "snic_slot") == 0) {
			/* a driver key too: the PMD reads the same value */
			if (parse_u64(val, BLUE_SIMPLE_NIC_RX_SLOT_SIZE, &x) != 0 || x < 128 ||
			    (x & (x - 1)) != 0)
				goto bad_number;
			cfg->snic_slot = (uint32_t)x;
		} else if (strcmp(key, "pcap") == 0) {
			if (*val == '\0') {
				snprintf(err, err_len, "pcap: empty file name");
				return -EINVAL;
			}
			cfg->pcap_path = val;
		}
		/* other keys (mac=, ip=, cc=, ...) belong to the driver */
	}
	if (cfg->rtl && cfg->cnp) {
		/* the RTL sends CNPs anyway; it reports none it receives */
		snprintf(err, err_len, "cnp=1: a strict-mode key (rtl=1 reports no CNP it receives)");
		return -EINVAL;
	}
	return 0;
bad_number:
	snprintf(err, err_len, "%s: '%s' is not a valid number", key, val);
	return -EINVAL;
}
