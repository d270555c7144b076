#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# libfabric's verbs provider on ORDK, through ordk-run, in a network namespace
# of the test's own: libfabric offers FI_EP_MSG only on a host interface (not
# loopback) whose address rdma_bind_addr() binds to an RDMA device, as RoCE's
# netdev carries its device's IP; here a veth interface carries the server's
# device IP 10.0.0.2, and ORDK's rdma_cm connects to it (ORDK_CM_PEERS empty).
# Nothing of the host's network changes.
#   fabric.sh <ordk-run> info            fi_info -p verbs lists ordk0 (FI_EP_MSG) and
#                                        ordk0-dgram (FI_EP_DGRAM: UD QPs)
#   fabric.sh <ordk-run> pingpong <port> msg|dgram
#                                        fi_pingpong -p verbs -e <type> -c (it checks every
#                                        message's data), two processes over net_memif
# dgram runs fi_pingpong's default sizes, 64 B to 4 KiB (the port's MTU, the
# provider's max_msg_size): a UD message longer than one SimpleNic frame goes
# in fragments (architecture.md, "UD queue pairs").
set -u
run=$1 mode=$2 port=${3:-0} ep=${4:-msg}
prog=fi_info
[ "$mode" = info ] || prog=fi_pingpong
command -v $prog >/dev/null || { echo "SKIP: $prog is not installed (devtools/setup.sh installs libfabric-bin)"; exit 77; }
if [ -z "${ORDK_ECO_NETNS:-}" ]; then
    if [ "$(id -u)" = 0 ]; then ns=(unshare --net); else ns=(unshare --user --map-root-user --net); fi
    "${ns[@]}" true 2>/dev/null || { echo "SKIP: cannot make a network namespace (root or user namespaces)"; exit 77; }
    ORDK_ECO_NETNS=1 exec "${ns[@]}" -- "$0" "$@"
fi
ip link set lo up &&
    ip link add ordk-eco0 type veth peer name ordk-eco1 &&
    ip addr add 10.0.0.2/24 dev ordk-eco0 &&
    ip link set ordk-eco1 up && ip link set ordk-eco0 up ||
    { echo "SKIP: no veth interface in the namespace"; exit 77; }
export ORDK_CM_PEERS=
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
if [ "$mode" = info ]; then
    out=$(timeout 60 "$run" --dev bluesim,port=loopback,ip=10.0.0.2 -- fi_info -p verbs 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || fail "fi_info -p verbs: exit $rc"
    awk '/^provider: verbs$/ { p = 1; next } /^provider:/ { p = 0 }
         p && /^ +domain: ordk0$/ { d = 1 } p && d && /^ +type: FI_EP_MSG$/ { f = 1 } END { exit !f }' <<<"$out" ||
        fail "no verbs FI_EP_MSG domain ordk0"
    awk '/^provider: verbs$/ { p = 1; next } /^provider:/ { p = 0 }
         p && /^ +domain: ordk0-dgram$/ { d = 1 } p && d && /^ +type: FI_EP_DGRAM$/ { f = 1 } END { exit !f }' <<<"$out" ||
        fail "no verbs FI_EP_DGRAM domain ordk0-dgram"
    [ $fails -eq 0 ] && echo PASS || exit 1
    exit 0
fi
. "$(dirname "$0")/../examples/wait_ready.sh"
sock=/tmp/ordk-eco-fabric-$port.sock
dir=$(mktemp -d /tmp/ordk-eco-XXXXXX)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"
case $ep in
msg) pp=(fi_pingpong -p verbs -e msg -c -I 100) want='^64 +100 +=100 ;^4k +100 +=100 ;^1m +100 +=100 ' ;;
dgram) pp=(fi_pingpong -p verbs -e dgram -c -I 100) want='^64 +100 +=100 ;^1k +100 +=100 ;^4k +100 +=100 ' ;;
*) echo "fabric.sh: endpoint type '$ep' is not msg or dgram"; exit 1 ;;
esac
timeout -k 5 60 "$run" --dev "bluesim,port=memif:server:$sock" -- "${pp[@]}" -B "$port" >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: fi_pingpong's server never listened on $port"; exit 1; }
timeout -k 5 60 "$run" --dev "bluesim,port=memif:client:$sock" -- "${pp[@]}" -P "$port" 127.0.0.1 >"$dir/client" 2>&1
crc=$?
reap $srv
src=$?
srv=""
two_verdict "$dir" $crc $src
expect_lines "$dir/client" "^bytes +#sent +#ack;$want"
expect_lines "$dir/server" "^bytes +#sent +#ack;$want"
echo PASS
