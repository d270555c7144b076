/* SPDX-License-Identifier: BSD-3-Clause */
/* ordk-doctor's checks: each says what it found and how to fix it. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_common.h"
#include "doctor.h"

#define CARD_VENDOR 0x1172u
#define CARD_DEVICE 0x0000u
#define DPDK_OWN_MB 256u /* EAL's own pools beside the MRs */

/* One figure for every check: the MRs asked for and DPDK's own memory. */
static uint64_t
need_mb(const struct doc_opts *o)
{
	return (o->mr_bytes + (1u << 20) - 1) / (1u << 20) + DPDK_OWN_MB;
}

static const char *
need_why(const struct doc_opts *o, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 " MiB needed: %" PRIu64 " MiB of MRs + %u MiB for DPDK",
		 need_mb(o), need_mb(o) - DPDK_OWN_MB, DPDK_OWN_MB);
	return buf;
}

static struct doc_finding * __attribute__((format(printf, 5, 6)))
add(struct doc_report *r, const char *check, enum doc_level level, const char *fix,
    const char *fmt, ...)
{
	struct doc_finding *f;
	va_list ap;

	if (r->n >= DOC_MAX_FINDINGS)
		return NULL;
	f = &r->f[r->n++];
	f->check = check;
	f->level = level;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	snprintf(f->fix, sizeof(f->fix), "%s", fix ? fix : "");
	return f;
}

static FILE *
open_at(const struct doc_opts *o, const char *path)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", o->root, path);
	return fopen(p, "r");
}

static bool
exists_at(const struct doc_opts *o, const char *path)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", o->root, path);
	return access(p, F_OK) == 0;
}

/* The first line of a file, trimmed; @return 0 or -1. */
static int
read_line(const struct doc_opts *o, const char *path, char *buf, size_t len)
{
	FILE *f = open_at(o, path);

	if (f == NULL)
		return -1;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\r\n")] = '\0';
	return 0;
}

static long long
read_num(const struct doc_opts *o, const char *path, long long dflt)
{
	char b[64], *end;
	long long v;

	if (read_line(o, path, b, sizeof(b)) != 0)
		return dflt;
	v = strtoll(b, &end, 0);
	return end == b ? dflt : v;
}

/* "blue:0000:01:00.0,vendor=0x1af4" -> bdf and the ids the user expects */
static bool
card_named(const struct doc_opts *o, char *bdf, size_t len, unsigned int *vendor,
	   unsigned int *device)
{
	const char *p;

	*vendor = CARD_VENDOR;
	*device = CARD_DEVICE;
	if (o->devargs == NULL || strncmp(o->devargs, "blue:", 5) != 0)
		return false;
	snprintf(bdf, len, "%.*s", (int)strcspn(o->devargs + 5, ","), o->devargs + 5);
	if ((p = strstr(o->devargs, "vendor=")) != NULL)
		*vendor = (unsigned int)strtoul(p + 7, NULL, 0);
	if ((p = strstr(o->devargs, "device=")) != NULL)
		*device = (unsigned int)strtoul(p + 7, NULL, 0);
	/* a short BDF ("01:00.0") means domain 0 */
	if (strlen(bdf) == 7 && len > 13) {
		char t[32];

		snprintf(t, sizeof(t), "0000:%s", bdf);
		snprintf(bdf, len, "%s", t);
	}
	return true;
}

/* ------------------------------------------------------------- hugepages */

static bool
hugetlbfs_mounted(const struct doc_opts *o, char *where, size_t len)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/proc/mounts", o->root);
	return ordk_env_hugetlbfs_mounted(p, where, len);
}

