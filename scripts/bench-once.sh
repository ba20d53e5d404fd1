#!/usr/bin/env bash
# Measure what one `zswaptop --once` costs against one `free -h`: loops of N runs each (200 by
# default), interleaved, ROUNDS times; the CPU of a loop is the user+system time of its children
# (bash's `times`). Prints the CPU per run of each and the ratio to `free -h` in the same round,
# and the medians. The budget: `--once` and `--once --json` at most `free -h`'s CPU.
#
#   scripts/bench-once.sh
#   N=500 ROUNDS=5 ZSWAPTOP=path/to/zswaptop scripts/bench-once.sh
#
# Exit status 0 on PASS, 1 on FAIL, 2 when it cannot run.
set -euo pipefail

N=${N:-200}
ROUNDS=${ROUNDS:-3}
cd "$(dirname "$0")/.."

if [ -z "${ZSWAPTOP:-}" ]; then
    # The binary the project ships (the release script's and the .deb's).
    ZSWAPTOP=$(scripts/build-static.sh --quiet)
fi
[ -x "$ZSWAPTOP" ] || { echo "bench: $ZSWAPTOP is not executable" >&2; exit 2; }
command -v free >/dev/null || { echo "bench: free (procps) is missing" >&2; exit 2; }

# CPU milliseconds (user + system) that N runs of the command take, from bash's `times` in a
# fresh shell (its second line: the children's times, as 0m0.123s 0m0.045s).
loop_ms() {
    bash -c '
        n=$1; shift
        for ((i = 0; i < n; i++)); do "$@" >/dev/null; done
        times' _ "$N" "$@" |
        awk 'NR == 2 {
            split($1, u, /[ms]/); split($2, s, /[ms]/)
            printf "%.1f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000
        }'
}

echo "$("$ZSWAPTOP" --version 2>/dev/null || echo zswaptop) vs $(free -V), ${ROUNDS} rounds of ${N} runs each"
echo
printf "%-6s %14s %14s %14s %10s %10s   %s\n" round "free -h us" "--once us" "--json us" "once/free" "json/free" "load average"
RES=$(mktemp)
trap 'rm -f "$RES"' EXIT
for r in $(seq "$ROUNDS"); do
    f=$(loop_ms free -h)
    o=$(loop_ms "$ZSWAPTOP" --once)
    j=$(loop_ms "$ZSWAPTOP" --once --json)
    awk -v r="$r" -v f="$f" -v o="$o" -v j="$j" -v n="$N" -v l="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
        printf "%-6s %14.0f %14.0f %14.0f %10.2f %10.2f   %s\n", r, f * 1000 / n, o * 1000 / n, j * 1000 / n, o / f, j / f, l
    }'
    echo "$f $o $j" >>"$RES"
done
awk '
function median(a, n,    i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; o[n] = $2 / $1; j[n] = $3 / $1 }
END {
    mo = median(o, n); mj = median(j, n)
    printf "\nmedian ratio: --once %.2fx free -h, --once --json %.2fx\n", mo, mj
    if (mo <= 1 && mj <= 1) { print "PASS"; exit 0 } else { print "FAIL"; exit 1 }
}' "$RES"
