#!/usr/bin/env bash
# Boot one of the kernels users run under QEMU and run the kernel matrix's scenarios in it.
#
#   ZSWAPTOP_KERNELS_BIN=path/to/static/zswaptop scripts/kernel-matrix.sh KERNEL OUT
#
# KERNEL is 6.1 (Debian 12, bookworm), 6.12 (Debian 13, trixie) or newest (sid), each x86_64 under
# qemu-system-x86_64; or arm64: Debian 13's arm64 kernel under qemu-system-aarch64 (-machine virt
# -cpu max), with busybox-static:arm64 from the same registry, the workload cross-built
# (gcc-aarch64-linux-gnu) and ZSWAPTOP_KERNELS_BIN the static arm64 zswaptop; its guest runs the
# scenarios on the defaults only (QUICK=1: zswap's allocator and compressor, zram's algorithm,
# then zswap + zram + disk, no root), since emulating another architecture is slower. The kernel comes
# from Debian's registry through an apt of its own (its sources list, lists and cache under the
# cache directory; the system's apt configuration is never read or changed), unpacked once and
# kept in ${ZSWAPTOP_KERNEL_CACHE:-~/.cache/zswaptop/kernels}. The guest boots from an initramfs
# made here: busybox-static, the modules the scenarios need (with their dependencies, in
# modprobe's order, decompressed: newer kernels ship .ko.xz), the static zswaptop, the workload
# (tests/kernels/workload.c, built static) and tests/kernels/guest.sh as /init. A virtio disk is
# its swap, a second one carries the results back as a tar; the serial console, the progress.
#
# KERNEL custom: a kernel built elsewhere, never downloaded: ZSWAPTOP_KERNEL_CUSTOM names its
# directory, with boot/vmlinuz-VERSION and boot/config-VERSION and everything the scenarios need
# built in (no modules: guest.sh says "built in" where an insmod finds nothing). Debian's
# kernels are built without CONFIG_ZRAM_MULTI_COMP, so zram recompression runs live only in such
# a kernel: scripts/build-recomp-kernel.sh builds one from Debian 13's linux-source-6.12.
#
# ZSWAPTOP_KERNELS_ACCEL=kvm boots the x86_64 kernels with `-accel kvm -cpu host` instead of TCG
# (the default), on a machine whose /dev/kvm is hardware virtualization (kvm_intel or kvm_amd
# loaded). It exists for the swap-in probes' cost, which is checked against its budget only there
# (tests/kernels/bpf.rs): under TCG an empty program pair alone costs about the budget and a round
# moves by ±15 %. Under KVM the overhead moment runs its three orders three times (ROUNDS=3). A
# /dev/kvm served by PVM (kvm_pvm: software virtualization on a cloud VM with no VMX/SVM) boots only
# kernels built as PVM guests; Debian's stop in their decompressor ("KVM internal error.
# Suberror: 1", an emulation failure), so that is SKIPPED with the reason. arm64 is always TCG.
#
# Leaves OUT/console.log and OUT/results/ (guest.sh says what is in it), OUT/kernel (the
# package's version), OUT/accel (tcg or kvm) and OUT/seconds. Exit status: 0 the guest ran to its end, 3 this kernel
# cannot be tried here (the line starting SKIPPED: says why), 1 anything else.
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:?usage: kernel-matrix.sh 6.1|6.12|newest|arm64|custom OUT}
out=${2:?usage: kernel-matrix.sh 6.1|6.12|newest|arm64|custom OUT}
bin=${ZSWAPTOP_KERNELS_BIN:?set ZSWAPTOP_KERNELS_BIN to a static zswaptop}
cache=${ZSWAPTOP_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/zswaptop/kernels}
timeout_s=${ZSWAPTOP_KERNELS_TIMEOUT:-600}
wl_mib=${ZSWAPTOP_KERNELS_WORKLOAD_MIB:-16}

skip() { echo "SKIPPED: kernel $kernel: $*"; exit 3; }
say() { echo "kernel-matrix $kernel: $*"; }

arch=amd64
case $kernel in
  6.1) suite=bookworm ;;
  6.12) suite=trixie ;;
  newest) suite=sid ;;
  arm64) suite=trixie arch=arm64 ;;
  custom)
    suite=""
    custom=${ZSWAPTOP_KERNEL_CUSTOM:-}
    [ -n "$custom" ] || skip "set ZSWAPTOP_KERNEL_CUSTOM to the directory of a built kernel (boot/vmlinuz-*)"
    [ -d "$custom/boot" ] || skip "no boot/ in $custom" ;;
  *) echo "unknown kernel '$kernel' (6.1, 6.12, newest, arm64 or custom)" >&2; exit 1 ;;
