#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The VM rig's ingredients, from Debian packages only (see doc/guides/drivers/blue.md):
# QEMU, the Debian kernel (unpacked, not installed), vfio.ko rebuilt with
# CONFIG_VFIO_NOIOMMU (Debian's lacks it), an uncompressed vmlinux (QEMU boots
# it through its PVH note, skipping XZ under TCG), and the modules the guest
# loads. Idempotent: a second run with everything in place takes a second.
#   devtools/vm-prepare.sh [dir]     (default /var/tmp/ordk-vmrig)
set -euo pipefail
W=${1:-/var/tmp/ordk-vmrig}
mkdir -p "$W"
cd "$W"
if [ -f ready ]; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
need=()
for p in qemu-system-x86 busybox-static cpio xz-utils gcc make libc6-dev; do
    dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
KV=$(apt-cache depends linux-image-amd64 2>/dev/null |
    awk '/Depends: linux-image-[0-9]/ && !v {v=$2; sub("linux-image-","",v)} END {print v}')
if [ -z "$KV" ]; then
    apt-get update -qq
    KV=$(apt-cache depends linux-image-amd64 |
        awk '/Depends: linux-image-[0-9]/ && !v {v=$2; sub("linux-image-","",v)} END {print v}')
fi
dpkg -s "linux-headers-$KV" >/dev/null 2>&1 || need+=("linux-headers-$KV")
if [ ${#need[@]} -gt 0 ]; then
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
fi
# the image and the source are unpacked, not installed: the host's boot files stay as they are
[ -d kpkg ] || { apt-get download -qq "linux-image-$KV" 2>/dev/null; dpkg-deb -x linux-image-"${KV}"_*.deb kpkg; }
[ -d spkg ] || { apt-get download -qq linux-source-6.1 2>/dev/null; dpkg-deb -x linux-source-6.1_*.deb spkg; }
rm -rf ksrc vfio-noiommu
mkdir ksrc vfio-noiommu
tar -xJf spkg/usr/src/linux-source-6.1.tar.xz -C ksrc --strip-components=1 \
    linux-source-6.1/drivers/vfio linux-source-6.1/scripts/extract-vmlinux
cp ksrc/drivers/vfio/{vfio_main.c,iova_bitmap.c,container.c,vfio.h} vfio-noiommu/
printf 'obj-m := vfio.o\nvfio-y := vfio_main.o iova_bitmap.o container.o\nccflags-y := -DCONFIG_VFIO_NOIOMMU=1\n' \
    >vfio-noiommu/Makefile
KB=$(dpkg -L "linux-headers-$KV" | awk -v k="/src/linux-headers-$KV" \
    'substr($0, length($0)-length(k)+1) == k {d=$0} END {print d}')
make -s -C "$KB" M="$W/vfio-noiommu" modules
sh ksrc/scripts/extract-vmlinux "kpkg/boot/vmlinuz-$KV" >vmlinux
K=$W/kpkg/lib/modules/$KV/kernel
rm -rf modules
mkdir modules
for m in virt/lib/irqbypass drivers/vfio/vfio_virqfd drivers/vfio/vfio_iommu_type1 \
    drivers/vfio/pci/vfio-pci-core drivers/vfio/pci/vfio-pci \
    drivers/virtio/virtio_ring drivers/virtio/virtio drivers/virtio/virtio_pci_modern_dev \
    drivers/virtio/virtio_pci_legacy_dev drivers/virtio/virtio_pci fs/netfs/netfs fs/fscache/fscache \
    net/9p/9pnet net/9p/9pnet_virtio fs/9p/9p; do
    cp "$K/$m.ko" modules/
done
cp vfio-noiommu/vfio.ko modules/vfio.ko
grep -qa enable_unsafe_noiommu_mode modules/vfio.ko || { echo "vm-prepare: vfio.ko lacks no-IOMMU mode" >&2; exit 1; }
echo "$KV" >ready
echo "vm-prepare: kernel $KV, vfio.ko with no-IOMMU mode, in $W"
