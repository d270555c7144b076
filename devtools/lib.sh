# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the devtools scripts.

# ordk_build DIR [meson options...]: configure DIR (or reconfigure it, or
# wipe it when reconfiguring fails) and build it. Quiet unless something
# fails; then the tool's output is shown. Returns non-zero on failure.
ordk_build() {
    local dir=$1 log
    shift
    log=$(mktemp /tmp/ordk-build-XXXXXX)
    if [ -f "$dir/build.ninja" ]; then
        meson setup --reconfigure "$dir" "$@" >"$log" 2>&1 ||
            meson setup --wipe "$dir" "$@" >"$log" 2>&1
    else
        meson setup "$dir" "$@" >"$log" 2>&1
    fi && ninja -C "$dir" >"$log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || cat "$log" >&2
    rm -f "$log"
    return $rc
}
