//! Phase 4, what a user without root can read: zswap on again in front of zram0 and the
//! swapfile, zswaptop run as uid 65534. debugfs is 0700, so the pool comes from meminfo, every
//! debugfs-only figure is null with the reason, and no figure is 0 where root reads a value.

use anyhow::Result;
use serde_json::Value;

use super::{cycle, zram_entry};
use crate::capture;
use crate::checks;
use crate::context::{Ctx, run_zswaptop};
use crate::kernel;
use crate::rep;
use crate::report::{self, b, is_null, u};
use crate::workload::Handle;

pub fn run(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    let ps = ctx.ps;
    rep().phase("phase4 — no root (uid 65534), zswap on again in front of the swap devices");
    kernel::set_param("max_pool_percent", "20")?;
    kernel::set_param("enabled", "Y")?;
    let touched = cycle(&ctx.cg, wl, 0, 50)?;
    println!("  touched {touched} pages in 5 % steps, each paged out");
    ctx.settle("after reclaim")?;
    let res = wl.resident()?;
    let snap = ctx.snap(true)?;
    let (root_json, _) = run_zswaptop(&ctx.bin, &[], false)?;
    unprivileged(&snap.json, &root_json);
    checks::every_phase(&snap, ps, false);
    if let Some(k) = snap
        .after
        .zram0
        .filter(|_| snap.after.swaps.iter().any(|s| s.path == "/dev/zram0"))
    {
        let mut r = rep();
        let z = zram_entry(&snap.json);
        r.bracket(
            "zram[zram0].orig_data_bytes vs mm_stat (as uid 65534)",
            z.as_ref().and_then(|z| u(z, "orig_data_bytes")),
            snap.before.zram0.map(|m| m.orig),
            Some(k.orig),
            0,
        );
    }
    capture::phase(
        ctx,
        "e2e-phase4-noroot",
        wl.pid,
        &snap,
        &capture::readme(
            "e2e phase 4: what a non-root user can read",
            wl,
            res,
            &snap.after,
            "zswap enabled again (max_pool_percent 20) in front of zram0 (priority 100) and the swapfile; the \
             workload rewrote half of its pages in 5 % steps, each paged out at once, so pages sit in zswap, in zram and \
             zero-filled. This tree has no sys/kernel/debug: it is what uid 65534 can read (debugfs is 0700), so \
             the pool comes from meminfo and every debugfs-only value must be null.",
        ),
        true,
    )?;
    Ok(())
}

/// The run as uid 65534 against the one as root: no debugfs, with the reason; the debugfs-only
/// figures null; no figure 0 that root reads as non-zero.
fn unprivileged(j: &Value, root_json: &Value) {
    let mut r = rep();
    r.check(
        "host.privileged is false",
        b(j, "host.privileged") == Some(false),
        &report::show(report::at(j, "host.privileged")),
        "false",
    );
    r.check(
        "zswap.debugfs is null",
        is_null(j, "zswap.debugfs"),
        &report::show(report::at(j, "zswap.debugfs")),
        "null",
    );
    let unavailable = report::at(j, "zswap.unavailable")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let entry = unavailable
        .iter()
        // The item names debugfs first (it may add what depends on it in parentheses).
        .find(|e| {
            e.get("item")
                .and_then(Value::as_str)
                .is_some_and(|i| i.starts_with("debugfs"))
        });
    let reason = entry
        .and_then(|e| e.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("");
    r.check(
        "zswap.unavailable lists debugfs with a reason naming root",
        reason.contains("root"),
        &report::show(entry),
        "{item: debugfs, reason: …root…}",
    );
    for path in [
        "zswap.incompressible_bytes",
        "zswap.same_filled_bytes",
        "zswap.compressor_ratio",
    ] {
        r.check(
            &format!("{path} is null (debugfs-only)"),
            is_null(j, path),
            &report::show(report::at(j, path)),
            "null",
        );
    }
    let zeros = zero_leaks(j, root_json);
    r.check(
        "no value is 0 as uid 65534 that is non-zero as root",
        zeros.is_empty(),
        &if zeros.is_empty() {
            "none".into()
        } else {
            zeros.join(", ")
        },
        "none",
    );
}

/// Paths whose value is the number 0 in `nobody` but a non-zero number in `root` (volatile
/// measurements such as uptime, PSI averages and the swap cache's mapped part excepted).
fn zero_leaks(nobody: &Value, root: &Value) -> Vec<String> {
    fn walk(path: &str, a: &Value, b: Option<&Value>, out: &mut Vec<String>) {
        match a {
            Value::Object(m) => {
                for (k, v) in m {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(&p, v, b.and_then(|b| b.get(k)), out);
                }
            }
            Value::Array(items) => {
                for (n, v) in items.iter().enumerate() {
                    walk(&format!("{path}.{n}"), v, b.and_then(|b| b.get(n)), out);
                }
            }
            Value::Number(n) if n.as_f64() == Some(0.0) => {
                // The swap cache's split into mapped and not mapped moves with every fault in
                // the workload and the rest of the machine between the two runs, and so does
                // its share beyond the pages also in zswap or zram (a page or two here); all
                // three come from /proc/meminfo, which uid 65534 reads as root does.
                let volatile = path.starts_with("psi.")
                    || path.starts_with("host.")
                    || path.starts_with("rates")
                    || path == "memory.swap_cache_mapped_bytes"
                    || path == "memory.breakdown.swap_cache_bytes"
                    || path == "swap.in_swap_cache_bytes";
                if let Some(other) = b.and_then(Value::as_f64)
                    && other != 0.0
                    && !volatile
                {
                    out.push(format!("{path} (root: {other})"));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk("", nobody, Some(root), &mut out);
    out
}
