#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command: install what is missing, build with -Werror, run
# a test tier, print the ten slowest tests and end with one line
# 'N passed, M failed'. Exits non-zero on any build error or failed test.
#
#   devtools/test.sh           the fast tier (`meson test`): on every change
#   devtools/test.sh --full    the full tier (`meson test --setup full`): CI,
#                              and before you push
# Further arguments go to meson test (a suite, a test name, --repeat ...).
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${ORDK_BUILD_DIR:-build}

fail() {
    echo "test.sh: $*" >&2
    echo "0 passed, 1 failed"
    exit 1
}

setup=()
tier=fast
log=testlog
if [ "${1:-}" = "--full" ]; then
    setup=(--setup full)
    tier=full
    log=testlog-full # meson names its logs after a setup other than the default
    shift
fi

. devtools/lib.sh

devtools/setup.sh || fail "setup failed"
# relocatable libordk.pc (suite sdk) also in a build dir configured before it was a default
ordk_build "$BUILD" -Dwerror=true -Dpkgconfig.relocatable=true || fail "configure or build failed (output above)"

start=$(date +%s)
meson test -C "$BUILD" "${setup[@]}" --print-errorlogs --num-processes "$(nproc)" "$@"
rc=$?
echo "test.sh: the $tier tier's meson test took $(( $(date +%s) - start )) s"
python3 devtools/junit-summary.py --slowest 10 "$BUILD/meson-logs/$log.junit.xml" "$rc"
