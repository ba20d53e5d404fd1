#!/usr/bin/env bash
# Record assets/demo.zsr: this machine under zswap pressure, at 1 s, for about 2.5 minutes.
#
# Needs root, zswap in the kernel and the cgroup v1 memory controller (as tests/e2e). It sets up
# what the end-to-end test does — a swapfile, a memory cgroup with a 256 MiB limit, a workload of
# half-compressible pages — and runs these phases while `zswaptop record -i 1 --top 5` records:
#
#   0–10 s    idle, zswap enabled (max_pool_percent 20)
#   10–55 s   the workload fills 896 MiB in the cgroup (~640 MiB goes to zswap), then keeps
#             touching its pages (swap-ins, and the pages stored again)
#   55–100 s  max_pool_percent 1: the pool is over its limit, refusals, writeback to the swapfile
#   100–125 s max_pool_percent back to 20: recovery (stores accepted again)
#   125–150 s the workload ends: the pool drains
#
# Everything it changed is restored in a trap (zswap parameters, swap, the cgroup, debugfs).
# Refuses to run while the end-to-end test runs or while any swap is on.
#
#   sudo scripts/record-demo.sh [OUT]    (OUT defaults to assets/demo.zsr)
#   sudo ZSWAPTOP=target/debug/zswaptop scripts/record-demo.sh
set -euo pipefail

cd "$(dirname "$0")/.."
OUT=${1:-assets/demo.zsr}
SWAPFILE=/swapfile-zswaptop-demo
CG=/sys/fs/cgroup/memory/zswaptop-demo
P=/sys/module/zswap/parameters

[ "$(id -u)" = 0 ] || { echo "record-demo: needs root" >&2; exit 1; }
if pgrep -fa 'deps/e2e-' >/dev/null; then
    echo "record-demo: the end-to-end test is running; try again when it is done" >&2
    exit 1
fi
if [ -n "$(swapon --show --noheadings)" ]; then
    echo "record-demo: swap is already on; this script wants a machine without swap" >&2
    exit 1
fi
[ -d /sys/fs/cgroup/memory ] || { echo "record-demo: no cgroup v1 memory controller" >&2; exit 1; }

# ZSWAPTOP=path/to/zswaptop uses that binary instead of a release build.
BIN=${ZSWAPTOP:-target/release/zswaptop}
[ -n "${ZSWAPTOP:-}" ] || cargo build --release --locked --bin zswaptop

saved_enabled=$(cat $P/enabled)
saved_pool=$(cat $P/max_pool_percent)
saved_shrinker=$(cat $P/shrinker_enabled)
mounted_debugfs=0
workload=
recorder=

restore() {
    set +e
    [ -n "$recorder" ] && kill -INT "$recorder" 2>/dev/null && wait "$recorder"
    [ -n "$workload" ] && kill "$workload" 2>/dev/null && wait "$workload" 2>/dev/null
    if [ -d "$CG" ]; then
        for pid in $(cat "$CG/cgroup.procs"); do kill -9 "$pid"; done
        sleep 0.5
        rmdir "$CG"
    fi
    swapoff "$SWAPFILE" 2>/dev/null
    rm -f "$SWAPFILE"
    echo "$saved_pool" >$P/max_pool_percent
    echo "$saved_shrinker" >$P/shrinker_enabled
    echo "$saved_enabled" >$P/enabled
    [ "$mounted_debugfs" = 1 ] && umount /sys/kernel/debug
    echo "record-demo: restored (swap: $(swapon --show --noheadings | wc -l) devices, zswap enabled=$(cat $P/enabled))"
}
trap restore EXIT INT TERM

if ! mountpoint -q /sys/kernel/debug; then
    mount -t debugfs none /sys/kernel/debug
    mounted_debugfs=1
fi
fallocate -l 1G "$SWAPFILE"
chmod 600 "$SWAPFILE"
mkswap -q "$SWAPFILE"
swapon "$SWAPFILE"
echo Y >$P/enabled
echo 20 >$P/max_pool_percent
echo N >$P/shrinker_enabled
mkdir "$CG"
echo $((256 << 20)) >"$CG/memory.limit_in_bytes"

rm -f "$OUT"
"$BIN" record -i 1 --top 5 --duration 150 "$OUT" &
recorder=$!
sleep 10

# The workload: 896 MiB of pages half random, half zero (about 2:1 for lzo), then a byte of each
# page rewritten pass after pass (more than the limit each pass: swap-ins, and the pages stored
# again) until killed.
python3 - <<'EOF' &
import os, sys, time
with open("/sys/fs/cgroup/memory/zswaptop-demo/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
PAGE = 4096
SIZE = 896 << 20
block = b"".join(os.urandom(PAGE // 2) + bytes(PAGE // 2) for _ in range(256))
buf = bytearray(SIZE)
for i in range(0, SIZE, len(block)):
    buf[i:i + len(block)] = block
time.sleep(5)
while True:
    for i in range(0, len(buf), PAGE):
        buf[i] ^= 1
    time.sleep(1)
EOF
workload=$!
sleep 45
echo "record-demo: max_pool_percent 1 (writeback)"
echo 1 >$P/max_pool_percent
sleep 45
echo "record-demo: max_pool_percent 20 (recovery)"
echo 20 >$P/max_pool_percent
sleep 25
echo "record-demo: the workload ends"
kill "$workload" 2>/dev/null || true
wait "$workload" 2>/dev/null || true
workload=
wait "$recorder"
recorder=
ls -l "$OUT"
