#!/usr/bin/env bash
# Build the release artefacts: for x86_64 and aarch64 (arm64), one static, stripped Linux
# executable, its Debian package and its RPM, each with its SHA-256 sum beside it.
#
#   scripts/release.sh            # -> target/dist/
#   OUT=/tmp/dist scripts/release.sh
#   TARGETS=x86_64-unknown-linux-gnu scripts/release.sh   # one architecture only
#   PACKAGES=0 scripts/release.sh                         # the binaries only
#
# In OUT, for ARCH x86_64 and aarch64 (Debian's amd64 and arm64):
#   zswaptop-VERSION-ARCH-linux-gnu-static      (the names cargo-binstall's pkg-url gives)
#   zswaptop_VERSION-1_amd64.deb, zswaptop_VERSION-1_arm64.deb
#   zswaptop-VERSION-1.x86_64.rpm, zswaptop-VERSION-1.aarch64.rpm
#   and FILE.sha256 for each.
#
# The binaries are scripts/build-static.sh's: glibc linked in statically; the x86_64 one's code
# laid out by a symbol order made afresh from runs of this very build (the same binary the
# packages ship); the aarch64 one cross-built with Debian's gcc-aarch64-linux-gnu (no order: GNU
# ld). The packages are scripts/package.sh's. Each binary is checked static and run: --version
# and a snapshot of a fixture tree, the aarch64 one under qemu-aarch64 (qemu-user-static), where
# a machine without it says SKIPPED for that run.
#
# User names come from /etc/passwd (glibc's built-in "files" service); an NSS module such as
# systemd's (DynamicUser) or LDAP's loads only where the system's glibc is the version linked in,
# else the processes view shows the uid.
#
# Exit status: 0 when every artefact is built and checked, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT=${OUT:-target/dist}
TARGETS=${TARGETS:-x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu}
say() { printf '== %s\n' "$*"; }

if [ "$(uname -m)" != x86_64 ]; then
  echo "release: builds on an x86_64 host (aarch64 cross-built); this is $(uname -m)" >&2
  exit 1
fi

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
kind=gnu-static
mkdir -p "$OUT"
fail=0
artefacts=()
for target in $TARGETS; do
  arch=${target%%-*}
  say "$arch: the static binary"
  if [ "$target" = x86_64-unknown-linux-gnu ]; then
    built=$(FRESH_ORDER=1 scripts/build-static.sh)
    order="${CARGO_TARGET_DIR:-target}/link-order.txt"
    say "link order: $(grep -c . "$order" || true) functions placed first ($order)"
    strip=strip
    run=()
  else
    built=$(TARGET=$target scripts/build-static.sh)
    strip=$arch-linux-gnu-strip
    run=("qemu-$arch-static")
  fi
  name="zswaptop-$version-$arch-linux-$kind"
  cp "$built" "$OUT/$name"
  "$strip" "$OUT/$name"
  artefacts+=("$name")

  say "checking $OUT/$name"
  desc=$(file -b "$OUT/$name")
  echo "file: $desc"
  case "$desc" in
    *"statically linked"* | *"static-pie linked"*) ;;
    *) echo "release: FAIL: not a static executable" >&2; fail=1 ;;
  esac
  # No program interpreter and no shared library named: readelf reads any architecture.
  if readelf -lW "$OUT/$name" | grep -q 'Requesting program interpreter' \
    || readelf -dW "$OUT/$name" | grep -q '(NEEDED)'; then
    echo "release: FAIL: $name asks for a dynamic loader or shared libraries" >&2
    fail=1
  else
    echo "readelf: no interpreter, no shared library"
  fi
  if [ "${#run[@]}" -gt 0 ] && ! command -v "${run[0]}" >/dev/null 2>&1; then
    echo "SKIPPED: running the $arch binary: no ${run[0]} (Debian package qemu-user-static)"
  else
    all=$("${run[@]}" "$OUT/$name" --version) || fail=1
    echo "$all"
    got=$(printf '%s\n' "$all" | head -n 1)
    [ "$got" = "zswaptop $version" ] || [[ $got == "zswaptop $version ("* ]] \
      || { echo "release: FAIL: --version says '$got'" >&2; fail=1; }
    # The swap-in latency programs are built in only where clang was there at build time.
    printf '%s\n' "$all" | grep -q '^bpf: built in' \
      || { echo "release: FAIL: built without its BPF programs (install clang)" >&2; fail=1; }
    if ! "${run[@]}" "$OUT/$name" --once --root tests/fixtures/linux-6.18-idle > "$OUT/.once.txt"; then
      echo "release: FAIL: --once on the idle fixture" >&2
      fail=1
    fi
    head -3 "$OUT/.once.txt"
    rm -f "$OUT/.once.txt"
  fi

  if [ "${PACKAGES:-1}" = 1 ]; then
    say "$arch: the Debian package and the RPM (scripts/package.sh)"
    packages=$(scripts/package.sh "$target")
    for p in $packages; do
      cp "$p" "$OUT/"
      artefacts+=("$(basename "$p")")
    done
  fi
done

say "SHA-256 sums"
for a in "${artefacts[@]}"; do
  (cd "$OUT" && sha256sum "$a" > "$a.sha256" && sha256sum -c "$a.sha256")
done

say "artefacts in $OUT"
for a in "${artefacts[@]}"; do
  bytes=$(stat -c %s "$OUT/$a")
  printf '%-44s %9d bytes  %8s\n' "$a" "$bytes" "$(numfmt --to=iec-i --suffix=B "$bytes")"
done
exit "$fail"
