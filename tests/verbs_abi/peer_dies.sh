#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A peer that dies under a program waiting for completion events: Debian's
# ib_send_bw -e between two processes over net_memif, each through
# ordk-run; once the client streams, the server process is killed. The
# client's SENDs then have nobody to acknowledge them: it must end, within
# the bound, with the error completion (IBV_WC_RETRY_EXC_ERR, status 12),
# never wait on in ibv_get_cq_event().
#   peer_dies.sh <ordk-run> <tcp port>
set -u
run=$1 port=$2
command -v ib_send_bw >/dev/null || { echo "SKIP: ib_send_bw is not installed (perftest; devtools/setup.sh)"; exit 77; }
sock=/tmp/ordk-abi-peer-dies-$port.sock
dir=$(mktemp -d /tmp/ordk-abi-XXXXXX)
srv="" cli=""
trap '[ -n "$srv" ] && kill -KILL $srv 2>/dev/null; [ -n "$cli" ] && kill $cli 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"
. "$(dirname "$0")/../examples/wait_ready.sh"

# exec: $srv is the program's own PID (ordk-run execs it), killed below
bash -c "exec \"\$@\"" _ "$run" --dev "bluesim,port=memif:server:$sock" -- \
    ib_send_bw -e -n 1000000 -p "$port" >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: the server never listened on $port"; exit 1; }
timeout -k 5 60 stdbuf -oL "$run" --dev "bluesim,port=memif:client:$sock" -- \
    ib_send_bw -e -n 1000000 -p "$port" 127.0.0.1 >"$dir/client" 2>&1 &
cli=$!
# streaming: perftest prints its table's header as the run starts (stdbuf: line by line)
wait_line "$dir/client" '#bytes +#iterations' $cli 30 || { cat "$dir/client"; echo "FAIL: the client never ran"; exit 1; }
kill -KILL $srv
wait $srv 2>/dev/null
srv=""
start=$SECONDS
reap $cli 40
crc=$?
cli=""
grep -v '^EAL' "$dir/client"
echo "--- the client ended $((SECONDS - start)) s after the server was killed, exit $crc"
[ $crc -ne 124 ] || { echo "FAIL: the client still waited 40 s after its peer died"; exit 1; }
[ $crc -ne 0 ] || { echo "FAIL: the client exited 0 with its peer dead"; exit 1; }
expect_lines "$dir/client" "status 12|RETRY_EXC|retry counter exceeded"
echo PASS