void
doc_check_hugepages(const struct doc_opts *o, struct doc_report *r, bool card)
{
	long long nr = read_num(o, "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", 0);
	long long fr = read_num(o, "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", 0);
	long long g1 = read_num(o, "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", 0);
	uint64_t want_mb = need_mb(o);
	char where[256] = "", why[96];

	if (nr <= 0 && g1 <= 0) {
		add(r, "hugepages", card ? DOC_FAIL : DOC_WARN,
		    "echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages "
		    "(2 GiB; or hugepages=1024 on the kernel command line)",
		    "no hugepages reserved: DPDK runs with --no-huge (slower)%s",
		    card ? ", and the card without an IOMMU can only reach hugepage memory" : "");
	} else if ((uint64_t)fr * 2 < want_mb && g1 <= 0) {
		add(r, "hugepages", DOC_WARN,
		    "reserve more: echo N > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages, "
		    "or stop the process holding them (ls /dev/hugepages)",
		    "%lld of %lld 2 MiB hugepages free (%lld MiB), %s", fr, nr, fr * 2,
		    need_why(o, why, sizeof(why)));
	} else
		add(r, "hugepages", DOC_OK, NULL, "%lld of %lld 2 MiB hugepages free%s", fr, nr,
		    g1 > 0 ? " (and 1 GiB pages reserved)" : "");
	if (nr > 0 || g1 > 0) {
		if (hugetlbfs_mounted(o, where, sizeof(where)))
			add(r, "hugetlbfs", DOC_OK, NULL, "hugetlbfs mounted on %s", where);
		else
			add(r, "hugetlbfs", DOC_WARN,
			    "mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages",
			    "hugepages are reserved but no hugetlbfs is mounted: EAL stops with "
			    "\"Cannot get hugepage information\" unless --no-huge is given");
	}
}

/* ----------------------------------------------------------------- IOMMU */

static bool
iommu_on(const struct doc_opts *o)
{
	char p[512];
	DIR *d;
	struct dirent *e;
	bool any = false;

	snprintf(p, sizeof(p), "%s/sys/class/iommu", o->root);
	d = opendir(p);
	if (d == NULL)
		return false;
	while (!any && (e = readdir(d)) != NULL)
		any = e->d_name[0] != '.';
	closedir(d);
	return any;
}

