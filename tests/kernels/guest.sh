#!/bin/sh
# /init of the kernel matrix's guests (busybox sh). scripts/kernel-matrix.sh packs it with busybox,
# the modules the scenarios need (modules.order: their load order), a static zswaptop and the
# workload (wl, tests/kernels/workload.c).
#
# It runs, on whatever this kernel offers (each found by presence, here, never by version):
#   zswap on every allocator x every compressor, the advisor asked per allocator first;
#   swap-ins that read (pages stay in zswap and the swap cache without exclusive loads) and that
#   write; writeback through a small max_pool_percent (and the shrinker where it exists); zram
#   with every algorithm it offers; zswap in front of zram and the disk together; no root.
# With QUICK=1 (another architecture, emulated more slowly: the arm64 guest) only the defaults:
#   zswap on its default allocator and compressor, zram with its default algorithm, zswap in front
#   of zram and the disk, no root; no swap-ins nor writeback scenario.
# ROUNDS (1, or 3 under KVM): how many times scenario-bpf.sh's overhead moment runs its three
#   orders of the program sets.
# Each moment is a directory under /out/snaps: before/ and after/ (the kernel's files, read right
# before and right after zswaptop), once.json (--once --json --cgroups), once.txt (--once),
# pre/ (the files before the page-out, for the achieved ratio). /out goes back to the host as a
# tar on the second disk (/dev/vdb); the console carries the progress.
export PATH=/bin
[ "$GUEST_TRACE" = 1 ] && set -x
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
ln -s /proc/self/fd /dev/fd
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mkdir -p /out/snaps
exec >/dev/console 2>&1

say() { echo "guest: $*"; }
fail() { echo "GUEST-ERROR: $*"; echo "GUEST-ERROR: $*" >> /out/errors; }

WL_MIB=${WL_MIB:-16}
QUICK=${QUICK:-0}
ROUNDS=${ROUNDS:-1}
START=$(cut -d. -f1 /proc/uptime)
say "kernel $(uname -r), $(grep MemTotal /proc/meminfo)"

for m in $(cat /modules.order); do
  insmod "/modules/$m" 2>/dev/null || say "insmod $m failed (built in or not needed?)"
done

P=/sys/module/zswap/parameters
D=/sys/kernel/debug/zswap
CG=/sys/fs/cgroup/wl

# What the kernel offers, written down for the host.
{
  echo "release $(uname -r)"
  for f in "$P"/*; do echo "param ${f##*/} $(cat "$f")"; done
} > /out/facts

mkswap /dev/vda >/dev/null
/bin/wl swapon /dev/vda 10 || fail "swapon /dev/vda"
echo +memory > /sys/fs/cgroup/cgroup.subtree_control || fail "no memory controller on cgroup2"
mkdir -p "$CG"
echo nobody:x:65534:65534:nobody:/:/bin/sh > /etc/passwd
echo nogroup:x:65534: > /etc/group

# cap DIR: every file the host compares against.
cap() {
  mkdir -p "$1/proc" "$1/params" "$1/zswap" "$1/zram0" "$1/cg"
  for f in meminfo vmstat swaps zoneinfo; do cat "/proc/$f" > "$1/proc/$f"; done
  for f in "$P"/*; do cat "$f" > "$1/params/${f##*/}"; done
  for f in "$D"/*; do [ -f "$f" ] && cat "$f" > "$1/zswap/${f##*/}"; done
  [ -f /sys/block/zram0/mm_stat ] && cat /sys/block/zram0/mm_stat > "$1/zram0/mm_stat"
  for f in "$CG"/memory.*; do
    case ${f##*/} in memory.reclaim|memory.oom.group) ;; *) cat "$f" > "$1/cg/${f##*/}" 2>/dev/null ;; esac
  done
}

# snap NAME [user]: the kernel, zswaptop --once --json --cgroups, the kernel again; then --once.
snap() {
  d=/out/snaps/$1
  mkdir -p "$d"
  cap "$d/before"
  if [ "$2" = nobody ]; then
    su -s /bin/sh nobody -c "/bin/zswaptop --once --json --cgroups" > "$d/once.json" 2> "$d/once.err"
  else
    /bin/zswaptop --once --json --cgroups > "$d/once.json" 2> "$d/once.err"
  fi
  echo $? > "$d/once.rc"
  cap "$d/after"
  /bin/zswaptop --once > "$d/once.txt" 2>> "$d/once.err"
  echo "$1" >> /out/snaps.list
  say "snap $1 ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
}

# The workload, in the cgroup, driven through a FIFO.
mkfifo /tmp/wl.in
wl_start() {
  rm -f /tmp/wl.out
  sh -c "echo \$\$ > $CG/cgroup.procs; exec /bin/wl $WL_MIB" < /tmp/wl.in > /tmp/wl.out 2>&1 &
  WL=$!
  exec 3> /tmp/wl.in
  n=0
  while ! grep -q filled /tmp/wl.out 2>/dev/null; do
    sleep 1; n=$((n + 1)); [ $n -gt 300 ] && { fail "workload never filled"; return 1; }
  done
  return 0
}
# wl_cmd CMD: one command, waits for its answer line.
wl_cmd() {
  before=$(wc -l < /tmp/wl.out)
  echo "$1" >&3
  n=0
  while [ "$(wc -l < /tmp/wl.out)" -le "$before" ]; do
    sleep 1; n=$((n + 1)); [ $n -gt 300 ] && { fail "workload: no answer to $1"; return 1; }
  done
  tail -n 1 /tmp/wl.out
}
# Reclaim the cgroup until (almost) all of the workload is out of RAM (at most 20 passes).
page_out() {
  i=0
  while [ $i -lt 20 ]; do
    echo "$(( WL_MIB * 2 ))M" > "$CG/memory.reclaim" 2>/dev/null
    rss=$(grep VmRSS "/proc/$WL/status" | tr -s ' ' | cut -d' ' -f2)
    [ "${rss:-0}" -lt $(( WL_MIB * 1024 / 50 + 400 )) ] && break
    i=$((i + 1))
  done
  sleep 1
}
# Everything back in RAM, and zswap's and zram's pools emptied: swapoff reads every page back.
bring_back() {
  for dev in $(tail -n +2 /proc/swaps | cut -d' ' -f1); do swapoff "$dev"; done
  /bin/wl swapon /dev/vda 10
}
# A fixture tree of this moment (scripts/capture-fixture.sh), for tests/fixtures/.
fixture() {
  [ -x /bin/capture-fixture ] || { say "no capture-fixture in this initramfs: no fixture $1"; return 0; }
  /bin/bash /bin/capture-fixture "/out/fixtures/$1" --pid "$WL" >/out/fixture-$1.log 2>&1 \
    || fail "capture-fixture $1: $(tail -n 1 /out/fixture-$1.log)"
}
setp() { echo "$2" > "$P/$1" 2>/dev/null && [ "$(cat "$P/$1")" = "$2" ]; }

echo Y > "$P/enabled"
[ -f "$P/max_pool_percent" ] && echo 50 > "$P/max_pool_percent"
[ -f "$P/accept_threshold_percent" ] && echo 90 > "$P/accept_threshold_percent"
[ -f "$P/shrinker_enabled" ] && echo N > "$P/shrinker_enabled"
DEFAULT_ZPOOL=$(cat "$P/zpool" 2>/dev/null)
DEFAULT_COMP=$(cat "$P/compressor")

ALLOCATORS=""
if [ -f "$P/zpool" ]; then
  for a in zbud z3fold zsmalloc; do setp zpool "$a" && ALLOCATORS="$ALLOCATORS $a"; done
else
  ALLOCATORS=zsmalloc
fi
COMPRESSORS=""
for c in lzo lzo-rle lz4 lz4hc zstd deflate 842; do setp compressor "$c" && COMPRESSORS="$COMPRESSORS $c"; done
if [ "$QUICK" = 1 ]; then
  ALLOCATORS=${DEFAULT_ZPOOL:-zsmalloc}
  COMPRESSORS=$DEFAULT_COMP
fi
echo "allocators $ALLOCATORS" >> /out/facts
echo "compressors $COMPRESSORS" >> /out/facts
say "zswap allocators:$ALLOCATORS; compressors:$COMPRESSORS"

wl_start || { tar -cf /dev/vdb -C /out . ; poweroff -f; }

# 1. zswap on every allocator x compressor; the advisor's prediction per allocator.
for a in $ALLOCATORS; do
  [ -f "$P/zpool" ] && setp zpool "$a"
  setp compressor "$DEFAULT_COMP"
  /bin/zswaptop advise --pid "$WL" --json > "/out/advise-zswap-$a.json" 2> "/out/advise-zswap-$a.err"
  /bin/zswaptop advise --pid "$WL" > "/out/advise-zswap-$a.txt" 2>&1
  say "advise on $a done ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
  for c in $COMPRESSORS; do
    setp compressor "$c" || continue
    name="zswap-$a-$c"
    mkdir -p "/out/snaps/$name"
    cap "/out/snaps/$name/pre"
    page_out
    snap "$name"
    bring_back
  done
done
[ -n "$DEFAULT_ZPOOL" ] && setp zpool "$DEFAULT_ZPOOL"
setp compressor "$DEFAULT_COMP"

# 2. Swap-ins: read back (the pages stay in zswap where loads are not exclusive), then written.
if [ "$QUICK" != 1 ]; then
page_out
snap swapin-0-out
fixture loaded
wl_cmd read >/dev/null
snap swapin-1-read
wl_cmd touch >/dev/null
snap swapin-2-touch
bring_back

# 3. Writeback: a pool limit of 1 % of RAM, the shrinker on where the kernel has one.
echo 1 > "$P/max_pool_percent"
[ -f "$P/shrinker_enabled" ] && echo Y > "$P/shrinker_enabled"
page_out
snap writeback
wl_cmd touch >/dev/null
bring_back
echo 50 > "$P/max_pool_percent"
[ -f "$P/shrinker_enabled" ] && echo N > "$P/shrinker_enabled"
fi

# 4. zram with every algorithm it offers (zswap off: zram alone).
echo N > "$P/enabled"
if [ -d /sys/block/zram0 ] || { [ -f /sys/class/zram-control/hot_add ] && cat /sys/class/zram-control/hot_add >/dev/null; }; then
  ZALGS=$(tr -d '[]' < /sys/block/zram0/comp_algorithm)
  [ "$QUICK" = 1 ] && ZALGS=$(sed -n 's/.*\[\([^]]*\)\].*/\1/p' /sys/block/zram0/comp_algorithm)
  echo "zram $ZALGS" | tr '\n' ' ' >> /out/facts; echo >> /out/facts
  swapoff /dev/vda
  first=1
  for z in $ZALGS; do
    echo 1 > /sys/block/zram0/reset
    echo "$z" > /sys/block/zram0/comp_algorithm 2>/dev/null || continue
    echo 64M > /sys/block/zram0/disksize || { fail "zram disksize"; continue; }
    mkswap /dev/zram0 >/dev/null && /bin/wl swapon /dev/zram0 100 || { fail "swapon zram0 $z"; continue; }
    if [ $first = 1 ]; then
      /bin/zswaptop advise --pid "$WL" --json > /out/advise-zram.json 2> /out/advise-zram.err
      first=0
    fi
    mkdir -p "/out/snaps/zram-$z"
    cap "/out/snaps/zram-$z/pre"
    page_out
    snap "zram-$z"
    swapoff /dev/zram0
  done
  /bin/wl swapon /dev/vda 10
  # 5. zswap in front of zram and the disk, a small pool so that both get pages.
  echo 1 > /sys/block/zram0/reset
  echo 8M > /sys/block/zram0/disksize
  mkswap /dev/zram0 >/dev/null && /bin/wl swapon /dev/zram0 100
  echo Y > "$P/enabled"
  echo 2 > "$P/max_pool_percent"
  page_out
  snap combined
  fixture tiers
  cp "/out/snaps/combined/once.txt" /out/once-combined.txt
  bring_back
  echo 50 > "$P/max_pool_percent"
else
  echo "zram none" >> /out/facts
  echo Y > "$P/enabled"
fi

# zram writeback and recompression: tests/kernels/scenario-zram.sh (checked by zram.rs).
[ "$QUICK" != 1 ] && [ -d /sys/block/zram0 ] && [ -f /scenario-zram.sh ] && . /scenario-zram.sh

# 6. No root: the same moment as uid 65534 (debugfs and other processes' memory unreadable).
echo Y > "$P/enabled"
page_out
snap noroot nobody
wl_cmd verify > /out/verify
bring_back
echo exit >&3
[ -f /scenario-cgroup.sh ] && . /scenario-cgroup.sh
[ "$QUICK" != 1 ] && [ -f /scenario-bpf.sh ] && . /scenario-bpf.sh

say "done in $(( $(cut -d. -f1 /proc/uptime) - START )) s"
tar -cf /dev/vdb -C /out .
sync
echo "GUEST-DONE"
poweroff -f
