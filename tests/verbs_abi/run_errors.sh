#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-run's bad configurations: each gets exactly one line naming what is
# wrong (matched here) and exit 1; a good one runs the program.
#   run_errors.sh <ordk-run>
set -u
run=$1
fails=0
check() { # <pattern> <ordk-run arguments...>
    local pat=$1 out rc
    shift
    out=$("$run" "$@" 2>&1)
    rc=$?
    if [ $rc -ne 1 ] || [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ] || ! grep -Eq -- "$pat" <<<"$out"; then
        echo "FAIL: ordk-run $* -> exit $rc: $out"
        fails=$((fails + 1))
    else
        echo "ok: ordk-run $* -> $out"
    fi
}
check 'no program to run'                 --dev bluesim,port=loopback
check 'no program to run'                 --dev bluesim,port=loopback --
check "program 'no-such-prog' not found"  -- no-such-prog
check "unknown option '--bogus'"          --bogus -- true
check "'nic0' is neither"                 --dev nic0 -- true
check 'role is server or client'          --dev bluesim,port=memif:master -- true
check 'socket must be an absolute path'   --dev bluesim,port=memif:client:rel.sock -- true
check 'ip=10.0.0 is not an IPv4 address'  --dev bluesim,ip=10.0.0 -- true
check "--lcore 'x' is not a number"       --lcore x -- true
check '--dev needs a value'               --dev
check "--log-level 'loud' is not"         --log-level loud -- true
check "--log-level 'ordk.rc:' is not"     --log-level ordk.rc: -- true
check '--log-level needs a value'         --log-level
ORDK_IBVERBS_DIR=/nonexistent check 'libibverbs.so.1 is not in /nonexistent' -- true
out=$("$run" --dev bluesim,port=memif:client:/tmp/x.sock,fault=drop:0.01 --log-level ordk.rc:debug -- env 2>&1)
grep -qx 'ORDK_DEV=bluesim,port=0,fault=drop:0.01,ip=10.0.0.1' <<<"$out" &&
    grep -qx 'ORDK_VDEV=net_memif0,role=client,socket=/tmp/x.sock,socket-abstract=no,bsize=8192' <<<"$out" &&
    grep -qx 'ORDK_LOG_LEVEL=ordk.rc:debug' <<<"$out" &&
    grep -q '^LD_LIBRARY_PATH=.*ibverbs' <<<"$out" ||
    { echo "FAIL: the environment of a good configuration:"; echo "$out" | grep ORDK; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo PASS || exit 1
