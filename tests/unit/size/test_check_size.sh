#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# devtools/check-size.sh catches what it must and nothing else: on files made
# here, a 701-line file and an 81-line function (its type on the name's line)
# are reported, a 700-line file and an 80-line function (DPDK style) are not,
# and SIZE_EXCEPT spares a file it names; without arguments it measures lib/,
# drivers/, apps/ and examples/ of its tree, and not tests/.
# Usage: test_check_size.sh <check-size.sh>
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
# the default folders: a copy of the script in a tree of its own, a breach in each
# folder it must measure and one in a folder it must not (tests/)
tree="$dir/tree"
mkdir -p "$tree/devtools"
cp "$check" "$tree/devtools/check-size.sh"
for d in lib drivers apps examples tests; do
	mkdir -p "$tree/$d/x"
	cp "$dir/big_bad.c" "$tree/$d/x/big.c"
	cp "$dir/funcs.c" "$tree/$d/x/funcs.c"
done
sh "$tree/devtools/check-size.sh" > "$dir/out" 2>&1
[ $? -eq 1 ] || fail "default folders: exit status $? (want 1)"
for d in lib drivers apps examples; do
	grep -q "^$d/x/big.c: 701 lines" "$dir/out" || fail "the 701-line file in $d/ is not reported"
	grep -q "^$d/x/funcs.c:.*long_fn() is 81 lines" "$dir/out" ||
		fail "the 81-line function in $d/ is not reported"
done
grep -q "^tests/" "$dir/out" && fail "tests/ is measured by default"
echo "ok: check-size reports a 701-line file and an 81-line function, spares 700/80 and SIZE_EXCEPT;" \
	"by default in lib, drivers, apps and examples, not tests"
