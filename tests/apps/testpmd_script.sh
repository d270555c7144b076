#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A scripted ordk-testpmd session (--cmdfile) whose output is checked.
#   testpmd_script.sh <ordk-testpmd>
set -u
tp=$1
dir=$(mktemp -d /tmp/ordk-testpmd-XXXXXX)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/cmds" <<'CMDS'
# ordk-testpmd test session
help
stop
show port stats all
show port info all
show device
start write 4096 2
sleep 0.5
show traffic
stop
show qp
set fault drop 0.02 tx
set fault bogus 0.1
set fault drop 7
clear stats
start send 1024
sleep 1
stop
show port stats
show port stats 1
show port stats 7
show fwd stats all
show port xstats
show cq
show mr
clear port stats all
show qp 0x7fffff
foo
start read 65536
sleep 0.3
quit
show device
CMDS
timeout 60 "$tp" -i --cmdline-file="$dir/cmds" >"$dir/out" 2>&1
rc=$?
cat "$dir/out"
fail=0
expect() { # <extended regex> <what>
    if grep -Eq -- "$1" "$dir/out"; then echo "ok: $2"; else echo "FAIL: $2 (/$1/)"; fail=1; fi
}
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; fail=1; }
expect '^  show qp \[qpn\] \| show mr' "help lists the commands"
expect 'Infos for device 1' "show device: both devices"
expect '^  MAC address: 02:00:00:00:00:01   IP: 10.0.0.1$' "show device: addresses"
expect '^  write 4096 B x 2 QP: [1-9][0-9]* WRs completed, 0 errors' "write traffic ran on 2 QPs"
expect '^  ---------------------- Forward statistics for port 0  -' "stop: testpmd's forward statistics"
expect 'Accumulated forward statistics for all ports' "stop: accumulated statistics"
[ "$(grep -Ec '^  bluesim[01] +0x[0-9a-f]{6}  RTS ' "$dir/out")" -ge 4 ] &&
    echo "ok: show qp: 4 QPs in RTS" || { echo "FAIL: show qp"; fail=1; }
expect ' timeouts requester +timer +hole +probe$' "show qp: the state machines' columns"
expect '^  bluesim[01] +0x[0-9a-f]{6}  RTS .* (idle|ring-full|wait-[a-z]+) +(idle|wait-ack|retry) +(none|reported|settled|given-up) +(none|asked|reported)$' \
    "show qp: each QP's requester, timer, hole and probe state by name"
expect '^Fault drop-tx:0.02 set on every device' "set fault"
expect '^testpmd> set fault bogus 0.1$' "the script is echoed"
[ "$(grep -c '^Bad arguments' "$dir/out")" -ge 2 ] && echo "ok: bad fault refused" ||
    { echo "FAIL: bad arguments"; fail=1; }
expect 'rate .7. is not a probability' "bad rate refused"
expect '^  NIC statistics for port 1 cleared$' "clear stats: per port (testpmd's words)"
expect '^  Faults still set: drop-tx:0.02 ' "a fault still set after clear stats is said"
expect '^  send 1024 B x 1 QP: .*, faults: drop-tx:0.02$' "the tally names the fault"
expect '^Packet forwarding not started$' "stop when idle: testpmd's words"
expect '^  Rx-pps: +0 +Rx-bps: +0$' "the first throughput sample is 0"
expect '^\*+ Infos for port 0  \*+$' "show port info all"
expect '^Driver name: net_ring$' "show port info: the driver"
expect '^Link status: up$' "show port info: the link"
expect '^Invalid port 7$' "show port stats of no port"
[ "$(grep -c 'NIC statistics for port 1 ' "$dir/out")" -ge 3 ] && echo "ok: show port stats 1" ||
    { echo "FAIL: show port stats 1"; fail=1; }
[ "$(grep -c 'Accumulated forward statistics for all ports' "$dir/out")" -ge 3 ] &&
    echo "ok: show fwd stats all" || { echo "FAIL: show fwd stats all"; fail=1; }
expect '^  send 1024 B x 1 QP: [1-9][0-9]* WRs completed, 0 errors' "send traffic under 2% loss"
expect '######################## NIC statistics for port 0  ########################' "show port stats"
expect '^  Rx-pps: +[0-9]+ +Rx-bps: +[0-9]+$' "show port stats: throughput"
expect '^  fault_tx_drop +[1-9]' "show port xstats: the fault acted"
expect '^  drop_invalid_mr_key +[0-9]' "show port xstats: drop reasons"
expect '^  retransmits: +[1-9]' "show port xstats: the transport recovered"
expect '^  bluesim0 +2080 +' "show cq"
expect '^  bluesim1 +0x[0-9a-f]{6} 0x[0-9a-f]{6} 0x[0-9a-f]+ +16777216 +LW RW RR RA' "show mr"
expect '^Invalid QP number 0x7fffff' "show qp of no QP"
expect '^Command not found' "unknown command"
expect '^  read 65536 B x 1 QP: [1-9][0-9]* WRs completed' "quit stops running traffic"
expect '^Bye\.\.\.$' "quit"
if grep -q '^testpmd> show device$' <(sed -n '/^testpmd> quit$/,$p' "$dir/out"); then
    echo "FAIL: commands after quit ran"; fail=1
fi
timeout 60 "$tp" --cmdline-file="$dir/missing" >"$dir/missing.out" 2>&1
mrc=$?
[ $mrc -ne 0 ] && grep -q "cannot read commands from" "$dir/missing.out" &&
    echo "ok: a missing command file exits $mrc" || { echo "FAIL: missing file exit $mrc"; fail=1; }
# congestion control on (-d): show qp gives each QP's DCQCN state and the device's parameters
printf 'start write 65536 1\nsleep 0.2\nstop\nshow qp\nquit\n' >"$dir/cc"
timeout 60 "$tp" -d cc=1,cnp=1,cc_rai=5M,cc_timer_us=60 --cmdline-file="$dir/cc" >"$dir/cc.out" 2>&1
cat "$dir/cc.out"
grep -Eq '^    cc: rate [0-9.]+ Gb/s  target [0-9.]+ Gb/s  alpha [0-9.]+  stage [a-z_]+' "$dir/cc.out" &&
    grep -q 'cc parameters (devargs cc_<key>): max_rate=40000000000,.*rai=5000000,.*timer_us=60.000' \
        "$dir/cc.out" && echo "ok: show qp: cc state and parameters" ||
    { echo "FAIL: show qp with cc=1"; fail=1; }
grep -q '^    cc: off$' "$dir/out" && echo "ok: show qp: cc off by default" ||
    { echo "FAIL: show qp: cc off"; fail=1; }
timeout 60 "$tp" -d cc_rai=fast --cmdline-file="$dir/cc" >"$dir/ccbad.out" 2>&1
[ $? -ne 0 ] && grep -q "cc_rai=fast: rai: bad value 'fast'" "$dir/ccbad.out" &&
    echo "ok: a bad cc_ devarg is refused and named" || { echo "FAIL: bad cc devarg"; fail=1; }
[ $fail -eq 0 ] && echo PASS
exit $fail
