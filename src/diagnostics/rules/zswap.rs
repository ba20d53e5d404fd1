//! The rules on zswap's pool: the shrinker, writeback, a full pool, compression, the
//! compressor, debugfs, decompression failures, a pool left after zswap was turned off.

use super::*;

// --- shrinker-off ----------------------------------------------------------------------------

fn limit_hit_evidence(c: &Ctx) -> Option<String> {
    let rate = c.debugfs_rate("pool_limit_hit")?;
    let dt = c.snap.rates.as_ref()?.interval_seconds;
    (rate > 0.0).then(|| {
        format!(
            "pool_limit_hit rose by {:.0} over {dt:.1}s ({})",
            rate * dt,
            f::per_sec(Some(rate))
        )
    })
}

fn pool_line(c: &Ctx) -> String {
    let z = &c.snap.zswap;
    format!(
        "pool {} of its {} limit ({}; max_pool_percent {}% of RAM), headroom {}",
        f::bytes(z.pool_bytes),
        f::bytes(z.pool_limit_bytes),
        f::percent(z.pool_limit_used_percent),
        f::num(z.max_pool_percent),
        f::bytes(z.pool_headroom_bytes)
    )
}

fn near_full(c: &Ctx) -> bool {
    c.snap
        .zswap
        .pool_limit_used_percent
        .is_some_and(|p| p >= c.t.pool_near_full_percent)
}

pub(crate) fn shrinker_off(c: &Ctx) -> Option<Finding> {
    if c.snap.zswap.shrinker_enabled != Some(false) || !c.zswap_on() || c.disk_devices().is_empty()
    {
        return None;
    }
    let rising = limit_hit_evidence(c);
    let near = near_full(c);
    let mut ev = vec!["shrinker_enabled = N".to_string(), pool_line(c)];
    if let Some(r) = &rising {
        ev.push(r.clone());
    } else if c.snap.rates.is_none()
        && let Some(n) = c.debugfs("pool_limit_hit").filter(|&n| n > 0)
    {
        ev.push(format!(
            "pool_limit_hit {n} since boot (no interval measured: run with --interval to see if it is rising)"
        ));
    }
    let warn = near || rising.is_some();
    Some(finding(
        "shrinker-off",
        if warn { Severity::Warn } else { Severity::Info },
        if warn {
            "the zswap shrinker is off while the pool is at its limit: cold pages hold the pool"
        } else {
            "the zswap shrinker is off: cold pages never leave the pool on their own"
        },
        ev,
        zswap_param_fix("shrinker_enabled", "Y", "1"),
        "With the shrinker off, zswap moves pages to the swap device only when the pool reaches \
         max_pool_percent, so cold pages keep their RAM in the pool for as long as they stay \
         unused. With shrinker_enabled=Y the kernel writes the coldest pool entries back to the \
         swap device under memory pressure (Documentation/admin-guide/mm/zswap.rst).",
    ))
}

// --- writeback-stalled -----------------------------------------------------------------------

/// The pool refused stores over the interval: `pool_limit_hit` rose, or nothing was stored while
/// pages went to swap around zswap with the pool above its accept threshold (after a hit zswap
/// refuses every store until the pool drains below that level, without counting a hit). The
/// evidence line, or `None`.
fn refusing(c: &Ctx) -> Option<String> {
    if let Some(hits) = limit_hit_evidence(c) {
        return Some(hits);
    }
    let r = c.snap.rates.as_ref()?;
    let z = &c.snap.zswap;
    let above_accept = matches!(
        (z.pool_bytes, z.accept_threshold_bytes),
        (Some(p), Some(a)) if p > a
    );
    let bypass = r.bypassed_zswap_bytes_per_sec.filter(|&b| b > 0.0)?;
    (above_accept && r.zswpout_bytes_per_sec == Some(0.0)).then(|| {
        format!(
            "no page stored in zswap over {:.1}s (zswpout +0) while {} went to swap around it: \
             the pool is above its accept threshold ({}), where zswap refuses every store until \
             it drains below it",
            r.interval_seconds,
            f::rate(Some(bypass)),
            f::bytes(z.accept_threshold_bytes)
        )
    })
}

