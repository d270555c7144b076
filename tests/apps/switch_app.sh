#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-switch as a process: refuses bad options naming them, runs over EAL's
# ports for a bounded time, prints its counters and writes the trace CSV.
#   switch_app.sh <ordk-switch>
set -u
sw=$1
dir=$(mktemp -d /tmp/ordk-switch-XXXXXX)
trap 'rm -rf "$dir"' EXIT
eal=(--no-pci --no-huge -m 256 -l 0 --log-level=warning --no-telemetry)
fail=0
check() { # <what> <command...>: the command must succeed
	local what=$1
	shift
	if ! "$@"; then
		echo "FAIL: $what"
		fail=1
	fi
}

timeout 30 "$sw" "${eal[@]}" --file-prefix "swapp$$a" --vdev net_ring0 -- --queue bogus=1 \
	>"$dir/bad" 2>&1
rc=$?
cat "$dir/bad"
check "an unknown queue key fails (rc $rc)" test "$rc" -eq 1
check "and is named" grep -q "unknown key 'bogus'" "$dir/bad"

timeout 30 "$sw" "${eal[@]}" --file-prefix "swapp$$b" --vdev net_ring0 -- --mac 02:00:00:00:00:01@3 \
	>"$dir/mac" 2>&1
rc=$?
check "a --mac on a missing port fails (rc $rc)" test "$rc" -eq 1
# a static entry is a station's: a group address would never be looked up
timeout 30 "$sw" "${eal[@]}" --file-prefix "swapp$$e" --vdev net_ring0 -- --mac ff:ff:ff:ff:ff:ff@0 \
	>"$dir/bcast" 2>&1
rc=$?
cat "$dir/bcast"
check "a broadcast --mac fails (rc $rc)" test "$rc" -eq 1
check "and says why" grep -q "mac ff:ff:ff:ff:ff:ff: not a unicast address (broadcast)" "$dir/bcast"

timeout 30 "$sw" "${eal[@]}" --file-prefix "swapp$$c" --vdev net_ring0 --vdev net_ring1 -- \
	--queue rate=125M,aqm=step,k=20K --port-queue 1:aqm=none --duration 0.2 \
	--trace "$dir/trace.csv" --trace-us 1000 >"$dir/run" 2>&1
rc=$?
cat "$dir/run"
check "a 0.2 s run exits 0 (rc $rc)" test "$rc" -eq 0
check "two ports" grep -q "ordk-switch: 2 ports" "$dir/run"
check "the counters' header" grep -Eq "^port +rx +enqueued +marked +drop_full" "$dir/run"
check "the trace's header" test "$(head -1 "$dir/trace.csv")" = "t_ns,source,metric,value"
check "queue rows for both ports" grep -Eq "^[0-9]+,port1,queue_bytes,0$" "$dir/trace.csv"
rows=$(grep -c ",port0,queue_bytes," "$dir/trace.csv")
# rows come every --trace-us of wall time while the loop runs: on a shared CPU fewer
# (99 of 200 seen), so only a floor far below the nominal count is asserted
check "rows through the 0.2 s run ($rows)" test "$rows" -ge 20
# the console: commands from stdin while the switch runs; quit ends the run
printf 'help\nqueue 1 rate=1M,aqm=step\nqueue 1 wat=1\nqueue 9 rate=1\nmac 02:00:00:00:00:07@1\nmac 01:00:5e:00:00:01@1\nfrobnicate\nstats\nquit\n' |
	timeout 30 "$sw" "${eal[@]}" --file-prefix "swapp$$d" --vdev net_ring0 --vdev net_ring1 -- \
		--console --duration 20 >"$dir/con" 2>&1
rc=$?
cat "$dir/con"
check "quit ends a 20 s run at once, exit 0 (rc $rc)" test "$rc" -eq 0
check "help" grep -q "^stats | queue PORT" "$dir/con"
check "queue set" grep -q "^queue 1: set, counters restart" "$dir/con"
check "queue bad key named" grep -q "^queue: unknown key 'wat'" "$dir/con"
check "queue bad port" grep -q "^queue: want PORT (< 2)" "$dir/con"
check "a multicast mac refused" grep -q "^mac 01:00:5e:00:00:01: not a unicast address (multicast" "$dir/con"
check "unknown command" grep -q "^unknown command 'frobnicate'" "$dir/con"
check "stats printed twice (command, end)" test "$(grep -c '^port  ' "$dir/con")" -eq 2
if [ $fail -ne 0 ]; then
	echo "switch_app: FAILED"
	exit 1
fi
echo "switch_app: ok"
