#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-perf -b (perftest's bidirectional BW) in one process (--loopback): it
# runs, the test name line says "Bidirectional", the peak is not measured
# (perftest's warning before the header, 0.00 in the row), one row of -n
# iterations, and both directions carried their -n messages (each side's
# counters, --stats: completions and bytes its card sent; the row is their
# sum and cannot show a side that sent nothing); then a -D run (the server
# drains its own WRs after END), read_bw (also at 1% loss), atomic_bw and
# send_bw (each side receives the other's SENDs).
#   perf_duplex.sh <ordk-perf>
set -u
perf=$1
out=$(mktemp /tmp/ordk-perf-duplex-XXXXXX)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

# each_side <counter> <min>: the client's and the server's counter is at least min
# (--stats on stderr: each side's device block, then its model's)
each_side() {
	local side v
	for side in client server; do
		v=$(awk -v s="$side" -v c="$1" '/^ordk-perf: / { inb = ($2 == s) }
			inb && ($1 == c || $1 == c ":") { v = $2 } END { print v + 0 }' "$out")
		[ "$v" -ge "$2" ] || fail "$side: $1 $v, at least $2 expected"
	done
}

timeout 60 "$perf" write_bw --loopback -b -n 300 --no-progress --stats >"$out" 2>&1 ||
	fail "write_bw -b exits $?"
cat "$out"
[ "$(sed -n 1p "$out")" = " WARNING: BW peak won't be measured in this run." ] ||
	fail "no peak warning first"
grep -qx "                    RDMA_Write Bidirectional BW Test" "$out" || fail "no test name line"
row=$(grep -A1 '^ #bytes' "$out" | tail -1)
[[ $row =~ ^\ 65536\ +300\ +0\.00\ +[0-9]+\.[0-9]{2}[[:space:]]+[0-9]+\.[0-9]{6}$ ]] ||
	fail "row '$row'"
each_side wr_completed 300
each_side tx_bytes $((300 * 65536))

timeout 60 "$perf" write_bw --loopback -b -D 1 -s 4096 --no-progress >"$out" 2>&1 ||
	fail "write_bw -b -D 1 exits $?"
cat "$out"
row=$(grep -A1 '^ #bytes' "$out" | tail -1)
[[ $row =~ ^\ 4096\ +[0-9]+\ +0\.00\ +[0-9]+\.[0-9]{2} ]] || fail "row '$row'"

# read_bw: READs both ways on one QP (each side answers the other's while its own
# wait for answers); ended in RETRY_EXC_ERR before the READ recovery fixes
timeout 60 "$perf" read_bw --loopback -b -n 300 --no-progress --stats >"$out" 2>&1 ||
	fail "read_bw -b exits $?"
cat "$out"
grep -qx "                    RDMA_Read Bidirectional BW Test" "$out" || fail "no read test name line"
row=$(grep -A1 '^ #bytes' "$out" | tail -1)
[[ $row =~ ^\ 65536\ +300\ +0\.00\ +[0-9]+\.[0-9]{2}[[:space:]]+[0-9]+\.[0-9]{6}$ ]] ||
	fail "read row '$row'"
each_side wr_completed 300
timeout 60 "$perf" read_bw --loopback -b -s 4096 -n 2000 -d bluesim,fault=drop:0.01,seed=5 \
	--no-progress >"$out" 2>&1 || fail "read_bw -b at 1% loss exits $?"
cat "$out"

timeout 60 "$perf" atomic_bw --loopback -b -n 300 --no-progress --stats >"$out" 2>&1 ||
	fail "atomic_bw -b exits $?"
cat "$out"
grep -qx "                    Atomic FETCH_AND_ADD Bidirectional BW Test" "$out" ||
	fail "no test name line"
each_side wr_completed 300 # atomics travel as control frames, not in tx_bytes
# send_bw -b: both sides send and receive (perftest's duplex for send tests)
timeout 60 "$perf" send_bw --loopback -b -n 300 --no-progress --stats >"$out" 2>&1 ||
	fail "send_bw -b exits $?"
cat "$out"
grep -qx "                    Send Bidirectional BW Test" "$out" || fail "no test name line"
row=$(grep -A1 '^ #bytes' "$out" | tail -1)
[[ $row =~ ^\ 65536\ +300\ +0\.00\ +[0-9]+\.[0-9]{2} ]] || fail "row '$row'"
each_side wr_completed 300
each_side recv_completed 300
each_side tx_bytes $((300 * 65536))
echo "ok"
