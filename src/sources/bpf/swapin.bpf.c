// SPDX-License-Identifier: GPL-2.0 OR MIT
// zswaptop's BPF programs: how long each swap-in waits, from the fault (entry of do_swap_page) to
// the page being mapped (its exit, across VM_FAULT_RETRY), by the tier that served it. The kernel
// requires a GPL-compatible licence string for these helpers; the Rust loader keeps the
// project's licence (MIT OR Apache-2.0).
//
// No vmlinux.h and no libbpf headers. build.rs builds this file twice with
// `clang -target bpf -O2 -g`:
//
// - swapin.bpf.o, the lean set (fentry/fexit, kernels with BTF). On a zswap hit 3 programs run:
//   the fault's entry and exit (one trampoline) and zswap's load; on a swap-cache hit 2. Each
//   task's state is an LRU hash entry updated in place. A disk or
//   zram read is told by its bio (fentry submit_bio: a read whose disk is called zram*, else a
//   disk) and, on 6.1, by bdev_read_page (zram's synchronous read). Direct reclaim's writes inside
//   a fault are writes and are not counted. Three structures are read through CO-RE (aya
//   relocates the offsets against the kernel's BTF): bio.bi_opf, bio.bi_bdev and bio.bi_end_io,
//   block_device.bd_disk, gendisk.disk_name.
// - swapin-kprobe.bpf.o (-DKPROBES), the fallback for a kernel whose fentry programs do not load
//   (no BTF, or fentry refused) but that has kprobes: kprobe/kretprobe on the same functions,
//   state in an LRU hash by task, and a read window (swap_read_folio/swap_readpage) inside which
//   zswap's load, a bio or zram's request mark the tier (no structure is read: no BTF needed).
//   It costs more (a kprobe is an int3 or ftrace trap, and 7 programs run on a read).
//
// A swap-cache hit is a fault on a swap entry that read nothing: no VM_FAULT_MAJOR, no error,
// and no mark. The one other kind of entry that returns so is a migration entry, whose wait is
// marked (migration_entry_wait, called only there and rarely) and not counted. This replaced a
// probe on the swap-cache lookup's exit, which ran on every swap-in (a fexit trampoline and a
// program of 307 ns a run in the 6.12 guest under TCG, bpf_stats): the programs' time a zswap hit
// there fell from 3.8 to 2.8 us.
//
// The loader (src/sources/bpf/mod.rs) attaches each program on its own to the functions this
// kernel has (6.1: swap_readpage, zswap_frontswap_load, bdev_read_page / zram_rw_page; 6.12 and
// later: swap_read_folio, zswap_load, zram_submit_bio).
//
// The lean set also times the store side (a page on its way out: below, "The store side"); the
// kprobe fallback does not (two more traps a stored page).
//
// The result is one per-CPU array entry: per tier (five of swap-ins, three of stores), a histogram of 96 buckets (log2 x 4, from
// 1 us to 16 s: each bucket 19 % either side of its middle) with the count, the sum and the
// largest time. Nothing goes to user space per event; the loader reads the table once a tick.
typedef unsigned char __u8;
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
static long (*bpf_map_delete_elem)(void *map, const void *key) = (void *)3;
static __u64 (*bpf_get_current_pid_tgid)(void) = (void *)14;

/* The tiers, in the order the loader reads them (src/sources/bpf/mod.rs: TIERS, then STORES):
 * five of swap-ins, then three of stores (a page on its way out). */
