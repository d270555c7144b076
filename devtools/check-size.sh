#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Size limits of doc/guides/contributing/coding_style.md: no source file in lib/, drivers/,
# apps/ or examples/ over 700 lines (generated tables excepted: name them, as
# the arguments name their folders, in SIZE_EXCEPT), no function over 80 lines
# (from the line with its name to its closing brace). One rule for every
# folder: an application or an example splits by role as a library does (its
# option table at file scope, main() calling a step per job). Prints each
# breach and exits 1 if there is any. Unit suite `check_size` runs it on the
# four folders, `check_size_selftest` (tests/unit/size) shows it catches both
# breaches, in each of them.
# Usage: devtools/check-size.sh [dir...]   (default: lib drivers apps examples)
cd "$(dirname "$0")/.." || exit 2
FILE_MAX=${FILE_MAX:-700}
FUNC_MAX=${FUNC_MAX:-80}
SIZE_EXCEPT=${SIZE_EXCEPT:-}
[ $# -gt 0 ] || set -- lib drivers apps examples
files=$(find "$@" -name '*.[ch]' | sort)
[ -n "$files" ] || { echo "check-size: no .c or .h file in $*"; exit 2; }
rc=0
for f in $files; do
	case " $SIZE_EXCEPT " in *" $f "*) continue ;; esac
	n=$(wc -l < "$f")
	if [ "$n" -gt "$FILE_MAX" ]; then
		echo "$f: $n lines (max $FILE_MAX)"
		rc=1
	fi
done
# A function body opens with '{' alone in column 0 and closes at the next '}'
# in column 0; it starts at the last line in column 0 before the '{' that holds
# a '(' (the name line, whether or not its type stands on the same line).
# shellcheck disable=SC2086
awk -v max="$FUNC_MAX" '
FNR == 1 { cand = ""; name = "" }
/^\{/ && name == "" && cand != "" {
	name = cand; sub(/\(.*/, "", name); sub(/.*[ \t*]/, "", name); start = cstart; next
}
/^}/ && name != "" {
	len = FNR - start + 1
	if (len > max) { printf "%s:%d: %s() is %d lines (max %d)\n", FILENAME, start, name, len, max; bad = 1 }
	name = ""; cand = ""; next
}
name == "" && /^[^ \t{}#]/ {
	if ($0 ~ /^[A-Za-z_][^;=]*\(/ && $0 !~ /;[ \t]*$/) { cand = $0; cstart = FNR } else cand = ""
}
END { exit bad }' $files || rc=1
[ $rc -eq 0 ] && echo "check-size: files <= $FILE_MAX lines, functions <= $FUNC_MAX lines"
exit $rc
