#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A scenario of devtools/cluster.sh with the real services, checked:
#   rig.sh <build dir> <rig id> dm_txn | dm_txn_absent | kv | kv_dead_worker
# Needs root (network namespaces): skipped (77) otherwise.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
export ORDK_BUILD=$1 ORDK_CLUSTER_ID=$2
what=$3
rig=$src/devtools/cluster.sh
[ "$(id -u)" = 0 ] || { echo "SKIP: network namespaces need root"; exit 77; }
command -v memcached >/dev/null && command -v redis-server >/dev/null ||
    { echo "FAIL: memcached or redis-server missing (devtools/setup.sh)"; exit 1; }
"$rig" down >/dev/null 2>&1 # what a killed run of this id left
trap '"$rig" down >/dev/null 2>&1' EXIT
"$rig" up || { echo "FAIL: the rig did not come up"; exit 1; }
out=$(mktemp /tmp/ordk-rig-XXXXXX)
trap 'rm -f "$out"; "$rig" down >/dev/null 2>&1' EXIT
fail() { echo "FAIL: $*"; exit 1; }
t0=$SECONDS
case $what in
dm_txn)
    "$rig" run dm_txn -D 3 >"$out" 2>&1
    rc=$?
    grep -v '^ordk.rc' "$out"
    [ $rc -eq 0 ] || fail "a node exited non-zero"
    [ "$(grep -c '^compute: invariant holds' "$out")" -eq 2 ] || fail "not two compute nodes' invariant"
    [ "$(grep -c 'total balance [0-9]* (kept' "$out")" -eq 2 ] || fail "balance"
    grep -Eq '^ committed +[1-9]' "$out" || fail "nothing committed"
    grep -q 'every compute node said bye (2 of 2' "$out" || fail "the memory node did not see both"
    ;;
dm_txn_absent)
    "$rig" run dm_txn -D 1 --sync 4 --absent cn1 >"$out" 2>&1
    rc=$?
    cat "$out"
    [ $rc -ne 0 ] || fail "the run passed without cn1"
    grep -q '^=== cn0 (exit [1-9]' "$out" || fail "cn0 exited 0"
    grep -q '^=== mn0 (exit [1-9]' "$out" || fail "mn0 exited 0"
    [ "$(grep -c 'Sync timeout at .start. after 4 s: missing cn1' "$out")" -eq 2 ] ||
        fail "the barrier did not name cn1 on both nodes"
    [ $((SECONDS - t0)) -lt 60 ] || fail "took $((SECONDS - t0)) s"
    ;;
kv)
    "$rig" run kv >"$out" 2>&1
    rc=$?
    grep -v '^ordk.rc' "$out"
    [ $rc -eq 0 ] || fail "a node exited non-zero"
    grep -q '^client: every block verified' "$out" || fail "not verified"
    [ "$(grep -cE '^ (put|batch_get) ' "$out")" -eq 4 ] || fail "rows"
    [ "$(grep -c 'registered in redis as w' "$out")" -eq 2 ] || fail "two workers in redis"
    [ "$(grep -c 'the client said bye' "$out")" -eq 2 ] || fail "a worker did not end on bye"
    ;;
kv_dead_worker)
    "$rig" run kv --kill-worker --lease 2000 >"$out" 2>&1
    rc=$?
    grep -v '^ordk.rc' "$out"
    [ $rc -eq 0 ] || fail "the run failed"
    grep -q '^client: every block verified' "$out" || fail "not verified"
    grep -Eq 'w1 killed; its records \(node, [1-9][0-9]* blocks\) gone after' "$out" ||
        fail "w1's blocks stayed in redis"
    ;;
*) fail "unknown scenario $what" ;;
esac
echo "PASS ($((SECONDS - t0)) s)"
