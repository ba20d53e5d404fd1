//! The fleet as read from Prometheus: one [`Host`] per instance, its figures or, for each one it
//! lacks, why; sorted worst first, with a [`Summary`]. What `fleet --once --json` prints
//! (`fleet.hosts[]`, `fleet.summary`) is this, serialised; its schema is generated from these
//! types (src/schema.rs).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// A host is in trouble when it fills within this many seconds (or has a critical finding).
pub const FULL_SOON_SECONDS: f64 = 3600.0;

/// `fleet --once --json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Document {
    pub fleet: Fleet,
}

/// The fleet at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fleet {
    /// The query API read (its URL, without credentials).
    pub source: String,
    /// The moment of the instant queries, unix seconds.
    pub time: f64,
    /// The series selector every query was narrowed by ("" for none).
    pub selector: String,
    /// The hosts, worst first: soonest to fill, then most critical findings, then the most
    /// memory pressure; then by instance.
    pub hosts: Vec<Host>,
    pub summary: Summary,
    /// The queries that failed, each with its reason (their figures are unknown on every host).
    pub errors: Vec<String>,
}

/// What the fleet comes to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    pub hosts: usize,
    /// Hosts with a critical finding, or whose pool, swap or a zram device fills within the hour.
    pub in_trouble: usize,
    /// Hosts whose last scrape failed or whose samples are gone (the exporter stopped).
    pub stale: usize,
}

/// Active findings by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Findings {
    pub crit: u32,
    pub warn: u32,
    pub info: u32,
}

/// One instance.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Host {
    /// The `instance` label, made safe for a terminal (control and format characters escaped).
    pub instance: String,
    /// The label as the engine holds it (to ask for this host's series); never printed.
    #[serde(skip)]
    #[schemars(skip)]
    pub raw_instance: String,
    /// Whether Prometheus's last scrape of it succeeded (`up`).
    pub up: bool,
    /// Its last scrape failed or its samples went stale.
    pub stale: bool,
    /// Seconds since its last sample; null when it has none within the last hour.
    pub age_seconds: Option<f64>,
    /// The zswaptop version it runs (`zswaptop_build_info`).
    pub version: Option<String>,
    /// RAM the zswap pool takes.
    #[schemars(range(min = 0))]
    pub zswap_pool_bytes: Option<u64>,
    /// The pool as a share of its limit, 0-1.
    #[schemars(range(min = 0))]
    pub zswap_pool_limit_share: Option<f64>,
    /// Seconds until the first of the zswap pool, swap and a zram device is full at its fill
    /// rate; null when none is filling.
    pub full_seconds: Option<f64>,
    /// Which one fills first: pool, swap or zram.
    pub full_first: Option<String>,
    /// Of the swap-ins, the share served from zswap, 0-1.
    pub swapin_hit_ratio: Option<f64>,
    /// zswap writeback to the swap device, bytes per second (over the rate window).
    pub writeback_bytes_per_second: Option<f64>,
    /// PSI memory some avg10, percent (as `zswaptop --once --json` gives `psi.some_avg10`).
    pub psi_some_avg10: Option<f64>,
    pub findings: Findings,
    /// For each figure that is null (and the findings of a host that is down or gone): why (the
    /// series is missing, the host is down, the query failed, …).
    #[schemars(extend("propertyNames" = { "enum": [
        "zswap_pool_bytes", "zswap_pool_limit_share", "full_seconds", "swapin_hit_ratio",
        "writeback_bytes_per_second", "psi_some_avg10", "findings"
    ] }))]
    pub unknown: BTreeMap<String, String>,
}

impl Host {
    /// In trouble: a critical finding, or full within the hour.
    pub fn in_trouble(&self) -> bool {
        self.findings.crit > 0 || self.full_seconds.is_some_and(|s| s <= FULL_SOON_SECONDS)
    }
}

/// Worst first: the soonest to fill (none filling last), then the most critical findings, then
/// the most pressure (unknown last), then by instance.
pub fn worst_first(a: &Host, b: &Host) -> Ordering {
    let full = |h: &Host| h.full_seconds.unwrap_or(f64::INFINITY);
    let psi = |h: &Host| h.psi_some_avg10.unwrap_or(-1.0);
    full(a)
        .total_cmp(&full(b))
        .then(b.findings.crit.cmp(&a.findings.crit))
        .then(psi(b).total_cmp(&psi(a)))
        .then_with(|| a.instance.cmp(&b.instance))
}

impl Fleet {
    /// Sort the hosts worst first and count the summary.
    pub fn finish(&mut self) {
        self.hosts.sort_by(worst_first);
        self.summary = Summary {
            hosts: self.hosts.len(),
            in_trouble: self.hosts.iter().filter(|h| h.in_trouble()).count(),
            stale: self.hosts.iter().filter(|h| h.stale).count(),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(name: &str, full: Option<f64>, crit: u32, psi: Option<f64>) -> Host {
        Host {
            instance: name.into(),
            full_seconds: full,
            findings: Findings {
                crit,
                ..Findings::default()
            },
            psi_some_avg10: psi,
            ..Host::default()
        }
    }

    #[test]
    fn sorts_worst_first_and_counts() {
        let mut f = Fleet {
            hosts: vec![
                host("quiet", None, 0, Some(0.0)),
                host("pressed", None, 0, Some(12.0)),
                host("crit", None, 2, None),
                host("fills-late", Some(86_400.0), 0, None),
                host("fills-soon", Some(60.0), 0, None),
                Host {
                    stale: true,
                    ..host("gone", None, 0, None)
                },
            ],
            ..Fleet::default()
        };
        f.finish();
        let order: Vec<&str> = f.hosts.iter().map(|h| h.instance.as_str()).collect();
        assert_eq!(
            order,
            [
                "fills-soon",
                "fills-late",
                "crit",
                "pressed",
                "quiet",
                "gone"
            ]
        );
        assert_eq!(
            f.summary,
            Summary {
                hosts: 6,
                in_trouble: 2,
                stale: 1
            }
        );
    }
}