static bool
cmdline_has(const struct doc_opts *o, const char *word)
{
	char line[4096];
	size_t n = strlen(word);

	if (read_line(o, "/proc/cmdline", line, sizeof(line)) != 0)
		return false;
	for (char *p = line; (p = strstr(p, word)) != NULL; p += n)
		if ((p == line || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/* "amd_iommu=on" on an AMD CPU, else "intel_iommu=on" (per /proc/cpuinfo). */
static const char *
iommu_word(const struct doc_opts *o)
{
	char line[256];
	FILE *f = open_at(o, "/proc/cpuinfo");
	bool amd = false;

	while (f != NULL && !amd && fgets(line, sizeof(line), f) != NULL)
		amd = strncmp(line, "vendor_id", 9) == 0 && strstr(line, "AuthenticAMD") != NULL;
	if (f != NULL)
		fclose(f);
	return amd ? "amd_iommu=on" : "intel_iommu=on";
}

enum vfio_state { VFIO_LOADED, VFIO_LOADABLE, VFIO_NO_MODULE, VFIO_NO_MODULES };

/*
 * Can this kernel give vfio-pci at all? Loaded (its driver directory), a
 * module of this kernel (modules.dep of /proc/sys/kernel/osrelease), or none:
 * the kernel cannot load modules (no /proc/modules) or has no vfio-pci.
 */
static enum vfio_state
vfio_state(const struct doc_opts *o)
{
	char rel[128] = "", p[512], line[512];
	bool found = false;
	FILE *f;

	if (exists_at(o, "/sys/bus/pci/drivers/vfio-pci"))
		return VFIO_LOADED;
	if (exists_at(o, "/sys/module/vfio")) /* VFIO's core is there (loaded or built in) */
		return VFIO_LOADABLE;
	if (!exists_at(o, "/proc/modules"))
		return VFIO_NO_MODULES;
	if (read_line(o, "/proc/sys/kernel/osrelease", rel, sizeof(rel)) != 0)
		return VFIO_LOADABLE; /* cannot tell: modprobe will say */
	snprintf(p, sizeof(p), "/lib/modules/%.100s/modules.dep", rel);
	f = open_at(o, p);
	if (f == NULL)
		return VFIO_LOADABLE;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, "/vfio-pci.ko") != NULL || strstr(line, "/vfio_pci.ko") != NULL;
	fclose(f);
	return found ? VFIO_LOADABLE : VFIO_NO_MODULE;
}

/* What to do when the kernel has no VFIO to load. */
#define NO_VFIO_FIX                                                                          	"boot a kernel with VFIO: a distribution kernel, or one built with CONFIG_VFIO=y "     	"CONFIG_VFIO_PCI=y (and CONFIG_VFIO_NOIOMMU=y without an IOMMU); bluesim needs none"

void
doc_check_iommu(const struct doc_opts *o, struct doc_report *r, bool card)
{
	char noiommu[16] = "", fix[384];
	enum vfio_state vs = vfio_state(o);

	if (iommu_on(o)) {
		if (cmdline_has(o, "iommu=pt"))
			add(r, "iommu", DOC_OK, NULL,
			    "IOMMU on in passthrough mode (iommu=pt): host devices DMA 1:1, VFIO "
			    "maps the card's memory (IOVA = VA)");
		else
			add(r, "iommu", DOC_WARN,
			    "add iommu=pt to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, "
			    "update-grub, reboot",
			    "IOMMU on and not in passthrough mode: RDMA NICs whose memory is not "
			    "mapped through it read zeros (RDMA READ completes with success and "
			    "returns 0s); ORDK's VFIO backend maps its memory, other stacks may not");
		return;
	}
	read_line(o, "/sys/module/vfio/parameters/enable_unsafe_noiommu_mode", noiommu,
		  sizeof(noiommu));
	if (noiommu[0] == 'Y' || noiommu[0] == '1') {
		add(r, "iommu", DOC_OK, NULL,
		    "no IOMMU; VFIO's no-IOMMU mode is on: the card gets physical addresses "
		    "(hugepage memory only)");
		return;
	}
	if (vs == VFIO_NO_MODULES || vs == VFIO_NO_MODULE) {
		snprintf(fix, sizeof(fix), "%s; or boot with %s iommu=pt", NO_VFIO_FIX, iommu_word(o));
		add(r, "iommu", card ? DOC_FAIL : DOC_INFO, fix,
		    "no IOMMU, and this kernel has no VFIO (no no-IOMMU mode either): nothing can "
		    "take the card");
		return;
	}
	if (exists_at(o, "/sys/module/vfio"))
		snprintf(fix, sizeof(fix), "echo 1 > /sys/module/vfio/parameters/"
					   "enable_unsafe_noiommu_mode (or boot with %s iommu=pt)",
			 iommu_word(o));
	else
		snprintf(fix, sizeof(fix), "modprobe vfio enable_unsafe_noiommu_mode=1 (or boot with "
					   "%s iommu=pt)", iommu_word(o));
	add(r, "iommu", card ? DOC_FAIL : DOC_INFO, fix,
	    "no IOMMU and VFIO's no-IOMMU mode is off: vfio-pci cannot take the card");
}

/* ------------------------------------------------------------------ VFIO */

void
doc_check_vfio(const struct doc_opts *o, struct doc_report *r, bool card)
{
	switch (vfio_state(o)) {
	case VFIO_LOADED:
		add(r, "vfio-pci", DOC_OK, NULL, "vfio-pci is loaded");
		break;
	case VFIO_LOADABLE:
		add(r, "vfio-pci", card ? DOC_FAIL : DOC_INFO, "modprobe vfio-pci",
		    "vfio-pci is not loaded (needed for the card, not for bluesim)");
		break;
	case VFIO_NO_MODULE:
		add(r, "vfio-pci", card ? DOC_FAIL : DOC_INFO,
		    "install this kernel's extra modules (e.g. linux-modules-extra-$(uname -r)), or "
		    NO_VFIO_FIX,
		    "this kernel has no vfio-pci module (not in modules.dep): the card cannot be "
		    "bound");
		break;
	default:
		add(r, "vfio-pci", card ? DOC_FAIL : DOC_INFO, NO_VFIO_FIX,
		    "this kernel lacks VFIO and cannot load modules (no /proc/modules): the card "
		    "cannot be bound");
		break;
	}
}

static unsigned int
pci_id(const struct doc_opts *o, const char *bdf, const char *what)
{
	char p[512];

	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%.200s/%.32s", bdf, what);
	return (unsigned int)read_num(o, p, -1);
}

/* The driver a PCI function is bound to ("" when none). */
static void
pci_driver(const struct doc_opts *o, const char *bdf, char *drv, size_t len)
{
	char p[512], t[512];
	ssize_t n;

	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices/%s/driver", o->root, bdf);
	n = readlink(p, t, sizeof(t) - 1);
	drv[0] = '\0';
	if (n > 0) {
		t[n] = '\0';
		snprintf(drv, len, "%.63s", strrchr(t, '/') ? strrchr(t, '/') + 1 : t);
	}
}

static void
bind_fix(char *fix, size_t len, const char *bdf, const char *drv, unsigned int vendor,
	 unsigned int device)
{
	char unbind[160] = "";

	if (drv[0])
		snprintf(unbind, sizeof(unbind), "echo %s > /sys/bus/pci/devices/%s/driver/unbind; ",
			 bdf, bdf);
	snprintf(fix, len,
		 "modprobe vfio-pci; %secho %04x %04x > /sys/bus/pci/drivers/vfio-pci/new_id "
		 "(or: dpdk-devbind.py -b vfio-pci %s)",
		 unbind, vendor, device, bdf);
}

void
doc_check_card(const struct doc_opts *o, struct doc_report *r)
{
	char bdf[64] = "", drv[64], fix[384], p[512], found[512] = "";
	unsigned int vendor, device, nfound = 0;
	bool named = card_named(o, bdf, sizeof(bdf), &vendor, &device);
	DIR *d;
	struct dirent *e;

	if (o->devargs != NULL && !named && strncmp(o->devargs, "bluesim", 7) != 0) {
		add(r, "device", DOC_FAIL,
		    "-d blue:<bdf> for the Blue RDMA card, -d bluesim[,...] for the simulator "
		    "(other RDMA NICs: their own ibverbs tools)",
		    "-d %.100s is not a device ORDK drives", o->devargs);
		return;
	}

	/* every function with the card's IDs (or the IDs the user gave) */
	snprintf(p, sizeof(p), "%s/sys/bus/pci/devices", o->root);
	d = opendir(p);
	while (d != NULL && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (pci_id(o, e->d_name, "vendor") == vendor && pci_id(o, e->d_name, "device") == device) {
			size_t k = strlen(found);

			snprintf(found + k, sizeof(found) - k, "%s%s", nfound ? " " : "", e->d_name);
			nfound++;
		}
	}
	if (d != NULL)
		closedir(d);

	if (!named) {
		if (nfound == 0) {
			add(r, "card", DOC_INFO, NULL,
			    "no Blue RDMA card (PCI %04x:%04x) here; bluesim needs none", vendor,
			    device);
			return;
		}
		/* report the first one's binding */
		snprintf(bdf, sizeof(bdf), "%.*s", (int)strcspn(found, " "), found);
		pci_driver(o, bdf, drv, sizeof(drv));
		if (strcmp(drv, "vfio-pci") == 0)
			add(r, "card", DOC_OK, NULL, "Blue RDMA card at %s, bound to vfio-pci (-d blue:%s)",
			    found, bdf);
		else {
			bind_fix(fix, sizeof(fix), bdf, drv, vendor, device);
			add(r, "card", DOC_WARN, fix, "Blue RDMA card at %s is bound to %s, not vfio-pci",
			    bdf, drv[0] ? drv : "no driver");
		}
		return;
	}
	/* the device the user named: does it exist, is it the card, is it bound? */
	snprintf(p, sizeof(p), "/sys/bus/pci/devices/%s", bdf);
	if (!exists_at(o, p)) {
		add(r, "device", DOC_FAIL,
		    nfound ? "use one of the functions listed" : "check lspci -nn; the card may be "
								 "unseated or its bitstream not loaded",
		    "no PCI function %s%s%s", bdf, nfound ? "; the card is at " : "",
		    nfound ? found : "");
		return;
	}
	if (pci_id(o, bdf, "vendor") != vendor || pci_id(o, bdf, "device") != device) {
		add(r, "device", DOC_FAIL,
		    nfound ? "use the card's address instead" : "check lspci -nn for the card",
		    "%s is %04x:%04x, not the Blue RDMA card %04x:%04x (wrong device)%s%s", bdf,
		    pci_id(o, bdf, "vendor"), pci_id(o, bdf, "device"), vendor, device,
		    nfound ? "; the card is at " : "", nfound ? found : "");
		return;
	}
	pci_driver(o, bdf, drv, sizeof(drv));
	if (strcmp(drv, "vfio-pci") != 0) {
		bind_fix(fix, sizeof(fix), bdf, drv, vendor, device);
		add(r, "device", DOC_FAIL, fix, "%s is the card but is bound to %s, not vfio-pci", bdf,
		    drv[0] ? drv : "no driver");
		return;
	}
	add(r, "device", DOC_OK, NULL, "%s is the card (%04x:%04x), bound to vfio-pci", bdf, vendor,
	    device);
}

/* --------------------------------------------------------------- memlock */

void
doc_check_memlock(const struct doc_opts *o, struct doc_report *r)
{
	char line[256];
	FILE *f = open_at(o, "/proc/self/limits");
	char soft[64] = "";

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "Max locked memory", 17) == 0)
			sscanf(line + 17, "%63s", soft);
	if (f != NULL)
		fclose(f);
	if (o->root_user) {
		add(r, "memlock", DOC_OK, NULL, "running as root: no memlock limit applies");
		return;
	}
	if (soft[0] == '\0') {
		add(r, "memlock", DOC_INFO, NULL, "memlock limit unknown (no /proc/self/limits)");
		return;
	}
	if (strcmp(soft, "unlimited") == 0) {
		add(r, "memlock", DOC_OK, NULL, "memlock limit: unlimited");
		return;
	}
	{
		uint64_t lim = strtoull(soft, NULL, 10);
		char why[96];

		if (lim < need_mb(o) << 20)
			add(r, "memlock", DOC_WARN,
			    "ulimit -l unlimited (or memlock in /etc/security/limits.conf), or run "
			    "as root",
			    "memlock limit %" PRIu64 " KiB is below what VFIO must pin (%s)",
			    lim >> 10, need_why(o, why, sizeof(why)));
		else
			add(r, "memlock", DOC_OK, NULL, "memlock limit %" PRIu64 " KiB", lim >> 10);
	}
}

