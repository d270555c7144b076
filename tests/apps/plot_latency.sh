#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# devtools/plot-latency.py on a small histogram file made here: the summary's
# nearest-rank percentiles and steps by hand, bad input refused (exit 1,
# named), then the PNG drawn (skipped, 77, without matplotlib).
#   plot_latency.sh <plot-latency.py>
set -u
plot=$1
dir=$(mktemp -d /tmp/ordk-plot-lat-XXXXXX)
trap 'rm -rf "$dir"' EXIT
# write_lat: 2 B samples 1000..10000 ns, 4 KiB the same x 3; raw_pingpong 4 KiB: 500 ns x 10
python3 - "$dir/h.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write("test,bytes,iteration,ns\n")
    for i in range(10):
        f.write("write_lat,2,%d,%d\n" % (i, 1000 * (10 - i)))
        f.write("write_lat,4096,%d,%d\n" % (i, 3000 * (10 - i)))
        f.write("raw_pingpong,4096,%d,500\n" % i)
PY
got=$(python3 "$plot" --summary-only "$dir/h.csv") || { echo "FAIL: exit $?: $got"; exit 1; }
echo "$got"
# p50 = 5th of 10, p90 = 9th, p99 = p99.9 = max = 10th; step = 15 / 5
for want in "raw_pingpong 4096 10 0.50 0.50 0.50 0.50 0.50" \
            "write_lat 2 10 5.00 9.00 10.00 10.00 10.00" \
            "write_lat 4096 10 15.00 27.00 30.00 30.00 30.00 3.00"; do
    grep -qx -- "$want" <<<"$(tr -s ' ' <<<"$got" | sed 's/ $//')" ||
        { echo "FAIL: no summary line '$want'"; exit 1; }
done
printf 'bytes,ns\n2,100\n' >"$dir/bad.csv"
printf 'test,bytes,iteration,ns\nwrite_lat,2,0,fast\n' >"$dir/bad2.csv"
for c in "bad.csv|plot-latency: $dir/bad.csv: header ['bytes', 'ns'] is not test,bytes,iteration,ns" \
         "bad2.csv|plot-latency: $dir/bad2.csv:2: bytes, iteration and ns must be numbers"; do
    out=$(python3 "$plot" --summary-only "$dir/${c%%|*}" 2>&1)
    rc=$?
    [ $rc -eq 1 ] && grep -qF -- "${c#*|}" <<<"$out" ||
        { echo "FAIL: ${c%%|*}: exit $rc: $out"; exit 1; }
done
if ! python3 -c 'import matplotlib' 2>/dev/null && ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
    echo "SKIP: no matplotlib (apt-get install python3-matplotlib)"
    exit 77
fi
python3 "$plot" --no-install -o "$dir/lat.png" --title test "$dir/h.csv" ||
    { echo "FAIL: drawing"; exit 1; }
[ "$(head -c 8 "$dir/lat.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "FAIL: $dir/lat.png is not a PNG"; exit 1; }
echo PASS
