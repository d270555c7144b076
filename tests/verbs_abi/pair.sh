#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An unmodified verbs program between two processes over net_memif, each
# through ordk-run: the server starts first, the client only once the
# server listens on its TCP port (read from /proc/net/tcp: connecting to
# probe would take perftest's one connection). Both must exit 0 and the
# client's output must match every pattern.
#   pair.sh <ordk-run> <name> <tcp port> <pattern>[;<pattern>...] [dev suffix] -- <program> [args...]
# The port is passed to the program as -p (perftest, ibv_rc_pingpong); the
# client also gets 127.0.0.1. <dev suffix> is added to both --dev (e.g. ,fault=drop:0.01).
set -u
run=$1 name=$2 port=$3 patterns=$4
shift 4
suffix=""
[ "$1" = "--" ] || { suffix=$1; shift; }
shift
command -v "$1" >/dev/null || { echo "SKIP: $1 is not installed (devtools/setup.sh installs it)"; exit 77; }
sock=/tmp/ordk-abi-$name.sock
dir=$(mktemp -d /tmp/ordk-abi-XXXXXX)
srv=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"

. "$(dirname "$0")/../examples/wait_ready.sh"

if [ "$port" = 0 ]; then
    timeout 60 "$run" --dev "bluesim,port=memif:server:$sock$suffix" -- "$@" >"$dir/client" 2>&1
    rc=$?
    cat "$dir/client"
    [ $rc -eq 0 ] || { echo "FAIL: exit $rc"; exit 1; }
    expect_lines "$dir/client" "$patterns"
    echo PASS
    exit 0
fi
timeout 60 "$run" --dev "bluesim,port=memif:server:$sock$suffix" -- "$@" -p "$port" \
    >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: the server never listened on $port"; exit 1; }
timeout 60 "$run" --dev "bluesim,port=memif:client:$sock$suffix" -- "$@" -p "$port" 127.0.0.1 \
    >"$dir/client" 2>&1
crc=$?
reap $srv
src=$?
srv=""
two_verdict "$dir" $crc $src
expect_lines "$dir/client" "$patterns"
echo PASS
