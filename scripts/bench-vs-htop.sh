#!/usr/bin/env bash
# Measure the dashboard's steady-state cost against htop and btop, side by side in the same runs.
#
# The three run at once, each in its own tmux pane of the same size (one tmux server of our own),
# zswaptop at its default 1 s interval, htop at `-d 10` (1 s) and btop with `update_ms = 1000`
# (a configuration of its own in a temporary directory). After a warm-up, CPU time
# (/proc/PID/schedstat, nanoseconds on CPU) and VmRSS are sampled for DURATION seconds; RUNS
# such runs, then the medians. The budget: zswaptop's CPU at most a quarter of htop's in the
# same run (the median of the per-run ratios), and its RSS at most 4 MiB. The load average is
# printed with each run: other work on the machine slows every tool, so the ratio, measured in
# the same run, is the figure that compares.
#
#   scripts/bench-vs-htop.sh                       # 3 runs of 60 s, 120x40, the overview
#   COLS=80 ROWS=24 scripts/bench-vs-htop.sh
#   KEYS=2 scripts/bench-vs-htop.sh                # the graphs view (keys sent to zswaptop)
#   RUNS=1 DURATION=30 ZSWAPTOP=path/to/zswaptop scripts/bench-vs-htop.sh
#   ZSWAPTOP_ARGS="--root tests/fixtures/linux-6.18-loaded" scripts/bench-vs-htop.sh
#
# Installs htop, btop and tmux with apt-get when they are missing (as root). Exit status 0 on
# PASS, 1 on FAIL, 2 when it cannot run.
set -euo pipefail

RUNS=${RUNS:-3}
DURATION=${DURATION:-60}
WARMUP=${WARMUP:-5}
COLS=${COLS:-120}
ROWS=${ROWS:-40}
KEYS=${KEYS:-}
cd "$(dirname "$0")/.."

install() {
    if [ "$(id -u)" != 0 ]; then
        echo "bench: $* missing and not root: install with: sudo apt-get install -y $*" >&2
        exit 2
    fi
    apt-get install -y "$@" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$@" >/dev/null; }
}
for tool in htop btop tmux; do
    command -v "$tool" >/dev/null 2>&1 || install "$tool"
done

if [ -z "${ZSWAPTOP:-}" ]; then
    # The binary the project ships (the release script's and the .deb's).
    ZSWAPTOP=$(scripts/build-static.sh --quiet)
fi
[ -x "$ZSWAPTOP" ] || { echo "bench: $ZSWAPTOP is not executable" >&2; exit 2; }

SOCK="zswaptop-bench-$$"
CONF=$(mktemp -d)
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    rm -rf "$CONF"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$CONF/btop"
printf 'update_ms = 1000\n' >"$CONF/btop/btop.conf"

ns() { awk '{print $1}' "/proc/$1/schedstat" 2>/dev/null || echo 0; }
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

TOOLS=(zswaptop htop btop)
# One run: prints "tool cpu_ms_per_s rss_max_kib" for each tool, then "load <1m> <5m> <15m>".
one_run() {
    local -A pid c0 c1 rmax
    # `exec` so each pane's process is the program itself.
    # shellcheck disable=SC2086
    tmux -L "$SOCK" new-session -d -s zswaptop -x "$COLS" -y "$ROWS" "exec $ZSWAPTOP ${ZSWAPTOP_ARGS:-}"
    tmux -L "$SOCK" new-session -d -s htop -x "$COLS" -y "$ROWS" "exec htop -d 10"
    tmux -L "$SOCK" new-session -d -s btop -x "$COLS" -y "$ROWS" \
        "XDG_CONFIG_HOME=$CONF exec btop --utf-force"
    sleep 1
    [ -n "$KEYS" ] && tmux -L "$SOCK" send-keys -t zswaptop "$KEYS"
    for t in "${TOOLS[@]}"; do
        pid[$t]=$(tmux -L "$SOCK" display -p -t "$t" '#{pane_pid}')
        [ -r "/proc/${pid[$t]}/schedstat" ] || { echo "bench: $t did not start" >&2; exit 2; }
        rmax[$t]=0
    done
    sleep "$WARMUP"
    local t0 t1 end r
    t0=$(date +%s.%N)
    for t in "${TOOLS[@]}"; do c0[$t]=$(ns "${pid[$t]}"); done
    end=$(($(date +%s) + DURATION))
    while [ "$(date +%s)" -lt "$end" ]; do
        sleep 1
        for t in "${TOOLS[@]}"; do
            r=$(rss "${pid[$t]}")
            [ "$r" -gt "${rmax[$t]}" ] && rmax[$t]=$r
        done
    done
    t1=$(date +%s.%N)
    for t in "${TOOLS[@]}"; do c1[$t]=$(ns "${pid[$t]}"); done
    for t in "${TOOLS[@]}"; do
        awk -v t="$t" -v c="$((c1[$t] - c0[$t]))" -v a="$t0" -v b="$t1" -v r="${rmax[$t]}" \
            'BEGIN { printf "%s %.3f %d\n", t, c / 1e6 / (b - a), r }'
    done
    echo "load $(load)"
    tmux -L "$SOCK" kill-server 2>/dev/null || true
    sleep 1
}

RESULTS=$(mktemp)
trap 'cleanup; rm -f "$RESULTS"' EXIT
echo "$("$ZSWAPTOP" --version 2>/dev/null || echo zswaptop), $(htop --version | head -1), btop $(btop --version | awk '{print $NF}')"
echo "${COLS}x${ROWS}, 1 s interval, ${RUNS} runs of ${DURATION} s${KEYS:+, zswaptop keys: $KEYS}, $(nproc) CPUs"
echo
printf "%-4s %-9s %12s %12s   %s\n" run tool "CPU ms/s" "RSS max KiB" "load average (end of run)"
for run in $(seq "$RUNS"); do
    out=$(one_run)
    l=$(awk '$1 == "load" { print $2, $3, $4 }' <<<"$out")
    awk -v run="$run" -v l="$l" '$1 != "load" { printf "%-4s %-9s %12.3f %12d   %s\n", run, $1, $2, $3, l; print run, $0 > "/dev/stderr" }' \
        <<<"$out" 2>>"$RESULTS"
done
echo
awk -v runs="$RUNS" '
function median(a, n,    i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ cpu[$2, $1] = $3; rss[$2, $1] = $4 }
END {
    split("zswaptop htop btop", tools, " ")
    printf "%-9s %16s %16s %12s\n", "tool", "CPU ms/s median", "RSS MiB median", "vs htop"
    for (k = 1; k <= 3; k++) {
        t = tools[k]
        for (r = 1; r <= runs; r++) { c[r] = cpu[t, r]; m[r] = rss[t, r]; q[r] = cpu[t, r] / cpu["htop", r] }
        mc[t] = median(c, runs); mr[t] = median(m, runs); mq[t] = median(q, runs)
        printf "%-9s %16.3f %16.2f %11.2fx\n", t, mc[t], mr[t] / 1024, mq[t]
    }
    cpu_ok = mq["zswaptop"] <= 0.25
    rss_ok = mr["zswaptop"] <= 4096
    printf "\nCPU: zswaptop %.2fx htop (median of the per-run ratios) <= 0.25: %s\n", mq["zswaptop"], cpu_ok ? "PASS" : "FAIL"
    printf "RSS: zswaptop %.2f MiB <= 4 MiB: %s\n", mr["zswaptop"] / 1024, rss_ok ? "PASS" : "FAIL"
    if (cpu_ok && rss_ok) { print "\nPASS"; exit 0 } else { print "\nFAIL"; exit 1 }
}' "$RESULTS"
