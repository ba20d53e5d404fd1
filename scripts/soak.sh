#!/usr/bin/env bash
# A long session of the live dashboard: does its memory creep?
#
# Runs the dashboard on the live system at a 0.1 s interval (SOAK_TICK) in a tmux pane of
# 120×40 (one tmux server of our own) for DURATION seconds, while a churn generator makes the
# machine change under it: short-lived processes (bursts of CHURN_PROCS at a time, a few hundred
# a second) and, every CHURN_CGROUP_EVERY seconds, a memory cgroup (v1 or v2, whichever has the
# memory controller) created with a new name, a process moved in, and removed again. Swap areas
# and zram devices are left alone. Every INTERVAL seconds it prints the dashboard's anonymous
# memory: RssAnon from /proc/PID/status and Anonymous from /proc/PID/smaps_rollup (kB).
#
# The verdict: over the last half of the run, at most its last 30 minutes, every sample of
# RssAnon within ±5 % of that window's median is FLAT, anything else CREEPS. The drift over
# the window (its last sample less its first) is printed too.
#
#   scripts/soak.sh                       # 1 hour, a sample every 30 s
#   scripts/soak.sh 600 10                # 10 minutes, every 10 s
#   SOAK_VIEWS=123456 scripts/soak.sh     # cycle through the views (keys), one every SOAK_VIEW_EVERY s
#   CHURN=0 scripts/soak.sh 600 10        # no churn generator
#   ZSWAPTOP=target/release/zswaptop scripts/soak.sh
#   SOAK_CSV=/tmp/soak.csv scripts/soak.sh  # the series as CSV too
#
# Growth that stays after the history is full is either memory the dashboard still holds or
# memory glibc's allocator keeps after it was freed. To tell them apart on the running dashboard:
#
#   gdb -p PID -batch -ex 'call (void)malloc_stats()' -ex 'call (int)malloc_trim(0)'
#
# (malloc_stats prints on the dashboard's stderr: start it with `2>FILE` to read it), with RssAnon
# before and after. Measured on the shipped build at 120×40 after 10 minutes at -i 0.1: the main
# arena held 930 KB from the system with 812 KB in use, and malloc_trim(0) gave back 20 kB of
# RssAnon (the build before the graph fix: 1,503 KB with 1,272 KB in use, 92 kB given back). The
# guard thread's arena reserves 132 KiB and uses 3 KiB (a few pages resident). What the
# allocator keeps is a small share that does not grow with time: the creep was live memory.
#
# ZSWAPTOP defaults to the binary we ship (scripts/build-static.sh builds it). The cgroups are
# made and removed under `flock /tmp/zswaptop-kernel.lock` (other work on the machine may change
# kernel state too) and removed on every way out. Needs root for the cgroups (without it only
# processes churn). Exit status 0 on FLAT, 1 on CREEPS or when the dashboard ended early, 2 when
# it cannot run.
set -euo pipefail

DURATION=${1:-3600}
INTERVAL=${2:-30}
SOAK_TICK=${SOAK_TICK:-0.1}
SOAK_VIEWS=${SOAK_VIEWS:-}
SOAK_VIEW_EVERY=${SOAK_VIEW_EVERY:-10}
CHURN=${CHURN:-1}
CHURN_PROCS=${CHURN_PROCS:-40}
CHURN_CGROUP_EVERY=${CHURN_CGROUP_EVERY:-20}
LOCK=/tmp/zswaptop-kernel.lock
cd "$(dirname "$0")/.."

case "$DURATION$INTERVAL" in
    *[!0-9]*) echo "soak: DURATION and INTERVAL are whole seconds" >&2; exit 2 ;;
esac
[ "$INTERVAL" -gt 0 ] && [ "$DURATION" -ge $((2 * INTERVAL)) ] || {
    echo "soak: DURATION must hold at least two INTERVALs" >&2
    exit 2
}
command -v tmux >/dev/null 2>&1 || { echo "soak: tmux is missing (apt-get install tmux)" >&2; exit 2; }
if [ -z "${ZSWAPTOP:-}" ]; then
    ZSWAPTOP=$(scripts/build-static.sh --quiet)
fi
[ -x "$ZSWAPTOP" ] || { echo "soak: $ZSWAPTOP is not executable" >&2; exit 2; }
ZSWAPTOP=$(realpath "$ZSWAPTOP")

SOCK="zswaptop-soak-$$"
CG_PREFIX="zswaptop-soak-$$"
CHURN_PID=""
# The memory controller's hierarchy: v2 where it is enabled there, else v1's.
CG_BASE=""
if [ "$(id -u)" = 0 ]; then
    for d in /sys/fs/cgroup /sys/fs/cgroup/unified; do
        if grep -qw memory "$d/cgroup.controllers" 2>/dev/null \
            && grep -qw memory "$d/cgroup.subtree_control" 2>/dev/null; then
            CG_BASE=$d
            break
        fi
    done
    [ -n "$CG_BASE" ] || { [ -f /sys/fs/cgroup/memory/tasks ] && CG_BASE=/sys/fs/cgroup/memory; }
fi

