#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ORDK against what a user would pick instead, in one run on this machine:
#   ordk-perf between two processes over net_memif (one core each): write_bw
#   64 KiB, write_bw 8 B (message rate), write_lat 8 B and 4 KiB, send_lat 8 B,
#   read_bw 64 KiB, read_lat 8 B, atomic_bw; and the baselines (ordk-baseline):
#   TCP over loopback (bulk, 8 B and 64 B ping-pong), one core's memcpy, raw
#   frames over the same net_memif port (the rate, and a ping-pong of 64 B and
#   4 KiB frames: the latency's wire floor). Prints a table of figures and
#   ratios, then one line per comparison: "ratio <name>: <value>".
#
#   devtools/bench.sh [--no-build] [--quick] [--repeat N] [--against DIR]
#     --no-build  use the existing build (ORDK_BUILD_DIR, default build)
#     --quick     shorter runs (a smoke test of this script)
#     --repeat N  measure everything N times (default 3), baselines and ORDK
#                 alternating; each ratio is taken within one repetition and
#                 the table shows the median and the range. (Shared machines
#                 swing: net_memif alone was seen at 20 and at 280 Gb/s.)
#     --against DIR  another build directory (e.g. of an older commit): each
#                 ordk-perf pair runs with its ordk-perf too, right before or
#                 after this build's (in turn), and a second table gives,
#                 per figure, this build against that one as a speed ratio
#                 (latencies inverted: above 1 is faster; median and range of
#                 the per-pair ratios, and the ratio of the two builds' best
#                 runs, as noise only slows runs down). Before/after comparisons need
#                 this: the machine's state changes within minutes, and TCP
#                 does not follow it.
#     --no-prio   run everything as started. By default every process runs at
#                 nice -20 in a session of its own whose scheduler group gets
#                 nice -20 too (devtools/lib.sh ordk_prio_session; root): the
#                 other work on the machine (builds, tests) then takes a core
#                 from a benchmark for about 1% of the time instead of half,
#                 so a pair's two runs measure the builds, not their neighbours.
# Every process runs under a time bound and is stopped by its PID.
set -euo pipefail
self=$(realpath "$0") args=("$@")
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}
build=1 quick=0 repeat=3 against= prio=(nice -n -20)
while [ $# -gt 0 ]; do
    case $1 in
    --no-build) build=0 ;;
    --no-prio) prio=() ;;
    --quick) quick=1 ;;
    --repeat)
        repeat=${2:-}
        shift
        [[ $repeat =~ ^[1-9][0-9]?$ ]] || { echo "bench: --repeat 1..99" >&2; exit 1; } ;;
    --against)
        against=${2:-}
        shift
        [ -x "$against/apps/ordk-perf/ordk-perf" ] ||
            { echo "bench: --against DIR: no DIR/apps/ordk-perf/ordk-perf" >&2; exit 1; } ;;
    *) echo "usage: devtools/bench.sh [--no-build] [--quick] [--repeat N] [--against DIR] [--no-prio]" >&2
       exit 1 ;;
    esac
    shift
done

