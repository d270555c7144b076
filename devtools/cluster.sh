#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Several "hosts" on one machine, as a cluster deploys: a network namespace per
# host, each joined by a veth pair to a bridge in a services namespace, where
# memcached (the QP rendezvous) and redis (kv_transfer's metadata) run bound
# to the bridge's address. Each host is one ORDK process on net_af_packet over
# its veth (MTU 9000, IPv6 off). Every process is started here, bounded by
# 'timeout', and stopped by its PID.
#
#   cluster.sh up                      namespaces, bridge, memcached, redis, cluster.json
#   cluster.sh run dm_txn [opts]       1 memory node + 2 compute nodes (SmallBank, invariant)
#       --absent cnN   that compute node is never started (everyone must fail, naming it)
#       -D s           seconds of transactions (default 3); --sync s: the barriers' timeout
#                      (default D + 12); other options go to the compute nodes
#   cluster.sh run kv [opts]           redis + 2 workers + a client; every block verified
#       --kill-worker  then kill worker 1 (SIGKILL) and wait for its blocks to leave redis
#                      within its lease (--lease ms, default 2000), w0's staying
#   cluster.sh down                    stop every process by PID, delete the namespaces
#
# Environment: ORDK_CLUSTER_ID (default "c": namespaces ordk<ID>-*, state in
# /tmp/ordk-cluster-<ID>), ORDK_BUILD (default ./build), ORDK_CLUSTER_IDLE_US
# (pollers sleep this long when idle, default 20: 3 pollers share 2 cores).
set -u
ID=${ORDK_CLUSTER_ID:-c}
B=${ORDK_BUILD:-$(cd "$(dirname "$0")/.." && pwd)/build}
ST=/tmp/ordk-cluster-$ID
NS=ordk$ID
NET=10.77.0      # the kernel's addresses (TCP to the services)
DEV=10.78.0      # the ORDK devices' addresses (RoCE frames, not the kernel's)
SVC_IP=$NET.2
IDLE=${ORDK_CLUSTER_IDLE_US:-20}
HOSTS=(mn0:10 cn0:11 cn1:12 w0:20 w1:21 cl0:30)

say() { echo "cluster: $*"; }
die() { echo "cluster: $*" >&2; exit 1; }
inns() { local n=$1; shift; ip netns exec "$NS-$n" "$@"; }

