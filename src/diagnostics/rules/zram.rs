//! The rules on zram: zswap in front of zram, and zram above disk swap filling first.

use super::*;

// --- zswap-zram ------------------------------------------------------------------------------

pub(crate) fn zswap_zram(c: &Ctx) -> Option<Finding> {
    let zram = c.zram_devices();
    if !c.zswap_on() || zram.is_empty() {
        return None;
    }
    let mut ev = vec![zswap_line(c)];
    for d in &zram {
        ev.push(format!("{} is an active swap device", dev_desc(d)));
    }
    let names: Vec<String> = zram.iter().map(|d| sh(&d.path)).collect();
    let resets: Vec<String> = zram
        .iter()
        .filter_map(|d| d.path.strip_prefix("/dev/"))
        .map(|n| format!("echo 1 | sudo tee {}", sys_block(n, "reset")))
        .collect();
    Some(finding(
        "zswap-zram",
        Severity::Warn,
        "zswap is enabled in front of zram swap: pages are compressed twice",
        ev,
        format!(
            "Pick one. To keep zram, turn zswap off: {}. To keep zswap, take zram out of swap: \
             `sudo swapoff {} && {}`, give zswap a disk swap area instead, and stop zram being \
             set up at boot (remove its section from /etc/systemd/zram-generator.conf, or the \
             udev rule or service that creates it).",
            zswap_param_fix("enabled", "N", "0"),
            names.join(" "),
            resets.join(" && ")
        ),
        "zswap intercepts pages on their way to any swap device, zram included, so a page is \
         compressed into the zswap pool first and compressed again by zram when zswap rejects it \
         or writes it back. Both pools live in RAM, so the second tier saves no I/O and spends CPU \
         and memory on the same data twice.",
    ))
}

// --- zram-lru-inversion ----------------------------------------------------------------------