/* ------------------------------------------------------------------ DPDK */

void
doc_check_dpdk(const struct doc_opts *o, struct doc_report *r)
{
	int y = 0, m = 0;
	const char *v = o->dpdk_version ? o->dpdk_version : "";

	if (sscanf(v, "DPDK %d.%d", &y, &m) != 2)
		add(r, "dpdk", DOC_FAIL, "apt-get install libdpdk-dev dpdk", "cannot tell the DPDK version ('%s')",
		    v);
	else if (y < 22 || (y == 22 && m < 11))
		add(r, "dpdk", DOC_FAIL, "apt-get install libdpdk-dev (Debian 12 ships 22.11)",
		    "%s is older than 22.11, which ORDK is built against", v);
	else
		add(r, "dpdk", DOC_OK, NULL, "%s", v);
}

/* ------------------------------------------------------------------- MTU */

uint32_t
doc_mtu_needed(uint32_t pmtu)
{
	/* IPv4 20 + UDP 8 + BTH 12 + RETH 16 + payload + ICRC 4 + bluesim's FCS trailer 4 */
	return pmtu + 20 + 8 + 12 + 16 + 4 + 4;
}

void
doc_check_mtu(const struct doc_opts *o, struct doc_report *r)
{
	char p[256], fix[256];
	long long mtu;
	uint32_t need = doc_mtu_needed(o->pmtu);

	if (o->netdev == NULL) {
		add(r, "mtu", DOC_INFO, NULL,
		    "no --netdev given: PMTU %u needs a port MTU of at least %u (4200 is usual)",
		    o->pmtu, need);
		return;
	}
	snprintf(p, sizeof(p), "/sys/class/net/%s/mtu", o->netdev);
	mtu = read_num(o, p, -1);
	if (mtu < 0) {
		add(r, "mtu", DOC_FAIL, "ip link show (to list the interfaces)",
		    "no network interface %s", o->netdev);
		return;
	}
	snprintf(fix, sizeof(fix), "ip link set dev %s mtu 4200 (on both hosts and the switch), or "
				   "-m %u in ordk-perf", o->netdev, o->pmtu >= 2048 ? o->pmtu / 2 : 1024);
	if ((uint64_t)mtu < need)
		add(r, "mtu", DOC_FAIL, fix,
		    "%s MTU %lld is below the %u PMTU %u needs: full-size packets are dropped "
		    "(small messages work, large ones time out)",
		    o->netdev, mtu, need, o->pmtu);
	else
		add(r, "mtu", DOC_OK, NULL, "%s MTU %lld carries PMTU %u (needs %u)", o->netdev, mtu,
		    o->pmtu, need);
}

