#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-run's mount namespace: the program finds /dev/infiniband/uverbs0 and
# rdma_cm (character devices it may read and write) and the device's sysfs
# entries; everything else of /dev and /sys/class is the host's; the host's
# own /dev and /sys do not change; --no-view runs without it.
#   view.sh <ordk-run>
set -u
run=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
command -v unshare >/dev/null || { echo "SKIP: no unshare (util-linux)"; exit 77; }
[ "$(id -u)" = 0 ] || unshare --user --map-root-user --mount true 2>/dev/null ||
    { echo "SKIP: neither root nor user namespaces: ordk-run has no view here"; exit 77; }
host() { ls -d /dev/infiniband /dev/infiniband/* /sys/class/infiniband /sys/class/infiniband_verbs 2>&1; }
before=$(host)
dev=bluesim,port=memif:server:/tmp/ordk-eco-view.sock
probe='stat -c "%n %F" /dev/infiniband/uverbs0 /dev/infiniband/rdma_cm
    [ -r /dev/infiniband/uverbs0 ] && [ -w /dev/infiniband/uverbs0 ] && echo "uverbs0 rw"
    for f in ports/1/gid_attrs/types/0 ports/1/gids/0 ports/1/link_layer node_type; do
        echo "$f: $(cat /sys/class/infiniband/ordk0/$f)"
    done
    echo "ibdev: $(cat /sys/class/infiniband_verbs/uverbs0/ibdev)"
    echo hello >/dev/null && [ -c /dev/zero ] && [ -d /dev/shm ] && [ -e /dev/stdout ] && echo "dev: the host'"'"'s"
    [ -d /sys/class/net/lo ] && echo "sys/class: the host'"'"'s"'
out=$(timeout 20 "$run" --dev "$dev" -- bash -c "$probe" 2>&1)
echo "$out"
for want in '^/dev/infiniband/uverbs0 character special file$' '^/dev/infiniband/rdma_cm character special file$' \
        '^uverbs0 rw$' '^ports/1/gid_attrs/types/0: RoCE v2$' \
        '^ports/1/gids/0: 0000:0000:0000:0000:0000:ffff:0a00:0002$' '^ports/1/link_layer: Ethernet$' \
        '^node_type: 1: CA$' '^ibdev: ordk0$' "^dev: the host's$" "^sys/class: the host's$"; do
    grep -Eq -- "$want" <<<"$out" || fail "no line /$want/"
done
grep -q warning <<<"$out" && fail "a warning"
[ "$(host)" = "$before" ] || fail "the host's /dev or /sys changed: $(host)"
if [ ! -e /dev/infiniband ]; then
    out=$(timeout 20 "$run" --no-view --dev "$dev" -- bash -c 'ls /dev/infiniband' 2>&1) &&
        fail "--no-view: /dev/infiniband is there: $out"
fi
[ $fails -eq 0 ] && echo PASS || exit 1
