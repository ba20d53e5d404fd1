//! The fleet read from the query API: one instant query per figure over every host at once
//! (never one per host: 10,000 hosts are a dozen queries), joined by `instance`.
//!
//! The series' names are the exposition's, made from the registry by
//! [`crate::report::openmetrics::name`] and [`suffix`](crate::report::openmetrics::suffix): a
//! figure renamed there is renamed here.

use std::collections::{BTreeMap, BTreeSet};

use crate::fleet::client::{Client, Sample};
use crate::fleet::model::{Findings, Fleet, Host};
use crate::model::metrics;
use crate::report::openmetrics;
use crate::sanitize::visible;

/// The window rates are taken over (writeback).
pub const RATE_WINDOW: &str = "2m";
/// How far back a host that stopped is still listed (as stale).
pub const REMEMBERED: &str = "1h";
/// The step of the subquery that finds a stopped host's last sample: its age is known to within
/// this much (720 steps over the hour: for 10,000 hosts, 7.2 million points, under Prometheus's
/// default bound of 50 million a query).
pub const LAST_STEP: &str = "5s";

/// A series selector's matchers (`{job="zswaptop"}` → `job="zswaptop"`), checked for shape.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector(String);

impl Selector {
    /// The matchers of `text`, which must be `{…}` (or empty, for none).
    pub fn parse(text: &str) -> Result<Selector, String> {
        let t = text.trim();
        if t.is_empty() || t == "{}" {
            return Ok(Selector::default());
        }
        match t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
            Some(inner) if !inner.trim().is_empty() => Ok(Selector(inner.trim().to_string())),
            _ => Err(format!(
                "--selector '{}': give label matchers in braces, e.g. '{{job=\"zswaptop\"}}'",
                visible(text)
            )),
        }
    }

    /// As given, with its braces ("" for none).
    pub fn shown(&self) -> String {
        if self.0.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", self.0)
        }
    }

    /// `name{extra, matchers}`.
    pub fn on(&self, name: &str, extra: &str) -> String {
        let parts: Vec<&str> = [extra, self.0.as_str()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect();
        format!("{name}{{{}}}", parts.join(","))
    }
}

/// The sample name of the registry's figure `id` (with a counter's `_total`, an info's `_info`).
pub fn series(id: &str) -> String {
    match metrics::get(id) {
        Some(m) => format!("{}{}", openmetrics::name(m), openmetrics::suffix(m.kind)),
        // The registry's ids are fixed; a test reads every id used here.
        None => format!("zswaptop_{id}"),
    }
}

/// The registry ids the fleet reads.
pub const IDS: [&str; 10] = [
    "build",
    "zswap_pool_bytes",
    "zswap_pool_limit_bytes",
    "zswap_pool_full_seconds",
    "swap_full_seconds",
    "zram_full_seconds",
    "zswap_swapin_hit_ratio",
    "zswpwb",
    "psi_memory_avg_ratio",
    "finding",
];

/// Every query of one look at the fleet, by what it gives.
pub fn queries(sel: &Selector) -> BTreeMap<&'static str, String> {
    let by = |agg: &str, id: &str, extra: &str| {
        format!("{agg} by (instance) ({})", sel.on(&series(id), extra))
    };
    let build = sel.on(&series("build"), "");
    BTreeMap::from([
        ("sample_time", format!("timestamp({build})")),
        (
            "last_time",
            format!(
                "max by (instance) (max_over_time(timestamp({build})[{REMEMBERED}:{LAST_STEP}]))"
            ),
        ),
        ("up", format!("max by (instance) ({})", sel.on("up", ""))),
        ("pool", by("max", "zswap_pool_bytes", "")),
        ("limit", by("max", "zswap_pool_limit_bytes", "")),
        ("full_pool", by("min", "zswap_pool_full_seconds", "")),
        ("full_swap", by("min", "swap_full_seconds", "")),
        ("full_zram", by("min", "zram_full_seconds", "")),
        ("hit", by("max", "zswap_swapin_hit_ratio", "")),
        (
            "writeback",
            format!(
                "sum by (instance) (rate({}[{RATE_WINDOW}]))",
                sel.on(&series("zswpwb"), "")
            ),
        ),
        (
            "psi",
            by("max", "psi_memory_avg_ratio", "line=\"some\",window=\"10\""),
        ),
        (
            "findings",
            format!(
                "count by (instance, severity) ({})",
                sel.on(&series("finding"), "")
            ),
        ),
    ])
}

/// What one figure's query gave: its value per raw instance, or why it failed.
type Answer = Result<Vec<Sample>, String>;

