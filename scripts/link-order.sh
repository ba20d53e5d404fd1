#!/usr/bin/env bash
# Print the functions a static build runs, in the order lld should place them: scripts/build-static.sh
# calls this on the binary it has just built and links it again with the list (it is never kept in
# the repository: names depend on the exact code, dependencies and toolchain).
#
#   scripts/link-order.sh target/x86_64-unknown-linux-gnu/release/zswaptop > order.txt
#
# Runs the binary under valgrind's callgrind, which records every function executed:
# the dashboard in a tmux pane of 120x40 going through its views (overview and graphs first, the
# ticks a dashboard left open repeats), then `record`, then `--once` and `--once --json`. The
# file lists the dashboard's functions first, then what the other runs add. Read-only on the
# system; needs valgrind and tmux.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in valgrind tmux python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "link-order: needs $tool" >&2; exit 2; }
done

bin=${1:?usage: scripts/link-order.sh BINARY > ORDER}
work=$(mktemp -d)
sock="zswaptop-order-$$"
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cg() { # cg NAME ARGS... : one run of the binary under callgrind
  local name=$1
  shift
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" \
    "$bin" "$@" >/dev/null 2>"$work/$name.err"
}

echo "== the dashboard (callgrind, 120x40)" >&2
tmux -L "$sock" new-session -d -x 120 -y 40 \
  "valgrind --tool=callgrind --demangle=no --callgrind-out-file=$work/1-dashboard.out $bin 2>$work/1-dashboard.err"
sleep 8
for keys in 2 1 2 3 4 5 6 '?' Escape 1; do
  tmux -L "$sock" send-keys "$keys"
  sleep 4
done
tmux -L "$sock" send-keys q
for _ in $(seq 30); do
  tmux -L "$sock" has-session 2>/dev/null || break
  sleep 1
done

echo "== record" >&2
cg 2-record record --interval 1 --duration 6 --top 20 "$work/rec.zsr"
echo "== --once, --once --json" >&2
cg 3-once --once
cg 4-json --once --json
cg 5-full --once --full

python3 - "$work" <<'PY'
import glob, re, sys
seen, order = set(), []
for path in sorted(glob.glob(sys.argv[1] + "/*.out")):
    names = {}
    for line in open(path, errors="replace"):
        m = re.match(r"c?fn=\((\d+)\)(?: (.+))?$", line.rstrip("\n"))
        if not m:
            continue
        if m.group(2):
            names[m.group(1)] = m.group(2)
        name = names.get(m.group(1))
        if name and not name.startswith("0x") and name not in seen:
            seen.add(name)
            order.append(name)
print("\n".join(order))
PY