pub(crate) fn zram_lru_inversion(c: &Ctx) -> Option<Finding> {
    let disks = c.disk_devices();
    // Swap-outs over the interval: with zram full they land on the lower, disk areas.
    let swapouts = c
        .snap
        .rates
        .as_ref()
        .and_then(|r| r.pswpout_bytes_per_sec)
        .filter(|&o| o > 0.0)?;
    let mut ev = Vec::new();
    let mut supported = false;
    let mut zram_names = Vec::new();
    for z in c.zram_devices() {
        let Some(backing) = z.zram_backing.as_ref() else {
            continue;
        };
        if backing.has_writeback_device() != Some(false) {
            continue;
        }
        let lower: Vec<&&SwapDevice> = disks.iter().filter(|d| d.priority < z.priority).collect();
        let Some(full) = zram_full(c, z) else {
            continue;
        };
        if lower.is_empty() {
            continue;
        }
        supported |= backing.writeback_supported();
        zram_names.push(backing.name.clone());
        ev.push(format!(
            "{} has no writeback device ({})",
            dev_desc(z),
            match &backing.backing_dev {
                Ok(v) => format!("backing_dev {v}"),
                Err(_) => "kernel built without CONFIG_ZRAM_WRITEBACK".to_string(),
            }
        ));
        ev.push(full);
        for d in lower {
            ev.push(format!("lower priority: {}", dev_desc(d)));
        }
    }
    if zram_names.is_empty() {
        return None;
    }
    ev.push(format!(
        "swap-outs at {} while zram is full: newer pages go to disk while older ones keep \
         zram's RAM",
        f::rate(Some(swapouts))
    ));
    let z0 = zram_names[0].as_str();
    let dev = sh(&format!("/dev/{z0}"));
    let block = |file: &str| sys_block(z0, file);
    let zswap_way = if c.zswap_on() {
        // zswap is already on: taking zram out leaves it in front of the disk swap.
        let shrinker = if c.snap.zswap.shrinker_enabled == Some(false) {
            format!(
                ", and let its shrinker move cold pages to disk: {}",
                zswap_param_fix("shrinker_enabled", "Y", "1")
            )
        } else {
            String::new()
        };
        format!(
            "take zram out, leaving zswap (already on) in front of the disk swap, which moves its \
             oldest pages to disk by itself: `sudo swapoff {dev}`, and remove zram from \
             /etc/systemd/zram-generator.conf{shrinker}"
        )
    } else if c.snap.zswap.available {
        let (cmds, words) = if c.snap.zswap.shrinker_enabled == Some(false) {
            (
                "`echo Y | sudo tee /sys/module/zswap/parameters/enabled` and `echo Y | sudo tee \
                 /sys/module/zswap/parameters/shrinker_enabled`",
                "zswap.enabled=1 zswap.shrinker_enabled=1",
            )
        } else {
            (
                "`echo Y | sudo tee /sys/module/zswap/parameters/enabled`",
                "zswap.enabled=1",
            )
        };
        format!(
            "replace zram with zswap in front of the disk swap, which moves its oldest pages to \
             disk by itself: `sudo swapoff {dev}`, then {cmds}; to make it permanent, {}, and \
             remove zram from /etc/systemd/zram-generator.conf",
            cmdline(words)
        )
    } else {
        "use a kernel with zswap (CONFIG_ZSWAP) in front of the disk swap".to_string()
    };
    let fix = if supported {
        format!(
            "Either let zram move idle pages to a disk partition: with the device reset (`sudo \
             swapoff {dev} && echo 1 | sudo tee {}`), `echo /dev/PART | sudo tee {}`, set \
             disksize, mkswap and swapon again, then from a timer `echo all | sudo tee {} && echo \
             idle | sudo tee {}`; to keep it, set `writeback-device = /dev/PART` in \
             /etc/systemd/zram-generator.conf. Or {zswap_way}.",
            block("reset"),
            block("backing_dev"),
            block("idle"),
            block("writeback"),
        )
    } else {
        format!(
            "This kernel has no zram writeback (no backing_dev: CONFIG_ZRAM_WRITEBACK is off), \
             so {zswap_way}."
        )
    };
    Some(finding(
        "zram-lru-inversion",
        Severity::Warn,
        "zram sits above disk swap with no writeback device: cold pages stay in RAM, newer ones go to disk",
        ev,
        fix,
        "zram keeps every page it is given until that page is swapped back in or freed; it has no \
         LRU that moves cold pages on. Once the higher-priority zram device is full, every newer \
         page goes to the disk swap while the oldest, coldest pages keep their RAM in zram, the \
         reverse of what a fast tier should hold.",
    ))
}

/// Why zram device `z` counts as full (its swap slots or its mem_limit at
/// [`zram_near_full_percent`](super::thresholds::Thresholds::zram_near_full_percent) or more), or `None` while it has room.
fn zram_full(c: &Ctx, z: &SwapDevice) -> Option<String> {
    let share = |part: u64, whole: u64| (whole > 0).then(|| part as f64 * 100.0 / whole as f64);
    if let Some(p) = share(z.used_bytes, z.size_bytes).filter(|&p| p >= c.t.zram_near_full_percent)
    {
        return Some(format!(
            "{} is {p:.1}% full ({} of its {} disksize in use)",
            z.path,
            f::bytes_raw(z.used_bytes),
            f::bytes_raw(z.size_bytes)
        ));
    }
    let name = z.path.strip_prefix("/dev/")?;
    let m = c.snap.zram.iter().find(|m| m.device == name)?;
    let (used, limit) = (m.mem_used_bytes?, m.mem_limit_bytes.filter(|&l| l > 0)?);
    share(used, limit)
        .filter(|&p| p >= c.t.zram_near_full_percent)
        .map(|p| {
            format!(
                "{name} uses {} of its mem_limit {} ({p:.1}%)",
                f::bytes_raw(used),
                f::bytes_raw(limit)
            )
        })
}

