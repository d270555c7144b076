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

# ordk_prio_session NICE SCRIPT [args...]: run the calling benchmark at raised
# priority, so that other work on the machine (builds, tests) cannot take a core
# during one run and not the one beside it. Unless this is done already, the
# script is re-run (exec) in a session of its own (setsid), whose scheduler
# group gets NICE: with kernel.sched_autogroup_enabled the CPU is shared
# between sessions first, and a process's own nice counts only inside its
# session. The caller also starts its processes under `nice -n NICE` (kernels
# without autogroups). Sets ORDK_PRIO_GROUP to what was done, for the report.
# Needs root for a negative NICE; without it everything runs as started.
ordk_prio_session() {
    local n=$1
    shift
    if [ -z "${ORDK_PRIO_SESSION:-}" ] && [ -e /proc/self/autogroup ] &&
        command -v setsid >/dev/null; then
        ORDK_PRIO_SESSION=1 exec setsid --wait "$@"
    fi
    ORDK_PRIO_GROUP="as started"
    if [ -n "${ORDK_PRIO_SESSION:-}" ]; then
        if echo "$n" 2>/dev/null >/proc/self/autogroup; then
            ORDK_PRIO_GROUP="its own session, nice $n"
        else
            ORDK_PRIO_GROUP="its own session (its nice could not be set)"
        fi
    fi
}
