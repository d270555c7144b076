#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ORDK's librdmacm.so.1 against rdma-core's (Debian 12, rdma-core 44): every
# public symbol rdma-core exports at a default version, ORDK's at the same
# version (a binary linked against rdma-core then loads ORDK's), and nothing
# public beyond them but ORDK's own ORDK_RDMACM_PRIVATE node.
#   exports.sh <ORDK's librdmacm.so.1>
set -u
ours=$1
sys=$(ldconfig -p | awk '/librdmacm.so.1 / {print $NF; exit}')
[ -f "$sys" ] || { echo "SKIP: the system's librdmacm.so.1 is not installed"; exit 77; }
command -v objdump >/dev/null || { echo "SKIP: objdump (binutils) is not installed"; exit 77; }
syms() { # default-version public symbols: "name@version"
    objdump -T "$1" | awk '$2 == "g" && $NF != "" && $(NF-1) ~ /^(RDMACM|ORDK)_/ && $NF !~ /^(RDMACM|ORDK)_/ {print $NF "@" $(NF-1)}' | sort -u
}
fails=0
missing=$(comm -23 <(syms "$sys") <(syms "$ours"))
extra=$(comm -13 <(syms "$sys") <(syms "$ours") | grep -v '@ORDK_RDMACM_PRIVATE$')
if [ -n "$missing" ]; then
    echo "FAIL: not exported by ORDK's library (name@version):"
    echo "$missing" | sed 's/^/    /'
    fails=1
else
    echo "ok: the $(syms "$sys" | wc -l) public symbols of $sys at their versions"
fi
if [ -n "$extra" ]; then
    echo "FAIL: exported by ORDK's library only:"
    echo "$extra" | sed 's/^/    /'
    fails=1
fi
[ $fails -eq 0 ] && echo PASS || exit 1
