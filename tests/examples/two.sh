#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An example's server and client, two processes over net_memif (one core
# each), each time-bounded and stopped by its PID; both must exit 0 and the
# client's output must match every pattern given. The client starts once the
# server is ready: its net_memif socket listens (--ready <socket path>).
#   two.sh [--ready <socket>] <pattern>[;<pattern>...] <server command...> ::: <client command...>
set -u
. "$(dirname "$0")/wait_ready.sh"
ready=
if [ "$1" = "--ready" ]; then ready=$2; shift 2; fi
patterns=$1
shift
server=() client=()
while [ $# -gt 0 ] && [ "$1" != ":::" ]; do server+=("$1"); shift; done
shift
client=("$@")
dir=$(mktemp -d /tmp/ordk-ex-XXXXXX)
trap 'kill $srv 2>/dev/null; rm -rf "$dir"' EXIT
timeout 100 "${server[@]}" >"$dir/server" 2>&1 &
srv=$!
if [ -n "$ready" ] && ! wait_listen "$ready" $srv 60; then
    grep -v '^EAL' "$dir/server"; echo "FAIL: the server never got ready"; exit 1
fi
timeout 100 "${client[@]}" >"$dir/client" 2>&1
crc=$?
reap $srv
src=$?
two_verdict "$dir" $crc $src
expect_lines "$dir/client" "$patterns"
echo PASS
