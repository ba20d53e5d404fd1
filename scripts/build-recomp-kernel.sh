#!/usr/bin/env bash
# Build a kernel with zram recompression (CONFIG_ZRAM_MULTI_COMP) for the kernel matrix.
#
#   scripts/build-recomp-kernel.sh            # then:
#   ZSWAPTOP_KERNELS=custom ZSWAPTOP_KERNEL_CUSTOM=~/.cache/zswaptop/kernels/custom/recomp \
#     cargo test --test kernels
#
# None of the kernels users run from Debian (12's 6.1, 13's 6.12, sid's newest, arm64) is built
# with CONFIG_ZRAM_MULTI_COMP: their zram has no recomp_algorithm and no recompress, so the
# zram-recompress-idle finding cannot be seen live there (the matrix says so). This builds Debian
# 13's own source (the linux-source-6.12 package, through the same private apt as
# scripts/kernel-matrix.sh) with x86_64's defconfig, everything the guest's scenarios need built in
# (zswap with zsmalloc/zbud/z3fold, zram with writeback and recompression and every backend, brd,
# virtio, cgroup v2 memory, PSI), and no modules. About 25 minutes of one core's time; done
# once, kept in ${ZSWAPTOP_KERNEL_CACHE:-~/.cache/zswaptop/kernels}/custom/recomp. Not part of CI:
# a developer's route to the one check Debian's kernels cannot give.
#
# BUILD_DIR (default: the cache's build-recomp) keeps the source and the objects.
# Exit status: 0 built (or already there), 3 cannot be done here (SKIPPED: says why), 1 failed.
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${ZSWAPTOP_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zswaptop/kernels}
build=${BUILD_DIR:-$cache/build-recomp}
dest=$cache/custom/recomp

skip() { echo "SKIPPED: the recompression kernel: $*"; exit 3; }
say() { echo "build-recomp-kernel: $*"; }

for tool in make:make gcc:gcc flex:flex bison:bison bc:bc dpkg-deb:dpkg apt-get:apt xz:xz-utils; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || skip "${tool%%:*} is missing (Debian package ${tool#*:})"
done
[ -f /usr/include/libelf.h ] || skip "libelf.h is missing (Debian package libelf-dev)"
[ -f /usr/include/openssl/ssl.h ] || skip "openssl headers are missing (Debian package libssl-dev)"

if [ -f "$dest/.complete" ]; then
  say "already built: $(ls "$dest"/boot/vmlinuz-*)"
  exit 0
fi

# The source: Debian 13's linux-source-6.12, through kernel-matrix.sh's private apt (its lists
# are made by that script: run the matrix once first).
apt_dir=$cache/apt
[ -f "$apt_dir/sources.list" ] || skip "no $apt_dir/sources.list: run scripts/kernel-matrix.sh 6.12 once first"
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
  -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
mkdir -p "$build"
src=$(ls -d "$build"/linux-source-6.12 2>/dev/null || true)
if [ -z "$src" ]; then
  (cd "$build" && apt-get "${apt_opts[@]}" -qq download linux-source-6.12/trixie >/dev/null 2>&1) \
    || skip "could not download linux-source-6.12 from trixie"
  deb=$(ls -t "$build"/linux-source-6.12_*.deb | head -n 1)
  say "unpacking $(basename "$deb")"
  dpkg-deb -x "$deb" "$build/pkg"
  tar -xaf "$build"/pkg/usr/src/linux-source-6.12.tar.xz -C "$build"
  src=$build/linux-source-6.12
fi

cd "$src"
make -s defconfig >/dev/null
./scripts/config \
  -e SWAP -e ZSWAP -d ZSWAP_DEFAULT_ON -e ZPOOL -e ZSMALLOC -e ZBUD -e Z3FOLD_DEPRECATED -e Z3FOLD \
  -e ZRAM -e ZRAM_WRITEBACK -e ZRAM_MULTI_COMP -e ZRAM_MEMORY_TRACKING -e ZRAM_TRACK_ENTRY_ACTIME \
  -e ZRAM_BACKEND_LZ4 -e ZRAM_BACKEND_LZ4HC -e ZRAM_BACKEND_ZSTD -e ZRAM_BACKEND_DEFLATE \
  -e ZRAM_BACKEND_LZO -e ZRAM_BACKEND_842 \
  -e CRYPTO_LZO -e CRYPTO_LZ4 -e CRYPTO_LZ4HC -e CRYPTO_ZSTD -e CRYPTO_DEFLATE -e CRYPTO_842 \
  -e BLK_DEV_RAM --set-val BLK_DEV_RAM_COUNT 4 --set-val BLK_DEV_RAM_SIZE 65536 \
  -e VIRTIO -e VIRTIO_PCI -e VIRTIO_BLK -e BLK_DEV_INITRD -e RD_GZIP -e DEVTMPFS -e TMPFS \
  -e CGROUPS -e MEMCG -e PSI -e CGROUP_SCHED -e BLK_CGROUP -e DEBUG_FS -e PROC_FS -e SYSFS \
  -e SERIAL_8250 -e SERIAL_8250_CONSOLE -e TRANSPARENT_HUGEPAGE \
  -d DRM -d SOUND -d USB_SUPPORT -d WLAN -d WIRELESS -d NETDEVICES -d INPUT_MOUSE -d HID \
  -d MEDIA_SUPPORT -d AGP -d EXT4_FS -d BTRFS_FS -d NFS_FS -d XFS_FS \
  -d DEBUG_INFO -d DEBUG_INFO_DWARF5 -d DEBUG_INFO_BTF -d KVM -d SECURITY_SELINUX \
  --set-str LOCALVERSION "-zswaptop-recomp"
make -s olddefconfig >/dev/null
grep -qx CONFIG_ZRAM_MULTI_COMP=y .config || { echo "CONFIG_ZRAM_MULTI_COMP did not stay set" >&2; exit 1; }
say "make bzImage ($(nproc) jobs)"
make -s -j"$(nproc)" bzImage
ver=$(make -s kernelrelease)

# The layout kernel-matrix.sh reads: boot/vmlinuz-VER, boot/config-VER, and lib/modules/VER
# with an empty modules.dep (nothing is a module: guest.sh's insmods say "built in").
rm -rf "$dest"
mkdir -p "$dest/boot" "$dest/lib/modules/$ver"
cp arch/x86/boot/bzImage "$dest/boot/vmlinuz-$ver"
cp .config "$dest/boot/config-$ver"
: >"$dest/lib/modules/$ver/modules.dep"
cp modules.builtin "$dest/lib/modules/$ver/" 2>/dev/null || true
touch "$dest/.complete"
say "built $dest/boot/vmlinuz-$ver"