// --- zram-writeback-idle ---------------------------------------------------------------------

/// Idle pages worth a finding: 1 MiB (256 pages of 4 KiB). Fewer are the last seconds' noise.
const IDLE_MIN_BYTES: u64 = 1 << 20;

/// Idle pages growing by this much between two `block_state` readings (64 pages of 4 KiB) make
/// the finding below [`IDLE_MIN_BYTES`]: pages are being marked idle (a timer writing `idle`)
/// and nothing writes them back, so they will pass it.
const IDLE_GROWTH_MIN_BYTES: u64 = 256 << 10;

/// The systemd timer that keeps writeback going: each run writes back what stayed idle since the
/// run before, then marks every page idle for the next. `dev` is a zram device name (`zram`
/// and digits: the sources list no other), so the paths need no quoting inside `sh -c '…'`.
fn writeback_timer(dev: &str) -> String {
    format!(
        "to keep it going, a systemd timer: /etc/systemd/system/zram-writeback-{dev}.service \
         with `[Service]` `Type=oneshot` `ExecStart=/bin/sh -c 'echo idle > \
         /sys/block/{dev}/writeback'` `ExecStart=/bin/sh -c 'echo all > /sys/block/{dev}/idle'`, \
         and zram-writeback-{dev}.timer with `[Timer]` `OnBootSec=1h` `OnUnitActiveSec=1h` \
         `[Install]` `WantedBy=timers.target`, then `sudo systemctl enable --now \
         zram-writeback-{dev}.timer` (zram-generator sets `writeback-device` but fires no \
         writeback itself)"
    )
}

/// A backing device set, idle pages sitting in RAM (debugfs `block_state`), and `bd_stat`
/// writes that did not move over the window: writeback is configured and nothing fires it.
pub(crate) fn zram_writeback_idle(c: &Ctx) -> Option<Finding> {
    let window = c.snap.interval_seconds?;
    let mut ev = Vec::new();
    let mut fixes = Vec::new();
    let mut growing = false;
    for z in &c.snap.zram {
        if !z.has_backing_dev() || z.bd_writes_window_bytes != Some(0) {
            continue;
        }
        // Present, or growing between the block_state readings (pages marked idle, none
        // written back: something marks them, nothing writes them).
        let grew = z
            .idle_window_bytes
            .zip(z.idle_window_seconds)
            .filter(|&(g, _)| g >= IDLE_GROWTH_MIN_BYTES as i64);
        let Some(idle) = z
            .idle_bytes
            .filter(|&b| b >= IDLE_MIN_BYTES || grew.is_some())
        else {
            continue;
        };
        let dev = z.device.as_str();
        let growth = match (z.idle_window_bytes, z.idle_window_seconds) {
            (Some(g), Some(dt)) if g > 0 => format!(
                ", {} more than {dt:.1}s before (the block_state reading then)",
                f::bytes_raw(g.unsigned_abs())
            ),
            (Some(g), Some(dt)) if g < 0 => format!(
                ", {} less than {dt:.1}s before (the block_state reading then)",
                f::bytes_raw(g.unsigned_abs())
            ),
            (Some(_), Some(dt)) => format!(", as many as {dt:.1}s before"),
            _ => String::new(),
        };
        growing |= grew.is_some();
        ev.push(format!(
            "{dev}: backing_dev {}; {} of idle pages in RAM (debugfs block_state, uncompressed){growth}; \
             bd_stat writes unchanged over {window:.1}s ({} written since setup, {} there now)",
            z.backing_dev.as_deref().unwrap_or(f::MISSING),
            f::bytes_raw(idle),
            f::bytes(z.bd_writes_bytes),
            f::bytes(z.bd_count_bytes),
        ));
        let mut cmd = format!(
            "`echo all | sudo tee {} && echo idle | sudo tee {}`",
            sys_block(dev, "idle"),
            sys_block(dev, "writeback")
        );
        if z.writeback_limit_enabled == Some(true) {
            ev.push(format!(
                "{dev}: writeback_limit_enable 1, writeback_limit {} left",
                f::bytes(z.writeback_limit_bytes)
            ));
            if z.writeback_limit_bytes == Some(0) {
                cmd = format!(
                    "`echo 0 | sudo tee {}` (the limit is spent: writeback fails with EIO; or give \
                     it a new budget in 4 KiB pages, `echo 262144 | sudo tee {}` for 1 GiB), then {cmd}",
                    sys_block(dev, "writeback_limit_enable"),
                    sys_block(dev, "writeback_limit")
                );
            }
        }
        fixes.push(format!("{dev}: {cmd}; {}", writeback_timer(dev)));
    }
    if ev.is_empty() {
        return None;
    }
    Some(finding(
        "zram-writeback-idle",
        Severity::Warn,
        if growing {
            "zram has a backing device but nothing writes its idle pages back, and they grow"
        } else {
            "zram has a backing device but nothing writes its idle pages back"
        },
        ev,
        format!(
            "Write the idle pages to the backing device now: {}. `echo all > idle` marks every \
             page idle; `echo idle > writeback` moves the pages still idle to the backing \
             device. Where the kernel tracks access times (CONFIG_ZRAM_MEMORY_TRACKING), `echo \
             3600 > idle` marks only pages untouched for an hour.",
            fixes.join("; ")
        ),
        "zram writeback is a one-shot trigger: setting backing_dev only makes room for it. The \
         kernel moves pages to the backing device only when something writes `idle`, `huge` or \
         `huge_idle` to the device's `writeback` file, so without a timer or daemon doing that, \
         idle pages keep their compressed RAM and the backing device stays empty.",
    ))
}

