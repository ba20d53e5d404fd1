// SPDX-License-Identifier: GPL-2.0 OR MIT
// zswaptop's BPF programs: how long each swap-in waits, from the fault (entry of do_swap_page) to
// the page being mapped (its exit, across VM_FAULT_RETRY), by the tier that served it. The kernel
// requires a GPL-compatible licence string for these helpers; the Rust loader keeps the
// project's licence (MIT OR Apache-2.0).
//
// No vmlinux.h and no libbpf headers: the programs read only their arguments and return values,
// so they need no kernel struct layout and no CO-RE relocation. Built by build.rs with
// `clang -target bpf -O2 -g`; loaded by src/sources/bpf/mod.rs, which attaches each program on
// its own to the functions this kernel has (6.1: swap_readpage, zswap_frontswap_load,
// zram_rw_page; 6.12 and later: swap_read_folio, zswap_load, zram_submit_bio).
//
// The result is one per-CPU array entry: per tier, a histogram of 96 buckets (log2 x 4, from
// 1 us to 16 s: each bucket 19 % either side of its middle) with the count, the sum and the
// largest time. Nothing goes to user space per event; the loader reads the table once a tick.
typedef unsigned int __u32;
typedef unsigned long long __u64;
#define __always_inline inline __attribute__((always_inline))
#define SEC(n) __attribute__((section(n), used))
#define __uint(name, val) int (*name)[val]
#define __type(name, val) typeof(val) *name
#define BPF_MAP_TYPE_PERCPU_ARRAY 6
#define BPF_MAP_TYPE_LRU_HASH 9
#define BPF_ANY 0
static void *(*bpf_map_lookup_elem)(void *map, const void *key) = (void *)1;
static long (*bpf_map_update_elem)(void *map, const void *key, const void *value, __u64 flags) = (void *)2;
static __u64 (*bpf_ktime_get_ns)(void) = (void *)5;
static __u64 (*bpf_get_current_pid_tgid)(void) = (void *)14;
/* bpf_get_func_ret (5.17+): the return value whatever the number of arguments */
static long (*bpf_get_func_ret)(void *ctx, __u64 *value) = (void *)184;

/* The tiers, in the order the loader reads them (src/sources/bpf/mod.rs: TIERS). */
enum { T_ZSWAP, T_ZRAM, T_DISK, T_CACHE, T_ZERO, NT };
#define F_READ (1u << 0)  /* inside swap_read_folio / swap_readpage */
#define F_ZSWAP (1u << 1) /* zswap was asked during the read */
#define F_ZRAM (1u << 2)  /* a zram request during the read */
#define F_DISK (1u << 3)  /* a bio submitted during the read */
#define F_CACHE (1u << 4) /* the swap cache had the folio */
#define F_RETRY (1u << 5) /* the last exit was VM_FAULT_RETRY: the same fault goes on */
#define VM_FAULT_RETRY 0x000400
#define NB 96    /* buckets per tier */
#define FIRST 40 /* log2 x 4 index of 1024 ns, the first bucket's upper octave */

struct task_state { __u64 start; __u32 flags; __u32 tier_mask; };
/* Read by the loader as NT * NB + 3 * NT u64 values, in this order. */
struct hist { __u64 slot[NT][NB]; __u64 count[NT]; __u64 sum_ns[NT]; __u64 max_ns[NT]; };

struct { __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 16384); __type(key, __u64); __type(value, struct task_state); } tasks SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, struct hist); } hist SEC(".maps");

static __always_inline __u32 log2_u64(__u64 v) {
  __u32 r = 0, s;
  s = (v > 0xFFFFFFFFull) << 5; v >>= s; r |= s;
  s = (v > 0xFFFF) << 4; v >>= s; r |= s;
  s = (v > 0xFF) << 3; v >>= s; r |= s;
  s = (v > 0xF) << 2; v >>= s; r |= s;
  s = (v > 0x3) << 1; v >>= s; r |= s;
  r |= (v >> 1);
  return r;
}
/* log2 x 4: the octave and which quarter of it; then 1 us (1024 ns) .. 16 s into 0 .. NB-1. */
static __always_inline __u32 bucket(__u64 ns) {
  if (ns < 1024) return 0;
  __u32 m = log2_u64(ns);
  __u32 b = (m << 2) | ((ns >> (m - 2)) & 3);
  b -= FIRST;
  return b < NB ? b : NB - 1;
}

SEC("fentry/do_swap_page")
int BPF_PROG_dsp_enter(__u64 *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  struct task_state *st = bpf_map_lookup_elem(&tasks, &id);
  if (st && st->start && (st->flags & F_RETRY)) { st->flags &= ~F_RETRY; return 0; } /* same fault, again */
  if (st) { st->start = bpf_ktime_get_ns(); st->flags = 0; st->tier_mask = 0; return 0; } /* updated in place */
  struct task_state n = { .start = bpf_ktime_get_ns() };
  bpf_map_update_elem(&tasks, &id, &n, BPF_ANY);
  return 0;
}

