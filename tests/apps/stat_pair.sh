#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-stat and Debian's dpdk-telemetry.py against a running ordk-perf pair at
# 1% loss (bluesim fault=drop:0.01), over DPDK telemetry: the server on lcore 0,
# the client on lcore 1 (ordk-perf's defaults, telemetry on), each under a time
# bound and stopped by its PID; ordk-stat is no poller (it sleeps between samples).
#   - ordk-stat --watch on the client: retransmits and naks_received rise, with rates;
#   - ordk-stat --prometheus --qp --sim parses with Prometheus's own parser
#     (/usr/bin/python3, python3-prometheus-client);
#   - ordk-stat --json, --qp, --list and -f/-p/-s select the same process;
#   - ordk-stat --trace on the client (trace=1): NAKs received and retransmissions;
#   - dpdk-telemetry.py reads /ordk/dev/stats of the server.
#   stat_pair.sh <ordk-perf> <ordk-stat> <tcp port>
set -u
. "$(dirname "$0")/../examples/wait_ready.sh"
perf=$1 stat=$2 port=$3
dir=$(mktemp -d /tmp/ordk-stat-pair-XXXXXX)
srv= cli=
trap 'kill $srv $cli 2>/dev/null; rm -rf "$dir"' EXIT
dev=bluesim,port=0,fault=drop:0.01,seed=7
fail() { echo "FAIL: $*"; exit 1; }
/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
    { echo "SKIP: python3-prometheus-client is not installed (devtools/setup.sh installs it)"; exit 77; }

# the ordk-perf under `timeout` <pid>, and its telemetry socket (prefix ordk-perf-<its pid>)
child_of() {
    local c
    for _ in $(seq 100); do
        c=$(cat /proc/"$1"/task/"$1"/children 2>/dev/null | awk '{ print $1 }')
        [ -n "$c" ] && { echo "$c"; return 0; }
        sleep 0.05
    done
    return 1
}
wait_socket() {
    for _ in $(seq 200); do
        [ -S "/var/run/dpdk/ordk-perf-$1/dpdk_telemetry.v2" ] && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.05
    done
    return 1
}

timeout 60 "$perf" write_bw -p "$port" -d "$dev" >"$dir/server" 2>&1 &
srv=$!
wait_listen "/tmp/ordk-perf-$port.sock" $srv 60 || { cat "$dir/server"; fail "no server"; }
timeout 60 "$perf" write_bw -p "$port" -d "$dev,trace=1" -D 8 --no-progress 127.0.0.1 \
    >"$dir/client" 2>&1 &
cli=$!
spid=$(child_of $srv) && cpid=$(child_of $cli) || fail "no ordk-perf processes"
wait_socket "$spid" && wait_socket "$cpid" || fail "no telemetry socket (ordk-perf-$spid, ordk-perf-$cpid)"
# the run has started once the client's QPs are connected (its table's header)
wait_line "$dir/client" '#bytes' $cli 30 || { cat "$dir/client"; fail "the client never started"; }

"$stat" -p "$cpid" --watch=1 --count 4 >"$dir/watch" 2>&1 || { cat "$dir/watch"; fail "ordk-stat --watch"; }
cat "$dir/watch"
# each sample's value of a counter; the first and last must differ, and the last be > 0
rising() {
    awk -v c="$1" '$1 == c { v[n++] = $2 } END {
        if (n < 4) { print c ": in " n " samples of 4"; exit 1 }
        if (!(v[n-1] > v[0] && v[n-1] > 0)) { print c ": " v[0] " .. " v[n-1]; exit 1 } }' "$dir/watch"
}
rising retransmits || fail "retransmits did not rise at 1% loss"
rising naks_received || fail "naks_received did not rise at 1% loss"
grep -Eq '^  naks_received +[0-9]+ +[0-9.]+ +packet_seq_err / rcvd_seq_err$' "$dir/watch" ||
    fail "no rate or no mlx5/rxe names on naks_received's line"
grep -q '^  counter .* value .*/s$' "$dir/watch" || fail "no rates header"

"$stat" -p "$cpid" --prometheus --qp --sim >"$dir/prom" || fail "ordk-stat --prometheus"
/usr/bin/python3 - "$dir/prom" <<'PY' || fail "the Prometheus text does not parse"
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
r = fams["ordk_retransmits"]
assert r.type == "counter", r.type
assert sum(s.value for s in r.samples) > 0, r.samples
assert all(s.labels["dev"] for s in r.samples), r.samples
assert fams["ordk_dev_up"].samples[0].value == 1
assert any(s.labels.get("qpn") for s in fams["ordk_qp_wr_posted"].samples)
assert "packet_seq_err" in fams["ordk_naks_received"].documentation
assert "ordk_sim_tx_packets" in fams and "ordk_qp_info" in fams
print("prometheus:", len(fams), "families")
PY

# one JSON document: the device, its QPs with their info and counters
"$stat" -s "/var/run/dpdk/ordk-perf-$cpid/dpdk_telemetry.v2" --json --qp >"$dir/json" ||
    fail "ordk-stat --json"
python3 - "$dir/json" "$cpid" <<'PY' || fail "ordk-stat --json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["pid"] == int(sys.argv[2]) and d["program"] == "ordk-perf", d
dev = d["devices"]["bluesim0"]
assert dev["stats"]["wr_posted"] > 0 and dev["info"]["qps"] >= 2, dev
assert all(q["info"]["state"] == "RTS" for q in dev["qps"].values()), dev["qps"]
PY
"$stat" --list >"$dir/list" || fail "ordk-stat --list"
grep -Eq "^$cpid +ordk-perf +ordk-perf-$cpid +bluesim0$" "$dir/list" || { cat "$dir/list"; fail "--list"; }
"$stat" -f "ordk-perf-$spid" --qp >"$dir/server_stat" || fail "ordk-stat -f"
grep -q '^  qp 0x[0-9a-f]\{6\} RTS -> 0x' "$dir/server_stat" || { cat "$dir/server_stat"; fail "--qp"; }

# the client's QPs' timelines: the transport's events in time order
"$stat" -p "$cpid" --trace >"$dir/trace" || { cat "$dir/trace"; fail "ordk-stat --trace"; }
head -20 "$dir/trace"
grep -Eq '^ +[0-9.]+  bluesim0 +0x[0-9a-f]{6}  state +RTR -> RTS$' "$dir/trace" &&
    grep -Eq '  nak_received +PSNs within 0x[0-9a-f]{6}\.\.0x[0-9a-f]{6} reported lost$' "$dir/trace" &&
    grep -Eq '  retransmit +[0-9]+ packets again from PSN 0x[0-9a-f]{6}$' "$dir/trace" ||
    fail "no state change, NAK or retransmission on the timeline"

# Debian's client, unmodified, on the server (the receiver: it sends the ACKs)
echo "/ordk/dev/stats,bluesim0" |
    /usr/bin/python3 /usr/bin/dpdk-telemetry.py -f "ordk-perf-$spid" >"$dir/telemetry" ||
    fail "dpdk-telemetry.py"
python3 - "$dir/telemetry" <<'PY' || { cat "$dir/telemetry"; fail "dpdk-telemetry.py's /ordk/dev/stats"; }
import json, sys
d = json.loads(open(sys.argv[1]).read())["/ordk/dev/stats"]
assert d["acks_sent"] > 0 and "out_of_sequence" in d and "naks_sent" in d, d
print("dpdk-telemetry.py: acks_sent", d["acks_sent"], "naks_sent", d["naks_sent"])
PY

wait $cli
crc=$?
wait $srv
src=$?
cli= srv=
two_verdict "$dir" $crc $src
echo PASS
