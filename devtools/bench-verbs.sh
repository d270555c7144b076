#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's unmodified perftest on ORDK's libibverbs (through ordk-run) against
# ordk-perf, the same tests in the same run, two processes over net_memif:
# write_bw 64 KiB and write_lat 8 B, alternating, N repetitions; prints the
# figures, their medians and the ratios against the targets (bandwidth
# >= 0.8 of ordk-perf's, typical latency <= 1.3 of ordk-perf's).
#   devtools/bench-verbs.sh [--repeat N]   (ORDK_BUILD_DIR, default build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}
repeat=3
[ "${1:-}" = --repeat ] && repeat=${2:?--repeat N}
perf=$BUILD/apps/ordk-perf/ordk-perf run=$BUILD/apps/ordk-run/ordk-run
pair=tests/verbs_abi/pair.sh
[ -x "$perf" ] && [ -x "$run" ] || { echo "bench-verbs: build first" >&2; exit 1; }
command -v ib_write_bw >/dev/null || { echo "bench-verbs: install perftest (devtools/setup.sh)" >&2; exit 1; }
dir=$(mktemp -d /tmp/ordk-bv-XXXXXX)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"' EXIT
port=$((21000 + $$ % 5000))
n_bw=20000 n_lat=10000

ordk_perf() { # <test> <options...>: prints the client's result row
    port=$((port + 1))
    timeout 120 "$perf" "$1" -p $port --no-progress "${@:2}" >"$dir/s" 2>&1 &
    srv=$!
    timeout 120 "$perf" "$1" -p $port --no-progress "${@:2}" 127.0.0.1 >"$dir/c" 2>&1 ||
        { cat "$dir/c" >&2; exit 1; }
    wait $srv || { cat "$dir/s" >&2; exit 1; }
    srv=""
    grep -A1 '#bytes' "$dir/c" | sed -n 2p
}

perftest() { # <program> <options...>: prints the client's result row
    port=$((port + 1))
    "$pair" "$run" bench-verbs $port '#bytes' -- "$@" >"$dir/p" 2>&1 || { cat "$dir/p" >&2; exit 1; }
    grep -A1 '#bytes' "$dir/p" | sed -n 2p
}

: >"$dir/fig"
for rep in $(seq 1 "$repeat"); do
    a=$(ordk_perf write_bw -s 65536 -n $n_bw) b=$(perftest ib_write_bw -s 65536 -n $n_bw)
    c=$(ordk_perf write_lat -s 8 -n $n_lat) d=$(perftest ib_write_lat -s 8 -n $n_lat)
    echo "[$rep] ordk-perf write_bw  : $a"
    echo "[$rep] ib_write_bw (ORDK)  : $b"
    echo "[$rep] ordk-perf write_lat : $c"
    echo "[$rep] ib_write_lat (ORDK) : $d"
    # BW average (MB/s) is column 4; t_typical (us) column 5 of the latency rows
    echo "$rep $(awk '{print $4}' <<<"$a") $(awk '{print $4}' <<<"$b") $(awk '{print $5}' <<<"$c") $(awk '{print $5}' <<<"$d")" >>"$dir/fig"
done
python3 - "$dir/fig" <<'PY'
import statistics, sys
rows = [list(map(float, l.split()[1:])) for l in open(sys.argv[1])]
med = [statistics.median(c) for c in zip(*rows)]
bw, lat = [r[1] / r[0] for r in rows], [r[3] / r[2] for r in rows]
print("median: ordk-perf write_bw %.0f MB/s, ib_write_bw %.0f MB/s; ordk-perf write_lat %.2f us, ib_write_lat %.2f us"
      % tuple(med))
print("ratio ib_write_bw/ordk-perf: %.2f (per repetition %s; target >= 0.8: %s)"
      % (statistics.median(bw), " ".join("%.2f" % x for x in bw), "met" if statistics.median(bw) >= 0.8 else "NOT met"))
print("ratio ib_write_lat/ordk-perf: %.2f (per repetition %s; target <= 1.3: %s)"
      % (statistics.median(lat), " ".join("%.2f" % x for x in lat), "met" if statistics.median(lat) <= 1.3 else "NOT met"))
PY
