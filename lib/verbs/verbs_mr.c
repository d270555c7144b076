/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory registration (HW-INTERFACE.md section 4): a key and an MR-table
 * slot, a run of PGT entries (one per 2 MiB page spanned), the pages pinned
 * and DMA-mapped once however many MRs cover them, UpdatePGT commands of up
 * to 64 entries (pipelined), then UpdateMrTable. Deregistration invalidates
 * the card's entry (length 0) before anything is released.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_memory.h>

#include "verbs_internal.h"

/*
 * Pin and DMA-map a piece no other MR covers (and the reverse). DPDK's own
 * memory is already pinned; other memory is mlock()ed.
 */
static int
pin_piece(void *arg, uint64_t addr, uint64_t len, bool pin)
{
	struct ordk_dev *dev = arg;
	void *va = (void *)(uintptr_t)addr;
	bool dpdk_mem = rte_mem_virt2memseg_list(va) != NULL;
	uint64_t iova;

	if (pin) {
		if (!dpdk_mem && mlock(va, len) != 0) {
			VERBS_LOG(ERR, "mlock of %" PRIu64 " bytes at %p failed: %s (RLIMIT_MEMLOCK?)",
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

struct ordk_mr_int *
verbs_mr_lookup(struct ordk_dev *dev, uint32_t key)
{
	struct ordk_mr_int *m = dev->mr_by_slot[(key >> 8) % BLUE_MAX_MR];

	return (m != NULL && m->pub.lkey == key) ? m : NULL;
}

#define MR_POPULATE_MAX (1u << 20) /* ranges checked by MADV_POPULATE_*, larger by the maps */

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

/*
 * /proc/self/maps: is every byte of [a, end) mapped with @p perm ('r' or 'w')?
 * The fallback for kernels without MADV_POPULATE_*.
 */
static bool
maps_allow(uint64_t a, uint64_t end, char perm)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	bool ok = false;

	if (f == NULL)
		return true; /* cannot tell: let the pinning decide */
	while (a < end && fgets(line, sizeof(line), f) != NULL) {
		uint64_t lo, hi;
		char p[5];

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", &lo, &hi, p) != 3 || hi <= a)
			continue;
		if (lo > a || strchr(p, perm) == NULL)
			break; /* a hole, or a mapping without the permission */
		a = hi;
	}
	ok = a >= end;
	fclose(f);
	return ok;
}

/*
 * Can the process back what the MR grants? The card writes where LOCAL_WRITE,
 * REMOTE_WRITE or REMOTE_ATOMIC allow, and reads the rest: memory mapped
 * read-only (or not at all) would fault in the model's copies, or be written
 * behind the mapping's back by a card. ibv_reg_mr refuses it the same way
 * (get_user_pages with FOLL_WRITE). MADV_POPULATE_WRITE/READ ask the kernel
 * exactly that, and fault the pages in, which pinning does anyway.
 */
static int
mr_backable(void *addr, size_t len, unsigned int access)
{
	static int populate = -1; /* -1 not probed, 0 unsupported, 1 supported */
	static uint8_t probe[2 * 4096];
	uint64_t pgsz = (uint64_t)sysconf(_SC_PAGESIZE);
	bool write = access & (ORDK_ACCESS_LOCAL_WRITE | ORDK_ACCESS_REMOTE_WRITE |
			       ORDK_ACCESS_REMOTE_ATOMIC);
	uint64_t a = RTE_ALIGN_FLOOR((uint64_t)(uintptr_t)addr, pgsz);
	uint64_t end = (uint64_t)(uintptr_t)addr + len;
	int rc;

	if (populate < 0) /* probe on a page we know is writable */
		populate = pgsz <= 4096 && madvise(RTE_PTR_ALIGN_CEIL(&probe[0], pgsz), pgsz,
						   MADV_POPULATE_WRITE) == 0;
	/*
	 * Populating walks every page (5 ms for 128 MiB already in memory), the
	 * maps file costs what the process's mappings do: large ranges use that.
	 */
	if (!populate || end - a > MR_POPULATE_MAX) {
		if (maps_allow(a, end, write ? 'w' : 'r'))
			return 0;
		VERBS_LOG(ERR, "mr_reg: [%p, +%zu) is not all mapped %s (access 0x%x needs it)",
			  addr, len, write ? "writable" : "readable", access);
		return -EFAULT;
	}
	rc = madvise((void *)(uintptr_t)a, end - a,
		     write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
	if (rc == 0)
		return 0;
	VERBS_LOG(ERR, "mr_reg: [%p, +%zu) is %s (access 0x%x needs it %s)", addr, len,
		  errno == ENOMEM ? "not mapped" :
		  errno == EINVAL ? (write ? "not writable" : "not readable") :
				    "not backed (SIGBUS on access)",
		  access, write ? "writable" : "readable");
	return -EFAULT;
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
update_pgt(struct ordk_dev *dev, struct ordk_mr_int *m)
{
	uint64_t page = (uint64_t)(uintptr_t)m->pub.addr & ~(uint64_t)(BLUE_PAGE_SIZE - 1);
	int64_t seqs[BLUE_PGT_STAGING_SLOTS];
	uint32_t done = 0, nseq = 0;
	bool ok = true;

	while (done < m->pgt_n) {
		uint32_t n = RTE_MIN(m->pgt_n - done, BLUE_PGT_MAX_PER_CMD);
		struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_PGT, .valid = 1 } };
		uint64_t iova, *e;
		int64_t seq;

		/* a staging slot is reused only after the command that used it completed */
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
mr_table(struct ordk_dev *dev, const struct ordk_mr_int *m, bool valid)
{
	struct blue_cmd c = { .hdr = { .opcode = BLUE_CMD_UPDATE_MR_TABLE, .valid = 1 } };

	c.mr = (struct blue_cmd_update_mr_table){
		.mr_base_va = (uint64_t)(uintptr_t)m->pub.addr,
		.mr_length = valid ? (uint32_t)m->pub.length : 0, .mr_key = m->pub.lkey,
		.pd_handle = m->pub.pd->handle,
		/*
		 * Without LOCAL_WRITE: the card's only use of it is to accept SEND
		 * packets (HW-INTERFACE.md 5.1), and SENDs land only through the
		 * per-RECV keys of lib/rc/rc_recv.c, never through the user's MRs.
		 */
		.acc_flags = (uint8_t)(m->pub.access & ~(unsigned int)BLUE_ACC_LOCAL_WRITE),
		.pgt_offset = m->pgt_start };
	return blue_cmd_exec(&dev->hw, &c);
}

/* What ordk_mr_reg() refuses before touching anything: @return 0 or a negative errno. */
static int
mr_check(struct ordk_dev *dev, void *addr, size_t length, unsigned int access)
{
	uint64_t a = (uint64_t)(uintptr_t)addr;

	if (length == 0 || a + length < a || length > 0x7FFFFFFFull ||
	    (access & ~(unsigned int)BLUE_ACC_ALL) != 0 ||
	    /* ibverbs: remote write or atomic needs local write */
	    ((access & (ORDK_ACCESS_REMOTE_WRITE | ORDK_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & ORDK_ACCESS_LOCAL_WRITE))) {
		VERBS_LOG(ERR, "mr_reg: invalid length %zu or access 0x%x", length, access);
		return -EINVAL;
	}
	if (dev->hw.be.needs_pa && !hugepage_backed(addr, length)) {
		VERBS_LOG(ERR, "mr_reg: %p is not in 2 MiB hugepages, which this device needs "
			       "(it DMAs by physical address)", addr);
		return -EFAULT;
	}
	return mr_backable(addr, length, access);
}

struct ordk_mr *
ordk_mr_reg(struct ordk_pd *pd, void *addr, size_t length, unsigned int access)
{
	struct ordk_dev *dev;
	struct ordk_mr_int *m;
	uint64_t a = (uint64_t)(uintptr_t)addr;
	int64_t key, pgt;
	int rc;

	if (!pd_live(pd) || addr == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	dev = pd->dev;
	rc = mr_check(dev, addr, length, access);
	if (rc != 0) {
		rte_errno = -rc;
		return NULL;
	}
	m = verbs_handle_alloc(sizeof(*m), 0);
	if (m == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	m->pgt_n = (uint32_t)(((a + length - 1) >> BLUE_PAGE_SHIFT) - (a >> BLUE_PAGE_SHIFT) + 1);
	key = mem_keys_alloc(&dev->mr_keys);
	pgt = key < 0 ? -1 : mem_pgt_alloc(&dev->pgt, m->pgt_n);
	if (key < 0 || pgt < 0) {
		if (key < 0)
			VERBS_LOG(ERR, "mr_reg: max_mr (%u MRs) reached", BLUE_MAX_MR);
		else
			VERBS_LOG(ERR, "mr_reg: pgt_entries (%u pages of 2 MiB) exhausted: %u more "
				       "needed", BLUE_PGT_ENTRIES, m->pgt_n);
		rc = -ENOSPC;
		goto undo_key;
	}
	m->pgt_start = (uint32_t)pgt;
	m->pub = (struct ordk_mr){ .pd = pd, .addr = addr, .length = length,
				   .lkey = (uint32_t)key, .rkey = (uint32_t)key, .access = access };
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
	m->magic = VERBS_MAGIC_MR;
	dev->nmr++;
	pd->refs++;
	return &m->pub;
undo_pgt:
	mem_pgt_free(&dev->pgt, m->pgt_start, m->pgt_n);
undo_key:
	if (key >= 0)
		mem_keys_free(&dev->mr_keys, (uint32_t)key);
	verbs_handle_free(m, sizeof(*m));
	rte_errno = -rc;
	return NULL;
}

int
ordk_mr_dereg(struct ordk_mr *mr)
{
	struct ordk_mr_int *m = (struct ordk_mr_int *)mr;
	struct ordk_dev *dev;
	int rc;

	if (!mr_live(m))
		return -EINVAL;
	dev = mr->pd->dev;
	if (verbs_mr_lookup(dev, mr->lkey) != m)
		return -EINVAL;
	/*
	 * The card forgets the key first: a stale rkey is refused from now on. If it
	 * does not confirm, nothing is released (its entry would still point at the
	 * PGT run and the pages): the MR stays registered and dereg may be retried.
	 */
	rc = mr_table(dev, m, false);
	if (rc != 0) {
		VERBS_LOG(ERR, "mr_dereg: the card did not invalidate key 0x%x (%s); MR kept",
			  mr->lkey, rc == -ETIMEDOUT ? "timeout" : "refused");
		return rc;
	}
	dev->mr_by_slot[mr->lkey >> 8] = NULL;
	mem_pins_del(&dev->pins, mr->lkey);
	mem_pgt_free(&dev->pgt, m->pgt_start, m->pgt_n);
	mem_keys_free(&dev->mr_keys, mr->lkey);
	dev->nmr--;
	mr->pd->refs--;
	verbs_handle_free(m, sizeof(*m));
	return 0;
}

int
verbs_mr_atomic(uint64_t *p, bool cas, uint64_t compare_add, uint64_t swap, uint64_t *orig)
{
	sigjmp_buf env;
	uint64_t v;

	/* memory unmapped under the MR: the atomic fails, the process lives */
	if (sigsetjmp(env, 0) != 0)
		return -EFAULT;
	mem_guard_env = &env;
	if (cas) {
		uint64_t expect = compare_add;

		__atomic_compare_exchange_n(p, &expect, swap, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		v = expect;
	} else {
		v = __atomic_fetch_add(p, compare_add, __ATOMIC_SEQ_CST);
	}
	mem_guard_env = NULL;
	*orig = v;
	return 0;
}
