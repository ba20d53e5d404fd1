#!/usr/bin/env bash
# What `zswaptop fleet` costs on a large fleet: 1,000 and 10,000 synthetic hosts loaded into a
# real VictoriaMetrics (Debian's victoria-metrics, on a loopback port, its data in a temporary
# directory) through its import API (/api/v1/import/prometheus: every series zswaptop's fleet
# reads, under each host's own instance label, two samples 15 s apart so rates have two points).
#
# For each size, RUNS times:
#   - `fleet --once` (text) and `fleet --once --json`: wall time from start to exit, and peak RSS
#     (VmHWM, from /usr/bin/time -f %M);
#   - the fleet view in a tmux pane of COLS x ROWS: the time from start until its first screen
#     shows the table (the summary line "N hosts"), and its VmHWM then.
# Then the medians. The synthetic hosts are honest in shape, not in values: each exports what a
# zswaptop 0.1 `serve` exports for these figures, with values spread so the sort has work.
#
#   scripts/bench-fleet.sh                          # 1000 and 10000 hosts, 3 runs each
#   SIZES="10000" RUNS=5 ZSWAPTOP=target/debug/zswaptop scripts/bench-fleet.sh
#
# Exit status 0 when it ran, 2 when it cannot (no victoria-metrics, tmux or /usr/bin/time).
set -euo pipefail

SIZES=${SIZES:-"1000 10000"}
RUNS=${RUNS:-3}
COLS=${COLS:-120}
ROWS=${ROWS:-40}
cd "$(dirname "$0")/.."
ZSWAPTOP=${ZSWAPTOP:-target/release/zswaptop}

for tool in victoria-metrics tmux /usr/bin/time python3 curl; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "SKIPPED: $tool is not installed (apt-get install victoria-metrics tmux time python3 curl)" >&2
    exit 2
  fi
done
[ -x "$ZSWAPTOP" ] || { echo "no $ZSWAPTOP: cargo build --release first" >&2; exit 2; }

dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
vm="127.0.0.1:$port"
sock="$dir/tmux.sock"
vm_pid=""
cleanup() {
  tmux -S "$sock" kill-server >/dev/null 2>&1 || true
  [ -n "$vm_pid" ] && kill "$vm_pid" 2>/dev/null && wait "$vm_pid" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

victoria-metrics -httpListenAddr="$vm" -storageDataPath="$dir/vm" -search.latencyOffset=0s \
  -search.disableCache >"$dir/vm.log" 2>&1 &
vm_pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://$vm/health" >/dev/null 2>&1 && break
  sleep 0.2
done
curl -fs "http://$vm/health" >/dev/null || { echo "VictoriaMetrics did not start" >&2; exit 2; }

# The series the fleet reads, their names from the binary's own exposition.
names=$("$ZSWAPTOP" --format prometheus --root tests/fixtures/linux-6.18-loaded | grep -v '^#' |
  sed 's/[{ ].*//' | sort -u)
for n in zswaptop_build_info zswaptop_zswap_pool_bytes zswaptop_zswap_pool_limit_bytes \
  zswaptop_psi_memory_avg_ratio zswaptop_finding zswaptop_zswpwb_bytes_total; do
  grep -qx "$n" <<<"$names" || { echo "the exposition has no $n: the bench's names are stale" >&2; exit 2; }
done

# Hosts FROM..TO-1 as the import API's text (two samples 15 s apart, the last 5 s ago).
load() {
  python3 - "$1" "$2" <<'EOF' | curl -fs --data-binary @- "http://$vm/api/v1/import/prometheus"
import sys, time, random
lo, hi = int(sys.argv[1]), int(sys.argv[2])
now = int(time.time() * 1000) - 5000
out = sys.stdout
for i in range(lo, hi):
    r = random.Random(i)
    inst = f'instance="host-{i:05d}.example:9977",job="zswaptop"'
    limit = 4 << 30
    pool = r.randrange(0, limit)
    for k, t in enumerate((now - 15000, now)):
        out.write(f'up{{{inst}}} 1 {t}\n')
        out.write(f'zswaptop_build_info{{{inst},version="0.1.0",kernel="6.18.0"}} 1 {t}\n')
        out.write(f'zswaptop_zswap_pool_bytes{{{inst}}} {pool} {t}\n')
        out.write(f'zswaptop_zswap_pool_limit_bytes{{{inst}}} {limit} {t}\n')
        out.write(f'zswaptop_zswap_swapin_hit_ratio{{{inst}}} {r.random():.3f} {t}\n')
        out.write(f'zswaptop_zswpwb_bytes_total{{{inst}}} {i * 4096 + k * 15 * r.randrange(0, 1 << 20)} {t}\n')
        out.write(f'zswaptop_psi_memory_avg_ratio{{{inst},line="some",window="10"}} {r.random() * 0.3:.4f} {t}\n')
        if i % 7 == 0:
            out.write(f'zswaptop_zswap_pool_full_seconds{{{inst}}} {r.randrange(60, 86400)} {t}\n')
        if i % 11 == 0:
            out.write(f'zswaptop_swap_full_seconds{{{inst}}} {r.randrange(60, 86400)} {t}\n')
        if i % 13 == 0:
            out.write(f'zswaptop_finding{{{inst},id="pool-near-full",severity="crit"}} 1 {t}\n')
        out.write(f'zswaptop_finding{{{inst},id="page-cluster",severity="info"}} 1 {t}\n')
EOF
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

loaded=0
echo "== zswaptop fleet on VictoriaMetrics $vm; $RUNS runs each; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %-22s %12s %12s\n' hosts what "time (ms)" "RSS (KiB)"
for size in $SIZES; do
  load "$loaded" "$size"
  loaded=$size
  # Until the engine answers for every host.
  for _ in $(seq 1 100); do
    got=$(curl -fs "http://$vm/api/v1/query" --data-urlencode 'query=count(zswaptop_build_info)' |
      python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else 0)')
    [ "$got" = "$size" ] && break
    curl -fs "http://$vm/internal/force_flush" >/dev/null 2>&1 || true
    sleep 0.3
  done
  [ "$got" = "$size" ] || { echo "VictoriaMetrics holds $got hosts, not $size" >&2; exit 1; }
  for what in once json view; do
    times=(); rss=()
    for _ in $(seq 1 "$RUNS"); do
      case $what in
      once | json)
        args=(fleet --prometheus "http://$vm" --once)
        [ "$what" = json ] && args+=(--json)
        start=$(date +%s%N)
        /usr/bin/time -f %M -o "$dir/rss" "$ZSWAPTOP" "${args[@]}" >"$dir/out"
        end=$(date +%s%N)
        grep -q "$size" "$dir/out" || { echo "fleet --once did not list $size hosts" >&2; exit 1; }
        times+=($(((end - start) / 1000000)))
        rss+=("$(tail -n 1 "$dir/rss")")
        ;;
      view)
        tmux -S "$sock" kill-server >/dev/null 2>&1 || true
        rm -f "$sock"
        start=$(date +%s%N)
        # A server just killed may still hold the socket: once more after a moment.
        tmux -S "$sock" new-session -d -x "$COLS" -y "$ROWS" \
          "$ZSWAPTOP fleet --prometheus http://$vm; sleep 30" 2>/dev/null || {
          sleep 0.5
          start=$(date +%s%N)
          tmux -S "$sock" new-session -d -x "$COLS" -y "$ROWS" \
            "$ZSWAPTOP fleet --prometheus http://$vm; sleep 30"
        }
        shown=""
        for _ in $(seq 1 1200); do
          if tmux -S "$sock" capture-pane -p | grep -q "^$size hosts"; then
            shown=$(date +%s%N)
            break
          fi
          sleep 0.02
        done
        [ -n "$shown" ] || { echo "the fleet view showed no table within 24 s" >&2; tmux -S "$sock" capture-pane -p >&2; exit 1; }
        pid=$(pgrep -f "^$ZSWAPTOP fleet --prometheus http://$vm$" | head -n 1)
        times+=($(((shown - start) / 1000000)))
        rss+=("$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status")")
        [ "$size" = "$(echo "$SIZES" | awk '{print $NF}')" ] && [ -z "${screen_saved:-}" ] &&
          tmux -S "$sock" capture-pane -p >"$dir/screen" && screen_saved=1 && cp "$dir/screen" "${SCREEN_OUT:-/dev/null}"
        tmux -S "$sock" send-keys q
        ;;
      esac
    done
    label=$(case $what in once) echo "--once (text)";; json) echo "--once --json";; view) echo "view: first screen";; esac)
    printf '%-7s %-22s %12s %12s\n' "$size" "$label" "$(printf '%s\n' "${times[@]}" | median)" \
      "$(printf '%s\n' "${rss[@]}" | median)"
  done
done
