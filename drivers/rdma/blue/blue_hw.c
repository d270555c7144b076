/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PMD device bring-up and the command queue. Commands are pipelined on the
 * CmdReq ring (up to BLUE_CMDQ_DEPTH in flight); the card answers in order,
 * so responses are matched to a FIFO of sequence numbers. blue_cmd_exec() is
 * the blocking helper of the control path, bounded by a timeout.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_common.h>
#include <rte_malloc.h>

#include "blue_hw.h"

RTE_LOG_REGISTER(blue_logtype, ordk.blue, NOTICE);

void *
blue_dma_alloc(struct blue_hw *dev, size_t len, size_t align, uint64_t *iova)
{
	void *p;

	/*
	 * A device that DMAs by physical address (no-IOMMU) needs each block in
	 * one physically contiguous run: aligned to its own size (a power of
	 * two up to 2 MiB), a block cannot straddle two hugepages.
	 */
	if (dev->be.needs_pa && len <= (2u << 20) && align < rte_align64pow2(len))
		align = (size_t)rte_align64pow2(len);
	p = rte_zmalloc("blue_dma", len, align);

	if (p == NULL)
		return NULL;
	if (dev->be.ops->dma_map(&dev->be, p, len, iova) != 0) {
		rte_free(p);
		return NULL;
	}
	return p;
}

void
blue_dma_free(struct blue_hw *dev, void *va, size_t len)
{
	if (va == NULL)
		return;
	dev->be.ops->dma_unmap(&dev->be, va, len);
	rte_free(va);
}

static void
ring_base(struct blue_hw *dev, enum blue_ring_id id)
{
	uint32_t csr = blue_ring_csr_base(id);
	volatile uint32_t *lo = (volatile uint32_t *)(dev->be.bar0 + BLUE_RING_REG(csr, 0));
	volatile uint32_t *hi = (volatile uint32_t *)(dev->be.bar0 + BLUE_RING_REG(csr, 1));

	/* low word then high word (section 1) */
	*lo = (uint32_t)dev->ring[id].iova;
	*hi = (uint32_t)(dev->ring[id].iova >> 32);
}

/*
 * The SimpleNic RX buffer. The open-rdma RTL never writes its RX base
 * register (SetRawPacketReceiveMeta is queued and never read): frames land at
 * DMA address 0 + slot * slot size. So the buffer sits at IOVA 0 where the
 * IOVA can be chosen (an IOMMU, the model); with physical addresses it cannot.
 */
int
blue_snic_rx_alloc(struct blue_hw *dev)
{
	dev->snic_slot = dev->be.snic_slot ? dev->be.snic_slot : BLUE_SIMPLE_NIC_RX_SLOT_SIZE;
	dev->snic_rx_len = (size_t)dev->snic_slot * BLUE_SIMPLE_NIC_RX_SLOTS;
	if (dev->be.snic_any_iova) {
		dev->snic_rx_buf = blue_dma_alloc(dev, dev->snic_rx_len, 4096, &dev->snic_rx_iova);
		return dev->snic_rx_buf != NULL ? 0 : -ENOMEM;
	}
	if (dev->be.ops->dma_map_at == NULL) {
		BLUE_LOG(ERR, dev, "this card (open-rdma RTL) writes received SimpleNic frames to "
			 "DMA address 0 + slot * %u: it ignores SetRawPacketReceiveMeta. Without "
			 "an IOMMU that is physical page 0, which is not ours: refusing to start "
			 "(use an IOMMU, or snic_iova0=0 for a card that honours the command)",
			 dev->snic_slot);
		return -ENOTSUP;
	}
	dev->snic_rx_buf = rte_zmalloc("blue_snic_rx", dev->snic_rx_len, 4096);
	if (dev->snic_rx_buf == NULL)
		return -ENOMEM;
	if (dev->be.ops->dma_map_at(&dev->be, dev->snic_rx_buf, dev->snic_rx_len, 0) != 0) {
		BLUE_LOG(ERR, dev, "cannot map the SimpleNic RX buffer at IOVA 0");
		rte_free(dev->snic_rx_buf);
		dev->snic_rx_buf = NULL;
		return -ENOMEM;
	}
	dev->snic_rx_iova = 0;
	dev->snic_rx_fixed = true;
	return 0;
}

void
blue_snic_rx_free(struct blue_hw *dev)
{
	if (dev->snic_rx_fixed)
		rte_free(dev->snic_rx_buf); /* its IOVA-0 mapping goes with the backend */
	else
		blue_dma_free(dev, dev->snic_rx_buf, dev->snic_rx_len);
	dev->snic_rx_buf = NULL;
	dev->snic_rx_fixed = false;
}

