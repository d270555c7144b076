#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The library's report at close (counters, progress thread, lingers) goes
# through the log type ordk.ibverbs at INFO: hidden by default, shown by
# ordk-run --log-level ordk.ibverbs:info (with ORDK's EAL defaults or the
# user's --eal) and by ORDK_IBV_STATS=1.
#   stats_log.sh <ordk-run>
set -u
run=$1
command -v ibv_devinfo >/dev/null || { echo "SKIP: ibv_devinfo is not installed"; exit 77; }
fails=0
report='^ordk-ibverbs: [a-z0-9]+: progress thread: [0-9]+ polls'
expect() { # <0|1: report expected> <description> <command...>
    local want=$1 what=$2 out rc got=0
    shift 2
    out=$("$@" 2>&1)
    rc=$?
    grep -Eq "$report" <<<"$out" && grep -Eq '^ordk-ibverbs: [a-z0-9]+: linger: [0-9]+ times' <<<"$out" &&
        got=1
    if [ $rc -ne 0 ] || [ $got -ne "$want" ]; then
        echo "FAIL: $what: exit $rc, report $([ $got = 1 ] && echo shown || echo absent)"
        echo "$out" | sed 's/^/    /'
        fails=$((fails + 1))
    else
        echo "ok: $what: report $([ $got = 1 ] && echo shown || echo absent)"
    fi
}
dev=(--dev bluesim,port=loopback)
eal="--no-pci --no-huge -m 512 -l 0 --file-prefix=ordk-abi-stats-$$ --no-telemetry --log-level=*:4"
expect 0 "by default" env -u ORDK_IBV_STATS "$run" "${dev[@]}" -- ibv_devinfo
expect 1 "--log-level ordk.ibverbs:info" env -u ORDK_IBV_STATS "$run" "${dev[@]}" \
    --log-level ordk.ibverbs:info -- ibv_devinfo
expect 1 "--eal and --log-level=ordk.ibverbs:info" env -u ORDK_IBV_STATS "$run" "${dev[@]}" \
    --eal "$eal" --log-level=ordk.ibverbs:info -- ibv_devinfo
expect 0 "--log-level ordk.ibverbs:notice" env -u ORDK_IBV_STATS "$run" "${dev[@]}" \
    --log-level ordk.ibverbs:notice -- ibv_devinfo
expect 1 "ORDK_IBV_STATS=1" env ORDK_IBV_STATS=1 "$run" "${dev[@]}" -- ibv_devinfo
[ $fails -eq 0 ] && echo PASS || exit 1
