#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The SDK as a user gets it: `meson install` into a DESTDIR, then an example
# built out of tree with nothing but `pkg-config --cflags --libs libordk`
# (shared, then static), run; libordk.so exports exactly what the installed
# headers declare; the tools are installed.
#   sdk_install.sh <build dir> <example.c>
set -u
build=$1 example=$2
dir=$(mktemp -d /tmp/ordk-sdk-XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

DESTDIR="$dir/dest" meson install -C "$build" --no-rebuild --quiet >"$dir/install.log" 2>&1 ||
    { cat "$dir/install.log"; fail "meson install"; }
pc=$(find "$dir/dest" -name libordk.pc)
[ -n "$pc" ] || fail "no libordk.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(realpath "$(pkg-config --variable=libdir libordk)")
incdir=$(realpath "$(pkg-config --variable=includedir libordk)")/ordk
case "$libdir" in "$dir"/*) ;; *) fail "libordk.pc does not point into the DESTDIR ($libdir)";; esac
for h in ordk_verbs.h ordk_cm.h ordk_version.h; do
    [ -f "$incdir/$h" ] || fail "header $h not installed under include/ordk"
done
for t in ordk-perf ordk-testpmd ordk-doctor ordk-run; do
    [ -n "$(find "$dir/dest" -path "*/bin/$t" -type f)" ] || fail "$t not installed"
done

# ORDK's libibverbs in its private directory, found by the installed ordk-run
[ -f "$libdir/ordk/libibverbs.so.1" ] || fail "libibverbs.so.1 not installed in <libdir>/ordk"
[ -e "$libdir/libibverbs.so.1" ] && fail "libibverbs.so.1 installed where it shadows the system's"
[ -f "$libdir/ordk/librdmacm.so.1" ] || fail "librdmacm.so.1 not installed in <libdir>/ordk"
[ -e "$libdir/librdmacm.so.1" ] && fail "librdmacm.so.1 installed where it shadows the system's"
run=$(find "$dir/dest" -path '*/bin/ordk-run' -type f)
grep -q "^ORDK_IBVERBS_DIR=\${ORDK_IBVERBS_DIR:-.*/ordk}" "$run" || fail "the installed ordk-run does not look in <libdir>/ordk"
view=$(find "$dir/dest" -path '*/libexec/ordk/ordk-view' -type f)
[ -n "$view" ] || fail "ordk-view not installed in <libexecdir>/ordk"
grep -q "^ORDK_VIEW=\${ORDK_VIEW:-.*/libexec/ordk/ordk-view}" "$run" || fail "the installed ordk-run does not look for <libexecdir>/ordk/ordk-view"
if command -v ibv_devinfo >/dev/null; then
    ORDK_IBVERBS_DIR=$libdir/ordk ORDK_VIEW=$view timeout 60 "$run" -- ibv_devinfo >"$dir/devinfo" 2>&1
    grep -q 'hca_id:.*ordk0' "$dir/devinfo" || { cat "$dir/devinfo"; fail "installed ordk-run -- ibv_devinfo"; }
fi

# out of tree: a copy of the example in a directory of its own
mkdir "$dir/src" && cp "$example" "$dir/src/main.c"
cd "$dir/src" || fail "cd"
cc -Wall -Wextra -Werror -O2 main.c $(pkg-config --cflags --libs libordk) -o hello_shared ||
    fail "build against the shared libordk"
LD_LIBRARY_PATH=$libdir ldd ./hello_shared | grep -q "=> $libdir/libordk.so" || fail "hello_shared is not linked to the installed libordk.so"
# libordk.a with DPDK shared (all of libdpdk does not link statically on Debian 12)
# libordk's own Libs.private (-lm: lib/cc) without pkg-config --static's walk into libdpdk's
ordk_private=$(sed -n 's/^Libs.private: //p' "$(pkg-config --variable=pcfiledir libordk)/libordk.pc")
cc -Wall -Wextra -Werror -O2 main.c $(pkg-config --cflags libordk) "$libdir/libordk.a" \
    $(pkg-config --libs libdpdk $(pkg-config --print-requires-private libordk)) $ordk_private \
    -o hello_static ||
    fail "build against the static libordk"
ldd ./hello_static | grep -q libordk && fail "hello_static still needs libordk.so"
for exe in hello_shared hello_static; do
    LD_LIBRARY_PATH=$libdir timeout 60 ./$exe >"$dir/$exe.out" 2>&1
    rc=$?
    cat "$dir/$exe.out"
    [ $rc -eq 0 ] || fail "$exe exited $rc"
    grep -Eq '^headers ([0-9.]+), library \1$' "$dir/$exe.out" || fail "$exe: ordk_version() differs from the headers"
    grep -q 'bytes written and verified' "$dir/$exe.out" || fail "$exe: no verified WRITE"
done

# the version map: exported = declared in the installed headers
nm -D --defined-only "$libdir/libordk.so" | awk '$2 == "T" {sub(/@.*/, "", $3); print $3}' |
    sort -u >"$dir/exported"
cat "$incdir"/*.h | grep -oE '\bordk_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$dir/declared"
diff "$dir/declared" "$dir/exported" >"$dir/diff" ||
    { sed 's/^</declared, not exported:/; s/^>/exported, not declared:/' "$dir/diff" | grep -v '^[0-9]';
      fail "libordk.map and the installed headers disagree"; }
nm -D --defined-only "$libdir/libordk.so" | grep -q ' ordk_dev_open@@ORDK_0$' || fail "no symbol version ORDK_0"
echo "PASS: $(wc -l <"$dir/exported") symbols, shared and static builds ran"