enum { T_ZSWAP, T_ZRAM, T_DISK, T_CACHE, T_ZERO, S_ZSWAP, S_ZRAM, S_DISK, NT };
#define F_READ (1u << 0)  /* kprobes: inside swap_read_folio / swap_readpage */
#define F_ZSWAP (1u << 1) /* zswap was asked (lean: during the fault; kprobes: during the read) */
#define F_ZRAM (1u << 2)  /* kprobes: a zram request during the read */
#define F_DISK (1u << 3)  /* kprobes: a bio submitted during the read */
#define F_MIGRATION (1u << 4) /* a migration entry's wait: not a swap-in */
#define F_RETRY (1u << 5) /* the last exit was VM_FAULT_RETRY: the same fault goes on */
#define F_MAJOR (1u << 6) /* the fault read the page (VM_FAULT_MAJOR) */
#define VM_FAULT_MAJOR 0x000004
#define VM_FAULT_RETRY 0x000400
/* OOM | SIGBUS | HWPOISON | HWPOISON_LARGE | SIGSEGV | FALLBACK (include/linux/mm_types.h) */
#define VM_FAULT_ERROR 0x000873
#define REQ_OP_MASK 0xff /* REQ_OP_BITS 8 since 4.10; REQ_OP_READ is 0 */
#define NB 96    /* buckets per tier */
#define FIRST 40 /* log2 x 4 index of 1024 ns, the first bucket's upper octave */

/* start, flags, tier_mask: the fault; zs_start: a zswap store; dw_start, dw_tier: a synchronous
 * device write (zram). A fault's direct reclaim stores pages, and zswap's writeback writes one,
 * inside one another: each has its own start. */
struct task_state { __u64 start; __u32 flags; __u32 tier_mask; __u64 zs_start; __u64 dw_start; __u32 dw_tier; __u32 pad; };
/* Read by the loader as NT * NB + 3 * NT u64 values, in this order. */
struct hist { __u64 slot[NT][NB]; __u64 count[NT]; __u64 sum_ns[NT]; __u64 max_ns[NT]; };

/* Entry 0 is counted from task context (a fault, a store, a write's call); entry 1 only by an
 * asynchronous write's completion, which runs in interrupt context and could otherwise interrupt
 * a task's update of entry 0 on the same CPU halfway (the kernel keeps one program from nesting
 * in itself, not two programs). The loader sums both. */
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 2); __type(key, __u32); __type(value, struct hist); } hist SEC(".maps");
/* Each task's fault, by pid_tgid: an LRU hash updated in place (an entry is made once a task and
 * dead tasks age out). Task storage was tried instead and cost more where it was measured (the
 * 6.12 guest under TCG, kernel.bpf_stats_enabled): a zswap_load program that only sets a flag
 * took 2,576 ns a run through bpf_task_storage_get against 796 ns through this hash. */
struct { __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 16384); __type(key, __u64); __type(value, struct task_state); } tasks SEC(".maps");

static __always_inline struct task_state *state(void) {
  __u64 id = bpf_get_current_pid_tgid();
  return bpf_map_lookup_elem(&tasks, &id);
}

/* The task's state for a new fault: its entry, or a new one. */
static __always_inline struct task_state *state_or_new(void) {
  __u64 id = bpf_get_current_pid_tgid();
  struct task_state *st = bpf_map_lookup_elem(&tasks, &id);
  if (st) return st;
  struct task_state n = {};
  bpf_map_update_elem(&tasks, &id, &n, BPF_ANY);
  return bpf_map_lookup_elem(&tasks, &id);
}

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

/* One wait of `ns` in tier `t`, in the histogram entry `z` (0: task context, 1: interrupt). */
static __always_inline void record_in(__u32 z, int t, __u64 ns) {
  struct hist *h = bpf_map_lookup_elem(&hist, &z);
  if (!h) return;
  /* One bounds check on a flat 64-bit index read back through the stack: clang knows the index
   * is in range and would drop a plain check, and 6.1's verifier loses the bound of a 32-bit
   * index across its zero extension ("R1 unbounded memory access", EACCES). */
  __u32 ti = (__u32)t & 7;
  if (ti >= NT) return;
  volatile __u64 flat = (__u64)ti * NB + bucket(ns);
  __u64 idx = flat;
  if (idx >= NT * NB) return;
  ((__u64 *)h->slot)[idx]++;
  h->count[ti]++;
  h->sum_ns[ti] += ns;
  if (ns > h->max_ns[ti]) h->max_ns[ti] = ns;
}
static __always_inline void record(int t, __u64 ns) { record_in(0, t, ns); }

