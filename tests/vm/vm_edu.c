/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VM rig's IOMMU check (the vIOMMU boot): is the SimpleNic RX buffer
 * really at IOVA 0? The rig's card stand-in (ivshmem) does no DMA through
 * QEMU's IOMMU, so this uses QEMU's "edu" device, which does: its DMA engine
 * (QEMU docs/specs/edu.txt, hw/misc/edu.c) copies between guest memory, by
 * the address the IOMMU translates, and a 4 KiB buffer of its own.
 *
 * edu is bound to vfio-pci and opened through ORDK's VFIO backend (type1,
 * IOVAs chosen by ORDK, bus mastering set), and the PMD's own SimpleNic RX
 * set-up, blue_snic_rx_alloc(), puts the RX buffer at IOVA 0 through the
 * backend's dma_map_at, as for the card. Then edu's DMA:
 *   1. reads a pattern from a source buffer mapped at SRC_IOVA into its buffer;
 *   2. writes it to IOVA 0 (slot 0) and to IOVA 0 + 5 * slot size (slot 5):
 *      the bytes must be in the RX buffer where the PMD reads slots 0 and 5,
 *      and the slots between untouched;
 *   3. writes to the RX buffer's guest-physical address, an IOVA nothing is
 *      mapped at: nothing may arrive (the IOMMU translates, it does not pass
 *      addresses through; the guest logs a DMAR fault).
 *
 *   vm_edu <bdf of edu>      ("VMTEST ok|FAIL <what>" lines and a summary)
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "blue_hw.h"
#include "blue_vfio.h"
#include "vm_common.h"

/* edu's registers (BAR 0) and its buffer, from QEMU's hw/misc/edu.c */
#define EDU_ID		0x00 /* reads 0x010000ed: version 1.0, "ed" */
#define EDU_LIVE	0x04 /* reads back the inverse of what was written */
#define EDU_DMA_SRC	0x80
#define EDU_DMA_DST	0x88
#define EDU_DMA_CNT	0x90
#define EDU_DMA_CMD	0x98 /* bit 0: start (clear when done), bit 1: edu -> RAM */
#define EDU_BUF		0x40000u /* its 4 KiB buffer, as a DMA address on edu's side */
#define EDU_BUF_LEN	4096u
/* QEMU 7.2's edu stops QEMU (hw_error) when a transfer ends at the buffer's
 * end, an off-by-one later fixed: transfers of half the buffer */
#define XFER		2048u

#define SRC_IOVA (4u << 20) /* above the 2 MiB RX buffer at IOVA 0 */
#define SLOT_B	 5u

static volatile uint8_t *bar;

static uint32_t
rd32(uint32_t off)
{
	return *(volatile uint32_t *)(bar + off);
}

/* One DMA transfer, waited for (edu starts it 100 ms of virtual time later). */
static bool
edu_dma(uint64_t src, uint64_t dst, uint64_t cnt, bool to_ram)
{
	*(volatile uint64_t *)(bar + EDU_DMA_SRC) = src;
	*(volatile uint64_t *)(bar + EDU_DMA_DST) = dst;
	*(volatile uint64_t *)(bar + EDU_DMA_CNT) = cnt;
	*(volatile uint64_t *)(bar + EDU_DMA_CMD) = 1u | (to_ram ? 2u : 0u);
	for (int i = 0; i < 10000; i++) { /* up to 10 s under TCG */
		if (!(rd32(EDU_DMA_CMD) & 1))
			return true;
		usleep(1000);
	}
	return false;
}

/* The guest-physical address of @p va (root: /proc/self/pagemap), or 0. */
static uint64_t
guest_pa(const void *va)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0 || pread(fd, &e, 8, (off_t)((uintptr_t)va / 4096 * 8)) != 8 || !(e >> 63))
		e = 0;
	if (fd >= 0)
		close(fd);
	return e ? (e & ((1ull << 55) - 1)) * 4096 + (uintptr_t)va % 4096 : 0;
}

