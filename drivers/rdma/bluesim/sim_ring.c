/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Registers and rings (doc/guides/drivers/blue_hw_interface.md sections 1 and 2).
 * Host-to-card: fetch when HEAD != TAIL, TAIL advances as descriptors are
 * fetched. Card-to-host: write descriptors with valid = 1, never past the
 * host's TAIL, HEAD moved after the writes. Pointers are 13 bits.
 */
#include <string.h>

#include "sim_internal.h"

/* A ring of either direction (struct sim_h2c or sim_c2h): its tail or head at
 * 0, at its register block, not mapped yet. */
#define RING_INIT(r, ring)                          \
	do {                                         \
		memset((r), 0, sizeof(*(r)));        \
		(r)->id = (ring);                    \
		(r)->csr = blue_ring_csr_base(ring); \
		(r)->base_iova = UINT64_MAX;         \
	} while (0)

void
sim_rings_init(struct bluesim *sim)
{
	RING_INIT(&sim->cmd_req, BLUE_RING_CMD_REQ);
	RING_INIT(&sim->send, BLUE_RING_SEND0);
	RING_INIT(&sim->snic_tx, BLUE_RING_SIMPLE_NIC_TX);
	RING_INIT(&sim->cmd_resp, BLUE_RING_CMD_RESP);
	RING_INIT(&sim->meta, BLUE_RING_META0);
	RING_INIT(&sim->snic_rx, BLUE_RING_SIMPLE_NIC_RX);
}

/*
 * The ring buffer behind BASE_LO/BASE_HI. Re-resolved when the host writes a
 * new base. A base the host did not map, or not aligned to 512 bytes (the card
 * bursts 16 descriptors aligned to 16-entry blocks; an unaligned base would
 * make a burst cross a 4 KiB page), leaves the ring unusable and is counted once.
 */
static uint8_t *
ring_base(struct bluesim *sim, uint32_t csr, uint64_t *cached_iova, uint8_t **cached_va)
{
	uint64_t iova = (uint64_t)sim_reg_read(sim, BLUE_RING_REG(csr, BLUE_CSR_REG_BASE_HI)) << 32 |
			sim_reg_read(sim, BLUE_RING_REG(csr, BLUE_CSR_REG_BASE_LO));

	if (iova == *cached_iova)
		return *cached_va;
	*cached_iova = iova;
	*cached_va = NULL;
	if (iova % BLUE_RING_BASE_ALIGN != 0) {
		sim->st.ring_insane++;
		SIM_LOG(WARNING, sim, "ring at 0x%x: base 0x%" PRIx64 " not 512-byte aligned",
			csr, iova);
		return NULL;
	}
	*cached_va = sim_dma_ptr(sim, iova, BLUE_RING_BYTES);
	if (*cached_va == NULL)
		SIM_LOG(WARNING, sim, "ring at 0x%x: base 0x%" PRIx64 " not mapped for DMA", csr,
			iova);
	return *cached_va;
}

uint32_t
sim_h2c_avail(struct bluesim *sim, struct sim_h2c *r)
{
	uint32_t head = blue_ring_ptr(sim_reg_read(sim, BLUE_RING_REG(r->csr, BLUE_CSR_REG_HEAD)));
	uint32_t n = blue_ring_count(head, r->tail);

	if (n == 0)
		return 0;
	if (n > BLUE_RING_DEPTH) {
		/* a host HEAD more than a ring ahead of what was fetched */
		sim->st.ring_insane++;
		return 0;
	}
	if (ring_base(sim, r->csr, &r->base_iova, &r->base_va) == NULL)
		return 0;
	return n;
}

const uint8_t *
sim_h2c_peek(struct bluesim *sim, struct sim_h2c *r, uint32_t i)
{
	(void)sim;
	if (r->base_va == NULL)
		return NULL;
	return r->base_va + (size_t)blue_ring_idx(r->tail + i) * BLUE_DESC_SIZE;
}

void
sim_h2c_consume(struct bluesim *sim, struct sim_h2c *r, uint32_t n)
{
	r->tail = blue_ring_advance(r->tail, n);
	sim_reg_write(sim, BLUE_RING_REG(r->csr, BLUE_CSR_REG_TAIL), r->tail);
}

uint32_t
sim_c2h_free(struct bluesim *sim, struct sim_c2h *r)
{
	uint32_t tail = blue_ring_ptr(sim_reg_read(sim, BLUE_RING_REG(r->csr, BLUE_CSR_REG_TAIL)));

	if (!blue_ring_ptrs_sane(r->head, tail)) {
		sim->st.ring_insane++;
		return 0;
	}
	if (ring_base(sim, r->csr, &r->base_iova, &r->base_va) == NULL)
		return 0;
	return blue_ring_free(r->head, tail);
}

void
sim_c2h_write(struct bluesim *sim, struct sim_c2h *r, const uint8_t (*d)[BLUE_DESC_SIZE],
	      uint32_t n)
{
	uint8_t *slot[2];

	(void)sim;
	/* Bodies first, then the valid bytes last to first: a consumer that sees
	 * the first descriptor valid finds the rest of the item complete. */
	for (uint32_t i = 0; i < n; i++) {
		slot[i] = r->base_va + (size_t)blue_ring_idx(r->head + i) * BLUE_DESC_SIZE;
		memcpy(slot[i], d[i], BLUE_DESC_SIZE - 1);
	}
	for (uint32_t i = n; i-- > 0;)
		__atomic_store_n(&slot[i][BLUE_DESC_SIZE - 1],
				 (uint8_t)(d[i][BLUE_DESC_SIZE - 1] | 0x80), __ATOMIC_RELEASE);
	r->head = blue_ring_advance(r->head, n);
}

void
sim_c2h_publish(struct bluesim *sim, struct sim_c2h *r)
{
	sim_reg_write(sim, BLUE_RING_REG(r->csr, BLUE_CSR_REG_HEAD), r->head);
}

void
sim_meta_post(struct bluesim *sim, const uint8_t (*d)[BLUE_DESC_SIZE], uint8_t ndesc)
{
	struct sim_meta_item *it;

	if (sim->meta_count >= SIM_META_PENDING) {
		/* callers reserve room first (sim_meta_room); reaching here is a model bug */
		SIM_LOG(ERR, sim, "meta report queue overflow: report lost");
		sim->st.drop_unknown++;
		return;
	}
	it = &sim->meta_q[(sim->meta_head + sim->meta_count) % SIM_META_PENDING];
	it->ndesc = ndesc;
	memcpy(it->d, d, (size_t)ndesc * BLUE_DESC_SIZE);
	sim->meta_count++;
	sim->st.meta_reports++;
}

unsigned int
sim_meta_flush(struct bluesim *sim)
{
	unsigned int moved = 0;
	uint32_t room;

	if (sim->meta_count == 0)
		return 0;
	room = sim_c2h_free(sim, &sim->meta);
	while (sim->meta_count > 0) {
		const struct sim_meta_item *it = &sim->meta_q[sim->meta_head];

		if (room < it->ndesc) {
			/* back-pressure: keep the reports, in order, until the host frees slots */
			sim->st.meta_backpressure++;
			break;
		}
		sim_c2h_write(sim, &sim->meta, it->d, it->ndesc);
		room -= it->ndesc;
		sim->st.meta_descriptors += it->ndesc;
		sim->meta_head = (sim->meta_head + 1) % SIM_META_PENDING;
		sim->meta_count--;
		moved++;
	}
	if (moved > 0)
		sim_c2h_publish(sim, &sim->meta);
	return moved;
}
