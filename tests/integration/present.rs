//! What people read against the presentation layer (`zswaptop::present`), the people-side twin of
//! `registry.rs`: every fact a section declares reaches every output it claims — the dashboard
//! (TestBackend, 120×40), the one screen (`--once`; or its "+N more" line names the section) and
//! `--once --full` — on pairs of fixture samples, all three drawn from the same snapshot.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use zswaptop::app::{App, Msg};
use zswaptop::model::Snapshot;
use zswaptop::present::{self, Depth, Fact};
use zswaptop::report::summary;
use zswaptop::report::text::{self, Style};
use zswaptop::root::Root;
use zswaptop::sources::{self, Sample};

fn root(tree: &str) -> Root {
    Root::at(format!(
        "{}/tests/fixtures/{tree}",
        env!("CARGO_MANIFEST_DIR")
    ))
}

fn collect(tree: &str) -> Sample {
    sources::collect(&root(tree))
}

/// `tree` read twice with its cgroups (`--cgroups`) and its top processes with their
/// smaps_rollup (`--top 5`), a second apart.
fn with_cgroups(tree: &str) -> (Sample, Sample) {
    let read = || {
        let extras = sources::Extras {
            cgroups: true,
            top_processes: Some(5),
            smaps: true,
            ..Default::default()
        };
        sources::collect_with(&root(tree), extras)
    };
    let (a, mut b) = (read(), read());
    b.monotonic_ns = a.monotonic_ns + 1_000_000_000;
    (a, b)
}

/// `first` then `second` a second later (or as captured, when later): the second has swap-ins
/// from zswap and from a device when `swap_ins`, so the hit ratio has a value.
fn pair(first: &str, second: &str, swap_ins: bool) -> (Sample, Sample) {
    let a = collect(first);
    let mut b = collect(second);
    if b.monotonic_ns <= a.monotonic_ns {
        b.monotonic_ns = a.monotonic_ns + 1_000_000_000;
    }
    if swap_ins && let Ok(v) = b.vmstat.as_mut() {
        (v.zswpin, v.pswpin) = (v.zswpin.map(|n| n + 94), v.pswpin.map(|n| n + 6));
    }
    (a, b)
}

/// The pairs: idle then loaded (as the dashboard's snapshots), with and without swap-ins; the
/// pairs captured as such (`NAME`, `NAME-t1`); zswap off, no swap, zram, no zswap at all; a
/// swap area on a disk; zram writing back, with idle pages and after writeback, and without
/// debugfs (its idle pages unknown).
fn pairs() -> Vec<(String, Sample, Sample)> {
    let mut out = Vec::new();
    for (a, b, ins) in [
        ("linux-6.18-idle", "linux-6.18-loaded", false),
        ("linux-6.18-idle", "linux-6.18-loaded", true),
        (
            "linux-6.18-writeback-flowing",
            "linux-6.18-writeback-flowing-t1",
            true,
        ),
        (
            "linux-6.18-writeback-stalled",
            "linux-6.18-writeback-stalled-t1",
            false,
        ),
        (
            "regress-pool-near-limit",
            "regress-pool-near-limit-t1",
            true,
        ),
        ("regress-zram-room", "regress-zram-room-t1", false),
        ("depth-cgroup-v2", "depth-cgroup-v2-t1", true),
        (
            "linux-6.18-zswap-disabled",
            "linux-6.18-zswap-disabled",
            false,
        ),
        ("linux-6.18-no-swap", "linux-6.18-no-swap", false),
        ("linux-6.18-zram", "linux-6.18-zram", true),
        (
            "linux-5.15-no-zswap-meminfo",
            "linux-5.15-no-zswap-meminfo",
            true,
        ),
        ("tiers-zswap-zram-disk", "tiers-zswap-zram-disk", true),
        ("zram-writeback-idle", "zram-writeback-idle-t1", false),
        ("zram-writeback-done", "zram-writeback-done-t1", false),
        ("depth-zram-writeback", "depth-zram-writeback", false),
    ] {
        let (x, y) = pair(a, b, ins);
        out.push((
            format!("{a} → {b}{}", if ins { " +swap-ins" } else { "" }),
            x,
            y,
        ));
    }
    // The guest's cgroup v2 tree just after its OOM kill in /zt-oom, the kill in the window (the
    // first read one kill less); the same without it; a v1 tree (no pressure, no limit but
    // memory.max).
    let (mut x, y) = with_cgroups("linux-6.12-guest-cgroup");
    if let Some(Ok(list)) = x.cgroups.as_mut() {
        for c in list.iter_mut().filter(|c| c.path == "/zt-oom") {
            let e = c.events.as_mut().unwrap();
            e.oom_kill = e.oom_kill.map(|n| n - 1);
        }
    }
    out.push(("6.12 guest: an OOM kill in the window".to_string(), x, y));
    for tree in [
        "linux-6.12-guest-cgroup",
        "linux-6.18-cgroup-v1",
        "depth-cgroup-v2",
    ] {
        let (x, y) = with_cgroups(tree);
        out.push((format!("{tree} with its cgroups"), x, y));
    }
    // The loaded tree's swapfile on a disk whose reads completed: the disk's read time.
    let (x, y) = pair("linux-6.18-idle", "linux-6.18-loaded", true);
    let disk = |s: Sample, k: u64| {
        let mut s = crate::tui::with_disk(s, k);
        // 120 reads in 384 ms over the interval: 3.2 ms a read.
        let times = zswaptop::sources::blockstat::IoTimes {
            reads: 1_000 + 120 * k,
            read_ms: 4_000 + 384 * k,
            writes: 5_000 + 2_400 * k,
            write_ms: 9_000 + 6_000 * k,
        };
        s.block_times.insert("vda2".into(), times);
        s
    };
    out.push((
        "idle → loaded on a disk".to_string(),
        disk(x, 0),
        disk(y, 1),
    ));
    out
}

