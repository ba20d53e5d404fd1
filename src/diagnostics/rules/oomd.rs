//! The rule on systemd-oomd: a swap-based kill policy on swap that is mostly compressed RAM.
//! Swap added after oomd started is no basis: oomd reads `/proc/swaps` again at every check of
//! its swap policy (systemd `src/oom/oomd-manager.c`, `oomd_system_context_acquire`), so it
//! counts such swap once it is there; at its start it only warns where there is none
//! (`src/oom/oomd.c`: "No swap; memory pressure usage will be degraded").

use super::*;

/// Share of swap that, held in compressed RAM, makes swap "mostly RAM" for oomd's swap policy.
const MOSTLY_PERCENT: f64 = 50.0;

// --- oomd-swap -------------------------------------------------------------------------------

/// systemd-oomd runs with `ManagedOOMSwap=kill` on some unit, and its swap is mostly compressed
/// RAM (zram areas, or zswap holding the used swap).
pub(crate) fn oomd_swap(c: &Ctx) -> Option<Finding> {
    let o = c.snap.oomd.as_ref()?;
    if o.swap_kill_units.is_empty() {
        return None;
    }
    let w = &c.snap.swap;
    let total = w.total_bytes.filter(|&t| t > 0)?;
    let zram_size: u64 = c.zram_devices().iter().map(|d| d.size_bytes).sum();
    let zram_share = zram_size as f64 * 100.0 / total as f64;
    let in_ram = w.in_zswap_bytes.unwrap_or(0) + w.in_zram_bytes.unwrap_or(0);
    let used = w.used_bytes.unwrap_or(0);
    let ram_share = (used > 0).then(|| in_ram as f64 * 100.0 / used as f64);
    let mostly_zram = zram_share >= MOSTLY_PERCENT;
    let mostly_zswap = c.zswap_on() && ram_share.is_some_and(|p| p >= MOSTLY_PERCENT);
    if !mostly_zram && !mostly_zswap {
        return None;
    }
    let limit = o
        .swap_used_limit_percent
        .map_or_else(|| f::MISSING.to_string(), |p| format!("{p:.0}%"));
    let mut ev = vec![format!(
        "systemd-oomd runs (pid {}), SwapUsedLimit={limit} ({})",
        o.pid, o.swap_used_limit_from
    )];
    for u in &o.swap_kill_units {
        ev.push(format!("ManagedOOMSwap=kill on {} ({})", u.unit, u.file));
    }
    if mostly_zram {
        ev.push(format!(
            "{zram_share:.0}% of swap ({} of {}) is zram: compressed RAM",
            f::bytes_raw(zram_size),
            f::bytes_raw(total)
        ));
    }
    if mostly_zswap && let Some(p) = ram_share {
        ev.push(format!(
            "zswap is on and {p:.0}% of used swap ({} of {}) sits compressed in RAM (in zswap or zram)",
            f::bytes_raw(in_ram),
            f::bytes_raw(used)
        ));
    }
    let fix = String::from(
        "Let oomd judge by memory pressure rather than by swap used: drop the swap kill, with \
         `sudo systemctl edit UNIT` and `[Slice]`/`[Service]` `ManagedOOMSwap=auto` for each unit \
         above (a drop-in under /etc/systemd/system/UNIT.d/ outlives package updates), and keep \
         `ManagedOOMMemoryPressure=kill` where you want oomd to act. Or, to keep the swap kill \
         on compressed swap, raise the limit in a drop-in: `sudo mkdir -p \
         /etc/systemd/oomd.conf.d && printf '[OOM]\\nSwapUsedLimit=98%%\\n' | sudo tee \
         /etc/systemd/oomd.conf.d/90-swap.conf && sudo systemctl restart systemd-oomd`.",
    );
    Some(finding(
        "oomd-swap",
        Severity::Warn,
        "systemd-oomd kills on swap used, and this swap is compressed RAM",
        ev,
        fix,
        "systemd-oomd's swap policy kills the largest swap user in a ManagedOOMSwap=kill unit \
         once SwapTotal minus SwapFree passes SwapUsedLimit (systemd src/oom/oomd-util.c \
         oomd_swap_free_below). It counts zram and zswap-held swap like disk swap, but those \
         pages sit in RAM, compressed: a full zram device is RAM spent, not disk to fall back \
         on, so kills come early or late depending on how well pages compress, not on memory \
         pressure. oomd reads /proc/swaps again at every check (src/oom/oomd-manager.c), so \
         the swap it weighs is the swap there now, zram and zswap's included.",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::diagnostics::thresholds::Thresholds;
    use crate::model::Snapshot;

    fn fixture(name: &str) -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name)
    }

    fn judge(dir: &std::path::Path) -> (Snapshot, Option<Finding>) {
        let s = Snapshot::derive(&crate::sources::collect(&crate::root::Root::at(dir)), None);
        let f = oomd_swap(&Ctx {
            snap: &s,
            t: &Thresholds::default(),
        });
        (s, f)
    }

    /// Debian's (Fedora's) drop-in puts ManagedOOMSwap=kill on -.slice; all swap is zram.
    #[test]
    fn swap_kill_on_zram_swap() {
        let (s, f) = judge(&fixture("oomd-debian-zram"));
        let o = s.oomd.as_ref().expect("oomd runs");
        assert_eq!(o.pid, 812);
        assert_eq!(o.started_unix, Some(1_764_300_012));
        assert_eq!(o.swap_used_limit_percent, Some(90.0));
        assert_eq!(o.swap_used_limit_from, "systemd's default");
        assert_eq!(
            o.swap_kill_units,
            vec![crate::model::oomd::OomdUnit {
                unit: "-.slice".into(),
                file: "/usr/lib/systemd/system/-.slice.d/10-oomd-root-slice-defaults.conf".into()
            }]
        );
        let f = f.expect("finding");
        assert!(
            f.evidence.iter().any(|e| e.contains("100% of swap")),
            "{:?}",
            f.evidence
        );
        assert!(f.fix.contains("ManagedOOMSwap=auto"), "{}", f.fix);
    }

    /// Upstream's defaults kill on swap in no unit; a disk swapfile is not compressed RAM: no
    /// finding, and none either when it was made after oomd started (oomd reads /proc/swaps at
    /// every check: it counts that swap).
    #[test]
    fn disk_swap_is_no_finding_even_when_added_after_oomd() {
        assert!(judge(&fixture("oomd-upstream-zram")).1.is_none());
        let (s, f) = judge(&fixture("oomd-debian-disk"));
        assert!(s.oomd.is_some());
        assert!(f.is_none(), "{f:?}");
        let tmp = tempfile::tempdir().unwrap();
        let copy = tmp.path().join("t");
        let status = std::process::Command::new("cp")
            .arg("-a")
            .arg(fixture("oomd-debian-disk"))
            .arg(&copy)
            .status()
            .unwrap();
        assert!(status.success());
        let swapfile = std::fs::File::options()
            .append(true)
            .open(copy.join("swapfile-fx"))
            .or_else(|_| std::fs::File::create(copy.join("swapfile-fx")))
            .unwrap();
        let after = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_764_300_100);
        swapfile.set_modified(after).unwrap();
        let (s, f) = judge(&copy);
        assert_eq!(
            s.oomd.as_ref().unwrap().swap_added_after_start,
            vec!["/swapfile-fx".to_string()]
        );
        assert!(f.is_none(), "{f:?}");
    }
}
