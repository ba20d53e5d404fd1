#!/usr/bin/env bash
# Measure the dashboard's steady-state cost against htop, side by side in one run.
#
# Both run in their own tmux pane of the same size, zswaptop at its default 1 s interval and
# htop at `-d 10` (1 s). After a warm-up, CPU time (utime+stime from /proc/PID/stat) and VmRSS
# are sampled for DURATION seconds. The budget: zswaptop's CPU at most half of htop's, and its
# RSS at or under htop's.
#
#   scripts/bench-vs-htop.sh                 # 60 s, the release build
#   DURATION=120 ZSWAPTOP=path/to/zswaptop scripts/bench-vs-htop.sh
#   ZSWAPTOP_ARGS="--root tests/fixtures/linux-6.18-loaded" scripts/bench-vs-htop.sh
#
# Installs htop and tmux with apt-get when they are missing (as root). Exit status 0 on PASS,
# 1 on FAIL, 2 when it cannot run.
set -euo pipefail

DURATION=${DURATION:-60}
WARMUP=${WARMUP:-5}
COLS=${COLS:-120}
ROWS=${ROWS:-40}
cd "$(dirname "$0")/.."

install() {
    if [ "$(id -u)" != 0 ]; then
        echo "bench: $* missing and not root: install with: sudo apt-get install -y $*" >&2
        exit 2
    fi
    apt-get install -y "$@" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$@" >/dev/null; }
}
for tool in htop tmux; do
    command -v "$tool" >/dev/null 2>&1 || install "$tool"
done

if [ -z "${ZSWAPTOP:-}" ]; then
    cargo build --release --quiet
    ZSWAPTOP=target/release/zswaptop
fi
[ -x "$ZSWAPTOP" ] || { echo "bench: $ZSWAPTOP is not executable" >&2; exit 2; }

CLK_TCK=$(getconf CLK_TCK)
S1="zswaptop-bench-z-$$"
S2="zswaptop-bench-h-$$"
cleanup() {
    tmux kill-session -t "$S1" 2>/dev/null || true
    tmux kill-session -t "$S2" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# `exec` so the pane's process is the program itself.
# shellcheck disable=SC2086
tmux new-session -d -s "$S1" -x "$COLS" -y "$ROWS" "exec $ZSWAPTOP ${ZSWAPTOP_ARGS:-}"
tmux new-session -d -s "$S2" -x "$COLS" -y "$ROWS" "exec htop -d 10"
sleep 1
PZ=$(tmux display -p -t "$S1" '#{pane_pid}')
PH=$(tmux display -p -t "$S2" '#{pane_pid}')
for p in "$PZ" "$PH"; do
    [ -r "/proc/$p/stat" ] || { echo "bench: process $p did not start" >&2; exit 2; }
done
sleep "$WARMUP"

# utime+stime in clock ticks (fields 14 and 15; the command name may hold spaces).
ticks() { sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}'; }
# Nanoseconds on CPU (schedstat), for a finer figure than the ticks.
ns() { awk '{print $1}' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

t0=$(date +%s.%N)
z0=$(ticks "$PZ"); h0=$(ticks "$PH"); zn0=$(ns "$PZ"); hn0=$(ns "$PH")
zmax=0; hmax=0; zsum=0; hsum=0; n=0
end=$(( $(date +%s) + DURATION ))
while [ "$(date +%s)" -lt "$end" ]; do
    sleep 1
    zr=$(rss "$PZ"); hr=$(rss "$PH")
    zsum=$((zsum + zr)); hsum=$((hsum + hr)); n=$((n + 1))
    [ "$zr" -gt "$zmax" ] && zmax=$zr
    [ "$hr" -gt "$hmax" ] && hmax=$hr
done
t1=$(date +%s.%N)
z1=$(ticks "$PZ"); h1=$(ticks "$PH"); zn1=$(ns "$PZ"); hn1=$(ns "$PH")

awk -v el="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v tck="$CLK_TCK" \
    -v zt=$((z1 - z0)) -v ht=$((h1 - h0)) -v zn=$((zn1 - zn0)) -v hn=$((hn1 - hn0)) \
    -v za=$((zsum / n)) -v ha=$((hsum / n)) -v zm="$zmax" -v hm="$hmax" \
    -v zv="$("$ZSWAPTOP" --version 2>/dev/null || echo zswaptop)" -v hv="$(htop --version | head -1)" '
BEGIN {
    zc = zt / tck / el * 100; hc = ht / tck / el * 100
    zs = zn / 1e9 / el * 100; hs = hn / 1e9 / el * 100
    printf "%s vs %s, %.0f s at a 1 s interval, %s ticks/s\n\n", zv, hv, el, tck
    printf "%-10s %10s %12s %14s %14s\n", "program", "CPU %", "CPU % (ns)", "RSS avg KiB", "RSS max KiB"
    printf "%-10s %10.3f %12.3f %14d %14d\n", "zswaptop", zc, zs, za, zm
    printf "%-10s %10.3f %12.3f %14d %14d\n\n", "htop", hc, hs, ha, hm
    cpu_ok = (zt <= ht / 2)
    rss_ok = (zm <= hm)
    printf "CPU: zswaptop %.3f%% <= half of htop %.3f%% (%.3f%%): %s\n", zc, hc, hc / 2, cpu_ok ? "PASS" : "FAIL"
    printf "RSS: zswaptop %d KiB <= htop %d KiB: %s\n", zm, hm, rss_ok ? "PASS" : "FAIL"
    if (cpu_ok && rss_ok) { print "\nPASS"; exit 0 } else { print "\nFAIL"; exit 1 }
}'
