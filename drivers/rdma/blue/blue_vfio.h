/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VFIO backend of the seam: the card (or a test rig's stand-in) bound to
 * vfio-pci, its BAR mapped, DMA addresses from the IOMMU (IOVA = VA) or, in
 * VFIO's no-IOMMU mode, physical addresses.
 *
 * devargs: "<bdf>[,vendor=0x1172][,device=0x0000][,bar=0][,iova=va|pa][,snic_slot=2048]
 * [,snic_iova0=1][,mac=..][,ip=..]" (after "blue:"); a short BDF ("01:00.0") means domain 0000.
 * snic_slot: the card's SimpleNic RX slot size; snic_iova0=0: the card honours
 * SetRawPacketReceiveMeta (the RTL does not: its RX buffer must sit at IOVA 0).
 */
#ifndef BLUE_VFIO_H
#define BLUE_VFIO_H

#include <stdbool.h>
#include <stdint.h>

#include "blue_backend.h"
#include "ordk_devargs.h"

#define BLUE_PCI_VENDOR 0x1172u
#define BLUE_PCI_DEVICE 0x0000u

/** What the sysfs tree says about the device (blue_vfio_probe()). */
struct blue_vfio_target {
	char bdf[16];		/* 0000:01:00.0 */
	unsigned int vendor, device, bar;
	int group;		/* IOMMU group number */
	bool noiommu;		/* VFIO's no-IOMMU mode: /dev/vfio/noiommu-<group> */
	bool iova_pa;		/* iova=pa: under an IOMMU too, the card sees IOVA = PA (test rigs
				   whose host follows guest-physical addresses; DPDK's --iova-mode=pa) */
	char group_path[64];	/* /dev/vfio/<group> or /dev/vfio/noiommu-<group> */
	uint32_t snic_slot;	/* snic_slot=: 0 for the default (2048) */
	bool snic_any_iova;	/* snic_iova0=0 */
};

#define BLUE_VFIO_DEVARGS_COUNT 6u
/** The backend's devargs keys after the BDF (vendor, device, bar, iova, snic_slot, snic_iova0). */
extern const struct ordk_devarg blue_vfio_devargs[BLUE_VFIO_DEVARGS_COUNT];
/** The key=value part of "<bdf>,key=value,...": after the first comma, or "". */
const char *blue_vfio_keys(const char *args);

/**
 * The decisions before any ioctl, from the files under @p root ("" for the
 * machine; a fabricated tree in the tests): the device exists, is the one
 * asked for, is bound to vfio-pci, has an IOMMU group and a group device.
 * @return 0, or a negative errno with what is wrong and how to fix it in @p err.
 */
int blue_vfio_probe(const char *root, const char *args, struct blue_vfio_target *t, char *err,
		    uint32_t errlen);

#define BLUE_PCI_COMMAND	0x04u /* config space: the 16-bit command register */
#define BLUE_PCI_COMMAND_MASTER 0x04u /* bus master enable */

/**
 * Set bus mastering in PCI_COMMAND through a config space at @p cfg_off of
 * @p fd (the VFIO device's config region), and read it back.
 * @return 0, or -EIO with the reason in @p err.
 */
int blue_vfio_bus_master(int fd, uint64_t cfg_off, char *err, uint32_t errlen);

/**
 * Open the device through VFIO: container, group, IOMMU type, device, reset,
 * bus mastering, BAR mapping. Every failure undoes what was done and says why in @p err.
 */
int blue_vfio_backend_open(const char *args, struct blue_backend *be, char *err, uint32_t errlen);

#endif /* BLUE_VFIO_H */
