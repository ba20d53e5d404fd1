//! The overview's swap-in latency section, drawn into ratatui's TestBackend from crafted BPF
//! readings on the fixture samples (the host refuses the programs, so the readings are
//! written as the loader gives them): zswap and disk busy, an unknown tier and an unknown
//! store tier whose reasons carry terminal escapes, the programs refused with the host's
//! reason, and a narrow terminal.

use ratatui::Terminal;
use ratatui::backend::TestBackend;

use zswaptop::app::{App, Msg};
use zswaptop::root::Root;
use zswaptop::sources::bpf::{BUCKETS, SwapinSample, TierCounts, TierReading};
use zswaptop::sources::{self, Sample};

const T0: u64 = 1_000 * 1_000_000_000;

/// What this host's kernel answers (`zswaptop --once -i 1 --json` as root, Nov 2026).
const HOST_REFUSAL: &str = "the kernel refuses the programs (no probe for the fault's start: fentry do_swap_page: BPF_PROG_LOAD: Operation not permitted (os error 1)), and the kernel has no kprobes (no /sys/bus/event_source/devices/kprobe: built without CONFIG_KPROBES); a kernel that allows fentry programs (BTF and CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, as Debian's and Fedora's do) would allow it";

/// A tier's counters since the load: `spread` is (bucket, swap-ins) pairs.
fn counts(spread: &[(usize, u64)], max_ns: u64) -> Option<TierCounts> {
    let mut buckets = vec![0; BUCKETS];
    for &(b, n) in spread {
        buckets[b] = n;
    }
    let count = buckets.iter().sum();
    Some(TierCounts {
        buckets,
        count,
        sum_ns: 0,
        max_ns,
    })
}

fn reading(tier: &str, counts: Option<TierCounts>, reason: Option<&str>) -> TierReading {
    TierReading {
        tier: tier.into(),
        counts,
        reason: reason.map(str::to_string),
    }
}

/// A fixture tree's sample at `t_ns` with these BPF readings (loaded at 1 ns, before both).
fn sample(fixture: &str, t_ns: u64, swapin: SwapinSample) -> Sample {
    let mut s = sources::collect(&Root::at(format!("tests/fixtures/{fixture}")));
    s.monotonic_ns = t_ns;
    s.swapin = swapin;
    s
}

/// A tier's reason as long as the loader's: wrapped, never cut.
const ZERO_UNKNOWN: &str = "no probe for zero-filled pages: swap_read_folio_zeromap is not in /proc/kallsyms (before 6.12 the kernel keeps no zero-filled pages apart)";

fn loaded(tiers: Vec<TierReading>, stores: Vec<TierReading>) -> SwapinSample {
    SwapinSample {
        reason: None,
        loaded_ns: 1,
        probes: "fentry".into(),
        tiers,
        stores,
    }
}

/// The dashboard after the two samples, one second apart, through the app's own pipeline.
fn app(before: SwapinSample, after: SwapinSample) -> App {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let mut app = App::new(settings, sample("linux-6.18-idle", T0, before));
    app.update(Msg::Sampled(Box::new(sample(
        "linux-6.18-loaded",
        T0 + 1_000_000_000,
        after,
    ))));
    app.shown.host.privileged = false;
    app
}

/// zswap hits around 20-64 µs and a few slow ones; disk reads around 4-6 ms; zram idle; the
/// swap cache busy; zero-filled pages unknown, with `unknown_why` as the loader says it.
fn busy(unknown_why: &str) -> App {
    busy_with(unknown_why, None)
}