SEC("fexit/do_swap_page")
int BPF_PROG_dsp_exit(__u64 *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  struct task_state *st = bpf_map_lookup_elem(&tasks, &id);
  if (!st || !st->start) return 0;
  __u64 ret = ctx[1];
  if (ret & VM_FAULT_RETRY) { st->flags |= F_RETRY; return 0; }
  __u32 f = st->flags, m = st->tier_mask;
  int t = -1;
  /* a fault that read several pages (readahead) waited for the slowest */
  if (m & (1u << T_DISK)) t = T_DISK;
  else if (m & (1u << T_ZRAM)) t = T_ZRAM;
  else if (m & (1u << T_ZSWAP)) t = T_ZSWAP;
  else if (m & (1u << T_ZERO)) t = T_ZERO;
  else if (f & F_CACHE) t = T_CACHE;
  __u64 ns = bpf_ktime_get_ns() - st->start;
  st->start = 0; /* idle: kept for this task's next fault (LRU map: dead tasks age out) */
  if (t < 0) return 0; /* not a swap-in (migration entry, ...) */
  __u32 z = 0;
  struct hist *h = bpf_map_lookup_elem(&hist, &z);
  if (!h) return 0;
  /* One bounds check on a flat 64-bit index read back through the stack: clang knows the index
   * is in range and would drop a plain check, and 6.1's verifier loses the bound of a 32-bit
   * index across its zero extension ("R1 unbounded memory access", EACCES). */
  __u32 ti = (__u32)t & 7;
  if (ti >= NT) return 0;
  volatile __u64 flat = (__u64)ti * NB + bucket(ns);
  __u64 idx = flat;
  if (idx >= NT * NB) return 0;
  ((__u64 *)h->slot)[idx]++;
  h->count[ti]++;
  h->sum_ns[ti] += ns;
  if (ns > h->max_ns[ti]) h->max_ns[ti] = ns;
  return 0;
}

static __always_inline int read_enter(void) {
  __u64 id = bpf_get_current_pid_tgid();
  struct task_state *st = bpf_map_lookup_elem(&tasks, &id);
  if (st && st->start) st->flags = (st->flags & (F_CACHE | F_RETRY)) | F_READ;
  return 0;
}
static __always_inline int read_exit(void) {
  __u64 id = bpf_get_current_pid_tgid();
  struct task_state *st = bpf_map_lookup_elem(&tasks, &id);
  if (!st || !st->start) return 0;
  __u32 f = st->flags;
  int t = (f & F_ZRAM) ? T_ZRAM : (f & F_DISK) ? T_DISK : (f & F_ZSWAP) ? T_ZSWAP : T_ZERO;
  st->tier_mask |= 1u << t;
  st->flags = f & (F_CACHE | F_RETRY);
  return 0;
}
SEC("fentry/swap_read_folio") int BPF_PROG_srf_enter(__u64 *ctx) { return read_enter(); }
SEC("fexit/swap_read_folio") int BPF_PROG_srf_exit(__u64 *ctx) { return read_exit(); }
SEC("fentry/swap_readpage") int BPF_PROG_srp_enter(__u64 *ctx) { return read_enter(); }
SEC("fexit/swap_readpage") int BPF_PROG_srp_exit(__u64 *ctx) { return read_exit(); }

/* Only inside the read window: direct reclaim's writes earlier in the fault are not reads. */
static __always_inline int mark(__u32 flag) {
  __u64 id = bpf_get_current_pid_tgid();
  struct task_state *st = bpf_map_lookup_elem(&tasks, &id);
  if (st && st->start && (st->flags & F_READ)) st->flags |= flag;
  return 0;
}
SEC("fentry/zswap_load") int BPF_PROG_zswap_load(__u64 *ctx) { return mark(F_ZSWAP); }
SEC("fentry/zswap_frontswap_load") int BPF_PROG_zswap_fs_load(__u64 *ctx) { return mark(F_ZSWAP); }
SEC("fentry/submit_bio") int BPF_PROG_submit_bio(__u64 *ctx) { return mark(F_DISK); }
/* zram is a module: aya 0.14 attaches fentry to vmlinux functions only, so these are kprobes */
SEC("kprobe/zram_submit_bio") int kp_zram_submit_bio(void *ctx) { return mark(F_ZRAM); }
SEC("kprobe/zram_rw_page") int kp_zram_rw_page(void *ctx) { return mark(F_ZRAM); }

SEC("fexit/swap_cache_get_folio")
int BPF_PROG_scgf_exit(__u64 *ctx) {
  __u64 ret = 0;
  /* 3 arguments in 6.1-6.12, 1 in 7.2: the helper finds the return value in either */
  bpf_get_func_ret(ctx, &ret);
  if (!ret) return 0;
  __u64 id = bpf_get_current_pid_tgid();
  struct task_state *st = bpf_map_lookup_elem(&tasks, &id);
  if (st && st->start) st->flags |= F_CACHE;
  return 0;
}
char LICENSE[] SEC("license") = "Dual MIT/GPL";
