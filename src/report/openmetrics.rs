//! The exposition a Prometheus scrapes: every figure of the registry declared for it
//! ([`metrics::reaching`]`(Output::Exposition)`), in registry order, in the OpenMetrics text
//! format 1.0.0 or the classic Prometheus text format 0.0.4 (what node_exporter's textfile
//! collector and older scrapers read).
//!
//! The names are made here, from a figure's id, unit and kind ([`name`]): `zswaptop_`, the
//! id without the unit words it may end with, the base unit (pages are exported as bytes,
//! percentages as ratios, PSI's microseconds as seconds: [`factor`]), and, on each sample of a
//! counter or an info, `_total` or `_info` ([`suffix`], the one place either is added). A
//! histogram's family is written as its `_bucket` (cumulative, with `le` in the base unit, the
//! last `+Inf`), `_sum` and `_count` series ([`sample_names`]).
//!
//! `_ratio` is Prometheus' word for a share from 0 to 1 (its naming guide: "Percent: ratio,
//! values are 0–1"); a quotient that exceeds 1 (a compression ratio: 2.4 bytes stored per pool
//! byte) has no base unit and is named `_factor` (`zswaptop_zswap_compression_factor`).
//!
//! A value the kernel did not give is left out, never written as 0; a family with no value
//! at all is left out whole (no `# HELP` for a metric that has no sample).

use std::borrow::Cow;
use std::io::{self, Write};

use crate::model::Snapshot;
use crate::model::metrics::{self, Histogram, Kind, Metric, Output, Point, Read, Unit};

/// Which text format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// OpenMetrics 1.0.0: `# UNIT`, counters' families named without `_total`, `# EOF`.
    OpenMetrics,
    /// The Prometheus text format 0.0.4.
    Prometheus,
}

impl Flavor {
    /// The Content-Type of a response in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Flavor::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
            Flavor::Prometheus => "text/plain; version=0.0.4; charset=utf-8",
        }
    }

    /// The format a scraper's `Accept` header asks for: OpenMetrics when it lists
    /// `application/openmetrics-text` with a weight above 0 and no higher weight on
    /// `text/plain`; the classic format otherwise (also without the header).
    pub fn negotiate(accept: Option<&str>) -> Flavor {
        let Some(accept) = accept else {
            return Flavor::Prometheus;
        };
        let weight = |wanted: &str| {
            accept
                .split(',')
                .filter_map(|range| {
                    let mut parts = range.split(';').map(str::trim);
                    let kind = parts.next()?;
                    if !kind.eq_ignore_ascii_case(wanted) {
                        return None;
                    }
                    let q = parts
                        .filter_map(|p| p.strip_prefix("q=").or_else(|| p.strip_prefix("Q=")))
                        .find_map(|q| q.parse::<f64>().ok())
                        .unwrap_or(1.0);
                    Some(q)
                })
                .fold(None, |best: Option<f64>, q| {
                    Some(best.map_or(q, |b| b.max(q)))
                })
        };
        match (weight("application/openmetrics-text"), weight("text/plain")) {
            (Some(om), text) if om > 0.0 && text.is_none_or(|t| om >= t) => Flavor::OpenMetrics,
            _ => Flavor::Prometheus,
        }
    }
}

/// One family as written: its name without a counter's `_total` or an info's `_info`.
struct Exposed {
    name: String,
    kind: Kind,
    unit: Option<&'static str>,
    help: &'static str,
    points: Vec<Point>,
    /// A histogram's series (its `points` are none).
    histograms: Vec<Histogram>,
}

/// The stem of a figure's name: its id, a zswap debugfs file's under `zswap_debugfs_`, a
/// quotient's (`Unit::Ratio`, above 1) with `_factor` for `_ratio`. Renaming one series is one arm
/// here (`_ if m.id == "nr_zspages" => "zsmalloc_pages".into(),`).
fn stem(m: &Metric) -> Cow<'static, str> {
    match m.read {
        Read::Debugfs(file) => format!("zswap_debugfs_{file}").into(),
        _ if m.unit == Unit::Ratio => format!("{}_factor", m.id.trim_end_matches("_ratio")).into(),
        _ => m.id.into(),
    }
}