pub(crate) fn writeback_stalled(c: &Ctx) -> Option<Finding> {
    let z = &c.snap.zswap;
    if !c.zswap_on() || z.shrinker_enabled != Some(true) {
        return None;
    }
    let r = c.snap.rates.as_ref()?;
    let dt = r.interval_seconds;
    if dt < t::WRITEBACK_STALL_MIN_SECONDS {
        return None;
    }
    // What left the pool for the swap device: debugfs, else vmstat zswpwb (6.8+). Unknown
    // writeback proves nothing.
    let (written, counter) = match c.debugfs_rate("written_back_pages") {
        Some(w) => (w, "written_back_pages"),
        None => (
            r.zswpwb_bytes_per_sec? / c.page_size() as f64,
            "vmstat zswpwb",
        ),
    };
    if written > 0.0 {
        return None;
    }
    let refused = refusing(c)?;
    let mut ev = vec![
        "shrinker_enabled = Y".to_string(),
        pool_line(c),
        refused,
        format!("{counter} +0 over {dt:.1}s: nothing left the pool for the swap device"),
    ];
    match c.debugfs_rate("reject_reclaim_fail") {
        Some(fail) if fail > 0.0 => ev.push(format!(
            "reject_reclaim_fail rose by {:.0}: the kernel tried to write entries back and failed",
            fail * dt
        )),
        Some(_) => ev.push("reject_reclaim_fail +0: no writeback failed either".to_string()),
        None => {}
    }
    let version = c.snap.cgroups.as_ref().and_then(|cg| cg.version);
    if version == Some(1) {
        ev.push(
            "the memory controller is on cgroup v1, which keeps no zswap figures per cgroup: the \
             shrinker, which counts its work from them, finds nothing to write back"
                .to_string(),
        );
    }
    let mut fix = "Find what stops writeback.".to_string();
    if version != Some(1) {
        fix.push_str(
            " On cgroup v2 a cgroup may have turned it off: `find /sys/fs/cgroup -name \
             memory.zswap.writeback -exec grep -l '^0' {} +` lists them; turn it back on with \
             `echo 1 | sudo tee /sys/fs/cgroup/CGROUP/memory.zswap.writeback`, and keep it with \
             MemoryZSwapWriteback=yes in the unit (`sudo systemctl edit UNIT`, systemd 256 and \
             later).",
        );
    }
    fix.push_str(
        " If `sudo cat /sys/kernel/debug/zswap/reject_reclaim_fail` rises, writeback is tried and \
         fails: it reads each entry back into the memory of the cgroup it belongs to, which fails \
         while that cgroup is at its limit with nothing it may reclaim (cgroup v1: \
         memory.swappiness 0, or its OOM killer off in memory.oom_control).",
    );
    if version != Some(2) {
        fix.push_str(&format!(
            " On cgroup v1 the shrinker never writes back (mm/zswap.c counts its work from the \
             cgroup's zswap figures, which v1 does not keep); cgroup v2 has them: to make that \
             permanent, {}.",
            cmdline("systemd.unified_cgroup_hierarchy=1")
        ));
    }
    let raise = z
        .max_pool_percent
        .map(|p| (p.saturating_mul(3) / 2).max(p.saturating_add(5)))
        .filter(|&n| Some(n) > z.max_pool_percent && n <= c.t.max_pool_percent_suggestion_cap);
    if let Some(n) = raise {
        fix.push_str(&format!(
            " Meanwhile, room in the pool: {}.",
            zswap_param_fix("max_pool_percent", &n.to_string(), &n.to_string())
        ));
    }
    Some(finding(
        "writeback-stalled",
        Severity::Warn,
        "zswap refuses new pages at its limit and writes none back: new pages go to disk while \
         old ones keep the pool",
        ev,
        fix,
        "A full pool is meant to make room by writing its coldest entries to the swap device: the \
         shrinker does it under memory pressure and the pool-limit worker after a refusal, until \
         the pool is below accept_threshold_percent. When neither writes anything back, every \
         new page skips zswap and goes to the swap device while pages that may never be used \
         again keep the pool.",
    ))
}

// --- pool-full -------------------------------------------------------------------------------

/// The max_pool_percent to suggest for a pool at its limit: half as much again (at least 5
/// points more), never above the suggestion cap; none when it is there already.
pub(super) fn raised_pool_percent(c: &Ctx) -> Option<u64> {
    c.snap.zswap.max_pool_percent.and_then(|p| {
        let next = (p.saturating_mul(3) / 2)
            .max(p.saturating_add(5))
            .min(c.t.max_pool_percent_suggestion_cap);
        (next > p).then_some(next)
    })
}

