//! One kernel's results, as `guest.sh` brought them back, checked against the kernel's own files.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::checks;
use crate::readings::{Kernel, Snap, Tree};
use crate::rep;
use crate::report::{self, u};

/// The advisor's budget: its predicted ratio within ±5 % of the one the kernel achieved.
const ADVISOR_PERCENT: f64 = 5.0;
/// The one screen: 80 columns, and 22 lines (a 24-line terminal less the prompt and the command).
const COLUMNS: usize = 80;
const LINES: usize = 22;
/// The workload's cgroup, as the guest named it.
const CGROUP: &str = "/wl";

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

/// What the guest found the kernel offers (`facts`: `release`, `param NAME VALUE`, `allocators
/// …`, `compressors …`, `zram …`).
struct Facts {
    release: String,
    params: BTreeMap<String, String>,
    allocators: Vec<String>,
    compressors: Vec<String>,
    zram: Vec<String>,
}

impl Facts {
    fn read(dir: &Path) -> Facts {
        let mut f = Facts {
            release: String::new(),
            params: BTreeMap::new(),
            allocators: Vec::new(),
            compressors: Vec::new(),
            zram: Vec::new(),
        };
        for line in read(&dir.join("facts")).lines() {
            let mut words = line.split_whitespace();
            let list = |w: std::str::SplitWhitespace| w.map(str::to_string).collect();
            match words.next() {
                Some("release") => f.release = words.collect::<Vec<_>>().join(" "),
                Some("param") => {
                    if let Some(name) = words.next() {
                        f.params
                            .insert(name.to_string(), words.collect::<Vec<_>>().join(" "));
                    }
                }
                Some("allocators") => f.allocators = list(words),
                Some("compressors") => f.compressors = list(words),
                Some("zram") => f.zram = list(words).into_iter().filter(|a| a != "none").collect(),
                _ => {}
            }
        }
        f
    }
}

/// The shipped schema of `--once --json`, or why it could not be had.
fn schema() -> Result<jsonschema::Validator, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/zswaptop.schema.json");
    let schema: Value = serde_json::from_str(&read(&path)).map_err(|e| format!("{e}"))?;
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .map_err(|e| format!("{e}"))
}

/// Every check of one kernel's run.
pub fn check(kernel: &str, dir: &Path, seconds: u64) {
    let res = dir.join("results");
    let facts = Facts::read(&res);
    let version = read(&dir.join("kernel")).trim().to_string();
    rep().phase(&format!(
        "kernel {kernel}: Debian's {version} (uname -r {}), the guest took {seconds} s",
        facts.release
    ));
    rep().note(&format!(
        "zswap allocators offered: {}; compressors: {}; zram algorithms: {}; parameters: {}",
        facts.allocators.join(" "),
        facts.compressors.join(" "),
        if facts.zram.is_empty() {
            "(no zram)".to_string()
        } else {
            facts.zram.join(" ")
        },
        facts.params.keys().cloned().collect::<Vec<_>>().join(" ")
    ));
    for line in read(&res.join("errors")).lines() {
        rep().check(&format!("guest: {line}"), false, "failed", "no error");
    }
    rep().check(
        "the workload's pages came back intact",
        read(&res.join("verify")).trim() == "ok",
        read(&res.join("verify")).trim(),
        "ok",
    );
    let validator = match schema() {
        Ok(v) => v,
        Err(e) => {
            rep().check("docs/zswaptop.schema.json compiles", false, &e, "a schema");
            return;
        }
    };
    let snaps: Vec<String> = read(&res.join("snaps.list"))
        .lines()
        .map(str::to_string)
        .collect();
    rep().check(
        "the guest brought back its moments",
        !snaps.is_empty(),
        &snaps.len().to_string(),
        ">= 1",
    );
    for name in &snaps {
        moment(kernel, &res.join("snaps").join(name), name, &validator);
    }
    advisor(kernel, &res, &facts);
    crate::cgroup::check(kernel, &res);
    let screen = read(&res.join("once-combined.txt"));
    if !screen.is_empty() {
        println!();
        println!(
            "{kernel}: `zswaptop --once` in the guest, zswap + zram + disk under load, verbatim:"
        );
        println!("{}", "-".repeat(80));
        print!("{screen}");
        println!("{}", "-".repeat(80));
    }
    crate::zram::check(kernel, &res);
    crate::bpf::check(kernel, &res);
    save_fixtures(kernel, &res);
}