static bool
all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* Steps 1 and 2: the pattern through edu's buffer into slots 0 and SLOT_B. */
static void
into_slots(struct blue_hw *dev, uint8_t *src)
{
	uint32_t slot = dev->snic_slot, n = RTE_MIN(slot, XFER);
	char why[96];
	bool ok;

	for (uint32_t i = 0; i < XFER; i++)
		src[i] = (uint8_t)(i * 13 + 7);
	vm_result(edu_dma(SRC_IOVA, EDU_BUF, XFER, false),
		  "edu DMA reads the source buffer at its chosen IOVA", "did not finish");
	ok = edu_dma(EDU_BUF, 0, n, true);
	snprintf(why, sizeof(why), "slot 0 holds %02x %02x %02x %02x, want %02x %02x %02x %02x",
		 dev->snic_rx_buf[0], dev->snic_rx_buf[1], dev->snic_rx_buf[2],
		 dev->snic_rx_buf[3], src[0], src[1], src[2], src[3]);
	vm_result(ok && memcmp(dev->snic_rx_buf, src, n) == 0,
		  "edu DMA to IOVA 0 lands in slot 0 of the PMD's SimpleNic RX buffer", why);
	ok = edu_dma(EDU_BUF, (uint64_t)SLOT_B * slot, n, true);
	vm_result(ok && memcmp(dev->snic_rx_buf + (size_t)SLOT_B * slot, src, n) == 0,
		  "edu DMA to IOVA 0 + 5 * slot size lands in slot 5", "slot 5 differs");
	vm_result(all_zero(dev->snic_rx_buf + slot, (size_t)(SLOT_B - 1) * slot),
		  "slots 1-4 untouched", "written");
}

/* Step 3: the RX buffer's own physical address is not an IOVA of it. */
static void
not_by_pa(struct blue_hw *dev)
{
	const size_t off = 7u * dev->snic_slot;
	uint64_t pa = guest_pa(dev->snic_rx_buf + off);

	printf("VMTEST RX buffer slot 7: IOVA 0x%zx, guest-physical 0x%" PRIx64 "\n", off, pa);
	if (pa < SRC_IOVA + EDU_BUF_LEN) { /* 0, or inside what is mapped: no proof */
		vm_result(false, "the RX buffer's guest-physical address", "not known or mapped");
		return;
	}
	vm_result(edu_dma(EDU_BUF, pa, XFER, true) && all_zero(dev->snic_rx_buf + off, XFER),
		  "edu DMA to the buffer's physical address does not reach it (translated)",
		  "the bytes arrived: no translation");
}

int
main(int argc, char **argv)
{
	/* rte_eal_init() takes char **: writable words (compound literals) */
	char *eal[] = { argv[0], (char[]){ "-l" }, (char[]){ "0" }, (char[]){ "--no-pci" },
			(char[]){ "-m" }, (char[]){ "16" }, (char[]){ "--no-telemetry" },
			(char[]){ "--log-level=4" }, (char[]){ "--file-prefix=ordk-vmedu" }, NULL };
	static struct blue_hw dev; /* the PMD's device, only its backend and RX buffer used */
	char args[128], err[256] = "";
	uint8_t *src = NULL;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2 || rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		vm_result(false, "eal", rte_strerror(rte_errno));
		return vm_summary();
	}
	/* QEMU's edu: vendor 0x1234, device 0x11e8, registers in BAR 0 */
	snprintf(args, sizeof(args), "%s,vendor=0x1234,device=0x11e8,bar=0", argv[1]);
	rc = blue_vfio_backend_open(args, &dev.be, err, sizeof(err));
	vm_result(rc == 0, "edu opened through ORDK's VFIO backend (type1, IOVAs chosen)", err);
	if (rc != 0)
		goto out;
	bar = dev.be.bar0;
	vm_check_bus_master(argv[1]);
	*(volatile uint32_t *)(bar + EDU_LIVE) = 0x12345678;
	vm_result(rd32(EDU_ID) == 0x010000ed && rd32(EDU_LIVE) == ~0x12345678u,
		  "edu's registers through the mapped BAR", "wrong identification");
	rc = blue_snic_rx_alloc(&dev);
	vm_result(rc == 0 && dev.snic_rx_iova == 0 && dev.snic_rx_fixed,
		  "the PMD's SimpleNic RX buffer mapped at IOVA 0 (dma_map_at)", strerror(-rc));
	src = rte_zmalloc("vm_edu_src", EDU_BUF_LEN, 4096);
	rc = src == NULL ? -ENOMEM : dev.be.ops->dma_map_at(&dev.be, src, EDU_BUF_LEN, SRC_IOVA);
	vm_result(rc == 0, "a source buffer mapped at a chosen IOVA", strerror(-rc));
	if (rc == 0 && dev.snic_rx_buf != NULL) {
		into_slots(&dev, src);
		not_by_pa(&dev);
	}
	blue_hw_close(&dev); /* the RX buffer, then the backend: container and mappings */
	rte_free(src);
out:
	rte_eal_cleanup();
	return vm_summary();
}