/// As `busy`, with zram's store tier unknown for `store_why` when it is given.
fn busy_with(unknown_why: &str, store_why: Option<&str>) -> App {
    let zram_store = || match store_why {
        Some(why) => reading("zram", None, Some(why)),
        None => reading("zram", counts(&[], 0), None),
    };
    let before = loaded(
        vec![
            reading("zswap", counts(&[(18, 100)], 90_000), None),
            reading("zram", counts(&[(20, 7)], 40_000), None),
            reading("disk", counts(&[(48, 3)], 5_000_000), None),
            reading("swapcache", counts(&[], 0), None),
            reading("zero", None, Some(unknown_why)),
        ],
        vec![
            reading("zswap", counts(&[(13, 1000)], 15_000), None),
            zram_store(),
            reading("disk", counts(&[(44, 10)], 3_000_000), None),
        ],
    );
    let after = loaded(
        vec![
            // 1100 more: buckets 17..=22 are 20 µs .. 64 µs; a tail at 1 ms.
            reading(
                "zswap",
                counts(
                    &[
                        (17, 100),
                        (18, 400),
                        (19, 350),
                        (20, 200),
                        (21, 80),
                        (22, 40),
                        (40, 30),
                    ],
                    1_100_000,
                ),
                None,
            ),
            reading("zram", counts(&[(20, 7)], 40_000), None),
            // 50 more disk reads, 4.2 .. 6.3 ms.
            reading("disk", counts(&[(48, 33), (49, 20)], 6_000_000), None),
            reading("swapcache", counts(&[(4, 300), (5, 20)], 3_000), None),
            reading("zero", None, Some(unknown_why)),
        ],
        // 2000 more pages stored by zswap (10-15 µs) and 40 more disk writes (2.6-4.2 ms).
        vec![
            reading("zswap", counts(&[(13, 2500), (14, 500)], 15_000), None),
            zram_store(),
            reading("disk", counts(&[(44, 30), (46, 20)], 3_900_000), None),
        ],
    );
    app(before, after)
}

fn screen(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| zswaptop::ui::draw(f, app)).unwrap();
    term
}

fn snap(name: &str, term: &Terminal<TestBackend>) {
    let mut s = insta::Settings::clone_current();
    s.add_filter(
        &format!("zswaptop {}", env!("CARGO_PKG_VERSION")),
        "zswaptop [version]",
    );
    s.set_snapshot_path("snapshots");
    s.bind(|| insta::assert_snapshot!(name, term.backend()));
}

/// The rows of the section: from its title to the next section's rule.
fn section(term: &Terminal<TestBackend>) -> Vec<String> {
    let text = term.backend().to_string();
    text.lines()
        .skip_while(|l| !l.contains("Swap-in latency"))
        .take_while(|l| !l.contains("\"─ ") || l.contains("Swap-in latency"))
        .map(str::to_string)
        .collect()
}

#[test]
fn latency_running_100x45() {
    let app = busy(ZERO_UNKNOWN);
    let term = screen(&app, 100, 45);
    let rows = section(&term);
    assert!(rows.len() >= 7, "{rows:#?}");
    let row = |tier: &str| {
        rows.iter()
            .find(|r| r.trim_start_matches('"').starts_with(tier))
            .cloned()
            .unwrap_or_default()
    };
    assert!(row("zswap").contains("1100/s"), "{rows:#?}");
    assert!(row("disk").contains("50/s"), "{rows:#?}");
    assert!(row("zram").contains("none"), "{rows:#?}");
    assert!(row("zero").contains("unknown: no probe"), "{rows:#?}");
    let text = rows.join(" ");
    assert!(text.contains("keeps no zero-filled"), "{rows:#?}");
    // The store side under its own heading: zswap's 2000 stores, the disk's 40 writes.
    let at = rows
        .iter()
        .position(|r| r.trim_start_matches('"').starts_with("stored to"))
        .unwrap_or_else(|| panic!("no store heading: {rows:#?}"));
    let stored = &rows[at..];
    let store = |tier: &str| {
        stored
            .iter()
            .find(|r| r.trim_start_matches('"').starts_with(tier))
            .cloned()
            .unwrap_or_default()
    };
    assert!(store("zswap").contains("2000/s"), "{rows:#?}");
    assert!(store("disk").contains("40/s"), "{rows:#?}");
    assert!(store("zram").contains("none"), "{rows:#?}");
    snap("latency_running_100x45", &term);
}

/// A kernel's string with escapes: the section shows it made safe, never the escapes.
#[test]
fn latency_unknown_tier_reason_is_made_safe() {
    let app = busy("kprobe refused \x1b]0;owned\x07\x1b[2J by the kernel");
    let term = screen(&app, 100, 40);
    let rows = section(&term).join("\n");
    assert!(rows.contains("unknown: kprobe refused"), "{rows}");
    assert!(!rows.contains('\x1b') && !rows.contains('\x07'), "{rows}");
    // ...made visible, not dropped: the reader sees that the kernel's string held them.
    assert!(rows.contains(r"\x1b]0;owned\x07"), "{rows}");
    snap("latency_unknown_100x40", &term);
}