esac

accel=${ZSWAPTOP_KERNELS_ACCEL:-tcg}
# Another architecture is emulated whatever was asked.
[ "$arch" = amd64 ] || accel=tcg
case $accel in
  tcg) ;;
  kvm)
    [ -r /dev/kvm ] && [ -w /dev/kvm ] || skip "ZSWAPTOP_KERNELS_ACCEL=kvm: no /dev/kvm that this user can open"
    if [ ! -d /sys/module/kvm_intel ] && [ ! -d /sys/module/kvm_amd ]; then
      [ -d /sys/module/kvm_pvm ] && skip "ZSWAPTOP_KERNELS_ACCEL=kvm: this machine's /dev/kvm is PVM (kvm_pvm, no VMX or SVM), which boots only kernels built as PVM guests: Debian's stop in their decompressor (KVM internal error, an emulation failure); unset it to run under TCG"
      skip "ZSWAPTOP_KERNELS_ACCEL=kvm: neither kvm_intel nor kvm_amd is loaded (no hardware virtualization)"
    fi ;;
  *) echo "ZSWAPTOP_KERNELS_ACCEL: '$accel' is neither tcg nor kvm" >&2; exit 1 ;;
esac

if [ "$arch" = amd64 ]; then
  tools="qemu-system-x86_64:qemu-system-x86 busybox:busybox-static cc:gcc"
else
  tools="qemu-system-aarch64:qemu-system-arm qemu-aarch64-static:qemu-user-static aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu"
fi
for tool in $tools depmod:kmod modprobe:kmod cpio:cpio xz:xz-utils apt-get:apt dpkg-deb:dpkg; do
  command -v "${tool%%:*}" >/dev/null 2>&1 || skip "${tool%%:*} is missing (Debian package ${tool#*:})"
done
[ -x "$bin" ] || skip "no zswaptop at $bin"
if [ "$arch" = amd64 ] && ! file -L "$(command -v busybox)" 2>/dev/null | grep -q 'statically linked'; then
  ldd "$(command -v busybox)" >/dev/null 2>&1 && skip "busybox is not the static build (install busybox-static)"
fi