# wait until host:port answers TCP from namespace $1, at most $4 seconds
wait_tcp() {
    local end=$((SECONDS + $4))
    while [ $SECONDS -lt $end ]; do
        inns "$1" bash -c "exec 3<>/dev/tcp/$2/$3" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# start "$@" in namespace $1 with log $2, in the background; its PID goes to the pid file
spawn() {
    local n=$1 log=$2
    shift 2
    ip netns exec "$NS-$n" "$@" >"$log" 2>&1 &
    echo $! >>"$ST/pids"
    LAST=$!
}

up() {
    [ -d "$ST" ] && die "$ST exists: 'cluster.sh down' first"
    for t in memcached redis-server ip; do command -v $t >/dev/null || die "$t missing (devtools/setup.sh)"; done
    mkdir -p "$ST"
    : >"$ST/pids"
    ip netns add "$NS-svc" || die "cannot create namespaces (root needed)"
    inns svc ip link set lo up
    inns svc sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
    inns svc ip link add br0 type bridge
    # br_netfilter (loaded where docker runs) trims IPv4 frames to their IP length
    # on the bridge: the device's FCS trailer would vanish and every frame be dropped
    inns svc sysctl -qw net.bridge.bridge-nf-call-iptables=0 net.bridge.bridge-nf-call-ip6tables=0 \
        net.bridge.bridge-nf-call-arptables=0 2>/dev/null
    inns svc ip link set br0 mtu 9000 up
    inns svc ip addr add $SVC_IP/24 dev br0
    for h in "${HOSTS[@]}"; do
        local n=${h%%:*} i=${h##*:}
        ip netns add "$NS-$n"
        inns "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
        ip link add "${NS}h$n" mtu 9000 type veth peer name "${NS}s$n" mtu 9000
        ip link set "${NS}h$n" netns "$NS-$n" name eth0
        ip link set "${NS}s$n" netns "$NS-svc"
        inns svc sysctl -qw "net.ipv6.conf.${NS}s$n.disable_ipv6=1" 2>/dev/null
        inns svc ip link set "${NS}s$n" master br0 up
        # the switch knows where each ORDK device is: no flooding of the first frames
        # to every host (which overran the af_packet rings and lost frames)
        inns svc bridge fdb add "$(printf '02:00:4e:00:00:%02x' "$i")" dev "${NS}s$n" master static
        inns "$n" ip link set lo up
        inns "$n" ip addr add "$NET.$i/24" dev eth0
        inns "$n" ip link set eth0 up
    done
    spawn svc "$ST/memcached.log" memcached -l $SVC_IP -p 11211 -U 0 -m 64 -u root
    spawn svc "$ST/redis.log" redis-server --bind $SVC_IP --port 6379 --save "" \
        --appendonly no --daemonize no --loglevel warning --protected-mode no
    wait_tcp mn0 $SVC_IP 11211 10 || die "memcached does not answer from mn0"
    wait_tcp mn0 $SVC_IP 6379 10 || die "redis does not answer from mn0"
    cat >"$ST/cluster.json" <<EOF
{
  "MN_ips": ["$NET.10"],
  "CN_ips": ["$NET.11", "$NET.12"],
  "memcached_ip": "$SVC_IP",
  "redis_ip": "$SVC_IP",
  "mr_size": "64M",
  "device": "bluesim,port=0",
  "cluster": "run$$"
}
EOF
    say "up: ${#HOSTS[@]} hosts on $NET.0/24 (bridge in $NS-svc), memcached and redis at $SVC_IP; config $ST/cluster.json"
}

down() {
    if [ -f "$ST/pids" ]; then
        while read -r p; do kill "$p" 2>/dev/null; done <"$ST/pids"
        while read -r p; do
            for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$p" 2>/dev/null
        done <"$ST/pids"
    fi
    for h in "${HOSTS[@]}" svc:0; do ip netns del "$NS-${h%%:*}" 2>/dev/null; done
    rm -rf "$ST"
    say "down"
}

# EAL and device arguments of host $1 (its index $2)
eal_of() {
    local mem=320
    [ "$1" = cl0 ] && mem=640 # the kv client's 264 MiB buffer
    printf -- '--lcores=0@(0-1) --no-pci --no-huge -m %s --no-shconf --file-prefix=%s-%s --no-telemetry --log-level=4 --vdev=net_af_packet0,iface=eth0,framesz=4352,blocksz=69632,framecnt=1024' \
        "$mem" "$NS" "$1"
}
dev_of() { printf 'bluesim,port=0,ip=%s.%d,mac=02:00:4e:00:00:%02x' $DEV "$2" "$2"; }
idx_of() { local h; for h in "${HOSTS[@]}"; do [ "${h%%:*}" = "$1" ] && echo "${h##*:}"; done; }

# run host $1's ORDK program: $2 the log, the rest the program's own arguments
node() {
    local n=$1 log=$2 prog=$3 role=$4 i
    shift 4
    i=$(idx_of "$n")
    # shellcheck disable=SC2046
    spawn "$n" "$log" timeout -k 5 "$TMO" "$prog" "$role" $(eal_of "$n" "$i") -- -d "$(dev_of "$n" "$i")" "$@"
}

run_dm_txn() {
    local secs=3 absent="" sync="" rest=()
    while [ $# -gt 0 ]; do
        case $1 in
        --absent) absent=$2; shift 2 ;;
        --sync) sync=$2; shift 2 ;;
        -D) secs=$2; shift 2 ;;
        *) rest+=("$1"); shift ;;
        esac
    done
    [ -n "$sync" ] || sync=$((secs + 12))
    local tx=$B/examples/dm_txn/dm_txn cfg=$ST/cluster.json
    TMO=$((secs + 2 * sync + 20))
    local pm pc=() rc=0
    node mn0 "$ST/mn0.log" "$tx" memory --config "$cfg" --records 20000 -t $((secs + 2 * sync)) \
        --sync-timeout $sync --idle-us "$IDLE"
    pm=$LAST
    for c in 0 1; do
        [ "cn$c" = "$absent" ] && continue
        node "cn$c" "$ST/cn$c.log" "$tx" compute --config "$cfg" --id $c --records 20000 -D "$secs" \
            --workload smallbank --contexts 4 --sync-timeout $sync --idle-us "$IDLE" "${rest[@]}"
        pc+=("$c:$LAST")
    done
    wait "$pm"; local mrc=$?
    for e in "${pc[@]}"; do
        wait "${e#*:}"; local r=$?
        echo "=== cn${e%%:*} (exit $r)"; grep -v '^EAL' "$ST/cn${e%%:*}.log"
        [ $r -eq 0 ] || rc=1
    done
    echo "=== mn0 (exit $mrc)"; grep -v '^EAL' "$ST/mn0.log"
    [ $mrc -eq 0 ] || rc=1
    return $rc
}

