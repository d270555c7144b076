#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Size limits of STYLE.md / the project's review: no source file in lib/ or
# drivers/ over 700 lines (generated tables excepted: name them in
# SIZE_EXCEPT), no function over 80 lines (from its name line to its closing
# brace). Prints each breach and exits 1 if there is any.
# Usage: devtools/check-size.sh [dir...]   (default: lib drivers)
cd "$(dirname "$0")/.." || exit 2
FILE_MAX=${FILE_MAX:-700}
FUNC_MAX=${FUNC_MAX:-80}
[ $# -gt 0 ] || set -- lib drivers
files=$(find "$@" -name '*.[ch]' | sort)
rc=0
for f in $files; do
	case " $SIZE_EXCEPT " in *" $f "*) continue ;; esac
	n=$(wc -l < "$f")
	if [ "$n" -gt "$FILE_MAX" ]; then
		echo "$f: $n lines (max $FILE_MAX)"
		rc=1
	fi
done
# A function starts at a line 'name(' in column 0 and ends at the next '}' in column 0.
# shellcheck disable=SC2086
awk -v max="$FUNC_MAX" '
FNR == 1 { name = "" }
/^[A-Za-z_][A-Za-z0-9_]*\(/ && name == "" { name = $0; sub(/\(.*/, "", name); start = FNR; next }
/^}/ && name != "" {
	len = FNR - start + 1
	if (len > max) { printf "%s:%d: %s() is %d lines (max %d)\n", FILENAME, start, name, len, max; bad = 1 }
	name = ""
}
END { exit bad }' $files || rc=1
[ $rc -eq 0 ] && echo "check-size: files <= $FILE_MAX lines, functions <= $FUNC_MAX lines"
exit $rc