pub(crate) fn pool_full(c: &Ctx) -> Option<Finding> {
    if !c.zswap_on() {
        return None;
    }
    let z = &c.snap.zswap;
    let rising = limit_hit_evidence(c);
    let near = near_full(c);
    // The forecast's `full` follows the kernel's refusals (model::forecast): the finding says
    // the same, so that one screen never shows "pool not filling" beside a refusing pool, or
    // "pool full" beside a remark that refusals start later.
    let forecast_full = c
        .snap
        .forecast
        .zswap_pool
        .as_ref()
        .filter(|f| f.state == crate::model::forecast::ForecastState::Full)
        .map(|f| {
            f.evidence
                .clone()
                .unwrap_or_else(|| "at its limit".to_string())
        });
    if !near && rising.is_none() && forecast_full.is_none() {
        return None;
    }
    let mut ev = vec![pool_line(c)];
    if let Some(a) = z.accept_threshold_percent {
        ev.push(format!(
            "after a limit hit zswap takes pages again only below accept_threshold_percent {a}% \
             ({})",
            f::bytes(z.accept_threshold_bytes)
        ));
    }
    let bypass = c
        .snap
        .rates
        .as_ref()
        .and_then(|r| r.bypassed_zswap_bytes_per_sec)
        .filter(|&b| b > 0.0);
    // Refusals are the evidence: the limit being hit over the interval, or what the forecast
    // saw of the kernel refusing (a hit within its last samples, the pool above its accept
    // threshold since a hit, nothing stored while pages go around zswap, the pool within one
    // store of its limit). Near the limit alone, stores still succeed.
    let refusing = rising.is_some() || forecast_full.is_some();
    let had_rising = rising.is_some();
    if let Some(r) = rising {
        ev.push(r);
    } else if let Some(why) = &forecast_full {
        ev.push(why.clone());
    } else if let Some(n) = c.debugfs("pool_limit_hit").filter(|&n| n > 0) {
        ev.push(match c.snap.rates {
            Some(_) => format!("pool_limit_hit {n} since boot, not rising over the interval"),
            None => format!(
                "pool_limit_hit {n} since boot (one sample: run with --interval to see whether \
                 it is rising)"
            ),
        });
    }
    if let Some(b) = bypass {
        ev.push(format!(
            "written to swap without passing through zswap: {}",
            f::rate(Some(b))
        ));
    } else if !had_rising
        && let Some(out) = c
            .snap
            .rates
            .as_ref()
            .and_then(|r| r.zswpout_bytes_per_sec)
            .filter(|&o| o > 0.0)
    {
        ev.push(format!(
            "stores accepted at {}, none refused",
            f::rate(Some(out))
        ));
    }
    let mut fix = match raised_pool_percent(c) {
        Some(n) => format!(
            "Let the pool grow: {}.",
            zswap_param_fix("max_pool_percent", &n.to_string(), &n.to_string())
        ),
        None => "The pool may already take half of RAM; what does not fit needs more RAM or a \
                 smaller working set."
            .to_string(),
    };
    if z.shrinker_enabled == Some(false) {
        fix.push_str(&format!(
            " Or let the shrinker move cold pages out so new ones fit: {}.",
            zswap_param_fix("shrinker_enabled", "Y", "1")
        ));
    }
    let summary = if refusing {
        "the zswap pool is at its limit: new pages skip zswap and go straight to swap".to_string()
    } else {
        format!(
            "the zswap pool is at {} of its limit; refusals start at the limit",
            f::percent(z.pool_limit_used_percent)
        )
    };
    Some(finding(
        "pool-full",
        if refusing {
            Severity::Warn
        } else {
            Severity::Info
        },
        summary,
        ev,
        fix,
        "When a store finds the pool at max_pool_percent of RAM, zswap counts a pool_limit_hit \
         and refuses new pages until the pool has shrunk below accept_threshold_percent of the \
         limit. Refused pages skip compression and go straight to the swap device, at that \
         device's speed.",
    ))
}

// --- poor-compression ------------------------------------------------------------------------

// --- allocator-cap ------------------------------------------------------------------------------

/// The most compressed pages one pool page holds on an allocator that caps it (mm/zbud.c: a
/// first and a last buddy; mm/z3fold.c: first, middle and last), `None` for zsmalloc.
fn cap_of(zpool: &str) -> Option<u32> {
    match zpool {
        "zbud" => Some(2),
        "z3fold" => Some(3),
        _ => None,
    }
}

/// zswap runs on zbud or z3fold (Debian 12's default is zbud) and its data pages already reach
/// ~90 % of what that allocator can hold per page: the allocator, not the compressor, is what
/// limits the pool's ratio, and zsmalloc would hold the same pages in less memory.
pub(crate) fn allocator_cap(c: &Ctx) -> Option<Finding> {
    let z = &c.snap.zswap;
    let zpool = z.parameters.get("zpool")?;
    let cap = cap_of(zpool)?;
    if !c.zswap_on() || z.stored_bytes.unwrap_or(0) < c.t.min_stored_for_ratio_bytes {
        return None;
    }
    let data = z.compressor_ratio.or(z.compression_ratio)?;
    if data < f64::from(cap) * 0.9 {
        return None;
    }
    Some(finding(
        "allocator-cap",
        Severity::Warn,
        format!(
            "zswap's allocator {zpool} caps the pool at {cap}:1: zsmalloc would hold the same pages in less RAM"
        ),
        vec![
            format!(
                "zpool = {zpool}: at most {cap} compressed pages in each pool page, however well they compress"
            ),
            format!(
                "data pages stored at {} in a pool of {} ({} stored)",
                f::ratio(Some(data)),
                f::bytes(z.pool_bytes),
                f::bytes(z.stored_bytes)
            ),
        ],
        zswap_param_fix("zpool", "zsmalloc", "zsmalloc"),
        "zbud keeps at most two compressed pages in a page and z3fold three, whatever the \
         compressor achieves, so a pool of pages that compress to a third of a page or less \
         costs zbud half a page each; zsmalloc packs objects into size classes and reaches the \
         compressor's own ratio (Documentation/admin-guide/mm/zswap.rst; mm/zbud.c, \
         mm/z3fold.c). A new allocator takes the stores from now on; pages already stored stay \
         in the old pool until they are read back or written back.",
    ))
}

