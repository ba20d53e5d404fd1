#!/usr/bin/env bash
# Build zswaptop as one static, stripped x86_64 Linux executable, with its SHA-256 sum.
#
#   scripts/release.sh            # -> target/dist/zswaptop-VERSION-x86_64-linux-gnu-static(.sha256)
#   OUT=/tmp/dist scripts/release.sh
#
# The binary is scripts/build-static.sh's: glibc linked in statically, the code laid out by a
# symbol order made afresh from runs of this very build (the same binary the Debian package
# ships). It then checks that the result is static and that it runs (--version, and a snapshot of
# a fixture tree).
#
# User names come from /etc/passwd (glibc's built-in "files" service); an NSS module such as
# systemd's (DynamicUser) or LDAP's loads only where the system's glibc is the version linked in,
# else the processes view shows the uid.
#
# Exit status: 0 when the binary is built and checked, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-target/dist}
say() { printf '== %s\n' "$*"; }

if [ "$(uname -m)" != x86_64 ]; then
  echo "release: builds x86_64 binaries on an x86_64 host; this is $(uname -m)" >&2
  exit 1
fi

built=$(FRESH_ORDER=1 scripts/build-static.sh)
kind=gnu-static
order="${CARGO_TARGET_DIR:-target}/link-order.txt"
say "link order: $(grep -c . "$order" || true) functions placed first ($order)"
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