/// The app after both samples; its snapshot is what all three outputs are drawn from.
fn app(first: Sample, second: Sample) -> App {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let mut app = App::new(settings, first);
    app.update(Msg::Sampled(Box::new(second)));
    app
}

/// Words with the spaces between them made one, lines joined: a fact wrapped onto two lines, or
/// set in columns, still reads as one phrase.
fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn dashboard(app: &App) -> String {
    let mut term = Terminal::new(TestBackend::new(120, 40)).unwrap();
    term.draw(|f| zswaptop::ui::draw(f, app)).unwrap();
    let text = term.backend().to_string();
    flat(
        &text
            .lines()
            .map(|l| l.trim_matches('"'))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn one_screen(s: &Snapshot) -> String {
    flat(&summary::lines(s, Style { color: false }).join("\n"))
}

fn full(s: &Snapshot) -> String {
    let mut out = Vec::new();
    text::write(s, &mut out, Style { color: false }).unwrap();
    flat(&String::from_utf8(out).unwrap())
}

/// Whether `out` says `fact`: one of its phrases whole, or its label and its value.
fn says(out: &str, fact: &Fact) -> bool {
    let phrases = [
        &fact.long,
        &fact.short,
        &fact.tight,
        &format!("{} {}", fact.label, fact.value),
        &format!("{} {}", fact.label, fact.value_short),
    ];
    phrases.iter().any(|p| out.contains(&flat(p)))
        || (out.contains(fact.label) && out.contains(&flat(&fact.value)))
}

#[test]
fn every_fact_reaches_every_human_output() {
    let mut checked = std::collections::BTreeSet::new();
    let mut missed = Vec::new();
    for (name, a, b) in pairs() {
        let app = app(a, b);
        let s = &app.shown;
        let outputs = [
            (Depth::Dashboard, dashboard(&app)),
            (Depth::OneScreen, one_screen(s)),
            (Depth::Full, full(s)),
        ];
        for (section, facts) in present::sections(s) {
            for fact in &facts {
                checked.insert(fact.key);
                for (depth, out) in &outputs {
                    if !fact.at(*depth) || says(out, fact) {
                        continue;
                    }
                    // The one screen may fold a section's items into a "+N more … (--full)" line.
                    let folded = *depth == Depth::OneScreen
                        && out.contains("more")
                        && out.contains(&format!("{section} (--full)"));
                    if !folded {
                        missed.push(format!(
                            "{name}: {} ({:?}) not in {depth:?}",
                            fact.key, fact.long
                        ));
                    }
                }
            }
        }
    }
    assert!(missed.is_empty(), "{missed:#?}");
    // Every kind of fact was met on some pair.
    for key in [
        "header.tool",
        "header.host",
        "header.kernel",
        "header.uptime",
        "header.who",
        "header.tree",
        "header.page_size",
        "header.pressure",
        "findings.counts",
        "findings.finding",
        "memory.total",
        "memory.used",
        "memory.available",
        "apps",
        "zswap_pool",
        "zram_pool",
        "unaccounted",
        "swap.used",
        "swap.in_zswap",
        "swap.in_swap_cache",
        "swap.in_zram",
        "swap.not_in_ram",
        "zswap.state",
        "zswap.pool",
        "zswap.stored",
        "zswap.ratio",
        "zswap.written_back",
        "zswap.written_back_share",
        "outlook.pool",
        "outlook.swap",
        "outlook.hit",
        "outlook.disk_read",
        "zram.backing_dev",
        "zram.bd_reads",
        "zram.bd_writes",
        "zram.writeback_limit",
        "zram.idle",
        "zram.recomp_algorithm",
        "zram.recompressed",
        "cgroups.nearest_limit",
        "cgroups.oom_kills",
        "cgroups.pressure",
        "processes.footprint",
        "processes.compressed",
        "processes.shmem_swap",
    ] {
        assert!(checked.contains(key), "{key} on no pair: {checked:?}");
    }
}

/// Said only where it is true: a zswap that is off and empty, or a machine without swap, has no
/// pool that is "not filling".
#[test]
fn no_pool_forecast_where_the_pool_cannot_fill() {
    for tree in ["linux-6.18-zswap-disabled", "linux-6.18-no-swap"] {
        let (a, b) = pair(tree, tree, false);
        let app = app(a, b);
        let s = &app.shown;
        let facts = present::outlook::facts(s);
        let z = &s.zswap;
        let swap = s.swap.total_bytes.unwrap_or(0) > 0;
        if z.enabled == Some(false) && z.pool_bytes.unwrap_or(0) == 0 || !swap {
            assert!(
                present::find(&facts, "outlook.pool").is_none(),
                "{tree}: {facts:?}"
            );
            assert!(!dashboard(&app).contains("pool not filling"), "{tree}");
            assert!(!one_screen(s).contains("pool not filling"), "{tree}");
        }
    }
}