fn instance(s: &Sample) -> Option<&str> {
    s.labels.get("instance").map(String::as_str)
}

/// Look at the fleet once, at `time` (the server's now without).
pub fn look(client: &Client, sel: &Selector, time: f64) -> Fleet {
    let asked = queries(sel);
    let promql: Vec<&str> = asked.values().map(String::as_str).collect();
    // All at once, so that an engine with cores to spare answers them in parallel. Measured
    // (scripts/bench-fleet.sh, 10,000 hosts, VictoriaMetrics on this 2-core machine shared with
    // other builds): one after the other 2.3 s to the view's first screen at load 3.4; at once
    // 8.3 s at load 9.5-10.5. Not yet compared under the same load.
    let answers: BTreeMap<&str, Answer> = asked
        .keys()
        .copied()
        .zip(client.query_all(&promql, Some(time)))
        .map(|(k, a)| (k, a.map_err(|e| e.to_string())))
        .collect();
    join(client.url(), sel, time, &answers)
}

/// The per-instance values of one answer.
fn values(a: Option<&Answer>) -> BTreeMap<&str, f64> {
    match a {
        Some(Ok(v)) => v
            .iter()
            .filter_map(|s| Some((instance(s)?, s.value)))
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// The fleet out of the answers, joined by raw `instance`.
fn join(url: &str, sel: &Selector, time: f64, answers: &BTreeMap<&str, Answer>) -> Fleet {
    let errors: Vec<String> = answers
        .iter()
        .filter_map(|(k, a)| a.as_ref().err().map(|e| format!("{k}: {e}")))
        .collect();
    let read = Answers::read(answers);
    // The hosts: every instance that exported zswaptop within the remembered hour, and, under a
    // selector (the user's word that its targets are zswaptop's), every target it names.
    let mut names: BTreeSet<&str> = read
        .sample_time
        .keys()
        .chain(read.last_time.keys())
        .copied()
        .collect();
    if !sel.0.is_empty() {
        names.extend(read.up.keys().copied());
    }
    let hosts = names.into_iter().map(|raw| read.host(raw, time)).collect();
    let mut fleet = Fleet {
        source: url.to_string(),
        time,
        selector: sel.shown(),
        hosts,
        errors,
        ..Fleet::default()
    };
    fleet.finish();
    fleet
}

/// The answers read into values by instance: what each host's row is made of.
struct Answers<'a> {
    answers: &'a BTreeMap<&'a str, Answer>,
    sample_time: BTreeMap<&'a str, f64>,
    last_time: BTreeMap<&'a str, f64>,
    up: BTreeMap<&'a str, f64>,
    versions: BTreeMap<&'a str, &'a str>,
    findings: BTreeMap<&'a str, Findings>,
    /// The figures by query name, then by instance.
    fig: BTreeMap<&'static str, BTreeMap<&'a str, f64>>,
}

/// The figures' queries, by name.
const FIGURES: [&str; 8] = [
    "pool",
    "limit",
    "full_pool",
    "full_swap",
    "full_zram",
    "hit",
    "writeback",
    "psi",
];

impl<'a> Answers<'a> {
    fn read(answers: &'a BTreeMap<&'a str, Answer>) -> Answers<'a> {
        let versions = match answers.get("sample_time") {
            Some(Ok(v)) => v
                .iter()
                .filter_map(|s| Some((instance(s)?, s.labels.get("version")?.as_str())))
                .collect(),
            _ => BTreeMap::new(),
        };
        let mut findings: BTreeMap<&str, Findings> = BTreeMap::new();
        if let Some(Ok(v)) = answers.get("findings") {
            for s in v {
                let (Some(i), Some(sev)) = (instance(s), s.labels.get("severity")) else {
                    continue;
                };
                let f = findings.entry(i).or_default();
                let n = s.value.max(0.0) as u32;
                match sev.as_str() {
                    "crit" => f.crit += n,
                    "warn" => f.warn += n,
                    _ => f.info += n,
                }
            }
        }
        Answers {
            answers,
            sample_time: values(answers.get("sample_time")),
            last_time: values(answers.get("last_time")),
            up: values(answers.get("up")),
            versions,
            findings,
            fig: FIGURES
                .into_iter()
                .map(|k| (k, values(answers.get(k))))
                .collect(),
        }
    }

    /// Why the query `key` failed, if it did.
    fn failed(&self, key: &str) -> Option<&'a String> {
        self.answers.get(key).and_then(|a| a.as_ref().err())
    }

    /// The row of the host whose raw `instance` is `raw`, at `time`.
    fn host(&self, raw: &str, time: f64) -> Host {
        let mut h = Host {
            instance: visible(raw).into_owned(),
            raw_instance: raw.to_string(),
            up: self.up.get(raw).is_some_and(|v| *v >= 1.0),
            version: self.versions.get(raw).map(|v| visible(v).into_owned()),
            findings: self.findings.get(raw).copied().unwrap_or_default(),
            ..Host::default()
        };
        let last = self.sample_time.get(raw).or(self.last_time.get(raw));
        h.age_seconds = last.map(|t| (time - t).max(0.0));
        let live = self.sample_time.contains_key(raw);
        h.stale = !h.up || !live;
        // A host that is down or gone has no figures: what an engine still returns for it
        // (VictoriaMetrics looks back over the stale samples) is not now's.
        let current = h.up && live;
        let why = Why {
            answers: self,
            up: h.up,
            live,
            age: h.age_seconds,
        };
        if !current {
            h.findings = Findings::default();
        }
        let get = |k: &str| self.fig[k].get(raw).copied().filter(|_| current);
        let mut unknown = BTreeMap::new();
        if !current {
            unknown.insert("findings", why.missing("findings", "finding"));
        }
        h.zswap_pool_bytes = get("pool").map(|v| v.max(0.0).round() as u64);
        if h.zswap_pool_bytes.is_none() {
            unknown.insert("zswap_pool_bytes", why.missing("pool", "zswap_pool_bytes"));
        }
        h.zswap_pool_limit_share = match (get("pool"), get("limit")) {
            (Some(p), Some(l)) if l > 0.0 => Some(p / l),
            (Some(_), Some(_)) => {
                unknown.insert("zswap_pool_limit_share", "the pool's limit is 0".into());
                None
            }
            (None, _) => {
                unknown.insert(
                    "zswap_pool_limit_share",
                    why.missing("pool", "zswap_pool_bytes"),
                );
                None
            }
            (_, None) => {
                unknown.insert(
                    "zswap_pool_limit_share",
                    why.missing("limit", "zswap_pool_limit_bytes"),
                );
                None
            }
        };
        let soonest = [
            ("pool", "full_pool"),
            ("swap", "full_swap"),
            ("zram", "full_zram"),
        ]
        .into_iter()
        .filter_map(|(what, k)| Some((what, get(k)?)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
        h.full_seconds = soonest.map(|(_, s)| s);
        h.full_first = soonest.map(|(w, _)| w.to_string());
        if h.full_seconds.is_none() {
            let reason = ["full_pool", "full_swap", "full_zram"]
                .into_iter()
                .find_map(|k| self.failed(k))
                .map(|e| format!("the query failed: {e}"))
                .unwrap_or_else(|| {
                    if current {
                        "none of the pool, swap and zram is filling".into()
                    } else {
                        why.missing("full_pool", "zswap_pool_full_seconds")
                    }
                });
            unknown.insert("full_seconds", reason);
        }
        h.swapin_hit_ratio = get("hit");
        if h.swapin_hit_ratio.is_none() {
            unknown.insert(
                "swapin_hit_ratio",
                if current && self.failed("hit").is_none() {
                    format!(
                        "{} is absent: no swap-in over the interval, or an older zswaptop",
                        series("zswap_swapin_hit_ratio")
                    )
                } else {
                    why.missing("hit", "zswap_swapin_hit_ratio")
                },
            );
        }
        h.writeback_bytes_per_second = get("writeback");
        if h.writeback_bytes_per_second.is_none() {
            unknown.insert(
                "writeback_bytes_per_second",
                why.missing("writeback", "zswpwb"),
            );
        }
        h.psi_some_avg10 = get("psi").map(|v| v * 100.0);
        if h.psi_some_avg10.is_none() {
            unknown.insert("psi_some_avg10", why.missing("psi", "psi_memory_avg_ratio"));
        }
        h.unknown = unknown
            .into_iter()
            .map(|(k, v)| (k.to_string(), visible(&v).into_owned()))
            .collect();
        h
    }
}

/// Why a host's figure is missing: its query failed, the host is down or stale, or it does not
/// export the series.
struct Why<'a, 'b> {
    answers: &'b Answers<'a>,
    up: bool,
    live: bool,
    age: Option<f64>,
}

impl Why<'_, '_> {
    fn missing(&self, key: &str, id: &str) -> String {
        let gone = || match self.age {
            Some(a) => format!("no sample for {a:.0} s"),
            None => "no sample in the last hour".into(),
        };
        if let Some(e) = self.answers.failed(key) {
            format!("the query failed: {e}")
        } else if !self.up {
            format!("down: its last scrape failed (up = 0); {}", gone())
        } else if !self.live {
            format!("stale: {}", gone())
        } else {
            format!(
                "{} is not exported by this host (its kernel lacks it, or an older zswaptop)",
                series(id)
            )
        }
    }
}

/// Whether every query of a look failed (the server is down, or answers no query): then there
/// is no fleet to show, only the reason.
pub fn all_failed(f: &Fleet) -> bool {
    f.errors.len() == queries(&Selector::default()).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_the_registrys() {
        for id in IDS {
            let m = metrics::get(id).unwrap_or_else(|| panic!("{id} is not in the registry"));
            assert!(
                m.reaches(metrics::Output::Exposition),
                "{id} is not exported"
            );
            // `series` names one sample; a histogram has three (`openmetrics::sample_names`).
            assert_ne!(m.kind, metrics::Kind::Histogram, "{id}");
        }
        assert_eq!(series("zswap_pool_bytes"), "zswaptop_zswap_pool_bytes");
        assert_eq!(series("build"), "zswaptop_build_info");
        assert!(series("zswpwb").ends_with("_total"));
    }

    #[test]
    fn selectors() {
        let s = Selector::parse("{job=\"zswaptop\"}").unwrap();
        assert_eq!(s.on("up", ""), "up{job=\"zswaptop\"}");
        assert_eq!(s.on("x", "a=\"1\""), "x{a=\"1\",job=\"zswaptop\"}");
        assert_eq!(Selector::parse("").unwrap().on("up", ""), "up{}");
        assert!(Selector::parse("job=\"x\"").is_err());
        assert!(Selector::parse("up{job=\"x\"}").is_err());
    }

    fn sample(instance: &str, value: f64, extra: &[(&str, &str)]) -> Sample {
        let mut labels: BTreeMap<String, String> =
            BTreeMap::from([("instance".to_string(), instance.to_string())]);
        for (k, v) in extra {
            labels.insert(k.to_string(), v.to_string());
        }
        Sample { labels, value }
    }

    #[test]
    fn joins_by_instance_with_reasons() {
        let mut a: BTreeMap<&str, Answer> = BTreeMap::new();
        a.insert(
            "sample_time",
            Ok(vec![sample("a:1", 99.0, &[("version", "0.1.0")])]),
        );
        a.insert(
            "last_time",
            Ok(vec![
                sample("a:1", 90.0, &[]),
                sample("b\x1b[2J:1", 40.0, &[]),
            ]),
        );
        a.insert(
            "up",
            Ok(vec![
                sample("a:1", 1.0, &[]),
                sample("b\x1b[2J:1", 0.0, &[]),
            ]),
        );
        a.insert("pool", Ok(vec![sample("a:1", 100.0, &[])]));
        a.insert("limit", Ok(vec![sample("a:1", 400.0, &[])]));
        a.insert("full_swap", Ok(vec![sample("a:1", 50.0, &[])]));
        a.insert("full_pool", Ok(vec![sample("a:1", 70.0, &[])]));
        a.insert("hit", Err("timeout".into()));
        a.insert(
            "findings",
            Ok(vec![
                sample("a:1", 2.0, &[("severity", "crit")]),
                sample("a:1", 1.0, &[("severity", "info")]),
            ]),
        );
        let f = join("http://p", &Selector::default(), 100.0, &a);
        assert_eq!(f.summary.hosts, 2);
        assert_eq!(f.summary.stale, 1);
        assert_eq!(f.summary.in_trouble, 1);
        let first = &f.hosts[0];
        assert_eq!(first.instance, "a:1");
        assert_eq!(first.zswap_pool_limit_share, Some(0.25));
        assert_eq!(first.full_seconds, Some(50.0));
        assert_eq!(first.full_first.as_deref(), Some("swap"));
        assert_eq!(first.age_seconds, Some(1.0));
        assert_eq!(first.findings.crit, 2);
        assert!(first.unknown["swapin_hit_ratio"].contains("timeout"));
        assert!(first.unknown["psi_some_avg10"].contains("not exported"));
        let gone = &f.hosts[1];
        assert_eq!(gone.instance, "b\\x1b[2J:1");
        assert!(gone.stale && !gone.up);
        assert_eq!(gone.age_seconds, Some(60.0));
        assert!(gone.unknown["zswap_pool_bytes"].contains("down"));
        assert!(gone.unknown["findings"].contains("up = 0"));
        assert_eq!(f.errors, ["hit: timeout"]);
    }
}