/// With `ZSWAPTOP_KERNELS_SAVE_FIXTURES=DIR`: the guest's fixture trees as
/// `DIR/linux-KERNEL-guest-NAME` (tests/fixtures/ keeps them, so the fast tests read each kernel).
fn save_fixtures(kernel: &str, res: &Path) {
    let Some(dest) = std::env::var_os("ZSWAPTOP_KERNELS_SAVE_FIXTURES") else {
        return;
    };
    let Ok(entries) = fs::read_dir(res.join("fixtures")) else {
        return;
    };
    for e in entries.flatten() {
        let to = Path::new(&dest).join(format!(
            "linux-{kernel}-guest-{}",
            e.file_name().to_string_lossy()
        ));
        let _ = fs::remove_dir_all(&to);
        let ok = std::process::Command::new("cp")
            .arg("-a")
            .arg(e.path())
            .arg(&to)
            .status()
            .is_ok_and(|s| s.success());
        println!(
            "fixture {}: {}",
            to.display(),
            if ok { "saved" } else { "NOT saved" }
        );
    }
}

/// One moment: every figure, the schema, the one screen, the cgroup.
fn moment(kernel: &str, dir: &Path, name: &str, validator: &jsonschema::Validator) {
    rep().phase(&format!("{kernel}/{name}"));
    let rc = read(&dir.join("once.rc")).trim().to_string();
    let err = read(&dir.join("once.err"));
    if !rep().check(
        "zswaptop --once --json --cgroups exited 0",
        rc == "0",
        &format!("{rc} {}", err.trim()),
        "0",
    ) {
        return;
    }
    let json: Value = match serde_json::from_str(&read(&dir.join("once.json"))) {
        Ok(v) => v,
        Err(e) => {
            rep().check("--once --json is JSON", false, &e.to_string(), "JSON");
            return;
        }
    };
    let ps = u(&json, "page_size").unwrap_or(4096);
    let (before, after) = match (
        Kernel::read_at(&Tree::captured(&dir.join("before"), ps)),
        Kernel::read_at(&Tree::captured(&dir.join("after"), ps)),
    ) {
        (Ok(b), Ok(a)) => (b, a),
        (Err(e), _) | (_, Err(e)) => {
            rep().check("the guest's capture reads", false, &format!("{e:#}"), "ok");
            return;
        }
    };
    let errors: Vec<String> = validator
        .iter_errors(&json)
        .take(5)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    rep().check(
        "--once --json valid against docs/zswaptop.schema.json",
        errors.is_empty(),
        &errors.join("; "),
        "valid",
    );
    let snap = Snap {
        before,
        json,
        after,
    };
    checks::every_phase(&snap, ps, name != "noroot");
    cgroup(dir, &snap);
    one_screen(&read(&dir.join("once.txt")));
}

/// `--once` on one screen: at most 80 columns and 22 lines, nothing cut.
fn one_screen(text: &str) {
    let mut r = rep();
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    r.check(
        "--once fits 80 columns",
        widest <= COLUMNS,
        &widest.to_string(),
        "<= 80",
    );
    let lines = text.lines().count();
    r.check(
        "--once fits 22 lines",
        (1..=LINES).contains(&lines),
        &lines.to_string(),
        "1..=22",
    );
    let cut = text.lines().find(|l| l.contains('…'));
    r.check(
        "--once cuts nothing (no …)",
        cut.is_none(),
        cut.unwrap_or("-"),
        "none",
    );
}

