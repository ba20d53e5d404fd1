#!/usr/bin/env bash
# What the swap-in programs cost natively, on this machine's own kernel (benches/bpf_native.rs:
# a zswap hit's median with no programs, two empty programs, and a zswap hit's three program
# bodies, run from the raw tracepoint page_fault_user where the kernel refuses fentry). As root:
# it makes a 1 GiB swap file and turns zswap on where there is no swap, and undoes both on exit.
# It reads one page a fault (vm.page-cluster 0, put back on exit). It runs the bench twice: with kernel.bpf_stats_enabled off (the A/B medians) and on (each
# program's own time a run), and puts bpf_stats_enabled back as it was.
#
#   sudo scripts/bench-bpf-native.sh
#
# Exit status 0 when it measured, 2 when it cannot run.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "bench-bpf-native: needs root (BPF programs, swapon)" >&2; exit 2; }
command -v clang >/dev/null || { echo "bench-bpf-native: needs clang (the BPF object)" >&2; exit 2; }
Z=/sys/module/zswap/parameters/enabled
[ -w "$Z" ] || { echo "bench-bpf-native: this kernel has no zswap ($Z)" >&2; exit 2; }

SWAP=
ZSWAP_WAS=$(cat "$Z")
STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo 0)
CLUSTER_WAS=$(cat /proc/sys/vm/page-cluster)
undo() {
  echo "$CLUSTER_WAS" > /proc/sys/vm/page-cluster 2>/dev/null || true
  echo "$STATS_WAS" > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || true
  echo "$ZSWAP_WAS" > "$Z" 2>/dev/null || true
  if [ -n "$SWAP" ]; then swapoff "$SWAP" 2>/dev/null || true; rm -f "$SWAP"; fi
}
trap undo EXIT INT TERM HUP
if [ "$(wc -l < /proc/swaps)" -lt 2 ]; then
  SWAP=$(mktemp /var/tmp/zswaptop-bench-swap.XXXXXX)
  fallocate -l 1G "$SWAP" && chmod 600 "$SWAP" && mkswap -q "$SWAP" >/dev/null && swapon "$SWAP"
fi
echo Y > "$Z"
# One page a fault (no swap readahead): each timed touch is one zswap load, as in the guests.
echo 0 > /proc/sys/vm/page-cluster

cargo bench --locked --bench bpf_native --no-run  # a build error shows here
echo 0 > /proc/sys/kernel/bpf_stats_enabled
cargo bench --locked --bench bpf_native 2>/dev/null
echo
echo 1 > /proc/sys/kernel/bpf_stats_enabled
ROUNDS=3 cargo bench --locked --bench bpf_native 2>/dev/null | sed -n '/own time/,$p'
