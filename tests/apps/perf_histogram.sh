#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-perf --histogram FILE (one process, --loopback): the file holds every
# sample of every size, in order (test,bytes,iteration,ns: n - 1 per size for
# n iterations), and the table's p50/p90/max columns come from the same
# samples: t_min and max are the file's smallest and largest, the percentiles
# are monotone. Then what is refused: a BW test, -D, a file that cannot be made.
#   perf_histogram.sh <ordk-perf>
set -u
perf=$1
dir=$(mktemp -d /tmp/ordk-perf-hist-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

check() { # <name> <test> <n> <sizes...>: the file and the table of a run
    local name=$1 test=$2 n=$3
    shift 3
    python3 - "$dir/$name.csv" "$dir/$name.out" "$test" "$n" "$@" <<'PY'
import csv, sys
path, out, test, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sizes = [int(s) for s in sys.argv[5:]]
rows = list(csv.reader(open(path)))
assert rows[0] == ["test", "bytes", "iteration", "ns"], rows[0]
by = {}
for r in rows[1:]:
    assert r[0] == test, r
    ns = r[3]
    assert ns.isdigit() and int(ns) > 0, r
    by.setdefault(int(r[1]), []).append((int(r[2]), int(ns)))
assert sorted(by) == sizes, (sorted(by), sizes)
for s, v in by.items():
    assert [i for i, _ in v] == list(range(n - 1)), (s, "iterations 0 .. n-2 in order")
# the table: perftest's 9 columns, then p50, p90, max
lines = open(out).read().splitlines()
head = [i for i, l in enumerate(lines) if l.startswith(" #bytes")]
assert len(head) == 1, "one table"
assert lines[head[0]].endswith("   50% percentile[usec]   90% percentile[usec]   max[usec]"), \
    lines[head[0]]
table = [l.split() for l in lines[head[0] + 1:] if l[:2].strip().isdigit()]
assert [int(t[0]) for t in table] == sizes, table
for t in table:
    assert len(t) == 12, t
    b, iters = int(t[0]), int(t[1])
    t_min, t_max, typ, avg, sd, p99, p999, p50, p90, mx = map(float, t[2:])
    assert iters == n, t
    assert t_min <= p50 <= p90 <= p99 <= p999 <= mx, ("not monotone", t)
    assert t_max <= mx, t
    ns = [x for _, x in by[b]]
    # the file's ns are whole, the table's usec two decimals: within 0.01 usec
    assert abs(min(ns) / 1000 - t_min) <= 0.01, (b, min(ns), t_min)
    assert abs(max(ns) / 1000 - mx) <= 0.01, (b, max(ns), mx)
print("ok: %s, %d sizes x %d samples" % (test, len(sizes), n - 1))
PY
}

run() { # <name> <test> [options...]
    local name=$1 test=$2
    shift 2
    timeout 120 "$perf" "$test" --loopback --no-progress --histogram="$dir/$name.csv" "$@" \
        >"$dir/$name.out" 2>&1 || { fail "$test $* exited $?: $(tail -3 "$dir/$name.out")"; return 1; }
}

# -a: every size from 2 B to 8 MiB, in one file
all=$(python3 -c 'print(" ".join(str(2 << i) for i in range(23)))')
# shellcheck disable=SC2086 # the sizes split on purpose
run all write_lat -a -n 40 && { check all write_lat 40 $all || fail "write_lat -a"; }
run send send_lat -s 64 -n 30 && { check send send_lat 30 64 || fail "send_lat"; }
run read read_lat -n 30 && { check read read_lat 30 2 || fail "read_lat"; }
run atomic atomic_lat -n 30 && { check atomic atomic_lat 30 8 || fail "atomic_lat"; }

# refused: not a latency test, -D, a file that cannot be made (before any run)
for c in "write_bw --loopback --histogram=$dir/x.csv|--histogram: latency tests only" \
         "write_lat --loopback -D 1 --histogram=$dir/x.csv|--histogram: counts iterations (-n), not -D" \
         "write_lat --loopback --histogram=$dir/none/x.csv|--histogram $dir/none/x.csv: No such file or directory"; do
    args=${c%%|*} want="ordk-perf: ${c#*|}"
    # shellcheck disable=SC2086 # the arguments split on purpose
    got=$(timeout 60 "$perf" $args 2>&1)
    rc=$?
    if [ $rc -ne 1 ] || ! grep -qF -- "$want" <<<"$got"; then
        fail "ordk-perf $args exited $rc (1 wanted): $(head -3 <<<"$got")"
    else
        echo "ok: refused: $args"
    fi
done
[ ! -e "$dir/x.csv" ] || fail "a refused run made its file"
[ $fails -eq 0 ] || exit 1
echo PASS
