#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# AdaptX's Loop A in dm_txn, both regimes of the seed in one run: committed
# transactions per second of the baseline, Loop A per worker (AdaptX's) and
# Loop A per key (the seed's suggested fix), and their ratios to the baseline.
#   extreme:     1 of 40 warehouses gets 95% of the accesses (--hot 40:0.95)
#   alt-extreme: 2 of 40 get 92% (--hot 2/40:0.92)
# A "warehouse" is 100 of 4000 records; YCSB-like, 4 keys, half written, 16
# contexts, memory and compute node over net_memif. Each cell is the median
# of ROUNDS runs (default 3) of SECS seconds (default 3), the runs of a round
# interleaved so drift of the machine hits every mode alike.
#   loop_a.sh <dm_txn binary> [base port]
set -u
tx=$1 port=${2:-18970}
ROUNDS=${ROUNDS:-3} SECS=${SECS:-3}
dir=$(mktemp -d /tmp/ordk-loopa-XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$dir"' EXIT
common=(--records 4000 --workload ycsb --keys 4 --write-pct 50 --contexts 16)

one() { # regime mode round: committed/s, or FAIL
    local hot=$1 mode=$2 r=$3 la=() m log=$dir/${1//\//of}-$2-$3.log
    case $mode in worker) la=(--loop_a=worker) ;; key) la=(--loop_a) ;; esac
    port=$((port + 1))
    timeout 60 "$tx" memory -c $port -t 50 --records 4000 >"$dir/m" 2>&1 &
    m=$!
    pids+=($m)
    timeout 60 "$tx" compute -c $port -D "$SECS" "${common[@]}" --hot "$hot" "${la[@]}" \
        >"$log" 2>&1
    local rc=$?
    wait $m
    if [ $rc -ne 0 ] || ! grep -q '^compute: invariant holds' "$log"; then
        echo FAIL; return
    fi
    awk '$1 == "committed" { print $3 }' "$log"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

declare -A res
for r in $(seq "$ROUNDS"); do
    for hot in 40:0.95 2/40:0.92; do
        for mode in base worker key; do
            v=$(one "$hot" "$mode" "$r")
            [ "$v" = FAIL ] && { echo "FAIL: $hot $mode round $r"; cat "$dir/${hot//\//of}-$mode-$r.log"; exit 1; }
            res[$hot-$mode]="${res[$hot-$mode]:-} $v"
        done
    done
done
printf '%-12s %14s %14s %8s %14s %8s\n' regime "base tx/s" "worker tx/s" ratio "per-key tx/s" ratio
for hot in 40:0.95 2/40:0.92; do
    b=$(echo ${res[$hot-base]} | tr ' ' '\n' | median)
    w=$(echo ${res[$hot-worker]} | tr ' ' '\n' | median)
    k=$(echo ${res[$hot-key]} | tr ' ' '\n' | median)
    name=extreme; [ "$hot" = 2/40:0.92 ] && name=alt-extreme
    printf '%-12s %14s %14s %7.2fx %14s %7.2fx\n' $name "$b" "$w" \
        "$(echo "$w / $b" | bc -l)" "$k" "$(echo "$k / $b" | bc -l)"
done
for k in "${!res[@]}"; do echo "runs $k:${res[$k]}"; done | sort
echo "(medians of $ROUNDS rounds of $SECS s; every run's invariant held)"
