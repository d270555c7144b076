/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration on the card (doc/guides/drivers/blue_hw_interface.md section 4): a key and an
 * MR-table slot, a run of PGT entries (one per 2 MiB page spanned), the pages
 * pinned and DMA-mapped once however many MRs cover them, UpdatePGT commands
 * of up to 64 entries (pipelined), then UpdateMrTable. Deregistration
 * invalidates the card's entry (length 0) before anything is released.
 * lib/verbs checked the range and the access flags and that the memory is there.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_memory.h>

#include "blue_verbs.h"

RTE_LOG_REGISTER(blue_mr_logtype, ordk.blue.mr, NOTICE);
#define MR_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, blue_mr_logtype, "blue: mr: " fmt "\n", ##__VA_ARGS__)

/*
 * Pin and DMA-map a piece no other MR covers (and the reverse). DPDK's own
 * memory is already pinned; other memory is mlock()ed.
 */
static int
pin_piece(void *arg, uint64_t addr, uint64_t len, bool pin)
{
	struct blue_dev *dev = arg;
	void *va = (void *)(uintptr_t)addr;
	bool dpdk_mem = rte_mem_virt2memseg_list(va) != NULL;
	uint64_t iova;

	if (pin) {
		if (!dpdk_mem && mlock(va, len) != 0) {
			MR_LOG(ERR, "mlock of %" PRIu64 " bytes at %p failed: %s (RLIMIT_MEMLOCK?)",
				  len, va, strerror(errno));
			return -EFAULT;
		}
		if (dev->hw.be.ops->dma_map(&dev->hw.be, va, len, &iova) != 0) {
			if (!dpdk_mem)
				munlock(va, len);
			return -EFAULT;
		}
		return 0;
	}
	dev->hw.be.ops->dma_unmap(&dev->hw.be, va, len);
	if (!dpdk_mem)
		munlock(va, len);
	return 0;
}

struct blue_mr *
blue_mr_lookup(struct blue_dev *dev, uint32_t key)
{
	struct blue_mr *m = dev->mr_by_slot[(key >> 8) % BLUE_MAX_MR];

	return (m != NULL && m->vmr.pub.lkey == key) ? m : NULL;
}

/* Where the device needs physical addresses, MR memory must sit in 2 MiB hugepages. */
static bool
hugepage_backed(const void *addr, size_t len)
{
	const uint8_t *p = addr, *end = p + len;

	for (p = RTE_PTR_ALIGN_FLOOR(p, BLUE_PAGE_SIZE); p < end; p += BLUE_PAGE_SIZE) {
		const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(p);

		if (msl == NULL || msl->page_sz != BLUE_PAGE_SIZE)
			return false;
	}
	return true;
}

static int
update_pgt(struct blue_dev *dev, struct blue_mr *m)
{
	uint64_t page = (uint64_t)(uintptr_t)m->vmr.pub.addr & ~(uint64_t)(BLUE_PAGE_SIZE - 1);
	int64_t seqs[BLUE_PGT_STAGING_SLOTS];
	uint32_t done = 0, nseq = 0;
	bool ok = true;

	while (done < m->pgt_n) {
		uint32_t n = RTE_MIN(m->pgt_n - done, BLUE_PGT_MAX_PER_CMD);
		struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_PGT, .valid = 1 } };
		uint64_t iova, *e;
		int64_t seq;

		/* a staging slot is reused only after the command that used it completed
		 * (waits in wall time, polling the card: see blue_cmd_exec()) */
		if (nseq >= BLUE_PGT_STAGING_SLOTS) {
			bool r;
			uint64_t deadline = rte_get_tsc_cycles() + dev->hw.cmd_timeout_tsc;

			while (!blue_cmd_done(&dev->hw, (uint32_t)seqs[nseq % BLUE_PGT_STAGING_SLOTS],
					      &r)) {
				if (rte_get_tsc_cycles() > deadline)
					return -ETIMEDOUT;
				blue_backend_poll(&dev->hw, 64);
				blue_cmd_poll(&dev->hw);
			}
			ok &= r;
		}
		e = blue_pgt_staging(&dev->hw, &iova);
		for (uint32_t i = 0; i < n; i++) {
			uint64_t pa = page + (uint64_t)(done + i) * BLUE_PAGE_SIZE;

			/* IOVA = VA unless the device needs physical addresses */
			if (dev->hw.be.needs_pa)
				pa = rte_mem_virt2iova((void *)(uintptr_t)pa);
			e[i] = rte_cpu_to_le_64(pa);
		}
		c.pgt = (struct blue_cmd_update_pgt){ .dma_addr = iova,
						      .start_index = m->pgt_start + done,
						      .zero_based_entry_count = n - 1 };
		while ((seq = blue_cmd_submit(&dev->hw, &c)) == -EAGAIN) {
			blue_backend_poll(&dev->hw, 64);
			blue_cmd_poll(&dev->hw);
		}
		if (seq < 0)
			return (int)seq;
		seqs[nseq++ % BLUE_PGT_STAGING_SLOTS] = seq;
		done += n;
	}
	/* wait for the rest */
	for (uint32_t i = nseq > BLUE_PGT_STAGING_SLOTS ? nseq - BLUE_PGT_STAGING_SLOTS : 0;
	     i < nseq; i++) {
		uint64_t deadline = rte_get_tsc_cycles() + dev->hw.cmd_timeout_tsc;
		bool r;

		while (!blue_cmd_done(&dev->hw, (uint32_t)seqs[i % BLUE_PGT_STAGING_SLOTS], &r)) {
			if (rte_get_tsc_cycles() > deadline)
				return -ETIMEDOUT;
			blue_backend_poll(&dev->hw, 64);
			blue_cmd_poll(&dev->hw);
		}
		ok &= r;
	}
	return ok ? 0 : -EIO;
}

