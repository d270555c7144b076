/* SPDX-License-Identifier: BSD-3-Clause */
/* The VM rig's guest programs: result lines and the PCI command register. */
#ifndef VM_COMMON_H
#define VM_COMMON_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

static int vm_passed, vm_failed;

/* One "VMTEST ok|FAIL <what>[: <why>]" line; devtools/vm-test.sh counts them. */
static inline void
vm_result(bool ok, const char *what, const char *why)
{
	printf("VMTEST %s %s%s%s\n", ok ? "ok" : "FAIL", what, ok ? "" : ": ", ok ? "" : why);
	if (ok)
		vm_passed++;
	else
		vm_failed++;
}

/* The summary line devtools/vm-test.sh adds up; @return the exit status. */
static inline int
vm_summary(void)
{
	printf("VMTEST: %d passed, %d failed\n", vm_passed, vm_failed);
	return vm_failed ? 1 : 0;
}

/* PCI_COMMAND of @p bdf as sysfs reads it (not through ORDK's VFIO code), 0 if unreadable. */
static inline uint16_t
vm_pci_command(const char *bdf)
{
	char path[128];
	uint16_t cmd = 0;
	int fd;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &cmd, 2, 4) != 2)
		cmd = 0;
	if (fd >= 0)
		close(fd);
	return cmd;
}

/* Bus mastering, as ORDK's VFIO backend set it after the function reset. */
static inline void
vm_check_bus_master(const char *bdf)
{
	uint16_t cmd = vm_pci_command(bdf);
	char why[64];

	snprintf(why, sizeof(why), "PCI_COMMAND 0x%04x", cmd);
	printf("VMTEST PCI_COMMAND of %s 0x%04x\n", bdf, cmd);
	vm_result((cmd & 4) != 0, "bus mastering set in PCI_COMMAND", why);
}

#endif
