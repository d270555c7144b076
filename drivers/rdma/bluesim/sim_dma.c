/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DMA: every host-memory access of the model goes through sim_dma_ptr(), which
 * translates an IOVA to host memory through the mappings the host made with
 * bluesim_dma_map() (the model's IOMMU). Anything else is refused and counted,
 * never performed. MR accesses translate first through the MR table and the
 * PGT of 2 MiB pages, as the card does (doc/guides/drivers/blue_hw_interface.md section 4).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <string.h>

#include <rte_malloc.h>

#include "mem_internal.h"
#include "sim_internal.h"

/* Index of the last mapping with iova <= @p iova, or -1. */
static int
map_find(const struct bluesim *sim, uint64_t iova)
{
	int lo = 0, hi = (int)sim->nmaps - 1, best = -1;

	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (sim->maps[mid].iova <= iova) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

static bool
map_covers(const struct sim_dma_map *m, uint64_t iova, uint64_t len)
{
	return iova >= m->iova && len <= m->len && iova - m->iova <= m->len - len;
}

/* Host memory behind [iova, iova + len) or NULL; nothing counted. */
static uint8_t *
dma_lookup(struct bluesim *sim, uint64_t iova, uint64_t len)
{
	const struct sim_dma_map *m;
	int i;

	if (len == 0)
		len = 1;
	if (sim->last_map < sim->nmaps && map_covers(&sim->maps[sim->last_map], iova, len)) {
		m = &sim->maps[sim->last_map];
		return m->va + (iova - m->iova);
	}
	i = map_find(sim, iova);
	if (i >= 0 && map_covers(&sim->maps[i], iova, len)) {
		sim->last_map = (uint32_t)i;
		m = &sim->maps[i];
		return m->va + (iova - m->iova);
	}
	return NULL;
}

uint8_t *
sim_dma_ptr(struct bluesim *sim, uint64_t iova, uint64_t len)
{
	uint8_t *p = dma_lookup(sim, iova, len);

	if (p == NULL)
		sim->st.dma_refused++;
	return p;
}

/*
 * Is [iova, iova + len) mapped, perhaps by several mappings side by side? An
 * IOMMU translates page by page: a range two MRs pinned apart (the pages of
 * one were already pinned for the other, lib/mem/mem_pins.c) is as good as
 * one mapping, each piece backed by its own host memory.
 */
static bool
maps_cover(const struct bluesim *sim, uint64_t iova, uint64_t len)
{
	int i = map_find(sim, iova);

	for (; i >= 0 && (uint32_t)i < sim->nmaps; i++) {
		const struct sim_dma_map *m = &sim->maps[i];
		uint64_t n;

		if (iova - m->iova >= m->len)
			return false; /* a hole */
		n = m->len - (iova - m->iova);
		if (n >= len)
			return true;
		iova += n;
		len -= n;
	}
	return false;
}

/* Copy between host memory and [iova, iova + len): @p dst NULL writes @p src there. */
static int
dma_copy(struct bluesim *sim, uint64_t iova, uint8_t *dst, const uint8_t *src, uint64_t len)
{
	uint8_t *p = dma_lookup(sim, iova, len);

	if (p == NULL && len > 0 && maps_cover(sim, iova, len)) {
		while (len > 0) { /* mapping by mapping */
			const struct sim_dma_map *m = &sim->maps[map_find(sim, iova)];
			uint64_t n = RTE_MIN(len, m->len - (iova - m->iova));

			p = m->va + (iova - m->iova);
			if (dst != NULL) {
				memcpy(dst, p, n);
				dst += n;
			} else {
				memcpy(p, src, n);
				src += n;
			}
			iova += n;
			len -= n;
		}
		return 0;
	}
	if (p == NULL) {
		sim->st.dma_refused++;
		return -EFAULT;
	}
	if (dst != NULL)
		memcpy(dst, p, len);
	else
		memcpy(p, src, len);
	return 0;
}

int
sim_dma_read(struct bluesim *sim, uint64_t iova, void *dst, uint64_t len)
{
	return dma_copy(sim, iova, dst, NULL, len);
}

int
sim_dma_write(struct bluesim *sim, uint64_t iova, const void *src, uint64_t len)
{
	return dma_copy(sim, iova, NULL, src, len);
}

/*
 * Walk [va, va + len) of an MR in pieces that stay inside one 2 MiB page:
 * idx = pgt_offset + (VA >> 21) - (base_va >> 21); PA = (pn << 21) | (VA & 0x1FFFFF).
 * A write from @p src when it is not NULL, else a read into @p dst.
 */
static int
mr_access(struct bluesim *sim, const struct sim_mr *mr, uint64_t va, uint8_t *dst,
	  const uint8_t *src, uint32_t len)
{
	while (len > 0) {
		uint64_t off = va & (BLUE_PAGE_SIZE - 1);
		uint64_t idx = mr->pgt_offset + (va >> BLUE_PAGE_SHIFT) -
			       (mr->base_va >> BLUE_PAGE_SHIFT);
		uint32_t n = (uint32_t)RTE_MIN((uint64_t)len, BLUE_PAGE_SIZE - off);
		uint64_t pa;
		int rc;

		if (idx >= BLUE_PGT_ENTRIES)
			return -ERANGE;
		pa = ((uint64_t)sim->pgt[idx] << BLUE_PAGE_SHIFT) | off;
		rc = src != NULL ? sim_dma_write(sim, pa, src, n) : sim_dma_read(sim, pa, dst, n);
		if (rc != 0)
			return rc;
		va += n;
		if (src != NULL)
			src += n;
		else
			dst += n;
		len -= n;
	}
	return 0;
}

/*
 * Memory unmapped (or made read-only) under a live MR: a card would raise a
 * DMA fault (the IOMMU), a process must not die of SIGSEGV. The MR copies run
 * under lib/mem's guard (one sigsetjmp without the signal mask per access;
 * installed by bluesim_create()).
 */
static int
mr_access_guarded(struct bluesim *sim, const struct sim_mr *mr, uint64_t va, uint8_t *dst,
		  const uint8_t *src, uint32_t len)
{
	sigjmp_buf env;
	int rc;

	if (sigsetjmp(env, 0) != 0) {
		/* the host memory behind the MR faulted: the access fails, counted */
		if (sim->st.dma_fault++ == 0)
			SIM_LOG(ERR, sim, "MR memory at 0x%" PRIx64 " is gone (unmapped or "
					  "protected under a live MR): access refused", va);
		return -EFAULT;
	}
	mem_guard_env = &env;
	rc = mr_access(sim, mr, va, dst, src, len);
	mem_guard_env = NULL;
	return rc;
}

int
sim_mr_read(struct bluesim *sim, const struct sim_mr *mr, uint64_t va, void *dst, uint32_t len)
{
	return mr_access_guarded(sim, mr, va, dst, NULL, len);
}

int
sim_mr_write(struct bluesim *sim, const struct sim_mr *mr, uint64_t va, const void *src,
	     uint32_t len)
{
	return mr_access_guarded(sim, mr, va, NULL, src, len);
}

const uint8_t *
sim_mr_ptr(struct bluesim *sim, const struct sim_mr *mr, uint64_t va, uint32_t len)
{
	uint64_t off = va & (BLUE_PAGE_SIZE - 1);
	uint64_t idx = mr->pgt_offset + (va >> BLUE_PAGE_SHIFT) - (mr->base_va >> BLUE_PAGE_SHIFT);
	const uint8_t *p;
	sigjmp_buf env;

	if (len == 0 || idx >= BLUE_PGT_ENTRIES || off + len > BLUE_PAGE_SIZE)
		return NULL;
	p = dma_lookup(sim, ((uint64_t)sim->pgt[idx] << BLUE_PAGE_SHIFT) | off, len);
	if (p == NULL)
		return NULL;
	/* the port reads the bytes outside the guard: a page that is gone (unmapped under
	 * a live MR) must fault here, where the copy path then counts it */
	if (sigsetjmp(env, 0) != 0)
		return NULL;
	mem_guard_env = &env;
	for (uint64_t o = 0; o < len; o += 4096 - ((uintptr_t)(p + o) & 4095))
		(void)*(const volatile uint8_t *)(p + o);
	(void)*(const volatile uint8_t *)(p + len - 1);
	mem_guard_env = NULL;
	return p;
}

static void invalidate_ring_bases(struct bluesim *sim);

/* Room for one more mapping: the table doubles up to SIM_DMA_MAPS_MAX. */
static int
maps_room(struct bluesim *sim)
{
	struct sim_dma_map *m;
	uint32_t cap;

	if (sim->nmaps < sim->maps_cap)
		return 0;
	if (sim->maps_cap >= SIM_DMA_MAPS_MAX) {
		SIM_LOG(ERR, sim, "DMA map table full (%u mappings)", SIM_DMA_MAPS_MAX);
		return -ENOSPC;
	}
	cap = sim->maps_cap ? 2 * sim->maps_cap : SIM_DMA_MAPS_MIN;
	m = rte_realloc_socket(sim->maps, sizeof(*m) * cap, 0, sim->cfg.socket_id);
	if (m == NULL) {
		SIM_LOG(ERR, sim, "DMA map table: no memory for %u mappings", cap);
		return -ENOMEM;
	}
	sim->maps = m;
	sim->maps_cap = cap;
	return 0;
}

int
bluesim_dma_map(struct bluesim *sim, uint64_t iova, void *va, uint64_t len)
{
	int i;

	if (sim == NULL || va == NULL || len == 0 || iova + len < iova)
		return -EINVAL;
	i = maps_room(sim);
	if (i != 0)
		return i;
	i = map_find(sim, iova);
	/* no overlap with the mapping before or after */
	if (i >= 0 && iova - sim->maps[i].iova < sim->maps[i].len)
		return -EEXIST;
	if (i + 1 < (int)sim->nmaps && sim->maps[i + 1].iova - iova < len)
		return -EEXIST;
	memmove(&sim->maps[i + 2], &sim->maps[i + 1],
		(sim->nmaps - (uint32_t)(i + 1)) * sizeof(sim->maps[0]));
	sim->maps[i + 1] = (struct sim_dma_map){ .iova = iova, .len = len, .va = va };
	sim->nmaps++;
	invalidate_ring_bases(sim); /* rings re-resolve their base on next use */
	return 0;
}

static void
invalidate_ring_bases(struct bluesim *sim)
{
	sim->last_map = UINT32_MAX;
	sim->cmd_req.base_iova = sim->send.base_iova = sim->snic_tx.base_iova = UINT64_MAX;
	sim->cmd_resp.base_iova = sim->meta.base_iova = sim->snic_rx.base_iova = UINT64_MAX;
}

int
bluesim_dma_unmap(struct bluesim *sim, uint64_t iova, uint64_t len)
{
	uint64_t end = iova + len;
	bool removed = false;

	if (sim == NULL || len == 0 || end < iova)
		return -EINVAL;
	for (uint32_t i = 0; i < sim->nmaps;) {
		struct sim_dma_map *m = &sim->maps[i];
		uint64_t ms = m->iova, me = m->iova + m->len;

		if (me <= iova || ms >= end) {
			i++;
			continue;
		}
		removed = true;
		if (sim->zc_inflight > 0) { /* frames over this memory must not outlive it */
			uint64_t lo = RTE_MAX(ms, iova), hi = RTE_MIN(me, end);

			sim_zcopy_recall(sim, m->va + (lo - ms), hi - lo);
		}
		if (ms < iova && me > end) { /* a hole in the middle: split in two */
			int rc = maps_room(sim);

			if (rc != 0)
				return rc;
			m = &sim->maps[i]; /* the table may have moved */
			memmove(&sim->maps[i + 1], &sim->maps[i],
				(sim->nmaps - i) * sizeof(sim->maps[0]));
			sim->nmaps++;
			sim->maps[i].len = iova - ms;
			sim->maps[i + 1].iova = end;
			sim->maps[i + 1].va = m->va + (end - ms);
			sim->maps[i + 1].len = me - end;
			break;
		}
		if (ms < iova) { /* keep the head */
			m->len = iova - ms;
			i++;
		} else if (me > end) { /* keep the tail */
			m->va += end - ms;
			m->iova = end;
			m->len = me - end;
			i++;
		} else { /* inside: gone */
			memmove(&sim->maps[i], &sim->maps[i + 1],
				(sim->nmaps - i - 1) * sizeof(sim->maps[0]));
			sim->nmaps--;
		}
	}
	invalidate_ring_bases(sim);
	return removed ? 0 : -ENOENT;
}
