#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-perf's failures a user can act on, each under a time bound, every
# process stopped by its PID:
#   a client with no server says perftest's "Couldn't connect to H:P" (exit 1);
#   a second server on a port in use says "port N in use, pick another with -p";
#   a server and a client that run different tests both end at once (exit 1);
#   a run whose every frame is lost ends with RETRY_EXC_ERR (exit 2);
#   --run_infinitely prints a row a period until SIGINT, then ends cleanly.
#   perf_errors.sh <ordk-perf> <tcp port> (uses port and port + 1)
set -u
. "$(dirname "$0")/../examples/wait_ready.sh"
perf=$1 port=$2
dir=$(mktemp -d /tmp/ordk-perf-errors-XXXXXX)
srv=
trap 'kill $srv 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
show() { echo "--- $1:"; cat "$dir/$1"; }

# 1. nobody there: the bounded wait, then perftest's message
t0=$SECONDS
timeout 30 "$perf" write_bw -p "$port" --wait 2 127.0.0.1 >"$dir/lonely" 2>&1
rc=$?
show lonely
[ $rc -eq 1 ] || fail "a client without a server exits $rc, not 1"
grep -q "^Couldn't connect to 127.0.0.1:$port\$" "$dir/lonely" || fail "no 'Couldn't connect'"
[ $((SECONDS - t0)) -le 15 ] || fail "the client waited $((SECONDS - t0)) s for --wait 2"

# 2. the port is taken by a server that waits
timeout 60 "$perf" write_bw -p "$port" >"$dir/first" 2>&1 &
srv=$!
wait_listen "/tmp/ordk-perf-$port.sock" $srv 30 || fail "the first server never listened"
wait_line "$dir/first" "Waiting for client to connect" $srv 30 || fail "no banner before any client"
timeout 30 "$perf" write_bw -p "$port" >"$dir/second" 2>&1
rc=$?
show second
[ $rc -eq 1 ] || fail "the second server exits $rc, not 1"
grep -q "port $port in use.*pick another with -p" "$dir/second" || fail "no 'port in use'"
kill -0 $srv 2>/dev/null || fail "the first server did not keep waiting"
kill $srv
wait $srv 2>/dev/null
srv=

# 3. different tests: both sides end at once, saying why
p2=$((port + 1))
timeout 60 "$perf" write_bw -p "$p2" >"$dir/server" 2>&1 &
srv=$!
wait_listen "/tmp/ordk-perf-$p2.sock" $srv 30 || fail "the server never listened"
t0=$SECONDS
timeout 60 "$perf" read_bw -p "$p2" 127.0.0.1 >"$dir/client" 2>&1
crc=$?
wait $srv
src=$?
srv=
show client
show server
[ $crc -eq 1 ] && [ $src -eq 1 ] || fail "client exit $crc, server exit $src (1 and 1 wanted)"
grep -q "the server runs write_bw, the client read_bw" "$dir/client" || fail "the client does not say why"
# before, the client waited IDLE_S (15 s) for a BYE from a server that had left
[ $((SECONDS - t0)) -le 14 ] || fail "ending took $((SECONDS - t0)) s"

# 4. every frame lost: the retries run out, the run ends
timeout 100 "$perf" write_bw --loopback -n 5 -s 64 -d bluesim,port=0,fault=drop-tx:1 \
    >"$dir/loss" 2>&1
rc=$?
show loss
[ $rc -eq 2 ] || fail "the 100% loss run exits $rc, not 2"
grep -q "RETRY_EXC_ERR" "$dir/loss" || fail "no RETRY_EXC_ERR"

# 5. --run_infinitely: a row every -D seconds until SIGINT, then a clean end
timeout -s INT --preserve-status 8 "$perf" write_bw --loopback --run_infinitely -D 1 -s 4096 \
    >"$dir/inf" 2>&1
rc=$?
show inf
[ $rc -eq 0 ] || fail "--run_infinitely ends with exit $rc on SIGINT"
[ "$(grep -cE '^ 4096 ' "$dir/inf")" -ge 2 ] || fail "fewer than 2 rows in 8 s"
[ "$(tail -n 1 "$dir/inf")" = "---------------------------------------------------------------------------------------" ] ||
    fail "no closing rule"
echo PASS
