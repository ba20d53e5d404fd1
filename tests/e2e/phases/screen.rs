//! Phase 5, the one-screen answer in the setup where it matters most: zswap in front of zram0
//! and the swapfile, as the no-root phase left it, read as root. `zswaptop --once` fits 80
//! columns (`awk 'length > 80'` prints nothing) and 22 lines, cuts no figure and shows the disk
//! share; `--once -i 2` shows rates equal to the kernel's vmstat deltas over traffic made inside
//! its interval; `--watch --count 5` rows carry the date and the refusal and bypass columns. The
//! one screen is printed verbatim.

use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result};

use super::d;
use crate::context::Ctx;
use crate::kernel::{self, Kernel};
use crate::rep;
use crate::workload::Handle;

/// The summary's line budget (a 24-line terminal less the prompt and the command).
const MAX_LINES: usize = 22;

pub fn run(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    rep().phase("phase5 — the one screen: zswap + zram + disk, as root");
    let zram = Kernel::read()?.swaps.iter().any(|s| s.path == "/dev/zram0");
    ctx.settle("before the one screen")?;
    one_screen(ctx, zram)?;
    rates(ctx, wl)?;
    watch(ctx, zram)
}

fn zswaptop(ctx: &Ctx, args: &[&str]) -> Result<String> {
    let out = Command::new(&ctx.bin)
        .args(args)
        .current_dir("/")
        .env_remove("NO_COLOR")
        .output()
        .with_context(|| format!("running zswaptop {}", args.join(" ")))?;
    if !out.status.success() {
        anyhow::bail!(
            "zswaptop {} failed ({}): {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `zswaptop --once`, as typed, and the checks of its one screen.
fn one_screen(ctx: &Ctx, zram: bool) -> Result<()> {
    let k0 = Kernel::read()?;
    let text = zswaptop(ctx, &["--once"])?;
    let k1 = Kernel::read()?;
    println!("  the one screen of this setup, verbatim:");
    println!("  ------------------------------------------------------------------------------");
    for line in text.lines() {
        println!("{line}");
    }
    println!("  ------------------------------------------------------------------------------");
    let mut r = rep();
    let lines: Vec<&str> = text.lines().collect();
    r.check(
        "--once lines",
        lines.len() <= MAX_LINES,
        &lines.len().to_string(),
        &format!("<= {MAX_LINES}"),
    );
    let widest = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    r.check(
        "--once widest line (characters)",
        widest <= 80,
        &widest.to_string(),
        "<= 80",
    );
    // The command of the issue, through a shell pipe (awk counts what its locale says).
    let pipe = format!("'{}' --once | awk 'length > 80'", ctx.bin.display());
    let over = Command::new("sh")
        .args(["-c", &pipe])
        .current_dir("/")
        .stderr(Stdio::inherit())
        .output()
        .context("running the awk pipe")?;
    let over = String::from_utf8_lossy(&over.stdout).into_owned();
    r.check(
        "zswaptop --once | awk 'length > 80'",
        over.is_empty(),
        &format!("{} lines", over.lines().count()),
        "nothing",
    );
    let cut: Vec<&&str> = lines.iter().filter(|l| l.contains('…')).collect();
    r.check(
        "--once lines with a cut (…)",
        cut.is_empty(),
        &cut.len().to_string(),
        "0",
    );
    // "on disk or zero-filled 51.4M" (or the tight "disk or zero 51.4M"): the first figure after.
    let disk = text.split("disk or zero").nth(1).and_then(|rest| {
        rest.split_whitespace()
            .take(2)
            .find(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    });
    r.check(
        "--once shows the disk share",
        disk.is_some(),
        disk.unwrap_or("none"),
        "a figure after 'disk or zero'",
    );
    // check-zswap's questions: the compressor, the pool limit, the accept threshold, the
    // shrinker, the rejects, the swap areas.
    let compressor = kernel::read_trim(format!("{}/compressor", kernel::ZSWAP_PARAMS))?;
    let zswap_line = lines.iter().find(|l| l.starts_with("ZSWAP")).copied();
    for want in ["limit ", "accept ", "shrinker ", "rejects "] {
        let has = zswap_line.is_some_and(|l| l.contains(want));
        r.check(
            &format!("--once ZSWAP line holds {want:?}"),
            has,
            zswap_line.unwrap_or("no ZSWAP line"),
            "yes",
        );
    }
    r.check(
        "--once ZSWAP line names the compressor",
        zswap_line.is_some_and(|l| l.split_whitespace().any(|w| w == compressor)),
        zswap_line.unwrap_or("no ZSWAP line"),
        &compressor,
    );
    r.check(
        "--once holds \"/swapfile\"",
        text.contains("/swapfile"),
        if text.contains("/swapfile") {
            "yes"
        } else {
            "no"
        },
        "yes",
    );
    // The swap cache's share is what SwapCached holds beyond the pages also in zswap or zram
    // (a page read back from zram keeps its slot there): shown when it is a MiB or more, not
    // shown when the kernel read around the run makes it 0.
    let cache = |k: &Kernel| {
        let compressed = k.mem("Zswapped")? + k.zram_swap_orig();
        Some(
            k.mem("SwapCached")?
                .min(k.swap_used()?.saturating_sub(compressed)),
        )
    };
    let shown = text.contains("SwapCached");
    match (cache(&k0), cache(&k1)) {
        (Some(a), Some(b)) if a.min(b) >= 1 << 20 => {
            r.check(
                "--once holds \"SwapCached\"",
                shown,
                if shown { "yes" } else { "no" },
                "yes",
            );
        }
        (Some(0), Some(0)) => {
            r.check(
                "--once has no SwapCached share (all of it also in zswap or zram)",
                !shown,
                if shown { "shown" } else { "not shown" },
                "not shown",
            );
        }
        _ => r.note("SwapCached's share moved across 0 around the run: not checked"),
    }
    if zram {
        let area = lines
            .iter()
            .any(|l| l.trim_start().starts_with("/dev/zram0"));
        r.check(
            "--once has the zram0 swap area line",
            area,
            if area { "yes" } else { "no" },
            "yes",
        );
    }
    Ok(())
}

/// A size of the summary's short form (`12.3M`, `512K`, `0`) in bytes.
fn short_bytes(s: &str) -> Option<f64> {
    let (num, unit) = match s.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let n: f64 = num.parse().ok()?;
    let k = match unit {
        "" => 1.0,
        "K" => 1024.0,
        "M" => 1024.0 * 1024.0,
        "G" => 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(n * k)
}

/// The figure after `word ` in the RATES text.
fn after<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let at = text.find(&format!(" {word} "))? + word.len() + 2;
    text[at..].split_whitespace().next()
}

/// `--once -i 2` while the workload makes swap traffic inside its interval: each rate of the
/// RATES line times the interval against the kernel's vmstat delta around the whole run.
fn rates(ctx: &Ctx, wl: &mut Handle) -> Result<()> {
    let k0 = Kernel::read()?;
    let child = Command::new(&ctx.bin)
        .args(["--once", "-i", "2"])
        .current_dir("/")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting zswaptop --once -i 2")?;
    // The traffic: after the first sample, done well before the second.
    std::thread::sleep(Duration::from_millis(300));
    wl.cmd("touch 50 53")?;
    ctx.cg.reclaim()?;
    let out = child.wait_with_output()?;
    let k1 = Kernel::read()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    let mut r = rep();
    let Some(at) = lines.iter().position(|l| l.starts_with("RATES")) else {
        r.check("--once -i 2 has a RATES line", false, "no", "yes");
        println!("{text}");
        return Ok(());
    };
    // The RATES line and the line it continues on, if any.
    let mut rates = lines[at].to_string();
    for l in lines[at + 1..].iter().take_while(|l| l.starts_with("  ")) {
        rates.push(' ');
        rates.push_str(l.trim());
    }
    println!("  {rates}");
    let dt: Option<f64> = after(&rates, "over").and_then(|s| s.trim_end_matches("s:").parse().ok());
    let ps = ctx.ps as f64;
    let shown = |word: &str| {
        let v = after(&rates, word).and_then(short_bytes)?;
        Some((v * dt?).round() as u64)
    };
    let kernel = |key: &str| (d(&k1, &k0, |k| k.vm(key)) as f64 * ps) as u64;
    let disk_in = rates
        .split("disk in ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(short_bytes)
        .zip(dt)
        .map(|(v, dt)| (v * dt).round() as u64);
    let disk_out = after(&rates, "out")
        .and_then(short_bytes)
        .zip(dt)
        .map(|(v, dt)| (v * dt).round() as u64);
    let wb = shown("writeback").or_else(|| shown("wb"));
    for (name, seen, key) in [
        ("store", shown("store"), "zswpout"),
        ("load", shown("load"), "zswpin"),
        ("writeback", wb, "zswpwb"),
        ("disk in", disk_in, "pswpin"),
        ("disk out", disk_out, "pswpout"),
    ] {
        let k = kernel(key);
        // The short form keeps three digits: 5 % of the figure, and a few pages of traffic that
        // fell outside the interval.
        let slack = k / 20 + 64 * ctx.ps;
        r.bracket(
            &format!("RATES {name} × interval vs Δvmstat {key} (bytes)"),
            seen,
            Some(k),
            Some(k),
            slack,
        );
    }
    r.check(
        "RATES holds limit hits and bypass",
        rates.contains("limit hits ") && rates.contains("bypass "),
        &rates,
        "limit hits, bypass",
    );
    Ok(())
}

/// `--watch --count 5`: a header of the columns, five rows each stamped with its date.
fn watch(ctx: &Ctx, zram: bool) -> Result<()> {
    let text = zswaptop(ctx, &["--watch", "-i", "0.5", "--count", "5"])?;
    let lines: Vec<&str> = text.lines().collect();
    for l in &lines {
        println!("  {l}");
    }
    let mut r = rep();
    r.check(
        "--watch --count 5 lines",
        lines.len() == 7,
        &lines.len().to_string(),
        "7 (2 header, 5 rows)",
    );
    let names = lines.first().copied().unwrap_or("");
    let mut columns = vec!["limhit", "bypass", "swap", "ondisk"];
    if zram {
        columns.push("zram");
    }
    for c in columns {
        let has = names.split_whitespace().any(|n| n == c);
        r.check(
            &format!("--watch has the {c} column"),
            has,
            if has { "yes" } else { "no" },
            "yes",
        );
    }
    let today = jiff::Zoned::now().strftime("%Y-%m-%dT").to_string();
    let dated = lines
        .iter()
        .skip(2)
        .filter(|l| {
            let stamp = l.split_whitespace().next().unwrap_or("");
            stamp.starts_with(&today) && stamp.len() == 25
        })
        .count();
    r.check(
        "--watch rows stamped with date, time and offset",
        dated == 5,
        &format!("{dated} of 5"),
        "5 of 5",
    );
    Ok(())
}
