#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what ORDK needs on Debian 12 and reserve 2 MiB hugepages.
# Idempotent: installs only missing packages, runs 'apt-get update' only when
# the package lists are missing or an install fails for want of them.
# Environment: ORDK_HUGEPAGES (2 MiB pages to reserve, default 1280 = 2.5 GiB, enough for
# the 1 GiB WRITE test with its source and destination; 0 = none).
set -euo pipefail

PKGS=(
    gcc libc6-dev pkg-config meson ninja-build python3   # build
    dpdk-dev libdpdk-dev                                 # DPDK 22.11 (EAL, ethdev, hash, ...)
    libisal-dev libpcap-dev                              # CRC-32 (FCS); pcapng read-back in tests
    libcriterion-dev                                     # unit tests
    clang libclang-rt-14-dev                             # libFuzzer targets
    libibverbs-dev                                       # <infiniband/verbs.h>: lib/ibverbs is built on it
    perftest ibverbs-utils qperf                         # unmodified verbs binaries (suites verbs-abi, ecosystem)
    librdmacm-dev rdmacm-utils                           # <rdma/rdma_cma.h>: lib/rdmacm; rping, ucmatose (suite ecosystem)
    ucx-utils libfabric-bin                              # ucx_info/ucx_perftest, fi_info/fi_pingpong (suite ecosystem)
    fio                                                  # its rdma ioengine, an rdma_cm program (suite ecosystem)
    libmemcached-dev memcached                           # lib/cm's rendezvous; its tests' server
    libjansson-dev                                       # the cluster config (JSON)
    libhiredis-dev redis-server                          # kv_transfer's metadata store
    iproute2                                             # devtools/cluster.sh (netns, veth)
    python3-prometheus-client                            # ordk-stat --prometheus parsed (suite apps)
    python3-matplotlib                                   # devtools/plot-latency.py, cc-plot.py (PNGs; test plot_latency)
)

say() { echo "setup: $*"; }

missing=()
for p in "${PKGS[@]}"; do
    st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$st" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        say "missing packages: ${missing[*]}; run this script as root to install them" >&2
        exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    install() { apt-get install -y -q --no-install-recommends "${missing[@]}"; }
    if ! compgen -G '/var/lib/apt/lists/*_Packages' >/dev/null; then
        say "package lists are empty: apt-get update"
        apt-get update -q
    fi
    say "installing: ${missing[*]}"
    if ! install; then
        say "install failed; refreshing package lists and retrying"
        apt-get update -q
        install
    fi
else
    say "all ${#PKGS[@]} packages present"
fi

# Hugepages: DPDK runs without them (--no-huge), but the card needs 2 MiB
# pages where it DMAs by physical address, and big MRs go faster on them.
want=${ORDK_HUGEPAGES:-1280}
hp=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
if [ ! -e "$hp" ]; then
    say "hugepages: this kernel has no 2 MiB hugepages; tests run with --no-huge"
else
    have=$(cat "$hp")
    if [ "$have" -lt "$want" ]; then
        if [ -w "$hp" ] && echo "$want" > "$hp" 2>/dev/null; then
            have=$(cat "$hp")
        fi
    fi
    if [ "$have" -ge "$want" ] && [ "$want" -gt 0 ]; then
        say "hugepages: $have x 2 MiB reserved"
    elif [ "$have" -gt 0 ]; then
        say "hugepages: only $have of $want x 2 MiB reserved (memory fragmented or not root)"
    else
        say "hugepages: none reserved; tests run with --no-huge"
    fi
fi
