#!/usr/bin/env bash
# A corpus of damaged and crafted recordings through the release build's readers, each run under
# /usr/bin/time: the most memory (peak RSS) and CPU any of them took, the CPU per MiB of file, and
# whether any output held a raw control character or any run ended on a signal or a panic.
#
#   scripts/fuzz-recordings.sh          # 300 mutated recordings (and the crafted ones)
#   scripts/fuzz-recordings.sh 1000     # 1000
#
# The corpus: assets/demo.zsr and a recording of a fixture tree (20 processes, their command
# lines, the cgroup tree) damaged byte by byte (flipped bits, random bursts, cuts, stretches
# repeated or removed, header bits) and inside their records (payload bytes changed and the
# frame's checksum made right, so the decoder sees them); tests/fixtures/recording-*.zsr; and
# five made here: 4 MiB whose every 17th offset claims a frame of half the file, a keyframe of
# 131,073 slots, one of 16,384 slots whose names take 1 MiB (both bounds), 1 MiB of empty
# deltas after a real keyframe (the most records a MiB can hold, each decoded and exported as a
# row), and 1 MiB of empty deltas after a keyframe whose one slot is no sample (each record
# skipped with a warning); and from the record bench (`cargo bench --bench record -- crafted
# DIR`), three of 1 MiB of the smallest deltas that change something, each a row made: the
# clocks alone; the clocks and one process's swap; the clocks and one cgroup's memory. Each goes
# through `export --format jsonl`, `export --format csv` and `--once --from --at -0s`. Bounds
# checked, for every file and every command: 32 MiB of RSS, 2 s of CPU per MiB (files under 1 MiB counted as 1 MiB: the binary's
# start is most of their cost).
#
# Writes only under target/fuzz-recordings/. Exit status 1 if a bound or a check failed.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-300}"
[ -x /usr/bin/time ] || { echo "fuzz: /usr/bin/time missing (apt-get install -y time)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "fuzz: python3 missing" >&2; exit 2; }
cargo build --release --locked --quiet
bin="$PWD/target/release/zswaptop"
out="$PWD/target/fuzz-recordings"
rm -rf "$out"
mkdir -p "$out/corpus"

# A base recording of a fixture tree, with processes (given command lines) and cgroups.
tree="$out/tree"
cp -a tests/fixtures/depth-cgroup-v2 "$tree"
for p in "$tree"/proc/[0-9]*; do printf '/usr/bin/worker\0--token\0s3cret\0' >"$p/cmdline"; done
"$bin" record -i 0.1 --duration 3 --top 20 --command-lines --root "$tree" "$out/base.zsr" 2>/dev/null

python3 - "$n" "$out/corpus" assets/demo.zsr "$out/base.zsr" tests/fixtures/recording-*.zsr <<'PY'
import os, random, shutil, struct, sys, zlib

n, corpus, demo, base = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
crafted = sys.argv[5:]
rng = random.Random(2026)
HEADER = open(demo, "rb").read()[:16]
T0 = 1_795_316_400_000

def frames(b):
    """(kind, ms, body) of the intact frames from offset 16 on (the format's own walk)."""
    at, out = 16, []
    while at + 17 <= len(b):
        ln, crc = struct.unpack_from("<II", b, at)
        body = b[at + 8:at + 8 + ln]
        if len(body) != ln or zlib.crc32(body) != crc:
            break
        out.append(body)
        at += 8 + ln
    return out

def frame(body):
    return struct.pack("<II", len(body), zlib.crc32(body)) + body

def mutate_bytes(b):
    b = bytearray(b)
    k = rng.randrange(6)
    if k == 0:
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(len(b)); b[i] ^= 1 << rng.randrange(8)
    elif k == 1:
        del b[rng.randint(16, len(b) - 1):]
    elif k == 2:
        i = rng.randrange(len(b))
        for j in range(i, min(len(b), i + rng.randint(1, 512))):
            b[j] = rng.randrange(256)
    elif k == 3:
        i = rng.randrange(len(b)); s = b[i:i + rng.randint(1, 2048)]
        j = rng.randrange(len(b)); b[j:j] = s
    elif k == 4:
        i = rng.randrange(len(b)); del b[i:i + rng.randint(1, 2048)]
    else:
        i = rng.randrange(16); b[i] ^= 1 << rng.randrange(8)
    return bytes(b)

def mutate_record(b):
    fs = frames(b)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(fs)); body = bytearray(fs[i])
        k = rng.randrange(5)
        if k == 0 and len(body) > 9:
            j = rng.randrange(9, len(body)); body[j] ^= 1 << rng.randrange(8)
        elif k == 1 and len(body) > 9:
            j = rng.randrange(9, len(body)); body[j] = rng.choice([0, 0x7f, 0x80, 0xff, rng.randrange(256)])
        elif k == 2:
            del body[rng.randint(9, len(body)):]
        elif k == 3:
            j = rng.randint(9, len(body)); body[j:j] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        else:
            body[0] ^= 0x03  # keyframe <-> delta
        fs[i] = bytes(body)
    return HEADER + b"".join(frame(f) for f in fs)

bases = [open(demo, "rb").read(), open(base, "rb").read()]
for i in range(n):
    b = rng.choice(bases)
    b = mutate_bytes(b) if i % 2 else mutate_record(b)
    open(os.path.join(corpus, f"mutated-{i:04}.zsr"), "wb").write(b)
for c in crafted:
    shutil.copy(c, os.path.join(corpus, "crafted-" + os.path.basename(c)))