pub(crate) fn poor_compression(c: &Ctx) -> Option<Finding> {
    let mut ev = Vec::new();
    let (zswap_poor, zswap_hit) = zswap_compression(c, &mut ev);
    let (zram_poor, zram_hit) = zram_compression(c, &mut ev);
    if !zswap_hit && zram_hit.is_empty() {
        return None;
    }
    let poor_ratio = zswap_poor || zram_poor;
    let crypto_names = offered(c, &zram_hit, &mut ev);
    let fix = compression_fixes(c, zswap_hit, &zram_hit, &crypto_names);
    Some(finding(
        "poor-compression",
        if poor_ratio {
            Severity::Warn
        } else {
            Severity::Info
        },
        if poor_ratio {
            "compressed swap barely compresses: the pool takes nearly as much RAM as it stores"
        } else {
            "a large share of swapped pages does not compress"
        },
        ev,
        fix.join(" "),
        "Each stored page costs its compressed size plus allocator overhead, and an incompressible \
         page costs a whole page, so near 1:1 the pool holds about as much RAM as the pages it \
         stores while adding compression latency to every swap. Data that is already compressed \
         or encrypted stays incompressible whatever the algorithm; a stronger compressor helps \
         only data that compresses.",
    ))
}

/// zswap's part of poor-compression: its ratio, its pages stored raw, its stores refused for
/// compressing too poorly. Returns (a poor ratio, any of them).
fn zswap_compression(c: &Ctx, ev: &mut Vec<String>) -> (bool, bool) {
    let z = &c.snap.zswap;
    let ps = c.page_size() as f64;
    let (mut poor_ratio, mut zswap_hit) = (false, false);
    let stored = z.stored_bytes.unwrap_or(0);
    if stored >= c.t.min_stored_for_ratio_bytes {
        if let Some(r) = z.compression_ratio.filter(|&r| r < c.t.poor_ratio) {
            poor_ratio = true;
            zswap_hit = true;
            ev.push(format!(
                "zswap ratio {} effective: {} stored in a pool of {}",
                f::ratio(Some(r)),
                f::bytes(z.stored_bytes),
                f::bytes(z.pool_bytes)
            ));
        }
        if let Some(share) = f::share(z.incompressible_bytes, z.stored_bytes)
            .filter(|&s| s >= c.t.incompressible_share_percent)
        {
            zswap_hit = true;
            ev.push(format!(
                "{} of the {} in zswap ({}) did not compress and is stored raw, a full page each",
                f::bytes(z.incompressible_bytes),
                f::bytes(z.stored_bytes),
                f::percent(Some(share))
            ));
        }
    }
    if let (Some(rej), Some(rates)) = (c.debugfs_rate("reject_compress_poor"), &c.snap.rates) {
        let stores = rates.zswpout_bytes_per_sec.unwrap_or(0.0) / ps;
        let share = if rej + stores > 0.0 {
            rej * 100.0 / (rej + stores)
        } else {
            0.0
        };
        if rej > 0.0 && share >= c.t.reject_poor_share_percent {
            zswap_hit = true;
            ev.push(format!(
                "reject_compress_poor {} over {:.1}s: {} of store attempts compressed too poorly \
                 to keep",
                f::per_sec(Some(rej)),
                rates.interval_seconds,
                f::percent(Some(share))
            ));
        }
    }
    (poor_ratio, zswap_hit)
}

/// The zram swap devices' part: each one's ratio and its incompressible huge pages. Returns (a
/// poor ratio, the devices that compress poorly).
fn zram_compression<'a>(c: &'a Ctx, ev: &mut Vec<String>) -> (bool, Vec<&'a str>) {
    let mut poor_ratio = false;
    let mut zram_hit = Vec::new();
    for zr in c.snap.zram.iter().filter(|zr| zr.is_swap) {
        let orig = zr.orig_data_bytes.unwrap_or(0);
        if orig < c.t.min_stored_for_ratio_bytes {
            continue;
        }
        let mut hit = false;
        if let Some(r) = zr.effective_ratio.filter(|&r| r < c.t.poor_ratio) {
            poor_ratio = true;
            hit = true;
            ev.push(format!(
                "{} ratio {} effective: {} stored in {} of RAM",
                zr.device,
                f::ratio(Some(r)),
                f::bytes_raw(orig),
                f::bytes(zr.mem_used_bytes)
            ));
        }
        let huge = zr.huge_pages.map(|h| h.saturating_mul(c.page_size()));
        if let Some(share) =
            f::share(huge, Some(orig)).filter(|&s| s >= c.t.incompressible_share_percent)
        {
            hit = true;
            ev.push(format!(
                "{}: {} of {} stored ({}) are incompressible huge pages",
                zr.device,
                f::bytes(huge),
                f::bytes_raw(orig),
                f::percent(Some(share))
            ));
        }
        if hit {
            zram_hit.push(zr.device.as_str());
        }
    }
    (poor_ratio, zram_hit)
}

