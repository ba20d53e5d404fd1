#!/usr/bin/env bash
# Build the zswaptop we ship: the release profile, statically linked with glibc, its code laid out
# by a symbol order made from runs of this very build. Prints the binary's path on stdout (cargo's
# progress goes to stderr).
#
#   bin=$(scripts/build-static.sh)        # -> target/x86_64-unknown-linux-gnu/release/zswaptop
#   FRESH_ORDER=1 scripts/build-static.sh # make the order again (scripts/release.sh does)
#   TARGET=aarch64-unknown-linux-gnu scripts/build-static.sh   # arm64, cross-built on x86_64
#
# Why static: a dashboard left open for days should cost little memory. Linked against the
# shared glibc, the dashboard's resident set carries ~1.6 MiB of libc.so, ld.so and libgcc_s pages
# (the kernel maps cached pages around every page fault, used or not); linked statically it
# carries only the libc code it calls. glibc rather than musl: glibc's allocator and string
# functions cost ~30 % less CPU per tick (scripts/bench-vs-htop.sh, the README's cost section).
# User names still come from /etc/passwd (glibc's built-in "files" service); an NSS module
# (systemd, LDAP) loads only where the system's glibc is the one linked in, else the uid is shown.
#
# Why the order: lld places the functions it names first and together, so the pages a run touches
# are few and dense instead of scattered over the 3.4 MB of code. Measured at 120x40 on the live
# system, the same commit with and without it side by side (two runs of 60 s): 0.8 and 1.3 MiB
# less resident memory, the same anonymous memory. The order is not kept in the repository: it
# is made here, from this build's own symbol names (scripts/link-order.sh runs the build under
# valgrind's callgrind), into target/link-order.txt, and the binary is linked again with it. It
# is made when missing (or with FRESH_ORDER=1); a stale order costs memory, never correctness.
# Without valgrind, tmux or python3 the binary is built without an order, and this says so.
# `--cfg rustix_use_libc` keeps the build one that valgrind can run (rustix's raw auxv reader
# faults under valgrind).
#
# Another architecture (TARGET=aarch64-unknown-linux-gnu on an x86_64 host) is linked by Debian's
# cross toolchain (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross: its static glibc), named to cargo
# and to the C builds of zlib, liblz4, zstd and ring through environment variables here, so that
# no configuration file changes anyone's other builds; rustup's target must be installed
# (`rustup target add aarch64-unknown-linux-gnu`). It has no link order: GNU ld links it, and
# callgrind would have to run it on this host.
#
# `cargo build --release` (and `cargo run --release`) give the ordinary dynamically linked build.
set -euo pipefail
cd "$(dirname "$0")/.."

host="$(uname -m)-unknown-linux-gnu"
target=${TARGET:-$host}
dir="${CARGO_TARGET_DIR:-target}"
mkdir -p "$dir"
order="$(cd "$dir" && pwd)/link-order.txt"
[ "${FRESH_ORDER:-0}" = 1 ] && rm -f "$order"
flags="-C target-feature=+crt-static --cfg rustix_use_libc"
if [ "$target" != "$host" ]; then
  arch=${target%%-*}
  cross="$arch-linux-gnu"
  command -v "$cross-gcc" >/dev/null 2>&1 || {
    echo "build-static: no $cross-gcc (Debian packages gcc-$cross and libc6-dev-${arch/aarch64/arm64}-cross)" >&2
    exit 2
  }
  rustup target list --installed 2>/dev/null | grep -qx "$target" || {
    echo "build-static: rustup's $target is not installed (rustup target add $target)" >&2
    exit 2
  }
  triple=${target//-/_}
  upper=$(tr '[:lower:]' '[:upper:]' <<<"$triple")
  export "CARGO_TARGET_${upper}_LINKER=$cross-gcc" "CC_$triple=$cross-gcc" "AR_$triple=$cross-ar"
fi
ordered=0
if [ "$target" = x86_64-unknown-linux-gnu ]; then
  # The order file is an lld option: rustc links with lld on x86_64 Linux (Rust ≥ 1.90), with the
  # system's linker (GNU ld, which has no such option) elsewhere. An empty file orders nothing.
  [ -f "$order" ] || : >"$order"
  flags="$flags -C link-arg=-Wl,--symbol-ordering-file=$order -C link-arg=-Wl,--no-warn-symbol-ordering"
  ordered=1
fi
# The symbols stay ("debuginfo": what the release profile stripped before it stripped them all):
# the link order is made from this build's function names; scripts/release.sh strips the copy it
# ships, cargo-deb the packaged one.
build() {
  if [ "$ordered" = 1 ]; then
    RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$flags" ZSWAPTOP_LINK_ORDER="$order" \
      CARGO_PROFILE_RELEASE_STRIP=debuginfo cargo build --release --locked --target "$target" "$@" >&2
  else
    RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$flags" CARGO_PROFILE_RELEASE_STRIP=debuginfo cargo build --release --locked --target "$target" "$@" >&2
  fi
}
build "$@"
bin="$dir/$target/release/zswaptop"
if [ "$ordered" = 1 ] && [ ! -s "$order" ]; then
  missing=""
  for tool in valgrind tmux python3; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
  done
  if [ -n "$missing" ]; then
    echo "build-static: built without a link order (needs$missing): ~1 MiB more resident" >&2
  else
    echo "build-static: making the link order (scripts/link-order.sh), then linking again" >&2
    scripts/link-order.sh "$bin" >"$order.new"
    mv "$order.new" "$order"
    build "$@"
  fi
fi
echo "$bin"
