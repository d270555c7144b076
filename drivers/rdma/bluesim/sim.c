/* SPDX-License-Identifier: BSD-3-Clause */
/* bluesim: creation, stepping, counters and devargs. */
#include <errno.h>
#include <inttypes.h>
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
	cfg->zcopy = false; /* measured slower over DPDK 22.11's net_memif (performance.md) */
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
	if (sim->zc_inflight > 0) /* a port still holds MR memory: its callbacks need the model */
		SIM_LOG(ERR, sim, "zcopy: %" PRIu64 " frames still with the port at destroy",
			sim->zc_inflight);
	if (sim->pcap != NULL) {
		if (ordk_pcapng_notes_lost(sim->pcap) > 0)
			SIM_LOG(INFO, sim, "capture: %" PRIu64 " timeline notes lost (no frame after them, or "
				"more than 16 KiB waiting)", ordk_pcapng_notes_lost(sim->pcap));
		ordk_pcapng_close(sim->pcap);
	}
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

static int
config_check(const struct bluesim_config *cfg)
{
	if (cfg == NULL || (cfg->port_id != BLUESIM_PORT_LOOPBACK &&
			    !rte_eth_dev_is_valid_port(cfg->port_id)))
		return -EINVAL;
	if (cfg->pool != NULL && rte_pktmbuf_data_room_size(cfg->pool) <
					 RTE_PKTMBUF_HEADROOM + BLUE_WIRE_MAX_FRAME) {
		RTE_LOG(ERR, USER1, "bluesim: mbuf pool data room %u < %u (a PMTU-4096 frame)\n",
			rte_pktmbuf_data_room_size(cfg->pool),
			RTE_PKTMBUF_HEADROOM + BLUE_WIRE_MAX_FRAME);
		return -EINVAL;
	}
	return 0;
}

/* The card's tables and the model's queues; @return 0 or -ENOMEM. */
static int
tables_alloc(struct bluesim *sim, const struct bluesim_config *cfg)
{
	if (cfg->bar != NULL) { /* served where the host (or a VM) put it */
		/* volatile off on purpose: the model reaches its registers with
		 * __atomic loads and stores (sim_reg_read(), sim_reg_write()) */
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
		return -ENOMEM;
	for (uint32_t i = 0; i < BLUE_MAX_QP; i++)
		sim_qpc_reset_bitmap(&sim->qpcs[i]);
	return 0;
}

/* The caller's mbuf pool, or one of the model's own; @return 0 or -ENOMEM. */
static int
pool_get(struct bluesim *sim, const struct bluesim_config *cfg)
{
	char pname[RTE_MEMPOOL_NAMESIZE];

	if (cfg->pool != NULL) {
		sim->pool = cfg->pool;
		return 0;
	}
	snprintf(pname, sizeof(pname), "bsim_%p", (void *)sim);
	sim->pool = rte_pktmbuf_pool_create(pname, 4095, 128, 0,
					    RTE_PKTMBUF_HEADROOM + BLUESIM_MBUF_DATA_ROOM,
					    cfg->socket_id);
	if (sim->pool == NULL)
		return -ENOMEM;
	sim->own_pool = true;
	return 0;
}

/* pcap=: @return 0 or a negative errno (logged). */
static int
capture_open(struct bluesim *sim, const char *path)
{
	int e;

	if (path == NULL)
		return 0;
	sim->pcap = ordk_pcapng_open(path, "ORDK bluesim");
	if (sim->pcap != NULL &&
	    ordk_pcapng_add_interface(sim->pcap, sim->name, "bluesim port") >= 0)
		return 0;
	e = errno ? errno : EIO;
	SIM_LOG(ERR, sim, "cannot write capture %s: %s", path, strerror(e));
	return -e;
}

struct bluesim *
bluesim_create(const struct bluesim_config *cfg)
{
	struct bluesim *sim;
	int rc = config_check(cfg);

	if (rc != 0) {
		rte_errno = -rc;
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
	if (sim->cfg.snic_slot == 0)
		sim->cfg.snic_slot = BLUE_SIMPLE_NIC_RX_SLOT_SIZE;
	sim->tsc_hz = rte_get_tsc_hz();
	sim->ns_per_tsc_q32 = (uint64_t)(((unsigned __int128)1000000000u << 32) / sim->tsc_hz);
	sim->rng = cfg->fault.seed ? cfg->fault.seed : 0x9E3779B97F4A7C15ull;
	if (sim->cfg.rtl) {
		/* SimpleNic's base register resets to 0 and nothing writes it */
		sim->raw_ready = true;
		sim->raw_base = 0;
	}
	rc = tables_alloc(sim, cfg);
	if (rc == 0) {
		sim_rings_init(sim);
		rc = pool_get(sim, cfg);
	}
	if (rc == 0)
		rc = capture_open(sim, cfg->pcap_path);
	if (rc == 0)
		sim_zcopy_setup(sim);
	if (rc != 0) {
		bluesim_destroy(sim);
		rte_errno = -rc;
		return NULL;
	}
	SIM_LOG(INFO, sim, "created on %s%s%s",
		cfg->port_id == BLUESIM_PORT_LOOPBACK ? "loopback" : "port",
		sim->cfg.fcs ? ", FCS trailer" : "", sim->cfg.rtl ? ", as the RTL (rtl=1)" : "");
	return sim;
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

unsigned int
bluesim_cmd_poll(struct bluesim *sim)
{
	return sim == NULL ? 0 : sim_cmd_poll(sim, BLUE_RING_DEPTH);
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
	uint64_t v;

	/* the counters in xstat_names' order, as bluesim_xstats_get() copies them */
	for (unsigned int i = 0; i < NXSTATS; i++)
		if (strcmp(xstat_names[i], name) == 0) {
			memcpy(&v, (const uint8_t *)&sim->st + i * sizeof(v), sizeof(v));
			return v;
		}
	return UINT64_MAX;
}

void
bluesim_xstats_reset(struct bluesim *sim)
{
	if (sim != NULL)
		memset(&sim->st, 0, sizeof(sim->st));
}