/* The fault begins, or goes on after a VM_FAULT_RETRY (its start is kept). */
static __always_inline void fault_enter(struct task_state *st) {
  if (st->start && (st->flags & F_RETRY)) { st->flags &= ~F_RETRY; return; }
  st->start = bpf_ktime_get_ns();
  st->flags = 0;
  st->tier_mask = 0;
}

/* The fault ends with `ret`: count it in its tier, the slowest source it read from (a fault
 * that read several pages, readahead, waited for the slowest). */
static __always_inline void fault_exit(struct task_state *st, __u64 ret) {
  if (!st->start) return;
  __u32 f = st->flags | ((ret & VM_FAULT_MAJOR) ? F_MAJOR : 0);
  if (ret & VM_FAULT_RETRY) { st->flags = f | F_RETRY; return; }
  __u32 m = st->tier_mask;
  int t = -1;
  if (m & (1u << T_DISK)) t = T_DISK;
  else if (m & (1u << T_ZRAM)) t = T_ZRAM;
  else if ((m & (1u << T_ZSWAP)) || (f & F_ZSWAP)) t = T_ZSWAP; /* asked, and no device read */
  else if ((m & (1u << T_ZERO)) || (f & F_MAJOR)) t = T_ZERO;   /* read, and nothing asked */
  else if (!(f & F_MIGRATION) && !(ret & VM_FAULT_ERROR)) t = T_CACHE; /* read nothing */
  __u64 ns = bpf_ktime_get_ns() - st->start;
  st->start = 0; /* idle: kept for this task's next fault */
  if (t < 0) return; /* not a swap-in (a migration entry, an error) */
  record(t, ns);
}

#ifndef KPROBES
/* ---- The lean set: fentry/fexit, CO-RE. ---- */
struct gendisk { char disk_name[32]; } __attribute__((preserve_access_index));
struct block_device { struct gendisk *bd_disk; } __attribute__((preserve_access_index));
struct bio { struct block_device *bi_bdev; __u32 bi_opf; void *bi_end_io; } __attribute__((preserve_access_index));
#define REQ_OP_WRITE 1

static long (*bpf_probe_read_kernel)(void *dst, __u32 size, const void *src) = (void *)113;


/* Whether the device's disk is called zram*. */
static __always_inline int is_zram(struct block_device *bdev) {
  char name[4] = {};
  struct gendisk *d = bdev ? bdev->bd_disk : 0;
  if (d) bpf_probe_read_kernel(name, sizeof(name), d->disk_name);
  return name[0] == 'z' && name[1] == 'r' && name[2] == 'a' && name[3] == 'm';
}

/* A device read inside the fault: zram if its disk is called zram*, else a disk. */
static __always_inline void device_read(struct task_state *st, struct block_device *bdev) {
  st->tier_mask |= 1u << (is_zram(bdev) ? T_ZRAM : T_DISK);
}

/* ---- The store side: how long a page takes to be stored on its way out. ----
 * zswap: zswap_store (6.12+; a folio, true when stored) or zswap_frontswap_store (6.1; 0 when
 * stored), entry to exit, stored pages only (what zswpout counts).
 * A device write goes through __swap_writepage (every kernel has it; 7.2's
 * swap_writepage_bdev_sync is in its BTF but does not attach, ENOENT). Inside it:
 * - an asynchronous write (a disk): a bio whose completion is end_swap_bio_write (the loader
 *   sets its address from /proc/kallsyms), timed from submit_bio to that completion by a hash on
 *   the bio; the call itself is then not timed;
 * - else a synchronous one (zram, which has SWP_SYNCHRONOUS_IO; 6.12+: a bio waited for, 6.1:
 *   bdev_write_page, zram's rw_page, without a bio), timed entry to exit, its tier by the device
 *   seen inside; a call that showed no device (swap over NFS) is not counted.
 * Reclaim (kswapd, or a task's direct reclaim) pays the store; a disk write's wait is the
 * device's. */
