#!/usr/bin/env bash
# Build zswaptop as one static, stripped x86_64 Linux executable, with its SHA-256 sum.
#
#   scripts/release.sh            # -> target/dist/zswaptop-VERSION-x86_64-linux-musl(.sha256)
#   OUT=/tmp/dist scripts/release.sh
#
# The binary is built for x86_64-unknown-linux-musl (the Rust standard library for it comes from
# `rustup target add`). Where that cannot be had, the script says so and builds the gnu target
# statically linked (-C target-feature=+crt-static) instead. Either way it then checks that the
# result is static and that it runs (--version, and a snapshot of a fixture tree).
#
# A static binary resolves user names from /etc/passwd only (musl has no NSS modules; a static
# glibc cannot load them): LDAP or DynamicUser names need the distribution's build (the .deb).
#
# Exit status: 0 when the binary is built and checked, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-target/dist}
TARGET=x86_64-unknown-linux-musl
say() { printf '== %s\n' "$*"; }

if [ "$(uname -m)" != x86_64 ]; then
  echo "release: builds x86_64 binaries on an x86_64 host; this is $(uname -m)" >&2
  exit 1
fi

have_musl_std() {
  command -v rustup >/dev/null 2>&1 || return 1
  rustup target list --installed 2>/dev/null | grep -qx "$TARGET" && return 0
  say "rustup target add $TARGET"
  rustup target add "$TARGET"
}

if have_musl_std; then
  kind=musl
  # The recording codec (zstd) has C code: built with musl-gcc when musl-tools is installed, else
  # with the system gcc (zstd's C uses only the freestanding parts of libc, which link with musl).
  if [ -z "${CC_x86_64_unknown_linux_musl:-}" ]; then
    CC_x86_64_unknown_linux_musl=$(command -v musl-gcc || command -v gcc || echo cc)
    export CC_x86_64_unknown_linux_musl
  fi
  cargo build --release --locked --target "$TARGET"
else
  echo "release: NOTE: the Rust standard library for $TARGET is not available here" \
    "(no rustup, or 'rustup target add' failed); building x86_64-unknown-linux-gnu" \
    "statically linked with glibc (+crt-static) instead" >&2
  TARGET=x86_64-unknown-linux-gnu
  kind=gnu-static
  RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
    cargo build --release --locked --target "$TARGET"
fi

built="target/$TARGET/release/zswaptop"
version=$("$built" --version | awk '{print $2}')
name="zswaptop-$version-x86_64-linux-$kind"
mkdir -p "$OUT"
cp "$built" "$OUT/$name"
strip "$OUT/$name"
(cd "$OUT" && sha256sum "$name" > "$name.sha256")

say "checking $OUT/$name"
fail=0
desc=$(file -b "$OUT/$name")
echo "file: $desc"
case "$desc" in
  *"statically linked"* | *"static-pie linked"*) ;;
  *) echo "release: FAIL: not a static executable" >&2; fail=1 ;;
esac
lddout=$(ldd "$OUT/$name" 2>&1 || true)
echo "ldd: $lddout"
case "$lddout" in
  *"not a dynamic executable"* | *"statically linked"*) ;;
  *) echo "release: FAIL: ldd lists shared libraries" >&2; fail=1 ;;
esac
"$OUT/$name" --version || fail=1
if ! "$OUT/$name" --once --root tests/fixtures/linux-6.18-idle > "$OUT/.once.txt"; then
  echo "release: FAIL: --once on the idle fixture" >&2
  fail=1
fi
head -3 "$OUT/.once.txt"
rm -f "$OUT/.once.txt"
(cd "$OUT" && sha256sum -c "$name.sha256")

bytes=$(stat -c %s "$OUT/$name")
say "$OUT/$name: $bytes bytes ($(numfmt --to=iec-i --suffix=B "$bytes")), $kind"
cat "$OUT/$name.sha256"
exit "$fail"
