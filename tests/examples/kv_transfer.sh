#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# examples/kv_transfer on one machine: the metadata service, a worker and a
# client (net_memif between the two pollers), every block verified.
#   kv_transfer.sh <kv_transfer binary> <base port> [extra devargs, e.g. ,fault=drop:0.01]
set -u
. "$(dirname "$0")/wait_ready.sh"
kv=$1 base=$2 extra=${3:-}
dir=$(mktemp -d /tmp/ordk-kv-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
timeout 90 "$kv" meta -p "$base" -t 80 >"$dir/meta" 2>&1 &
pids+=($!)
meta=$!
wait_tcp "$base" $meta 60 || { echo "FAIL: the metadata service never listened"; exit 1; }
timeout 90 "$kv" worker -d "bluesim,port=0$extra" -p "$base" -c $((base + 1)) -t 80 \
    >"$dir/worker" 2>&1 &
pids+=($!)
worker=$!
wait_listen "/tmp/ordk-kv-$((base + 1)).sock" $worker 60 || { echo "FAIL: the worker never got ready"; exit 1; }
timeout 90 "$kv" client -d "bluesim,port=0$extra" -p "$base" -c $((base + 1)) --shutdown \
    >"$dir/client" 2>&1
rc=$?
wait $worker
wrc=$?
wait $meta
two_verdict "$dir" $rc $wrc worker
grep -q '^client: every block verified' "$dir/client" || { echo "FAIL: not verified"; exit 1; }
[ "$(grep -cE '^ (put|batch_get) ' "$dir/client")" -eq 4 ] || { echo "FAIL: rows"; exit 1; }
grep -q 'the client said bye' "$dir/worker" || { echo "FAIL: the worker did not end on bye"; exit 1; }
echo PASS