int
blue_hw_start(struct blue_hw *dev, uint64_t mac, uint32_t ip)
{
	struct blue_cmd c = { .hdr = { .valid = 1 } };
	int rc;

	dev->mac = mac;
	dev->ip = ip;
	dev->netmask = 0xFFFFFF00;
	dev->gateway = (ip & 0xFFFFFF00) | 1;
	dev->tsc_hz = rte_get_tsc_hz();
	/* the model needs steps to answer; real hardware answers in microseconds */
	dev->cmd_timeout_tsc = dev->tsc_hz * (dev->be.ops->poll != NULL ? 5 : 1);

	for (int r = 0; r < BLUE_RING_COUNT; r++) {
		uint64_t iova;

		dev->ring_mem[r] = blue_dma_alloc(dev, BLUE_RING_BYTES, 4096, &iova);
		if (dev->ring_mem[r] == NULL)
			goto nomem;
		blue_hring_init(&dev->ring[r], dev->ring_mem[r], iova, dev->be.bar0,
				blue_ring_csr_base((enum blue_ring_id)r));
		ring_base(dev, (enum blue_ring_id)r);
	}
	dev->pgt_staging = blue_dma_alloc(dev, BLUE_PGT_STAGING_SLOTS * 512, 4096,
					  &dev->pgt_staging_iova);
	dev->snic_tx_buf = blue_dma_alloc(dev, (size_t)BLUE_RING_DEPTH * BLUE_SNIC_TX_SLOT, 4096,
					  &dev->snic_tx_iova);
	if (dev->pgt_staging == NULL || dev->snic_tx_buf == NULL)
		goto nomem;
	rc = blue_snic_rx_alloc(dev);
	if (rc == -ENOTSUP)
		return rc;
	if (rc != 0)
		goto nomem;

	c.hdr.opcode = BLUE_CMD_SET_NETWORK_PARAM;
	c.net = (struct blue_cmd_set_network_param){ .gateway = dev->gateway,
						     .netmask = dev->netmask, .local_ip = ip,
						     .local_mac = mac };
	rc = blue_cmd_exec(dev, &c);
	if (rc == 0) {
		/* once: on the RTL a second one blocks the command queue for good */
		c = (struct blue_cmd){ .hdr = { .opcode = BLUE_CMD_SET_RAW_PACKET_RECEIVE_META,
						.valid = 1 } };
		c.raw.write_base_addr = dev->snic_rx_iova;
		rc = blue_cmd_exec(dev, &c);
	}
	if (rc != 0) {
		BLUE_LOG(ERR, dev, "device start: %s", rc == -ETIMEDOUT ? "the card did not answer"
								       : "the card refused a command");
		return rc;
	}
	dev->started = true;
	return 0;
nomem:
	BLUE_LOG(ERR, dev, "cannot allocate DMA memory for rings and buffers");
	return -ENOMEM;
}

void
blue_hw_close(struct blue_hw *dev)
{
	for (int r = 0; r < BLUE_RING_COUNT; r++) {
		blue_dma_free(dev, dev->ring_mem[r], BLUE_RING_BYTES);
		dev->ring_mem[r] = NULL;
	}
	blue_dma_free(dev, dev->pgt_staging, BLUE_PGT_STAGING_SLOTS * 512);
	blue_dma_free(dev, dev->snic_tx_buf, (size_t)BLUE_RING_DEPTH * BLUE_SNIC_TX_SLOT);
	blue_snic_rx_free(dev);
	if (dev->snic_big_buf != NULL)
		blue_dma_free(dev, dev->snic_big_buf, (size_t)BLUE_SNIC_BIG_SLOTS * BLUE_SNIC_BIG_SLOT);
	dev->pgt_staging = dev->snic_tx_buf = dev->snic_big_buf = NULL;
	dev->started = false;
	if (dev->be.ops != NULL && dev->be.ops->close != NULL)
		dev->be.ops->close(&dev->be);
	dev->be.ops = NULL;
}

/* --------------------------------------------------------------- commands */

int64_t
blue_cmd_submit(struct blue_hw *dev, const struct blue_cmd *cmd)
{
	struct blue_hring *r = &dev->ring[BLUE_RING_CMD_REQ];
	uint32_t seq = dev->cmd_seq;
	struct blue_cmd_slot *s = &dev->cmd[seq % BLUE_CMDQ_DEPTH];

	if (s->busy || blue_hring_free(r, 1) < 1)
		return -EAGAIN;
	if (blue_cmd_encode(cmd, blue_hring_prod_slot(r, 0)) != 0)
		return -EINVAL;
	*s = (struct blue_cmd_slot){ .busy = 1, .opcode = cmd->hdr.opcode };
	blue_hring_produce(r, 1);
	blue_hring_doorbell(r);
	dev->cmd_seq++;
	dev->st.cmd_submitted++;
	return seq;
}

