#!/usr/bin/env bash
# The static arm64 zswaptop, run: on every fixture tree of the fast tests (tests/fixtures/*/),
# `--once`, `--once --json` and `--once --full`, each under qemu-aarch64 (user mode: the arm64
# binary on this x86_64 kernel) and compared byte for byte with the x86_64 binary's output on the
# same tree: standard output, standard error and exit status (the JSON's "timestamp", the clock of
# each run, set aside). A difference is an architecture
# dependence (a size, a parse, an overflow) that the x86_64 tests cannot see. Then the arm64
# Debian package, where one was built: the amd64 one's files, and lintian.
#
#   scripts/test-arm64.sh                 # builds what is missing (scripts/build-static.sh)
#   X86_BIN=... ARM64_BIN=... scripts/test-arm64.sh
#
# Exit status: 0 pass, 1 fail, 2 cannot run here (no qemu-aarch64-static, no cross toolchain).
set -euo pipefail
cd "$(dirname "$0")/.."

skip() { echo "test-arm64: cannot run: $*" >&2; exit 2; }
[ "$(uname -m)" = x86_64 ] || skip "compares with the x86_64 build on an x86_64 host; this is $(uname -m)"
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
[ -n "$qemu" ] || skip "no qemu-aarch64 (Debian package qemu-user-static)"
dir=${CARGO_TARGET_DIR:-target}
x86=${X86_BIN:-$dir/x86_64-unknown-linux-gnu/release/zswaptop}
arm=${ARM64_BIN:-$dir/aarch64-unknown-linux-gnu/release/zswaptop}
[ -x "$x86" ] || x86=$(scripts/build-static.sh)
if [ ! -x "$arm" ]; then
  rc=0
  arm=$(TARGET=aarch64-unknown-linux-gnu scripts/build-static.sh) || rc=$?
  [ "$rc" = 2 ] && skip "the aarch64 build cannot be made here (see above)"
  [ "$rc" = 0 ] || exit 1
fi
file -b "$arm" | grep -q 'ARM aarch64' || { echo "test-arm64: $arm is not an aarch64 binary: $(file -b "$arm")" >&2; exit 1; }
echo "x86_64:  $x86 ($("$x86" --version))"
echo "aarch64: $arm ($("$qemu" "$arm" --version)), run by $qemu"

out=$dir/arm64-compare
rm -rf "$out"
mkdir -p "$out"
# The same environment for both: no colour, no terminal, a fixed width; nothing from this shell.
clean=(env -i PATH=/usr/bin:/bin HOME=/nonexistent LANG=C.UTF-8 TERM=dumb COLUMNS=100 LINES=40)
runs=0
diffs=0
start=$(date +%s)
for tree in tests/fixtures/*/; do
  tree=${tree%/}
  name=$(basename "$tree")
  for mode in once json full; do
    case $mode in
      once) args=(--once) ;;
      json) args=(--once --json) ;;
      full) args=(--once --full) ;;
    esac
    a=$out/$name.$mode.x86_64
    b=$out/$name.$mode.aarch64
    rc=0
    "${clean[@]}" "$x86" "${args[@]}" --root "$tree" >"$a.out" 2>"$a.err" </dev/null || rc=$?
    echo "$rc" >"$a.rc"
    rc=0
    "${clean[@]}" "$qemu" "$arm" "${args[@]}" --root "$tree" >"$b.out" 2>"$b.err" </dev/null || rc=$?
    echo "$rc" >"$b.rc"
    runs=$((runs + 1))
    # The one line that must differ: the JSON's timestamp is the clock of each run.
    if [ "$mode" = json ]; then
      sed -i -E 's/^  "timestamp": "[0-9TZ:.-]+",$/  "timestamp": "(the clock of the run)",/' "$a.out" "$b.out"
    fi
    same=1
    for part in out err rc; do
      cmp -s "$a.$part" "$b.$part" || same=0
    done
    if [ "$same" = 1 ]; then
      rm -f "$a".* "$b".*
    else
      diffs=$((diffs + 1))
      echo "DIFF $name ${args[*]}:" >&2
      for part in rc out err; do
        diff -u "$a.$part" "$b.$part" | head -n 20 >&2 || true
      done
    fi
  done
done
echo "test-arm64: $runs runs on $(ls -d tests/fixtures/*/ | wc -l) fixture trees in $(( $(date +%s) - start )) s, $diffs differ (outputs kept in $out)"

# The arm64 Debian package, where scripts/package.sh (or scripts/release.sh) left one: the same
# files as the amd64 one, and lintian's errors fail (its warnings are listed).
arm_deb=$(ls -t "$dir"/aarch64-unknown-linux-gnu/debian/zswaptop_*_arm64.deb 2>/dev/null | head -n 1 || true)
x86_deb=$(ls -t "$dir"/x86_64-unknown-linux-gnu/debian/zswaptop_*_amd64.deb 2>/dev/null | head -n 1 || true)
if [ -z "$arm_deb" ]; then
  echo "SKIPPED: the arm64 .deb: none built (scripts/package.sh aarch64-unknown-linux-gnu)"
else
  echo "== $arm_deb ($(stat -c %s "$arm_deb") bytes)"
  dpkg-deb -f "$arm_deb" Package Version Architecture Depends Recommends
  files() { dpkg-deb -c "$1" | awk '{print $1, $NF}' | sort; }
  if [ -n "$x86_deb" ]; then
    if diff <(files "$x86_deb") <(files "$arm_deb") >&2; then
      echo "ok   the arm64 .deb holds the same files as the amd64 one"
    else
      echo "FAIL the arm64 .deb's files differ from the amd64 one's (< amd64, > arm64)" >&2
      diffs=$((diffs + 1))
    fi
  fi
  if command -v lintian >/dev/null 2>&1; then
    lint=$(lintian --tag-display-limit 0 "$arm_deb" 2>&1 || true)
    [ -n "$lint" ] && echo "$lint"
    if grep -q '^E: ' <<<"$lint"; then
      echo "FAIL lintian reports errors on the arm64 .deb" >&2
      diffs=$((diffs + 1))
    else
      echo "ok   lintian on the arm64 .deb: no errors ($(grep -c '^W: ' <<<"$lint" || true) warnings)"
    fi
  else
    echo "SKIPPED: lintian on the arm64 .deb: no lintian (Debian package lintian)"
  fi
fi
if [ "$diffs" = 0 ]; then
  echo "test-arm64: PASS"
else
  echo "test-arm64: FAIL" >&2
  exit 1
fi
