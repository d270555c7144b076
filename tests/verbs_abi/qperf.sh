#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# qperf's ordinary command line on ORDK: several tests in one client
# invocation. The client process opens, uses and closes the device once per
# test (and its memif port reconnects each time); the server forks a child
# per test, each a new ORDK process. Both run through ordk-run over net_memif.
# With -cm1 (rdma_cm) the client keeps ORDK's device open from test to test,
# as librdmacm does: its memif port rejoins each new server process.
#   qperf.sh <ordk-run> <tcp port> <test or option>...
# Options among the tests apply to the tests after them (qperf's own rule:
# "-m 1024 ud_bw"). ORDK_QPERF_OPTS: options for the client's command line
# before the server's name (-cm1: every RC test's connection through rdma_cm,
# checked in ORDK_RDMACM_STATS's counters: one established and disconnected
# per RC test; qperf runs its UD tests without rdma_cm).
set -u
run=$1 port=$2
shift 2
command -v qperf >/dev/null || { echo "SKIP: qperf is not installed (devtools/setup.sh installs it)"; exit 77; }
sock=/tmp/ordk-qperf-$port.sock
dir=$(mktemp -d /tmp/ordk-qperf-XXXXXX)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"

. "$(dirname "$0")/../examples/wait_ready.sh"
[[ " ${ORDK_QPERF_OPTS:-} " == *" -cm1 "* ]] && export ORDK_RDMACM_STATS=1

timeout 240 "$run" --dev "bluesim,port=memif:server:$sock" -- qperf -lp "$port" >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: qperf's server never listened on $port"; exit 1; }
# one second a test (qperf's latency tests take no -n: without a time they never end)
timeout 220 "$run" --dev "bluesim,port=memif:client:$sock" -- \
    qperf -lp "$port" -t 1 -vv ${ORDK_QPERF_OPTS:-} 127.0.0.1 "$@" >"$dir/client" 2>&1
crc=$?
# the last test's child ends once the client has left; then the listener goes
for _ in $(seq 100); do
    pgrep -P "$(pgrep -P $srv | head -1)" >/dev/null 2>&1 || break
    sleep 0.1
done
kill $srv 2>/dev/null
wait $srv
srv=""
grep -v '^EAL' "$dir/client"
echo "--- server:"
grep -v '^EAL' "$dir/server"
[ $crc -eq 0 ] || { echo "FAIL: the client exited $crc"; exit 1; }
# every test named, with a result that is not zero (atomics and ver_*: a message rate)
tests=0 cm_tests=0
for t in "$@"; do
    [[ $t =~ ^[a-z]+_[a-z_]+$ ]] || continue
    tests=$((tests + 1))
    # qperf 0.4.11 connects through rdma_cm for RC only ("-cm1 set but not used" for UD)
    [[ $t == rc_* || $t == ver_rc_* ]] && cm_tests=$((cm_tests + 1))
    awk -v t="$t:" '$1 == t { f = 1; next }
                    f && /^    (bw|latency|msg_rate) +=/ { ok = $3 + 0 > 0; exit }
                    END { exit !ok }' "$dir/client" || { echo "FAIL: no result for $t"; exit 1; }
done
grep -q "failed\|error" "$dir/client" && { echo "FAIL: errors in the client's output"; exit 1; }
if [[ " ${ORDK_QPERF_OPTS:-} " == *" -cm1 "* ]]; then
    grep -q "ordk-rdmacm: counters: garbage=0 bad_req=0 .* established=$cm_tests disconnected=$cm_tests " \
        "$dir/client" || { echo "FAIL: not $cm_tests rdma_cm connections, each established and ended"; exit 1; }
fi
echo PASS