/// A family's name without a counter's `_total` or an info's `_info`: `zswaptop_`, the
/// stem (its id; see `stem`) without the unit words it may end with, then the base unit
/// (`zswaptop_zswpout_bytes`, `zswaptop_psi_some_ratio`, `zswaptop_zswap_debugfs_stored_bytes`).
pub fn name(m: &Metric) -> String {
    let stem = stem(m);
    let stem = stem
        .trim_end_matches("_per_sec")
        .trim_end_matches("_bytes")
        .trim_end_matches("_pages")
        .trim_end_matches("_percent")
        .trim_end_matches("_ratio")
        .trim_end_matches("_seconds")
        .trim_end_matches("_ms");
    match unit(m.unit) {
        Some(u) => format!("zswaptop_{stem}_{u}"),
        None => format!("zswaptop_{stem}"),
    }
}

/// The base unit a figure is exported in (its `# UNIT` and its name's last word), `None` when
/// it has none (a quotient above 1 included: `ratio` is 0 to 1).
pub fn unit(u: Unit) -> Option<&'static str> {
    match u {
        Unit::Bytes | Unit::Pages => Some("bytes"),
        Unit::BytesPerSec => Some("bytes_per_second"),
        Unit::Share | Unit::Percent => Some("ratio"),
        Unit::Seconds | Unit::Milliseconds | Unit::Microseconds => Some("seconds"),
        Unit::Ratio | Unit::Events | Unit::Number => None,
    }
}

/// What one of `u` is in its base unit (`page_size` for pages).
pub fn factor(u: Unit, page_size: u64) -> f64 {
    match u {
        Unit::Pages => page_size as f64,
        Unit::Percent => 0.01,
        Unit::Milliseconds => 1e-3,
        Unit::Microseconds => 1e-6,
        Unit::Bytes
        | Unit::BytesPerSec
        | Unit::Ratio
        | Unit::Share
        | Unit::Seconds
        | Unit::Events
        | Unit::Number => 1.0,
    }
}

/// What a sample's name adds to its family's: `_total` on a counter, `_info` on an info.
pub fn suffix(k: Kind) -> &'static str {
    match k {
        Kind::Counter => "_total",
        Kind::Info => "_info",
        Kind::Gauge | Kind::State | Kind::Histogram => "",
    }
}

/// The names of a figure's samples: its family's name with [`suffix`]; a histogram's
/// `_bucket`, `_sum` and `_count`.
pub fn sample_names(m: &Metric) -> Vec<String> {
    let n = name(m);
    match m.kind {
        Kind::Histogram => ["_bucket", "_sum", "_count"]
            .map(|s| format!("{n}{s}"))
            .to_vec(),
        k => vec![format!("{n}{}", suffix(k))],
    }
}

/// A figure's family over `s`, in base units; `None` when it has no value at all.
fn exposed(m: &Metric, s: &Snapshot) -> Option<Exposed> {
    let factor = factor(m.unit, s.page_size.bytes);
    let points: Vec<Point> = m
        .points(s)
        .into_iter()
        .map(|p| Point {
            value: p.value * factor,
            ..p
        })
        .filter(|p| p.value.is_finite())
        .collect();
    let histograms: Vec<Histogram> = m
        .histograms(s)
        .into_iter()
        .map(|h| Histogram {
            buckets: h.buckets.iter().map(|&(le, n)| (le * factor, n)).collect(),
            sum: h.sum * factor,
            ..h
        })
        .filter(|h| h.sum.is_finite())
        .collect();
    (!points.is_empty() || !histograms.is_empty()).then(|| Exposed {
        name: name(m),
        kind: m.kind,
        unit: unit(m.unit),
        help: m.help,
        points,
        histograms,
    })
}

