#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian's fio, its rdma ioengine (rdma_cm, every wait ibv_get_cq_event), between
# two processes over net_memif, each through ordk-run: the server is the
# rw=read job (port=), the client the rw=write job (hostname=10.0.0.2, which
# ordk-run's ORDK_CM_PEERS maps to 127.0.0.1); verb= is what the client does.
# fio runs each job as a thread (--thread): as a child process (its default)
# it would outlive a timeout that reaches the parent only.
#   fio.sh <ordk-run> <tcp port> write|read|send|send-unverified [dev suffix]
# write, read: the client WRITEs into / READs from the server's buffers; both
#   exit 0, fio's error counts 0, every block issued, nothing short or dropped.
# send: the client SENDs blocks with crc32c verify headers (verify=crc32c),
#   the server receives them as its reads and verifies each (fio verifies a
#   read job's data as it completes; a write job's verify phase is skipped on
#   this engine): the same criteria, and no "verify:" line.
# send-unverified: the client sends blocks without headers: the server must
#   find them bad (exit non-zero, "verify: bad magic header"), which shows its
#   verification runs. The client is then stopped by its PID: after its SENDs
#   fail (RNR: nobody posts RECVs any more) fio's getevents waits for a CQ
#   event that never comes (engines/rdma.c goes back to ibv_get_cq_event after
#   an error completion, on any device).
# Server iodepth 32, client 16: fio's own advice for SENDs (its receiver
# deeper than its sender, or RNR: the engine sets rnr_retry_count 0).
set -u
run=$1 port=$2 verb=$3 suffix=${4:-}
command -v fio >/dev/null || { echo "SKIP: fio is not installed (devtools/setup.sh installs it)"; exit 77; }
fio --enghelp=rdma >/dev/null 2>&1 || { echo "SKIP: this fio has no rdma ioengine"; exit 77; }
. "$(dirname "$0")/../examples/wait_ready.sh"
sock=/tmp/ordk-eco-fio-$port.sock
dir=$(mktemp -d /tmp/ordk-eco-XXXXXX)
srv="" cli=""
trap '[ -n "$srv" ] && kill $srv 2>/dev/null; [ -n "$cli" ] && kill $cli 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
rm -f "$sock"
export ORDK_RDMACM_STATS=1
bs=64k size=32m n=512
job=(fio --thread --ioengine=rdma "--bs=$bs" "--size=$size")
sv=() cv=(--verb="${verb%-unverified}")
case $verb in
send) sv=(--verify=crc32c) cv+=(--verify=crc32c) ;;
send-unverified) sv=(--verify=crc32c) ;;
write | read) ;;
*) echo "fio.sh: verb $verb?"; exit 2 ;;
esac
timeout -k 5 60 "$run" --dev "bluesim,port=memif:server:$sock$suffix" -- \
    "${job[@]}" --name=server --rw=read --iodepth=32 --port="$port" "${sv[@]}" >"$dir/server" 2>&1 &
srv=$!
wait_tcp "$port" $srv 30 || { cat "$dir/server"; echo "FAIL: fio's server never listened on $port"; exit 1; }
timeout -k 5 60 "$run" --dev "bluesim,port=memif:client:$sock$suffix" -- \
    "${job[@]}" --name=client --rw=write --iodepth=16 --hostname=10.0.0.2 --port="$port" "${cv[@]}" \
    >"$dir/client" 2>&1 &
cli=$!
if [ "$verb" = send-unverified ]; then
    reap $srv 60
    src=$?
    srv=""
    kill $cli 2>/dev/null
    reap $cli 10 >/dev/null
    cli=""
    grep -v '^EAL' "$dir/server"
    if [ $src -eq 0 ] || [ $src -eq 124 ]; then
        echo "FAIL: the server's exit $src: it took blocks with no verify header"
        exit 1
    fi
    expect_lines "$dir/server" '^verify: bad magic header .* wanted acca at file server\.0\.0 offset 0, length 65536;^server: .*err=84'
    echo PASS
    exit 0
fi
reap $cli 70
crc=$?
cli=""
reap $srv
src=$?
srv=""
two_verdict "$dir" $crc $src
cm='ordk-rdmacm: counters: garbage=0 bad_req=0 no_listener=0 timeout=0 reset=0 .* established=1 '
clean='short=0,0,0,0 dropped=0,0,0,0'
expect_lines "$dir/client" "^client: \(groupid=0, jobs=1\): err= 0: ;issued rwts: total=0,$n,0,0 $clean;io=32\.0MiB;$cm"
if [ "$verb" = send ]; then
    expect_lines "$dir/server" "^server: \(groupid=0, jobs=1\): err= 0: ;issued rwts: total=$n,0,0,0 $clean;io=32\.0MiB;$cm"
else
    # the server issues one read: the wait for the client's FINISH message
    expect_lines "$dir/server" "^server: \(groupid=0, jobs=1\): err= 0: ;issued rwts: total=1,0,0,0 $clean;$cm"
fi
! grep -E '^(verify|fio): ' "$dir/client" "$dir/server" | grep -v 'fio: waiting for connection' ||
    { echo "FAIL: fio reported errors"; exit 1; }
echo PASS
