#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What a change costs in instructions, not in time: this 2-core VM's timing
# swings 4% between two runs of the same binary (an A/A run of bench.sh
# --against), so a 2-3% cost cannot be seen by the clock. Valgrind counts
# the instructions ordk-perf executes; nothing else on the machine changes
# that count.
#
# Each of bench.sh's figures runs in one process (--loopback: both sides,
# one core, the model and the transport in one loop) under callgrind, twice,
# with N and 3N iterations, counting only inside ordk-perf's timed loop (its
# client's perf_client_bw/perf_client_lat, which poll the server's side
# too); the difference divided by 2N is the instructions one operation
# costs with the loop's set-up taken out. A latency
# iteration is a whole round trip (both sides' polls, idle ones included);
# a bandwidth one is a message posted, carried, acknowledged and completed.
# With --against, the other build's ordk-perf is counted the same way and a
# speed ratio is printed per figure (the other's count over this one's: above
# 1, this build executes fewer instructions).
#
#   devtools/bench-instr.sh [--against DIR] [--tests "name ..."] [-n N]
#     (ORDK_BUILD_DIR, default build; needs valgrind)
# What it cannot see: cache misses, two cores talking through memory, the
# wire; a count repeats to about 1% (timers run on the clock, and under
# valgrind the clock runs on while an operation takes 50x longer).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}
against= n=2000
tests="write_bw_64k write_bw_8b write_lat_8b write_lat_4k send_lat_8b read_bw_64k read_lat_8b atomic_bw"
while [ $# -gt 0 ]; do
    case $1 in
    --against) against=${2:?--against DIR}; shift ;;
    --tests) tests=${2:?--tests \"name ...\"}; shift ;;
    -n) n=${2:?-n N}; shift ;;
    *) echo "usage: devtools/bench-instr.sh [--against DIR] [--tests \"name ...\"] [-n N]" >&2
       exit 1 ;;
    esac
    shift
done
command -v valgrind >/dev/null || { echo "bench-instr: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
builds=("$BUILD")
[ -z "$against" ] || builds+=("$against")
for b in "${builds[@]}"; do
    [ -x "$b/apps/ordk-perf/ordk-perf" ] || { echo "bench-instr: no $b/apps/ordk-perf/ordk-perf" >&2; exit 1; }
done
dir=$(mktemp -d /tmp/ordk-instr-XXXXXX)
trap 'rm -rf "$dir"' EXIT

args_of() { # <figure>: ordk-perf's test and options, as bench.sh runs them
    case $1 in
    write_bw_64k) echo "write_bw -s 65536 -Q 100" ;;
    write_bw_8b) echo "write_bw -s 8 -t 512 -Q 64" ;;
    write_lat_8b) echo "write_lat -s 8" ;;
    write_lat_4k) echo "write_lat -s 4096" ;;
    send_lat_8b) echo "send_lat -s 8" ;;
    read_bw_64k) echo "read_bw -s 65536 -Q 100" ;;
    read_lat_8b) echo "read_lat -s 8" ;;
    atomic_bw) echo "atomic_bw" ;;
    *) echo "bench-instr: unknown figure $1" >&2; return 1 ;;
    esac
}

count() { # <build> <figure> <iterations>: instructions of the whole run
    local out="$dir/cg.out" t
    read -r -a t <<<"$(args_of "$2")"
    timeout 600 valgrind --tool=callgrind --callgrind-out-file="$out" \
        --toggle-collect=perf_client_bw --toggle-collect=perf_client_lat \
        "$1/apps/ordk-perf/ordk-perf" "${t[0]}" --no-pci --no-huge -m 1024 -l 0 \
        --file-prefix="instr$$" -- --loopback "${t[@]:1}" -n "$3" --no-progress >"$dir/log" 2>&1 ||
        { echo "bench-instr: $1 ${t[*]} -n $3 failed:" >&2; tail -20 "$dir/log" >&2; return 1; }
    awk '/^totals:/ { print $2 }' "$out"
}

per_op() { # <build> <figure>: instructions per operation
    local a b
    a=$(count "$1" "$2" "$n") || exit 1
    b=$(count "$1" "$2" $((3 * n))) || exit 1
    echo $(((b - a) / (2 * n)))
}

echo "bench-instr: instructions per operation, ordk-perf --loopback under callgrind, N=$n and 3N"
printf "%-14s %14s" figure "$(basename "$(dirname "$(realpath "$BUILD")")")"
[ -z "$against" ] || printf " %14s %7s" "$(basename "$(dirname "$(realpath "$against")")")" ratio
echo
for t in $tests; do
    args_of "$t" >/dev/null
    a=$(per_op "$BUILD" "$t") || exit 1
    printf "%-14s %14d" "$t" "$a"
    if [ -n "$against" ]; then
        b=$(per_op "$against" "$t") || exit 1
        awk -v a="$a" -v b="$b" 'BEGIN { printf " %14d %7.3f", b, b / a }'
    fi
    echo
done