/// Write the exposition of `s` in `flavor`.
pub fn write(s: &Snapshot, flavor: Flavor, out: &mut dyn Write) -> io::Result<()> {
    let mut text = String::with_capacity(16 * 1024);
    render(s, flavor, &mut text);
    out.write_all(text.as_bytes())
}

/// The exposition of `s` as text.
pub fn render(s: &Snapshot, flavor: Flavor, text: &mut String) {
    render_figures(metrics::reaching(Output::Exposition), s, flavor, text);
}

/// The exposition of `figures` (in their order) over `s` as text.
pub fn render_figures<'a>(
    figures: impl Iterator<Item = &'a Metric>,
    s: &Snapshot,
    flavor: Flavor,
    text: &mut String,
) {
    for f in figures.filter_map(|m| exposed(m, s)) {
        family(&f, flavor, text);
    }
    if flavor == Flavor::OpenMetrics {
        text.push_str("# EOF\n");
    }
}

fn family(f: &Exposed, flavor: Flavor, text: &mut String) {
    use std::fmt::Write as _;
    let om = flavor == Flavor::OpenMetrics;
    // The sample name's suffix, and the family name the metadata lines use.
    let suffix = suffix(f.kind);
    let type_word = match (f.kind, om) {
        (Kind::Counter, _) => "counter",
        (Kind::Info, true) => "info",
        (Kind::Info, false) | (Kind::State | Kind::Gauge, _) => "gauge",
        (Kind::Histogram, _) => "histogram",
    };
    let meta_name = if om {
        f.name.clone()
    } else {
        format!("{}{suffix}", f.name)
    };
    let _ = writeln!(text, "# HELP {meta_name} {}", escape_help(f.help, om));
    let _ = writeln!(text, "# TYPE {meta_name} {type_word}");
    if om && let Some(u) = f.unit {
        let _ = writeln!(text, "# UNIT {meta_name} {u}");
    }
    for p in &f.points {
        sample(text, &f.name, suffix, &p.labels, None, number(p.value));
    }
    // Each series whole: its buckets rising to `+Inf`, then its sum and count.
    for h in &f.histograms {
        for &(le, n) in &h.buckets {
            let le = if le == f64::INFINITY {
                "+Inf".to_string()
            } else {
                number(le)
            };
            sample(
                text,
                &f.name,
                "_bucket",
                &h.labels,
                Some(&le),
                n.to_string(),
            );
        }
        sample(text, &f.name, "_sum", &h.labels, None, number(h.sum));
        sample(
            text,
            &f.name,
            "_count",
            &h.labels,
            None,
            h.count().to_string(),
        );
    }
}

/// One sample line: `name` + `suffix`, the labels (and a histogram bucket's `le`), the value.
fn sample(
    text: &mut String,
    name: &str,
    suffix: &str,
    labels: &[(String, String)],
    le: Option<&str>,
    value: String,
) {
    use std::fmt::Write as _;
    text.push_str(name);
    text.push_str(suffix);
    // A label the format cannot name (a later kernel's zswap parameter) is left out.
    let mut labels = labels
        .iter()
        .filter(|(k, _)| label_name_ok(k))
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .chain(le.map(|le| ("le", le)))
        .peekable();
    if labels.peek().is_some() {
        text.push('{');
        for (i, (k, v)) in labels.enumerate() {
            if i > 0 {
                text.push(',');
            }
            let _ = write!(text, "{k}=\"{}\"", escape_label(v));
        }
        text.push('}');
    }
    text.push(' ');
    text.push_str(&value);
    text.push('\n');
}

/// A label name Prometheus accepts (`[a-zA-Z_][a-zA-Z0-9_]*`, not the reserved `__` prefix).
pub fn label_name_ok(name: &str) -> bool {
    let mut b = name.bytes();
    b.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
        && !name.starts_with("__")
}