volatile const __u64 swap_end_io = 0;
struct wbio { __u64 start; __u64 tier; };
struct { __uint(type, BPF_MAP_TYPE_LRU_HASH); __uint(max_entries, 16384); __type(key, __u64); __type(value, struct wbio); } wbios SEC(".maps");

static __always_inline int zswap_store_enter(void) {
  struct task_state *st = state_or_new();
  if (st) st->zs_start = bpf_ktime_get_ns();
  return 0;
}
static __always_inline int zswap_store_exit(int stored) {
  struct task_state *st = state();
  if (!st || !st->zs_start) return 0;
  __u64 ns = bpf_ktime_get_ns() - st->zs_start;
  st->zs_start = 0;
  if (stored) record(S_ZSWAP, ns);
  return 0;
}
SEC("fentry/zswap_store") int BPF_PROG_zswap_store(__u64 *ctx) { return zswap_store_enter(); }
SEC("fexit/zswap_store") int BPF_PROG_zswap_store_exit(__u64 *ctx) { return zswap_store_exit((ctx[1] & 0xff) != 0); }
SEC("fentry/zswap_frontswap_store") int BPF_PROG_zswap_fs_store(__u64 *ctx) { return zswap_store_enter(); }
SEC("fexit/zswap_frontswap_store") int BPF_PROG_zswap_fs_store_exit(__u64 *ctx) { return zswap_store_exit((int)ctx[3] == 0); }

/* The write's window: its tier (dw_tier) is set by the device seen inside, 0 until then. */
SEC("fentry/__swap_writepage")
int BPF_PROG_swap_write(__u64 *ctx) {
  struct task_state *st = state_or_new();
  if (!st) return 0;
  st->dw_tier = 0;
  st->dw_start = bpf_ktime_get_ns();
  return 0;
}
SEC("fexit/__swap_writepage")
int BPF_PROG_swap_write_exit(__u64 *ctx) {
  struct task_state *st = state();
  if (!st || !st->dw_start) return 0;
  __u64 ns = bpf_ktime_get_ns() - st->dw_start;
  st->dw_start = 0;
  if (st->dw_tier) record(st->dw_tier == S_ZRAM ? S_ZRAM : S_DISK, ns);
  return 0;
}
/* 6.1: a device with rw_page (zram) writes the page without a bio. */
SEC("fentry/bdev_write_page")
int BPF_PROG_rw_write(__u64 *ctx) {
  struct task_state *st = state();
  if (st && st->dw_start) st->dw_tier = is_zram((struct block_device *)ctx[0]) ? S_ZRAM : S_DISK;
  return 0;
}

/* An asynchronous swap write's completion. */
SEC("fentry/end_swap_bio_write")
int BPF_PROG_swap_write_done(__u64 *ctx) {
  __u64 key = ctx[0];
  struct wbio *w = bpf_map_lookup_elem(&wbios, &key);
  if (!w) return 0;
  __u64 ns = bpf_ktime_get_ns() - w->start;
  int t = w->tier == S_ZRAM ? S_ZRAM : S_DISK;
  bpf_map_delete_elem(&wbios, &key);
  record_in(1, t, ns);
  return 0;
}

SEC("fentry/do_swap_page")
int BPF_PROG_dsp_enter(__u64 *ctx) {
  struct task_state *st = state_or_new();
  if (st) fault_enter(st);
  return 0;
}

SEC("fexit/do_swap_page")
int BPF_PROG_dsp_exit(__u64 *ctx) {
  struct task_state *st = state();
  if (st) fault_exit(st, ctx[1]);
  return 0;
}

/* A migration entry: the fault waits for the page to move, and is not a swap-in. */
SEC("fentry/migration_entry_wait")
int BPF_PROG_migration_wait(__u64 *ctx) {
  struct task_state *st = state();
  if (st && st->start) st->flags |= F_MIGRATION;
  return 0;
}

