#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draw latency against message size with percentile bands (PNG), from histogram files.

usage: plot-latency.py [-o OUT.png] [--title T] [--no-install] [--summary-only] HIST.csv [...]

Every input is a histogram file as `ordk-perf --histogram FILE` and
`ordk-baseline raw_ping ... --histogram=FILE` write it (doc/guides/tools/apps.md):

    test,bytes,iteration,ns
    write_lat,2,0,1840
    write_lat,2,1,1795

one line per sample, in the order taken: the test, the message (or frame) size,
the iteration from 0, the sample in nanoseconds (RTT/2 for the ping-pongs
write_lat, send_lat and raw_pingpong; the WR's time for read_lat and atomic_lat).
Rows of all files are merged; a test with the same size in two files is drawn
as "test (file)" from each.

Per test and size it prints a summary line (samples, p50, p90, p99, p99.9 and max
in usec; "step": p50 over the next smaller size's p50), then draws each test's
median as a line over its bands: p50-p90, p90-p99, p99-p99.9, and max as dots.
Percentiles here are nearest-rank over all samples (the sorted samples at
ceil(n x p) - 1); ordk-perf's table drops the top 2 first, as perftest does.

matplotlib comes from Debian's python3-matplotlib (devtools/setup.sh; see
devtools/plotlib.py); --summary-only needs none.
"""
import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402 (beside this script)

COLUMNS = ["test", "bytes", "iteration", "ns"]
QUANTILES = [("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("p99.9", 0.999)]


def read_hist(paths):
    """{label: {bytes: [ns, ...]}} from the files; raises ValueError on bad input."""
    per_file = []
    for path in paths:
        series = {}
        for n, row in plotlib.csv_rows(path, COLUMNS):
            try:
                size, ns = int(row[1]), float(row[3])
                int(row[2])
            except ValueError:
                raise ValueError(f"{path}:{n}: bytes, iteration and ns must be numbers") from None
            if size <= 0 or not ns >= 0 or math.isinf(ns):
                raise ValueError(f"{path}:{n}: bytes must be > 0 and ns >= 0")
            series.setdefault(row[0], {}).setdefault(size, []).append(ns)
        per_file.append((path, series))
    seen, clash = set(), set()  # a test with the same size in two files: told apart by file
    for _, series in per_file:
        for test, sizes in series.items():
            clash |= {test for size in sizes if (test, size) in seen}
            seen |= {(test, size) for size in sizes}
    merged = {}
    for path, series in per_file:
        for test, sizes in series.items():
            label = f"{test} ({os.path.basename(path)})" if test in clash else test
            for size, v in sizes.items():
                merged.setdefault(label, {}).setdefault(size, []).extend(v)
    return merged


def stats(samples):
    """{p50, p90, p99, p99.9, max, n} in usec, nearest rank over all samples."""
    s = sorted(samples)
    n = len(s)
    out = {name: s[max(0, math.ceil(n * q) - 1)] / 1000.0 for name, q in QUANTILES}
    out["max"] = s[-1] / 1000.0
    out["n"] = n
    return out


def summary(series, f=sys.stdout):
    """Print the table; @return {label: [(bytes, stats), ...]} sorted by size."""
    table = {}
    print("%-28s %9s %8s %10s %10s %10s %10s %10s %6s" % (
        "test", "bytes", "samples", "p50[us]", "p90[us]", "p99[us]", "p99.9[us]", "max[us]",
        "step"), file=f)
    for label in sorted(series):
        rows = [(size, stats(v)) for size, v in sorted(series[label].items())]
        table[label] = rows
        prev = None
        for size, st in rows:
            step = "" if prev is None or prev <= 0 else "%.2f" % (st["p50"] / prev)
            print("%-28s %9d %8d %10.2f %10.2f %10.2f %10.2f %10.2f %6s" % (
                label, size, st["n"], st["p50"], st["p90"], st["p99"], st["p99.9"], st["max"],
                step), file=f)
            prev = st["p50"]
    return table


def plot(table, out, title, plt):
    fig, ax = plt.subplots(figsize=(10, 6))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, label in enumerate(sorted(table)):
        rows = table[label]
        c = colors[i % len(colors)]
        x = [size for size, _ in rows]
        col = {k: [st[k] for _, st in rows] for k in ("p50", "p90", "p99", "p99.9", "max")}
        ax.fill_between(x, col["p50"], col["p90"], color=c, alpha=0.35, linewidth=0)
        ax.fill_between(x, col["p90"], col["p99"], color=c, alpha=0.18, linewidth=0)
        ax.fill_between(x, col["p99"], col["p99.9"], color=c, alpha=0.08, linewidth=0)
        ax.plot(x, col["p50"], color=c, marker="o", markersize=3, linewidth=1.5,
                label=f"{label}: p50 (bands to p90, p99, p99.9)")
        ax.plot(x, col["max"], color=c, marker=".", linestyle="none", markersize=4,
                label=f"{label}: max")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("latency (usec)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")
    if title:
        ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", help="histogram files (CSV)")
    ap.add_argument("-o", "--out", default="latency.png", help="PNG to write")
    ap.add_argument("--title", default="")
    ap.add_argument("--no-install", action="store_true",
                    help="do not install python3-matplotlib when missing")
    ap.add_argument("--summary-only", action="store_true", help="print the table, draw nothing")
    a = ap.parse_args(argv)
    try:
        series = read_hist(a.files)
        if not series:
            raise ValueError("no samples to draw")
        table = summary(series)
        if a.summary_only:
            return 0
        plot(table, a.out, a.title, plotlib.import_pyplot("plot-latency", not a.no_install))
    except (OSError, ValueError) as e:
        print(f"plot-latency: {e}", file=sys.stderr)
        return 1
    print(f"plot-latency: {a.out}: {', '.join(sorted(table))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
