#!/usr/bin/env bash
# Build the Debian package, install it on this machine, check what a user gets, run lintian, and
# purge it again.
#
#   scripts/test-deb.sh      # as root, on Debian or Ubuntu, with cargo-deb installed
#
# Checks: `zswaptop --version`, the man page (`man -w zswaptop`, `man zswaptop`), the bash
# completion (installed, and `complete -p zswaptop` after sourcing it), the zsh and fish
# completions and the docs are where the package says. lintian's errors fail the run; its
# warnings are listed. The package is purged on every way out, and only if this run installed it
# (a zswaptop package that was already installed is refused, not replaced).
#
# Exit status: 0 pass, 1 fail, 2 cannot run here (not root, no dpkg, no cargo-deb).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "test-deb: cannot run: $*" >&2; exit 2; }
[ "$(id -u)" = 0 ] || skip "needs root (dpkg -i)"
command -v dpkg >/dev/null 2>&1 || skip "no dpkg: not a Debian-like system"
cargo deb --version >/dev/null 2>&1 || skip "cargo-deb is not installed (cargo install cargo-deb --locked)"
if dpkg-query -W -f '${Status}' zswaptop 2>/dev/null | grep -q 'install ok installed'; then
  skip "a zswaptop package is already installed; not replacing it"
fi

need=()
command -v lintian >/dev/null 2>&1 || need+=(lintian)
command -v man >/dev/null 2>&1 || need+=(man-db)
if [ "${#need[@]}" -gt 0 ]; then
  echo "== installing ${need[*]}"
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

fail=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then
    echo "ok   $what"
  else
    echo "FAIL $what" >&2
    fail=1
  fi
}

echo "== building the package"
# The binary is scripts/build-static.sh's (deb-assets.sh builds it); cargo-deb finds it under
# target/TRIPLE/release when told the target.
scripts/deb-assets.sh >/dev/null
# build-static.sh keeps the symbols (its link order is made from them) and cargo-deb no longer
# strips what the release profile says is stripped already (strip = true): strip it here, as
# scripts/package.sh does, or lintian finds an unstripped binary.
strip "$(TARGET= scripts/build-static.sh)"
deb=$(cargo deb --no-build --locked --target "$(uname -m)-unknown-linux-gnu" 2>&1 | tail -1)
[ -f "$deb" ] || { echo "test-deb: cargo deb did not say where the package is: $deb" >&2; exit 1; }
echo "$deb ($(stat -c %s "$deb") bytes)"
dpkg -c "$deb"

echo "== lintian"
# Errors fail the run; warnings and the rest are listed.
lint=$(lintian --tag-display-limit 0 "$deb" 2>&1 || true)
[ -n "$lint" ] && echo "$lint"
if grep -q '^E: ' <<<"$lint"; then
  echo "FAIL lintian reports errors" >&2
  fail=1
else
  echo "ok   lintian: no errors ($(grep -c '^W: ' <<<"$lint" || true) warnings)"
fi

echo "== dpkg -i"
trap 'echo "== dpkg --purge"; dpkg --purge zswaptop >/dev/null' EXIT
dpkg -i "$deb"

# `man` and completions as a user would get them on a minimal system: man-db may have been
# told to skip documentation (/etc/dpkg/dpkg.cfg.d/excludes); -w finds the installed file.
check "zswaptop --version from /usr/bin" bash -c '/usr/bin/zswaptop --version | grep -q "^zswaptop "'
check "zswaptop on PATH is the package's" bash -c '[ "$(command -v zswaptop)" = /usr/bin/zswaptop ]'
check "man -w zswaptop" bash -c 'man -w zswaptop | grep -q "/usr/share/man/man1/zswaptop.1"'
check "man zswaptop renders" bash -c 'MANPAGER=cat MANWIDTH=80 man zswaptop 2>/dev/null | head -20 | grep -q "zswaptop"'
MANPAGER=cat MANWIDTH=80 man zswaptop 2>/dev/null | head -8 || true
bash_completion=/usr/share/bash-completion/completions/zswaptop
check "bash completion installed" test -s "$bash_completion"
check "complete -p zswaptop after sourcing it" \
  bash -c "source '$bash_completion' && complete -p zswaptop | grep -q _zswaptop"
check "zsh completion installed" test -s /usr/share/zsh/vendor-completions/_zswaptop
check "fish completion installed" test -s /usr/share/fish/vendor_completions.d/zswaptop.fish
for doc in copyright LICENSE-MIT LICENSE-APACHE json-schema.md zswaptop.schema.json zswaptop-advise.schema.json; do
  check "/usr/share/doc/zswaptop/$doc" test -s "/usr/share/doc/zswaptop/$doc"
done
check "zswaptop --once runs" bash -c 'zswaptop --once --root tests/fixtures/linux-6.18-idle >/dev/null'
for unit in assets/*.service; do
  [ -e "$unit" ] || continue
  name=$(basename "$unit")
  check "$name installed" test -s "/usr/lib/systemd/system/$name"
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    check "$name not enabled" bash -c "! systemctl is-enabled --quiet '$name'"
  fi
done

if [ "$fail" = 0 ]; then
  echo "test-deb: PASS"
else
  echo "test-deb: FAIL" >&2
fi
exit "$fail"
