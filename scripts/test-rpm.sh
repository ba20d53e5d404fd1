#!/usr/bin/env bash
# Build the RPM (cargo-generate-rpm, [package.metadata.generate-rpm] in Cargo.toml), check it and
# install it into a scratch root, then run what it installed.
#
#   scripts/test-rpm.sh                                    # this host's architecture
#   TARGET=aarch64-unknown-linux-gnu scripts/test-rpm.sh   # the arm64 package, run by qemu-aarch64
#
# Checks: rpmlint (Debian's package, with assets/rpmlint.toml) reports 0 errors (its warnings are
# listed; 2.4.0 warns no-manual-page-for-binary wrongly: it records a man page's section, not its
# name, so every binary lacks one); the file list is
# exactly the one below (the .deb's contents, at Fedora's paths); the scriptlets parse (`sh -n`);
# `rpm --root SCRATCH -i --nodeps --noscripts` installs it (the scratch root has no shell for the
# scriptlets: they only tell a running systemd about the units), the installed binary's
# `--version` and `--once --root` on a fixture tree run, and `rpm -e` removes every file again.
# The package (scripts/package.sh) is left in target/TRIPLE/generate-rpm/.
#
# Exit status: 0 pass, 1 fail, 2 cannot run here (no rpm, rpmlint, cargo-generate-rpm, or no
# qemu-aarch64 / cross toolchain for another architecture).
set -euo pipefail
cd "$(dirname "$0")/.."

host="$(uname -m)-unknown-linux-gnu"
target=${TARGET:-$host}
arch=${target%%-*}
say() { printf '== %s\n' "$*"; }
skip() { echo "test-rpm: cannot run: $*" >&2; exit 2; }
command -v rpm >/dev/null 2>&1 || skip "no rpm (Debian package rpm)"
command -v rpmlint >/dev/null 2>&1 || skip "no rpmlint (Debian package rpmlint)"
run=()
if [ "$target" != "$host" ]; then
  command -v "qemu-$arch-static" >/dev/null 2>&1 || skip "no qemu-$arch-static (Debian package qemu-user-static)"
  run=("qemu-$arch-static")
fi

fail=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what" >&2; fail=1; fi
}

say "building the $arch package (scripts/package.sh)"
rc=0
built=$(scripts/package.sh "$target") || rc=$?
[ "$rc" = 2 ] && skip "the $target packages cannot be built here (see above)"
[ "$rc" = 0 ] || exit 1
rpmfile=$(tail -n 1 <<<"$built")
echo "$rpmfile ($(stat -c %s "$rpmfile") bytes)"
rpm -qip "$rpmfile" 2>/dev/null | grep -E '^(Name|Version|Release|Architecture|License|Size|Summary)'
check "the package's architecture is $arch" bash -c "[ \"\$(rpm -qp --qf '%{ARCH}' '$rpmfile')\" = '$arch' ]"

say "rpmlint -c assets/rpmlint.toml"
# Its filters, each with the reason, are in assets/rpmlint.toml; without them, for the record:
plain=$(rpmlint "$rpmfile" 2>&1 || true)
echo "without assets/rpmlint.toml: $(grep -E '^[^ ]+: E: ' <<<"$plain" | sed 's/^[^ ]* E: //' | tr '\n' ';' || true) $(grep -E '[0-9]+ errors?, [0-9]+ warnings?' <<<"$plain" | tail -n 1)"
lint=$(rpmlint -c assets/rpmlint.toml "$rpmfile" 2>&1 || true)
echo "$lint"
summary=$(grep -E '[0-9]+ errors?, [0-9]+ warnings?' <<<"$lint" | tail -n 1)
if [[ $summary =~ ([0-9]+)\ errors? ]] && [ "${BASH_REMATCH[1]}" = 0 ]; then
  echo "ok   rpmlint: 0 errors"
else
  echo "FAIL rpmlint reports errors (or no summary): $summary" >&2
  fail=1
fi

