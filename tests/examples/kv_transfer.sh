#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# examples/kv_transfer on one machine: the metadata service, a worker and a
# client (net_memif between the two pollers), every block verified; the
# worker closes only once its client has left (a client that lingers longer
# than the worker's old fixed quiet, --linger 3, shows it waits).
#   kv_transfer.sh <kv_transfer binary> <base port> [extra devargs, e.g. ,fault=drop:0.01]
#                  [extra client options, e.g. --linger 3]
set -u
. "$(dirname "$0")/wait_ready.sh"
kv=$1 base=$2 extra=${3:-} cextra=${4:-}
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
# With --linger S the worker must outlive the client's bye by about S: time it
# from the bye line to its end (a zombie, not yet reaped, counts as ended).
linger=$(sed -n 's/.*--linger \([0-9.]*\).*/\1/p' <<<"$cextra")
alive() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }
if [ -n "$linger" ]; then
    (
        until grep -q 'the client said bye' "$dir/worker"; do alive $worker || exit 0; sleep 0.01; done
        t0=$(date +%s.%N)
        while alive $worker; do sleep 0.01; done
        awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f\n", b - a }' >"$dir/stay"
    ) &
    watch=$!
fi
timeout 90 "$kv" client -d "bluesim,port=0$extra" -p "$base" -c $((base + 1)) --shutdown \
    $cextra >"$dir/client" 2>&1
rc=$?
wait $worker
wrc=$?
wait $meta
two_verdict "$dir" $rc $wrc worker
grep -q '^client: every block verified' "$dir/client" || { echo "FAIL: not verified"; exit 1; }
[ "$(grep -cE '^ (put|batch_get) ' "$dir/client")" -eq 4 ] || { echo "FAIL: rows"; exit 1; }
grep -q 'the client said bye' "$dir/worker" || { echo "FAIL: the worker did not end on bye"; exit 1; }
grep -q '^worker: the client left' "$dir/worker" ||
    { echo "FAIL: the worker closed before its client left"; exit 1; }
if [ -n "$linger" ]; then
    wait $watch
    stay=$(cat "$dir/stay" 2>/dev/null)
    echo "the worker stayed ${stay:-?} s after the bye (the client lingered $linger s)"
    awk -v s="${stay:-0}" -v l="$linger" 'BEGIN { exit !(s >= l - 0.5) }' ||
        { echo "FAIL: the worker did not wait for its client"; exit 1; }
fi
echo PASS
