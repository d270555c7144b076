#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# libordk.so exports exactly its version map: every symbol the map lists, at
# its node's version, and nothing else; the map's EXPERIMENTAL node holds
# exactly the functions the installed headers mark ORDK_EXPERIMENTAL.
#   sdk_exports.sh <libordk.so> <libordk.map> <installed header>...
set -u
lib=$1 map=$2
shift 2
command -v nm >/dev/null || { echo "SKIP: nm (binutils) is not installed"; exit 77; }
fails=0

# the map, as name@node: comments out, then the names of each node's global: part
mapped=$(sed 's@/\*.*\*/@@g' "$map" | sed '/\/\*/,/\*\//d' | awk '
    /^[ \t]*[A-Za-z0-9_]+[ \t]*\{/ { node = $1; sub(/\{.*/, "", node); part = ""; next }
    /^[ \t]*\}/ { node = ""; next }
    /^[ \t]*global:/ { part = "global"; next }
    /^[ \t]*local:/ { part = "local"; next }
    node != "" && part == "global" && NF {
        s = $0; gsub(/[ \t;]/, "", s); print s "@" node }' | sort -u)
[ -n "$mapped" ] || { echo "FAIL: no symbol found in $map"; exit 1; }

# the library's defined dynamic symbols, as name@version (not the version
# definitions themselves: absolute symbols named after the nodes)
exported=$(nm -D --defined-only "$lib" | awk '!($2 == "A" && $3 !~ /@/) {print $3}' |
    sed 's/@@*/@/' | sort -u)

missing=$(comm -23 <(echo "$mapped") <(echo "$exported"))
extra=$(comm -13 <(echo "$mapped") <(echo "$exported"))
if [ -n "$missing" ]; then
    echo "FAIL: in the map, not exported (name@node):"
    echo "$missing" | sed 's/^/    /'
    fails=1
fi
if [ -n "$extra" ]; then
    echo "FAIL: exported, not in the map (name@version):"
    echo "$extra" | sed 's/^/    /'
    fails=1
fi
[ $fails -eq 0 ] && echo "ok: $(echo "$mapped" | wc -l) symbols, the map's, at its nodes: $(echo $(echo "$mapped" | sed 's/.*@//' | sort -u))"

# ORDK_EXPERIMENTAL stands on the line before the declaration it marks
marked=$(awk 'prev ~ /^ORDK_EXPERIMENTAL[ \t]*$/ { if (match($0, /ordk_[a-z0-9_]+[ \t]*\(/)) {
        s = substr($0, RSTART, RLENGTH); sub(/[ \t]*\(/, "", s); print s } }
    { prev = $0 }' "$@" | sort -u)
experimental=$(echo "$mapped" | awk -F@ '$2 == "EXPERIMENTAL" {print $1}' | sort -u)
if [ "$marked" != "$experimental" ]; then
    echo "FAIL: the map's EXPERIMENTAL node and the headers' ORDK_EXPERIMENTAL differ (< map, > headers):"
    diff <(echo "$experimental") <(echo "$marked") | grep '^[<>]' | sed 's/^/    /'
    fails=1
else
    echo "ok: $(echo "$marked" | grep -c .) experimental functions, marked in the headers"
fi
[ $fails -eq 0 ] && echo PASS || exit 1
