//! The rules on the swap setup and the VM's tunables: zswap without swap, page-cluster,
//! swappiness, swap too small, THP, thrashing, swap priorities.

use super::*;

// --- zswap-no-swap ---------------------------------------------------------------------------

pub(crate) fn zswap_no_swap(c: &Ctx) -> Option<Finding> {
    if !c.zswap_on() || !c.swaps_known() || !c.devices().is_empty() {
        return None;
    }
    let size = c
        .snap
        .zswap
        .pool_limit_bytes
        .map(|l| ceil_gib(l as f64 * ASSUMED_RATIO))
        .unwrap_or(4);
    Some(finding(
        "zswap-no-swap",
        Severity::Warn,
        "zswap is enabled but there is no swap area, so it can store nothing",
        vec![
            zswap_line(c),
            format!(
                "/proc/swaps lists no active swap area (SwapTotal {})",
                f::bytes(c.snap.swap.total_bytes)
            ),
        ],
        format!(
            "Give zswap a swap area to cache: `sudo fallocate -l {size}G /swapfile && sudo chmod \
             600 /swapfile && sudo mkswap /swapfile && sudo swapon /swapfile`; to keep it, add \
             `/swapfile none swap defaults 0 0` to /etc/fstab. If you want no swap at all, turn \
             zswap off instead: {}",
            zswap_param_fix("enabled", "N", "0")
        ),
        "zswap is a cache in front of a swap area, not a swap area itself: a page is compressed \
         into its pool only after it has been given a slot on an active swap device. With no swap \
         area the kernel never swaps anonymous memory out, so zswap stays empty however short \
         memory gets.",
    ))
}

// --- page-cluster ----------------------------------------------------------------------------

pub(crate) fn page_cluster(c: &Ctx) -> Option<Finding> {
    let pc = c.vm("page-cluster")?;
    if pc <= 0 || !c.swaps_known() || c.devices().is_empty() {
        return None;
    }
    let mut tiers = Vec::new();
    if c.zswap_on() {
        tiers.push(format!(
            "fast tier: zswap enabled (compressor {})",
            c.snap.zswap.compressor.as_deref().unwrap_or(f::MISSING)
        ));
    }
    for z in c.zram_devices() {
        tiers.push(format!("fast tier: {} is zram", z.path));
    }
    for d in c.disk_devices() {
        if d.rotational == Some(false) {
            tiers.push(format!(
                "{} is on {}: non-rotational (queue/rotational 0)",
                d.path,
                d.disks.join(" + ")
            ));
        }
    }
    if tiers.is_empty() {
        return None;
    }
    let pages = 1u64.checked_shl(u32::try_from(pc.min(30)).unwrap_or(30))?;
    let mut ev = vec![format!(
        "vm.page-cluster = {pc}: each swap-in fault reads up to {pages} pages ({})",
        f::bytes_raw(pages.saturating_mul(c.page_size()))
    )];
    ev.extend(tiers);
    Some(finding(
        "page-cluster",
        Severity::Info,
        format!("vm.page-cluster is {pc} with a fast swap tier; 0 turns swap readahead off"),
        ev,
        sysctl_fix("page-cluster", 0),
        "vm.page-cluster makes each swap-in fault read up to 2^n neighbouring swap slots, which \
         amortises seeks on a rotating disk; from zswap, zram or a disk without seeks every extra \
         page is decompression or I/O the fault waits for, for pages that may never be used. The \
         kernel documentation says lower values give lower latency on the first fault, at the cost \
         of extra faults when the neighbours were needed after all.",
    ))
}

// --- swappiness-low --------------------------------------------------------------------------

pub(crate) fn swappiness_low(c: &Ctx) -> Option<Finding> {
    let sw = c.vm("swappiness")?;
    let setup = c.setup();
    if sw >= c.t.swappiness_low || !setup.compressed() {
        return None;
    }
    let suggested = tunables::swappiness_for(setup).0;
    let tier = match c.zram_devices().first() {
        Some(z) if !c.zswap_on() => format!("compressed swap: {} is zram", z.path),
        _ => "compressed swap: zswap is enabled in front of the swap area".to_string(),
    };
    Some(finding(
        "swappiness-low",
        if sw <= c.t.swappiness_very_low {
            Severity::Warn
        } else {
            Severity::Info
        },
        format!("vm.swappiness is {sw} although swap is compressed in RAM and cheap"),
        vec![
            format!(
                "vm.swappiness = {sw} (kernel default 60; 100 = swap and file I/O cost the same)"
            ),
            tier,
            format!("setup: {}", setup.label()),
        ],
        sysctl_fix("swappiness", suggested),
        "vm.swappiness is the cost the kernel gives swapping anonymous memory relative to dropping \
         page cache (0-200, 100 meaning equal), so a low value makes it drop file cache first even \
         though a compressed swap-out costs no disk I/O. The kernel documentation says that for \
         in-memory swap like zram or zswap, values beyond 100 can be considered.",
    ))
}