unsigned int
blue_cmd_poll(struct blue_hw *dev)
{
	struct blue_hring *r = &dev->ring[BLUE_RING_CMD_RESP];
	const uint8_t *d0, *d1;
	unsigned int n = 0, k;

	while ((k = blue_hring_ready(r, &d0, &d1)) > 0) {
		struct blue_cmd_slot *s = &dev->cmd[dev->cmd_done_seq % BLUE_CMDQ_DEPTH];
		bool ok = (d0[29] & 1) != 0;

		if (dev->cmd_done_seq == dev->cmd_seq || !s->busy ||
		    blue_desc_opcode(d0) != s->opcode) {
			/* a response nobody asked for, or out of order: counted, dropped */
			dev->st.cmd_resp_unexpected++;
		} else {
			s->done = 1;
			s->ok = ok;
			s->busy = 0;
			dev->cmd_done_seq++;
			if (ok)
				dev->st.cmd_ok++;
			else
				dev->st.cmd_failed++;
		}
		blue_hring_consume(r, k);
		n++;
	}
	blue_hring_commit(r);
	return n;
}

bool
blue_cmd_done(const struct blue_hw *dev, uint32_t seq, bool *ok)
{
	const struct blue_cmd_slot *s = &dev->cmd[seq % BLUE_CMDQ_DEPTH];

	if ((int32_t)(dev->cmd_done_seq - seq) <= 0)
		return false;
	if (ok != NULL)
		*ok = s->ok;
	return true;
}

bool
blue_cmd_kick(struct blue_hw *dev)
{
	if (dev->be.ops->cmd_poll == NULL || dev->cmd_kicked == dev->cmd_seq ||
	    dev->cmd_done_seq == dev->cmd_seq)
		return false;
	dev->cmd_kicked = dev->cmd_seq;
	dev->st.cmd_kicks++;
	dev->be.ops->cmd_poll(&dev->be);
	blue_cmd_poll(dev);
	return true;
}

/*
 * The deadline is in wall time, not the transport's polling time
 * (rc_ptime()): this loop polls the card the whole time it waits, so no
 * answer can wait unseen. A command the transport does not wait for (the
 * QP's ManageQp to ERR, rc_qp.c) is given up in polling time instead.
 */
int
blue_cmd_exec(struct blue_hw *dev, const struct blue_cmd *cmd)
{
	uint64_t deadline = rte_get_tsc_cycles() + dev->cmd_timeout_tsc;
	int64_t seq;
	bool ok = false;

	do {
		seq = blue_cmd_submit(dev, cmd);
		if (seq == -EAGAIN) {
			blue_backend_poll(dev, 64);
			blue_cmd_poll(dev);
		}
	} while (seq == -EAGAIN && rte_get_tsc_cycles() < deadline);
	if (seq < 0)
		return seq == -EAGAIN ? -ETIMEDOUT : (int)seq;
	while (!blue_cmd_done(dev, (uint32_t)seq, &ok)) {
		if (rte_get_tsc_cycles() > deadline) {
			dev->st.cmd_timeouts++;
			BLUE_LOG(ERR, dev, "%s: no response from the card",
				 blue_cmd_opcode_name(cmd->hdr.opcode));
			return -ETIMEDOUT;
		}
		blue_backend_poll(dev, 64);
		blue_cmd_poll(dev);
	}
	return ok ? 0 : -EIO;
}

uint64_t *
blue_pgt_staging(struct blue_hw *dev, uint64_t *iova)
{
	uint32_t i = dev->pgt_staging_next++ % BLUE_PGT_STAGING_SLOTS;

	*iova = dev->pgt_staging_iova + (uint64_t)i * 512;
	return (uint64_t *)(dev->pgt_staging + (size_t)i * 512);
}

/* ------------------------------------------------------------- send ring */

int
blue_send_item_put(struct blue_hw *dev, const struct blue_send_item *it)
{
	struct blue_hring *r = &dev->ring[BLUE_RING_SEND0];
	uint8_t *s0 = blue_hring_prod_slot(r, 0), *s1 = blue_hring_prod_slot(r, 1);
	uint8_t tmp[64];
	int rc;

	rc = blue_send_item_encode(it, tmp);
	if (rc != 0)
		return -EINVAL;
	/* the two slots may sit at the ring's end and start */
	memcpy(s0, tmp, BLUE_DESC_SIZE);
	memcpy(s1, tmp + BLUE_DESC_SIZE, BLUE_DESC_SIZE);
	blue_hring_produce(r, 2);
	dev->st.send_items++;
	return 0;
}

/* ------------------------------------------------------------- meta ring */

