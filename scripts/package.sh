#!/usr/bin/env bash
# Build the Debian package and the RPM of one architecture from the static build, and print their
# paths (the .deb, then the .rpm) on stdout; cargo's progress goes to stderr.
#
#   scripts/package.sh                               # this host's architecture
#   scripts/package.sh aarch64-unknown-linux-gnu     # arm64, cross-built (scripts/build-static.sh)
#
# The binary is scripts/build-static.sh's, stripped in place first (cargo-deb strips what it
# packs, cargo-generate-rpm does not); the man page and completions are scripts/deb-assets.sh's,
# made by this host's build (they are the same for every architecture). Needs cargo-deb and
# cargo-generate-rpm (`cargo install cargo-deb cargo-generate-rpm --locked`).
#
# Exit status: 0 built, 1 failed, 2 cannot build here (a tool or the cross toolchain missing).
set -euo pipefail
cd "$(dirname "$0")/.."

host="$(uname -m)-unknown-linux-gnu"
target=${1:-$host}
skip() { echo "package: cannot build: $*" >&2; exit 2; }
cargo deb --version >/dev/null 2>&1 || skip "no cargo-deb (cargo install cargo-deb --locked)"
cargo generate-rpm --version >/dev/null 2>&1 || skip "no cargo-generate-rpm (cargo install cargo-generate-rpm --locked)"

scripts/deb-assets.sh >/dev/null
if [ "$target" = "$host" ]; then
  bin=$(TARGET= scripts/build-static.sh)
  strip=strip
else
  rc=0
  bin=$(TARGET=$target scripts/build-static.sh) || rc=$?
  [ "$rc" = 0 ] || exit "$rc"
  strip="${target%%-*}-linux-gnu-strip"
fi
"$strip" "$bin"
dir="${CARGO_TARGET_DIR:-target}/$target"
deb=$(cargo deb --no-build --locked --target "$target" 2>&1 | tail -n 1)
[ -f "$deb" ] || { echo "package: cargo deb did not say where the package is: $deb" >&2; exit 1; }
rm -rf "$dir/generate-rpm"
cargo generate-rpm --target "$target" >&2
rpm=$(ls "$dir"/generate-rpm/zswaptop-*.rpm)
echo "$deb"
echo "$rpm"