// --- swap-too-small --------------------------------------------------------------------------

pub(crate) fn swap_too_small(c: &Ctx) -> Option<Finding> {
    if !c.zswap_on() || !c.zram_devices().is_empty() {
        return None;
    }
    let z = &c.snap.zswap;
    let limit = z.pool_limit_bytes?;
    let r = c
        .snap
        .capacity
        .ratio
        .filter(|r| r.is_finite() && *r > 0.0)?;
    // A pool that holds too little to say how pages compress (the outputs' rule, with its
    // reason) is taken at the ratio assumed for an empty one, not at its 0.33:1.
    let measured = f::pool_ratio(z.compression_ratio, z.stored_bytes);
    let (r, ratio_note) = match measured {
        Ok(_) => (r, "measured".to_string()),
        Err("nothing stored") => (r, "assumed: the pool is empty".to_string()),
        Err(why) => (
            crate::model::capacity::ASSUMED_RATIO,
            match why {
                "too little stored to tell" => {
                    format!(
                        "assumed: {why}, under {}",
                        f::bytes_raw(f::RATIO_MIN_STORED)
                    )
                }
                _ => format!("assumed: {why}"),
            },
        ),
    };
    let total = c.snap.swap.total_bytes.filter(|&t| t > 0)?;
    let could = limit as f64 * r;
    if could <= total as f64 {
        return None;
    }
    let used = c.snap.swap.used_bytes;
    let used_pct = f::share(used, Some(total));
    let full = used_pct.is_some_and(|p| p >= c.t.swap_nearly_full_percent);
    let ev = vec![
        format!(
            "pool limit {} (max_pool_percent {}% of RAM) at ratio {} ({ratio_note}) could hold {} \
             of pages",
            f::bytes_raw(limit),
            f::num(z.max_pool_percent),
            f::ratio(Some(r)),
            f::bytes_raw(could as u64)
        ),
        format!(
            "the swap areas have {} of slots (SwapTotal), {} in use ({})",
            f::bytes_raw(total),
            f::bytes(used),
            f::percent(used_pct)
        ),
        format!(
            "so zswap can hold at most {} of pages, {} of the limit's worth",
            f::bytes_raw(total),
            f::percent(Some(total as f64 * 100.0 / could))
        ),
    ];
    let add = ceil_gib(could - total as f64);
    let mut fix = format!(
        "Add swap so the slots match what the pool can hold, e.g. `sudo fallocate -l {add}G \
         /swapfile2 && sudo chmod 600 /swapfile2 && sudo mkswap /swapfile2 && sudo swapon \
         /swapfile2`; to keep it, add `/swapfile2 none swap defaults 0 0` to /etc/fstab."
    );
    if let Some(mem) = c.snap.memory.total_bytes.filter(|&m| m > 0) {
        let pct = ((total as f64 / r / mem as f64) * 100.0).floor().max(1.0) as u64;
        if z.max_pool_percent.is_some_and(|p| pct < p) {
            fix.push_str(&format!(
                " Or cap the pool at what the slots can use: {}.",
                zswap_param_fix("max_pool_percent", &pct.to_string(), &pct.to_string())
            ));
        }
    }
    Some(finding(
        "swap-too-small",
        if full { Severity::Warn } else { Severity::Info },
        "the zswap pool limit could hold more pages than the swap areas have slots for",
        ev,
        fix,
        "Every page zswap stores keeps the swap slot it was assigned, so zswap can never hold more \
         pages than the swap areas have slots (SwapTotal), whatever max_pool_percent allows. Once \
         the slots run out nothing more can be swapped, even with room left in the pool.",
    ))
}

// --- thp-always ------------------------------------------------------------------------------

pub(crate) fn thp_always(c: &Ctx) -> Option<Finding> {
    if c.tunable("transparent_hugepage.enabled")? != "always"
        || !c.swaps_known()
        || c.devices().is_empty()
    {
        return None;
    }
    let mut ev = vec![format!(
        "transparent_hugepage/enabled = always, defrag = {}",
        c.tunable("transparent_hugepage.defrag")
            .unwrap_or(f::MISSING)
    )];
    if let Some(b) = &c.snap.memory.breakdown {
        ev.push(format!(
            "AnonHugePages {} of {} anonymous memory",
            f::bytes(c.snap.memory.anon_huge_pages_bytes),
            f::bytes(b.apps)
        ));
    }
    ev.push(format!(
        "swap is active: {} used of {}",
        f::bytes(c.snap.swap.used_bytes),
        f::bytes(c.snap.swap.total_bytes)
    ));
    Some(finding(
        "thp-always",
        Severity::Info,
        "transparent huge pages are always on while the machine swaps",
        ev,
        format!(
            "`echo madvise | sudo tee /sys/kernel/mm/transparent_hugepage/enabled`; to make it \
             permanent, {}",
            cmdline("transparent_hugepage=madvise")
        ),
        "With enabled=always the kernel backs every large enough anonymous region with 2 MiB pages \
         where it can, so an application touching a few bytes of a region may be given a whole \
         2 MiB page that later has to be reclaimed or swapped. The kernel documentation describes \
         madvise mode as the way to avoid the risk of consuming more memory, keeping huge pages for \
         programs that ask with MADV_HUGEPAGE.",
    ))
}