/// What this kernel offers, and what each trades: the compressors registered for zswap (their
/// names returned) and each poorly compressing zram device's algorithms, said as evidence.
fn offered(c: &Ctx, zram_hit: &[&str], ev: &mut Vec<String>) -> Vec<String> {
    let crypto_names: Vec<String> = c
        .snap
        .zswap
        .registered_compressors
        .as_deref()
        .map(crate::sources::crypto::names)
        .unwrap_or_default();
    if !crypto_names.is_empty() {
        ev.push(format!(
            "registered in /proc/crypto (for zswap): {}",
            compressors::describe(&crypto_names)
        ));
    }
    for name in zram_hit {
        if let Some(zr) = c.snap.zram.iter().find(|zr| zr.device == *name)
            && !zr.algorithms.is_empty()
        {
            ev.push(format!(
                "{name} offers (comp_algorithm): {}",
                compressors::describe(&zr.algorithms)
            ));
        }
    }
    crypto_names
}

/// The fixes: a stronger compressor for zswap, a reset with a stronger algorithm for each zram
/// device (and how to keep it), and what to do when the data itself does not compress.
fn compression_fixes(
    c: &Ctx,
    zswap_hit: bool,
    zram_hit: &[&str],
    crypto_names: &[String],
) -> Vec<String> {
    let mut fix = Vec::new();
    if zswap_hit {
        let cur = c.snap.zswap.compressor.as_deref();
        match compressors::better_ratio(cur, crypto_names) {
            Some(b) => fix.push(format!(
                "For zswap, a stronger compressor (new pages only): {}.",
                zswap_param_fix("compressor", &b, &b)
            )),
            None => fix.push(format!(
                "zswap already uses {} and no stronger compressor is registered; a module such \
                 as zstd can be tried with `echo zstd | sudo tee \
                 /sys/module/zswap/parameters/compressor`.",
                cur.unwrap_or("its compressor")
            )),
        }
    }
    for name in zram_hit {
        let Some(zr) = c.snap.zram.iter().find(|zr| zr.device == *name) else {
            continue;
        };
        let size = zr
            .disksize_bytes
            .map(|d| d.to_string())
            .unwrap_or_else(|| "SIZE".into());
        let prio = c
            .devices()
            .iter()
            .find(|d| d.path == format!("/dev/{name}"))
            .map(|d| d.priority)
            .unwrap_or(100);
        if let Some(b) = compressors::better_ratio(zr.algorithm.as_deref(), &zr.algorithms) {
            let dev = sh(&format!("/dev/{name}"));
            let block = |file: &str| sys_block(name, file);
            fix.push(format!(
                "For {name}, the algorithm can only change while the device is reset: `sudo \
                 swapoff {dev} && echo 1 | sudo tee {} && echo {} | sudo tee {} && echo {size} | \
                 sudo tee {} && sudo mkswap {dev} && sudo swapon -p {prio} {dev}` (swapoff needs \
                 free RAM for what it holds); to keep it, set \
                 `compression-algorithm = {b}` in /etc/systemd/zram-generator.conf (or \
                 ATTR{{comp_algorithm}}=\"{b}\" in the udev rule that sets up {name}).",
                block("reset"),
                sh(&b),
                block("comp_algorithm"),
                block("disksize"),
            ));
        }
    }
    fix.push(
        "If the data itself does not compress (media, encrypted or already compressed memory), \
         no algorithm helps: give the pool less RAM (a lower max_pool_percent or zram disksize)."
            .into(),
    );
    fix
}

// --- compressor-fallback ---------------------------------------------------------------------

