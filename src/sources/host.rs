//! Facts about the host: name, kernel release, uptime, privileges and page size.
//!
//! On the live system the host name comes from `sysinfo`. sysinfo reads the running system
//! only (it has no root-path override), so it stays here at the edge: under `--root` these facts
//! come from the tree's own files or are left unknown.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::Reason;
use crate::root::Root;
use crate::sanitize::Sanitize;
use crate::sys;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct HostSample {
    pub hostname: Option<String>,
    pub kernel: Option<String>,
    pub uptime_seconds: Option<f64>,
    /// Effective uid 0 (of this process: under `--root` it still says what we could read live).
    pub privileged: bool,
    pub page_size: PageSize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct PageSize {
    #[serde(rename = "size_bytes", alias = "bytes")]
    #[schemars(range(min = 1))]
    pub bytes: u64,
    /// Where the value came from: "sysconf", "tree file pagesize", "host sysconf, not in tree".
    pub source: String,
}

const FALLBACK_PAGE: u64 = 4096;

pub(crate) fn read(root: &Root) -> HostSample {
    let text = |p: &Path| {
        root.read_text(p, &Reason::absent(""))
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
    };
    let hostname = if root.is_live() {
        sysinfo::System::host_name().ok()
    } else {
        text(&root.proc("sys/kernel/hostname"))
    };
    let uptime_seconds = uptime(root);
    let kernel = text(&root.proc("sys/kernel/osrelease")).or_else(|| text(&root.file("uname-r")));
    HostSample {
        hostname,
        kernel,
        uptime_seconds,
        privileged: sys::euid() == 0,
        page_size: page_size(root),
    }
}

/// Seconds since boot (what a tick reads of the host; the rest hardly changes). Live, whole
/// seconds of the clock `/proc/uptime` prints (its first field); under `--root`, the tree's
/// `/proc/uptime`.
pub(crate) fn uptime(root: &Root) -> Option<f64> {
    if root.is_live() {
        // What /proc/uptime prints is this clock (in a time namespace too), read without a
        // system call.
        return Some(sys::boottime_s());
    }
    let secs: f64 = root
        .read_text(&root.proc("uptime"), &Reason::absent(""))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    secs.is_finite().then_some(secs)
}

/// The live page size from sysconf; under `--root`, the tree's `pagesize` file when it has one.
/// (The model may refine a tree's value from Zswapped ÷ stored_pages; see `model`.)
pub(crate) fn page_size(root: &Root) -> PageSize {
    let host = sys::host_page_size();
    if root.is_live() {
        return PageSize {
            bytes: host.unwrap_or(FALLBACK_PAGE),
            source: if host.is_some() {
                "sysconf"
            } else {
                "assumed 4096 (sysconf failed)"
            }
            .into(),
        };
    }
    if let Ok(t) = root.read_text(&root.file("pagesize"), &Reason::absent(""))
        && let Ok(v) = t.trim().parse::<u64>()
        && v.is_power_of_two()
        && v >= 4096
    {
        return PageSize {
            bytes: v,
            source: "tree file pagesize".into(),
        };
    }
    PageSize {
        bytes: host.unwrap_or(FALLBACK_PAGE),
        source: "host sysconf, not in tree".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Live, the clock gives what /proc/uptime says (read just before and just after).
    #[test]
    fn live_uptime_is_what_proc_uptime_says() {
        let file = || -> f64 {
            let text = std::fs::read_to_string("/proc/uptime").unwrap();
            text.split_whitespace().next().unwrap().parse().unwrap()
        };
        let before = file().trunc();
        let clock = uptime(&Root::live()).unwrap();
        let after = file().trunc();
        assert!(
            (before..=after).contains(&clock),
            "{before} ≤ {clock} ≤ {after}"
        );
        assert_eq!(clock, clock.trunc());
    }

    #[test]
    fn a_tree_uptime_is_its_file() {
        let root = Root::at(format!(
            "{}/tests/fixtures/depth-many-processes",
            env!("CARGO_MANIFEST_DIR")
        ));
        let text = std::fs::read_to_string(root.proc("uptime")).unwrap();
        let want: f64 = text.split_whitespace().next().unwrap().parse().unwrap();
        assert_eq!(uptime(&root), Some(want));
    }
}
