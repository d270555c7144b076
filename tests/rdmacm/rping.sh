#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's rping (rdmacm-utils) between two processes over net_memif, each
# through ordk-run and so on ORDK's librdmacm and libibverbs. The client
# names the server by its device IP, 10.0.0.2, which ordk-run's
# ORDK_CM_PEERS maps to 127.0.0.1 (the card answers no ARP). Both must exit
# 0; with -V rping checks every ping's data itself, and the client must
# have printed the last ping.
#   rping.sh <ordk-run> <tcp port> <count> [,devargs for both] [rping options for both, e.g. -q]
# (devargs: e.g. ,fault=drop:0.01,seed=11, added to both --dev)
set -u
run=$1 port=$2 count=$3
shift 3
suffix=""
[[ ${1:-} == ,* ]] && { suffix=$1; shift; }
command -v rping >/dev/null || { echo "SKIP: rping is not installed (rdmacm-utils; devtools/setup.sh)"; exit 77; }
sock=/tmp/ordk-eco-rping-$port.sock
dir=$(mktemp -d /tmp/ordk-eco-XXXXXX)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"
. "$(dirname "$0")/../examples/wait_ready.sh"

export ORDK_RDMACM_STATS=1
timeout 60 "$run" --dev "bluesim,port=memif:server:$sock$suffix" -- \
    rping -s -a 0.0.0.0 -p "$port" -C "$count" -v -V "$@" >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: the server never listened on $port"; exit 1; }
timeout 60 "$run" --dev "bluesim,port=memif:client:$sock$suffix" -- \
    rping -c -a 10.0.0.2 -p "$port" -C "$count" -v -V "$@" >"$dir/client" 2>&1
crc=$?
reap $srv
src=$?
srv=""
two_verdict "$dir" $crc $src
last=$((count - 1))
expect_lines "$dir/client" "^ping data: rdma-ping-$last: ;ordk-rdmacm: counters: garbage=0 bad_req=0 .* established=1 "
expect_lines "$dir/server" "ordk-rdmacm: counters: garbage=0 bad_req=0 .* established=1 "
echo PASS
