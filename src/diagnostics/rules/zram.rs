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
