/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VFIO backend's decisions, on fabricated /sys and /dev trees: the
 * address, the IDs, the binding, the IOMMU group and mode, the BAR, and a
 * message that names the fix for each failure. (The ioctls run in the VM
 * rig, where a kernel with VFIO exists.)
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blue_vfio.h"
#include "fake_tree.h"

static char root[64];

static void
put(const char *rel, const char *text)
{
	fake_put(root, rel, text);
}

static void
link_to(const char *rel, const char *target)
{
	fake_link(root, rel, target);
}

/* A function with IDs, optionally bound, in an IOMMU group, with a BAR. */
static void
device(const char *bdf, const char *vendor, const char *dev, const char *driver, int group)
{
	char p[PATH_MAX], t[PATH_MAX];

	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", bdf);
	put(p, vendor);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", bdf);
	put(p, dev);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/resource0", bdf);
	put(p, "");
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/resource2", bdf);
	put(p, "");
	if (driver) {
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/driver", bdf);
		snprintf(t, sizeof(t), "../../../bus/pci/drivers/%s", driver);
		link_to(p, t);
	}
	if (group >= 0) {
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/iommu_group", bdf);
		snprintf(t, sizeof(t), "../../../kernel/iommu_groups/%d", group);
		link_to(p, t);
	}
}

FAKE_TREE_SUITE(blue_vfio, root);

static int
probe(const char *args, struct blue_vfio_target *t, char *err)
{
	return blue_vfio_probe(root, args, t, err, 512);
}

#define expect_refused(args, code, says)                                                  \
	do {                                                                              \
		struct blue_vfio_target t_;                                               \
		char e_[512] = "";                                                        \
		int rc_ = probe(args, &t_, e_);                                           \
		cr_expect_eq(rc_, code, "%s: %d (%s)", args, rc_, e_);                    \
		cr_expect(strstr(e_, says) != NULL, "%s: '%s' lacks '%s'", args, e_, says); \
	} while (0)

Test(blue_vfio, the_card_bound_to_vfio_pci_with_an_iommu)
{
	struct blue_vfio_target t;
	char err[512];

	device("0000:03:00.0", "0x1172\n", "0x0000\n", "vfio-pci", 17);
	put("/dev/vfio/17", "");
	cr_assert_eq(probe("0000:03:00.0", &t, err), 0, "%s", err);
	cr_expect_str_eq(t.bdf, "0000:03:00.0");
	cr_expect_eq(t.group, 17);
	cr_expect_not(t.noiommu);
	cr_expect_str_eq(t.group_path, "/dev/vfio/17");
	cr_expect_eq(t.bar, 0);
	/* a short address means domain 0 */
	cr_assert_eq(probe("03:00.0", &t, err), 0, "%s", err);
	cr_expect_str_eq(t.bdf, "0000:03:00.0");
}

Test(blue_vfio, the_vm_rigs_stand_in_in_no_iommu_mode)
{
	struct blue_vfio_target t;
	char err[512];

	device("0000:00:02.0", "0x1af4\n", "0x1110\n", "vfio-pci", 0);
	put("/dev/vfio/noiommu-0", "");
	cr_assert_eq(probe("0000:00:02.0,vendor=0x1af4,device=0x1110,bar=2,mac=02:00:00:00:00:09",
			   &t, err), 0, "%s", err);
	cr_expect(t.noiommu);
	cr_expect_str_eq(t.group_path, "/dev/vfio/noiommu-0");
	cr_expect_eq(t.bar, 2);
	cr_expect_eq(t.vendor, 0x1af4);
	expect_refused("0000:00:02.0,vendor=0x1af4,device=0x1110,bar=4", -ENODEV, "has no BAR 4");
	cr_assert_eq(probe("0000:00:02.0,vendor=0x1af4,device=0x1110,bar=2,iova=pa", &t, err), 0,
		     "%s", err);
	cr_expect(t.iova_pa);
	expect_refused("0000:00:02.0,iova=kernel", -EINVAL, "va or pa");
}

