#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's ucmatose (rdmacm-utils) between two processes over net_memif, each
# through ordk-run: <connections> RC connections to one listener, <count>
# SENDs each way on each (-C), then the server disconnects them all. Both
# must exit 0 ("return status 0") with every connection established.
#   ucmatose.sh <ordk-run> <tcp port> <connections> <count>
set -u
run=$1 port=$2 conns=$3 count=$4
command -v ucmatose >/dev/null || { echo "SKIP: ucmatose is not installed (rdmacm-utils; devtools/setup.sh)"; exit 77; }
sock=/tmp/ordk-eco-ucmatose-$port.sock
dir=$(mktemp -d /tmp/ordk-eco-XXXXXX)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"
. "$(dirname "$0")/../examples/wait_ready.sh"

export ORDK_RDMACM_STATS=1
timeout -k 5 60 "$run" --dev "bluesim,port=memif:server:$sock" -- \
    ucmatose -p "$port" -c "$conns" -C "$count" >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: the server never listened on $port"; exit 1; }
timeout -k 5 60 "$run" --dev "bluesim,port=memif:client:$sock" -- \
    ucmatose -s 10.0.0.2 -p "$port" -c "$conns" -C "$count" >"$dir/client" 2>&1
crc=$?
reap $srv
src=$?
srv=""
two_verdict "$dir" $crc $src
for side in client server; do
    expect_lines "$dir/$side" "^data transfers complete;^return status 0;ordk-rdmacm: counters: garbage=0 bad_req=0 .* established=$conns "
done
echo PASS