/// A sample value: integers without a fraction, others rounded to 15 significant digits (all a
/// double holds for certain) and then printed shortest round-trip, so the noise of the
/// arithmetic that made them is not printed (`5.03 / 100` is `0.0503`, not
/// `0.050300000000000004`).
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{}", v as i64);
    }
    let rounded: f64 = format!("{v:.14e}").parse().unwrap_or(v);
    format!("{rounded}")
}

fn escape_label(v: &str) -> String {
    let mut o = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o
}

/// Help text: backslash and newline escaped; a double quote too in OpenMetrics.
fn escape_help(v: &str, om: bool) -> String {
    let mut o = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '"' if om => o.push_str("\\\""),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiation() {
        use Flavor::*;
        assert_eq!(Flavor::negotiate(None), Prometheus);
        assert_eq!(Flavor::negotiate(Some("*/*")), Prometheus);
        assert_eq!(
            Flavor::negotiate(Some("text/plain;version=0.0.4")),
            Prometheus
        );
        // Prometheus 2.x's scrape header.
        assert_eq!(
            Flavor::negotiate(Some(
                "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
            )),
            OpenMetrics
        );
        assert_eq!(
            Flavor::negotiate(Some("application/openmetrics-text; q=0")),
            Prometheus
        );
        assert_eq!(
            Flavor::negotiate(Some("application/openmetrics-text;q=0.2,text/plain;q=0.9")),
            Prometheus
        );
    }

    fn fixture(name: &str) -> Snapshot {
        let root = crate::root::Root::at(format!("tests/fixtures/{name}"));
        Snapshot::derive(&crate::sources::collect(&root), None)
    }

    #[test]
    fn a_debugfs_file_the_registry_lacks_is_still_exported() {
        let mut s = fixture("linux-6.1-debugfs");
        let text = |s: &Snapshot| {
            let mut t = String::new();
            render(s, Flavor::Prometheus, &mut t);
            t
        };
        assert!(text(&s).contains("zswaptop_zswap_debugfs_pool_limit_hit_total "));
        assert!(!text(&s).contains("unlisted"));
        if let Some(d) = s.zswap.debugfs.as_mut() {
            d.insert("a_later_kernels_counter", 7);
        }
        assert!(
            text(&s)
                .contains("zswaptop_zswap_debugfs_unlisted{file=\"a_later_kernels_counter\"} 7\n"),
            "{}",
            text(&s)
        );
    }

    /// HELP texts are the registry's own words, never a string from the kernel: none may hold
    /// a character a terminal or a scraper would take for markup.
    #[test]
    fn help_texts_hold_no_unsafe_character() {
        for help in metrics::REGISTRY.iter().map(|m| m.help) {
            assert!(!help.chars().any(crate::sanitize::is_unsafe), "{help:?}");
        }
    }

    /// A label value from the tree reaches the exposition only made safe: the judged snapshot of
    /// hostile-names (a swap path and a cgroup holding a bidi override, zero-width characters,
    /// a paragraph separator and ESC) has none of those raw in either format, and each escape's
    /// backslash is doubled as the format asks.
    #[test]
    fn label_values_are_made_safe() {
        let root = crate::root::Root::at("tests/fixtures/hostile-names");
        let extras = crate::sources::Extras {
            cgroups: true,
            ..crate::sources::Extras::default()
        };
        let snap = crate::pipeline::snapshot(&crate::sources::collect_with(&root, extras), None);
        for flavor in [Flavor::OpenMetrics, Flavor::Prometheus] {
            let mut text = String::new();
            render(&snap, flavor, &mut text);
            let raw = text
                .chars()
                .find(|&c| c != '\n' && crate::sanitize::is_unsafe(c));
            assert_eq!(raw, None, "{flavor:?}");
            assert!(
                text.contains(r#"{area="/swap\\u{202e}gnp.exe\\u{200b}\\u{feff}x\\u{2069}"}"#),
                "{text}"
            );
            assert!(
                text.contains(r#"{area="/var/sw\\x0aap\\x1b]0;sw\\x07"}"#),
                "{text}"
            );
        }
    }

    /// OpenMetrics metric names: `[a-zA-Z_:][a-zA-Z0-9_:]*`, and (our rule) no `:`.
    fn valid(name: &str) -> bool {
        let mut b = name.bytes();
        b.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
            && b.all(|c| c.is_ascii_alphanumeric() || c == b'_')
    }

    /// Every family's name is valid, unique (with its sample suffix too), says its unit, and
    /// has no suffix a sample adds.
    #[test]
    fn every_family_has_a_valid_unique_name_with_its_unit() {
        let mut seen = std::collections::HashSet::new();
        for m in metrics::reaching(Output::Exposition) {
            let n = name(m);
            assert!(valid(&n), "{n}");
            assert!(n.starts_with("zswaptop_"), "{n}");
            assert!(!n.contains("__"), "{n}");
            assert!(!n.ends_with("_total") && !n.ends_with("_info"), "{n}");
            match unit(m.unit) {
                Some(u) => assert!(n.ends_with(&format!("_{u}")), "{n} lacks its unit {u}"),
                None => assert!(
                    !["_bytes", "_seconds", "_ratio"]
                        .iter()
                        .any(|u| n.ends_with(u)),
                    "{n} has a unit word but no unit"
                ),
            }
            assert!(seen.insert(n.clone()), "{n} twice");
            assert!(seen.insert(format!("{n}{}", suffix(m.kind))) || suffix(m.kind).is_empty());
        }
        let named = |id: &str| metrics::get(id).map(name);
        assert_eq!(named("zswpout").as_deref(), Some("zswaptop_zswpout_bytes"));
        assert_eq!(
            named("zswap_pool_bytes").as_deref(),
            Some("zswaptop_zswap_pool_bytes")
        );
        assert_eq!(named("swap_ra").as_deref(), Some("zswaptop_swap_ra_bytes"));
        assert_eq!(
            named("psi_some_stalled").as_deref(),
            Some("zswaptop_psi_some_stalled_seconds")
        );
        assert_eq!(
            named("stored_pages").as_deref(),
            Some("zswaptop_zswap_debugfs_stored_bytes")
        );
        assert_eq!(
            named("bypassed_zswap_bytes_per_sec").as_deref(),
            Some("zswaptop_bypassed_zswap_bytes_per_second")
        );
        assert_eq!(
            named("psi_memory_avg_ratio").as_deref(),
            Some("zswaptop_psi_memory_avg_ratio")
        );
        assert_eq!(
            named("zswap_compression_ratio").as_deref(),
            Some("zswaptop_zswap_compression_factor")
        );
        assert_eq!(
            named("zram_effective_ratio").as_deref(),
            Some("zswaptop_zram_effective_factor")
        );
        assert_eq!(named("build").as_deref(), Some("zswaptop_build"));
    }

    /// `_total` and `_info` are added once, to the samples (and, in the classic format, to
    /// the metadata lines); OpenMetrics names the family without them.
    #[test]
    fn counter_and_info_suffixes() {
        let s = fixture("linux-6.18-loaded");
        let text = |flavor| {
            let mut t = String::new();
            render(&s, flavor, &mut t);
            t
        };
        let om = text(Flavor::OpenMetrics);
        assert!(
            om.contains("# TYPE zswaptop_zswpout_bytes counter\n"),
            "{om}"
        );
        assert!(om.contains("\nzswaptop_zswpout_bytes_total "), "{om}");
        assert!(om.contains("# TYPE zswaptop_build info\n"), "{om}");
        assert!(om.contains("\nzswaptop_build_info{"), "{om}");
        assert!(!om.contains("_total_total") && !om.contains("_info_info"));
        let prom = text(Flavor::Prometheus);
        assert!(prom.contains("# TYPE zswaptop_zswpout_bytes_total counter\n"));
        assert!(prom.contains("# TYPE zswaptop_build_info gauge\n"));
    }

    /// A zswap parameter whose name no label can have is left out of the info, the others kept.
    #[test]
    fn a_parameter_no_label_can_name_is_left_out() {
        let mut s = fixture("linux-6.18-loaded");
        s.zswap.parameters.insert("not-a-label".into(), "1".into());
        let mut t = String::new();
        render(&s, Flavor::Prometheus, &mut t);
        let info = t
            .lines()
            .find(|l| l.starts_with("zswaptop_zswap_parameters_info{"))
            .unwrap();
        assert!(
            info.contains("max_pool_percent=") && !info.contains("not-a-label"),
            "{info}"
        );
    }

    /// `_ratio` is 0 to 1 (Prometheus' naming guide): on every fixture tree, no sample of a
    /// `_ratio` family lies outside it, and the quotients that do exceed 1 are `_factor`s.
    #[test]
    fn no_ratio_series_exceeds_one() {
        let mut factors_above_one = 0;
        for entry in std::fs::read_dir("tests/fixtures").unwrap() {
            let dir = entry.unwrap().path();
            if !dir.join("proc").is_dir() {
                continue;
            }
            let extras = crate::sources::Extras {
                cgroups: true,
                ..crate::sources::Extras::default()
            };
            let root = crate::root::Root::at(&dir);
            let snap =
                crate::pipeline::snapshot(&crate::sources::collect_with(&root, extras), None);
            let mut text = String::new();
            render(&snap, Flavor::Prometheus, &mut text);
            for line in text.lines().filter(|l| !l.starts_with('#')) {
                let (series, value) = line.rsplit_once(' ').unwrap();
                let name = series.split('{').next().unwrap();
                let value: f64 = value.parse().unwrap();
                if name.ends_with("_ratio") {
                    assert!((0.0..=1.0).contains(&value), "{dir:?}: {line}");
                }
                if name.ends_with("_factor") && value > 1.0 {
                    factors_above_one += 1;
                }
            }
        }
        assert!(factors_above_one > 10, "{factors_above_one}");
        for m in metrics::reaching(Output::Exposition) {
            assert_eq!(
                name(m).ends_with("_ratio"),
                matches!(m.unit, Unit::Share | Unit::Percent),
                "{}",
                m.id
            );
        }
    }

    /// PSI's averages are one family (`zswaptop_psi_memory_avg_ratio{line,window}`): no other
    /// family repeats one of them.
    #[test]
    fn psi_averages_are_exported_once() {
        let s = fixture("linux-6.18-pcp");
        let mut text = String::new();
        render(&s, Flavor::Prometheus, &mut text);
        let avg10 = s.psi.as_ref().unwrap().some_avg10 / 100.0;
        let with_that_value: Vec<&str> = text
            .lines()
            .filter(|l| !l.starts_with('#') && l.contains("psi"))
            .filter(|l| l.rsplit_once(' ').unwrap().1.parse::<f64>().unwrap() == avg10)
            .collect();
        assert_eq!(
            with_that_value,
            [format!(
                "zswaptop_psi_memory_avg_ratio{{line=\"some\",window=\"10\"}} {avg10}"
            )],
            "{text}"
        );
    }

    /// `linux-6.18-loaded` with the BPF programs' counters since their load: zswap's 2 swap-ins
    /// under 1.28 us, 5 in [1.79, 2.05) us, 7 in [2.05, 2.56) us and 1 in the open last bucket
    /// (from 15 s), 16.000123456 s in all, its own count read apart from its buckets (99);
    /// disk measured with none yet; zram not measured on this kernel. Stores: zswap 3 in
    /// [10.2, 12.3) us (bucket 13), 33 us in all; zram and disk measured with none.
    fn with_swapins() -> crate::sources::Sample {
        use crate::sources::bpf::{BUCKETS, SwapinSample, TierCounts, TierReading};
        let root = crate::root::Root::at("tests/fixtures/linux-6.18-loaded");
        let mut s = crate::sources::collect(&root);
        let mut zswap = vec![0; BUCKETS];
        (zswap[0], zswap[3], zswap[4], zswap[BUCKETS - 1]) = (2, 5, 7, 1);
        let mut stored = vec![0; BUCKETS];
        stored[13] = 3;
        let tier = |name: &str, buckets: Option<Vec<u64>>, sum_ns| TierReading {
            tier: name.into(),
            reason: buckets
                .is_none()
                .then(|| "zram_submit_bio: no kprobes".into()),
            counts: buckets.map(|buckets| TierCounts {
                buckets,
                count: 99,
                sum_ns,
                max_ns: 16_000_000_000,
            }),
        };
        s.swapin = SwapinSample {
            reason: None,
            loaded_ns: 5,
            probes: "fentry".into(),
            tiers: vec![
                tier("zswap", Some(zswap), 16_000_123_456),
                tier("zram", None, 0),
                tier("disk", Some(vec![0; BUCKETS]), 0),
            ],
            stores: vec![
                tier("zswap", Some(stored), 33_000),
                tier("zram", Some(vec![0; BUCKETS]), 0),
                tier("disk", Some(vec![0; BUCKETS]), 0),
            ],
        };
        s
    }

    fn exposition(s: &crate::sources::Sample, flavor: Flavor) -> String {
        let mut text = String::new();
        render(&Snapshot::derive(s, None), flavor, &mut text);
        text
    }

    const FAMILY: &str = "zswaptop_swapin_latency_seconds";

    /// The swap-in latency histogram straight from the programs' cumulative counters: each
    /// bound counts every bucket below it, `le` in seconds at each octave, `+Inf` and `_count`
    /// are the buckets' sum (not the programs' own count, read apart), `_sum` in seconds; a
    /// measured tier with no swap-in has its zeros, one the kernel does not let them measure
    /// has no series.
    #[test]
    fn swapin_latency_is_a_histogram_of_the_counters_since_the_load() {
        let text = exposition(&with_swapins(), Flavor::Prometheus);
        let lines: Vec<&str> = text.lines().filter(|l| l.contains(FAMILY)).collect();
        assert!(lines[0].starts_with(&format!("# HELP {FAMILY} How long")));
        assert_eq!(lines[1], format!("# TYPE {FAMILY} histogram"));
        let of = |tier: &str, series: &str| -> Vec<(String, String)> {
            let head = format!("{FAMILY}_{series}{{tier=\"{tier}\"");
            lines
                .iter()
                .filter_map(|l| l.strip_prefix(&head))
                .map(|rest| {
                    let (labels, value) = rest.rsplit_once(' ').unwrap();
                    (labels.to_string(), value.to_string())
                })
                .collect()
        };
        let zswap = of("zswap", "bucket");
        assert_eq!(zswap.len(), 24, "{zswap:?}");
        for (j, (labels, n)) in zswap.iter().enumerate().take(23) {
            let le: f64 = labels
                .strip_prefix(",le=\"")
                .and_then(|l| l.strip_suffix("\"}"))
                .unwrap()
                .parse()
                .unwrap();
            assert_eq!(le, 2f64.powi(11 + j as i32) / 1e9, "{labels}");
            assert_eq!(n, if j == 0 { "7" } else { "14" }, "{labels}");
        }
        assert_eq!(zswap[0].0, ",le=\"0.000002048\"}");
        assert_eq!(zswap[22].0, ",le=\"8.589934592\"}");
        assert_eq!(zswap[23], (",le=\"+Inf\"}".to_string(), "15".to_string()));
        assert_eq!(of("zswap", "sum"), [("}".into(), "16.000123456".into())]);
        assert_eq!(of("zswap", "count"), [("}".into(), "15".into())]);
        let disk = of("disk", "bucket");
        assert_eq!(disk.len(), 24);
        assert!(disk.iter().all(|(_, n)| n == "0"), "{disk:?}");
        assert_eq!(of("disk", "count"), [("}".into(), "0".into())]);
        assert!(!lines.iter().any(|l| l.contains("tier=\"zram\"")), "{text}");
        // The series in registry order, each whole: its buckets, its sum, its count.
        let kinds: Vec<&str> = lines[2..]
            .iter()
            .map(|l| l.split('{').next().unwrap().rsplit('_').next().unwrap())
            .collect();
        let one = [vec!["bucket"; 24], vec!["sum", "count"]].concat();
        assert_eq!(kinds, [one.clone(), one].concat());
        // OpenMetrics: the same samples, the unit said.
        let om = exposition(&with_swapins(), Flavor::OpenMetrics);
        let om_lines: Vec<&str> = om.lines().filter(|l| l.contains(FAMILY)).collect();
        assert_eq!(om_lines[1], format!("# TYPE {FAMILY} histogram"));
        assert_eq!(om_lines[2], format!("# UNIT {FAMILY} seconds"));
        assert_eq!(om_lines[3..], lines[2..]);
        // The store side: its own family, a series a measured tier, the same bounds.
        let stores = "zswaptop_store_latency_seconds";
        let st: Vec<&str> = text.lines().filter(|l| l.contains(stores)).collect();
        assert_eq!(st[1], format!("# TYPE {stores} histogram"));
        assert_eq!(st.len(), 2 + 3 * 26, "{st:#?}");
        // Bucket 13 ends at 2^13 x 1.5 ns: under the 2^14 ns bound, not under 2^13.
        assert!(
            st.contains(
                &format!("{stores}_bucket{{tier=\"zswap\",le=\"0.000008192\"}} 0").as_str()
            )
        );
        assert!(
            st.contains(
                &format!("{stores}_bucket{{tier=\"zswap\",le=\"0.000016384\"}} 3").as_str()
            )
        );
        assert!(st.contains(&format!("{stores}_sum{{tier=\"zswap\"}} 0.000033").as_str()));
        assert!(st.contains(&format!("{stores}_count{{tier=\"disk\"}} 0").as_str()));
    }

    /// Where the programs do not run (refused, loading, a --root tree, an old recording) there
    /// is no series, and nothing else of the exposition changes.
    #[test]
    fn no_swapin_latency_series_where_the_programs_do_not_run() {
        let running = with_swapins();
        let mut refused = running.clone();
        refused.swapin = crate::sources::bpf::SwapinSample::unavailable(
            "BPF_PROG_LOAD: Operation not permitted",
        );
        for flavor in [Flavor::Prometheus, Flavor::OpenMetrics] {
            let without: String = exposition(&running, flavor)
                .lines()
                .filter(|l| !l.contains(FAMILY) && !l.contains("store_latency"))
                .map(|l| format!("{l}\n"))
                .collect();
            let refused = exposition(&refused, flavor);
            assert!(!refused.contains("swapin_latency"), "{refused}");
            assert!(!refused.contains("store_latency"), "{refused}");
            assert_eq!(refused, without, "{flavor:?}");
        }
        let plain =
            crate::sources::collect(&crate::root::Root::at("tests/fixtures/linux-6.18-loaded"));
        assert!(!exposition(&plain, Flavor::Prometheus).contains(FAMILY));
    }

    #[test]
    fn label_names() {
        assert!(label_name_ok("max_pool_percent"));
        assert!(!label_name_ok("__name__"));
        assert!(!label_name_ok("1a"));
        assert!(!label_name_ok("a-b"));
        assert!(!label_name_ok(""));
    }

    #[test]
    fn numbers_and_escapes() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(-2.0), "-2");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(1e20), "100000000000000000000");
        // The noise of the arithmetic is not printed; a value's own digits are.
        assert_eq!(number(5.03 / 100.0), "0.0503");
        assert_eq!(number(0.1 + 0.2), "0.3");
        assert_eq!(number(1.9512345678901), "1.9512345678901");
        assert_eq!(number(0.000_123_4), "0.0001234");
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(escape_help("say \"x\"\n", true), "say \\\"x\\\"\\n");
        assert_eq!(escape_help("say \"x\"", false), "say \"x\"");
    }
}
