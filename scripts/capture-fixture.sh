#!/usr/bin/env bash
# capture-fixture.sh - copy, read-only, every kernel file zswaptop reads into a
# tree that mirrors /, so that `zswaptop --root DEST` reads DEST/proc/meminfo,
# DEST/sys/module/zswap/parameters/*, ... instead of the live system.
#
# Usage: scripts/capture-fixture.sh DEST [--pid PID]...
#
#   DEST        directory to create (must not exist, or be empty)
#   --pid PID   also save /proc/PID/status as DEST/proc/PID/status (repeatable)
#
# Run it as root to include /sys/kernel/debug/zswap (debugfs is root-only).
# Every source is copied only if it exists and is readable; missing ones are
# skipped silently. Nothing under /proc or /sys is ever written.
#
# Redactions (so captures can be shared):
#   - proc/sys/kernel/hostname reads `fixture-host`, and every occurrence of the
#     real hostname (as a whole word) in the captured files is replaced by it;
#   - proc/cmdline keeps the kernel parameters only: the arguments passed to
#     init (everything after a lone `--`) are dropped.
#
# Besides the copies it writes DEST/pagesize (`getconf PAGESIZE`) and
# DEST/uname-r (`uname -r`).
set -euo pipefail

readonly REDACTED_HOST="fixture-host"

usage() {
    echo "usage: $0 DEST [--pid PID]..." >&2
    exit 2
}

die() {
    echo "capture-fixture: $*" >&2
    exit 1
}

dest=""
pids=()
while (($# > 0)); do
    case "$1" in
        --pid)
            (($# >= 2)) || usage
            [[ "$2" =~ ^[0-9]+$ ]] || die "--pid needs a numeric process id, got '$2'"
            pids+=("$2")
            shift 2
            ;;
        --pid=*)
            p="${1#--pid=}"
            [[ "$p" =~ ^[0-9]+$ ]] || die "--pid needs a numeric process id, got '$p'"
            pids+=("$p")
            shift
            ;;
        -h | --help)
            sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        -*)
            usage
            ;;
        *)
            [[ -z "$dest" ]] || usage
            dest="$1"
            shift
            ;;
    esac
done
[[ -n "$dest" ]] || usage

dest="$(realpath -m -- "$dest")"
case "$dest" in
    / | /proc | /proc/* | /sys | /sys/*) die "refusing to write into $dest" ;;
esac
if [[ -e "$dest" ]]; then
    [[ -d "$dest" ]] || die "$dest exists and is not a directory"
    [[ -z "$(ls -A -- "$dest")" ]] || die "$dest is not empty"
fi
mkdir -p -- "$dest"

# copy_file SRC: copy the live file SRC to DEST/SRC if it is a readable regular
# file. Uses cat, not cp: debugfs and sysfs files report size 0 (or 4096).
copy_file() {
    local src="$1" out tmp
    [[ -f "$src" && -r "$src" ]] || return 0
    out="$dest$src"
    mkdir -p "$(dirname "$out")"
    tmp="$out.partial"
    if cat -- "$src" >"$tmp" 2>/dev/null; then
        mv -f -- "$tmp" "$out"
    else
        # e.g. write-only sysfs attributes: open() for reading fails even for root
        rm -f -- "$tmp"
    fi
}

# copy_dir_files DIR: every readable regular file directly inside DIR.
copy_dir_files() {
    local dir="$1" f
    [[ -d "$dir" ]] || return 0
    for f in "$dir"/*; do
        copy_file "$f"
    done
}

shopt -s nullglob

# /proc
for f in meminfo zoneinfo vmstat swaps diskstats cmdline crypto mounts uptime pressure/memory \
    sys/kernel/osrelease sys/kernel/hostname; do
    copy_file "/proc/$f"
done
for f in swappiness page-cluster vfs_cache_pressure watermark_scale_factor \
    dirty_ratio dirty_background_ratio dirty_bytes dirty_background_bytes \
    dirty_expire_centisecs dirty_writeback_centisecs \
    overcommit_memory overcommit_ratio min_free_kbytes; do
    copy_file "/proc/sys/vm/$f"
done

# transparent hugepages
copy_file /sys/kernel/mm/transparent_hugepage/enabled
copy_file /sys/kernel/mm/transparent_hugepage/defrag

# zswap: module parameters (world-readable) and debugfs counters (root only)
copy_dir_files /sys/module/zswap/parameters
copy_dir_files /sys/kernel/debug/zswap

# cgroups (--cgroups, the cgroups view): the files read per cgroup, as deep as zswaptop walks
# (12 levels). cgroup v2 at /sys/fs/cgroup or /sys/fs/cgroup/unified; the v1 memory controller.
for f in /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/unified/cgroup.controllers; do
    copy_file "$f"
done
if [[ -f /sys/fs/cgroup/cgroup.controllers ]]; then
    v2=/sys/fs/cgroup
else
    v2=/sys/fs/cgroup/unified
fi
if [[ -d "$v2" ]]; then
    while IFS= read -r -d '' dir; do
        for f in memory.stat memory.current memory.swap.current memory.zswap.max \
            memory.zswap.writeback memory.events memory.pressure memory.high memory.max \
            memory.swap.max; do
            copy_file "$dir/$f"
        done
    done < <(find "$v2" -maxdepth 12 -type d -print0)
fi
if [[ -d /sys/fs/cgroup/memory && ! -f /sys/fs/cgroup/memory/cgroup.controllers ]]; then
    while IFS= read -r -d '' dir; do
        for f in memory.stat memory.usage_in_bytes memory.memsw.usage_in_bytes \
            memory.limit_in_bytes memory.oom_control; do
            copy_file "$dir/$f"
        done
    done < <(find /sys/fs/cgroup/memory -maxdepth 12 -type d -print0)
fi

# zram devices
for dev in /sys/block/zram*; do
    for f in mm_stat io_stat bd_stat comp_algorithm recomp_algorithm disksize \
        initstate backing_dev stat dev; do
        copy_file "$dev/$f"
    done
done

# generic block statistics of every non-loop block device
for dev in /sys/block/*; do
    case "${dev##*/}" in
        loop*) continue ;;
    esac
    copy_file "$dev/stat"