say "file list"
want="/usr/bin/zswaptop
/usr/lib/systemd/system/zswaptop-record.service
/usr/lib/systemd/system/zswaptop-serve.service
/usr/share/bash-completion/completions/zswaptop
/usr/share/doc/zswaptop/CHANGELOG.md
/usr/share/doc/zswaptop/README.md
/usr/share/doc/zswaptop/dashboard.md
/usr/share/doc/zswaptop/json-schema.md
/usr/share/doc/zswaptop/zswaptop-advise.schema.json
/usr/share/doc/zswaptop/zswaptop.schema.json
/usr/share/fish/vendor_completions.d/zswaptop.fish
/usr/share/licenses/zswaptop/LICENSE-APACHE
/usr/share/licenses/zswaptop/LICENSE-MIT
/usr/share/man/man1/zswaptop.1.gz
/usr/share/zsh/site-functions/_zswaptop"
got=$(rpm -qpl "$rpmfile" 2>/dev/null | sort)
if [ "$got" = "$want" ]; then
  echo "ok   $(wc -l <<<"$got") files, as expected"
else
  diff <(echo "$want") <(echo "$got") >&2 || true
  echo "FAIL the file list differs (< expected, > packaged)" >&2
  fail=1
fi
rpm -qplv "$rpmfile" 2>/dev/null
check "/usr/bin/zswaptop is mode 755" bash -c "rpm -qplv '$rpmfile' | grep -q '^-rwxr-xr-x .* /usr/bin/zswaptop$'"
check "no requirement but /bin/sh (static binary, shell scriptlets)" \
  bash -c "[ \"\$(rpm -qp --requires '$rpmfile' | grep -v '^rpmlib(' | sort -u)\" = /bin/sh ]"
scripts=$(rpm -qp --scripts "$rpmfile" 2>/dev/null)
echo "$scripts"
n=0
while IFS= read -r -d '' body; do
  [ -n "$body" ] || continue
  n=$((n + 1))
  check "scriptlet $n parses (sh -n)" sh -n -c "$body"
done < <(awk '/^[a-z]+ scriptlet/{if (s!="") printf "%s%c", s, 0; s=""; next} {s=s $0 "\n"} END{if (s!="") printf "%s%c", s, 0}' <<<"$scripts")
check "three scriptlets (post-install, pre- and post-uninstall)" test "$n" = 3

say "rpm --root SCRATCH -i --nodeps"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rpm --root "$scratch" --initdb
# --ignorearch for another architecture's package: its binary runs under qemu here.
rpm --root "$scratch" -i --nodeps --noscripts ${run[0]:+--ignorearch} "$rpmfile"
check "rpm -q in the scratch root" rpm --root "$scratch" -q zswaptop
bin=$scratch/usr/bin/zswaptop
got=$("${run[@]}" "$bin" --version 2>&1 || true)
echo "$got"
check "zswaptop --version from the installed package" grep -q '^zswaptop [0-9]' <<<"$got"
if "${run[@]}" "$bin" --once --root tests/fixtures/linux-6.18-idle >"$scratch/once.txt" 2>&1; then
  head -n 3 "$scratch/once.txt"
  echo "ok   zswaptop --once --root tests/fixtures/linux-6.18-idle"
else
  cat "$scratch/once.txt" >&2
  echo "FAIL zswaptop --once --root tests/fixtures/linux-6.18-idle" >&2
  fail=1
fi
check "the man page is gzip" bash -c "gzip -t '$scratch/usr/share/man/man1/zswaptop.1.gz'"
rm -f "$scratch/once.txt"
rpm --root "$scratch" -e --noscripts zswaptop
left=$(find "$scratch/usr" -type f 2>/dev/null | head -n 5)
check "rpm -e removed every file" test -z "$left"

if [ "$fail" = 0 ]; then echo "test-rpm: PASS ($arch)"; else echo "test-rpm: FAIL ($arch)" >&2; fi
exit "$fail"
