#!/usr/bin/env bash
# Run a command on a machine whose swap is all live and in use: zswap on, a zram swap device
# and a swap file on disk, and a workload in a memory cgroup (v1 or v2) held under its limit so
# that its pages go out through zswap to zram and the disk, for as long as the command runs.
# Bounded: the workload touches 384 MiB under a 192 MiB limit (the rest swapped), far from
# the machine's OOM. Everything is undone on exit, whatever the command does (trap): the
# workload and its cgroup, both swap areas, zswap's setting.
#
#   scripts/loaded-machine.sh cargo test --test integration tui_tmux::
#
# Root only. Holds /tmp/zswaptop-host.lock for the whole run (the machine's swap is shared).
# Exit status: the command's; 2 when the machine cannot be set up.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "loaded-machine: needs root" >&2; exit 2; }
command -v python3 >/dev/null || { echo "loaded-machine: python3 missing" >&2; exit 2; }

exec 9>/tmp/zswaptop-host.lock
flock 9

swapfile=/var/tmp/zswaptop-loaded.swap
zswap=/sys/module/zswap/parameters/enabled
zswap_was=""
zram=""
cgroup=""
load=""

undo() {
  set +e
  if [ -n "$load" ]; then
    kill "$load" 2>/dev/null
    wait "$load" 2>/dev/null
  fi
  if [ -n "$cgroup" ] && [ -d "$cgroup" ]; then
    rmdir "$cgroup"
  fi
  if [ -n "$zram" ]; then
    swapoff "/dev/$zram" 2>/dev/null
    echo "${zram#zram}" >/sys/class/zram-control/hot_remove
  fi
  if grep -q "^$swapfile " /proc/swaps; then
    swapoff "$swapfile"
  fi
  rm -f "$swapfile"
  if [ -n "$zswap_was" ]; then
    echo "$zswap_was" >"$zswap"
  fi
}
trap undo EXIT
trap 'exit 130' INT TERM

# zswap on, in front of both areas.
if [ -w "$zswap" ]; then
  zswap_was=$(cat "$zswap")
  echo Y >"$zswap"
else
  echo "loaded-machine: no zswap in this kernel: zram and disk swap only" >&2
fi

# A zram swap device, first in priority.
if [ ! -e /sys/class/zram-control/hot_add ]; then
  modprobe zram num_devices=0 2>/dev/null || true
fi
if [ -e /sys/class/zram-control/hot_add ]; then
  zram="zram$(cat /sys/class/zram-control/hot_add)"
  echo 64M >"/sys/block/$zram/disksize"
  for _ in $(seq 50); do [ -b "/dev/$zram" ] && break; sleep 0.1; done
  mkswap -q "/dev/$zram" >/dev/null
  swapon -p 100 "/dev/$zram"
else
  echo "loaded-machine: no zram in this kernel: zswap and disk swap only" >&2
fi

# A swap file on disk, after zram.
rm -f "$swapfile"
dd if=/dev/zero of="$swapfile" bs=1M count=512 status=none
chmod 600 "$swapfile"
mkswap -q "$swapfile" >/dev/null
swapon -p 10 "$swapfile"

# The workload, in a memory cgroup of its own.
if [ -d /sys/fs/cgroup/memory ]; then
  cgroup=/sys/fs/cgroup/memory/zswaptop-loaded
  mkdir -p "$cgroup"
  echo $((192 << 20)) >"$cgroup/memory.limit_in_bytes"
else
  cgroup=/sys/fs/cgroup/zswaptop-loaded
  grep -qw memory /sys/fs/cgroup/cgroup.subtree_control ||
    echo +memory >/sys/fs/cgroup/cgroup.subtree_control
  mkdir -p "$cgroup"
  echo $((192 << 20)) >"$cgroup/memory.max"
fi
python3 - "$cgroup/cgroup.procs" <<'PY' &
import os, sys, time
with open(sys.argv[1], "w") as f:
    f.write(str(os.getpid()))
# 384 MiB of pages that compress about 3:1, written again and again: a working set twice the
# cgroup's limit keeps pages going out to swap and coming back in.
page = (b"zswaptop loaded machine " * 200)[:3000] + os.urandom(1096)
mem = bytearray(384 << 20)
pages = len(mem) // 4096
while True:
    for i in range(pages):
        at = i * 4096
        mem[at:at + 4096] = page
        mem[at:at + 8] = i.to_bytes(8, "little")
    time.sleep(0.05)
PY
load=$!

# Until pages are in both areas and the workload is past its limit.
for _ in $(seq 300); do
  used=$(awk 'NR > 1 { s += $4 } END { print s + 0 }' /proc/swaps)
  [ "$used" -ge $((64 << 10)) ] && break
  kill -0 "$load" 2>/dev/null || { echo "loaded-machine: the workload ended" >&2; exit 2; }
  sleep 0.1
done
echo "== loaded machine: $(awk 'NR > 1 { printf "%s %s KiB used; ", $1, $4 }' /proc/swaps)zswap $(cat "$zswap" 2>/dev/null || echo absent)" >&2

set +e
"$@"
status=$?
set -e
exit "$status"
