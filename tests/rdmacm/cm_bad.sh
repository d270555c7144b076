#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Unmodified perftest -R meeting bad input, each case bounded:
#   no_listener: ib_write_bw -R's client to a port nobody listens on ends
#     with an error (exit non-zero), counted (no_listener=1), in time.
#   garbage: a stranger writes junk to ib_write_bw -R's listening port; the
#     server counts it (garbage=1), stays up, and serves the real client.
#   cm_bad.sh <ordk-run> <case> <tcp port>
set -u
run=$1 case=$2 port=$3
command -v ib_write_bw >/dev/null || { echo "SKIP: perftest is not installed"; exit 77; }
dir=$(mktemp -d /tmp/ordk-eco-XXXXXX)
sock=/tmp/ordk-eco-bad-$port.sock
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
. "$(dirname "$0")/../examples/wait_ready.sh"
export ORDK_RDMACM_STATS=1

case $case in
no_listener)
    timeout 60 "$run" -- ib_write_bw -R -p "$port" 127.0.0.1 >"$dir/client" 2>&1
    rc=$?
    grep -v '^EAL' "$dir/client"
    [ $rc -ne 124 ] || { echo "FAIL: the client hung (killed after 60 s)"; exit 1; }
    [ $rc -ne 0 ] || { echo "FAIL: the client exited 0 with nobody to talk to"; exit 1; }
    expect_lines "$dir/client" "ordk-rdmacm: counters: .*no_listener=1 "
    ;;
garbage)
    timeout 60 "$run" --dev "bluesim,port=memif:server:$sock" -- ib_write_bw -R -p "$port" \
        >"$dir/server" 2>&1 &
    srv=$!
    wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: the server never listened"; exit 1; }
    # 300 bytes of junk (one whole message and part of the next), then the connection closes
    exec 3<>"/dev/tcp/127.0.0.1/$port" || { echo "FAIL: cannot connect to the server"; exit 1; }
    head -c 300 /dev/zero | tr '\0' 'x' >&3
    exec 3>&-
    timeout 60 "$run" --dev "bluesim,port=memif:client:$sock" -- ib_write_bw -R -p "$port" 127.0.0.1 \
        >"$dir/client" 2>&1
    crc=$?
    wait $srv
    src=$?
    srv=""
    two_verdict "$dir" $crc $src
    expect_lines "$dir/client" '^ 65536 +[0-9]+ +[0-9.]+ +[0-9.]+'
    expect_lines "$dir/server" "ordk-rdmacm: counters: garbage=1 .*established=2 "
    ;;
*) echo "cm_bad.sh: unknown case $case"; exit 2;;
esac
echo PASS
