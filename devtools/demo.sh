#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's first command: install what is missing, build, and run
# ordk-perf write_bw and write_lat between two processes over net_memif
# (server on lcore 0, client on lcore 1), printing perftest's tables. On a
# one-CPU machine both sides run in one process instead (--loopback).
# Every process runs under a time bound and is stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}

. devtools/lib.sh

devtools/setup.sh
ordk_build "$BUILD"
echo

perf="$BUILD/apps/ordk-perf/ordk-perf"
port=${ORDK_DEMO_PORT:-18515}
log=$(mktemp /tmp/ordk-demo-XXXXXX)
server=
cleanup() {
    [ -n "$server" ] && kill "$server" 2>/dev/null || true
    rm -f "$log"
}
trap cleanup EXIT

run_pair() { # <test> [options...]: server in the background, the client prints
    local test=$1 rc=0
    shift
    timeout 60 "$perf" "$test" -p "$port" --no-progress "$@" >"$log" 2>&1 &
    server=$!
    timeout 60 "$perf" "$test" -p "$port" --no-progress "$@" 127.0.0.1 || rc=$?
    wait "$server" || rc=$?
    server=
    if [ $rc -ne 0 ]; then
        echo "demo: ordk-perf $test failed (exit $rc); the server said:"
        cat "$log"
        exit 1
    fi
}

if [ "$(nproc)" -ge 2 ]; then
    echo "=== ordk-perf over bluesim: two processes joined by net_memif, one core each"
    run_pair write_bw -s 65536 -n 20000 --verify
    run_pair write_lat -s 8 -n 20000
else
    echo "=== ordk-perf over bluesim: one CPU, so both sides in one process (--loopback)"
    timeout 60 "$perf" write_bw --loopback -s 65536 -n 20000 --verify --no-progress
    timeout 60 "$perf" write_lat --loopback -s 8 -n 20000 --no-progress
fi
echo
echo "demo: done. Numbers are from a software model (bluesim) on this machine, not from the card."
echo "      More: devtools/bench.sh (against TCP, memcpy and the raw port), doc/guides/tools/apps.md."
