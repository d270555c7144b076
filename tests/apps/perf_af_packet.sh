#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-perf over net_af_packet on a veth pair between two network namespaces
# made here (as doc/guides/drivers/bluesim.md runs it): the server in one,
# the client in the other, the attribute exchange over the namespaces' own
# TCP addresses, bluesim's RoCE addresses apart from them. Each process is
# time bounded and stopped by its PID; the namespaces and the veth go at the
# end. Skipped (77) without root or without ip(8) netns support.
#   perf_af_packet.sh <ordk-perf> <tcp port>
set -u
. "$(dirname "$0")/../examples/wait_ready.sh"
perf=$1 port=$2
nsa=ordk-afp-s-$$ nsb=ordk-afp-c-$$ va=oafs$$ vb=oafc$$
dir=$(mktemp -d /tmp/ordk-perf-afp-XXXXXX)
srv= cli=
cleanup() {
    kill $srv $cli 2>/dev/null
    ip netns del "$nsa" 2>/dev/null
    ip netns del "$nsb" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; for f in "$dir"/*; do echo "--- $f:"; cat "$f"; done; exit 1; }

[ "$(id -u)" -eq 0 ] && command -v ip >/dev/null || { echo "SKIP: needs root and ip(8)"; exit 77; }
ip netns add "$nsa" && ip netns add "$nsb" || { echo "SKIP: no network namespaces"; exit 77; }
ip link add "$va" type veth peer name "$vb" || fail "cannot make a veth pair"
ip link set "$va" netns "$nsa" && ip link set "$vb" netns "$nsb" || fail "cannot move the veth"
for x in "$nsa $va 10.77.0.1" "$nsb $vb 10.77.0.2"; do
    set -- $x
    ip -n "$1" link set lo up
    ip -n "$1" link set "$2" mtu 9000 up
    ip -n "$1" addr add "$3/24" dev "$2"
done

eal() { # <veth> <lcore> <prefix>
    echo "--no-pci --no-huge -m 512 -l $2 --file-prefix=$3-$$ --no-telemetry --log-level=4" \
         "--vdev=net_af_packet0,iface=$1,framesz=16384,blocksz=16384 --"
}
ip netns exec "$nsa" timeout 60 "$perf" write_bw $(eal "$va" 0 afps) -p "$port" -n 500 \
    -d bluesim,port=0,ip=10.77.1.1 >"$dir/server" 2>&1 &
srv=$!
wait_line "$dir/server" "Waiting for client to connect" $srv 30 || fail "no server banner"
ip netns exec "$nsb" timeout 60 "$perf" write_bw $(eal "$vb" 1 afpc) -p "$port" -n 500 \
    --no-progress -d bluesim,port=0,ip=10.77.1.2 10.77.0.1 >"$dir/client" 2>&1 &
cli=$!
wait $cli
crc=$?
cli=
wait $srv
src=$?
srv=
[ $crc -eq 0 ] || fail "client exit $crc"
[ $src -eq 0 ] || fail "server exit $src"
for side in client server; do
    row=$(grep -A1 '^ #bytes' "$dir/$side" | tail -1)
    [[ $row =~ ^\ 65536\ +500\ + ]] || fail "the $side's row: '$row'"
done
cat "$dir/client"
echo "ok"