pub(crate) fn compressor_fallback(c: &Ctx) -> Option<Finding> {
    let z = &c.snap.zswap;
    let boot = z.boot_compressor.as_deref().filter(|s| !s.is_empty())?;
    let cur = z.compressor.as_deref()?;
    if boot == cur {
        return None;
    }
    let crypto = c.snap.zswap.registered_compressors.as_ref();
    let registered = crypto.map(|l| l.iter().any(|x| x.name == boot));
    let mut ev = vec![
        format!("kernel command line: zswap.compressor={boot}"),
        format!("zswap runs with: {cur}"),
    ];
    let built_in: Vec<String> = crypto
        .map(|l| {
            let mut v: Vec<String> = l
                .iter()
                .filter(|x| x.built_in())
                .map(|x| x.name.clone())
                .collect();
            v.dedup();
            v
        })
        .unwrap_or_default();
    if let Some(l) = crypto {
        let names = crate::sources::crypto::names(l).join(", ");
        ev.push(match registered {
            Some(true) => format!(
                "/proc/crypto now registers {names}: {boot} is among them, so it was loaded after \
                 zswap started, or the compressor was changed at runtime"
            ),
            _ => format!("/proc/crypto registers {names}: {boot} is not among them"),
        });
    }
    let builtin_hint = match built_in.iter().find(|n| n.as_str() != cur && plain_name(n)) {
        Some(b) => format!(" Or pick one built into this kernel: `zswap.compressor={b}`."),
        None => String::new(),
    };
    Some(finding(
        "compressor-fallback",
        if registered == Some(true) {
            Severity::Info
        } else {
            Severity::Warn
        },
        format!("the boot command line asks zswap for {boot} but it runs {cur}"),
        ev,
        if plain_name(boot) {
            format!(
                "Now: `echo {} | sudo tee /sys/module/zswap/parameters/compressor` (loads the \
             module if it can). At every boot, set it once the root filesystem is up with a \
             tmpfiles.d line: `echo {} | sudo tee /etc/tmpfiles.d/zswap-compressor.conf`; or have \
             the initramfs load the module (Debian/Ubuntu: `echo {} | sudo tee -a \
             /etc/initramfs-tools/modules && sudo update-initramfs -u`; dracut: `echo {} | sudo \
             tee /etc/dracut.conf.d/zswap.conf && sudo dracut -f`).{builtin_hint}",
                sh(boot),
                sh(&format!(
                    "w /sys/module/zswap/parameters/compressor - - - - {boot}"
                )),
                sh(boot),
                sh(&format!("add_drivers+=\" {boot} \"")),
            )
        } else {
            // Not a name the crypto API could ever have: no line for a config file.
            format!(
                "The kernel command line asks for {}, which is not an algorithm name: correct \
             zswap.compressor= on the kernel command line.{builtin_hint}",
                sh(boot)
            )
        },
        "zswap sets up its compressor when it is first enabled, at boot when zswap.enabled=1 is \
         given, and if the crypto API cannot provide the named algorithm at that moment it logs \
         \"compressor ... not available, using default ...\" and carries on with the default. An \
         algorithm built as a module is only available that early if something has loaded it.",
    ))
}

// --- no-debugfs ------------------------------------------------------------------------------

pub(crate) fn no_debugfs(c: &Ctx) -> Option<Finding> {
    let reason = c.snap.zswap.debugfs_reason()?;
    if !c.snap.zswap.available || !(c.zswap_on() || c.snap.zswap.pool_bytes.unwrap_or(0) > 0) {
        return None;
    }
    let fix = match reason {
        Reason::NeedsRoot { .. } => {
            "Run zswaptop as root: `sudo zswaptop` (or grant it CAP_DAC_READ_SEARCH: `sudo setcap \
             cap_dac_read_search+ep $(command -v zswaptop)`, which lasts until the binary is \
             replaced)."
                .to_string()
        }
        Reason::DebugfsNotMounted => {
            "`sudo mount -t debugfs none /sys/kernel/debug`; to keep it, add `debugfs \
             /sys/kernel/debug debugfs defaults 0 0` to /etc/fstab, and run zswaptop as root."
                .to_string()
        }
        Reason::DebugfsHidden => {
            "debugfs is hidden by kernel lockdown or debugfs=off: to get it, remove `debugfs=off` \
             or `lockdown=` from the kernel command line (GRUB_CMDLINE_LINUX in \
             /etc/default/grub, then `sudo update-grub`), or keep lockdown and rely on the \
             /proc/meminfo and /proc/vmstat figures."
                .to_string()
        }
        _ => return None,
    };
    let mut missing = vec![
        "reject counters (reject_*)",
        "pool_limit_hit",
        "stored_incompressible_pages",
        "decompress_fail",
    ];
    if c.snap.vmstat.zswpwb.is_none() {
        missing.insert(0, "writeback (written_back_pages)");
    }
    Some(finding(
        "no-debugfs",
        Severity::Info,
        "zswap's debugfs counters can't be read: rejects, limit hits and failures are unknown",
        vec![
            format!("/sys/kernel/debug/zswap: {reason}"),
            format!("unknown without it: {}", missing.join(", ")),
        ],
        fix,
        "zswap publishes its reject, pool-limit, writeback, incompressible-page and \
         decompression-failure counters only in debugfs, which lives under /sys/kernel/debug and \
         is readable by root alone. /proc/meminfo and /proc/vmstat give the pool size and the \
         store and load counts, but not why pages were refused.",
    ))
}

// --- decompress-fail -------------------------------------------------------------------------

