#!/usr/bin/env bash
# Write the Debian and RPM packages' generated files under target/assets, from the binary the
# package ships (scripts/build-static.sh's, built here when missing): the man page (and gzipped for
# the RPM: cargo-deb compresses it itself, cargo-generate-rpm does not), the bash, zsh and fish
# completions and the Debian changelog. They are the same for every architecture: an arm64
# package takes them from this host's build. (The systemd units in assets/ are found by cargo-deb
# itself: systemd-units in Cargo.toml.)
# `cargo deb` and `cargo generate-rpm` then pick them up ([package.metadata.deb] and
# [package.metadata.generate-rpm] in Cargo.toml).
#
#   scripts/deb-assets.sh && cargo deb --no-build --target "$(uname -m)-unknown-linux-gnu"
set -euo pipefail
cd "$(dirname "$0")/.."

# This host's build whatever TARGET the caller has set: it must run here.
bin=$(TARGET= scripts/build-static.sh)
out=target/assets
rm -rf "$out"
mkdir -p "$out"

"$bin" man > "$out/zswaptop.1"
"$bin" completions bash > "$out/zswaptop.bash"
"$bin" completions zsh > "$out/_zswaptop"
"$bin" completions fish > "$out/zswaptop.fish"
gzip -9nc "$out/zswaptop.1" > "$out/zswaptop.1.gz"
for f in "$out/zswaptop.1" "$out/zswaptop.1.gz" "$out/zswaptop.bash" "$out/_zswaptop" "$out/zswaptop.fish"; do
  [ -s "$f" ] || { echo "deb-assets: $f is empty" >&2; exit 1; }
done

# Debian wants its own changelog format; the project's CHANGELOG.md is shipped beside it as changelog.
version=$(cargo metadata --no-deps --format-version 1 --locked |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["packages"][0]["version"])')
date=$(date -R -d "@$(git log -1 --format=%ct 2>/dev/null || date +%s)")
cat > "$out/changelog" <<CHANGELOG
zswaptop ($version-1) unstable; urgency=medium

  * Built from the zswaptop source tree ($("$bin" --version)).
    See /usr/share/doc/zswaptop/changelog.gz for what changed.

 -- zswaptop developers <zswaptop@users.noreply.github.com>  $date
CHANGELOG
ls -l "$out"
