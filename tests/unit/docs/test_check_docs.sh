#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# devtools/check-docs.py catches what it must and nothing else: on a tree made
# here, a clean tree passes; then each breach is added alone and must be
# reported at its file and line with exit status 1: a link to a missing page,
# a link to a missing heading, a reference to the design folder beside the
# repository, an old design file name, a doc path in a source comment that
# does not exist, a citation of a section the page does not have. Links in
# code blocks, external links and build directories are left alone.
# Usage: test_check_docs.sh <check-docs.py>
check=$1
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
fail() { echo "not ok: $*"; echo "--- output:"; cat "$dir/out"; exit 1; }

# The names the check forbids, spelt in pieces so this file does not match.
beside="../sha""red/design"
old_hw="HW-INTER""FACE.md"
g="doc/""guides"	# the check reads doc paths in this file too

mkdir -p "$dir/t/$g/drivers" "$dir/t/src" "$dir/t/examples/demo" "$dir/t/build/meson-private"
cat > "$dir/t/README.md" <<EOF
# Demo
See [the card]($g/drivers/card.md#2-rings) and [the web](https://example.org/x.md).
EOF
cat > "$dir/t/$g/drivers/card.md" <<EOF
# The card
## 1. Registers
## 2. Rings
### 2.1 Pointers
Back to [registers](#1-registers), [the readme](../../../README.md).
\`\`\`
[not a link](nowhere.md)
\`\`\`
EOF
cat > "$dir/t/examples/demo/README.md" <<EOF
Read [the card](../../$g/drivers/card.md).
EOF
cat > "$dir/t/src/ring.c" <<EOF
/* Ring pointers ($g/drivers/card.md sections 1 and 2.1). */
EOF
# a build directory is not part of the tree
echo "see $beside" > "$dir/t/build/stale.txt"

python3 "$check" "$dir/t" > "$dir/out" 2>&1 || fail "a clean tree is refused"

# expect <file> <line> <text>: the check fails and names file:line and the text
expect() {
	python3 "$check" "$dir/t" > "$dir/out" 2>&1
	[ $? -eq 1 ] || fail "$3: exit status not 1"
	grep -q "^$1:$2: .*$3" "$dir/out" || fail "$3 not reported at $1:$2"
}

cp "$dir/t/README.md" "$dir/readme"
echo "And [gone]($g/gone.md)." >> "$dir/t/README.md"
expect README.md 3 "gone.md: no such file"
cp "$dir/readme" "$dir/t/README.md"

echo "And [no heading]($g/drivers/card.md#3-rings)." >> "$dir/t/README.md"
expect README.md 3 "card.md#3-rings: no such heading"
cp "$dir/readme" "$dir/t/README.md"

echo "Design: $beside/notes.md" >> "$dir/t/README.md"
expect README.md 3 "design is in doc/guides"
cp "$dir/readme" "$dir/t/README.md"

echo "/* as $old_hw says */" >> "$dir/t/src/ring.c"
expect src/ring.c 2 "design is in doc/guides"
echo "/* Ring pointers ($g/drivers/card.md sections 1 and 2.1). */" > "$dir/t/src/ring.c"

echo "/* see $g/drivers/gone.md */" >> "$dir/t/src/ring.c"
expect src/ring.c 2 "$g/drivers/gone.md does not exist"
echo "/* Ring pointers ($g/drivers/card.md sections 1 and 2.1). */" > "$dir/t/src/ring.c"

echo "/* see $g/drivers/card.md section 3 */" >> "$dir/t/src/ring.c"
expect src/ring.c 2 "card.md has no section 3"
echo "/* Ring pointers ($g/drivers/card.md sections 1 and 2.1). */" > "$dir/t/src/ring.c"

echo "Read [nothing](../nothing.md)." >> "$dir/t/examples/demo/README.md"
expect examples/demo/README.md 2 "nothing.md: no such file"

echo "ok: check-docs reports missing pages, headings, sections and doc paths, and references outside the repository"
