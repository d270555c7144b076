# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by the two-process tests: wait until a server is ready, by looking,
# never by sleeping a fixed time; then judge both processes the same way
# (two_verdict, expect_lines).
#   wait_listen <unix socket path> <server pid> [timeout s]
# A listening unix socket (net_memif's, abstract or not) named <path> in
# /proc/net/unix (flag __SO_ACCEPTCON). Returns 1 when the server died or
# the bound passed.
wait_listen() {
    local path=$1 pid=$2 bound=${3:-60}
    local until=$((SECONDS + bound))
    while [ $SECONDS -lt $until ]; do
        if awk -v p="$path" '$4 == "00010000" && ($8 == p || $8 == "@" p) { f = 1 } END { exit !f }' \
               /proc/net/unix; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { echo "wait_listen: the server (pid $pid) exited"; return 1; }
        sleep 0.05
    done
    echo "wait_listen: nothing listens on $path after $bound s"
    return 1
}

# wait_line <file> <extended regex> <pid> [timeout s]: until a line of the
# server's output matches.
wait_line() {
    local file=$1 re=$2 pid=$3 bound=${4:-60}
    local until=$((SECONDS + bound))
    while [ $SECONDS -lt $until ]; do
        grep -Eq -- "$re" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || { echo "wait_line: the server (pid $pid) exited"; return 1; }
        sleep 0.05
    done
    echo "wait_line: no line /$re/ in the server's output after $bound s"
    return 1
}

# wait_tcp <port> <server pid> [timeout s]: until a TCP socket listens on <port>.
wait_tcp() {
    local port=$1 pid=$2 bound=${3:-60} hex
    local until=$((SECONDS + bound))
    hex=$(printf '%04X' "$port")
    while [ $SECONDS -lt $until ]; do
        if cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
               awk -v h="$hex" '$4 == "0A" && $2 ~ (":" h "$") { f = 1 } END { exit !f }'; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { echo "wait_tcp: the server (pid $pid) exited"; return 1; }
        sleep 0.05
    done
    echo "wait_tcp: nothing listens on TCP port $port after $bound s"
    return 1
}

# wait_udp <port> <server pid> [timeout s]: until a UDP socket is bound to <port>
# (rdma_cm's UDP port space: a UD id's listener, lib/rdmacm/rcm_sidr.c).
wait_udp() {
    local port=$1 pid=$2 bound=${3:-60} hex
    local until=$((SECONDS + bound))
    hex=$(printf '%04X' "$port")
    while [ $SECONDS -lt $until ]; do
        if cat /proc/net/udp /proc/net/udp6 2>/dev/null |
               awk -v h="$hex" '$2 ~ (":" h "$") { f = 1 } END { exit !f }'; then
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || { echo "wait_udp: the server (pid $pid) exited"; return 1; }
        sleep 0.05
    done
    echo "wait_udp: nothing is bound to UDP port $port after $bound s"
    return 1
}

# descendants <pid>: every process under <pid>, depth first.
descendants() {
    local c
    for c in $(pgrep -P "$1"); do
        echo "$c"
        descendants "$c"
    done
}

# hang_report <pid>: what <pid> and the processes under it are doing: each
# thread's state, kernel wait channel and system call, and its stack when
# gdb is installed. For a process that should have ended.
hang_report() {
    local p t
    echo "--- pid $1 is still running; its processes' threads:"
    for p in $1 $(descendants "$1"); do
        echo "pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
        for t in /proc/"$p"/task/*; do
            echo "  thread ${t##*/} $(cat "$t/comm" 2>/dev/null): state $(cut -d' ' -f3 "$t/stat" 2>/dev/null)" \
                 "wchan $(cat "$t/wchan" 2>/dev/null) syscall $(cut -d' ' -f1 "$t/syscall" 2>/dev/null)"
        done
        if command -v gdb >/dev/null; then
            timeout -k 2 20 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^(Thread|#)'
        fi
    done
}

# reap <pid> [bound s]: the exit status of background job <pid>, as `wait`
# gives it, waiting at most <bound> s (default 20) once its peer is done; one
# still running then is described (hang_report) and stopped: 124, as from
# timeout(1).
reap() {
    local pid=$1 bound=${2:-20}
    local until=$((SECONDS + bound))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $until ]; do
        sleep 0.05
    done
    if kill -0 "$pid" 2>/dev/null; then
        hang_report "$pid"
        kill "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        return 124
    fi
    wait "$pid"
}

# two_verdict <dir> <client exit> <server exit> [server's name]: the client's
# output and the server's ($dir/client, $dir/<name>; EAL's lines left out),
# then FAIL (exit 1) unless both exited 0.
two_verdict() {
    local dir=$1 crc=$2 src=$3 name=${4:-server}
    grep -v '^EAL' "$dir/client"
    echo "--- $name (exit $src):"
    grep -v '^EAL' "$dir/$name"
    [ "$crc" -eq 0 ] || { echo "FAIL: client exit $crc"; exit 1; }
    [ "$src" -eq 0 ] || { echo "FAIL: $name exit $src"; exit 1; }
}

# expect_lines <file> <regex>[;<regex>...]: FAIL (exit 1) unless every
# extended regex matches a line of <file>.
expect_lines() {
    local file=$1 p pats
    IFS=';' read -ra pats <<<"$2"
    for p in "${pats[@]}"; do
        grep -Eq -- "$p" "$file" ||
            { echo "FAIL: no line of $(basename "$file") matches /$p/"; exit 1; }
    done
}
