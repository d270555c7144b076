#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# devtools/check-size.sh catches what it must and nothing else: on files made
# here, a 701-line file and an 81-line function (its type on the name's line)
# are reported, a 700-line file and an 80-line function (DPDK style) are not,
# and SIZE_EXCEPT spares a file it names. Usage: test_check_size.sh <check-size.sh>
check=$1
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
fail() { echo "not ok: $*"; echo "--- output:"; cat "$dir/out"; exit 1; }

# lines(n): n statement lines
lines() { i=0; while [ "$i" -lt "$1" ]; do echo "	x++;"; i=$((i + 1)); done; }
{ echo "static int x;"; lines 699; } > "$dir/big_ok.c"	# 700 lines
{ echo "static int x;"; lines 700; } > "$dir/big_bad.c"	# 701 lines
{
	echo "static int x;"
	echo "static void"
	echo "ok_fn(void)"			# 80 lines: name line .. '}'
	echo "{"; lines 77; echo "}"
	echo "static void long_fn(int a,"	# 81 lines
	echo "		    int b)"
	echo "{"; lines 77; echo "}"
} > "$dir/funcs.c"

sh "$check" "$dir" > "$dir/out" 2>&1
[ $? -eq 1 ] || fail "exit status $? (want 1)"
grep -q "big_bad.c: 701 lines" "$dir/out" || fail "the 701-line file is not reported"
grep -q "big_ok.c" "$dir/out" && fail "the 700-line file is reported"
grep -q "long_fn() is 81 lines" "$dir/out" || fail "the 81-line function is not reported"
grep -q "ok_fn" "$dir/out" && fail "the 80-line function is reported"

SIZE_EXCEPT="$dir/big_bad.c" sh "$check" "$dir" > "$dir/out" 2>&1
grep -q "big_bad.c" "$dir/out" && fail "SIZE_EXCEPT did not spare big_bad.c"
grep -q "long_fn() is 81 lines" "$dir/out" || fail "SIZE_EXCEPT hid the long function"
echo "ok: check-size reports a 701-line file and an 81-line function, spares 700/80 and SIZE_EXCEPT"
