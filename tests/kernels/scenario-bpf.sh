# Swap-in latency by tier (sourced by guest.sh at its end, after the main workload exited: it has
# wl_start, wl_cmd, page_out, fail and say). About 60 s of guest time under TCG.
# Three moments, each one workload paged out and read back once with vm.page-cluster=0 (one page
# a fault, so the programs' fault counts and the kernel's page counts compare one to one), while
# `zswaptop --once --json -i T` measures (the programs count only while loaded):
#   bpf-zswap: zswap in front of /dev/vda, 16 MiB;
#   bpf-kprobe: the same with the kprobe fallback (`[bpf] probes = "kprobes"`);
#   bpf-disk:  zswap off, /dev/vdc alone: a virtio disk throttled to 200 requests a second
#              (kernel-matrix.sh: throttling.iops-total=200, 5 ms a read), 4 MiB;
#   bpf-zram:  zswap off, zram0 alone, 16 MiB.
#   bpf-cache: as bpf-zswap with vm.page-cluster=3: swap readahead brings up to 8 pages a read, and
#              the faults on the pages it brought are swap-cache hits (the kernel's swap_ra_hit).
# zswaptop's first sample does not wait for the programs (3-4 s to load under TCG): its interval
# runs from their load, which the scenario waits for before the read; T covers load and read.
#   bpf-overhead: the probes' own cost: the same 16 MiB paged out to zswap and read back, each page
#              timed by the workload (`wl timed`), with no programs, the floor (`wl floor`: an
#              empty fentry and fexit on do_swap_page, what any program timing each fault costs
#              before it does anything), the fentry set and the kprobe set, in three rounds, each
#              in another order (a later run in a round is not always the same set), ROUNDS
#              times (3 under KVM): /out/bpf/bpf-overhead/{none,floor,fentry,kprobes}, and
#              rounds (how many each set was to run).
#   bpf-finding: zswap at its limit (max_pool_percent 1) in front of the throttled /dev/vdc, 12 MiB
#              paged out, then written back in under a memory.max that leaves 1 MiB of room: every
#              page brought in pushes another out into the full pool (pool_limit_hit) and onto the
#              disk (or refuses it: the mix's random pages do not compress), while the disk's pages
#              wait 5 ms: `disk-swapin-wait` must fire, naming a refusal counter that rose
#              (zswap.before / zswap.after: debugfs around zswaptop's whole interval).
#   bpf-store-zswap, bpf-store-disk, bpf-store-zram: the store side, over a page-out with the
#              programs loaded first: zswap in front of /dev/vda (16 MiB), the throttled /dev/vdc
#              alone (2 MiB), zram0 alone (16 MiB); vmstat.before / vmstat.after around the
#              page-out and until no page is under writeback.
# Each moment is /out/bpf/NAME: once.json, vmstat.before / vmstat.after (right around the read),
# stats (run_time_ns and run_cnt of each program: /proc/PID/fdinfo with kernel.bpf_stats_enabled).
# /out/facts gets `bpf yes` (the scenario ran) or `bpf no-btf` (no kernel BTF), and `bpf_disk yes|no`.

B=/out/bpf
mkdir -p "$B"
bpf_progs() { ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'bpf-prog'; }
# bpf_stats PID: run_time_ns and run_cnt of each of PID's programs, a line each.
bpf_stats() {
  for f in /proc/$1/fd/*; do
    case $(readlink "$f") in *bpf-prog*) grep -E '^(run_time_ns|run_cnt)' "/proc/$1/fdinfo/${f##*/}" | tr '\n' ' '; echo ;; esac
  done
}

# bpf_loaded PID: wait until PID's programs are loaded (their count stays put for 1 s; at most
# 15 s: a TCG guest loads them in 3-4 s; none after that: the kernel refused them).
bpf_loaded() {
  last=-1; same=0; n=0
  while [ $same -lt 5 ] && [ $n -lt 75 ] && [ -d "/proc/$1" ]; do
    c=$(bpf_progs "$1")
    if [ "$c" = "$last" ] && [ "$c" -gt 0 ]; then same=$((same + 1)); else same=0; fi
    last=$c; n=$((n + 1)); sleep 0.2
  done
}