. devtools/lib.sh
[ ${#prio[@]} -eq 0 ] || "${prio[@]}" true 2>/dev/null || prio=()
ORDK_PRIO_GROUP="as started"
[ ${#prio[@]} -eq 0 ] || ordk_prio_session -20 "$self" ${args[@]+"${args[@]}"}
echo "bench: processes ${prio[*]:-as started}, scheduler group: $ORDK_PRIO_GROUP, load: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ $build = 1 ]; then
    devtools/setup.sh
    ordk_build "$BUILD"
fi
perf="$BUILD/apps/ordk-perf/ordk-perf"
base="$BUILD/apps/ordk-perf/ordk-baseline"
[ -x "$perf" ] && [ -x "$base" ] || { echo "bench: build first ($perf)" >&2; exit 1; }
if [ "$(nproc)" -lt 2 ]; then
    echo "bench: needs two CPUs (two processes, one core each)" >&2
    exit 1
fi

dir=$(mktemp -d /tmp/ordk-bench-XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    rm -rf "$dir"
}
trap cleanup EXIT
port=$((20000 + $$ % 20000))
if [ $quick = 1 ]; then n_bw=3000 n_rate=100000 n_lat=3000 secs=0.5; else
    n_bw=100000 n_rate=3000000 n_lat=50000 secs=2; fi

figures="$dir/figures"
: >"$figures"
rep=0
fig() { echo "$rep $1 $2" >>"$figures"; }

run_pair() { # <ordk-perf> <name> <test> [options...]: both sides over net_memif, JSON: the client
    local bin=$1 name=$2 test=$3 rc=0
    shift 3
    port=$((port + 1))
    ${prio[@]+"${prio[@]}"} timeout 120 "$bin" "$test" -p $port --no-progress "$@" >"$dir/$name.server" 2>&1 &
    local srv=$!
    pids+=($srv)
    ${prio[@]+"${prio[@]}"} timeout 120 "$bin" "$test" -p $port --no-progress --out_json_file="$dir/$name.json" "$@" \
        127.0.0.1 >"$dir/$name.client" 2>&1 || rc=$?
    wait $srv || rc=$?
    if [ $rc -ne 0 ]; then
        echo "bench: $bin $test $* failed (exit $rc):" >&2
        cat "$dir/$name.client" "$dir/$name.server" >&2
        exit 1
    fi
    sed -n '/#bytes/,/^---/p' "$dir/$name.client" | sed '$d' | sed "s/^/  [$rep:$name] /"
}

pair() { # <name> <test> [options...]: this build and (--against) the other one, in turn first
    local name=$1
    if [ -z "$against" ]; then
        run_pair "$perf" "$@"
        return
    fi
    shift
    if [ $((rep % 2)) = 1 ]; then
        run_pair "$perf" "$name" "$@"
        run_pair "$against/apps/ordk-perf/ordk-perf" "against_$name" "$@"
    else
        run_pair "$against/apps/ordk-perf/ordk-perf" "against_$name" "$@"
        run_pair "$perf" "$name" "$@"
    fi
}

json() { # <name> <field>: a field of the results (perftest's JSON: one object, one size)
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][sys.argv[2]])' \
        "$dir/$1.json" "$2"
}

for rep in $(seq 1 $repeat); do
    echo "=== repetition $rep of $repeat: baselines"
    for line in "$("$base" tcp_bulk $secs)" "$("$base" tcp_pingpong 8 $n_lat)" \
        "$("$base" tcp_pingpong 64 $n_lat)" "$("$base" memcpy 65536 $secs)"; do
        echo "  $line"
        fig $line
    done
    for size in 64 4096; do
        sock="$dir/raw.sock"
        timeout 60 "$base" raw_rx $size $secs "$sock" >"$dir/raw_rx" 2>&1 &
        rx=$!
        pids+=($rx)
        timeout 60 "$base" raw_tx $size $secs "$sock" >"$dir/raw_tx" 2>&1 || true
        wait $rx || { echo "bench: raw net_memif $size B failed:" >&2; cat "$dir/raw_rx" "$dir/raw_tx" >&2; exit 1; }
        while read -r k v; do echo "  $k $v"; fig "$k" "$v"; done < <(grep '^raw_memif' "$dir/raw_rx")
        # the same port's ping-pong: RTT/2 typical, p99, p99.9 (ordk-perf's statistics)
        timeout 60 "$base" raw_pong "$sock" >"$dir/raw_pong" 2>&1 &
        pp=$!
        pids+=($pp)
        timeout 60 "$base" raw_ping $size $n_lat "$sock" >"$dir/raw_ping" 2>&1 || true
        wait $pp && grep -q '^raw_pingpong' "$dir/raw_ping" ||
            { echo "bench: raw ping-pong $size B failed:" >&2; cat "$dir/raw_ping" "$dir/raw_pong" >&2; exit 1; }
        while read -r k v; do echo "  $k $v"; fig "$k" "$v"; done < <(grep '^raw_pingpong' "$dir/raw_ping")
    done

    echo "=== repetition $rep of $repeat: ordk-perf, two processes over net_memif"
    # -Q 100: the moderation the targets were set with (perftest turns it off above 8 KiB)
    pair write_bw_64k write_bw -s 65536 -n $n_bw -Q 100
    pair write_bw_8b write_bw -s 8 -n $n_rate -t 512 -Q 64
    pair write_lat_8b write_lat -s 8 -n $n_lat
    pair write_lat_4k write_lat -s 4096 -n $n_lat
    pair send_lat_8b send_lat -s 8 -n $n_lat
    pair read_bw_64k read_bw -s 65536 -n $((n_bw / 4)) -Q 100
    pair read_lat_8b read_lat -s 8 -n $n_lat
    pair atomic_bw atomic_bw -n $((n_bw / 4))
    fig write_bw_64k_mibs "$(json write_bw_64k BW_average)"
    fig write_bw_8b_mpps "$(json write_bw_8b MsgRate)"
    fig write_lat_8b_us "$(json write_lat_8b t_typical)"
    fig write_lat_8b_p999_us "$(json write_lat_8b percentile_99.9)"
    fig write_lat_4k_us "$(json write_lat_4k t_typical)"
    fig write_lat_4k_p99_us "$(json write_lat_4k percentile_99)"
    fig write_lat_4k_p999_us "$(json write_lat_4k percentile_99.9)"
    fig send_lat_8b_us "$(json send_lat_8b t_typical)"
    fig read_bw_64k_mibs "$(json read_bw_64k BW_average)"
    fig read_lat_8b_us "$(json read_lat_8b t_typical)"
    fig atomic_bw_mpps "$(json atomic_bw MsgRate)"
    if [ -n "$against" ]; then
        fig against_write_bw_64k_mibs "$(json against_write_bw_64k BW_average)"
        fig against_write_bw_8b_mpps "$(json against_write_bw_8b MsgRate)"
        fig against_write_lat_8b_us "$(json against_write_lat_8b t_typical)"
        fig against_write_lat_4k_us "$(json against_write_lat_4k t_typical)"
        fig against_send_lat_8b_us "$(json against_send_lat_8b t_typical)"
        fig against_read_bw_64k_mibs "$(json against_read_bw_64k BW_average)"
        fig against_read_lat_8b_us "$(json against_read_lat_8b t_typical)"
        fig against_atomic_bw_mpps "$(json against_atomic_bw MsgRate)"
    fi
done

echo
python3 - "$figures" "$repeat" "$against" <<'PY'
import statistics, sys
reps = {}
for line in open(sys.argv[1]):
    r, k, v = line.split()
    reps.setdefault(int(r), {})[k] = float(v)
gb = lambda mibs: mibs * 1048576 * 8 / 1e9
# name, ORDK figure, baseline figure (functions of one repetition), units, target
comps = [
    ("write_bw_64k/tcp_bulk", lambda f: gb(f["write_bw_64k_mibs"]), lambda f: f["tcp_bulk_gbps"],
     "Gb/s", ">= 2", lambda r: r >= 2),
    ("write_bw_64k/memcpy", lambda f: gb(f["write_bw_64k_mibs"]), lambda f: f["memcpy_gbps"],
     "Gb/s", "", None),
    ("write_bw_64k/raw_wire_4k", lambda f: gb(f["write_bw_64k_mibs"]),
     lambda f: f["raw_memif_4096b_gbps"], "Gb/s", "", None),
    ("write_lat_8b/tcp_pingpong_64b", lambda f: f["write_lat_8b_us"],
     lambda f: f["tcp_pingpong_64b_us"], "us", "<= 0.15", lambda r: r <= 0.15),
    ("write_lat_8b/tcp_pingpong_8b", lambda f: f["write_lat_8b_us"],
     lambda f: f["tcp_pingpong_8b_us"], "us", "", None),
    ("send_lat_8b/tcp_pingpong_8b", lambda f: f["send_lat_8b_us"],
     lambda f: f["tcp_pingpong_8b_us"], "us", "", None),
    # the wire floor: raw frames' ping-pong over the same net_memif port (issue 31's targets)
    ("write_lat_8b/raw_pingpong_64b", lambda f: f["write_lat_8b_us"],
     lambda f: f["raw_pingpong_64b_us"], "us", "", None),
    ("send_lat_8b/raw_pingpong_64b", lambda f: f["send_lat_8b_us"],
     lambda f: f["raw_pingpong_64b_us"], "us", "", None),
    ("write_lat_8b_p999/raw_pingpong_64b_p999", lambda f: f["write_lat_8b_p999_us"],
     lambda f: f["raw_pingpong_64b_p999_us"], "us", "<= 3", lambda r: r <= 3),
    ("write_lat_4k/raw_pingpong_4k", lambda f: f["write_lat_4k_us"],
     lambda f: f["raw_pingpong_4096b_us"], "us", "<= 2", lambda r: r <= 2),
    ("write_lat_4k_p999/raw_pingpong_4k_p999", lambda f: f["write_lat_4k_p999_us"],
     lambda f: f["raw_pingpong_4096b_p999_us"], "us", "<= 3", lambda r: r <= 3),
    ("write_lat_4k_p99/1ms", lambda f: f["write_lat_4k_p99_us"], lambda f: 1000.0, "us",
     "< 1", lambda r: r < 1),
    ("write_rate_8b/raw_wire_64b", lambda f: f["write_bw_8b_mpps"],
     lambda f: f["raw_memif_64b_mpps"], "M/s", "", None),
    ("write_rate_8b/target_3m", lambda f: f["write_bw_8b_mpps"], lambda f: 3.0, "M/s", ">= 1",
     lambda r: r >= 1),
    ("read_bw_64k/write_bw_64k", lambda f: gb(f["read_bw_64k_mibs"]),
     lambda f: gb(f["write_bw_64k_mibs"]), "Gb/s", "", None),
    ("atomic_rate/write_rate_8b", lambda f: f["atomic_bw_mpps"], lambda f: f["write_bw_8b_mpps"],
     "M/s", "", None),
]
print("ORDK over bluesim (two processes, net_memif, one core each) vs baselines;")
print("medians of %d repetitions, each ratio taken within one repetition" % len(reps))
print("%-40s %16s %16s %7s %15s %8s" % ("comparison", "ORDK", "baseline", "ratio", "ratio range",
                                       "target"))
out = []
for name, a, b, unit, tgt, ok in comps:
    ra = [a(f) for f in reps.values()]
    rb = [b(f) for f in reps.values()]
    rr = [x / y for x, y in zip(ra, rb)]
    med = statistics.median(rr)
    mark = "" if ok is None else ("  met" if ok(med) else "  MISSED")
    print("%-40s %11.2f %-4s %11.2f %-4s %7.3f %7.3f-%-7.3f %8s%s" % (
        name, statistics.median(ra), unit, statistics.median(rb), unit, med, min(rr), max(rr),
        tgt, mark))
    out.append((name, med))
print()
for name, med in out:
    print("ratio %s: %.3f" % (name, med))
if sys.argv[3]:
    # --against: each figure of this build over the other build's, pair by pair, as a speed
    # ratio (latencies inverted), so that above 1 is better everywhere. The machine's noise
    # only ever slows a run down, so the ratio of each build's best run is printed too.
    print()
    print("this build against %s (speed ratios: above 1 is better; each pair's two runs back"
          % sys.argv[3])
    print("to back; best: ratio of each build's best run)")
    print("%-22s %12s %12s %7s %15s %7s" % ("figure", "this", "other", "ratio", "ratio range",
                                            "best"))
    out = []
    for k in ["write_bw_64k_mibs", "write_bw_8b_mpps", "write_lat_8b_us", "write_lat_4k_us",
              "send_lat_8b_us", "read_bw_64k_mibs", "read_lat_8b_us", "atomic_bw_mpps"]:
        a = [f[k] for f in reps.values()]
        b = [f["against_" + k] for f in reps.values()]
        lat = k.endswith("_us")
        rr = [(y / x) if lat else (x / y) for x, y in zip(a, b)]
        best = (min(b) / min(a)) if lat else (max(a) / max(b))
        print("%-22s %12.3f %12.3f %7.3f %7.3f-%-7.3f %7.3f" % (
            k, statistics.median(a), statistics.median(b), statistics.median(rr), min(rr),
            max(rr), best))
        out.append((k, statistics.median(rr), best))
    print()
    for k, med, best in out:
        print("against %s: %.3f (best %.3f)" % (k, med, best))
PY
