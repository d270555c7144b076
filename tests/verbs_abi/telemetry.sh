#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An unmodified verbs program seen from outside: Debian's ib_write_bw on ORDK's
# libibverbs (ordk-run), two processes over net_memif (server lcore 0, client
# lcore 1), each under a time bound and stopped by its PID; while they run,
# Debian's dpdk-telemetry.py reads /ordk/dev/list and /ordk/dev/stats of the
# server (file prefix ordk-ibv-<pid>: lib/env's defaults keep telemetry on), and
# ordk-stat finds it by PID.
#   telemetry.sh <ordk-run> <ordk-stat> <tcp port>
set -u
run=$1 stat=$2 port=$3
command -v ib_write_bw >/dev/null || { echo "SKIP: perftest is not installed (devtools/setup.sh installs it)"; exit 77; }
sock=/tmp/ordk-abi-telemetry.sock
dir=$(mktemp -d /tmp/ordk-abi-XXXXXX)
srv= cli=
trap 'kill $srv $cli 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"
. "$(dirname "$0")/../examples/wait_ready.sh"
fail() { echo "FAIL: $*"; exit 1; }

timeout 60 "$run" --dev "bluesim,port=memif:server:$sock" -- ib_write_bw -D 6 -p "$port" \
    >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; fail "the server never listened on $port"; }
spid=$(cat /proc/$srv/task/$srv/children | awk '{ print $1 }') # ordk-run execs ib_write_bw
[ -n "$spid" ] || fail "no server process under pid $srv"
tsock=/var/run/dpdk/ordk-ibv-$spid/dpdk_telemetry.v2
[ -S "$tsock" ] || fail "no telemetry socket $tsock"
timeout 60 "$run" --dev "bluesim,port=memif:client:$sock" -- ib_write_bw -D 6 -p "$port" 127.0.0.1 \
    >"$dir/client" 2>&1 &
cli=$!

# the server's counters through Debian's client, until its ACKs show the run going
query() {
    printf '%s\n' "$@" | /usr/bin/python3 /usr/bin/dpdk-telemetry.py -f "ordk-ibv-$spid"
}
for _ in $(seq 100); do
    query /ordk/dev/list /ordk/dev/stats,bluesim0 >"$dir/telemetry" 2>&1 || fail "dpdk-telemetry.py"
    python3 - "$dir/telemetry" <<'PY' && break
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert lines[0]["/ordk/dev/list"] == ["bluesim0"], lines[0]
st = lines[1]["/ordk/dev/stats"]
assert "duplicate_request" in st and "packet_seq_err" in st, st
sys.exit(0 if st["acks_sent"] > 100 else 1)
PY
    kill -0 $cli 2>/dev/null || break
    sleep 0.1
done
cat "$dir/telemetry"
python3 - "$dir/telemetry" <<'PY' || fail "no /ordk/dev/stats with ACKs sent from ib_write_bw's server"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert lines[1]["/ordk/dev/stats"]["acks_sent"] > 100
PY
"$stat" -p "$spid" >"$dir/stat" || { cat "$dir/stat"; fail "ordk-stat -p $spid"; }
grep -Eq '^ib_write_bw, pid [0-9]+ ' "$dir/stat" && grep -Eq '^  acks_sent +[0-9]+$' "$dir/stat" ||
    { cat "$dir/stat"; fail "ordk-stat's table"; }

wait $cli
crc=$?
wait $srv
src=$?
cli= srv=
two_verdict "$dir" $crc $src
echo PASS
