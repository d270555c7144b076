#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's udaddy (rdmacm-utils) between two processes over net_memif, each
# through ordk-run: a UD id (RDMA_PS_UDP) each side, the SIDR exchange over
# ORDK's librdmacm (lib/rdmacm/rcm_sidr.c), then <count> datagrams of <size>
# bytes to the server and as many back (its answers go to an address handle
# made from the first completion's GRH). udaddy's port is fixed (7174, UDP):
# the test runs in a network namespace of its own, so that nothing else on the
# host meets it. Both must exit 0 ("return status 0") with one SIDR each,
# nothing bad counted; udaddy waits for every datagram (a lost one would end
# in the time bound).
#   udaddy.sh <ordk-run> <tcp port (names the test's memif socket)> <count> <size>
set -u
run=$1 port=$2 count=$3 size=$4
command -v udaddy >/dev/null || { echo "SKIP: udaddy is not installed (rdmacm-utils; devtools/setup.sh)"; exit 77; }
if [ -z "${ORDK_ECO_NETNS:-}" ]; then
    if [ "$(id -u)" = 0 ]; then ns=(unshare --net); else ns=(unshare --user --map-root-user --net); fi
    "${ns[@]}" true 2>/dev/null || { echo "SKIP: cannot make a network namespace (root or user namespaces)"; exit 77; }
    ORDK_ECO_NETNS=1 exec "${ns[@]}" -- "$0" "$@"
fi
ip link set lo up || { echo "SKIP: no loopback in the namespace"; exit 77; }
sock=/tmp/ordk-eco-udaddy-$port.sock
dir=$(mktemp -d /tmp/ordk-eco-XXXXXX)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"
. "$(dirname "$0")/../examples/wait_ready.sh"

export ORDK_RDMACM_STATS=1
timeout -k 5 60 "$run" --dev "bluesim,port=memif:server:$sock" -- \
    udaddy -C "$count" -S "$size" >"$dir/server" 2>&1 &
srv=$!
wait_udp 7174 $srv 30 || { cat "$dir/server"; echo "FAIL: the server never bound UDP port 7174"; exit 1; }
timeout -k 5 60 "$run" --dev "bluesim,port=memif:client:$sock" -- \
    udaddy -s 10.0.0.2 -C "$count" -S "$size" >"$dir/client" 2>&1
crc=$?
reap $srv
src=$?
srv=""
two_verdict "$dir" $crc $src
ok='^data transfers complete;^return status 0;ordk-rdmacm: counters: garbage=0 bad_req=0 no_listener=0 timeout=0 reset=0 rej_sent=0 rej_rcvd=0 established=1 '
expect_lines "$dir/client" "$ok"
expect_lines "$dir/server" "$ok"
echo PASS
