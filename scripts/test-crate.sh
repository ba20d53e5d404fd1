#!/usr/bin/env bash
# What a `cargo install zswaptop` user gets, tried before crates.io has it: both crates packaged as
# `cargo publish` would upload them, the file list checked, and zswaptop installed from the
# unpacked .crate the way cargo installs a downloaded one (--locked, --offline), then run.
#
#   scripts/test-crate.sh                    # a debug install (CI: quick, shares target/)
#   CRATE_PROFILE=release scripts/test-crate.sh
#
# 1. `cargo publish --dry-run --workspace --no-verify`: both crates, zswaptop-derive by version.
#    Its only warnings may be cargo's "ignoring test/benchmark ... not included" (Cargo.toml's
#    include list leaves tests/ and benches/ out on purpose); any other warning fails.
# 2. The file list: the source, build.rs, Cargo.lock, README, CHANGELOG, licences, docs, schemas,
#    the systemd units; nothing from tests/, benches/ or target/, no name with a control character.
# 3. cargo-binstall's pkg-url, expanded for x86_64 and aarch64, names scripts/release.sh's files.
# 4. The .crate unpacked and installed with `cargo install --path DIR --locked --offline`. Until
#    zswaptop-derive is on crates.io the resolver finds it nowhere, so crates.io is replaced by a
#    directory of the very sources it would serve: `cargo vendor` of the workspace's Cargo.lock
#    plus the unpacked zswaptop-derive .crate, under the checksum of that .crate (which is what the
#    packaged Cargo.lock pins). It builds in a target directory of its own, CARGO_TARGET_DIR/
#    crate-test: the vendored sources are other paths than ~/.cargo/registry's, so a shared one
#    would build the tests' dependencies over again, back and forth (measured: sharing saved
#    nothing). The unpacked crate and the vendored sources keep their paths between runs, so a
#    second run builds zswaptop alone.
# 5. The installed binary: `--version` is the plain version (no git revision: a crate has no
#    .git), and `--once --root` on a fixture tree prints the snapshot.
#
# Exit status: 0 pass, 1 fail, 2 cannot run here (no python3 for the TOML checks).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '== %s\n' "$*"; }
command -v python3 >/dev/null 2>&1 || { echo "test-crate: cannot run: needs python3" >&2; exit 2; }
mkdir -p "${CARGO_TARGET_DIR:-target}"
target_dir=$(cd "${CARGO_TARGET_DIR:-target}" && pwd)
# Outside the workspace: cargo would take an unpacked crate under it for a forgotten member.
work=${TMPDIR:-/tmp}/zswaptop-crate-test-$(id -u)
build_dir=$target_dir/crate-test
profile=${CRATE_PROFILE:-debug}
rm -rf "$work/unpacked" "$work/root"
mkdir -p "$work/unpacked" "$build_dir"
fail=0

say "cargo publish --dry-run --workspace (zswaptop-derive, then zswaptop)"
# --allow-dirty: the check runs on a work tree with edits too; a real publish is a clean tree's.
pub=$(cargo publish --dry-run --workspace --no-verify --locked --allow-dirty 2>&1) || {
  echo "$pub" >&2
  echo "test-crate: FAIL: cargo publish --dry-run" >&2
  exit 1
}
echo "$pub" | grep -E 'Packag|Upload' || true
odd=$(echo "$pub" | grep '^warning:' | grep -v -E '^warning: ignoring (test|benchmark) `[^`]+` as `(tests|benches)/.*` is not included in the published package$|^warning: aborting upload due to dry run$' || true)
if [ -n "$odd" ]; then
  echo "$odd" >&2
  echo "test-crate: FAIL: cargo publish --dry-run warns of more than the left-out tests and benches" >&2
  fail=1
else
  echo "ok   no warning but the $(echo "$pub" | grep -c '^warning: ignoring' || true) left-out test and bench targets"
fi

cargo package --workspace --no-verify --locked --allow-dirty >"$work/package.log" 2>&1 \
  || { cat "$work/package.log" >&2; echo "test-crate: FAIL: cargo package" >&2; exit 1; }
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
crate=$target_dir/package/zswaptop-$version.crate
derive=$target_dir/package/zswaptop-derive-$version.crate
for c in "$crate" "$derive"; do
  [ -f "$c" ] || { echo "test-crate: FAIL: no $c" >&2; exit 1; }
  echo "$(basename "$c"): $(stat -c %s "$c") bytes"
done

say "file lists"
list=$(tar -tzf "$crate" | sed "s|^zswaptop-$version/||")
for f in Cargo.toml Cargo.lock build.rs src/main.rs src/lib.rs README.md CHANGELOG.md LICENSE-MIT \
  LICENSE-APACHE docs/zswaptop.schema.json docs/zswaptop-advise.schema.json docs/json-schema.md \
  assets/zswaptop-record.service assets/zswaptop-serve.service; do
  grep -qxF "$f" <<<"$list" || { echo "FAIL the crate lacks $f" >&2; fail=1; }
