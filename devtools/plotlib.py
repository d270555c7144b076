# SPDX-License-Identifier: BSD-3-Clause
"""What ORDK's plotting scripts (cc-plot.py, plot-latency.py) share: matplotlib's pyplot,
from Debian's python3-matplotlib (devtools/setup.sh installs it).

When the running interpreter lacks matplotlib and Debian's has it (a virtualenv,
pyenv), the script is run again under Debian's; when neither has it, the package
is installed (as root, with apt-get) if `install` is true, else the script exits
with a message naming the package.
"""
import csv
import os
import shutil
import subprocess
import sys

DEBIAN_PYTHON = "/usr/bin/python3"
PACKAGE = "python3-matplotlib"



def csv_rows(path, columns):
    """(line number, row) of a CSV file whose first line is @columns; empty lines skipped.
    Raises ValueError naming the file (and line) on another header or a row of another width."""
    with open(path, newline="") as f:
        rows = csv.reader(f)
        header = next(rows, None)
        if header != columns:
            raise ValueError(f"{path}: header {header} is not {','.join(columns)}")
        for n, row in enumerate(rows, start=2):
            if not row:
                continue
            if len(row) != len(columns):
                raise ValueError(f"{path}:{n}: {len(row)} columns, want {len(columns)}")
            yield n, row


def debian_python_has_matplotlib():
    if os.path.realpath(sys.executable) == os.path.realpath(DEBIAN_PYTHON):
        return False
    return subprocess.run([DEBIAN_PYTHON, "-c", "import matplotlib"],
                          stderr=subprocess.DEVNULL).returncode == 0


def import_pyplot(prog, install):
    """matplotlib.pyplot on the Agg backend; exits with a message when it cannot be had."""
    need = f"{prog}: needs matplotlib: apt-get install {PACKAGE} (as root)"
    try:
        import matplotlib
    except ImportError:
        # python3-matplotlib serves Debian's interpreter: run under it when this one lacks it
        if os.path.exists(DEBIAN_PYTHON) and not debian_python_has_matplotlib() and install:
            if shutil.which("apt-get") is None or os.geteuid() != 0:
                sys.exit(need)
            print(f"{prog}: installing {PACKAGE}", file=sys.stderr)
            subprocess.run(["apt-get", "install", "-y", "-q", PACKAGE], check=True)
        if os.path.exists(DEBIAN_PYTHON) and debian_python_has_matplotlib():
            os.execv(DEBIAN_PYTHON, [DEBIAN_PYTHON] + sys.argv)
        try:
            import matplotlib
        except ImportError:
            sys.exit(need)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt
