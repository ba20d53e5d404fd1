# The kernel matrix's cgroup v2 scenario (busybox sh), sourced by guest.sh after its own
# scenarios, with cgroup2 mounted and the memory controller on for the root's children, swap on
# /dev/vda and zswap enabled. It uses guest.sh's say and fail, /bin/wl and /bin/zswaptop.
#
# 1. zt-high: memory.high 8M, swap allowed; wl fills 16 MiB in it and exits (high events, the
#    excess reclaimed into zswap, memory pressure).
# 2. zt-oom: memory.max 8M, memory.swap.max 0; while `zswaptop --once --json --cgroups -i 4`
#    runs, wl asks for 32 MiB in it and is OOM-killed there (the only process of the cgroup).
#
# Leaves /out/cgroup: before/ and after/ (fixture trees of the two cgroups' files, read right
# before and right after zswaptop), once.json, once.err, once.rc, once.txt (--once --cgroups, the
# text), seconds, and with CG_FIXTURE=1 /out/fixtures/cgroup (the whole tree zswaptop reads,
# for tests/fixtures). tests/kernels/cgroup.rs checks them.
cg_scenario() {
  cgo=/out/cgroup
  cgstart=$(cut -d. -f1 /proc/uptime)
  base=/sys/fs/cgroup
  mkdir -p "$cgo" "$base/zt-high" "$base/zt-oom" || { fail "cgroup: mkdir"; return 1; }
  # cgt WHAT: the guest's uptime after each step, for the time budget (console).
  cgt() { say "cgroup: $1 at $(cut -d' ' -f1 /proc/uptime) s"; }
  cgt "start"
  # cgcap DIR: a fixture tree (sys/fs/cgroup) of the root's controllers and the two cgroups.
  cgcap() {
    for g in zt-high zt-oom; do
      mkdir -p "$1/sys/fs/cgroup/$g"
      for f in "$base/$g"/memory.*; do
        case ${f##*/} in memory.reclaim|memory.oom.group|memory.numa_stat) ;;
          *) cat "$f" > "$1/sys/fs/cgroup/$g/${f##*/}" 2>/dev/null ;; esac
      done
    done
    cat "$base/cgroup.controllers" > "$1/sys/fs/cgroup/cgroup.controllers"
    cat "$base/memory.stat" > "$1/sys/fs/cgroup/memory.stat" 2>/dev/null
    cat /proc/pressure/memory > "$1/pressure-memory" 2>/dev/null
  }
  echo 8M > "$base/zt-high/memory.high" || fail "cgroup: memory.high"
  sh -c "echo \$\$ > $base/zt-high/cgroup.procs; exec /bin/wl 16" < /dev/null > /tmp/cg-high.out 2>&1
  grep -q filled /tmp/cg-high.out || fail "cgroup: the workload over memory.high did not fill: $(tail -n 1 /tmp/cg-high.out)"
  echo 8M > "$base/zt-oom/memory.max" || fail "cgroup: memory.max"
  echo 0 > "$base/zt-oom/memory.swap.max" || fail "cgroup: memory.swap.max"
  cgt "filled over memory.high"
  cgcap "$cgo/before"
  /bin/zswaptop --once --json --cgroups -i 4 > "$cgo/once.json" 2> "$cgo/once.err" &
  zt=$!
  # zswaptop's first read is done well before this (its window is 4 s).
  sleep 2
  sh -c "echo \$\$ > $base/zt-oom/cgroup.procs; exec /bin/wl 32" < /dev/null > /tmp/cg-oom.out 2>&1
  echo "$?" > "$cgo/oom.rc"
  cgt "OOM kill"
  wait "$zt"
  echo "$?" > "$cgo/once.rc"
  cgt "zswaptop's window"
  cgcap "$cgo/after"
  # A fixture tree of this moment (tests/fixtures/linux-KERNEL-guest-cgroup: the kill, the
  # throttled cgroup, their limits) when fixtures are being saved (ZSWAPTOP_KERNELS_SAVE_FIXTURES
  # on the host: CG_FIXTURE=1), where the initramfs has the capture script.
  if [ "$CG_FIXTURE" = 1 ] && [ -x /bin/capture-fixture ]; then
    /bin/bash /bin/capture-fixture /out/fixtures/cgroup > /out/fixture-cgroup.log 2>&1 \
      || fail "capture-fixture cgroup: $(tail -n 1 /out/fixture-cgroup.log)"
  fi
  /bin/zswaptop --once --cgroups > "$cgo/once.txt" 2>> "$cgo/once.err"
  cgt "after, --once"
  rmdir "$base/zt-high" "$base/zt-oom" 2>/dev/null
  echo $(( $(cut -d. -f1 /proc/uptime) - cgstart )) > "$cgo/seconds"
  say "cgroup scenario ($(cat "$cgo/seconds") s, the workload in zt-oom exited $(cat "$cgo/oom.rc"))"
}
cg_scenario
