#!/usr/bin/env bash
# Take assets/dashboard.png from a real run under zswap pressure (root only).
#
# Sets up, for a couple of minutes: a 1.5 GiB swapfile, zswap enabled (lz4 when available), and a
# python3 process in a memory cgroup v1 limited to 256 MiB that writes ~600 MiB of
# half-compressible data and then keeps touching it, so pages flow in and out of zswap. The
# dashboard runs beside it in a 120x40 tmux pane; the pane, colours included, is rendered to PNG
# by scripts/ansi2png.py. Everything is put back on exit (trap), whatever happens.
#
#   sudo scripts/screenshot.sh [SECONDS_BEFORE_CAPTURE] [OUT.png]
#
# ZSWAPTOP_BIN=PATH runs that binary (a debug build, say) instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."

WAIT=${1:-90}
OUT=${2:-assets/dashboard.png}
SWAPFILE=/swapfile-zswaptop-screenshot
CG=/sys/fs/cgroup/memory/zswaptop-screenshot
P=/sys/module/zswap/parameters
SOCK=zswaptop-screenshot-$$

[ "$(id -u)" = 0 ] || { echo "screenshot: needs root (swapon, zswap parameters, cgroups)" >&2; exit 2; }
[ -d /sys/fs/cgroup/memory ] || { echo "screenshot: needs the cgroup v1 memory controller" >&2; exit 2; }
[ -e "$SWAPFILE" ] && { echo "screenshot: $SWAPFILE exists (another run?)" >&2; exit 2; }
command -v tmux >/dev/null || apt-get install -y tmux >/dev/null
python3 -c 'import PIL' 2>/dev/null || pip install --quiet pillow

saved_enabled=$(cat $P/enabled)
saved_comp=$(cat $P/compressor)
saved_pct=$(cat $P/max_pool_percent)
WORKER=""
# debugfs for zswap's counters (pool limit hits, rejects), unmounted again if it was not.
MOUNTED_DEBUGFS=""
cleanup() {
    set +e
    tmux -L "$SOCK" kill-server 2>/dev/null
    [ -n "$WORKER" ] && kill "$WORKER" 2>/dev/null && wait "$WORKER" 2>/dev/null
    if [ -d "$CG" ]; then
        for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
        sleep 0.5
        rmdir "$CG"
    fi
    grep -q "^$SWAPFILE " /proc/swaps && swapoff "$SWAPFILE"
    rm -f "$SWAPFILE"
    echo "$saved_comp" > $P/compressor
    echo "$saved_pct" > $P/max_pool_percent
    echo "$saved_enabled" > $P/enabled
    [ -n "$MOUNTED_DEBUGFS" ] && umount /sys/kernel/debug
    echo "screenshot: restored swap, zswap, cgroups and debugfs" >&2
}
trap cleanup EXIT INT TERM HUP

if ! mountpoint -q /sys/kernel/debug; then
    mount -t debugfs none /sys/kernel/debug && MOUNTED_DEBUGFS=1
fi

# Swap and zswap.
fallocate -l 1536M "$SWAPFILE"
chmod 600 "$SWAPFILE"
mkswap -q "$SWAPFILE" >/dev/null
swapon "$SWAPFILE"
grep -qw lz4 /proc/crypto && echo lz4 > $P/compressor || true
echo 20 > $P/max_pool_percent
echo Y > $P/enabled

# The dashboard first, so its graphs see the pool grow.
BIN=${ZSWAPTOP_BIN:-target/release/zswaptop}
[ -n "${ZSWAPTOP_BIN:-}" ] || cargo build --release --quiet
tmux -L "$SOCK" -u new-session -d -s shot -x 120 -y 40 "env LANG=C.UTF-8 TERM=tmux-256color $BIN"

# The workload, in a 256 MiB cgroup.
mkdir "$CG"
echo $((256 * 1024 * 1024)) > "$CG/memory.limit_in_bytes"
python3 - <<'PY' &
import os, random, time
# Move ourselves into the cgroup before allocating.
open("/sys/fs/cgroup/memory/zswaptop-screenshot/cgroup.procs", "w").write(str(os.getpid()))
PAGE = 4096
rnd = random.Random(42)
chunks = []
# ~600 MiB over ~30 s: each page half random, half zeros (about 2:1 for the compressor).
for i in range(600):
    buf = bytearray(1 << 20)
    for off in range(0, len(buf), PAGE):
        buf[off:off + PAGE // 2] = rnd.randbytes(PAGE // 2)
    chunks.append(buf)
    time.sleep(0.05)
# Then keep touching a few pages at random: loads from zswap, stores back when evicted.
end = time.time() + 600
while time.time() < end:
    for _ in range(200):
        c = chunks[rnd.randrange(len(chunks))]
        off = rnd.randrange(0, len(c), PAGE)
        c[off] = (c[off] + 1) & 0xFF
    time.sleep(0.05)
PY
WORKER=$!

sleep "$WAIT"
# Graphs: the last 2 minutes rather than 10, so the run fills them.
tmux -L "$SOCK" send-keys -t shot '[' '['
sleep 1.5
mkdir -p "$(dirname "$OUT")"
tmux -L "$SOCK" capture-pane -e -p -t shot > "${OUT%.png}.ansi.txt"
python3 scripts/ansi2png.py "${OUT%.png}.ansi.txt" "$OUT" --cols 120 --rows 40
rm -f "${OUT%.png}.ansi.txt"
echo "screenshot: wrote $OUT"
