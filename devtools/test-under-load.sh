#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The flake hunt: devtools/test.sh N times in a row (default 3) with
# 'stress-ng --cpu 2' running beside it (one more busy process per core on a
# 2-core machine), each run's 'N passed, M failed' line printed. Exits
# non-zero unless every run is green. Installs stress-ng (Debian) when
# missing. Not in CI: it takes several full test runs.
#   devtools/test-under-load.sh [runs]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
hog=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null' EXIT

if ! command -v stress-ng >/dev/null; then
    echo "test-under-load: installing stress-ng"
    if [ "$(id -u)" -ne 0 ]; then
        echo "test-under-load: stress-ng is missing; run as root or apt-get install stress-ng" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends stress-ng ||
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
              --no-install-recommends stress-ng; } || { echo "test-under-load: cannot install stress-ng" >&2; exit 1; }
fi

green=0
for i in $(seq 1 "$runs"); do
    log=/tmp/ordk-under-load-$i.log
    # bounded: it outlives no run by more than its timeout
    stress-ng --cpu 2 --timeout 3600s --quiet &
    hog=$!
    start=$SECONDS
    devtools/test.sh >"$log" 2>&1
    rc=$?
    kill "$hog" 2>/dev/null
    wait "$hog" 2>/dev/null
    hog=
    line=$(tail -n 1 "$log")
    echo "run $i: $line (exit $rc, $((SECONDS - start)) s, log $log)"
    if [ $rc -eq 0 ] && [[ $line =~ ^[1-9][0-9]*\ passed,\ 0\ failed ]]; then
        green=$((green + 1))
    else
        grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|ERROR|TIMEOUT)' "$log" | sed 's/^/    /'
    fi
done
echo "test-under-load: $green of $runs runs green"
[ "$green" -eq "$runs" ]