/// The same for a store tier's reason (its own path: `Snapshot`'s store side, its own rows).
#[test]
fn latency_unknown_store_reason_is_made_safe() {
    let app = busy_with(
        ZERO_UNKNOWN,
        Some("zram write refused \x1b]52;c;b3duZWQ=\x07\x1b[1;1H\u{9b}31m by the kernel"),
    );
    let term = screen(&app, 100, 45);
    let rows = section(&term);
    let at = rows
        .iter()
        .position(|r| r.trim_start_matches('"').starts_with("stored to"))
        .unwrap_or_else(|| panic!("no store heading: {rows:#?}"));
    let stored = rows[at..].join("\n");
    assert!(stored.contains("unknown: zram write refused"), "{stored}");
    let text = term.backend().to_string();
    assert!(
        !text.contains('\x1b') && !text.contains('\x07') && !text.contains('\u{9b}'),
        "{text}"
    );
    assert!(stored.contains(r"\x1b]52;c;"), "{stored}");
}

#[test]
fn latency_unavailable_says_why_and_what_would_allow_it() {
    let refused = || SwapinSample {
        reason: Some(HOST_REFUSAL.into()),
        loaded_ns: 0,
        probes: String::new(),
        tiers: Vec::new(),
        stores: Vec::new(),
    };
    let app = app(refused(), refused());
    let term = screen(&app, 100, 40);
    let rows = section(&term).join(" ");
    assert!(rows.contains("! unavailable: the kernel refuses"), "{rows}");
    assert!(rows.contains("would allow it"), "{rows}");
    snap("latency_unavailable_100x40", &term);
}

/// Narrow terminals: at 60 columns p90 gives way to keep the histogram; at 50 (the narrowest
/// the overview draws) max goes too, and p50, p99, the rate and a 12-cell histogram remain.
#[test]
fn latency_narrow() {
    let app = busy(ZERO_UNKNOWN);
    let term = screen(&app, 60, 60);
    let head = section(&term).get(1).cloned().unwrap_or_default();
    assert!(
        head.contains("p50") && head.contains("max") && !head.contains("p90"),
        "{head}"
    );
    snap("latency_narrow_60x60", &term);
    let term = screen(&app, 50, 60);
    let rows = section(&term);
    let head = rows.get(1).cloned().unwrap_or_default();
    assert!(head.contains("p99") && head.contains("swap-ins"), "{head}");
    assert!(!head.contains("max"), "{head}");
    assert_eq!(rows.len(), 15, "{rows:#?}");
    snap("latency_narrow_50x60", &term);
}

/// `--ascii`: the histogram's heights in ASCII marks, not all `#`, and times in `us`.
#[test]
fn latency_ascii_keeps_the_heights() {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop", "--ascii"], true).unwrap();
    let mut app = busy(ZERO_UNKNOWN);
    app.settings = settings;
    let term = screen(&app, 100, 40);
    let rows = section(&term);
    let zswap = rows
        .iter()
        .find(|r| r.contains("zswap "))
        .cloned()
        .unwrap_or_default();
    // ▃▇█▅▂▁ in ASCII.
    assert!(zswap.contains("-#@+:."), "{rows:#?}");
    assert!(zswap.contains("30us"), "{rows:#?}");
}

/// At 80×24 the section has no room: the zswap panel says each busy tier's p50 and p99.
#[test]
fn latency_80x24_in_short() {
    let app = busy(ZERO_UNKNOWN);
    let term = screen(&app, 80, 24);
    let text = term.backend().to_string();
    assert!(!text.contains("Swap-in latency"), "{text}");
    assert!(
        text.contains(
            "swap-in wait p50/p99: zswap 30µs/1.1ms, disk 5.1ms/6.0ms, swapcache 2µs/3µs"
        ),
        "{text}"
    );
    snap("latency_80x24", &term);
}

/// Where the long form does not fit, the p99s alone.
#[test]
fn latency_in_short_at_the_narrowest() {
    let text = screen(&busy(ZERO_UNKNOWN), 60, 24).backend().to_string();
    assert!(
        text.contains("wait p99: zswap 1.1ms, disk 6.0ms, swapcache 3µs"),
        "{text}"
    );
}

/// Loaded, the first interval not measured yet: the section says so, without a warning.
#[test]
fn latency_first_interval_says_it_comes_with_the_next_sample() {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let first = loaded(
        vec![reading("zswap", counts(&[(18, 1)], 30_000), None)],
        Vec::new(),
    );
    let app = App::new(settings, sample("linux-6.18-idle", T0, first));
    let rows = section(&screen(&app, 100, 60)).join("\n");
    assert!(
        rows.contains("one sample: the latency is measured over an interval"),
        "{rows}"
    );
    assert!(!rows.contains('!'), "{rows}");
}