// --- zram-recompress-idle --------------------------------------------------------------------

/// A recompression algorithm configured, pages stored, and no slot a recompression ever
/// reached (debugfs `block_state` shows none with `r` or `n`): `recompress` was never written.
pub(crate) fn zram_recompress_idle(c: &Ctx) -> Option<Finding> {
    let mut ev = Vec::new();
    let mut fixes = Vec::new();
    for z in &c.snap.zram {
        let Some(alg) = z.recomp_algorithm.as_deref() else {
            continue;
        };
        if z.recompressed_bytes != Some(0) {
            continue;
        }
        let stored = z.orig_data_bytes.unwrap_or(0).saturating_sub(
            z.same_pages
                .unwrap_or(0)
                .saturating_mul(c.snap.page_size.bytes),
        );
        if stored < IDLE_MIN_BYTES {
            continue;
        }
        let dev = z.device.as_str();
        ev.push(format!(
            "{dev}: recomp_algorithm {}; {} stored (primary {}), {} of it idle; no page \
             recompressed (debugfs block_state: no slot flagged r or n)",
            alg.replace('\n', " "),
            f::bytes_raw(stored),
            z.algorithm.as_deref().unwrap_or(f::MISSING),
            f::bytes(z.idle_bytes),
        ));
        fixes.push(format!(
            "`echo all | sudo tee {idle} && echo type=idle | sudo tee {rc}` ({dev}; `type=huge` \
             recompresses the incompressible pages instead); to keep it going, a systemd timer \
             as for writeback, its oneshot service with `ExecStart=/bin/sh -c 'echo type=idle > \
             /sys/block/{dev}/recompress'` then `ExecStart=/bin/sh -c 'echo all > \
             /sys/block/{dev}/idle'`, every hour",
            idle = sys_block(dev, "idle"),
            rc = sys_block(dev, "recompress"),
        ));
    }
    if ev.is_empty() {
        return None;
    }
    Some(finding(
        "zram-recompress-idle",
        Severity::Info,
        "zram has a recompression algorithm set but no page was ever recompressed",
        ev,
        format!("Recompress the idle pages now: {}.", fixes.join("; ")),
        "Recompression (CONFIG_ZRAM_MULTI_COMP) is a one-shot trigger like writeback: \
         recomp_algorithm only names the secondary algorithm. The kernel recompresses pages \
         only when something writes to the device's `recompress` file, and marks each slot it \
         reached (`r` recompressed, `n` no gain) in debugfs block_state; no slot so marked \
         means nothing ever fired it, so the pages keep the primary algorithm's larger size.",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::diagnostics::thresholds::Thresholds;
    use crate::model::Snapshot;

    fn read(name: &str) -> crate::sources::Sample {
        crate::sources::collect(&crate::root::Root::at(format!(
            "{}/tests/fixtures/{name}",
            env!("CARGO_MANIFEST_DIR")
        )))
    }

    /// Two trees a second apart, as the model sees them.
    fn pair(first: &str, second: &str) -> Snapshot {
        let a = read(first);
        let mut b = read(second);
        b.monotonic_ns = a.monotonic_ns + 1_000_000_000;
        Snapshot::derive(&b, Some(&a))
    }

    fn run(s: &Snapshot, rule: fn(&Ctx) -> Option<Finding>) -> Option<Finding> {
        rule(&Ctx {
            snap: s,
            t: &Thresholds::default(),
        })
    }

    /// 8 MiB of idle pages in RAM beside a backing device whose bd_stat writes did not move:
    /// the finding, its evidence from block_state and bd_stat, the exact commands.
    #[test]
    fn idle_pages_with_a_backing_device_that_nothing_writes_to() {
        let s = pair("zram-writeback-idle", "zram-writeback-idle-t1");
        let z = &s.zram[0];
        assert_eq!(z.idle_bytes, Some(2048 * 4096));
        assert_eq!(z.bd_writes_window_bytes, Some(0));
        let f = run(&s, zram_writeback_idle).expect("finding");
        assert!(
            f.evidence[0].contains("8.0 MiB of idle pages"),
            "{:?}",
            f.evidence
        );
        assert!(f.evidence[0].contains("/dev/vda3"), "{:?}", f.evidence);
        assert!(
            f.fix.contains(
                "echo all | sudo tee /sys/block/zram0/idle && echo idle | sudo tee /sys/block/zram0/writeback"
            ),
            "{}",
            f.fix
        );
        assert!(f.fix.contains("OnUnitActiveSec=1h"), "{}", f.fix);
        // The budget is spent (writeback_limit_enable 1, writeback_limit 0): said, and lifted first.
        assert!(
            f.evidence
                .iter()
                .any(|e| e.contains("writeback_limit_enable 1"))
        );
        assert!(
            f.fix
                .contains("echo 0 | sudo tee /sys/block/zram0/writeback_limit_enable"),
            "{}",
            f.fix
        );
        // From one sample nothing says bd_stat stood still: no finding.
        let one = Snapshot::derive(&read("zram-writeback-idle"), None);
        assert!(run(&one, zram_writeback_idle).is_none());
    }

    /// Idle pages growing between the block_state readings: said in the evidence and the
    /// summary; below the 1 MiB present they still make the finding while they grow, not while
    /// the reading is only carried (the same time) or they shrink.
    #[test]
    fn idle_pages_growing_over_the_window() {
        let a = read("zram-writeback-idle");
        let mut b = read("zram-writeback-idle-t1");
        b.monotonic_ns = a.monotonic_ns + 1_000_000_000;
        let with = |before: u64, now: u64, read_ns: (u64, u64)| {
            let (mut a, mut b) = (a.clone(), b.clone());
            for (s, idle, at) in [(&mut a, before, read_ns.0), (&mut b, now, read_ns.1)] {
                let z = &mut s.zram[0];
                z.block_state.as_mut().unwrap().idle_in_ram = idle;
                z.block_state_read_ns = Some(at);
            }
            Snapshot::derive(&b, Some(&a))
        };
        // 1024 → 2048 idle pages in 60 s.
        let s = with(1024, 2048, (0, 60_000_000_000));
        assert_eq!(s.zram[0].idle_window_bytes, Some(1024 * 4096));
        assert_eq!(s.zram[0].idle_window_seconds, Some(60.0));
        let f = run(&s, zram_writeback_idle).expect("finding");
        assert!(f.summary.ends_with("and they grow"), "{}", f.summary);
        assert!(
            f.evidence[0].contains("4.0 MiB more than 60.0s before"),
            "{:?}",
            f.evidence
        );
        // 0 → 128 pages (512 KiB, under the 1 MiB present): growing, the finding.
        let s = with(0, 128, (0, 60_000_000_000));
        let f = run(&s, zram_writeback_idle).expect("growing idle pages");
        assert!(
            f.evidence[0].contains("512.0 KiB of idle pages"),
            "{:?}",
            f.evidence
        );
        // The same 128 pages carried (one reading): no growth known, under 1 MiB: none.
        let s = with(128, 128, (5, 5));
        assert_eq!(s.zram[0].idle_window_bytes, None);
        assert!(run(&s, zram_writeback_idle).is_none());
        // Shrinking to 128 pages: none; 2048 pages shrinking from 4096: the finding, not growing.
        assert!(run(&with(512, 128, (0, 1)), zram_writeback_idle).is_none());
        let f = run(&with(4096, 2048, (0, 1_000_000_000)), zram_writeback_idle).unwrap();
        assert!(!f.summary.contains("grow"), "{}", f.summary);
        assert!(
            f.evidence[0].contains("8.0 MiB less than 1.0s before"),
            "{:?}",
            f.evidence
        );
    }

    /// After `echo idle > writeback`: bd_stat writes moved and no idle page is left in RAM.
    #[test]
    fn quiet_after_writeback() {
        let s = pair("zram-writeback-done", "zram-writeback-done-t1");
        assert_eq!(s.zram[0].bd_writes_window_bytes, Some(2048 * 4096));
        assert_eq!(s.zram[0].idle_bytes, Some(0));
        assert!(run(&s, zram_writeback_idle).is_none());
        // Idle pages still there but writes moved over the window: quiet too.
        let mut moved = pair("zram-writeback-idle", "zram-writeback-idle-t1");
        moved.zram[0].bd_writes_window_bytes = Some(4096);
        assert!(run(&moved, zram_writeback_idle).is_none());
    }

    /// zstd configured for recompression, no slot block_state marks `r` or `n`: the finding;
    /// after `echo type=idle > recompress` (512 slots `r`), none.
    #[test]
    fn recompression_configured_never_fired() {
        let s = pair("zram-writeback-idle", "zram-writeback-idle-t1");
        assert_eq!(s.zram[0].recompressed_bytes, Some(0));
        let f = run(&s, zram_recompress_idle).expect("finding");
        assert!(f.evidence[0].contains("zstd"), "{:?}", f.evidence);
        assert!(
            f.fix
                .contains("echo type=idle | sudo tee /sys/block/zram0/recompress"),
            "{}",
            f.fix
        );
        let done = pair("zram-writeback-done", "zram-writeback-done-t1");
        assert_eq!(done.zram[0].recompressed_bytes, Some(512 * 4096));
        assert!(run(&done, zram_recompress_idle).is_none());
        // No block_state (not root, or no CONFIG_ZRAM_MEMORY_TRACKING): nothing proves it.
        let no_debugfs = pair("depth-zram-writeback", "depth-zram-writeback");
        assert_eq!(no_debugfs.zram[0].recompressed_bytes, None);
        assert!(run(&no_debugfs, zram_recompress_idle).is_none());
        assert!(
            no_debugfs.zram[0]
                .unavailable
                .iter()
                .any(|m| m.item == "block_state")
        );
    }
}
