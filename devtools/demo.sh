#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's first command: install what is missing, build, and run RDMA
# over bluesim, printing perftest-style tables:
#   1. examples/loopback --bench: two devices in one process (net_ring):
#      every opcode checked, then RDMA WRITE bandwidth and latency tables;
#   2. examples/send_recv: two processes over net_memif, one core each:
#      a SEND/RECV ping-pong with latency percentiles.
# Every process runs under a time bound and is stopped by its PID.
# (ordk-perf, perftest's twin, replaces these with the tools issue.)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}

devtools/setup.sh
if [ -f "$BUILD/build.ninja" ]; then
    meson setup --reconfigure "$BUILD" >/dev/null || meson setup --wipe "$BUILD" >/dev/null
else
    meson setup "$BUILD" >/dev/null
fi
ninja -C "$BUILD" >/dev/null
echo

echo "=== 1. loopback: two bluesim devices in one process, joined by net_ring"
timeout 120 "$BUILD/examples/loopback/loopback" --bench -n 2000 2>&1 | grep -v '^EAL:\|^TELEMETRY:'
echo

echo "=== 2. send_recv: two processes over net_memif (server on lcore 0, client on lcore 1)"
sock=/tmp/ordk-demo-$$.sock
rm -f "$sock"
common="--no-pci --no-huge -m 512 --no-shconf --no-telemetry --log-level=4"
timeout 60 "$BUILD/examples/send_recv/send_recv" -l 0 $common --file-prefix=ordk-demo-s-$$ \
    --vdev=net_memif0,role=server,socket=$sock,bsize=8192 -- -n 20000 -p 18600 \
    > /tmp/ordk-demo-server-$$.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$sock" /tmp/ordk-demo-server-$$.log' EXIT
rc=0
timeout 60 "$BUILD/examples/send_recv/send_recv" -l 1 $common --file-prefix=ordk-demo-c-$$ \
    --vdev=net_memif0,role=client,socket=$sock,bsize=8192 -- -n 20000 -p 18600 127.0.0.1 \
    2>&1 | grep -v '^EAL:\|^TELEMETRY:' || rc=$?
wait $server || rc=$?
grep -v '^EAL:\|^TELEMETRY:' /tmp/ordk-demo-server-$$.log || true
echo
if [ $rc -ne 0 ]; then
    echo "demo: FAILED (exit $rc)"
    exit 1
fi
echo "demo: done. Numbers are from a software model on this machine, not from the card."