int
blue_meta_next(struct blue_hw *dev, struct blue_meta_report *rep)
{
	struct blue_hring *r = &dev->ring[BLUE_RING_META0];
	const uint8_t *d0, *d1;
	unsigned int k = blue_hring_ready(r, &d0, &d1);
	int rc;

	if (k == 0)
		return 0;
	rc = blue_meta_decode(d0, d1, rep);
	blue_hring_consume(r, k);
	if (rc != (int)k) {
		/* a report outside the classification table: counted, dropped (section 3.3) */
		dev->st.meta_bad++;
		return -1;
	}
	dev->st.meta_reports++;
	return 1;
}

/* ------------------------------------------------------------- SimpleNic */

bool
blue_snic_tx_room(struct blue_hw *dev)
{
	return blue_hring_free(&dev->ring[BLUE_RING_SIMPLE_NIC_TX], 1) > 0;
}

int
blue_snic_big_alloc(struct blue_hw *dev)
{
	if (dev->snic_big_buf == NULL)
		dev->snic_big_buf = blue_dma_alloc(dev, (size_t)BLUE_SNIC_BIG_SLOTS * BLUE_SNIC_BIG_SLOT,
						   4096, &dev->snic_big_iova);
	return dev->snic_big_buf != NULL ? 0 : -ENOMEM;
}

/* Has the card fetched the frame that last took long slot @p k? (it fetches in order) */
static bool
big_slot_free(struct blue_hw *dev, uint32_t k)
{
	struct blue_hring *r = &dev->ring[BLUE_RING_SIMPLE_NIC_TX];
	uint32_t inflight;

	if (dev->snic_big_pos[k] == 0)
		return true;
	inflight = BLUE_RING_DEPTH - blue_hring_free(r, BLUE_RING_DEPTH);
	return r->head - (dev->snic_big_pos[k] - 1) > inflight;
}

bool
blue_snic_tx_room_len(struct blue_hw *dev, uint32_t len)
{
	return blue_snic_tx_room(dev) &&
	       (len <= BLUE_SNIC_TX_SLOT ||
		big_slot_free(dev, dev->snic_big_next % BLUE_SNIC_BIG_SLOTS));
}

int
blue_snic_tx(struct blue_hw *dev, const void *frame, uint32_t len)
{
	struct blue_hring *r = &dev->ring[BLUE_RING_SIMPLE_NIC_TX];
	uint32_t idx = blue_ring_idx(r->head), k = dev->snic_big_next % BLUE_SNIC_BIG_SLOTS;
	struct blue_simple_nic_tx tx = { .len = len };
	uint8_t *slot;

	if (len == 0 || len > (dev->snic_big_buf != NULL ? BLUE_SNIC_BIG_SLOT : BLUE_SNIC_TX_SLOT))
		return -EINVAL;
	if (blue_hring_free(r, 1) < 1 || (len > BLUE_SNIC_TX_SLOT && !big_slot_free(dev, k))) {
		dev->st.snic_tx_full++;
		return -EAGAIN;
	}
	if (len <= BLUE_SNIC_TX_SLOT) {
		/* slot i belongs to ring slot i: reused only after the card fetched 4096 more */
		slot = dev->snic_tx_buf + (size_t)idx * BLUE_SNIC_TX_SLOT;
		tx.addr = dev->snic_tx_iova + (uint64_t)idx * BLUE_SNIC_TX_SLOT;
	} else {
		slot = dev->snic_big_buf + (size_t)k * BLUE_SNIC_BIG_SLOT;
		tx.addr = dev->snic_big_iova + (uint64_t)k * BLUE_SNIC_BIG_SLOT;
		dev->snic_big_pos[k] = r->head + 1;
		dev->snic_big_next++;
	}
	memcpy(slot, frame, len);
	blue_simple_nic_tx_encode(&tx, blue_hring_prod_slot(r, 0));
	blue_hring_produce(r, 1);
	dev->st.snic_tx++;
	return 0;
}

const uint8_t *
blue_snic_rx_next(struct blue_hw *dev, uint32_t *len)
{
	struct blue_hring *r = &dev->ring[BLUE_RING_SIMPLE_NIC_RX];
	const uint8_t *d0, *d1;
	struct blue_simple_nic_rx rx;

	while (blue_hring_ready(r, &d0, &d1) > 0) {
		/* a frame longer than a slot ran into the next one (the RTL checks no length) */
		if (d1 == NULL && blue_simple_nic_rx_decode(d0, &rx) == 0 &&
		    rx.len <= dev->snic_slot) {
			*len = rx.len;
			dev->st.snic_rx++;
			return dev->snic_rx_buf + (size_t)rx.slot_idx * dev->snic_slot;
		}
		dev->st.snic_rx_bad++;
		blue_hring_consume(r, d1 != NULL ? 2 : 1);
	}
	return NULL;
}

void
blue_snic_rx_done(struct blue_hw *dev)
{
	blue_hring_consume(&dev->ring[BLUE_RING_SIMPLE_NIC_RX], 1);
}
