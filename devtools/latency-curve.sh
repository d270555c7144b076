#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The latency curve: ordk-perf write_lat, send_lat and read_lat -a (two
# processes over net_memif, server lcore 0, client lcore 1) with --histogram,
# and ordk-baseline's raw ping-pong of 64 B and 4 KiB frames over the same
# kind of port beside them, in one run; then devtools/plot-latency.py draws
# the PNG and prints the summary, and issue 31's latency criteria are judged
# on ordk-perf's own rows (t_typical, 99% and 99.9% percentile) up to 64 KiB:
#   step:  t_typical at most 2x the next smaller size's
#   4k:    t_typical at 4 KiB at most 2x the raw 4 KiB frame's RTT/2
#   p99:   under 1 ms
#   p99.9: at most 3x the raw frame's p99.9 (64 B frames for sizes <= 64 B,
#          4 KiB frames for 4 KiB; other sizes have no raw twin)
# Two pollers run: hold the poll lock around it on a shared machine
# (flock /tmp/ordk-poll.lock devtools/latency-curve.sh ...).
#   devtools/latency-curve.sh [-n ITERS] [-o OUT.png] [--keep DIR] [--tests "write_lat ..."]
#     -n      iterations per size, raw frames too (default 1000, perftest's; an 8 MiB
#             iteration takes ~12 ms)
#     -o      the PNG (default latency-curve.png)
#     --keep  leave the histogram files and outputs in DIR
# ORDK_BUILD_DIR: the build (default build). Exit 1 when a run fails; the
# criteria are reported, not enforced (this is no test: a shared VM is noisy).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}
n=1000 out=latency-curve.png keep= tests="write_lat send_lat read_lat"
while [ $# -gt 0 ]; do
    case $1 in
    -n) n=${2:?-n ITERS}; shift ;;
    -o) out=${2:?-o OUT.png}; shift ;;
    --keep) keep=${2:?--keep DIR}; shift ;;
    --tests) tests=${2:?--tests LIST}; shift ;;
    *) echo "usage: devtools/latency-curve.sh [-n ITERS] [-o OUT.png] [--keep DIR] [--tests LIST]" >&2
       exit 1 ;;
    esac
    shift
done
perf=$BUILD/apps/ordk-perf/ordk-perf base=$BUILD/apps/ordk-perf/ordk-baseline
[ -x "$perf" ] && [ -x "$base" ] || { echo "latency-curve: build first ($perf)" >&2; exit 1; }
if [ -n "$keep" ]; then mkdir -p "$keep"; dir=$keep; else dir=$(mktemp -d /tmp/ordk-curve-XXXXXX); fi
pid=
cleanup() { [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; [ -n "$keep" ] || rm -rf "$dir"; }
trap cleanup EXIT
port=$((23000 + $$ % 5000))

for size in 64 4096; do
    sock="$dir/pp.sock"
    timeout 60 "$base" raw_pong "$sock" >"$dir/raw_pong" 2>&1 &
    pid=$!
    timeout 120 "$base" raw_ping $size "$n" "$sock" \
        --histogram="$dir/raw_$size.csv" >"$dir/raw_ping_$size" 2>&1 || true
    wait $pid && grep -q '^raw_pingpong' "$dir/raw_ping_$size" ||
        { echo "latency-curve: raw ping-pong $size B failed:" >&2; cat "$dir/raw_ping_$size" "$dir/raw_pong" >&2; exit 1; }
    pid=
    cat "$dir/raw_ping_$size"
done
for t in $tests; do
    port=$((port + 1))
    timeout 900 "$perf" $t -p $port --no-progress >"$dir/$t.server" 2>&1 &
    pid=$!
    timeout 900 "$perf" $t -p $port --no-progress -a -n "$n" --histogram="$dir/$t.csv" 127.0.0.1 \
        >"$dir/$t.client" 2>&1 || { echo "latency-curve: $t failed:" >&2; cat "$dir/$t.client" >&2; exit 1; }
    wait $pid || { echo "latency-curve: the $t server failed:" >&2; cat "$dir/$t.server" >&2; exit 1; }
    pid=
    sed -n '/#bytes/,/^---/p' "$dir/$t.client" | sed '$d'
done
# shellcheck disable=SC2046 # one file per test
python3 devtools/plot-latency.py -o "$out" --title "ORDK latency by size (bluesim, net_memif, $(date -u +%F))" \
    "$dir"/raw_64.csv "$dir"/raw_4096.csv $(for t in $tests; do echo "$dir/$t.csv"; done)
python3 - "$dir" $tests <<'PY'
import sys
d, tests = sys.argv[1], sys.argv[2:]
raw = {}
for size in (64, 4096):
    for line in open(f"{d}/raw_ping_{size}"):
        k, v = line.split()
        raw[k] = float(v)
print()
print("issue 31's latency criteria (ordk-perf's rows up to 64 KiB; raw = ordk-baseline raw_ping):")
for t in tests:
    rows = []
    for line in open(f"{d}/{t}.client"):
        f = line.split()
        if len(f) >= 9 and f[0].isdigit() and f[1].isdigit():
            rows.append((int(f[0]), float(f[4]), float(f[7]), float(f[8])))
    rows = [r for r in rows if r[0] <= 65536]
    steps = [(b, typ / prev) for (b, typ, _, _), (_, prev, _, _) in zip(rows[1:], rows)]
    worst = max(steps, key=lambda s: s[1])
    typ4k = [typ for b, typ, _, _ in rows if b == 4096][0]
    p99max = max(rows, key=lambda r: r[2])
    tail = []
    for b, _, _, p999 in rows:
        floor = raw["raw_pingpong_64b_p999_us"] if b <= 64 else \
            raw["raw_pingpong_4096b_p999_us"] if b == 4096 else None
        if floor:
            tail.append((b, p999 / floor))
    wt = max(tail, key=lambda s: s[1])
    ok = lambda c: "met" if c else "MISSED"
    print(f"  {t}: largest step {worst[1]:.2f}x at {worst[0]} B ({ok(worst[1] <= 2)}); "
          f"4 KiB {typ4k:.2f} us = {typ4k / raw['raw_pingpong_4096b_us']:.2f}x raw RTT/2 "
          f"({ok(typ4k <= 2 * raw['raw_pingpong_4096b_us'])}); "
          f"p99 at most {p99max[2]:.1f} us at {p99max[0]} B ({ok(p99max[2] < 1000)}); "
          f"p99.9 at most {wt[1]:.2f}x raw at {wt[0]} B ({ok(wt[1] <= 3)})")
PY
