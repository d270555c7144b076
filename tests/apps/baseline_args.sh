#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ordk-baseline's sizes and counts go through the shared parser: out of range
# is refused at once, the argument named (atoi() took "4294967356" as 60 and
# ran the raw test with it).
#   baseline_args.sh <ordk-baseline>
set -u
base=$1
fails=0
for c in "raw_rx 4294967356|raw <bytes>: 4294967356 out of range (60..8000)" \
         "raw_tx 8001|raw <bytes>: 8001 out of range (60..8000)" \
         "tcp_pingpong 4294967297|tcp_pingpong <bytes>: 4294967297 out of range (1..16777216)" \
         "tcp_pingpong 64 -5|tcp_pingpong [n]: \"-5\" is not a number" \
         "memcpy 99999999999999999999|memcpy [bytes]: 99999999999999999999 out of range"; do
    args=${c%%|*} want="ordk-baseline: ${c#*|}"
    # shellcheck disable=SC2086 # the arguments split on purpose
    got=$(timeout 20 "$base" $args 2>&1)
    rc=$?
    if [ $rc -ne 1 ] || ! grep -qF -- "$want" <<<"$got"; then
        echo "FAIL: ordk-baseline $args exited $rc (1 wanted): $(head -3 <<<"$got")"
        fails=$((fails + 1))
    else
        echo "ok: $args -> $want"
    fi
done
[ $fails -eq 0 ] || exit 1
