#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Run one libFuzzer target for a bounded time over its corpus.
# usage: fuzz-run.sh <fuzzer> <corpus-dir> <seconds> [seed-generator]
# The corpus grows across runs; a crash leaves its input in <corpus-dir>/../artifacts
# and fails the run. The last lines printed are libFuzzer's final statistics.
set -euo pipefail
fuzzer=$1 corpus=$2 seconds=$3 gen=${4:-}
name=$(basename "$fuzzer")
artifacts=$(dirname "$corpus")/artifacts
mkdir -p "$corpus" "$artifacts" "$corpus.seeds-wire" "$corpus.seeds-desc"
if [ -n "$gen" ] && [ -z "$(ls -A "$corpus")" ]; then
    "$gen" "$corpus.seeds-wire" "$corpus.seeds-desc"
    case $name in
    *wire*) cp "$corpus.seeds-wire"/* "$corpus"/ ;;
    *desc*) cp "$corpus.seeds-desc"/* "$corpus"/ ;;
    esac
fi
rm -rf "$corpus.seeds-wire" "$corpus.seeds-desc"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
"$fuzzer" "$corpus" -max_total_time="$seconds" -max_len=4400 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$name-" >"$log" 2>&1
rc=$?
set -e
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|^Done|==ERROR|SUMMARY|deadly signal|Test unit written' "$log" || true
if [ $rc -ne 0 ]; then
    echo "$name: FAILED (exit $rc); last lines:"
    tail -40 "$log"
    exit 1
fi
echo "$name: ok, $(ls "$corpus" | wc -l) corpus entries"
