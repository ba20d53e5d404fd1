//! The status section: the tool, the host, pressure, tunables and every source's status.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason};
use crate::sanitize::Sanitize;
use crate::sources::Sample;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct Tool {
    #[schemars(extend("const" = "zswaptop"))]
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct Host {
    pub hostname: Option<String>,
    pub kernel: Option<String>,
    #[schemars(range(min = 0))]
    pub uptime_seconds: Option<f64>,
    pub privileged: bool,
    pub root: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct Psi {
    #[schemars(range(min = 0, max = 100))]
    pub some_avg10: f64,
    #[schemars(range(min = 0, max = 100))]
    pub some_avg60: f64,
    #[schemars(range(min = 0, max = 100))]
    pub some_avg300: f64,
    pub some_total_us: u64,
    #[schemars(range(min = 0, max = 100))]
    pub full_avg10: f64,
    #[schemars(range(min = 0, max = 100))]
    pub full_avg60: f64,
    #[schemars(range(min = 0, max = 100))]
    pub full_avg300: f64,
    pub full_total_us: u64,
}

/// A file-level source and why it could not be read (`None`: it was). In JSON: `source`,
/// `status` (ok, missing, denied, malformed or unreadable) and `reason` as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Sanitize, JsonSchema)]
#[serde(into = "SourceStatusJson")]
#[schemars(
    description = "A file zswaptop reads: `status` ok, or the kind of trouble that `reason` describes."
)]
pub struct SourceStatus {
    pub source: String,
    pub reason: Option<Reason>,
}

impl SourceStatus {
    pub(crate) fn is_ok(&self) -> bool {
        self.reason.is_none()
    }

    /// ok, missing, denied, malformed or unreadable.
    pub(crate) fn status(&self) -> &'static str {
        self.reason.as_ref().map_or("ok", Reason::status)
    }
}

#[derive(Serialize, JsonSchema)]
struct SourceStatusJson {
    source: String,
    #[schemars(extend("enum" = ["ok", "missing", "denied", "malformed", "unreadable"]))]
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    reason: Option<String>,
}

impl From<SourceStatus> for SourceStatusJson {
    fn from(s: SourceStatus) -> Self {
        SourceStatusJson {
            status: s.status(),
            reason: s.reason.as_ref().map(Reason::text),
            source: s.source,
        }
    }
}

impl Tool {
    pub(crate) fn this() -> Tool {
        Tool {
            name: "zswaptop".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        }
    }
}

impl Host {
    pub(crate) fn derive(curr: &Sample) -> Host {
        Host {
            hostname: curr.host.hostname.clone(),
            kernel: curr.host.kernel.clone(),
            uptime_seconds: curr.host.uptime_seconds,
            privileged: curr.host.privileged,
            root: curr.root.clone(),
        }
    }
}

impl Psi {
    pub(crate) fn derive(curr: &Sample) -> Option<Psi> {
        curr.psi.as_ref().ok().map(|p| Psi {
            some_avg10: p.some.avg10,
            some_avg60: p.some.avg60,
            some_avg300: p.some.avg300,
            some_total_us: p.some.total_us,
            full_avg10: p.full.avg10,
            full_avg60: p.full.avg60,
            full_avg300: p.full.avg300,
            full_total_us: p.full.total_us,
        })
    }
}

/// Every tunable zswaptop reads, by its sysctl-style name; `None` where it could not be read.
pub(crate) fn tunables(curr: &Sample) -> BTreeMap<String, Option<String>> {
    let mut tunables = BTreeMap::new();
    for (name, v) in &curr.tunables.vm {
        tunables.insert(format!("vm.{name}"), v.as_ref().ok().cloned());
    }
    let sel = |r: &Reading<crate::sources::zram::Selector>| {
        r.as_ref().ok().and_then(|s| s.selected.clone())
    };
    tunables.insert(
        "transparent_hugepage.enabled".into(),
        sel(&curr.tunables.thp_enabled),
    );
    tunables.insert(
        "transparent_hugepage.defrag".into(),
        sel(&curr.tunables.thp_defrag),
    );
    tunables
}

/// The zswap parameters directory, as a source.
pub const ZSWAP_PARAMS: &str = "/sys/module/zswap/parameters";
/// zswap's debugfs directory, as a source.
pub const DEBUGFS: &str = "/sys/kernel/debug/zswap";
/// The processes' command lines, as a source: missing from a recording made without them.
pub const CMDLINE: &str = "/proc/PID/cmdline";

/// Every file-level source with its status, for the "sources" list and the status line.
pub(crate) fn source_statuses(s: &Sample) -> Vec<SourceStatus> {
    fn st<T>(out: &mut Vec<SourceStatus>, name: &str, r: &Reading<T>) {
        out.push(match r {
            Ok(_) => SourceStatus {
                source: name.to_string(),
                reason: None,
            },
            Err(e) => SourceStatus {
                source: name.to_string(),
                reason: Some(e.reason.clone()),
            },
        });
    }
    let mut out = Vec::new();
    st(&mut out, "/proc/meminfo", &s.meminfo);
    st(&mut out, "/proc/vmstat", &s.vmstat);
    st(&mut out, "/proc/swaps", &s.swaps);
    st(&mut out, "/proc/pressure/memory", &s.psi);
    st(&mut out, "/proc/cmdline", &s.boot_params);
    st(&mut out, ZSWAP_PARAMS, &s.zswap_params);
    st(&mut out, DEBUGFS, &s.zswap_debugfs);
    for z in &s.zram {
        st(
            &mut out,
            &format!("/sys/block/{}/mm_stat", z.name),
            &z.mm_stat,
        );
    }
    st(
        &mut out,
        "/sys/kernel/mm/transparent_hugepage/enabled",
        &s.tunables.thp_enabled,
    );
    st(&mut out, "/proc/zoneinfo", &s.zoneinfo);
    if s.processes
        .as_ref()
        .is_some_and(|p| p.commands_not_recorded)
    {
        out.push(SourceStatus {
            source: CMDLINE.to_string(),
            reason: Some(crate::error::Reason::NotRecorded),
        });
    }
    out
}
