/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-doctor on fabricated /sys and /proc trees: each finding and its fix. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "fake_tree.h"

static char root[64]; /* mkdtemp() under /tmp */

static void
put(const char *path, const char *text)
{
	fake_put(root, path, text);
}

static void
dir(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s%s", root, path);
	fake_mkdirs(p);
}

/* A PCI function with its IDs, bound to @p driver (NULL: none). */
static void
pci(const char *bdf, const char *vendor, const char *device, const char *driver)
{
	char p[PATH_MAX], t[PATH_MAX];

	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/vendor", bdf);
	put(p, vendor);
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/device", bdf);
	put(p, device);
	if (driver != NULL) {
		snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s/driver", bdf);
		snprintf(t, sizeof(t), "../../../bus/pci/drivers/%s", driver);
		fake_link(root, p, t);
	}
}

FAKE_TREE_SUITE(doctor, root);

static struct doc_opts
opts(void)
{
	return (struct doc_opts){ .root = root, .pmtu = 4096, .dpdk_version = "DPDK 22.11.4" };
}

static const struct doc_finding *
only(void (*check)(const struct doc_opts *, struct doc_report *), const struct doc_opts *o,
     struct doc_report *r)
{
	r->n = 0;
	check(o, r);
	cr_assert_geq(r->n, 1);
	return &r->f[0];
}

#define expect_finding(f, lvl, detail_has, fix_has)                                            \
	do {                                                                                     \
		cr_expect_eq((f)->level, lvl, "%s: level %d: %s", (f)->check, (f)->level,        \
			     (f)->detail);                                                       \
		cr_expect(strstr((f)->detail, detail_has) != NULL, "%s: detail '%s' lacks '%s'", \
			  (f)->check, (f)->detail, detail_has);                                  \
		cr_expect(strstr((f)->fix, fix_has) != NULL, "%s: fix '%s' lacks '%s'",          \
			  (f)->check, (f)->fix, fix_has);                                        \
	} while (0)