/* ---------------------------------------------------------------- memory */

void
doc_check_memory(const struct doc_opts *o, struct doc_report *r)
{
	char line[256];
	FILE *f = open_at(o, "/proc/meminfo");
	uint64_t avail_kb = 0;
	char why[96];

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "MemAvailable: %" SCNu64, &avail_kb) == 1)
			break;
	if (f != NULL)
		fclose(f);
	if (avail_kb == 0) {
		add(r, "memory", DOC_INFO, NULL, "free memory unknown (no /proc/meminfo)");
		return;
	}
	if (need_mb(o) * 1024 > avail_kb)
		add(r, "memory", DOC_FAIL, "register less (smaller --mr-size, fewer buffers) or free memory",
		    "%s, %" PRIu64 " MiB available", need_why(o, why, sizeof(why)), avail_kb >> 10);
	else if (need_mb(o) * 1024 > avail_kb / 10 * 8)
		add(r, "memory", DOC_WARN, "leave room: the OS needs memory too",
		    "%s: over 80%% of the %" PRIu64 " MiB available", need_why(o, why, sizeof(why)),
		    avail_kb >> 10);
	else
		add(r, "memory", DOC_OK, NULL, "%" PRIu64 " MiB available (%s)", avail_kb >> 10,
		    need_why(o, why, sizeof(why)));
}

