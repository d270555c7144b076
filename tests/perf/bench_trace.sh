#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What the QPs' event timelines cost (devarg trace=1, doc/guides/tools/operations.md):
# ordk-perf write_bw --loopback (one process, one lcore) with trace=0 and trace=1,
# loss-free and at 1% loss (where every NAK, retransmission burst and timeout is an
# event), alternating REPEAT times; prints each case's median BW and trace=1's
# against trace=0. Suite 'perf' (opt-in): a timed comparison fails on no machine.
#   bench_trace.sh <ordk-perf>   (env: BENCH_TRACE_SECS per run, default 3; BENCH_TRACE_REPEAT, 3)
set -u
perf=$1
secs=${BENCH_TRACE_SECS:-3}
repeat=${BENCH_TRACE_REPEAT:-3}
dir=$(mktemp -d /tmp/ordk-bench-trace-XXXXXX)
trap 'rm -rf "$dir"' EXIT

run() { # <devargs suffix> -> BW average MiB/s
    timeout $((secs + 60)) "$perf" write_bw --loopback -D "$secs" --no-progress \
        -d "bluesim,port=0$1" --out_json --out_json_file="$dir/out.json" >"$dir/log" 2>&1 ||
        { cat "$dir/log"; echo "FAIL: ordk-perf -d bluesim,port=0$1"; exit 1; }
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"]["BW_average"])' \
        "$dir/out.json"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for loss in "" ",fault=drop:0.01,seed=5"; do
    : >"$dir/off"
    : >"$dir/on"
    for _ in $(seq "$repeat"); do
        run "$loss" >>"$dir/off"
        run "$loss,trace=1" >>"$dir/on"
    done
    off=$(median <"$dir/off") on=$(median <"$dir/on")
    printf 'write_bw 64 KiB%-22s trace=0 %10.2f MiB/s  trace=1 %10.2f MiB/s  (%+.1f%%)\n' \
        "${loss:+ at 1% loss}" "$off" "$on" "$(echo "$on $off" | awk '{ print ($1 / $2 - 1) * 100 }')"
done