# bpf_moment NAME MIB SECONDS [CONFIG [prom]]: page the workload out, measure its read; with
# `prom`, a second zswaptop loaded first writes the exposition over the same read (prom.txt: the
# histogram counts from its own load, before the read).
bpf_moment() {
  d=$B/$1
  mkdir -p "$d"
  WL_MIB=$2
  wl_start || return 1
  page_out
  if [ -n "$4" ]; then conf="--config $4"; else conf=--no-config; fi
  pp=
  if [ "$5" = prom ]; then
    /bin/zswaptop --no-config --once --format prometheus -i "$3" > "$d/prom.txt" 2> "$d/prom.err" &
    pp=$!
    bpf_loaded $pp
  fi
  /bin/zswaptop $conf --once --json -i "$3" > "$d/once.json" 2> "$d/once.err" &
  zp=$!
  # The programs are loaded: the counters run from there.
  bpf_loaded $zp
  sleep 1
  cat /proc/vmstat > "$d/vmstat.before"
  wl_cmd read >/dev/null
  cat /proc/vmstat > "$d/vmstat.after"
  bpf_stats $zp > "$d/stats"
  wait $zp
  echo $? > "$d/once.rc"
  [ -n "$pp" ] && wait $pp
  echo exit >&3
  wait "$WL" 2>/dev/null
  say "bpf moment $1: $last programs ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
}

# bpf_store NAME MIB SECONDS: the programs loaded, then the workload paged out (the stores).
bpf_store() {
  d=$B/$1
  mkdir -p "$d"
  WL_MIB=$2
  wl_start || return 1
  /bin/zswaptop --no-config --once --json -i "$3" > "$d/once.json" 2> "$d/once.err" &
  zp=$!
  bpf_loaded $zp
  sleep 1
  cat /proc/vmstat > "$d/vmstat.before"
  page_out
  # A disk's writes complete after the page-out returns: until none is under writeback (20 s).
  n=0
  while [ "$(grep '^nr_writeback ' /proc/vmstat | cut -d' ' -f2)" != 0 ] && [ $n -lt 100 ]; do
    sleep 0.2; n=$((n + 1))
  done
  cat /proc/vmstat > "$d/vmstat.after"
  # zswaptop's interval must outlast the page-out, or it counted only part of it (an exited
  # zswaptop is a zombie until the wait below).
  case $(awk '/^State:/ { print $2 }' "/proc/$zp/status" 2>/dev/null) in
    R|S|D) ;;
    *) echo "zswaptop's interval ($3 s) ended before the page-out did" > "$d/late" ;;
  esac
  bpf_stats $zp > "$d/stats"
  wait $zp
  echo $? > "$d/once.rc"
  echo exit >&3
  wait "$WL" 2>/dev/null
  say "bpf store moment $1 ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
}