/* zswap was asked for the page: a hit unless a device read follows (6.12+ asks on every read
 * but a zero-filled page's; 6.1's frontswap only for pages zswap holds). */
static __always_inline int zswap_asked(void) {
  struct task_state *st = state();
  if (st && st->start) st->flags |= F_ZSWAP;
  return 0;
}
SEC("fentry/zswap_load") int BPF_PROG_zswap_load(__u64 *ctx) { return zswap_asked(); }
SEC("fentry/zswap_frontswap_load") int BPF_PROG_zswap_fs_load(__u64 *ctx) { return zswap_asked(); }

/* Every bio of the machine passes here. A write is an asynchronous swap write when its
 * completion is end_swap_bio_write, else it names the device of a synchronous one when its task
 * is in one; a read is a fault's when its task is in one (a task outside both has no state, or
 * an idle one, and returns after one lookup). */
SEC("fentry/submit_bio")
int BPF_PROG_submit_bio(__u64 *ctx) {
  struct bio *b = (struct bio *)ctx[0];
  __u32 op = b->bi_opf & REQ_OP_MASK;
  if (op == REQ_OP_WRITE) {
    __u64 end_io = swap_end_io;
    struct task_state *st = state();
    if (end_io && (__u64)b->bi_end_io == end_io) {
      __u64 key = (__u64)b;
      struct wbio w = { bpf_ktime_get_ns(), is_zram(b->bi_bdev) ? S_ZRAM : S_DISK };
      bpf_map_update_elem(&wbios, &key, &w, BPF_ANY);
      if (st) st->dw_start = 0; /* timed to its completion, not as the call */
      return 0;
    }
    if (st && st->dw_start) st->dw_tier = is_zram(b->bi_bdev) ? S_ZRAM : S_DISK;
    return 0;
  }
  if (op) return 0; /* neither a read nor a write */
  struct task_state *st = state();
  if (!st || !st->start) return 0;
  device_read(st, b->bi_bdev);
  return 0;
}

/* 6.1: a device with rw_page (zram) reads a swapped page without a bio. Only reads come here. */
SEC("fentry/bdev_read_page")
int BPF_PROG_bdev_read_page(__u64 *ctx) {
  struct task_state *st = state();
  if (st && st->start) device_read(st, (struct block_device *)ctx[0]);
  return 0;
}

#ifdef PROXY
/* Built only by benches/bpf_native.rs (-DPROXY), never into zswaptop: what a zswap hit's three
 * programs do, run in that order on every user page fault (the raw tracepoint page_fault_user),
 * and an empty program, so that their cost is measured natively on a kernel that refuses
 * fentry but takes raw tracepoints. */
SEC("raw_tp/page_fault_user")
int proxy_enter(void *ctx) {
  struct task_state *st = state_or_new();
  if (st) fault_enter(st);
  return 0;
}
SEC("raw_tp/page_fault_user") int proxy_zswap(void *ctx) { return zswap_asked(); }
SEC("raw_tp/page_fault_user")
int proxy_exit(void *ctx) {
  struct task_state *st = state();
  if (st) fault_exit(st, VM_FAULT_MAJOR);
  return 0;
}
SEC("raw_tp/page_fault_user") int proxy_empty(void *ctx) { return 0; }
/* What each operation of the bodies costs on its own (their run time over an empty program's,
 * with kernel.bpf_stats_enabled): a clock read, a task's state lookup, the task id, a histogram
 * update, and the alternative to the lookup, task storage. */
