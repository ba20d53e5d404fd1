#!/usr/bin/env python3
"""Write the README (state and an expected block, from the files alone) of each kernel matrix fixture tree.

Usage: scripts/kernel-fixture-readme.py DIR   (DIR holds linux-KERNEL-guest-NAME trees)
"""
import os, sys
base = sys.argv[1]
desc = {
 'loaded': "zswap (the kernel's default allocator and compressor) holding the 16 MiB workload paged out of its cgroup v2 (memory.reclaim), a virtio disk as the only swap",
 'tiers': "zswap (pool limit 2 %) in front of zram0 (8 MiB, priority 100) and a virtio disk (priority 10), the workload paged out: pages in the pool, in zram and on the disk",
 'cgroup': "the cgroup v2 scenario (tests/kernels/scenario-cgroup.sh) just after its OOM kill: /zt-high (memory.high 8M) after the workload filled twice that over it and exited (high events, pressure), /zt-oom (memory.max 8M, memory.swap.max 0) whose workload the OOM killer took (memory.events oom_kill 1); their memory.events, memory.pressure and limit files with the rest of the tree",
}
kernels = {'6.1': "Debian 12's 6.1 (bookworm)", '6.12': "Debian 13's 6.12 (trixie)", 'newest': "Debian sid's newest"}
for name in sorted(os.listdir(base)):
    d = os.path.join(base, name)
    k, what = name[len('linux-'):].split('-guest-')
    def rd(p):
        try: return open(os.path.join(d, p)).read()
        except OSError: return None
    mem = {}
    for l in (rd('proc/meminfo') or '').splitlines():
        key, _, rest = l.partition(':')
        v = rest.split()
        if v: mem[key] = int(v[0]) * (1024 if len(v) > 1 and v[1] == 'kB' else 1)
    ps = int((rd('pagesize') or '4096').strip())
    dbg = {}
    zd = os.path.join(d, 'sys/kernel/debug/zswap')
    if os.path.isdir(zd):
        for f in sorted(os.listdir(zd)):
            try: dbg[f] = int(open(os.path.join(zd, f)).read().strip())
            except ValueError: pass
    params = {}
    pd = os.path.join(d, 'sys/module/zswap/parameters')
    for f in sorted(os.listdir(pd)):
        params[f] = open(os.path.join(pd, f)).read().strip()
    swaps = (rd('proc/swaps') or '').strip().splitlines()[1:]
    exp = [
      ('memory.total_bytes', mem['MemTotal']),
      ('memory.free_bytes', mem['MemFree']),
      ('zswap.pool_bytes', mem['Zswap']),
      ('zswap.stored_bytes', mem['Zswapped']),
      ('swap.total_bytes', mem['SwapTotal']),
      ('swap.used_bytes', mem['SwapTotal'] - mem['SwapFree']),
      ('swap.in_zswap_bytes', mem['Zswapped']),
    ]
    for key in ('stored_pages', 'pool_total_size', 'pool_limit_hit', 'written_back_pages'):
        if key in dbg: exp.append((f'zswap.debugfs.{key}', dbg[key]))
    mm = rd('sys/block/zram0/mm_stat')
    if mm and any(s.startswith('/dev/zram0') for s in swaps):
        c = [int(x) for x in mm.split()]
        exp += [('zram.0.orig_data_bytes', c[0]), ('zram.0.compr_data_bytes', c[1]), ('zram.0.mem_used_bytes', c[2])]
    rel = (rd('uname-r') or '').strip()
    out = f"""# {name}

Captured by the kernel matrix (`tests/kernels`, `ZSWAPTOP_KERNELS_SAVE_FIXTURES`) inside a QEMU guest running
{kernels[k]} kernel `{rel}` (PAGE_SIZE {ps}), with `scripts/capture-fixture.sh` (hostname redacted): a real
capture of that kernel, not an edited one.

## State

{desc[what]}. The workload (`tests/kernels/workload.c`, its /proc/PID/status included) holds the advisor's mix:
10 % zero-filled, 5 % one word repeated, 10 % random, 35 % text, 30 % structured records, 10 % half text.

- zswap parameters: {', '.join(f'{a}={b}' for a, b in params.items())}
- swap areas: {'; '.join(' '.join(s.split()) for s in swaps)}
- meminfo: Zswap {mem['Zswap']//1024} kB, Zswapped {mem['Zswapped']//1024} kB, SwapTotal {mem['SwapTotal']//1024} kB, SwapFree {mem['SwapFree']//1024} kB, SwapCached {mem['SwapCached']//1024} kB
- zswap debugfs: {', '.join(f'{a}={b}' for a, b in dbg.items()) or 'absent'}

## Expected values

Computed from the files of this tree alone (kB × 1024, pages × pagesize), independently of zswaptop:

```expected
""" + '\n'.join(f'{a} = {b}' for a, b in exp) + "\n```\n"
    open(os.path.join(d, 'README.md'), 'w').write(out)
    print(name, 'ok')