pub(crate) fn decompress_fail(c: &Ctx) -> Option<Finding> {
    let n = c.debugfs("decompress_fail").filter(|&n| n > 0)?;
    let mut ev = vec![format!("decompress_fail = {n} since boot")];
    if let Some(r) = c.debugfs_rate("decompress_fail").filter(|&r| r > 0.0) {
        ev.push(format!("still rising: {}", f::per_sec(Some(r))));
    }
    ev.push(format!(
        "compressor {}",
        c.snap.zswap.compressor.as_deref().unwrap_or(f::MISSING)
    ));
    Some(finding(
        "decompress-fail",
        Severity::Crit,
        "zswap failed to decompress stored pages: processes got SIGBUS and data was lost",
        ev,
        format!(
            "No setting fixes this; find the cause. Look for the failing compressor in `sudo dmesg \
             | grep -i zswap` and test the RAM (memtest86+ from the boot menu){}.",
            if c.zswap_on() {
                format!(
                    "; while failures continue turn zswap off: {}",
                    zswap_param_fix("enabled", "N", "0")
                )
            } else {
                "; zswap is off now, so no new pages can be lost this way".to_string()
            }
        ),
        "zswap could not decompress a page it had stored, so that page's data is gone: the kernel \
         fails the swap-in with an I/O error and the process touching the page is killed with \
         SIGBUS. Data zswap compressed itself should always decompress, so this points to memory \
         corruption or a compressor bug, not to tuning.",
    ))
}

// --- zswap-off-pool-left ---------------------------------------------------------------------

