/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bluesim provider of the Blue driver's backend seam
 * (drivers/common/blue/blue_backend.h): BAR0 is the model's register block,
 * DMA is identity-mapped (IOVA = VA) through the model's IOMMU, and the model
 * steps whenever the driver polls. It lives with the model and reaches the
 * driver only through the build's backend table (blue_backends[]).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "blue_backend.h"
#include "bluesim.h"
#include "ordk_devargs.h"

struct sim_priv {
	struct bluesim *sim;
	char keep[512];
};

static int
sim_dma_map(struct blue_backend *be, void *va, uint64_t len, uint64_t *iova)
{
	struct sim_priv *p = be->priv;
	int rc = bluesim_dma_map(p->sim, (uint64_t)(uintptr_t)va, va, len);

	if (rc != 0)
		return rc;
	*iova = (uint64_t)(uintptr_t)va;
	return 0;
}

static int
sim_dma_map_at(struct blue_backend *be, void *va, uint64_t len, uint64_t iova)
{
	return bluesim_dma_map(((struct sim_priv *)be->priv)->sim, iova, va, len);
}

static int
sim_dma_unmap(struct blue_backend *be, void *va, uint64_t len)
{
	struct sim_priv *p = be->priv;

	return bluesim_dma_unmap(p->sim, (uint64_t)(uintptr_t)va, len);
}

static unsigned int
sim_poll(struct blue_backend *be, unsigned int budget)
{
	return bluesim_poll(((struct sim_priv *)be->priv)->sim, budget);
}

static unsigned int
sim_cmd(struct blue_backend *be)
{
	return bluesim_cmd_poll(((struct sim_priv *)be->priv)->sim);
}

static unsigned int
sim_xstats(const struct blue_backend *be, const char **names, uint64_t *values, unsigned int n)
{
	const struct sim_priv *p = be->priv;
	unsigned int total = bluesim_xstats_count();
	uint64_t *all;

	if (names == NULL || values == NULL || n < total)
		return total;
	all = calloc(total, sizeof(*all));
	if (all == NULL)
		return 0;
	bluesim_xstats_get(p->sim, all);
	for (unsigned int i = 0; i < total; i++) {
		names[i] = bluesim_xstat_name(i);
		values[i] = all[i];
	}
	free(all);
	return total;
}

static void
sim_xstats_reset(struct blue_backend *be)
{
	bluesim_xstats_reset(((struct sim_priv *)be->priv)->sim);
}

static int
sim_set_faults(struct blue_backend *be, const char *spec, char *err, uint32_t errlen)
{
	struct sim_priv *p = be->priv;
	struct bluesim_fault_cfg f;
	int rc;

	bluesim_get_faults(p->sim, &f);
	rc = bluesim_parse_faults(spec, &f, err, errlen);
	if (rc == 0)
		bluesim_set_faults(p->sim, &f);
	return rc;
}

static void
sim_close(struct blue_backend *be)
{
	struct sim_priv *p = be->priv;

	if (p == NULL)
		return;
	bluesim_destroy(p->sim);
	free(p);
	be->priv = NULL;
}

static bool
sim_note(struct blue_backend *be, const char *text)
{
	return bluesim_capture_note(((struct sim_priv *)be->priv)->sim, text);
}

static void
sim_link(struct blue_backend *be, bool up)
{
	bluesim_set_link(((struct sim_priv *)be->priv)->sim, up);
}

static const struct blue_backend_ops sim_ops = {
	.dma_map = sim_dma_map,
	.dma_unmap = sim_dma_unmap,
	.dma_map_at = sim_dma_map_at,
	.poll = sim_poll,
	.cmd_poll = sim_cmd,
	.xstats = sim_xstats,
	.xstats_reset = sim_xstats_reset,
	.set_faults = sim_set_faults,
	.note = sim_note,
	.link = sim_link,
	.close = sim_close,
};

/* The model's keys, and the driver's (mac=, ip=, ...) as another owner's. */
static int
sim_args(const char *args, const struct ordk_devargs_set *driver_keys, struct bluesim_config *cfg,
	 char *keep, size_t keep_len, char *err, size_t errlen)
{
	const struct ordk_devargs_set sets[2] = {
		{ bluesim_devargs, BLUESIM_DEVARGS_COUNT, cfg, false },
		{ driver_keys->keys, driver_keys->n, NULL, true },
	};

	return ordk_devargs_parse(args, sets, 2, keep, keep_len, err, errlen);
}

static int
sim_backend_open(const char *args, const struct ordk_devargs_set *driver_keys,
		 struct blue_backend *be, char *err, uint32_t errlen)
{
	static unsigned int count;
	struct bluesim_config cfg;
	struct sim_priv *p = calloc(1, sizeof(*p));
	int rc;

	if (p == NULL)
		return -ENOMEM;
	bluesim_config_defaults(&cfg);
	rc = sim_args(args != NULL ? args : "", driver_keys, &cfg, p->keep, sizeof(p->keep), err,
		      errlen);
	if (rc != 0) {
		free(p);
		return rc;
	}
	snprintf(be->name, sizeof(be->name), "bluesim%u", count++);
	cfg.name = be->name;
	p->sim = bluesim_create(&cfg);
	if (p->sim == NULL) {
		snprintf(err, errlen, "bluesim: cannot create the model: %s",
			 rte_strerror(rte_errno));
		free(p);
		return -rte_errno;
	}
	be->ops = &sim_ops;
	be->priv = p;
	be->bar0 = (volatile uint8_t *)bluesim_bar0(p->sim);
	be->needs_pa = false;
	be->window_locks = cfg.rtl;
	be->snic_slot = cfg.snic_slot; /* one devarg for the model's card and the driver */
	be->snic_any_iova = false;
	return 0;
}

/* In the build's backend table (blue_backends.c, from drivers/rdma/bluesim/meson.build). */
const struct blue_backend_provider blue_backend_bluesim = {
	.name = "bluesim",
	.keys = bluesim_devargs,
	.n_keys = BLUESIM_DEVARGS_COUNT,
	.key_part = NULL,
	.open = sim_backend_open,
};
