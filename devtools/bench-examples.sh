#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The examples' figures in one run, against ordk-perf of the same run:
#   kv_transfer put/batch_get GB/s at 64 KiB and 4 MiB vs ordk-perf write_bw;
#   dm_txn committed transactions/s at theta 0.99 (YCSB-like and SmallBank);
#   blockstore 4 KiB IOPS at QD 32 (70% reads).
# Two processes over net_memif, one core each; every process time-bounded.
#   devtools/bench-examples.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}
. devtools/lib.sh
if [ "${1:-}" != "--no-build" ]; then
    devtools/setup.sh
    ordk_build "$BUILD"
fi
ex="$BUILD/examples"
perf="$BUILD/apps/ordk-perf/ordk-perf"
dir=$(mktemp -d /tmp/ordk-bex-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$dir"' EXIT
port=$((21000 + $$ % 20000))

two() { # <name> <server cmd...> ::: <client cmd...>
    local name=$1 server=() client=() rc=0
    shift
    while [ "$1" != ":::" ]; do server+=("$1"); shift; done
    shift
    client=("$@")
    timeout 150 "${server[@]}" >"$dir/$name.server" 2>&1 &
    local s=$!
    pids+=($s)
    timeout 150 "${client[@]}" >"$dir/$name" 2>&1 || rc=$?
    wait $s || rc=$?
    if [ $rc -ne 0 ]; then
        echo "bench-examples: $name failed:" >&2
        cat "$dir/$name" "$dir/$name.server" >&2
        exit 1
    fi
}

for s in 65536 4194304; do
    port=$((port + 1))
    two "perf_$s" "$perf" write_bw -p $port -s $s -n $((268435456 / s)) -Q 100 --no-progress \
        --report_gbits ::: "$perf" write_bw -p $port -s $s -n $((268435456 / s)) -Q 100 \
        --no-progress --report_gbits --out_json_file="$dir/perf_$s.json" 127.0.0.1
done
port=$((port + 1))
timeout 150 "$ex/kv_transfer/kv_transfer" meta -p $port -t 140 >"$dir/meta" 2>&1 &
pids+=($!)
two kv "$ex/kv_transfer/kv_transfer" worker -p $port -c $((port + 1)) -t 140 \
    ::: "$ex/kv_transfer/kv_transfer" client -p $port -c $((port + 1)) --bench --shutdown
port=$((port + 2))
two txn_ycsb "$ex/dm_txn/dm_txn" memory -c $port -t 140 \
    ::: "$ex/dm_txn/dm_txn" compute -c $port -D 5 --workload ycsb --theta 0.99
port=$((port + 1))
two txn_bank "$ex/dm_txn/dm_txn" memory -c $port -t 140 \
    ::: "$ex/dm_txn/dm_txn" compute -c $port -D 5 --workload smallbank --theta 0.99
port=$((port + 1))
two blk "$ex/blockstore/blockstore" target -c $port -t 140 \
    ::: "$ex/blockstore/blockstore" client -c $port --qd 32 -n 300000

python3 - "$dir" <<'PY'
import json, re, sys
d = sys.argv[1]
gb = lambda name: json.load(open(f"{d}/{name}.json"))["results"]["BW_average"] / 8
kv = {}
for line in open(f"{d}/kv"):
    m = re.match(r"\s*(put|batch_get)\s+(\d+)\s+\d+\s+[\d.]+\s+([\d.]+)", line)
    if m:
        kv[(m.group(1), int(m.group(2)))] = float(m.group(3))
push = re.search(r"one 4 MiB push: ([\d.]+) us", open(f"{d}/kv").read()).group(1)
def txn(name):
    t = open(f"{d}/{name}").read()
    c = re.search(r"committed\s+\d+\s+(\d+)", t).group(1)
    a = re.search(r"\(([\d.]+)%", t).group(1)
    p50 = re.search(r"p50 ([\d.]+)", t).group(1)
    p99 = re.search(r"p99 ([\d.]+)", t).group(1)
    return c, a, p50, p99
blk = open(f"{d}/blk").read()
iops = re.search(r"total\s+\d+\s+(\d+)", blk).group(1)
rp = re.search(r"read\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)", blk)
print("Examples over bluesim, two processes on net_memif (one core each), one run")
print("%-44s %14s %14s %8s" % ("figure", "example", "ordk-perf", "ratio"))
for s, label in ((65536, "64 KiB"), (4194304, "4 MiB")):
    w = gb(f"perf_{s}")
    for op in ("put", "batch_get"):
        v = kv[(op, s)]
        print("%-44s %11.2f GB/s %9.2f GB/s %8.2f" % (f"kv_transfer {op} {label} / write_bw", v, w, v / w))
print("%-44s %11s us" % ("kv_transfer one 4 MiB push (median of 21)", push))
for name, label in (("txn_ycsb", "YCSB-like"), ("txn_bank", "SmallBank")):
    c, a, p50, p99 = txn(name)
    print("%-44s %11s tx/s   aborts %s%%  p50 %s us  p99 %s us" % (f"dm_txn {label} committed, theta 0.99", c, a, p50, p99))
print("%-44s %11s IOPS   read p50 %s us  p99 %s us" % ("blockstore 4 KiB, QD 32, 70% reads", iops, rp.group(1), rp.group(2)))
PY
