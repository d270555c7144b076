#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Draw congestion-control traces: rate, queue depth and goodput over time (PNG).

usage: cc-plot.py [-o OUT.png] [--title T] [--no-install] TRACE.csv [TRACE.csv ...]

Every input is a trace CSV (doc/guides/prog_guide/congestion.md, "Trace CSV"):

    t_ns,source,metric,value
    1000000,port2,queue_bytes,40960
    1000000,qp17,rate_bps,2.5e9

t_ns: the writer's clock in ns; source: what the row is about (port<N>, qp<N>,
flow<N>, ...); metric: rate_bps (a sender's current rate), queue_bytes (a queue's
depth), goodput_bps (bytes delivered, as bits/s), or any other name (drawn on a
panel of its own); value: a number. Rows of all files are merged; each metric
gets a panel, each source a line. ordk-switch --trace writes queue_bytes rows.

matplotlib comes from Debian's python3-matplotlib (devtools/setup.sh installs
it; devtools/plotlib.py): when it is missing the script installs it (as root,
with apt-get) unless --no-install is given. Building ORDK does not need it.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plotlib  # noqa: E402 (beside this script)

COLUMNS = ["t_ns", "source", "metric", "value"]
# panel order and axis labels of the known metrics: (scale, unit)
KNOWN = {
    "rate_bps": (1e-9, "rate (Gb/s)"),
    "queue_bytes": (1.0 / 1024, "queue depth (KiB)"),
    "goodput_bps": (1e-9, "goodput (Gb/s)"),
}


def read_traces(paths):
    """{metric: {source: ([t_s], [value])}} from the CSV files; raises ValueError on bad input."""
    series = {}
    for path in paths:
        for n, row in plotlib.csv_rows(path, COLUMNS):
            try:
                t, v = int(row[0]), float(row[3])
            except ValueError:
                raise ValueError(f"{path}:{n}: t_ns and value must be numbers") from None
            ts, vs = series.setdefault(row[2], {}).setdefault(row[1], ([], []))
            ts.append(t / 1e9)
            vs.append(v)
    return series


def plot(series, out, title, plt):
    metrics = [m for m in KNOWN if m in series] + sorted(m for m in series if m not in KNOWN)
    if not metrics:
        raise ValueError("no rows to draw")
    fig, axes = plt.subplots(len(metrics), 1, sharex=True, squeeze=False,
                             figsize=(10, 2.8 * len(metrics)))
    t0 = min(min(ts) for by_src in series.values() for ts, _ in by_src.values())
    for ax, m in zip(axes[:, 0], metrics):
        scale, label = KNOWN.get(m, (1.0, m))
        for src in sorted(series[m]):
            ts, vs = series[m][src]
            ax.step([t - t0 for t in ts], [v * scale for v in vs], where="post", label=src,
                    linewidth=1)
        ax.set_ylabel(label)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="small", ncol=4)
    axes[-1, 0].set_xlabel("time (s)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return metrics


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+", help="trace CSV files")
    ap.add_argument("-o", "--out", default="cc-plot.png", help="PNG to write")
    ap.add_argument("--title", default="")
    ap.add_argument("--no-install", action="store_true",
                    help="do not install python3-matplotlib when missing")
    a = ap.parse_args(argv)
    try:
        series = read_traces(a.traces)
        if not series:
            raise ValueError("no rows to draw")
        metrics = plot(series, a.out, a.title, plotlib.import_pyplot("cc-plot", not a.no_install))
    except (OSError, ValueError) as e:
        print(f"cc-plot: {e}", file=sys.stderr)
        return 1
    print(f"cc-plot: {a.out}: {', '.join(metrics)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
