#!/usr/bin/env bash
# Write what zswaptop prints for every fixture tree into DIR, one file per tree and mode, so two
# builds can be compared byte for byte (`diff -r`): --once (summary, --full, --json, both
# expositions, with --top and --cgroups), the export of the demo recording (CSV and JSON Lines),
# the snapshot of a recorded moment, and the dashboard's first frame at 80x24 and 120x40 in every
# view (through tmux). The snapshot's own clock (the JSON `timestamp`) is the one thing redacted.
#
#   scripts/outputs.sh BINARY DIR
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1")
out=$2
mkdir -p "$out"
redact() { sed -E 's/"timestamp": "[^"]*"/"timestamp": "T"/'; }
for tree in tests/fixtures/*/; do
  name=$(basename "$tree")
  [ -d "$tree/proc" ] || [ -d "$tree/sys" ] || continue
  run() { # run FILE ARGS...
    local file=$1
    shift
    { "$bin" --root "$tree" "$@" 2>&1 || echo "exit $?"; } | redact >"$out/$name.$file"
  }
  run once --once
  run full --once --full
  run json --once --json --top 5 --cgroups
  run openmetrics --once --format openmetrics
  run prometheus --once --format prometheus
  run ascii --once --ascii
done
{ "$bin" export --from assets/demo.zsr --format csv 2>&1 || echo "exit $?"; } >"$out/demo.csv"
{ "$bin" export --from assets/demo.zsr --format jsonl 2>&1 || echo "exit $?"; } | redact >"$out/demo.jsonl"
{ "$bin" --once --from assets/demo.zsr --at -30s 2>&1 || echo "exit $?"; } >"$out/demo.once"
{ "$bin" --once --json --from assets/demo.zsr --at -30s 2>&1 || echo "exit $?"; } | redact >"$out/demo.json"
if command -v tmux >/dev/null 2>&1; then
  sock="outputs-$$"
  trap 'tmux -L "$sock" kill-server 2>/dev/null || true' EXIT
  for size in 80x24 120x40; do
    for tree in tests/fixtures/linux-6.18-loaded tests/fixtures/tiers-zswap-zram-disk; do
      tmux -L "$sock" new-session -d -x "${size%x*}" -y "${size#*x}" -s s \
        "$bin --root $tree --no-mouse; sleep 5"
      sleep 1.5
      for key in 1 2 3 4 5 6; do
        tmux -L "$sock" send-keys -t s "$key"
        sleep 0.7
        tmux -L "$sock" capture-pane -p -t s | sed -E 's/[0-9]{2}:[0-9]{2}:[0-9]{2}/HH:MM:SS/g' \
          >"$out/dash.$(basename "$tree").$size.$key"
      done
      tmux -L "$sock" kill-session -t s
    done
  done
fi
echo "outputs: $(ls "$out" | wc -l) files in $out"