# 4 MiB: every 17th offset claims a keyframe of half the file, with a wrong checksum.
size = 4 << 20
claim = struct.pack("<II", size // 2, 0xDEADBEEF) + bytes([1]) + struct.pack("<Q", T0)
b = HEADER + claim * ((size - 16) // 17)
open(os.path.join(corpus, "made-resync-4m.zsr"), "wb").write(b + bytes(size - len(b)))

# A keyframe of 131,073 slots `[i]` holding 0.
def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80); v >>= 7
    out.append(v); return bytes(out)
count = 131_073
slots = b"".join(varint(len(p)) + p + b"\x03\x00" for p in (b"\x01" + varint(i) for i in range(count)))
open(os.path.join(corpus, "made-many-slots.zsr"), "wb").write(
    HEADER + frame(bytes([1]) + struct.pack("<Q", T0) + varint(count) + slots))
# A keyframe at both bounds: 16,384 slots under unknown names taking 1 MiB of paths.
key = lambda name: b"\x00" + varint(len(name)) + name
count = 16_384
slots = b"".join(varint(len(p)) + p + b"\x03\x00" for p in (key(b"%061d" % i) for i in range(count)))
open(os.path.join(corpus, "made-slots-at-the-bounds.zsr"), "wb").write(
    HEADER + frame(bytes([1]) + struct.pack("<Q", T0) + varint(count) + slots))

# 1 MiB: a real keyframe, then empty deltas (nothing changed, nothing added or removed).
key = frames(bases[1])[0]
deltas = [frame(bytes([2]) + struct.pack("<Q", T0 + i * 1000) + b"\x00\x00\x00") for i in range(1, 52_000)]
open(os.path.join(corpus, "made-empty-deltas-1m.zsr"), "wb").write(HEADER + frame(key) + b"".join(deltas))

# 1 MiB: a keyframe of one slot at the root holding 0 (it decodes, but is no sample), then
# empty deltas: every record is skipped, with a warning of its own.
key = bytes([1]) + struct.pack("<Q", T0) + b"\x01\x00\x03\x00"
open(os.path.join(corpus, "made-no-sample-1m.zsr"), "wb").write(HEADER + frame(key) + b"".join(deltas))
PY

cargo bench --locked --quiet --bench record -- crafted "$out/corpus" >/dev/null

results="$out/results.tsv"
: >"$results"
for f in "$out"/corpus/*.zsr; do
  size=$(stat -c %s "$f")
  for cmd in "export --format jsonl --from" "export --format csv --from" "--once --at -0s --from"; do
    # shellcheck disable=SC2086
    /usr/bin/time -f "%x %M %U %S" -o "$out/time" "$bin" $cmd "$f" >"$out/stdout" 2>"$out/stderr" || true
    read -r status rss user sys < <(tail -n 1 "$out/time")
    if grep -q "terminated by signal" "$out/time"; then status="signal"; fi
    raw=$(python3 -c 'import sys
bad = 0
for p in sys.argv[1:]:
    t = open(p, "rb").read().decode("utf-8", "replace")
    bad += sum(1 for c in t if (ord(c) < 32 and c not in "\n\t") or 0x7f <= ord(c) <= 0x9f)
print(bad)' "$out/stdout" "$out/stderr")
    panic=$(grep -c "panicked" "$out/stderr" || true)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(basename "$f")" "$cmd" "$size" "$status" "$rss" "$user" "$sys" "$raw:$panic" >>"$results"
  done
done

python3 - "$results" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
fail = []
worst_rss = max(rows, key=lambda r: int(r[4]))
def cpu(r): return float(r[5]) + float(r[6])
def per_mib(r): return cpu(r) / max(int(r[2]) / 2**20, 1.0)
worst_cpu = max(rows, key=cpu)
EMPTY = "made-empty-deltas-1m.zsr"
for r in rows:
    raw, panic = r[7].split(":")
    if r[3] not in ("0", "1"): fail.append(f"{r[0]} {r[1]}: status {r[3]}")
    if int(raw): fail.append(f"{r[0]} {r[1]}: {raw} raw control characters")
    if int(panic): fail.append(f"{r[0]} {r[1]}: panicked")
    if int(r[4]) > 32 * 1024: fail.append(f"{r[0]} {r[1]}: {int(r[4]) / 1024:.1f} MiB RSS")
    if per_mib(r) > 2.0:
        fail.append(f"{r[0]} {r[1]}: {per_mib(r):.2f} s CPU per MiB")
files = len({r[0] for r in rows})
print(f"{len(rows)} runs over {files} recordings ({sum(1 for r in rows if r[3] == '0')} status 0, {sum(1 for r in rows if r[3] == '1')} status 1)")
print(f"peak RSS: {int(worst_rss[4]) / 1024:.1f} MiB ({worst_rss[0]}, {worst_rss[1]})")
print(f"most CPU: {cpu(worst_cpu):.2f} s ({worst_cpu[0]}, {int(worst_cpu[2]) / 2**20:.2f} MiB, {worst_cpu[1]})")
worst_per = max(rows, key=per_mib)
print(f"most CPU per MiB (at least 1 MiB counted): {per_mib(worst_per):.2f} s ({worst_per[0]}, {worst_per[1]})")
reading = [r for r in rows if r[1].startswith("--once")]
worst_read = max(reading, key=per_mib)
print(f"reading alone (--once --from), most CPU per MiB: {per_mib(worst_read):.2f} s ({worst_read[0]})")
records = 52_000
for r in rows:
    if r[0] == EMPTY and r[1].startswith("export"):
        print(f"{EMPTY} ({records} records in {int(r[2]) / 2**20:.2f} MiB), {r[1]}: {cpu(r):.2f} s, {cpu(r) / records * 1e6:.1f} us per row written")
for f in fail: print("FAIL " + f)
sys.exit(1 if fail else 0)
PY