Test(doctor, hugepages)
{
	struct doc_opts o = opts();
	static struct doc_report r;

	doc_check_hugepages(&o, &r, false);
	expect_finding(doc_find(&r, "hugepages"), DOC_WARN, "no hugepages reserved", "nr_hugepages");
	r.n = 0;
	doc_check_hugepages(&o, &r, true);
	expect_finding(doc_find(&r, "hugepages"), DOC_FAIL, "only reach hugepage memory", "1024");

	put("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "1024\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "1024\n");
	put("/proc/mounts", "proc /proc proc rw 0 0\n");
	r.n = 0;
	doc_check_hugepages(&o, &r, false);
	expect_finding(doc_find(&r, "hugepages"), DOC_OK, "1024 of 1024", "");
	expect_finding(doc_find(&r, "hugetlbfs"), DOC_WARN, "Cannot get hugepage information",
		       "mount -t hugetlbfs nodev /dev/hugepages");

	put("/proc/mounts", "proc /proc proc rw 0 0\nhugetlbfs /mnt/huge hugetlbfs rw 0 0\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "10\n");
	o.mr_bytes = 1ull << 30;
	r.n = 0;
	doc_check_hugepages(&o, &r, false);
	expect_finding(doc_find(&r, "hugepages"), DOC_WARN, "10 of 1024", "reserve more");
	expect_finding(doc_find(&r, "hugetlbfs"), DOC_OK, "/mnt/huge", "");
}

Test(doctor, iommu)
{
	struct doc_opts o = opts();
	static struct doc_report r;

	put("/sys/module/vfio/parameters/enable_unsafe_noiommu_mode", "N\n");
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	expect_finding(&r.f[0], DOC_FAIL, "no-IOMMU mode is off", "enable_unsafe_noiommu_mode");
	r.n = 0;
	doc_check_iommu(&o, &r, false);
	cr_expect_eq(r.f[0].level, DOC_INFO, "without the card it is only information");

	put("/sys/module/vfio/parameters/enable_unsafe_noiommu_mode", "Y\n");
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	expect_finding(&r.f[0], DOC_OK, "physical addresses", "");

	dir("/sys/class/iommu/dmar0");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on quiet\n");
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	expect_finding(&r.f[0], DOC_WARN, "returns 0s", "iommu=pt");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt\n");
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	expect_finding(&r.f[0], DOC_OK, "passthrough", "");
	put("/proc/cmdline", "BOOT_IMAGE=/vmlinuz xiommu=ptx\n");
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	cr_expect_eq(r.f[0].level, DOC_WARN, "iommu=pt must be a word of its own");
}

Test(doctor, vfio_and_the_card)
{
	struct doc_opts o = opts();
	static struct doc_report r;
	const struct doc_finding *f;

	/* a kernel that cannot load modules and has no VFIO: no modprobe, no /sys/module fix */
	r.n = 0;
	doc_check_vfio(&o, &r, true);
	expect_finding(&r.f[0], DOC_FAIL, "lacks VFIO and cannot load modules", "CONFIG_VFIO_PCI=y");
	cr_expect(strstr(r.f[0].fix, "modprobe") == NULL, "%s", r.f[0].fix);
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	expect_finding(&r.f[0], DOC_FAIL, "this kernel has no VFIO", "CONFIG_VFIO=y");
	cr_expect(strstr(r.f[0].fix, "/sys/module/vfio") == NULL, "%s", r.f[0].fix);
	/* modules, but none is vfio-pci */
	put("/proc/modules", "ext4 1 0 - Live 0x0\n");
	put("/proc/sys/kernel/osrelease", "6.1.0-test\n");
	put("/lib/modules/6.1.0-test/modules.dep", "kernel/fs/ext4/ext4.ko:\n");
	r.n = 0;
	doc_check_vfio(&o, &r, true);
	expect_finding(&r.f[0], DOC_FAIL, "no vfio-pci module", "linux-modules-extra");
	/* a module to load */
	put("/lib/modules/6.1.0-test/modules.dep",
	    "kernel/fs/ext4/ext4.ko:\nkernel/drivers/vfio/pci/vfio-pci.ko.xz: kernel/drivers/vfio/vfio.ko.xz\n");
	r.n = 0;
	doc_check_vfio(&o, &r, true);
	expect_finding(&r.f[0], DOC_FAIL, "not loaded", "modprobe vfio-pci");
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	expect_finding(&r.f[0], DOC_FAIL, "no-IOMMU mode is off",
		       "modprobe vfio enable_unsafe_noiommu_mode=1 (or boot with intel_iommu=on");
	/* an AMD CPU gets AMD's parameter */
	put("/proc/cpuinfo", "processor\t: 0\nvendor_id\t: AuthenticAMD\n");
	r.n = 0;
	doc_check_iommu(&o, &r, true);
	cr_expect(strstr(r.f[0].fix, "amd_iommu=on iommu=pt") != NULL, "%s", r.f[0].fix);
	cr_expect(strstr(r.f[0].fix, "intel_iommu") == NULL, "%s", r.f[0].fix);
	dir("/sys/bus/pci/drivers/vfio-pci");
	dir("/sys/bus/pci/drivers/ixgbe");
	r.n = 0;
	doc_check_vfio(&o, &r, true);
	cr_expect_eq(r.f[0].level, DOC_OK);

	pci("0000:00:02.0", "0x8086\n", "0x1234\n", "ixgbe");
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_INFO, "no Blue RDMA card (PCI 1172:0000)", "");

	pci("0000:03:00.0", "0x1172\n", "0x0000\n", "ixgbe");
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_WARN, "bound to ixgbe, not vfio-pci", "vfio-pci/new_id");
	cr_expect(strstr(f->fix, "echo 0000:03:00.0 > /sys/bus/pci/devices/0000:03:00.0/driver/unbind"),
		  "%s", f->fix);
	cr_expect(strstr(f->fix, "echo 1172 0000 >"), "%s", f->fix);

	/* the device the user names */
	o.devargs = "blue:0000:00:02.0";
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_FAIL, "is 8086:1234, not the Blue RDMA card 1172:0000 (wrong device)",
		       "the card's address");
	cr_expect(strstr(f->detail, "the card is at 0000:03:00.0"), "%s", f->detail);
	o.devargs = "blue:0000:09:00.0";
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_FAIL, "no PCI function 0000:09:00.0", "functions listed");
	o.devargs = "blue:03:00.0"; /* a short BDF: domain 0 */
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_FAIL, "is the card but is bound to ixgbe", "dpdk-devbind.py -b vfio-pci 0000:03:00.0");

	/* a device ORDK does not drive */
	o.devargs = "mlx5_0";
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_FAIL, "-d mlx5_0 is not a device ORDK drives", "-d blue:<bdf>");

	pci("0000:04:00.0", "0x1172\n", "0x0000\n", "vfio-pci");
	o.devargs = "blue:0000:04:00.0";
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_OK, "bound to vfio-pci", "");
	/* the VM rig's ivshmem device, named with vendor= and device= */
	pci("0000:00:05.0", "0x1af4\n", "0x1110\n", NULL);
	o.devargs = "blue:0000:00:05.0,vendor=0x1af4,device=0x1110,bar=2";
	f = only(doc_check_card, &o, &r);
	expect_finding(f, DOC_FAIL, "bound to no driver", "echo 1af4 1110 > /sys/bus/pci/drivers/vfio-pci/new_id");
}

