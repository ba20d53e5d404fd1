//! systemd-oomd, as far as it bears on swap: whether it runs, its swap limit and where it was
//! set, the units it kills when swap runs out, and the swap areas made after it started.

use schemars::JsonSchema;
use serde::Serialize;

use crate::sanitize::Sanitize;
use crate::sources::Sample;
use crate::sources::oomd::{DEFAULT_SWAP_USED_LIMIT_PERCENT, parse_percent};

#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct Oomd {
    pub pid: u32,
    /// When it started: boot time (`/proc/stat` btime) + its start after boot (`/proc/PID/stat`),
    /// Unix seconds; `null` without btime.
    pub started_unix: Option<i64>,
    /// `SwapUsedLimit=`: oomd kills in a `ManagedOOMSwap=kill` unit once this share of swap is
    /// used. `null` when the value set does not parse (`swap_used_limit_from` names the file).
    #[schemars(range(min = 0, max = 100))]
    pub swap_used_limit_percent: Option<f64>,
    /// The file that set it, or `systemd's default`.
    pub swap_used_limit_from: String,
    /// The oomd.conf files read, in the order applied.
    pub config_files: Vec<String>,
    /// The units with `ManagedOOMSwap=kill`, and the file that says so.
    pub swap_kill_units: Vec<OomdUnit>,
    /// Swap areas whose inode was written (mkswap) after oomd started. oomd counts them (it
    /// reads /proc/swaps at every check of its swap policy): a record, not a finding's basis.
    pub swap_added_after_start: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Sanitize, JsonSchema)]
pub struct OomdUnit {
    pub unit: String,
    pub file: String,
}

/// oomd where its process runs, else `None`.
pub(crate) fn derive(curr: &Sample) -> Option<Oomd> {
    let o = &curr.oomd;
    let p = o.process.as_ref()?;
    let started_unix = o
        .boot_unix
        .map(|b| b + p.started_after_boot_seconds.floor() as i64);
    let (swap_used_limit_percent, swap_used_limit_from) = match &o.swap_used_limit {
        Some((v, file)) => (parse_percent(v), file.clone()),
        None => (
            Some(DEFAULT_SWAP_USED_LIMIT_PERCENT),
            "systemd's default".to_string(),
        ),
    };
    let swap_added_after_start = match started_unix {
        Some(start) => o
            .swap_area_mtimes
            .iter()
            .filter(|(_, m)| m.is_some_and(|m| m > start))
            .map(|(p, _)| p.clone())
            .collect(),
        None => Vec::new(),
    };
    Some(Oomd {
        pid: p.pid,
        started_unix,
        swap_used_limit_percent,
        swap_used_limit_from,
        config_files: o.config_files.clone(),
        swap_kill_units: o
            .swap_kill_units
            .iter()
            .map(|(unit, file)| OomdUnit {
                unit: unit.clone(),
                file: file.clone(),
            })
            .collect(),
        swap_added_after_start,
    })
}
