/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VFIO backend (kernel uAPI, linux/vfio.h): find the device in sysfs,
 * check its binding, open its group and a container, set the IOMMU type
 * (type1: the card sees IOVA = VA of memory mapped with VFIO_IOMMU_MAP_DMA;
 * no-IOMMU: the card sees physical addresses, hugepage memory only), reset
 * the function where it can be, and map the BAR. Nothing is left half-open.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_memory.h>

#include "blue_args.h"
#include "blue_regs.h"
#include "blue_vfio.h"
#include "ordk_devargs.h"

#define BIND_FIX "bind it: echo %s > /sys/bus/pci/devices/%s/driver/unbind; " \
		 "echo %04x %04x > /sys/bus/pci/drivers/vfio-pci/new_id (or dpdk-devbind.py -b vfio-pci %s)"

static int
read_hex(const char *root, const char *bdf, const char *file, unsigned int *v)
{
	char p[PATH_MAX], b[32];
	FILE *f;
	int ok;

	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/%s", root, bdf, file);
	f = fopen(p, "r");
	if (f == NULL)
		return -1;
	ok = fgets(b, sizeof(b), f) != NULL && sscanf(b, "%x", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* The last path element a sysfs link points to ("" when there is no link). */
static void
link_name(const char *root, const char *bdf, const char *which, char *out, size_t len)
{
	char p[PATH_MAX], t[PATH_MAX];
	ssize_t n;

	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/%s", root, bdf, which);
	n = readlink(p, t, sizeof(t) - 1);
	out[0] = '\0';
	if (n > 0) {
		const char *s;

		t[n] = '\0';
		s = strrchr(t, '/');
		snprintf(out, len, "%.63s", s ? s + 1 : t);
	}
}

/* "0000:01:00.0" or "01:00.0" (domain 0) */
static int
parse_bdf(const char *tok, size_t len, struct blue_vfio_target *t, char *err, uint32_t errlen)
{
	unsigned int dom = 0, bus, dev, fn;
	char b[32];

	snprintf(b, sizeof(b), "%.*s", (int)RTE_MIN(len, sizeof(b) - 1), tok);
	if (sscanf(b, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4 &&
	    (dom = 0, sscanf(b, "%x:%x.%x", &bus, &dev, &fn) != 3)) {
		snprintf(err, errlen, "'%s' is not a PCI address (0000:01:00.0 or 01:00.0)", b);
		return -EINVAL;
	}
	if (dom > 0xFFFF || bus > 0xFF || dev > 0x1F || fn > 7) {
		snprintf(err, errlen, "'%s' is not a PCI address", b);
		return -EINVAL;
	}
	snprintf(t->bdf, sizeof(t->bdf), "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return 0;
}

static int
arg_id(const char *key, const char *v, uint64_t max, unsigned int *out, char *err, size_t errlen)
{
	uint64_t x;

	if (ordk_devargs_u64(v, 0, max, &x) != 0) {
		snprintf(err, errlen, "'%s=%s': not a valid number", key, v);
		return -EINVAL;
	}
	*out = (unsigned int)x;
	return 0;
}

static int
arg_vendor(const char *v, void *arg, char *err, size_t errlen)
{
	return arg_id("vendor", v, 0xFFFF, &((struct blue_vfio_target *)arg)->vendor, err, errlen);
}

static int
arg_device(const char *v, void *arg, char *err, size_t errlen)
{
	return arg_id("device", v, 0xFFFF, &((struct blue_vfio_target *)arg)->device, err, errlen);
}

static int
arg_bar(const char *v, void *arg, char *err, size_t errlen)
{
	return arg_id("bar", v, 5, &((struct blue_vfio_target *)arg)->bar, err, errlen);
}

static int
arg_iova(const char *v, void *arg, char *err, size_t errlen)
{
	if (strcmp(v, "pa") != 0 && strcmp(v, "va") != 0) {
		snprintf(err, errlen, "'iova=%s': va or pa", v);
		return -EINVAL;
	}
	((struct blue_vfio_target *)arg)->iova_pa = v[0] == 'p';
	return 0;
}

static int
arg_snic_slot(const char *v, void *arg, char *err, size_t errlen)
{
	uint64_t x;

	if (ordk_devargs_u64(v, 128, 2048, &x) != 0 || (x & (x - 1)) != 0) {
		snprintf(err, errlen, "'snic_slot=%s': a power of two, 128..2048", v);
		return -EINVAL;
	}
	((struct blue_vfio_target *)arg)->snic_slot = (uint32_t)x;
	return 0;
}

static int
arg_snic_iova0(const char *v, void *arg, char *err, size_t errlen)
{
	uint64_t x;

	if (ordk_devargs_u64(v, 0, 1, &x) != 0) {
		snprintf(err, errlen, "'snic_iova0=%s': 0 or 1", v);
		return -EINVAL;
	}
	((struct blue_vfio_target *)arg)->snic_any_iova = x == 0;
	return 0;
}

const struct ordk_devarg blue_vfio_devargs[BLUE_VFIO_DEVARGS_COUNT] = {
	{ "vendor", arg_vendor }, { "device", arg_device },	    { "bar", arg_bar },
	{ "iova", arg_iova },	  { "snic_slot", arg_snic_slot }, { "snic_iova0", arg_snic_iova0 },
};

const char *
blue_vfio_keys(const char *args)
{
	const char *comma = args != NULL ? strchr(args, ',') : NULL;

	return comma != NULL ? comma + 1 : "";
}

/* The BDF first, then the keys (the driver's mac= and ip= as another owner's). */
static int
parse_args(const char *args, struct blue_vfio_target *t, char *err, uint32_t errlen)
{
	const struct ordk_devargs_set sets[2] = {
		{ blue_vfio_devargs, BLUE_VFIO_DEVARGS_COUNT, t, false },
		{ blue_net_devargs, BLUE_NET_DEVARGS_COUNT, NULL, true },
	};
	char keep[512];
	int rc;

	if (args == NULL || args[0] == '\0' || args[0] == ',' || strlen(args) >= sizeof(keep)) {
		snprintf(err, errlen, "give the card's PCI address: blue:<domain:bus:dev.fn>");
		return -EINVAL;
	}
	*t = (struct blue_vfio_target){ .vendor = BLUE_PCI_VENDOR, .device = BLUE_PCI_DEVICE,
					.group = -1 };
	rc = parse_bdf(args, strcspn(args, ","), t, err, errlen);
	if (rc != 0)
		return rc;
	return ordk_devargs_parse(blue_vfio_keys(args), sets, 2, keep, sizeof(keep), err, errlen);
}

int
blue_vfio_probe(const char *root, const char *args, struct blue_vfio_target *t, char *err,
		uint32_t errlen)
{
	char p[PATH_MAX], drv[64], grp[64];
	unsigned int v, d;
	int rc = parse_args(args, t, err, errlen);

	if (rc != 0)
		return rc;
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s", root, t->bdf);
	if (access(p, F_OK) != 0) {
		snprintf(err, errlen, "no PCI function %s (lspci -nn -d %04x: lists the cards; "
			 "ordk-doctor -d blue:<bdf> checks one)", t->bdf, t->vendor);
		return -ENODEV;
	}
	if (read_hex(root, t->bdf, "vendor", &v) != 0 || read_hex(root, t->bdf, "device", &d) != 0) {
		snprintf(err, errlen, "%s: cannot read its vendor and device IDs", t->bdf);
		return -EIO;
	}
	if (v != t->vendor || d != t->device) {
		snprintf(err, errlen, "%s is %04x:%04x, not the card %04x:%04x (wrong device; a test "
			 "rig names its stand-in with vendor= and device=)", t->bdf, v, d, t->vendor,
			 t->device);
		return -ENODEV;
	}
	link_name(root, t->bdf, "driver", drv, sizeof(drv));
	if (strcmp(drv, "vfio-pci") != 0) {
		int n = snprintf(err, errlen, "%s is bound to %s, not vfio-pci; ", t->bdf,
				 drv[0] ? drv : "no driver");

		if (n > 0 && (uint32_t)n < errlen)
			snprintf(err + n, errlen - (uint32_t)n, BIND_FIX, t->bdf, t->bdf, t->vendor,
				 t->device, t->bdf);
		return -EBUSY;
	}
	link_name(root, t->bdf, "iommu_group", grp, sizeof(grp));
	if (grp[0] == '\0' || sscanf(grp, "%d", &t->group) != 1) {
		snprintf(err, errlen, "%s has no IOMMU group: boot with intel_iommu=on iommu=pt, or "
			 "load vfio with enable_unsafe_noiommu_mode=1", t->bdf);
		return -ENODEV;
	}
	snprintf(t->group_path, sizeof(t->group_path), "/dev/vfio/noiommu-%d", t->group);
	snprintf(p, sizeof(p), "%s%s", root, t->group_path);
	t->noiommu = access(p, F_OK) == 0;
	if (!t->noiommu) {
		snprintf(t->group_path, sizeof(t->group_path), "/dev/vfio/%d", t->group);
		snprintf(p, sizeof(p), "%s%s", root, t->group_path);
		if (access(p, F_OK) != 0) {
			snprintf(err, errlen, "%s: no %s (is vfio-pci loaded? modprobe vfio-pci)",
				 t->bdf, t->group_path);
			return -ENODEV;
		}
	}
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/resource%u", root, t->bdf, t->bar);
	if (access(p, F_OK) != 0) {
		snprintf(err, errlen, "%s has no BAR %u", t->bdf, t->bar);
		return -ENODEV;
	}
	return 0;
}

/* ------------------------------------------------------------- the device */

struct vfio_priv {
	int container, group, device;
	int pagemap; /* /proc/self/pagemap when the card sees physical addresses */
	bool noiommu, iova_pa;
	void *bar;
	size_t bar_len;
};

/* A physical address from /proc/self/pagemap (open as @p fd; root only), or 0. */
static uint64_t
virt_to_phys(int fd, const void *va)
{
	uint64_t e = 0;

	if (fd < 0 || pread(fd, &e, sizeof(e), (off_t)((uintptr_t)va / 4096 * 8)) != sizeof(e))
		return 0;
	if (!(e & (1ull << 63)) || (e & ((1ull << 55) - 1)) == 0)
		return 0;
	return (e & ((1ull << 55) - 1)) * 4096 + (uintptr_t)va % 4096;
}

/*
 * Each 2 MiB piece of [va, va + len) must be physically contiguous (hugepage
 * memory); @p fn gets each piece with its physical address. @return 0 or -EFAULT.
 */
static int
for_each_piece(int pagemap, void *va, uint64_t len,
	       int (*fn)(void *arg, void *va, uint64_t pa, uint64_t len), void *arg)
{
	const uint64_t huge = 2u << 20;
	uint64_t a = (uintptr_t)va, end = a + len;

	for (uint64_t c = a; c < end; c = (c | (huge - 1)) + 1) {
		uint64_t last = RTE_MIN(end, (c | (huge - 1)) + 1) - 1;
		uint64_t p0 = virt_to_phys(pagemap, (const void *)(uintptr_t)c);
		uint64_t p1 = virt_to_phys(pagemap, (const void *)(uintptr_t)last);

		if (p0 == 0 || p1 == 0 || p1 - p0 != last - c)
			return -EFAULT; /* not hugepage memory (or not root) */
		if (fn != NULL && fn(arg, (void *)(uintptr_t)c, p0, last + 1 - c) != 0)
			return -EFAULT;
	}
	return 0;
}

/*
 * IOVA = PA under an IOMMU: whole hugepages are mapped, so blocks sharing one
 * never overlap partially (VFIO refuses a partial overlap with EEXIST and
 * maps nothing); a hugepage mapped already is fine. They stay mapped until
 * the container closes (blocks share them: no reference counts here).
 */
static int
map_piece(void *arg, void *va, uint64_t pa, uint64_t len)
{
	const uint64_t huge = 2u << 20;
	struct vfio_priv *p = arg;
	uint64_t off = (uintptr_t)va & (huge - 1);
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m), .flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)va - off, .iova = pa - off, .size = huge };

	(void)len;
	return ioctl(p->container, VFIO_IOMMU_MAP_DMA, &m) == 0 || errno == EEXIST ? 0 : -errno;
}

static int
vfio_dma_map(struct blue_backend *be, void *va, uint64_t len, uint64_t *iova)
{
	struct vfio_priv *p = be->priv;

	if (p->noiommu || p->iova_pa) {
		/*
		 * Physical addresses (no IOMMU, or an IOMMU mapped IOVA = PA). The
		 * address returned is the start's, meaningful for blocks within one
		 * hugepage (the PMD aligns its blocks so); MRs reach the card page
		 * by page through the PGT.
		 */
		*iova = virt_to_phys(p->pagemap, va);
		return for_each_piece(p->pagemap, va, len, p->noiommu ? NULL : map_piece, p);
	}
	{
		/*
		 * IOVA = VA, whole pages (VFIO maps pages). Blocks can share a page:
		 * a range that overlaps what is mapped already gets EEXIST and
		 * nothing mapped, so it is then mapped page by page, each page
		 * either mapped already or not at all.
		 */
		const struct rte_memseg *ms = rte_mem_virt2memseg(va, NULL);
		uint64_t pg = ms != NULL ? ms->hugepage_sz : 4096;
		uint64_t a = (uintptr_t)va & ~(pg - 1);
		uint64_t end = ((uintptr_t)va + len + pg - 1) & ~(pg - 1);
		struct vfio_iommu_type1_dma_map m = {
			.argsz = sizeof(m),
			.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
			.vaddr = a, .iova = a, .size = end - a };

		*iova = (uintptr_t)va;
		if (ioctl(p->container, VFIO_IOMMU_MAP_DMA, &m) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
		for (m.vaddr = a; m.vaddr < end; m.vaddr += pg) {
			m.iova = m.vaddr;
			m.size = pg;
			if (ioctl(p->container, VFIO_IOMMU_MAP_DMA, &m) != 0 && errno != EEXIST)
				return -errno;
		}
		return 0;
	}
}

int
blue_vfio_bus_master(int fd, uint64_t cfg_off, char *err, uint32_t errlen)
{
	uint16_t cmd = 0, back = 0;
	off_t at = (off_t)(cfg_off + BLUE_PCI_COMMAND);

	if (pread(fd, &cmd, 2, at) != 2) {
		snprintf(err, errlen, "PCI_COMMAND: cannot read the config space: %s",
			 strerror(errno ? errno : EIO));
		return -EIO;
	}
	cmd = rte_le_to_cpu_16(cmd);
	if (!(cmd & BLUE_PCI_COMMAND_MASTER)) {
		uint16_t v = rte_cpu_to_le_16((uint16_t)(cmd | BLUE_PCI_COMMAND_MASTER));

		if (pwrite(fd, &v, 2, at) != 2) {
			snprintf(err, errlen, "PCI_COMMAND: cannot set bus mastering: %s",
				 strerror(errno ? errno : EIO));
			return -EIO;
		}
	}
	if (pread(fd, &back, 2, at) != 2 || !(rte_le_to_cpu_16(back) & BLUE_PCI_COMMAND_MASTER)) {
		snprintf(err, errlen, "PCI_COMMAND reads 0x%04x after setting bus mastering: the "
			 "card cannot DMA", rte_le_to_cpu_16(back));
		return -EIO;
	}
	return 0;
}

/*
 * Under an IOMMU with IOVA = VA the IOVA is ours to choose: the SimpleNic RX
 * buffer goes to 0. (With iova=pa the device is taken to see physical
 * addresses, as in no-IOMMU mode: no IOVA can be chosen.)
 */
static int
vfio_dma_map_at(struct blue_backend *be, void *va, uint64_t len, uint64_t iova)
{
	struct vfio_priv *p = be->priv;
	struct vfio_iommu_type1_dma_map m = {
		.argsz = sizeof(m), .flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)va, .iova = iova, .size = RTE_ALIGN_CEIL(len, 4096) };

	if (p->noiommu || p->iova_pa || ((uintptr_t)va | iova) % 4096 != 0)
		return -EINVAL;
	return ioctl(p->container, VFIO_IOMMU_MAP_DMA, &m) == 0 ? 0 : -errno;
}

/*
 * Mappings are whole pages that several blocks and MRs can share, and VFIO
 * counts nothing: they stay until the container closes with the device
 * (pages stay pinned until ordk_dev_close()).
 */
static int
vfio_dma_unmap(struct blue_backend *be, void *va, uint64_t len)
{
	(void)be;
	(void)va;
	(void)len;
	return 0;
}

static void
vfio_release(struct vfio_priv *p)
{
	if (p->bar != NULL && p->bar != MAP_FAILED)
		munmap(p->bar, p->bar_len);
	if (p->device >= 0)
		close(p->device);
	if (p->group >= 0)
		close(p->group);
	if (p->container >= 0)
		close(p->container);
	if (p->pagemap >= 0)
		close(p->pagemap);
	free(p);
}

static void
vfio_close(struct blue_backend *be)
{
	if (be->priv != NULL)
		vfio_release(be->priv);
	be->priv = NULL;
}

static const struct blue_backend_ops vfio_ops = {
	.dma_map = vfio_dma_map,
	.dma_unmap = vfio_dma_unmap,
	.dma_map_at = vfio_dma_map_at,
	.close = vfio_close,
};

/* no-IOMMU or iova=pa: the card sees physical addresses; no IOVA can be chosen */
static const struct blue_backend_ops vfio_pa_ops = {
	.dma_map = vfio_dma_map,
	.dma_unmap = vfio_dma_unmap,
	.close = vfio_close,
};

/* vfio-pci does not set bus mastering and a function reset clears it: without it no DMA */
static int
bus_master_on(struct vfio_priv *p, char *err, uint32_t errlen)
{
	struct vfio_region_info ri = { .argsz = sizeof(ri), .index = VFIO_PCI_CONFIG_REGION_INDEX };

	if (ioctl(p->device, VFIO_DEVICE_GET_REGION_INFO, &ri) != 0) {
		snprintf(err, errlen, "config space region: %s", strerror(errno));
		return -EIO;
	}
	return blue_vfio_bus_master(p->device, ri.offset, err, errlen);
}

/* @p code and the message are taken before the release can change errno */
#define FAIL(code, ...)                                      \
	do {                                                 \
		int code_ = (code);                          \
		snprintf(err, errlen, __VA_ARGS__);          \
		vfio_release(p);                             \
		return code_;                                \
	} while (0)

int
blue_vfio_backend_open(const char *args, struct blue_backend *be, char *err, uint32_t errlen)
{
	struct blue_vfio_target t;
	struct vfio_group_status gs = { .argsz = sizeof(gs) };
	struct vfio_device_info di = { .argsz = sizeof(di) };
	struct vfio_region_info ri = { .argsz = sizeof(ri) };
	struct vfio_priv *p;
	int rc = blue_vfio_probe("", args, &t, err, errlen);

	if (rc != 0)
		return rc;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->container = p->group = p->device = p->pagemap = -1;
	p->noiommu = t.noiommu;
	p->iova_pa = t.iova_pa;
	if (t.noiommu || t.iova_pa) { /* opened once: DMA maps look up every 2 MiB piece */
		p->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
		if (p->pagemap < 0)
			FAIL(-EPERM, "/proc/self/pagemap: %s (physical addresses need root)",
			     strerror(errno));
	}
	p->container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
	if (p->container < 0)
		FAIL(-ENODEV, "/dev/vfio/vfio: %s (modprobe vfio-pci)", strerror(errno));
	if (ioctl(p->container, VFIO_GET_API_VERSION) != VFIO_API_VERSION)
		FAIL(-ENOTSUP, "VFIO API version %d, %d expected",
		     ioctl(p->container, VFIO_GET_API_VERSION), VFIO_API_VERSION);
	if (ioctl(p->container, VFIO_CHECK_EXTENSION,
		  t.noiommu ? VFIO_NOIOMMU_IOMMU : VFIO_TYPE1v2_IOMMU) != 1)
		FAIL(-ENOTSUP, "the kernel's VFIO lacks %s", t.noiommu ? "no-IOMMU mode" : "type1v2");
	p->group = open(t.group_path, O_RDWR | O_CLOEXEC);
	if (p->group < 0)
		FAIL(errno == EBUSY ? -EBUSY : -ENODEV, "%s: %s%s", t.group_path, strerror(errno),
		     errno == EBUSY ? " (another process holds the device)" : "");
	if (ioctl(p->group, VFIO_GROUP_GET_STATUS, &gs) != 0 ||
	    !(gs.flags & VFIO_GROUP_FLAGS_VIABLE))
		FAIL(-EPERM, "IOMMU group %d is not viable: bind every device of "
		     "/sys/kernel/iommu_groups/%d/devices to vfio-pci", t.group, t.group);
	if (ioctl(p->group, VFIO_GROUP_SET_CONTAINER, &p->container) != 0)
		FAIL(-errno, "VFIO_GROUP_SET_CONTAINER: %s", strerror(errno));
	if (ioctl(p->container, VFIO_SET_IOMMU,
		  t.noiommu ? VFIO_NOIOMMU_IOMMU : VFIO_TYPE1v2_IOMMU) != 0)
		FAIL(-errno, "VFIO_SET_IOMMU: %s%s", strerror(errno),
		     errno == EPERM ? " (no interrupt remapping: vfio_iommu_type1 "
				      "allow_unsafe_interrupts=1)" : "");
	p->device = ioctl(p->group, VFIO_GROUP_GET_DEVICE_FD, t.bdf);
	if (p->device < 0)
		FAIL(-errno, "VFIO_GROUP_GET_DEVICE_FD(%s): %s", t.bdf, strerror(errno));
	if (ioctl(p->device, VFIO_DEVICE_GET_INFO, &di) != 0)
		FAIL(-errno, "VFIO_DEVICE_GET_INFO: %s", strerror(errno));
	if (di.flags & VFIO_DEVICE_FLAGS_RESET) /* a clean card: a function reset at open */
		(void)ioctl(p->device, VFIO_DEVICE_RESET);
	rc = bus_master_on(p, err, errlen);
	if (rc != 0) {
		vfio_release(p);
		return rc;
	}
	ri.index = VFIO_PCI_BAR0_REGION_INDEX + t.bar;
	if (ioctl(p->device, VFIO_DEVICE_GET_REGION_INFO, &ri) != 0)
		FAIL(-errno, "BAR %u: %s", t.bar, strerror(errno));
	if (!(ri.flags & VFIO_REGION_INFO_FLAG_MMAP) || ri.size < BLUE_BAR0_SIZE)
		FAIL(-ENOTSUP, "BAR %u cannot be mapped or is smaller than the card's 0x%x bytes "
		     "(size 0x%llx)", t.bar, BLUE_BAR0_SIZE, (unsigned long long)ri.size);
	p->bar_len = ri.size;
	p->bar = mmap(NULL, ri.size, PROT_READ | PROT_WRITE, MAP_SHARED, p->device,
		      (off_t)ri.offset);
	if (p->bar == MAP_FAILED)
		FAIL(-errno, "mmap of BAR %u refused: %s", t.bar, strerror(errno));
	be->ops = t.noiommu || t.iova_pa ? &vfio_pa_ops : &vfio_ops;
	be->priv = p;
	be->bar0 = p->bar;
	be->needs_pa = t.noiommu || t.iova_pa;
	be->window_locks = true; /* the card is the RTL */
	be->snic_slot = t.snic_slot;
	be->snic_any_iova = t.snic_any_iova;
	snprintf(be->name, sizeof(be->name), "blue:%s", t.bdf);
	return 0;
}

/* The driver's own backend: it parses the driver's keys with its own (parse_args()). */
static int
vfio_provider_open(const char *args, const struct ordk_devargs_set *driver_keys,
		   struct blue_backend *be, char *err, uint32_t errlen)
{
	(void)driver_keys;
	return blue_vfio_backend_open(args, be, err, errlen);
}

/* In the build's backend table (blue_backends.c, from drivers/rdma/blue/meson.build). */
const struct blue_backend_provider blue_backend_vfio = {
	.name = "vfio",
	.keys = blue_vfio_devargs,
	.n_keys = BLUE_VFIO_DEVARGS_COUNT,
	.key_part = blue_vfio_keys,
	.open = vfio_provider_open,
};
