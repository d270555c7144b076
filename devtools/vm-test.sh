#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The VFIO backend, end to end in a QEMU guest (TCG, no KVM needed):
#   1. devtools/vm-prepare.sh: QEMU, the Debian kernel, a no-IOMMU vfio.ko;
#   2. an initramfs with tests/vm/init;
#   3. on the host, vm_host: bluesim serves the register block that the guest
#      sees as BAR 2 of an ivshmem-plain device, and does the card's DMA into
#      the guest's RAM (a shared file: offset = guest-physical address);
#   4. in the guest, vm_guest: ORDK over blue:<bdf>,vendor=0x1af4,device=0x1110,bar=2
#      through vfio-pci in no-IOMMU mode: WRITE, READ, SEND checked, MR
#      register/deregister, a clean close;
#   5. in the vIOMMU boot also vm_edu: QEMU's edu device through the same VFIO
#      backend, its DMA engine writing into the PMD's SimpleNic RX buffer at
#      IOVA 0 (the IOMMU's translation checked both ways).
# Prints the guest's results and "N passed, M failed"; removes what it made (the
# prepared kernel and modules too, unless they were there before or ORDK_VM_KEEP=1).
#   devtools/vm-test.sh [--no-build]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}
W=${ORDK_VM_DIR:-/var/tmp/ordk-vmrig}
. devtools/lib.sh
t0=$(date +%s)
fail() {
    echo "vm-test: $*" >&2
    echo "0 passed, 1 failed"
    exit 1
}
if [ "${1:-}" != "--no-build" ]; then
    devtools/setup.sh >/dev/null || fail "setup failed"
    ordk_build "$BUILD" || fail "build failed"
fi
# the ingredients this run prepares it also removes (ORDK_VM_KEEP=1 keeps them for the next run)
made_w=0
[ -f "$W/ready" ] || made_w=1
devtools/vm-prepare.sh "$W" || fail "preparing the VM (QEMU, kernel, vfio.ko) failed"
t1=$(date +%s)
guest=$(realpath "$BUILD/tests/vm/vm_guest")
host=$(realpath "$BUILD/tests/vm/vm_host")
edu=$(realpath "$BUILD/tests/vm/vm_edu")
[ -x "$guest" ] && [ -x "$host" ] && [ -x "$edu" ] || fail "build the rig first ($BUILD/tests/vm)"
run=$(mktemp -d /tmp/ordk-vm-XXXXXX)
ram=/dev/shm/ordk-vm-ram-$$ bar=/dev/shm/ordk-vm-bar-$$
hpid= qpid=
cleanup() {
    [ -n "$qpid" ] && kill "$qpid" 2>/dev/null
    [ -n "$hpid" ] && kill "$hpid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$run" "$ram" "$bar"
    if [ "$made_w" = 1 ] && [ "${ORDK_VM_KEEP:-0}" != 1 ]; then rm -rf "$W"; fi
}
trap cleanup EXIT

mkdir -p "$run/root/bin" "$run/root/proc" "$run/root/sys" "$run/root/dev" "$run/root/lib/modules/rig"
cp "$(command -v busybox)" "$run/root/bin/"
cp tests/vm/init "$run/root/init"
chmod 755 "$run/root/init"
cp "$W"/modules/*.ko "$run/root/lib/modules/rig/"
(cd "$run/root" && find . | cpio -o -H newc --quiet | gzip -1) >"$run/initrd.gz"

# One boot: <name> <extra QEMU device args> <extra kernel command line> <guest programs>.
# The files first, then the host side, then QEMU.
P=0 F=0
boot() {
    local name=$1 qdev=$2 append=$3 progs=$4 qrc summary p f
    rm -f "$ram" "$bar"
    truncate -s 512M "$ram"
    truncate -s 4M "$bar"
    timeout 900 "$host" "$bar" "$ram" 512 800 >"$run/host-$name.log" 2>&1 &
    hpid=$!
    sleep 1
    # shellcheck disable=SC2086
    timeout 800 qemu-system-x86_64 -machine q35,memory-backend=ram -accel tcg -cpu max -m 512 \
        -smp 1 -nographic -nic none -no-reboot \
        -kernel "$W/vmlinux" -initrd "$run/initrd.gz" \
        -append "console=ttyS0 quiet hugepages=64 ordk.prog=$guest $append" \
        -object memory-backend-file,id=ram,size=512M,mem-path="$ram",share=on \
        -object memory-backend-file,id=hostmem,size=4M,mem-path="$bar",share=on \
        $qdev -device ivshmem-plain,memdev=hostmem ${5:-} \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
        </dev/null >"$run/console-$name.log" 2>&1 &
    qpid=$!
    wait "$qpid"
    qrc=$?
    qpid=
    kill "$hpid" 2>/dev/null
    wait "$hpid" 2>/dev/null
    hpid=
    echo "=== $name"
    tr -d '\r' <"$run/console-$name.log" | grep -oE 'VMTEST.*' || true
    echo "--- the host's model ($name):"
    cat "$run/host-$name.log"
    # one summary line per guest program: vm_guest, and vm_edu in the vIOMMU boot
    summary=$(tr -d '\r' <"$run/console-$name.log" | grep -E '^VMTEST: [0-9]+ passed, [0-9]+ failed')
    if [ "$(echo "$summary" | grep -c .)" -ne "$progs" ]; then
        echo "vm-test: $name: $progs guest programs, not all printed a result (QEMU exit $qrc); its console:" >&2
        tr -d '\r' <"$run/console-$name.log" | tail -40 >&2
        F=$((F + 1))
        return
    fi
    p=$(echo "$summary" | awk '{s += $2} END {print s}')
    f=$(echo "$summary" | awk '{s += $4} END {print s}')
    f=$((f + $(tr -d '\r' <"$run/console-$name.log" | grep -c '^VMTEST FAIL insmod\|^VMTEST FAIL bind\|^VMTEST FAIL vfio')))
    if [ "$f" -ne 0 ]; then
        echo "vm-test: $name: the guest's console:" >&2
        tr -d '\r' <"$run/console-$name.log" | grep -v '^VMTEST' | tail -30 >&2
    fi
    P=$((P + p))
    F=$((F + f))
}

# no-IOMMU mode: the card gets physical addresses. The host's model honours
# SetRawPacketReceiveMeta (rtl=0): snic_iova0=0 (the RTL's base-0 RX needs an IOMMU)
boot noiommu "" "ordk.extra=,snic_iova0=0" 1
# QEMU's vIOMMU: type1 with VFIO_IOMMU_MAP_DMA at IOVA = PA (the host follows guest-physical
# addresses, so no IOVA can be chosen for the SimpleNic buffer either); and QEMU's edu
# device, whose DMA goes through the vIOMMU, at the PMD's SimpleNic RX buffer at IOVA 0
# (dma_mask: all 64 bits, edu masks to 28 by default)
boot viommu "-device intel-iommu,intremap=on" \
    "ordk.viommu=1 ordk.extra=,iova=pa,snic_iova0=0 ordk.edu=$edu" 2 \
    "-device edu,dma_mask=0xffffffffffffffff"
t2=$(date +%s)
echo "vm-test: prepare $((t1 - t0)) s, two boots and tests $((t2 - t1)) s"
echo "$P passed, $F failed"
[ "$F" -eq 0 ] && [ "$P" -gt 0 ]
