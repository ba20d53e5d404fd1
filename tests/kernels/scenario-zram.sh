# zram writeback and recompression (sourced by guest.sh, which holds the workload $WL in its
# cgroup, page_out, bring_back, fail and say). About 10 s of guest time:
#   zram0 (32 MiB) with a brd ram disk (32 MiB) as its backing device, the workload paged out
#   into it, `echo all > idle`: moment zram-wb-idle (zram-writeback-idle expected);
#   `echo idle > writeback`: moment zram-wb-done (bd_stat moved, the finding quiet).
#   Where the kernel has recomp_algorithm (CONFIG_ZRAM_MULTI_COMP): zstd set as the secondary
#   algorithm, moment zram-rc-idle (zram-recompress-idle expected); `echo type=idle >
#   recompress`: moment zram-rc-done (quiet).
# Each moment is /out/zram/NAME: before/ and after/ (mm_stat, bd_stat, backing_dev,
# recomp_algorithm, block_state.sum: slots, idle in RAM, written back, recompressed), once.json
# (`--once --json -i 1`: a window for bd_stat).
# /out/facts gets `zramwb yes|no` and `zramrecomp yes|no`.

Z=/sys/block/zram0
ZD=/sys/kernel/debug/zram/zram0

zcap() {
  mkdir -p "$1"
  for f in mm_stat bd_stat backing_dev recomp_algorithm writeback_limit_enable writeback_limit; do
    [ -f "$Z/$f" ] && cat "$Z/$f" > "$1/$f" 2>/dev/null
  done
  if [ -f "$ZD/block_state" ]; then
    awk '{ n++; f = $3; if (f ~ /i/ && f !~ /[ws]/) i++; if (f ~ /w/) w++; if (f ~ /[rn]/) r++ }
         END { print n + 0, i + 0, w + 0, r + 0 }' "$ZD/block_state" > "$1/block_state.sum"
  fi
}

zsnap() {
  d=/out/zram/$1
  mkdir -p "$d"
  zcap "$d/before"
  /bin/zswaptop --once --json -i 1 > "$d/once.json" 2> "$d/once.err"
  echo $? > "$d/once.rc"
  zcap "$d/after"
  echo "$1" >> /out/zram/moments
  say "zram moment $1 ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
}

zram_scenario() {
  say "zram scenario ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
  mkdir -p /out/zram
  if [ ! -f "$Z/backing_dev" ]; then
    echo "zramwb no" >> /out/facts
    say "zram: no backing_dev (CONFIG_ZRAM_WRITEBACK off): no writeback scenario"
    return 0
  fi
  echo "zramwb yes" >> /out/facts
  # A 32 MiB ram disk to write back to: brd again with one disk of that size.
  rmmod brd 2>/dev/null
  [ -f /modules/brd.ko ] && insmod /modules/brd.ko rd_nr=1 rd_size=32768
  [ -b /dev/ram0 ] || { fail "zram: no /dev/ram0 (brd)"; return 0; }
  echo N > "$P/enabled"
  swapoff /dev/zram0 2>/dev/null
  echo 1 > "$Z/reset"
  echo /dev/ram0 > "$Z/backing_dev" || { fail "zram: backing_dev /dev/ram0"; return 0; }
  RECOMP=no
  if [ -f "$Z/recomp_algorithm" ] && echo "algo=zstd" > "$Z/recomp_algorithm" 2>/dev/null; then
    RECOMP=yes
  fi
  echo "zramrecomp $RECOMP" >> /out/facts
  echo 32M > "$Z/disksize" || { fail "zram: disksize"; return 0; }
  mkswap /dev/zram0 >/dev/null && /bin/wl swapon /dev/zram0 100 || { fail "zram: swapon"; return 0; }
  say "zram0 set up with /dev/ram0 behind it ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
  page_out
  echo all > "$Z/idle"
  zsnap zram-wb-idle
  echo idle > "$Z/writeback" || fail "zram: echo idle > writeback"
  zsnap zram-wb-done
  if [ "$RECOMP" = yes ]; then
    # The pages written back are on the ram disk: fresh ones to recompress.
    bring_back
    swapoff /dev/vda
    /bin/wl swapon /dev/zram0 100
    page_out
    echo all > "$Z/idle"
    zsnap zram-rc-idle
    echo type=idle > "$Z/recompress" || fail "zram: echo type=idle > recompress"
    zsnap zram-rc-done
    /bin/wl swapon /dev/vda 10
  fi
  bring_back
  swapoff /dev/zram0 2>/dev/null
  echo 1 > "$Z/reset"
  say "zram scenario done ($(( $(cut -d. -f1 /proc/uptime) - START )) s)"
}

zram_scenario