Test(doctor, memlock_dpdk_memory)
{
	struct doc_opts o = opts();
	static struct doc_report r;
	const struct doc_finding *f;

	put("/proc/self/limits", "Limit                     Soft Limit           Hard Limit           Units\n"
				 "Max locked memory         8388608              8388608              bytes\n");
	o.mr_bytes = 256u << 20;
	f = only(doc_check_memlock, &o, &r);
	expect_finding(f, DOC_WARN, "8192 KiB is below", "ulimit -l unlimited");
	/* one --mr-size, one figure in every check */
	cr_expect(strstr(f->detail, "512 MiB needed: 256 MiB of MRs + 256 MiB for DPDK"), "%s",
		  f->detail);
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "100\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "100\n");
	r.n = 0;
	doc_check_hugepages(&o, &r, false);
	expect_finding(doc_find(&r, "hugepages"), DOC_WARN,
		       "512 MiB needed: 256 MiB of MRs + 256 MiB for DPDK", "reserve more");
	o.root_user = true;
	f = only(doc_check_memlock, &o, &r);
	cr_expect_eq(f->level, DOC_OK);
	o.root_user = false;
	put("/proc/self/limits", "Max locked memory         unlimited            unlimited            bytes\n");
	f = only(doc_check_memlock, &o, &r);
	expect_finding(f, DOC_OK, "unlimited", "");

	f = only(doc_check_dpdk, &o, &r);
	expect_finding(f, DOC_OK, "22.11.4", "");
	o.dpdk_version = "DPDK 21.11.2";
	f = only(doc_check_dpdk, &o, &r);
	expect_finding(f, DOC_FAIL, "older than 22.11", "libdpdk-dev");
	o.dpdk_version = "what";
	f = only(doc_check_dpdk, &o, &r);
	cr_expect_eq(f->level, DOC_FAIL);

	put("/proc/meminfo", "MemTotal:       2097152 kB\nMemAvailable:   1048576 kB\n");
	o.mr_bytes = 2ull << 30;
	f = only(doc_check_memory, &o, &r);
	expect_finding(f, DOC_FAIL, "2304 MiB needed: 2048 MiB of MRs + 256 MiB for DPDK, 1024 MiB available",
		       "register less");
	o.mr_bytes = 600ull << 20; /* 856 MiB with DPDK's: over 80% of 1024 */
	f = only(doc_check_memory, &o, &r);
	expect_finding(f, DOC_WARN, "over 80%", "leave room");
	o.mr_bytes = 100ull << 20;
	f = only(doc_check_memory, &o, &r);
	cr_expect_eq(f->level, DOC_OK);
}

Test(doctor, mtu)
{
	struct doc_opts o = opts();
	static struct doc_report r;
	const struct doc_finding *f;

	cr_expect_eq(doc_mtu_needed(4096), 4160);
	f = only(doc_check_mtu, &o, &r);
	expect_finding(f, DOC_INFO, "at least 4160", "");
	o.netdev = "veth0";
	f = only(doc_check_mtu, &o, &r);
	expect_finding(f, DOC_FAIL, "no network interface veth0", "ip link");
	put("/sys/class/net/veth0/mtu", "1500\n");
	f = only(doc_check_mtu, &o, &r);
	expect_finding(f, DOC_FAIL, "veth0 MTU 1500 is below the 4160 PMTU 4096 needs",
		       "ip link set dev veth0 mtu 4200");
	o.pmtu = 1024;
	f = only(doc_check_mtu, &o, &r);
	cr_expect_eq(f->level, DOC_OK, "%s", f->detail);
	o.pmtu = 4096;
	put("/sys/class/net/veth0/mtu", "4200\n");
	f = only(doc_check_mtu, &o, &r);
	cr_expect_eq(f->level, DOC_OK);
}