// --- thrashing -------------------------------------------------------------------------------

pub(crate) fn thrashing(c: &Ctx) -> Option<Finding> {
    let rates = c.snap.rates.as_ref()?;
    let psi = c.snap.psi.as_ref()?;
    if psi.full_avg10 < c.t.thrashing_psi_full_avg10 {
        return None;
    }
    let zin = rates.zswpin_bytes_per_sec;
    let din = rates.pswpin_bytes_per_sec;
    if zin.is_none() && din.is_none() {
        return None;
    }
    let swapin = zin.unwrap_or(0.0) + din.unwrap_or(0.0);
    if swapin < c.t.thrashing_swapin_bytes_per_sec {
        return None;
    }
    let mut ev = vec![format!(
        "PSI memory full avg10 {:.2}%: all runnable tasks stalled on memory that share of the last \
         10s",
        psi.full_avg10
    )];
    if let Some(p) = rates.psi_full_percent {
        ev.push(format!(
            "{} over the last {:.1}s",
            f::percent(Some(p)),
            rates.interval_seconds
        ));
    }
    ev.push(format!(
        "swap-in {} (from zswap {}, from swap devices {})",
        f::rate(Some(swapin)),
        f::rate(zin),
        f::rate(din)
    ));
    Some(finding(
        "thrashing",
        if psi.full_avg10 >= c.t.thrashing_psi_full_avg10_crit {
            Severity::Crit
        } else {
            Severity::Warn
        },
        "the system is thrashing: tasks stall on memory while pages stream back from swap",
        ev,
        "No swap setting fixes this: shrink the working set (close or limit programs, e.g. \
         `systemd-run --user -p MemoryHigh=2G PROGRAM`, and `zswaptop --once --top 10` to see who \
         swaps) or add RAM; to keep a service bounded across reboots, set MemoryHigh= in its unit \
         with `sudo systemctl edit UNIT`.",
        "PSI's \"full\" memory pressure is the share of time in which every runnable task was \
         stalled waiting for memory, and the swap-in rate shows those pages coming back from swap \
         as fast as they leave. The working set does not fit in RAM plus the compressed pool, and \
         no tuning of swap changes that.",
    ))
}

// --- swap-priorities -------------------------------------------------------------------------

pub(crate) fn swap_priorities(c: &Ctx) -> Option<Finding> {
    let disks = c.disk_devices();
    if disks.len() < 2 || disks.iter().all(|d| d.priority == disks[0].priority) {
        return None;
    }
    let mut ev: Vec<String> = disks
        .iter()
        .map(|d| {
            let on = if d.disks.is_empty() {
                String::new()
            } else {
                let rot = match d.rotational {
                    Some(true) => ", rotational",
                    Some(false) => ", non-rotational",
                    None => "",
                };
                format!(" on {}{rot}", d.disks.join(" + "))
            };
            format!("{}{on}", dev_desc(d))
        })
        .collect();
    if disks.iter().all(|d| d.priority < 0) {
        ev.push(
            "all priorities are negative: swapon gives each area it activates without -p the next \
             lower one"
                .into(),
        );
    }
    let mut all_disks: Vec<Vec<&str>> = disks
        .iter()
        .map(|d| d.disks.iter().map(String::as_str).collect::<Vec<&str>>())
        .filter(|n| !n.is_empty())
        .collect();
    if all_disks.len() == disks.len() {
        all_disks.dedup();
        if all_disks.len() == 1 {
            ev.push(format!(
                "all on {}: equal priorities would not add parallel I/O on one disk",
                all_disks[0].join(" + ")
            ));
        }
    }
    let pri = disks.iter().map(|d| d.priority).max().unwrap_or(0).max(1);
    let cmds: Vec<String> = disks
        .iter()
        .map(|d| format!("sudo swapoff {0} && sudo swapon -p {pri} {0}", sh(&d.path)))
        .collect();
    Some(finding(
        "swap-priorities",
        Severity::Info,
        "several disk swap areas have different priorities: only the highest one is used until full",
        ev,
        format!(
            "Give them one priority: `{}`; to keep it, add `pri={pri}` to the options of each \
             swap line in /etc/fstab (e.g. `{} none swap defaults,pri={pri} 0 0`).",
            cmds.join(" && "),
            fstab_field(&disks[0].path)
        ),
        "The kernel fills swap areas strictly by priority: a lower-priority area gets pages only \
         when every higher one is full, while areas of equal priority get them in turn \
         (round-robin). Equal priorities on separate disks spread swap I/O across them; different \
         priorities put all of it on one disk.",
    ))
}
