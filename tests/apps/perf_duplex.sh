#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-perf -b (perftest's bidirectional BW) in one process (--loopback): it
# runs, the test name line says "Bidirectional", the peak is not measured
# (perftest's warning before the header, 0.00 in the row), one row of -n
# iterations, and both directions carried their -n messages (each side's
# counters, --stats: completions and bytes its card sent; the row is their
# sum and cannot show a side that sent nothing); then a -D run (the server
# drains its own WRs after END), and atomic_bw.
#   perf_duplex.sh <ordk-perf>
set -u
perf=$1
out=$(mktemp /tmp/ordk-perf-duplex-XXXXXX)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

# both_sent <n> <bytes>: the client and the server each completed at least n WRs
# and their cards sent at least n * bytes (--stats blocks on stderr)
both_sent() {
	for side in client server; do
		read -r wrs tx < <(awk -v s="$side" '
			/^ordk-perf: / { inb = ($2 == s); model = / model counters:$/ }
			inb && !model && $1 == "wr_completed:" { w = $2 }
			inb && model && $1 == "tx_bytes" { t = $2 }
			END { print w + 0, t + 0 }' "$out")
		[ "$wrs" -ge "$1" ] && [ "$tx" -ge $(($1 * $2)) ] ||
			fail "$side: $wrs WRs completed, $tx bytes sent; at least $1 and $(($1 * $2)) expected"
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
both_sent 300 65536

timeout 60 "$perf" write_bw --loopback -b -D 1 -s 4096 --no-progress >"$out" 2>&1 ||
	fail "write_bw -b -D 1 exits $?"
cat "$out"
row=$(grep -A1 '^ #bytes' "$out" | tail -1)
[[ $row =~ ^\ 4096\ +[0-9]+\ +0\.00\ +[0-9]+\.[0-9]{2} ]] || fail "row '$row'"

timeout 60 "$perf" atomic_bw --loopback -b -n 300 --no-progress --stats >"$out" 2>&1 ||
	fail "atomic_bw -b exits $?"
cat "$out"
grep -qx "                    Atomic FETCH_AND_ADD Bidirectional BW Test" "$out" ||
	fail "no test name line"
both_sent 300 0 # atomics travel as control frames (SimpleNic), not in tx_bytes
echo "ok"