remove_cgroups() {
    [ -n "$CG_BASE" ] || return 0
    local d
    for d in "$CG_BASE/$CG_PREFIX"-*; do
        [ -d "$d" ] || continue
        # Anything still inside goes back to the root first.
        while read -r p; do echo "$p" >"$CG_BASE/cgroup.procs" 2>/dev/null || true; done <"$d/cgroup.procs"
        flock "$LOCK" rmdir "$d" 2>/dev/null || true
    done
}
cleanup() {
    if [ -n "$CHURN_PID" ]; then
        kill "$CHURN_PID" 2>/dev/null || true
        wait "$CHURN_PID" 2>/dev/null || true
    fi
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    remove_cgroups
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The churn: bounded in number (CHURN_PROCS at once, one cgroup at a time) and in time (it ends
# with the run, or by itself DURATION seconds after it started).
churn() {
    local end=$((SECONDS + DURATION)) n=0 next_cg=$((SECONDS + 5)) cg i
    trap 'jobs -p | xargs -r kill 2>/dev/null; wait; remove_cgroups; exit 0' TERM
    while [ "$SECONDS" -lt "$end" ]; do
        for ((i = 0; i < CHURN_PROCS; i++)); do
            /bin/sleep 0.05 &
        done
        wait
        if [ -n "$CG_BASE" ] && [ "$SECONDS" -ge "$next_cg" ]; then
            n=$((n + 1))
            cg="$CG_BASE/$CG_PREFIX-$n"
            if flock "$LOCK" mkdir "$cg" 2>/dev/null; then
                /bin/sleep 3 &
                echo $! >"$cg/cgroup.procs" 2>/dev/null || true
                wait
                flock "$LOCK" rmdir "$cg" 2>/dev/null || true
            fi
            next_cg=$((SECONDS + CHURN_CGROUP_EVERY))
        fi
        /bin/sleep 0.1
    done
}

tmux -L "$SOCK" -f /dev/null new-session -d -s soak -x 120 -y 40 \
    "exec env TERM=tmux-256color LANG=C.UTF-8 $ZSWAPTOP -i $SOAK_TICK"
PID=$(tmux -L "$SOCK" display -p -t soak '#{pane_pid}')
sleep 1
[ "$(readlink "/proc/$PID/exe" 2>/dev/null)" = "$ZSWAPTOP" ] || {
    echo "soak: the dashboard did not start" >&2
    exit 2
}
if [ "$CHURN" = 1 ]; then
    churn &
    CHURN_PID=$!
fi

echo "soak: $ZSWAPTOP -i $SOAK_TICK, pid $PID, ${DURATION}s, a sample every ${INTERVAL}s," \
    "churn ${CHURN} (cgroups in ${CG_BASE:-none}), views ${SOAK_VIEWS:-overview}"
echo "   t_s  rss_anon_kB  anonymous_kB"
[ -z "${SOAK_CSV:-}" ] || echo "t_s,rss_anon_kB,anonymous_kB" >"$SOAK_CSV"
series=()
start=$SECONDS
next_view=$((SECONDS + SOAK_VIEW_EVERY))
view_i=0
for ((t = 0; t <= DURATION; t += INTERVAL)); do
    while [ $((SECONDS - start)) -lt "$t" ]; do
        if [ -n "$SOAK_VIEWS" ] && [ "$SECONDS" -ge "$next_view" ]; then
            view_i=$(((view_i + 1) % ${#SOAK_VIEWS}))
            tmux -L "$SOCK" send-keys -t soak "${SOAK_VIEWS:view_i:1}"
            next_view=$((SECONDS + SOAK_VIEW_EVERY))
        fi
        sleep 1
    done
    if ! kill -0 "$PID" 2>/dev/null; then
        echo "soak: the dashboard ended after ${t}s" >&2
        exit 1
    fi
    rss=$(awk '/^RssAnon:/ {print $2}' "/proc/$PID/status")
    anon=$(awk '/^Anonymous:/ {print $2}' "/proc/$PID/smaps_rollup")
    printf '%6d  %11d  %12d\n' "$t" "$rss" "$anon"
    [ -z "${SOAK_CSV:-}" ] || echo "$t,$rss,$anon" >>"$SOAK_CSV"
    series+=("$t $rss")
done

window=$((DURATION / 2))
[ "$window" -le 1800 ] || window=1800
printf '%s\n' "${series[@]}" | awk -v from=$((DURATION - window)) -v window="$window" '
    $1 >= from { v[n++] = $2; if (n == 1) first = $2; last = $2 }
    END {
        # The median of the window.
        for (i = 0; i < n; i++) s[i] = v[i]
        for (i = 1; i < n; i++) { x = s[i]; for (j = i - 1; j >= 0 && s[j] > x; j--) s[j + 1] = s[j]; s[j + 1] = x }
        med = (n % 2) ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
        lo = s[0]; hi = s[n - 1]
        dev = 100 * ((hi - med > med - lo) ? hi - med : med - lo) / med
        printf "last %d s: %d samples, RssAnon median %d kB, %d..%d kB (±%.1f %%), drift %+d kB\n", window, n, med, lo, hi, dev, last - first
        if (dev <= 5) { print "FLAT"; exit 0 } else { print "CREEPS"; exit 1 }
    }'