SEC("raw_tp/page_fault_user")
int op_ktime(void *ctx) {
  volatile __u64 t = bpf_ktime_get_ns();
  (void)t;
  return 0;
}
SEC("raw_tp/page_fault_user")
int op_lookup(void *ctx) {
  volatile struct task_state *st = state();
  (void)st;
  return 0;
}
#define BPF_MAP_TYPE_TASK_STORAGE 29
#define BPF_F_NO_PREALLOC 1
#define BPF_LOCAL_STORAGE_GET_F_CREATE 1
static void *(*bpf_task_storage_get)(void *map, void *task, void *value, __u64 flags) = (void *)156;
static void *(*bpf_get_current_task_btf)(void) = (void *)158;
struct { __uint(type, BPF_MAP_TYPE_TASK_STORAGE); __uint(map_flags, BPF_F_NO_PREALLOC); __type(key, int); __type(value, struct task_state); } tstore SEC(".maps");
SEC("raw_tp/page_fault_user")
int op_task(void *ctx) {
  volatile struct task_state *st = bpf_task_storage_get(&tstore, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  (void)st;
  return 0;
}
SEC("raw_tp/page_fault_user")
int op_pid(void *ctx) {
  volatile __u64 t = bpf_get_current_pid_tgid();
  (void)t;
  return 0;
}
SEC("raw_tp/page_fault_user")
int op_hist(void *ctx) {
  __u32 z = 0;
  struct hist *h = bpf_map_lookup_elem(&hist, &z);
  if (!h) return 0;
  volatile __u64 ns = 5000;
  __u64 idx = bucket(ns);
  if (idx >= NB) return 0;
  h->slot[T_CACHE][idx]++;
  h->count[T_CACHE]++;
  h->sum_ns[T_CACHE] += ns;
  if (ns > h->max_ns[T_CACHE]) h->max_ns[T_CACHE] = ns;
  return 0;
}
#endif

#else
/* ---- The fallback: kprobes, an LRU hash by task, a read window. ---- */
/* The return value's register in struct pt_regs (build.rs defines the target's arch). */
#if defined(__TARGET_ARCH_x86)
#define RC_SLOT 10 /* r15 r14 r13 r12 bp bx r11 r10 r9 r8 ax */
#elif defined(__TARGET_ARCH_arm64)
#define RC_SLOT 0 /* regs[0] */
#else
#error "build.rs names the target's arch: __TARGET_ARCH_x86 or __TARGET_ARCH_arm64"
#endif
#define RC(ctx) (((__u64 *)(ctx))[RC_SLOT])

SEC("kprobe/do_swap_page")
int kp_dsp_enter(void *ctx) {
  struct task_state *st = state_or_new();
  if (st) fault_enter(st);
  return 0;
}

SEC("kretprobe/do_swap_page")
int kr_dsp_exit(void *ctx) {
  struct task_state *st = state();
  if (st) fault_exit(st, RC(ctx));
  return 0;
}

SEC("kprobe/migration_entry_wait")
int kp_migration_wait(void *ctx) {
  struct task_state *st = state();
  if (st && st->start) st->flags |= F_MIGRATION;
  return 0;
}

/* The read window: what is called inside it tells the tier of that read. */
SEC("kprobe/swap_read_folio")
int kp_read_enter(void *ctx) {
  struct task_state *st = state();
  if (st && st->start) st->flags = (st->flags & F_RETRY) | F_READ;
  return 0;
}

SEC("kretprobe/swap_read_folio")
int kr_read_exit(void *ctx) {
  struct task_state *st = state();
  if (!st || !st->start) return 0;
  __u32 f = st->flags;
  int t = (f & F_ZRAM) ? T_ZRAM : (f & F_DISK) ? T_DISK : (f & F_ZSWAP) ? T_ZSWAP : T_ZERO;
  st->tier_mask |= 1u << t;
  st->flags = f & F_RETRY;
  return 0;
}

/* Only inside the read window: direct reclaim's writes earlier in the fault are not reads. */
static __always_inline int mark(__u32 flag) {
  struct task_state *st = state();
  if (st && st->start && (st->flags & F_READ)) st->flags |= flag;
  return 0;
}
SEC("kprobe/zswap_load") int kp_zswap(void *ctx) { return mark(F_ZSWAP); }
SEC("kprobe/submit_bio") int kp_bio(void *ctx) { return mark(F_DISK); }
SEC("kprobe/zram_submit_bio") int kp_zram(void *ctx) { return mark(F_ZRAM); }
#endif

char LICENSE[] SEC("license") = "Dual MIT/GPL";