done
bad=$(grep -E '^(tests|benches|target|scripts|proptest-regressions)/' <<<"$list" || true)
[ -z "$bad" ] || { echo "$bad" | head >&2; echo "FAIL the crate carries test, bench or build files" >&2; fail=1; }
if LC_ALL=C grep -q '[[:cntrl:]]' <<<"$list"; then
  echo "FAIL a file name in the crate holds a control character" >&2
  fail=1
fi
echo "zswaptop: $(wc -l <<<"$list") files, $(grep -c '^src/' <<<"$list") under src/"
dlist=$(tar -tzf "$derive" | sed "s|^zswaptop-derive-$version/||")
for f in Cargo.toml src/lib.rs LICENSE-MIT LICENSE-APACHE; do
  grep -qxF "$f" <<<"$dlist" || { echo "FAIL zswaptop-derive's crate lacks $f" >&2; fail=1; }
done
echo "zswaptop-derive: $(wc -l <<<"$dlist") files"

tar -xzf "$crate" -C "$work/unpacked"
tar -xzf "$derive" -C "$work/unpacked"
src=$work/unpacked/zswaptop-$version

say "cargo-binstall metadata"
python3 - "$src/Cargo.toml" "$version" <<'PY' || fail=1
import sys, tomllib
manifest, version = sys.argv[1], sys.argv[2]
pkg = tomllib.load(open(manifest, "rb"))["package"]
meta = pkg["metadata"]["binstall"]
bad = 0
if meta.get("pkg-fmt") != "bin":
    print(f"FAIL binstall pkg-fmt is {meta.get('pkg-fmt')!r}, the release files are bare binaries")
    bad = 1
for arch in ("x86_64", "aarch64"):
    url = meta["pkg-url"]
    for key, value in {"repo": pkg["repository"], "version": version, "name": pkg["name"], "target-arch": arch}.items():
        url = url.replace("{ %s }" % key, value)
    want = f"{pkg['repository']}/releases/download/v{version}/zswaptop-{version}-{arch}-linux-gnu-static"
    if url != want or "{" in url:
        print(f"FAIL binstall {arch}: {url} is not {want}")
        bad = 1
    else:
        print(f"ok   binstall {arch}: {url}")
sys.exit(bad)
PY

say "cargo install --path (the unpacked crate) --locked --offline, $profile"
vendor=$build_dir/vendor
cargo vendor --locked --offline --versioned-dirs "$vendor" >/dev/null 2>"$work/vendor.log" \
  || { tail -n 20 "$work/vendor.log" >&2; echo "test-crate: FAIL: cargo vendor" >&2; exit 1; }
rm -rf "$vendor/zswaptop-derive-$version"
cp -r "$work/unpacked/zswaptop-derive-$version" "$vendor/"
printf '{"files":{},"package":"%s"}\n' "$(sha256sum "$derive" | cut -d' ' -f1)" \
  >"$vendor/zswaptop-derive-$version/.cargo-checksum.json"
flag=()
[ "$profile" = debug ] && flag=(--debug)
step=$(date +%s)
CARGO_TARGET_DIR=$build_dir cargo install --path "$src" --locked --offline "${flag[@]}" \
  --root "$work/root" --config 'source.crates-io.replace-with="packaged"' \
  --config "source.packaged.directory=\"$vendor\"" 2>"$work/install.log" \
  || { tail -n 30 "$work/install.log" >&2; echo "test-crate: FAIL: cargo install" >&2; exit 1; }
echo "installed in $(( $(date +%s) - step )) s: $(grep -E '^ *Installed' "$work/install.log" || true)"
bin=$work/root/bin/zswaptop

say "the installed zswaptop"
all=$("$bin" --version)
echo "$all"
got=$(printf '%s\n' "$all" | head -n 1)
[ "$got" = "zswaptop $version" ] || { echo "FAIL --version: '$got', expected 'zswaptop $version'" >&2; fail=1; }
# The crate carries the BPF programs' source: installed where clang is, they are built in.
if command -v "${CLANG:-clang}" >/dev/null 2>&1; then
  printf '%s\n' "$all" | grep -q '^bpf: built in' \
    || { echo "FAIL --version: the BPF programs are not built in, though clang is here" >&2; fail=1; }
fi
if "$bin" --once --root tests/fixtures/linux-6.18-idle >"$work/once.txt"; then
  head -n 3 "$work/once.txt"
  grep -q zswap "$work/once.txt" || { echo "FAIL --once printed no zswap line" >&2; fail=1; }
else
  echo "FAIL --once --root tests/fixtures/linux-6.18-idle" >&2
  fail=1
fi

if [ "$fail" = 0 ]; then echo "test-crate: PASS"; else echo "test-crate: FAIL" >&2; fi
exit "$fail"