static int
mr_table(struct blue_dev *dev, const struct blue_mr *m, bool valid)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };

	c.mr = (struct blue_cmd_update_mr_table){
		.mr_base_va = (uint64_t)(uintptr_t)m->vmr.pub.addr,
		.mr_length = valid ? (uint32_t)m->vmr.pub.length : 0, .mr_key = m->vmr.pub.lkey,
		.pd_handle = m->vmr.pub.pd->handle,
		/*
		 * Without LOCAL_WRITE: the card's only use of it is to accept SEND
		 * packets (doc/guides/drivers/blue_hw_interface.md section 5.1), and
		 * SENDs land only through the
		 * per-RECV keys of rc/rc_recv.c, never through the user's MRs.
		 */
		.acc_flags = (uint8_t)(m->vmr.pub.access & ~(unsigned int)BLUE_ACC_LOCAL_WRITE),
		.pgt_offset = m->pgt_start };
	return blue_cmd_exec(&dev->hw, &c);
}

/* The card's part of ordk_mr_reg(): @return 0 or a negative errno. */
int
blue_mr_reg(struct ordk_dev *odev, struct verbs_mr *vm)
{
	struct blue_dev *dev = to_bdev(odev);
	struct blue_mr *m = (struct blue_mr *)vm;
	uint64_t a = (uint64_t)(uintptr_t)m->vmr.pub.addr;
	size_t length = m->vmr.pub.length;
	int64_t key, pgt;
	int rc;

	if (dev->hw.be.needs_pa && !hugepage_backed(m->vmr.pub.addr, length)) {
		MR_LOG(ERR, "%p is not in 2 MiB hugepages, which this device needs "
			    "(it DMAs by physical address)", m->vmr.pub.addr);
		return -EFAULT;
	}
	m->pgt_n = (uint32_t)(((a + length - 1) >> BLUE_PAGE_SHIFT) - (a >> BLUE_PAGE_SHIFT) + 1);
	key = mem_keys_alloc(&dev->mr_keys);
	pgt = key < 0 ? -1 : mem_pgt_alloc(&dev->pgt, m->pgt_n);
	if (key < 0 || pgt < 0) {
		if (key < 0)
			MR_LOG(ERR, "max_mr (%u MRs) reached", BLUE_MAX_MR);
		else
			MR_LOG(ERR, "pgt_entries (%u pages of 2 MiB) exhausted: %u more needed",
			       BLUE_PGT_ENTRIES, m->pgt_n);
		rc = -ENOSPC;
		goto undo_key;
	}
	m->pgt_start = (uint32_t)pgt;
	m->vmr.pub.lkey = m->vmr.pub.rkey = (uint32_t)key;
	m->iova = a;
	if (dev->pins.fn == NULL)
		mem_pins_init(&dev->pins, 4096, pin_piece, dev);
	rc = mem_pins_add(&dev->pins, a, length, (uint64_t)key);
	if (rc != 0)
		goto undo_pgt;
	rc = update_pgt(dev, m);
	if (rc == 0)
		rc = mr_table(dev, m, true);
	if (rc != 0) {
		mr_table(dev, m, false); /* nothing half-registered on the card either */
		mem_pins_del(&dev->pins, (uint64_t)key);
		goto undo_pgt;
	}
	dev->mr_by_slot[(uint32_t)key >> 8] = m;
	return 0;
undo_pgt:
	mem_pgt_free(&dev->pgt, m->pgt_start, m->pgt_n);
undo_key:
	if (key >= 0)
		mem_keys_free(&dev->mr_keys, (uint32_t)key);
	return rc;
}

int
blue_mr_dereg(struct ordk_dev *odev, struct verbs_mr *vm)
{
	struct blue_dev *dev = to_bdev(odev);
	struct blue_mr *m = (struct blue_mr *)vm;
	int rc;

	if (blue_mr_lookup(dev, m->vmr.pub.lkey) != m)
		return -EINVAL;
	/*
	 * The card forgets the key first: a stale rkey is refused from now on. If it
	 * does not confirm, nothing is released (its entry would still point at the
	 * PGT run and the pages): the MR stays registered and dereg may be retried.
	 */
	rc = mr_table(dev, m, false);
	if (rc != 0) {
		MR_LOG(ERR, "the card did not invalidate key 0x%x (%s); MR kept", m->vmr.pub.lkey,
		       rc == -ETIMEDOUT ? "timeout" : "refused");
		return rc;
	}
	dev->mr_by_slot[m->vmr.pub.lkey >> 8] = NULL;
	mem_pins_del(&dev->pins, m->vmr.pub.lkey);
	mem_pgt_free(&dev->pgt, m->pgt_start, m->pgt_n);
	mem_keys_free(&dev->mr_keys, m->vmr.pub.lkey);
	return 0;
}