# The workload's own time a page with no programs, the floor, the fentry set and the kprobe set.
bpf_overhead() {
  d=$B/bpf-overhead
  mkdir -p "$d"
  WL_MIB=16
  wl_start || return 1
  # ROUNDS (kernel-matrix.sh: 3 under KVM, where the budget is checked, else 1) times the three
  # orders; the host checks that every set ran that many rounds.
  orders=
  r=0
  while [ $r -lt "${ROUNDS:-1}" ]; do
    orders="$orders|none floor fentry kprobes|kprobes fentry floor none|fentry none kprobes floor"
    r=$((r + 1))
  done
  echo $((r * 3)) > "$d/rounds"
  IFS='|'
  set -- ${orders#|}
  unset IFS
  for order in "$@"; do
    for set in $order; do
      page_out
      zp=
      if [ $set = floor ]; then
        # The last round's answer goes first: the shell forks before the child truncates the
        # file, and a grep in between read the old "floor attached" (then the new, empty file:
        # one round in CI and one here lost its floor run that way).
        rm -f /tmp/floor.out
        /bin/wl floor > /tmp/floor.out 2>&1 &
        zp=$!
        # Reading and walking the kernel's BTF takes a few seconds under TCG, more with a second
        # guest on the same cores: up to 60 s, and a round that never heard says so in
        # floor.status.
        n=0
        while ! grep -qs '^floor ' /tmp/floor.out && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
        grep -qs '^floor ' /tmp/floor.out || echo "floor: no answer in 60 s" > /tmp/floor.out
        cat /tmp/floor.out >> "$d/floor.status"
        grep -qs '^floor attached' /tmp/floor.out || { kill $zp 2>/dev/null; wait $zp 2>/dev/null; continue; }
      elif [ $set != none ]; then
        printf '[bpf]\nprobes = "%s"\n' "$([ $set = fentry ] && echo auto || echo kprobes)" > /tmp/set.toml
        /bin/zswaptop --config /tmp/set.toml --once --json -i 600 > "$d/$set.json" 2>/dev/null &
        zp=$!
        bpf_loaded $zp
      fi
      wl_cmd timed >/dev/null
      tail -n 1 /tmp/wl.out >> "$d/$set"
      [ -n "$zp" ] && { kill $zp; wait $zp 2>/dev/null; }
    done
  done
  echo exit >&3
  wait "$WL" 2>/dev/null
  say "bpf overhead: $(( $(cut -d. -f1 /proc/uptime) - START )) s"
}

# zswap at its limit while swap-ins wait on the throttled disk (the finding's live check).
bpf_finding() {
  d=$B/bpf-finding
  mkdir -p "$d"
  mkswap /dev/vdc >/dev/null && /bin/wl swapon /dev/vdc 10 || { fail "swapon /dev/vdc"; return 1; }
  echo 1 > "$P/max_pool_percent"
  [ -f "$P/shrinker_enabled" ] && echo N > "$P/shrinker_enabled"
  echo Y > "$P/enabled"
  WL_MIB=12
  wl_start || return 1
  page_out
  # `touch` dirties each page it brings back, so the page it pushes out is a new store.
  echo $(( $(cat "$CG/memory.current") + 1048576 )) > "$CG/memory.max"
  grep -r . /sys/kernel/debug/zswap > "$d/zswap.before" 2>/dev/null
  /bin/zswaptop --no-config --once --json -i 20 > "$d/once.json" 2> "$d/once.err" &
  zp=$!
  bpf_loaded $zp
  sleep 1
  wl_cmd touch >/dev/null
  wait $zp
  echo $? > "$d/once.rc"
  grep -r . /sys/kernel/debug/zswap > "$d/zswap.after" 2>/dev/null
  echo max > "$CG/memory.max"
  echo exit >&3
  wait "$WL" 2>/dev/null
  swapoff /dev/vdc
  echo N > "$P/enabled"
  echo 50 > "$P/max_pool_percent"
  say "bpf finding: $(( $(cut -d. -f1 /proc/uptime) - START )) s"
}

bpf_scenario() {
  say "bpf scenario ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
  # Without the kernel's BTF no fentry program can load (a kernel built without
  # CONFIG_DEBUG_INFO_BTF, like scripts/build-recomp-kernel.sh's): nothing to measure.
  if [ ! -f /sys/kernel/btf/vmlinux ]; then
    echo bpf no-btf >> /out/facts
    say "bpf: no /sys/kernel/btf/vmlinux: no scenario"
    return 0
  fi
  echo bpf yes >> /out/facts
  # What bpf_ktime_get_ns and the workload's clock read (under TCG an emulated device's is slow).
  echo "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" >> /out/facts
  echo 0 > /proc/sys/vm/page-cluster
  echo 1 > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null
  for dev in $(tail -n +2 /proc/swaps | cut -d' ' -f1); do swapoff "$dev"; done
  echo 50 > "$P/max_pool_percent"
  echo Y > "$P/enabled"
  /bin/wl swapon /dev/vda 10
  bpf_moment bpf-zswap 16 20 "" prom
  printf '[bpf]\nprobes = "kprobes"\n' > /tmp/kprobes.toml
  bpf_moment bpf-kprobe 16 10 /tmp/kprobes.toml
  # Swap readahead (up to 8 pages a read): the pages it brought in are swap-cache hits.
  echo 3 > /proc/sys/vm/page-cluster
  bpf_moment bpf-cache 16 10 ""
  echo 0 > /proc/sys/vm/page-cluster
  bpf_store bpf-store-zswap 16 25
  # The workload's own timing, without bpf_stats' two clock reads a program run.
  echo 0 > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null
  bpf_overhead
  echo 1 > /proc/sys/kernel/bpf_stats_enabled 2>/dev/null
  swapoff /dev/vda
  echo N > "$P/enabled"
  if [ -b /dev/vdc ]; then
    echo bpf_disk yes >> /out/facts
    mkswap /dev/vdc >/dev/null && /bin/wl swapon /dev/vdc 10 || fail "swapon /dev/vdc"
    bpf_moment bpf-disk 4 16
    bpf_store bpf-store-disk 2 25
    swapoff /dev/vdc
    bpf_finding
  else
    echo bpf_disk no >> /out/facts
  fi
  if [ -d /sys/block/zram0 ]; then
    echo 1 > /sys/block/zram0/reset
    echo 64M > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null \
      && /bin/wl swapon /dev/zram0 100 && bpf_moment bpf-zram 16 10 \
      && bpf_store bpf-store-zram 16 25
    swapoff /dev/zram0 2>/dev/null
  fi
  echo Y > "$P/enabled"
  echo 3 > /proc/sys/vm/page-cluster
  say "bpf scenario done ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
}

bpf_scenario
