#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-baseline's raw ping-pong over net_memif, two processes (raw_pong the
# memif server on lcore 0, raw_ping the client on lcore 1), 64 B and 4 KiB
# frames: three figures each (typical <= p99 <= p99.9), every frame echoed
# (the warm-up's 200, n + 1 timed, the stop), the histogram file one line
# per sample. No timing is asserted.
#   baseline_pingpong.sh <ordk-baseline>
set -u
. "$(dirname "$0")/../examples/wait_ready.sh"
base=$1 n=2000
dir=$(mktemp -d /tmp/ordk-baseline-pp-XXXXXX)
pong=
trap 'kill $pong 2>/dev/null; rm -rf "$dir"' EXIT
for size in 64 4096; do
    sock="$dir/pp.sock"
    timeout 60 "$base" raw_pong "$sock" >"$dir/pong" 2>&1 &
    pong=$!
    wait_listen "$sock" $pong 30 || { cat "$dir/pong"; echo "FAIL: raw_pong not listening"; exit 1; }
    timeout 60 "$base" raw_ping $size $n "$sock" --histogram="$dir/h$size.csv" >"$dir/ping" 2>&1
    prc=$?
    wait $pong
    src=$?
    pong=
    if [ $prc -ne 0 ] || [ $src -ne 0 ]; then
        echo "FAIL: $size B: raw_ping exited $prc, raw_pong $src"
        cat "$dir/ping" "$dir/pong"
        exit 1
    fi
    cat "$dir/ping"
    python3 - "$dir/ping" "$dir/pong" "$dir/h$size.csv" $size $n <<'PY' || exit 1
import sys
ping, pong, hist, size, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
fig = dict(l.split() for l in open(ping) if l.startswith("raw_pingpong_"))
keys = ["raw_pingpong_%db_us" % size, "raw_pingpong_%db_p99_us" % size,
        "raw_pingpong_%db_p999_us" % size]
assert sorted(fig) == sorted(keys), fig
typ, p99, p999 = (float(fig[k]) for k in keys)
assert 0 < typ <= p99 <= p999, fig
echoed = [l.split()[1] for l in open(pong) if l.startswith("raw_pong_frames ")]
assert echoed == [str(200 + n + 1 + 1)], ("every frame echoed once", echoed)
rows = open(hist).read().splitlines()
assert rows[0] == "test,bytes,iteration,ns", rows[0]
assert len(rows) == 1 + n, len(rows)
for i, r in enumerate(rows[1:]):
    t, b, it, ns = r.split(",")
    assert t == "raw_pingpong" and int(b) == size and int(it) == i and int(ns) > 0, r
print("ok: %d B ping-pong: %s" % (size, fig))
PY
done
echo PASS