/// A `memory.stat` line in bytes.
fn stat(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok())?
    })
}

/// A `memory.*` file holding one number (None: absent, or `max`).
fn number(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// The workload's cgroup (v2, the guest's own memory controller) against its files.
fn cgroup(dir: &Path, snap: &Snap) {
    let cg = |when: &str, file: &str| {
        let p = dir.join(when).join("cg").join(file);
        p.exists().then(|| read(&p))
    };
    let row = report::at(&snap.json, "cgroups.list").and_then(|l| {
        l.as_array()?
            .iter()
            .find(|c| c.get("path").and_then(Value::as_str) == Some(CGROUP))
    });
    let mut r = rep();
    let Some(row) = row else {
        r.check(
            "cgroups.list has the workload's cgroup",
            false,
            "absent",
            CGROUP,
        );
        return;
    };
    let pair = |file: &str, f: &dyn Fn(&str) -> Option<u64>| {
        (
            cg("before", file).as_deref().and_then(f),
            cg("after", file).as_deref().and_then(f),
        )
    };
    for (field, file, key) in [
        ("memory_current_bytes", "memory.current", None),
        ("swap_current_bytes", "memory.swap.current", None),
        ("zswap_bytes", "memory.stat", Some("zswap")),
        ("zswapped_bytes", "memory.stat", Some("zswapped")),
    ] {
        let name = format!("cgroup {CGROUP} {field} vs {file}{}", {
            key.map(|k| format!(" {k}")).unwrap_or_default()
        });
        let (b, a) = pair(file, &|t| match key {
            Some(k) => stat(t, k),
            None => number(t),
        });
        let zt = row.get(field).and_then(Value::as_u64);
        if b.is_none() && a.is_none() {
            r.check(
                &format!("{name} (not in this kernel: null)"),
                zt.is_none(),
                &report::show(row.get(field)),
                "null",
            );
            continue;
        }
        // The workload sleeps between commands; memory.current moves with the page tables and
        // the kernel's own charges by a few pages.
        let slack = if field == "memory_current_bytes" {
            1 << 20
        } else {
            0
        };
        r.bracket(&name, zt, b, a, slack);
    }
    if let Some(max) = cg("before", "memory.zswap.max") {
        let max = max.trim();
        let zt = row.get("zswap_max_bytes").and_then(Value::as_u64);
        let is_max = row.get("zswap_max_is_max").and_then(Value::as_bool);
        let ok = if max == "max" {
            is_max == Some(true)
        } else {
            zt == max.parse().ok()
        };
        r.check(
            &format!("cgroup {CGROUP} zswap_max vs memory.zswap.max"),
            ok,
            &format!("{zt:?} is_max {is_max:?}"),
            max,
        );
    }
}

/// The advisor's prediction for what ran against what the kernel achieved.
fn advisor(kernel: &str, res: &Path, facts: &Facts) {
    rep().phase(&format!(
        "{kernel}/advisor: predicted vs achieved ratio (stored ÷ pool), ±{ADVISOR_PERCENT} %"
    ));
    let mut table = vec![format!(
        "{:<9} {:<9} {:<8} {:>9} {:>9} {:>8}",
        "allocator", "algorithm", "backend", "predicted", "achieved", "error"
    )];
    for a in &facts.allocators {
        let advice = advise(&res.join(format!("advise-zswap-{a}.json")));
        for c in &facts.compressors {
            let dir = res.join("snaps").join(format!("zswap-{a}-{c}"));
            let achieved = zswap_achieved(&dir);
            let predicted = advice
                .as_ref()
                .and_then(|j| report::predicted(j, "zswap", c));
            let why = advice.as_ref().and_then(|j| not_estimated(j, "zswap", c));
            row(&mut table, a, c, "zswap", predicted, achieved, why);
        }
    }
    let advice = advise(&res.join("advise-zram.json"));
    for z in &facts.zram {
        let dir = res.join("snaps").join(format!("zram-{z}"));
        let achieved = zram_achieved(&dir);
        let predicted = advice
            .as_ref()
            .and_then(|j| report::predicted(j, "zram", z));
        let why = advice.as_ref().and_then(|j| not_estimated(j, "zram", z));
        row(&mut table, "zsmalloc", z, "zram", predicted, achieved, why);
    }
    println!();
    println!("{kernel}: the advisor's table");
    for line in &table {
        println!("  {line}");
    }
}

/// The advisor's reason for not estimating a candidate it lists (`estimated: false`): 842,
/// which only a kernel built with CONFIG_CRYPTO_842 offers, has no permissive implementation to
/// run. Such a row is checked for what the advisor says (no ratio, never 0, and the reason),
/// not for a prediction it declines to make.
fn not_estimated(j: &Value, backend: &str, name: &str) -> Option<String> {
    let c = report::at(j, "advise.candidates")?
        .as_array()?
        .iter()
        .find(|c| {
            c.get("backend").and_then(Value::as_str) == Some(backend)
                && c.get("name").and_then(Value::as_str) == Some(name)
        })?;
    if c.get("estimated").and_then(Value::as_bool) != Some(false) {
        return None;
    }
    c.get("reason")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
        .map(str::to_string)
}

fn advise(path: &Path) -> Option<Value> {
    serde_json::from_str(&read(path)).ok()
}

/// ΔZswapped ÷ ΔZswap over the page-out (the files before it, and right before zswaptop ran).
fn zswap_achieved(dir: &Path) -> Option<f64> {
    let pre = Kernel::read_at(&Tree::captured(&dir.join("pre"), 4096)).ok()?;
    let out = Kernel::read_at(&Tree::captured(&dir.join("before"), 4096)).ok()?;
    let stored = out.mem("Zswapped")?.checked_sub(pre.mem("Zswapped")?)?;
    let pool = out.mem("Zswap")?.checked_sub(pre.mem("Zswap")?)?;
    (pool > 0).then(|| stored as f64 / pool as f64)
}

/// zram0's orig_data_size ÷ mem_used_total after the page-out (the device was reset before).
fn zram_achieved(dir: &Path) -> Option<f64> {
    let out = Kernel::read_at(&Tree::captured(&dir.join("before"), 4096)).ok()?;
    let m = out.zram0?;
    (m.mem_used > 0).then(|| m.orig as f64 / m.mem_used as f64)
}

fn row(
    table: &mut Vec<String>,
    allocator: &str,
    algorithm: &str,
    backend: &str,
    predicted: Option<f64>,
    achieved: Option<f64>,
    not_estimated: Option<String>,
) {
    let error = match (predicted, achieved) {
        (Some(p), Some(a)) if a > 0.0 => Some((p / a - 1.0) * 100.0),
        _ => None,
    };
    let show = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
    table.push(format!(
        "{allocator:<9} {algorithm:<9} {backend:<8} {:>9} {:>9} {:>7}%",
        show(predicted),
        show(achieved),
        error.map_or("-".to_string(), |e| format!("{e:+.1}"))
    ));
    if let Some(why) = not_estimated {
        rep().check(
            &format!("advise {backend} {allocator} {algorithm}: not estimated, with its reason"),
            predicted.is_none(),
            &format!("{} ({why})", show(predicted)),
            "no ratio",
        );
        return;
    }
    rep().check(
        &format!("advise {backend} {allocator} {algorithm}: predicted within ±{ADVISOR_PERCENT} % of achieved"),
        error.is_some_and(|e| e.abs() <= ADVISOR_PERCENT),
        &format!("{} vs {}", show(predicted), show(achieved)),
        &format!("±{ADVISOR_PERCENT} %"),
    );
}
