#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-perf between two processes over net_memif (server lcore 0, client lcore 1),
# each under a time bound and stopped by its PID; the client's table and JSON
# are checked.   perf_pair.sh <ordk-perf> <tcp port> <test> [options...]
set -u
perf=$1 port=$2 test=$3
shift 3
dir=$(mktemp -d /tmp/ordk-perf-pair-XXXXXX)
trap 'kill $srv 2>/dev/null; rm -rf "$dir"' EXIT

timeout 60 "$perf" "$test" -p "$port" --no-progress "$@" >"$dir/server" 2>&1 &
srv=$!
timeout 60 "$perf" "$test" -p "$port" --no-progress --out_json "$dir/out.json" "$@" 127.0.0.1 \
    >"$dir/client" 2>&1
crc=$?
wait $srv
src=$?
cat "$dir/client"
echo "--- server (exit $src):"
cat "$dir/server"
[ $crc -eq 0 ] || { echo "FAIL: client exit $crc"; exit 1; }
[ $src -eq 0 ] || { echo "FAIL: server exit $src"; exit 1; }
grep -q "Waiting for client to connect" "$dir/server" || { echo "FAIL: no server banner"; exit 1; }
grep -q "^ #bytes" "$dir/client" || { echo "FAIL: no table"; exit 1; }
python3 - "$dir/out.json" "$test" <<'PY' || { echo "FAIL: JSON"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert d["test"] == sys.argv[2] and d["status"] == "ok", d
assert len(d["results"]) >= 1 and d["results"][0]["n_iterations"] > 0, d
PY
echo "PASS"
