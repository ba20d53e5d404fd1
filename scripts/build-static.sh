#!/usr/bin/env bash
# Build the zswaptop we ship: the release profile, statically linked with glibc, its code laid out
# by assets/link-order.txt. Prints the binary's path on stdout (cargo's progress goes to stderr).
#
#   bin=$(scripts/build-static.sh)        # -> target/x86_64-unknown-linux-gnu/release/zswaptop
#
# Why static: a dashboard left open for days should cost little memory. Linked against the
# shared glibc, the dashboard's resident set carries ~1.6 MiB of libc.so, ld.so and libgcc_s pages
# (the kernel maps cached pages around every page fault, used or not); linked statically it
# carries only the libc code it calls. glibc rather than musl: glibc's allocator and string
# functions cost ~30 % less CPU per tick (scripts/bench-vs-htop.sh, the README's cost section).
# User names still come from /etc/passwd (glibc's built-in "files" service); an NSS module
# (systemd, LDAP) loads only where the system's glibc is the one linked in, else the uid is shown.
#
# Why the order file: lld places the functions it names first and together, so the pages a run
# touches are few and dense instead of scattered over the 3.4 MB of code (scripts/link-order.sh
# rebuilds it). A name the build no longer has is skipped; a stale file costs memory, never
# correctness. `--cfg rustix_use_libc` keeps the build one that valgrind can run (rustix's raw
# auxv reader faults under valgrind), so the file is made from this very build's names.
#
# `cargo build --release` (and `cargo run --release`) give the ordinary dynamically linked build.
set -euo pipefail
cd "$(dirname "$0")/.."

target="$(uname -m)-unknown-linux-gnu"
order="$PWD/assets/link-order.txt"
flags="-C target-feature=+crt-static --cfg rustix_use_libc"
if [ "$(uname -m)" = x86_64 ] && [ -s "$order" ]; then
  # The order file is an lld option: rustc links with lld on x86_64 Linux (Rust ≥ 1.90), with the
  # system's linker (GNU ld, which has no such option) elsewhere.
  flags="$flags -C link-arg=-Wl,--symbol-ordering-file=$order -C link-arg=-Wl,--no-warn-symbol-ordering"
fi
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$flags" \
  cargo build --release --locked --target "$target" "$@" >&2
echo "${CARGO_TARGET_DIR:-target}/$target/release/zswaptop"
