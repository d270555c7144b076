#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# UCX takes ORDK's device: `ucx_info -d` through ordk-run lists the memory
# domain ordk0 and its verbs transports on ordk0:1; without ordk-run's view
# (--no-view) it lists no ordk0 (UCX takes an IB device only when
# /dev/infiniband/<dev_name> is an accessible character device).
#   ucx.sh <ordk-run>
set -u
run=$1
command -v ucx_info >/dev/null || { echo "SKIP: ucx_info is not installed (devtools/setup.sh installs ucx-utils)"; exit 77; }
[ "$(id -u)" = 0 ] || unshare --user --map-root-user --mount true 2>/dev/null ||
    { echo "SKIP: neither root nor user namespaces: ordk-run has no view here"; exit 77; }
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
out=$(timeout 60 "$run" -- ucx_info -d 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "ucx_info -d: exit $rc"
grep -Eq '^# Memory domain: ordk0$' <<<"$out" || fail "no memory domain ordk0"
for tl in rc_verbs ud_verbs; do
    awk -v tl="$tl" '$0 ~ "# +Transport: " tl "$" { t = 1; next } t && /# +Device:/ { if ($NF == "ordk0:1") f = 1; t = 0 }
        END { exit !f }' <<<"$out" || fail "no transport $tl on ordk0:1"
done
# the host's view: no ordk0
out=$(timeout 60 "$run" --no-view -- ucx_info -d 2>&1)
[ -e /dev/infiniband/uverbs0 ] || ! grep -q 'Memory domain: ordk0' <<<"$out" ||
    fail "--no-view: UCX still lists ordk0"
[ $fails -eq 0 ] && echo PASS || exit 1
