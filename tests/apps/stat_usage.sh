#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ordk-stat without a process to look at (fast tier, no EAL): usage errors exit 64,
# a process that is not there exits 1 and says why.
#   stat_usage.sh <ordk-stat>
s=$1
fail() { echo "FAIL: $*"; exit 1; }
for bad in --bogus "--json --prometheus" "--prometheus --watch" "--prometheus --trace" \
           "--count 3" --qp=0x1000000 \
           "-p 0" "--watch=0" "-f a -p 1" extra; do
    # shellcheck disable=SC2086
    "$s" $bad >/dev/null 2>&1
    [ $? -eq 64 ] || fail "ordk-stat $bad: not a usage error (64)"
done
out=$("$s" -s /nonexistent/dpdk_telemetry.v2 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q "No such file" || fail "-s of no socket: $out"
out=$("$s" -f "no-such-prefix-$$" 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q "no-such-prefix-$$/dpdk_telemetry.v2" || fail "-f: $out"
out=$("$s" -p 1 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q "no telemetry socket of process 1" || fail "-p: $out"
"$s" --help | grep -q "^usage: ordk-stat" || fail "--help"
"$s" --list | grep -q "^PID " || fail "--list"
echo PASS
