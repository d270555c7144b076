#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-perf between two processes over net_memif (server lcore 0, client lcore 1),
# each under a time bound and stopped by its PID; the client's table and JSON
# are checked. The client starts once the server's net_memif socket listens;
# with --client-first, the client starts first and the server once the
# client says it is waiting for it (perftest users start them in either order).
#   perf_pair.sh [--client-first] <ordk-perf> <tcp port> <test> [options...]
set -u
. "$(dirname "$0")/../examples/wait_ready.sh"
first=server
if [ "$1" = "--client-first" ]; then first=client; shift; fi
perf=$1 port=$2 test=$3
shift 3
dir=$(mktemp -d /tmp/ordk-perf-pair-XXXXXX)
srv= cli=
trap 'kill $srv $cli 2>/dev/null; rm -rf "$dir"' EXIT

server() {
    timeout 60 "$perf" "$test" -p "$port" "$@" >"$dir/server" 2>&1 &
    srv=$!
}
client() {
    timeout 60 "$perf" "$test" -p "$port" --out_json --out_json_file="$dir/out.json" "$@" \
        127.0.0.1 >"$dir/client" 2>&1 &
    cli=$!
}
if [ $first = server ]; then
    server "$@"
    wait_listen "/tmp/ordk-perf-$port.sock" $srv 60 || { cat "$dir/server"; echo "FAIL: no server"; exit 1; }
    client "$@"
else
    client "$@"
    wait_line "$dir/client" "waiting for the server" $cli 60 || { cat "$dir/client"; echo "FAIL"; exit 1; }
    server "$@"
fi
wait $cli
crc=$?
reap $srv
src=$?
two_verdict "$dir" $crc $src
grep -q "Waiting for client to connect" "$dir/server" || { echo "FAIL: no server banner"; exit 1; }
# perftest's table on both sides: the title line, a row, the closing rule
for side in client server; do
    grep -A1 '^ #bytes' "$dir/$side" | tail -1 | grep -Eq '^ [0-9]+ ' ||
        { echo "FAIL: no row under the $side's #bytes line"; exit 1; }
    [ "$(tail -1 "$dir/$side")" = "---------------------------------------------------------------------------------------" ] ||
        { echo "FAIL: the $side's table does not end with the rule"; exit 1; }
done
python3 - "$dir/out.json" "$test" <<'PY' || { echo "FAIL: JSON"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
assert set(d) == {"test_info", "results"}, d
assert d["test_info"]["test"].endswith(("_BW_Test", "_Latency_Test")), d
r = d["results"]
assert r["MsgSize"] > 0 and r["n_iterations"] > 0, r
assert ("BW_average" in r) if sys.argv[2].endswith("_bw") else ("percentile_99.9" in r), r
PY
echo "PASS"
