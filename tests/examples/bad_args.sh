#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The examples' numbers (ports, counts, sizes) go through lib/devargs' shared
# parser: a value out of range is refused at once, the option named, before
# EAL or a device (atoi() and casts took "4294967297" as 1, "70000" as port
# 4464, and the example ran on with it). Each run is bounded by timeout.
#   bad_args.sh <send_recv> <blockstore> <kv_transfer> <dm_txn>
set -u
send_recv=$1 blockstore=$2 kv_transfer=$3 dm_txn=$4
out=$(mktemp /tmp/ordk-bad-args-XXXXXX)
trap 'rm -f "$out"' EXIT
fails=0

# refused <message> <command...>: exits 1 within the bound, saying <message>
refused() {
    local want=$1 rc
    shift
    timeout 20 "$@" >"$out" 2>&1
    rc=$?
    if [ $rc -ne 1 ] || ! grep -qF -- "$want" "$out"; then
        echo "FAIL: '$*' exited $rc (1 wanted) and said:"
        head -5 "$out"
        echo "  (wanted: $want)"
        fails=$((fails + 1))
    else
        echo "ok: $* -> $want"
    fi
}

refused "send_recv: -s: 4294967297 out of range (1..1048576)" "$send_recv" -s 4294967297
refused "send_recv: -s: 99999999999999999999999 out of range" "$send_recv" -s 99999999999999999999999
refused "send_recv: -s: 2M out of range (1..1048576)" "$send_recv" -s 2M
refused "send_recv: -s: \"0x40\" is not a size" "$send_recv" -s 0x40
refused "send_recv: -p: 70000 out of range (1..65535)" "$send_recv" -p 70000
refused "send_recv: -n: \"-1\" is not a number" "$send_recv" -n -1
refused "blockstore: --size: 4294967297 out of range (1..65536)" \
    "$blockstore" target --size 4294967297
refused "blockstore: -c: 4294985156 out of range (1..65535)" "$blockstore" target -c 4294985156
refused "blockstore: --blocks: 18446744073709551616 out of range" \
    "$blockstore" client --blocks 18446744073709551616
refused "blockstore: --read: 4294967297 out of range (0..100)" "$blockstore" client --read 4294967297
refused "kv_transfer: --pool: 4294967304 out of range (8..16384)" \
    "$kv_transfer" worker --pool 4294967304
refused "kv_transfer: -c: 65536 out of range (1..65535)" "$kv_transfer" worker -c 65536
refused "kv_transfer: -q: 17 out of range (1..16)" "$kv_transfer" client -q 17
refused "dm_txn: --records: 18446744073709551615 out of range (16..16777216)" \
    "$dm_txn" memory --records 18446744073709551615
refused "dm_txn: -c: 4294985156 out of range (1..65535)" "$dm_txn" compute -c 4294985156
[ $fails -eq 0 ] || { echo "FAIL: $fails refusals missing"; exit 1; }
echo "every bad value refused, the option named"
