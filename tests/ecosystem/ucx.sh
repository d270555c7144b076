#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# UCX on ORDK through ordk-run.
#   ucx.sh <ordk-run>
#     `ucx_info -d` lists the memory domain ordk0 and its verbs transports on
#     ordk0:1, each with its capabilities (an interface that fails to open says
#     so instead); without ordk-run's view (--no-view) it lists no ordk0 (UCX
#     takes an IB device only when /dev/infiniband/<dev_name> is an accessible
#     character device).
#   ucx.sh <ordk-run> perftest <tcp port> <UCX_TLS> <ucx_perftest client args...>
#     ucx_perftest between two processes over net_memif (UCX_NET_DEVICES=ordk0:1):
#     the server starts first, the client once the server listens on <tcp port>;
#     both must exit 0 under their time bound and the client print its results
#     (the "Final:" line, no UCX error or warning).
set -u
run=$1
command -v ucx_info >/dev/null || { echo "SKIP: ucx_info is not installed (devtools/setup.sh installs ucx-utils)"; exit 77; }
[ "$(id -u)" = 0 ] || unshare --user --map-root-user --mount true 2>/dev/null ||
    { echo "SKIP: neither root nor user namespaces: ordk-run has no view here"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

if [ "${2:-}" = perftest ]; then
    port=$3 tls=$4
    shift 4
    command -v ucx_perftest >/dev/null || { echo "SKIP: ucx_perftest is not installed"; exit 77; }
    sock=/tmp/ordk-ucx-$port.sock
    dir=$(mktemp -d /tmp/ordk-ucx-XXXXXX)
    srv=""
    trap '[ -n "$srv" ] && kill $srv 2>/dev/null; rm -rf "$dir"; rm -f "$sock"' EXIT
    rm -f "$sock"
    . "$(dirname "$0")/../examples/wait_ready.sh"
    # INFO: UCP prints the transports of each endpoint's lanes (ep_cfg)
    export UCX_TLS=$tls UCX_NET_DEVICES=ordk0:1 UCX_WARN_UNUSED_ENV_VARS=n UCX_LOG_LEVEL=info
    timeout 90 "$run" --dev "bluesim,port=memif:server:$sock" -- ucx_perftest -p "$port" \
        >"$dir/server" 2>&1 &
    srv=$!
    wait_tcp "$port" $srv 45 || { cat "$dir/server"; echo "FAIL: the server never listened on $port"; exit 1; }
    timeout 90 "$run" --dev "bluesim,port=memif:client:$sock" -- ucx_perftest -p "$port" 127.0.0.1 \
        "$@" >"$dir/client" 2>&1
    crc=$?
    reap $srv
    src=$?
    srv=""
    two_verdict "$dir" $crc $src
    expect_lines "$dir/client" '^Final: +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+$'
    ! grep -E 'UCX +(ERROR|WARN)' "$dir/client" "$dir/server" || { echo "FAIL: UCX complained"; exit 1; }
    # a UCP test (no -x: UCT's) moves its data on the transport asked for, on ordk0
    tl=${tls/#rc/rc_verbs}
    [[ " $* " == *" -x "* ]] ||
        expect_lines "$dir/client" "ep_cfg\\[[0-9]+\\]: [a-z_]+\\(${tl}/ordk0:1"

    echo PASS
    exit 0
fi

out=$(timeout 60 "$run" -- ucx_info -d 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "ucx_info -d: exit $rc"
grep -Eq '^# Memory domain: ordk0$' <<<"$out" || fail "no memory domain ordk0"
for tl in rc_verbs ud_verbs; do
    # the transport on ordk0:1, and its interface open: capabilities, not a failure
    awk -v tl="$tl" '$0 ~ "# +Transport: " tl "$" { t = 1; next }
        t && /# +Device:/ { d = ($NF == "ordk0:1"); next }
        t && d && /failed to open interface/ { bad = 1 }
        t && d && /# +capabilities:/ { f = 1 }
        t && /# +Transport:|# +Connection manager:|# +Memory domain:/ { t = 0 }
        END { exit !(f && !bad) }' <<<"$out" || fail "no working transport $tl on ordk0:1"
done
# the host's view: no ordk0
out=$(timeout 60 "$run" --no-view -- ucx_info -d 2>&1)
[ -e /dev/infiniband/uverbs0 ] || ! grep -q 'Memory domain: ordk0' <<<"$out" ||
    fail "--no-view: UCX still lists ordk0"
[ $fails -eq 0 ] && echo PASS || exit 1