done

# block devices under swap: whether each disk is rotational, its partitions,
# the names of the devices a dm/md device is stacked on (slaves/), and the
# dm name behind /dev/mapper paths
for dev in /sys/block/*; do
    name="${dev##*/}"
    case "$name" in
        loop*) continue ;;
    esac
    for f in queue/rotational dev uevent dm/name; do
        copy_file "$dev/$f"
    done
    for slave in "$dev"/slaves/*; do
        mkdir -p "$dest$dev/slaves/${slave##*/}"
    done
    for part in "$dev/$name"*; do
        [[ -f "$part/partition" ]] || continue
        for f in partition dev uevent stat; do
            copy_file "$part/$f"
        done
    done
done

# /sys/dev/block/MAJ:MIN: recreated as symlinks to the captured device
# directories (relative, so they resolve inside DEST), which lets a swap
# partition's device number be followed to its disk
for link in /sys/dev/block/*; do
    [[ -L "$link" ]] || continue
    target="$(realpath -- "$link")"
    name="${target##*/}"
    parent="$(basename -- "$(dirname -- "$target")")"
    if [[ -d "$dest/sys/block/$name" ]]; then
        rel="../../block/$name"
    elif [[ -d "$dest/sys/block/$parent/$name" ]]; then
        rel="../../block/$parent/$name"
    else
        continue
    fi
    mkdir -p "$dest/sys/dev/block"
    ln -sfn -- "$rel" "$dest/sys/dev/block/${link##*/}"
done

# processes asked for
for pid in "${pids[@]}"; do
    if [[ -r "/proc/$pid/status" ]]; then
        copy_file "/proc/$pid/status"
    else
        echo "capture-fixture: warning: /proc/$pid/status is not readable, skipped" >&2
    fi
done

getconf PAGESIZE >"$dest/pagesize"
uname -r >"$dest/uname-r"

# proc/cmdline: keep the kernel parameters, drop the arguments handed to init.
if [[ -f "$dest/proc/cmdline" ]]; then
    sed -E -e 's/(^| )--( .*)?$//' "$dest/proc/cmdline" >"$dest/proc/cmdline.tmp"
    mv -f -- "$dest/proc/cmdline.tmp" "$dest/proc/cmdline"
fi

# Hostname redaction.
real_host=""
if [[ -r /proc/sys/kernel/hostname ]]; then
    real_host="$(cat /proc/sys/kernel/hostname)"
fi
if [[ -z "$real_host" ]]; then
    real_host="$(uname -n)"
fi
if [[ -f "$dest/proc/sys/kernel/hostname" ]]; then
    echo "$REDACTED_HOST" >"$dest/proc/sys/kernel/hostname"
fi
if [[ -n "$real_host" && "$real_host" != "$REDACTED_HOST" ]]; then
    # Escape the hostname for an ERE, then replace it wherever it stands as a
    # whole word (not inside a longer name such as "nr_vmscan" for host "vm").
    host_re="$(printf '%s' "$real_host" | sed -e 's/[][\.*^$+?(){}|/]/\\&/g')"
    mapfile -d '' -t captured < <(find "$dest" -type f -print0)
    for f in "${captured[@]}"; do
        # zoneinfo holds no names, and its "vm stats threshold" lines would lose their
        # "vm" on a host called vm.
        [[ "$f" == "$dest/proc/zoneinfo" ]] && continue
        grep -qF -- "$real_host" "$f" || continue
        cp -- "$f" "$f.orig"
        sed -E -i \
            -e ":again" \
            -e "s/(^|[^[:alnum:]_-])${host_re}([^[:alnum:]_-]|$)/\\1${REDACTED_HOST}\\2/" \
            -e "t again" \
            "$f"
        if ! cmp -s -- "$f" "$f.orig"; then
            echo "capture-fixture: note: hostname replaced in ${f#"$dest"/}" >&2
        fi
        rm -f -- "$f.orig"
    done
fi

echo "captured $(find "$dest" -type f | wc -l) files into $dest"