rcli() { inns svc redis-cli -h $SVC_IP -p 6379 "$@"; }

run_kv() {
    local kill_worker=0 lease=2000 rest=()
    while [ $# -gt 0 ]; do
        case $1 in
        --kill-worker) kill_worker=1; shift ;;
        --lease) lease=$2; shift 2 ;;
        *) rest+=("$1"); shift ;;
        esac
    done
    local kv=$B/examples/kv_transfer/kv_transfer cfg=$ST/cluster.json pw=() rc=0 crc c
    local cl
    cl=$(sed -n 's/.*"cluster": "\([^"]*\)".*/\1/p' "$cfg")
    TMO=120
    for w in 0 1; do
        node "w$w" "$ST/w$w.log" "$kv" worker --config "$cfg" --name "w$w" --host "$NET.2$w" \
            -c 18801 --pool 48 --lease "$lease" --idle-us "$IDLE" -t 100
        pw+=("$LAST")
    done
    node cl0 "$ST/cl0.log" "$kv" client --config "$cfg" --workers 2 -q 2 \
        $([ $kill_worker = 1 ] && echo --keep-workers) "${rest[@]}"
    wait "$LAST"; crc=$?
    echo "=== cl0 (exit $crc)"; grep -v '^EAL' "$ST/cl0.log"
    [ $crc -eq 0 ] || rc=1
    if [ $kill_worker = 1 ]; then
        # w1 dies (SIGKILL: no goodbye); its records must leave redis within its lease
        local t0 n0 n1
        n1=$(rcli HLEN "kv:$cl:blocks:w1")
        n0=$(rcli HLEN "kv:$cl:blocks:w0")
        echo "redis: w0 holds $n0 blocks, w1 holds $n1"
        c=$(pgrep -P "${pw[1]}")
        t0=$(date +%s%N)
        kill -9 "$c"
        while [ "$(rcli EXISTS "kv:$cl:node:w1" "kv:$cl:blocks:w1" "kv:$cl:used:w1")" != 0 ]; do
            [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt $((lease + 3000)) ] || break
            sleep 0.05
        done
        local gone=$(( ($(date +%s%N) - t0) / 1000000 ))
        if [ "$(rcli EXISTS "kv:$cl:node:w1" "kv:$cl:blocks:w1" "kv:$cl:used:w1")" = 0 ]; then
            echo "redis: w1 killed; its records (node, $n1 blocks) gone after $gone ms (lease $lease ms)"
        else
            echo "redis: w1's records still there $gone ms after it died (lease $lease ms)"; rc=1
        fi
        [ "$(rcli HLEN "kv:$cl:blocks:w0")" = "$n0" ] && [ "$n0" -gt 0 ] ||
            { echo "redis: w0's blocks did not stay (its heartbeat?)"; rc=1; }
        echo "redis: w0 still holds $(rcli HLEN "kv:$cl:blocks:w0") blocks"
        kill -TERM "$(pgrep -P "${pw[0]}")" # a clean stop takes its records away at once
    fi
    for w in 0 1; do
        wait "${pw[$w]}"; c=$?
        echo "=== w$w (exit $c)"; grep -v '^EAL' "$ST/w$w.log"
        [ $w = 1 ] && [ $kill_worker = 1 ] && continue
        [ $c -eq 0 ] || rc=1
    done
    if [ $kill_worker = 1 ] && [ "$(rcli EXISTS "kv:$cl:node:w0" "kv:$cl:blocks:w0")" != 0 ]; then
        echo "redis: w0 stopped but its records stayed"; rc=1
    fi
    return $rc
}

case ${1:-} in
up) up ;;
down) down ;;
run)
    [ -f "$ST/cluster.json" ] || die "not up ('cluster.sh up')"
    what=${2:-}
    shift 2
    # a cluster name of its own per run: keys of an earlier run are not this one's
    sed -i "s/\"cluster\": \"[^\"]*\"/\"cluster\": \"r$(date +%s)-$$\"/" "$ST/cluster.json"
    case $what in
    dm_txn) run_dm_txn "$@" ;;
    kv) run_kv "$@" ;;
    *) die "run dm_txn|kv" ;;
    esac
    ;;
*) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//; /^set -u/d'; exit 2 ;;
esac