/* ---------------------------------------------------------------- report */

int
doc_run(const struct doc_opts *o, struct doc_report *r)
{
	char bdf[64];
	unsigned int v, d;
	bool card = card_named(o, bdf, sizeof(bdf), &v, &d);
	int status = 0;

	r->n = 0;
	doc_check_dpdk(o, r);
	doc_check_hugepages(o, r, card);
	doc_check_iommu(o, r, card);
	doc_check_vfio(o, r, card);
	doc_check_card(o, r);
	doc_check_memlock(o, r);
	doc_check_mtu(o, r);
	doc_check_memory(o, r);
	for (unsigned int i = 0; i < r->n; i++)
		if (r->f[i].level == DOC_FAIL)
			status = 2;
		else if (r->f[i].level == DOC_WARN && status < 1)
			status = 1;
	return status;
}

const struct doc_finding *
doc_find(const struct doc_report *r, const char *check)
{
	for (unsigned int i = 0; i < r->n; i++)
		if (strcmp(r->f[i].check, check) == 0)
			return &r->f[i];
	return NULL;
}

static const char *const level_tag[] = { "[ OK ]", "[INFO]", "[WARN]", "[FAIL]" };
static const char *const level_name[] = { "ok", "info", "warning", "blocking" };

void
doc_print_text(FILE *f, const struct doc_report *r)
{
	for (unsigned int i = 0; i < r->n; i++) {
		fprintf(f, "%s %-10s %s\n", level_tag[r->f[i].level], r->f[i].check, r->f[i].detail);
		if (r->f[i].fix[0] && r->f[i].level != DOC_OK)
			fprintf(f, "       %-10s fix: %s\n", "", r->f[i].fix);
	}
}

void
doc_print_json(FILE *f, const struct doc_report *r, int status)
{
	fprintf(f, "{\n  \"tool\": \"ordk-doctor\",\n  \"status\": %d,\n  \"checks\": [", status);
	for (unsigned int i = 0; i < r->n; i++) {
		fprintf(f, "%s\n    {\"check\": ", i ? "," : "");
		app_json_str(f, r->f[i].check);
		fprintf(f, ", \"level\": \"%s\", \"detail\": ", level_name[r->f[i].level]);
		app_json_str(f, r->f[i].detail);
		fprintf(f, ", \"fix\": ");
		app_json_str(f, r->f[i].fix);
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]\n}\n");
}