pub(crate) fn zswap_off_pool_left(c: &Ctx) -> Option<Finding> {
    let z = &c.snap.zswap;
    if z.enabled != Some(false) {
        return None;
    }
    let pool = z.pool_bytes.unwrap_or(0);
    let stored = z.stored_bytes.unwrap_or(0);
    if pool == 0 && stored == 0 {
        return None;
    }
    Some(finding(
        "zswap-off-pool-left",
        Severity::Info,
        "zswap is disabled, yet its pool still holds pages",
        vec![
            "zswap enabled = N".into(),
            format!(
                "the pool still holds {} of pages in {} of RAM",
                f::bytes(z.stored_bytes),
                f::bytes(z.pool_bytes)
            ),
            format!(
                "swap used {}, MemAvailable {}",
                f::bytes(c.snap.swap.used_bytes),
                f::bytes(c.snap.memory.available_bytes)
            ),
        ],
        format!(
            "Nothing needs fixing: the pool drains as those pages are swapped in or freed. To \
             empty it now, `sudo swapoff -a && sudo swapon -a` (it needs free RAM for everything \
             swapped out). To keep zswap off at boot, {}.",
            cmdline("zswap.enabled=0")
        ),
        "Disabling zswap at runtime only stops new stores: pages already in the pool stay \
         compressed there until they are faulted back in or their swap slot is freed \
         (Documentation/admin-guide/mm/zswap.rst). Until then the pool keeps its RAM, and swapoff \
         is the documented way to force everything out.",
    ))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    use crate::model::Snapshot;

    /// Two captured trees `secs` apart, as the model and the rules see them.
    pub(in crate::diagnostics::rules) fn pair(first: &str, second: &str, secs: u64) -> Snapshot {
        let read = |name: &str| {
            crate::sources::collect(&crate::root::Root::at(format!(
                "{}/tests/fixtures/{name}",
                env!("CARGO_MANIFEST_DIR")
            )))
        };
        let a = read(first);
        let mut b = read(second);
        b.monotonic_ns = a.monotonic_ns + secs * 1_000_000_000;
        Snapshot::derive(&b, Some(&a))
    }

    fn stalled(c: &Snapshot) -> Option<Finding> {
        writeback_stalled(&Ctx {
            snap: c,
            t: &crate::diagnostics::thresholds::Thresholds::default(),
        })
    }

    /// The captured pair (tests/fixtures/linux-6.18-writeback-stalled, -t1): 23444 pages to swap
    /// around a pool that stored none and wrote none back, 7573 writebacks failed.
    #[test]
    fn writeback_stalled_fires_on_the_captured_pair() {
        let snap = pair(
            "linux-6.18-writeback-stalled",
            "linux-6.18-writeback-stalled-t1",
            10,
        );
        let f = stalled(&snap).expect("the rule fires");
        assert_eq!(f.severity, Severity::Warn);
        let ev = f.evidence.join("\n");
        for want in [
            "shrinker_enabled = Y",
            "written_back_pages +0 over 10.0s",
            "reject_reclaim_fail rose by 7573",
            "no page stored in zswap over 10.0s (zswpout +0)",
            "above its accept threshold",
        ] {
            assert!(ev.contains(want), "{want:?} not in:\n{ev}");
        }
        // Fixes name a command each and how to keep them; the why is two or three sentences.
        assert!(
            f.fix
                .contains("`find /sys/fs/cgroup -name memory.zswap.writeback")
        );
        assert!(f.fix.contains("max_pool_percent"), "{}", f.fix);
        assert!(f.fix.contains("keep"));
        let sentences = f.why.matches(". ").count() + usize::from(f.why.ends_with('.'));
        assert!((2..=3).contains(&sentences), "{}", f.why);
        assert!(crate::diagnostics::RULE_IDS.contains(&f.id.as_str()));
        assert!(
            crate::diagnostics::evaluate(&snap, &Default::default())
                .iter()
                .any(|x| x.id == "writeback-stalled")
        );
    }

    /// The pair captured once writeback was possible again: 2010 pages written back. Quiet.
    #[test]
    fn writeback_stalled_is_quiet_while_pages_are_written_back() {
        let snap = pair(
            "linux-6.18-writeback-flowing",
            "linux-6.18-writeback-flowing-t1",
            6,
        );
        assert!(
            snap.rates
                .as_ref()
                .unwrap()
                .debugfs_per_sec
                .get("written_back_pages")
                > Some(&0.0)
        );
        assert_eq!(stalled(&snap), None);
    }

    #[test]
    fn writeback_stalled_needs_the_shrinker_an_interval_and_refusals() {
        let base = pair(
            "linux-6.18-writeback-stalled",
            "linux-6.18-writeback-stalled-t1",
            10,
        );
        let mut off = base.clone();
        off.zswap.shrinker_enabled = Some(false);
        assert_eq!(stalled(&off), None, "shrinker off: shrinker-off's business");
        let mut zswap_off = base.clone();
        zswap_off.zswap.enabled = Some(false);
        assert_eq!(stalled(&zswap_off), None);
        // One sample: nothing proves writeback is not rising.
        let mut one = base.clone();
        one.rates = None;
        assert_eq!(stalled(&one), None);
        // Too short an interval to judge.
        let short = pair(
            "linux-6.18-writeback-stalled",
            "linux-6.18-writeback-stalled-t1",
            2,
        );
        assert_eq!(stalled(&short), None);
        // Below the accept threshold with nothing refused: zswap would take the pages.
        let mut room = base.clone();
        room.zswap.pool_bytes = room.zswap.accept_threshold_bytes.map(|a| a - 4096);
        assert_eq!(stalled(&room), None);
        // Stores accepted in the interval (no limit hit): not refusing.
        let mut storing = base.clone();
        storing.rates.as_mut().unwrap().zswpout_bytes_per_sec = Some(4096.0);
        assert_eq!(stalled(&storing), None);
        // A limit hit is a refusal wherever the pool is.
        let mut hit = storing.clone();
        hit.rates
            .as_mut()
            .unwrap()
            .debugfs_per_sec
            .insert("pool_limit_hit", 2.0);
        assert!(stalled(&hit).is_some());
    }

    /// With the cgroup tree read, the fix speaks of that version only.
    #[test]
    fn writeback_stalled_fix_for_the_cgroup_version() {
        let base = pair(
            "linux-6.18-writeback-stalled",
            "linux-6.18-writeback-stalled-t1",
            10,
        );
        let with = |version: u8| {
            let mut s = base.clone();
            s.cgroups = Some(crate::model::owners::Cgroups {
                version: Some(version),
                ..crate::model::owners::Cgroups::read(&[], Vec::new(), None)
            });
            stalled(&s).unwrap()
        };
        let unknown = stalled(&base).unwrap();
        assert!(unknown.fix.contains("memory.zswap.writeback"));
        assert!(unknown.fix.contains("systemd.unified_cgroup_hierarchy=1"));
        let v1 = with(1);
        assert!(!v1.fix.contains("memory.zswap.writeback"), "{}", v1.fix);
        assert!(v1.fix.contains("systemd.unified_cgroup_hierarchy=1"));
        assert!(v1.fix.contains("permanent"));
        assert!(v1.evidence.iter().any(|e| e.contains("cgroup v1")));
        let v2 = with(2);
        assert!(v2.fix.contains("memory.zswap.writeback"));
        assert!(!v2.fix.contains("unified_cgroup_hierarchy"), "{}", v2.fix);
        assert!(!v2.evidence.iter().any(|e| e.contains("cgroup v1")));
    }

    /// Without debugfs (not root), vmstat zswpwb says whether anything was written back.
    #[test]
    fn writeback_stalled_without_debugfs() {
        let mut snap = pair(
            "linux-6.18-writeback-stalled",
            "linux-6.18-writeback-stalled-t1",
            10,
        );
        snap.zswap.debugfs = None;
        let rates = snap.rates.as_mut().unwrap();
        rates.debugfs_per_sec = Default::default();
        let f = stalled(&snap).expect("fires from vmstat");
        let ev = f.evidence.join("\n");
        assert!(ev.contains("vmstat zswpwb +0"), "{ev}");
        assert!(!ev.contains("reject_reclaim_fail"), "{ev}");
        // Neither counter: writeback unknown, no claim.
        snap.rates.as_mut().unwrap().zswpwb_bytes_per_sec = None;
        assert_eq!(stalled(&snap), None);
    }
}