Test(blue_vfio, every_failure_names_its_fix)
{
	device("0000:03:00.0", "0x1172\n", "0x0000\n", "mlx5_core", 5);
	device("0000:04:00.0", "0x8086\n", "0x1234\n", "vfio-pci", 6);
	device("0000:05:00.0", "0x1172\n", "0x0000\n", NULL, -1);
	device("0000:06:00.0", "0x1172\n", "0x0000\n", "vfio-pci", -1);
	device("0000:07:00.0", "0x1172\n", "0x0000\n", "vfio-pci", 8);

	expect_refused("", -EINVAL, "give the card's PCI address");
	expect_refused("nonsense", -EINVAL, "is not a PCI address");
	expect_refused("0000:03:00.9", -EINVAL, "is not a PCI address");
	expect_refused("0000:03:00.0,colour=red", -EINVAL, "unknown key");
	expect_refused("0000:03:00.0,bar=9", -EINVAL, "not a valid number");
	expect_refused("0000:09:00.0", -ENODEV, "no PCI function 0000:09:00.0");
	expect_refused("0000:04:00.0", -ENODEV, "is 8086:1234, not the card 1172:0000 (wrong device");
	expect_refused("0000:03:00.0", -EBUSY,
		       "bound to mlx5_core, not vfio-pci; bind it: echo 0000:03:00.0 > "
		       "/sys/bus/pci/devices/0000:03:00.0/driver/unbind; echo 1172 0000 > "
		       "/sys/bus/pci/drivers/vfio-pci/new_id");
	expect_refused("0000:05:00.0", -EBUSY, "bound to no driver");
	expect_refused("0000:06:00.0", -ENODEV, "no IOMMU group: boot with intel_iommu=on iommu=pt");
	expect_refused("0000:07:00.0", -ENODEV, "no /dev/vfio/8 (is vfio-pci loaded?");
}

Test(blue_vfio, opening_on_this_machine_fails_cleanly)
{
	struct blue_backend be = { 0 };
	char err[512] = "";

	/* no such function here: refused before any file is opened */
	cr_expect_eq(blue_vfio_backend_open("0000:7f:1f.7", &be, err, sizeof(err)), -ENODEV);
	cr_expect(strstr(err, "no PCI function") != NULL, "%s", err);
	cr_expect_null(be.priv);
	cr_expect_null(be.ops);
}

/* snic_slot= and snic_iova0= (issue 14): the RTL's SimpleNic RX, or a card that honours the base. */
Test(blue_vfio, simplenic_rx_devargs)
{
	struct blue_vfio_target t;
	char err[512];

	device("0000:03:00.0", "0x1172\n", "0x0000\n", "vfio-pci", 17);
	put("/dev/vfio/17", "");
	cr_assert_eq(probe("0000:03:00.0", &t, err), 0, "%s", err);
	cr_expect_eq(t.snic_slot, 0, "default: the RTL's 2048");
	cr_expect_not(t.snic_any_iova, "default: the buffer at IOVA 0");
	cr_assert_eq(probe("0000:03:00.0,snic_slot=128,snic_iova0=0", &t, err), 0, "%s", err);
	cr_expect_eq(t.snic_slot, 128);
	cr_expect(t.snic_any_iova);
	expect_refused("0000:03:00.0,snic_slot=100", -EINVAL, "a power of two, 128..2048");
	expect_refused("0000:03:00.0,snic_slot=4096", -EINVAL, "a power of two, 128..2048");
	expect_refused("0000:03:00.0,snic_iova0=2", -EINVAL, "0 or 1");
}

/* A config space in a file: PCI_COMMAND gets bus mastering, other bits kept. */
Test(blue_vfio, bus_master_set_and_checked)
{
	char path[] = "/tmp/ordk-cfg-XXXXXX", err[256] = "";
	uint8_t cfg[256] = { 0 };
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cfg[4] = 0x02; /* memory space on, bus master off (as after a function reset) */
	cfg[5] = 0x04; /* INTx disable */
	cr_assert_eq(pwrite(fd, cfg, sizeof(cfg), 4096), (ssize_t)sizeof(cfg));
	cr_assert_eq(blue_vfio_bus_master(fd, 4096, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(pread(fd, cfg, sizeof(cfg), 4096), (ssize_t)sizeof(cfg));
	cr_expect_eq(cfg[4], 0x06, "bus master set, memory space kept");
	cr_expect_eq(cfg[5], 0x04, "the high byte kept");
	cr_expect_eq(blue_vfio_bus_master(fd, 4096, err, sizeof(err)), 0, "already set: fine");
	close(fd);
	/* read-only: the bit cannot be set, and the message says the card cannot DMA */
	cfg[4] = 0x02;
	fd = open(path, O_RDWR);
	cr_assert_eq(pwrite(fd, cfg, sizeof(cfg), 4096), (ssize_t)sizeof(cfg));
	close(fd);
	fd = open(path, O_RDONLY);
	cr_expect_eq(blue_vfio_bus_master(fd, 4096, err, sizeof(err)), -EIO);
	cr_expect(strstr(err, "bus mastering") != NULL, "%s", err);
	/* nothing there to read */
	cr_expect_eq(blue_vfio_bus_master(fd, 1u << 20, err, sizeof(err)), -EIO);
	cr_expect(strstr(err, "cannot read") != NULL, "%s", err);
	close(fd);
	unlink(path);
}
