//! The exposition a Prometheus scrapes: every entry of the metric catalogue
//! ([`metrics::CATALOGUE`]) and every labelled family ([`families::FAMILIES`]), named
//! `zswaptop_…` in base units, in the OpenMetrics text format 1.0.0 or the classic Prometheus
//! text format 0.0.4 (what node_exporter's textfile collector and older scrapers read).
//!
//! A value the kernel did not give is left out, never written as 0; a family with no value
//! at all is left out whole (no `# HELP` for a metric that has no sample).

use std::io::{self, Write};

use crate::model::Snapshot;
use crate::model::families::{FAMILIES, FamilyKind, Point};
use crate::model::metrics::{self, Kind};

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
struct Exposed<'a> {
    name: String,
    kind: FamilyKind,
    unit: Option<&'a str>,
    help: &'a str,
    points: Vec<Point>,
}

/// Every family with at least one value, catalogue first.
fn exposed(s: &Snapshot) -> Vec<Exposed<'static>> {
    let catalogue = metrics::CATALOGUE.iter().filter_map(|m| {
        let v = m.exported(s)?;
        let name = m.openmetrics_name();
        let name = match m.kind {
            Kind::Counter => name.strip_suffix("_total").unwrap_or(&name).to_string(),
            Kind::Gauge => name,
        };
        Some(Exposed {
            name,
            kind: m.kind.into(),
            unit: Some(m.openmetrics_unit()).filter(|u| !u.is_empty()),
            help: m.help,
            points: vec![Point {
                labels: Vec::new(),
                value: v,
            }],
        })
    });
    let families = FAMILIES.iter().filter_map(|f| {
        let points: Vec<Point> = (f.read)(s)
            .into_iter()
            .filter(|p| p.value.is_finite())
            .collect();
        (!points.is_empty()).then(|| Exposed {
            name: format!("zswaptop_{}", f.id),
            kind: f.kind,
            unit: f.unit,
            help: f.help,
            points,
        })
    });
    catalogue.chain(families).collect()
}

/// Write the exposition of `s` in `flavor`.
pub fn write(s: &Snapshot, flavor: Flavor, out: &mut dyn Write) -> io::Result<()> {
    let mut text = String::with_capacity(16 * 1024);
    render(s, flavor, &mut text);
    out.write_all(text.as_bytes())
}

/// The exposition of `s` as text.
pub fn render(s: &Snapshot, flavor: Flavor, text: &mut String) {
    for f in exposed(s) {
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
    let (suffix, type_word) = match (f.kind, om) {
        (FamilyKind::Counter, _) => ("_total", "counter"),
        (FamilyKind::Info, true) => ("_info", "info"),
        (FamilyKind::Info, false) => ("_info", "gauge"),
        (FamilyKind::StateSet | FamilyKind::Gauge, _) => ("", "gauge"),
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
        text.push_str(&f.name);
        text.push_str(suffix);
        if !p.labels.is_empty() {
            text.push('{');
            for (i, (k, v)) in p.labels.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                let _ = write!(text, "{k}=\"{}\"", escape_label(v));
            }
            text.push('}');
        }
        let _ = writeln!(text, " {}", number(p.value));
    }
}

/// A sample value: integers without a fraction, others as Rust prints them (shortest exact).
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
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
    fn a_debugfs_file_the_catalogue_lacks_is_still_exported() {
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

    /// HELP texts are the catalogue's and the families' own words, never a string from the
    /// kernel: none may hold a character a terminal or a scraper would take for markup.
    #[test]
    fn help_texts_hold_no_unsafe_character() {
        let helps = metrics::CATALOGUE
            .iter()
            .map(|m| m.help)
            .chain(FAMILIES.iter().map(|f| f.help));
        for help in helps {
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

    #[test]
    fn numbers_and_escapes() {
        assert_eq!(number(3.0), "3");
        assert_eq!(number(-2.0), "-2");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(1e20), "100000000000000000000");
        assert_eq!(escape_label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        assert_eq!(escape_help("say \"x\"\n", true), "say \\\"x\\\"\\n");
        assert_eq!(escape_help("say \"x\"", false), "say \"x\"");
    }
}
