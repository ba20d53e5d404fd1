#!/usr/bin/env bash
# What a recording costs on this machine: bytes per sample (without processes and with the top
# 20), the recorder's CPU per sample beyond sampling, and opening a day of 1 s samples (86,400,
# made from the live samples with counters and times advancing) under /usr/bin/time -v.
#
#   scripts/bench-record.sh          # samples the live system for 60 s
#   scripts/bench-record.sh 120      # for 120 s
#
# Read-only on the system; writes only under target/bench-record/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install -y time)" >&2; exit 2; }
exec cargo bench --locked --bench record -- "${1:-60}"
