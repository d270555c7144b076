#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command: install what is missing, build with -Werror,
# run every default meson suite, and end with one line 'N passed, M failed'.
# Exits non-zero on any build error or failed test.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}

fail() {
    echo "test.sh: $*" >&2
    echo "0 passed, 1 failed"
    exit 1
}

. devtools/lib.sh

devtools/setup.sh || fail "setup failed"
# relocatable libordk.pc (suite sdk) also in a build dir configured before it was a default
ordk_build "$BUILD" -Dwerror=true -Dpkgconfig.relocatable=true || fail "configure or build failed (output above)"

start=$(date +%s)
meson test -C "$BUILD" --print-errorlogs --num-processes "$(nproc)"
rc=$?
echo "test.sh: meson test took $(( $(date +%s) - start )) s"
python3 devtools/junit-summary.py "$BUILD/meson-logs/testlog.junit.xml" "$rc"