/* A healthy machine for bluesim; then one thing at a time goes wrong. */
static void
healthy(void)
{
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "1024\n");
	put("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "1024\n");
	put("/proc/mounts", "hugetlbfs /dev/hugepages hugetlbfs rw 0 0\n");
	put("/proc/self/limits", "Max locked memory         unlimited            unlimited            bytes\n");
	put("/proc/meminfo", "MemAvailable:   8388608 kB\n");
	put("/sys/class/net/veth0/mtu", "4200\n");
	dir("/sys/bus/pci/drivers/vfio-pci");
	dir("/sys/class/iommu/dmar0");
	put("/proc/cmdline", "intel_iommu=on iommu=pt\n");
	pci("0000:03:00.0", "0x1172\n", "0x0000\n", "vfio-pci");
}

Test(doctor, exit_status)
{
	struct doc_opts o = opts();
	static struct doc_report r;

	healthy();
	o.netdev = "veth0";
	o.devargs = "blue:0000:03:00.0";
	cr_expect_eq(doc_run(&o, &r), 0);
	for (unsigned int i = 0; i < r.n; i++)
		cr_expect_eq(r.f[i].level, DOC_OK, "%s: %s", r.f[i].check, r.f[i].detail);
	put("/proc/cmdline", "intel_iommu=on\n");
	cr_expect_eq(doc_run(&o, &r), 1, "a warning");
	put("/sys/class/net/veth0/mtu", "1500\n");
	cr_expect_eq(doc_run(&o, &r), 2, "a blocking finding");
}

Test(doctor, the_tool_prints_text_and_json)
{
	const char *bin = getenv("ORDK_DOCTOR");
	char cmd[PATH_MAX * 2];

	cr_assert_not_null(bin, "ORDK_DOCTOR names the binary");
	healthy();
	put("/sys/class/net/veth0/mtu", "1500\n");
	snprintf(cmd, sizeof(cmd),
		 "%s --root %s --netdev veth0 --json | python3 -c 'import json,sys; d=json.load(sys.stdin); "
		 "assert d[\"status\"]==2, d; c={x[\"check\"]:x for x in d[\"checks\"]}; "
		 "assert c[\"mtu\"][\"level\"]==\"blocking\" and \"mtu 4200\" in c[\"mtu\"][\"fix\"], c; "
		 "assert c[\"hugepages\"][\"level\"]==\"ok\"'",
		 bin, root);
	cr_expect_eq(system(cmd), 0, "JSON: %s", cmd);
	snprintf(cmd, sizeof(cmd), "%s --root %s --netdev veth0 > %s/out.txt", bin, root, root);
	cr_expect_eq(WEXITSTATUS(system(cmd)), 2, "exit status 2 when something blocks");
	snprintf(cmd, sizeof(cmd),
		 "grep -q '^\\[FAIL\\] mtu        veth0 MTU 1500' %s/out.txt && "
		 "grep -q '^ *fix: ip link set dev veth0 mtu 4200' %s/out.txt && "
		 "grep -q '^ordk-doctor: something blocks a run' %s/out.txt",
		 root, root, root);
	cr_expect_eq(system(cmd), 0, "text output");
	put("/sys/class/net/veth0/mtu", "9000\n");
	snprintf(cmd, sizeof(cmd), "%s --root %s --netdev veth0 >/dev/null", bin, root);
	cr_expect_eq(WEXITSTATUS(system(cmd)), 0, "exit status 0 when all is well");
	snprintf(cmd, sizeof(cmd), "%s --pmtu 1500 2>/dev/null", bin);
	cr_expect_eq(WEXITSTATUS(system(cmd)), 64, "a bad option: EX_USAGE, not 'blocking'");
	snprintf(cmd, sizeof(cmd), "%s --bogus 2>/dev/null", bin);
	cr_expect_eq(WEXITSTATUS(system(cmd)), 64, "an unknown option: EX_USAGE");
}
