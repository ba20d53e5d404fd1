//! Advice for the memory tunables, for the swap setup this machine has. Pure, like the rules.
//!
//! A suggestion is marked `opinion` when the kernel documentation does not back the exact value
//! (it only describes the trade-off); widely repeated guide values that the documentation does not
//! support (vfs_cache_pressure 50, watermark_scale_factor 125, overcommit_memory 1, …) are left out.

use std::borrow::Cow;

use super::{Ctx, Setup, thresholds as t};
use crate::model::{Snapshot, TunableAdvice};

/// The swappiness suggested for a setup: (value, why, opinion).
pub(super) fn swappiness_for(setup: Setup) -> (i64, &'static str, bool) {
    match setup {
        Setup::ZswapDisk | Setup::ZramDisk => (
            100,
            "swap-outs land in compressed RAM first and only overflow goes to disk: 100 weighs \
             swap and file I/O equally; the kernel docs allow beyond 100 for in-memory swap",
            false,
        ),
        Setup::ZramOnly | Setup::ZswapZram => (
            150,
            "all swap is compressed RAM; the kernel docs say beyond 100 can be considered for \
             in-memory swap (150 = swap-in a third the cost of a file read; workload-dependent)",
            true,
        ),
        Setup::DiskOnly => (
            60,
            "kernel default: swap to disk is random I/O, usually dearer than file reads (the \
             kernel docs' own caution)",
            false,
        ),
        Setup::NoSwap | Setup::Unknown => (
            60,
            "kernel default; without swap it has no effect on anonymous memory",
            false,
        ),
    }
}

/// Advice for every tunable zswaptop shows, for the setup detected in `snap`.
pub(crate) fn advice(snap: &Snapshot, t: &super::thresholds::Thresholds) -> Vec<TunableAdvice> {
    let c = Ctx { snap, t };
    let setup = c.setup();
    let label = setup.label();
    let cur = |k: &str| snap.tunables.get(k).cloned().flatten();
    let mut out = Vec::new();
    // The texts are the program's own: borrowed, not copied, on every tick.
    let mut add = |name: &'static str, suggested: Cow<'static, str>, why: &'static str, opinion| {
        out.push(TunableAdvice {
            name: name.into(),
            current: cur(name),
            suggested,
            why: why.into(),
            opinion,
            setup: label.into(),
        });
    };

    let (sw, why, op) = swappiness_for(setup);
    add("vm.swappiness", sw.to_string().into(), why, op);

    let all_ssd = {
        let disks = c.disk_devices();
        !disks.is_empty() && disks.iter().all(|d| d.rotational == Some(false))
    };
    let (pc, why) = match setup {
        Setup::ZswapDisk | Setup::ZswapZram | Setup::ZramOnly | Setup::ZramDisk => (
            0,
            "swap-ins come from compressed RAM: readahead only adds decompressions; the kernel \
             docs: lower values mean lower latency on the first fault",
        ),
        Setup::DiskOnly if all_ssd => (
            0,
            "the swap disk has no seeks to amortise (queue/rotational 0); lower values mean \
             lower first-fault latency (kernel docs)",
        ),
        _ => (
            t::PAGE_CLUSTER_DEFAULT,
            "kernel default: 8 pages per swap-in amortise seeks on a rotating or unknown disk",
        ),
    };
    add("vm.page-cluster", pc.to_string().into(), why, false);

    add(
        "vm.vfs_cache_pressure",
        "100".into(),
        "kernel default: compressed swap gives no reason to keep dentry/inode caches longer or \
         shorter",
        false,
    );
    add(
        "vm.watermark_scale_factor",
        "10".into(),
        "kernel default; the kernel docs advise raising it only when direct reclaim (allocstall) \
         is frequent: higher values make kswapd reclaim earlier",
        false,
    );
    let bytes_set = |k: &str| c.vm(k).is_some_and(|v| v > 0);
    add(
        "vm.dirty_ratio",
        "20".into(),
        if bytes_set("dirty_bytes") {
            "kernel default; ignored while dirty_bytes is set"
        } else {
            "kernel default: dirty page cache limits are independent of how swap is set up"
        },
        false,
    );
    add(
        "vm.dirty_background_ratio",
        "10".into(),
        if bytes_set("dirty_background_bytes") {
            "kernel default; ignored while dirty_background_bytes is set"
        } else {
            "kernel default: background writeback starts at 10% of dirtyable memory"
        },
        false,
    );
    add(
        "vm.dirty_bytes",
        "0".into(),
        "0 = dirty_ratio applies (writing either one zeroes the other)",
        false,
    );
    add(
        "vm.dirty_background_bytes",
        "0".into(),
        "0 = dirty_background_ratio applies",
        false,
    );
    add(
        "vm.dirty_expire_centisecs",
        "3000".into(),
        "kernel default: dirty data older than 30 s is written out",
        false,
    );
    add(
        "vm.dirty_writeback_centisecs",
        "500".into(),
        "kernel default: the flusher wakes every 5 s",
        false,
    );
    add(
        "vm.overcommit_memory",
        "0".into(),
        "kernel default heuristic; 1 never refuses (the OOM killer is the only limit), 2 refuses \
         beyond CommitLimit = swap + overcommit_ratio% of RAM",
        false,
    );
    add(
        "vm.overcommit_ratio",
        "50".into(),
        "kernel default; used only with overcommit_memory=2",
        false,
    );
    add(
        "transparent_hugepage.enabled",
        "madvise".into(),
        "huge pages only where programs ask (MADV_HUGEPAGE): the kernel docs' way to avoid \
         spending more memory, which a swapping machine lacks",
        false,
    );
    add(
        "transparent_hugepage.defrag",
        "madvise".into(),
        "direct compaction stalls only MADV_HUGEPAGE regions; always makes every THP fault wait \
         for reclaim and compaction",
        false,
    );
    out
}
