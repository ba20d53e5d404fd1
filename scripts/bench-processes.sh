#!/usr/bin/env bash
# Measure what the processes view costs with many processes: zswaptop's CPU per tick on the
# overview, then on the processes view (which scans /proc/PID/status of every process, at most
# 2% of a CPU's worth: with thousands of processes, less often than every tick), with COUNT
# extra idle processes running.
#
# Starts COUNT `sleep` processes (5000 by default) and ends them, by their process ids, when
# it exits (normally, on an error or on Ctrl-C). zswaptop runs in a tmux pane of its own at a
# 1 s interval; after a warm-up, CPU time (/proc/PID/schedstat, nanoseconds) and VmRSS are
# sampled for DURATION seconds on the overview, then for DURATION seconds on the processes
# view (key 5). htop (`-d 10`, 1 s, showing the same processes) runs beside it in a pane of the
# same size and is measured over the same seconds: the budget is the processes view at most
# htop's CPU.
#
#   scripts/bench-processes.sh                  # 5000 processes, 30 s per view
#   COUNT=10000 DURATION=60 scripts/bench-processes.sh
#   ZSWAPTOP=path/to/zswaptop scripts/bench-processes.sh
#
# Installs tmux and htop with apt-get when they are missing (as root). Exit status 0 when it ran, 2 when it
# cannot run.
set -euo pipefail

COUNT=${COUNT:-5000}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-3}
COLS=${COLS:-120}
ROWS=${ROWS:-40}
cd "$(dirname "$0")/.."

for tool in tmux htop; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        if [ "$(id -u)" != 0 ]; then
            echo "bench: $tool missing and not root: install with: sudo apt-get install -y $tool" >&2
            exit 2
        fi
        apt-get install -y "$tool" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$tool" >/dev/null; }
    fi
done

if [ -z "${ZSWAPTOP:-}" ]; then
    # The binary the project ships (the release script's and the .deb's).
    ZSWAPTOP=$(scripts/build-static.sh --quiet)
fi
[ -x "$ZSWAPTOP" ] || { echo "bench: $ZSWAPTOP is not executable" >&2; exit 2; }

SOCK="zswaptop-bench-p-$$"
PIDS=()
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    if [ "${#PIDS[@]}" -gt 0 ]; then
        kill "${PIDS[@]}" 2>/dev/null || true
        wait "${PIDS[@]}" 2>/dev/null || true
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

nprocs() { find /proc -maxdepth 1 -name '[0-9]*' | wc -l; }
before=$(nprocs)
for _ in $(seq "$COUNT"); do
    sleep 3600 &
    PIDS+=("$!")
done
after=$(nprocs)

tmux -L "$SOCK" new-session -d -s z -x "$COLS" -y "$ROWS" "exec $ZSWAPTOP -i 1"
tmux -L "$SOCK" new-session -d -s h -x "$COLS" -y "$ROWS" "exec htop -d 10"
sleep 1
PZ=$(tmux -L "$SOCK" display -p -t z '#{pane_pid}')
PH=$(tmux -L "$SOCK" display -p -t h '#{pane_pid}')
[ -r "/proc/$PZ/stat" ] || { echo "bench: zswaptop did not start" >&2; exit 2; }
[ -r "/proc/$PH/stat" ] || { echo "bench: htop did not start" >&2; exit 2; }

ns() { awk '{print $1}' "/proc/$1/schedstat"; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# Prints "cpu_ns elapsed_s rss_max_kib htop_cpu_ns" for DURATION seconds of the current view.
measure() {
    sleep "$WARMUP"
    local t0 t1 c0 c1 h0 h1 rmax=0 r end
    t0=$(date +%s.%N); c0=$(ns "$PZ"); h0=$(ns "$PH")
    end=$(( $(date +%s) + DURATION ))
    while [ "$(date +%s)" -lt "$end" ]; do
        sleep 1
        r=$(rss "$PZ"); [ "$r" -gt "$rmax" ] && rmax=$r
    done
    t1=$(date +%s.%N); c1=$(ns "$PZ"); h1=$(ns "$PH")
    echo "$((c1 - c0)) $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') $rmax $((h1 - h0))"
}

read -r ov_ns ov_s ov_rss ov_h < <(measure)
tmux -L "$SOCK" send-keys -t z 5
read -r pr_ns pr_s pr_rss pr_h < <(measure)
screen=$(tmux -L "$SOCK" capture-pane -p -t z)
shown=$(grep -o '[0-9]* of [0-9]* have swap' <<<"$screen" | head -1 || true)
every=$(grep -o 'list read every [0-9.]*m*s' <<<"$screen" | head -1 || true)

awk -v on="$ov_ns" -v os="$ov_s" -v orss="$ov_rss" -v pn="$pr_ns" -v ps="$pr_s" -v prss="$pr_rss" \
    -v oh="$ov_h" -v ph="$pr_h" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v count="$COUNT" -v before="$before" -v after="$after" -v shown="$shown" -v every="$every" \
    -v zv="$("$ZSWAPTOP" --version 2>/dev/null || echo zswaptop)" -v cpus="$(nproc)" '
BEGIN {
    printf "%s, 1 s interval, %d s per view, %d CPUs, load average %s\n", zv, os, cpus, load
    printf "processes: %d before, %d with the %d idle ones started\n", before, after, count
    printf "processes view: %s; %s\n\n", (shown == "" ? "(title not seen)" : shown), (every == "" ? "list read every tick" : every)
    printf "%-10s %14s %10s %12s %16s\n", "view", "CPU ms/tick", "CPU %", "RSS max KiB", "htop CPU ms/s"
    printf "%-10s %14.2f %10.3f %12d %16.2f\n", "overview", on / 1e6 / os, on / 1e9 / os * 100, orss, oh / 1e6 / os
    printf "%-10s %14.2f %10.3f %12d %16.2f\n", "processes", pn / 1e6 / ps, pn / 1e9 / ps * 100, prss, ph / 1e6 / ps
    printf "\nthe processes view adds %.2f ms of CPU per tick (%.2f us per process)\n", (pn / ps - on / os) / 1e6, (pn / ps - on / os) / 1e3 / after
    printf "processes view %.2f ms/s against htop %.2f ms/s (%.2fx): %s\n", pn / 1e6 / ps, ph / 1e6 / ps, pn / ph, (pn <= ph ? "PASS" : "FAIL")
}'