if [ -z "$suite" ]; then
  # A kernel built elsewhere: its directory as it is.
  root=$(cd "$custom" && pwd)
  version=$(basename "$(ls "$root"/boot/vmlinuz-* | head -n 1)")
  version=${version#vmlinuz-}
  exec 9>/dev/null
else
# --- the kernel package, through an apt of our own ---------------------------------------------
# arm64's lists apart (one suite, that architecture only): the x86_64 kernels' stay as they are.
apt_dir=$cache/apt
[ "$arch" = amd64 ] || apt_dir=$cache/apt-$arch
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || skip "no $keyring (Debian package debian-archive-keyring)"
if [ "$arch" = amd64 ]; then
  for s in bookworm trixie sid; do
    echo "deb [signed-by=$keyring] http://deb.debian.org/debian $s main"
  done > "$apt_dir/sources.list"
else
  echo "deb [arch=$arch signed-by=$keyring] http://deb.debian.org/debian $suite main" > "$apt_dir/sources.list"
fi
apt_opts=(-o "Dir::Etc::sourcelist=$apt_dir/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
  -o "Acquire::IndexTargets::deb::DEP-11::DefaultEnabled=false"
  -o "Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled=false"
  -o "Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled=false"
  -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
[ "$arch" = amd64 ] || apt_opts+=(-o "APT::Architecture=$arch" -o "APT::Architectures::=$arch")
# The lists are read again once a day (flock: kernels are fetched in parallel).
exec 9>"$apt_dir/lock"
flock 9
if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
  say "apt-get update (private lists in $apt_dir)"
  apt-get "${apt_opts[@]}" -qq update >"$out.apt.log" 2>&1 \
    || { cat "$out.apt.log" >&2; skip "Debian's registry is not reachable (apt-get update failed)"; }
fi
meta=$(apt-cache "${apt_opts[@]}" show "linux-image-$arch/$suite" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1)
image=$(printf '%s\n' "$meta" | tr ',' '\n' | sed -n 's/^ *\(linux-image-[^ ]*\).*/\1/p' | head -n 1)
[ -n "$image" ] || skip "the registry serves no linux-image-$arch in $suite"
# sid splits the image: a stub that depends on linux-binary-* (vmlinuz) and linux-modules-*.
deps=$(apt-cache "${apt_opts[@]}" show "$image" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1)
pkgs=$(printf '%s\n' "$deps" | tr ',' '\n' | sed -n 's/^ *\(linux-\(binary\|modules\)-[^ ]*\).*/\1/p')
[ -n "$pkgs" ] || pkgs=$image
version=${image#linux-image-}
root=$cache/unpacked/$version
if [ ! -f "$root/.complete" ]; then
  rm -rf "$root"
  mkdir -p "$root"
  for p in $pkgs; do
    (cd "$apt_dir/cache/archives" && apt-get "${apt_opts[@]}" -qq download "$p" >/dev/null 2>&1) \
      || skip "could not download $p from $suite"
    deb=$(ls -t "$apt_dir/cache/archives/${p}_"*.deb | head -n 1)
    say "unpacking $(basename "$deb")"
    dpkg-deb -x "$deb" "$root"
  done
  touch "$root/.complete"
fi
fi

# Another architecture's busybox: Debian's busybox-static for it, unpacked beside the kernel.
busybox=$(command -v busybox || true)
if [ "$arch" != amd64 ]; then
  bb_version=$(apt-cache "${apt_opts[@]}" show "busybox-static/$suite" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
  [ -n "$bb_version" ] || skip "the registry serves no busybox-static for $arch in $suite"
  bb_root=$cache/unpacked/busybox-static-$bb_version-$arch
  if [ ! -f "$bb_root/.complete" ]; then
    rm -rf "$bb_root"
    mkdir -p "$bb_root"
    (cd "$apt_dir/cache/archives" && apt-get "${apt_opts[@]}" -qq download "busybox-static/$suite" >/dev/null 2>&1) \
      || skip "could not download busybox-static for $arch from $suite"
    deb=$(ls -t "$apt_dir"/cache/archives/busybox-static_*.deb | head -n 1)
    say "unpacking $(basename "$deb")"
    dpkg-deb -x "$deb" "$bb_root"
    touch "$bb_root/.complete"
  fi
  # trixie's package has it in usr/bin, bookworm's in bin.
  busybox=$( (ls "$bb_root"/usr/bin/busybox "$bb_root"/bin/busybox 2>/dev/null || true) | head -n 1)
  [ -n "$busybox" ] || { echo "no busybox in $bb_root" >&2; exit 1; }
fi
flock -u 9 2>/dev/null || true

vmlinuz=$( (ls "$root"/boot/vmlinuz-* "$root"/usr/lib/modules/*/vmlinuz 2>/dev/null || true) | head -n 1)
[ -n "$vmlinuz" ] || { echo "no vmlinuz in $root" >&2; exit 1; }
moddir=$( (ls -d "$root"/lib/modules/* "$root"/usr/lib/modules/* 2>/dev/null || true) | head -n 1)
ver=$(basename "$moddir")
# depmod looks under BASE/lib/modules: newer packages put them in usr/lib.
if [ ! -e "$root/lib" ]; then ln -s usr/lib "$root/lib"; fi
[ -f "$root/lib/modules/$ver/modules.dep" ] || depmod -b "$root" "$ver"

# --- the initramfs ------------------------------------------------------------------------------
mkdir -p "$out"
rm -rf "$out/initramfs" "$out/results"
ir=$out/initramfs
mkdir -p "$ir/bin" "$ir/modules" "$ir/proc" "$ir/sys" "$ir/dev" "$ir/tmp" "$ir/etc" "$ir/out"
cp "$busybox" "$ir/bin/busybox"
if [ "$arch" = amd64 ]; then
  applets=$("$ir/bin/busybox" --list)
else
  applets=$(qemu-aarch64-static "$ir/bin/busybox" --list)
fi
for applet in $applets; do
  [ "$applet" = busybox ] || ln -sf busybox "$ir/bin/$applet"
done
cp "$bin" "$ir/bin/zswaptop"
cp tests/kernels/guest.sh "$ir/init"
chmod 755 "$ir/init"
# The scenarios guest.sh sources, each in its own file.
cp tests/kernels/scenario-*.sh "$ir/"
if [ "$arch" = amd64 ]; then
  cc -static -O2 -o "$ir/bin/wl" tests/kernels/workload.c
  # scripts/capture-fixture.sh (the fixture trees) wants bash, GNU realpath and getconf: the
  # host's, with the libraries they link (busybox has no getconf, and its realpath no -m).
  cp scripts/capture-fixture.sh "$ir/bin/capture-fixture"
  chmod 755 "$ir/bin/capture-fixture"
  for tool in bash realpath getconf; do
    path=$(command -v "$tool")
    rm -f "$ir/bin/$tool"
    cp "$path" "$ir/bin/$tool"
    for lib in $(ldd "$path" | grep -o '/[^ ]*'); do
      mkdir -p "$ir$(dirname "$lib")"
      cp -L "$lib" "$ir$lib"
    done
  done
else
  # No fixture trees from this guest (the host's bash cannot run in it): guest.sh skips them.
  aarch64-linux-gnu-gcc -static -O2 -o "$ir/bin/wl" tests/kernels/workload.c
fi
# What an installed Debian kernel has beside it: its configuration (the advisor reads
# CONFIG_ZSMALLOC_CHAIN_SIZE there) and its modules' list (which algorithms a modprobe gives).
mkdir -p "$ir/boot" "$ir/lib/modules/$ver"
cp "$root"/boot/config-* "$ir/boot/" 2>/dev/null || true
cp "$root/lib/modules/$ver/modules.dep" "$ir/lib/modules/$ver/" 2>/dev/null || true
: > "$ir/modules.order"
for name in virtio_pci virtio_blk zram zsmalloc zbud z3fold lzo lzo-rle lz4 lz4hc zstd deflate 842 brd; do
  { modprobe -d "$root" -S "$ver" --show-depends "$name" 2>/dev/null || true; } | while read -r kind path _; do
    [ "$kind" = insmod ] || continue
    base=$(basename "$path")
    base=${base%.xz}
    base=${base%.zst}
    grep -qx "$base" "$ir/modules.order" && continue
    case $path in
      *.xz) xz -dc "$path" > "$ir/modules/$base" ;;
      *.zst) zstd -dqc "$path" > "$ir/modules/$base" ;;
      *) cp "$path" "$ir/modules/$base" ;;
    esac
    echo "$base" >> "$ir/modules.order"
  done
done
modules=$(tr '\n' ' ' < "$ir/modules.order")
(cd "$ir" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out/initramfs.cpio.gz"
rm -rf "$ir"

# --- the boot -----------------------------------------------------------------------------------
truncate -s 256M "$out/swap.img"
rm -f "$out/results.img"
truncate -s 64M "$out/results.img"
# The swap-in latency scenario's disk (tests/kernels/scenario-bpf.sh): /dev/vdc, throttled to 200
# requests a second (5 ms a read), its own so that the other scenarios' page-outs keep their pace.
rm -f "$out/bpfswap.img"
truncate -s 32M "$out/bpfswap.img"
echo "$version" > "$out/kernel"
echo "$accel" > "$out/accel"
say "booting $version ($(basename "$vmlinuz")) under $accel, modules: $modules"
start=$(date +%s)
rc=0
if [ "$arch" = amd64 ]; then
  if [ "$accel" = kvm ]; then
    qemu=(qemu-system-x86_64 -accel kvm -cpu host)
    rounds=3
  else
    qemu=(qemu-system-x86_64 -accel tcg)
    rounds=1
  fi
  console=ttyS0
  quick=0
else
  qemu=(qemu-system-aarch64 -machine virt -cpu max -accel tcg)
  console=ttyAMA0
  quick=1
  rounds=1
fi
timeout "$timeout_s" "${qemu[@]}" -m 512 -smp 1 -nographic -no-reboot \
  -kernel "$vmlinuz" -initrd "$out/initramfs.cpio.gz" \
  -append "console=$console quiet panic=-1 WL_MIB=$wl_mib QUICK=$quick ROUNDS=$rounds GUEST_TRACE=${ZSWAPTOP_KERNELS_TRACE:-0} CG_FIXTURE=${ZSWAPTOP_KERNELS_SAVE_FIXTURES:+1}" \
  -drive "file=$out/swap.img,format=raw,if=virtio" \
  -drive "file=$out/results.img,format=raw,if=virtio" \
  -drive "file=$out/bpfswap.img,format=raw,if=virtio,throttling.iops-total=200" \
  </dev/null >"$out/console.log" 2>&1 || rc=$?
echo $(( $(date +%s) - start )) > "$out/seconds"
rm -f "$out/swap.img" "$out/bpfswap.img" "$out/initramfs.cpio.gz"
if [ "$rc" = 124 ]; then
  tail -n 20 "$out/console.log" >&2
  echo "the guest ran past ${timeout_s}s" >&2
  exit 1
fi
mkdir -p "$out/results"
tar -xf "$out/results.img" -C "$out/results" 2>/dev/null || true
rm -f "$out/results.img"
if ! grep -q GUEST-DONE "$out/console.log"; then
  tail -n 30 "$out/console.log" >&2
  echo "the guest did not finish (qemu exit $rc)" >&2
  exit 1
fi
say "guest finished in $(cat "$out/seconds") s"
