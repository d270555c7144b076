#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ORDK's libibverbs.so.1 against rdma-core's (Debian 12, rdma-core 44):
# 1. every public symbol rdma-core exports at a default version, ORDK's exports
#    at the same version (a binary linked against rdma-core then loads);
# 2. exports (built against rdma-core) prints the same on both libraries.
#   exports.sh <ORDK's libibverbs.so.1> <ordk-run> <exports program>
set -u
ours=$1 run=$2 prog=$3
sys=$(ldd "$prog" | awk '/libibverbs.so.1/ {print $3}')
[ -f "$sys" ] || { echo "SKIP: the system's libibverbs.so.1 is not installed"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: objdump (binutils) is not installed"; exit 77; }
syms() { # default-version public symbols: "name@version"
    objdump -T "$1" | awk '$2 == "g" && $NF != "" && $(NF-1) ~ /^IBVERBS_[0-9]/ {print $NF "@" $(NF-1)}' | sort -u
}
missing=$(comm -23 <(syms "$sys") <(syms "$ours"))
fails=0
if [ -n "$missing" ]; then
    echo "FAIL: not exported by ORDK's library (name@version):"
    echo "$missing" | sed 's/^/    /'
    fails=1
else
    echo "ok: the $(syms "$sys" | wc -l) public symbols of $sys at their versions"
fi
diff <("$prog") <(ORDK_IBVERBS_DIR=$(dirname "$ours") "$run" -- "$prog") >/tmp/ordk-abi-exports.$$ 2>&1
if [ $? -ne 0 ]; then
    echo "FAIL: rdma-core (<) and ORDK (>) differ:"
    sed 's/^/    /' /tmp/ordk-abi-exports.$$
    fails=1
else
    echo "ok: strings and rate conversions as rdma-core's ($("$prog" | wc -l) values)"
fi
rm -f /tmp/ordk-abi-exports.$$
[ $fails -eq 0 ] && echo PASS || exit 1
