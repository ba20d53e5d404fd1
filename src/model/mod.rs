//! The model: a pure derivation from raw samples (no I/O, no terminal).
//!
//! `Snapshot::derive(curr, prev)` turns one `Sample` (plus, for rates, the one before it) into every
//! figure zswaptop shows, one file per section: [`zswap`], [`swap`], [`zram`], [`memory`],
//! [`capacity`], [`rates`], [`status`] and [`owners`]. The serde layout of `Snapshot` *is* the
//! `--once --json` schema (docs/json-schema.md).

pub mod capacity;
pub mod cgroup_events;
pub mod cost;
pub mod faults;
pub mod findings;
pub mod forecast;
pub mod memory;
pub mod metrics;
pub mod oomd;
pub mod owners;
pub mod rates;
pub mod status;
pub mod swap;
pub mod swapin;
pub mod zram;
pub mod zswap;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use crate::error::{Reason, Unavailable};
use crate::sanitize::Sanitize;
use crate::sources::Sample;
use crate::sources::host::PageSize;
pub use capacity::{ASSUMED_RATIO, Capacity};
pub use findings::{Finding, Severity, TunableAdvice};
pub use memory::{Breakdown, Memory};
pub use rates::Rates;
pub use status::{Host, Psi, SourceStatus, Tool};
pub use swap::{AreaSplit, DeviceIo, PriorityGroup, Swap, SwapDevice};
pub use zram::Zram;
pub use zswap::Zswap;

/// 2: `timestamp` and `interval_seconds`; every byte field ends in `_bytes` (docs/json-schema.md).
pub const SCHEMA_VERSION: u32 = 2;

/// Serialise only: the JSON gives reasons as text (docs/json-schema.md); record `Sample`s to
/// replay, not snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct Snapshot {
    #[schemars(extend("const" = SCHEMA_VERSION))]
    pub schema_version: u32,
    /// When the (last) sample was taken: RFC 3339, UTC, milliseconds.
    #[schemars(extend("format" = "date-time"), regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+Z$"))]
    pub timestamp: String,
    /// The seconds between the two samples the rates cover; `null` for one sample.
    #[schemars(extend("exclusiveMinimum" = 0))]
    pub interval_seconds: Option<f64>,
    pub tool: Tool,
    pub host: Host,
    pub page_size: PageSize,
    pub memory: Memory,
    pub zswap: Zswap,
    pub swap: Swap,
    pub zram: Vec<Zram>,
    pub capacity: Capacity,
    /// When each store will be full at its fill rate over the window: the zswap pool against
    /// its limit, all swap, each swap area, each zram device (docs/forecast.md). From one sample
    /// every forecast says there are too few; `--once -i N` forecasts over its interval, the
    /// dashboard, `--watch`, `serve` and replay over the last 5 minutes of samples.
    pub forecast: forecast::Forecasts,
    pub psi: Option<Psi>,
    /// The vmstat counters zswaptop uses (pages since boot; `null` where this kernel lacks one).
    pub vmstat: crate::sources::vmstat::VmstatSample,
    /// Per-second rates over the interval since the previous sample; `null` on the first sample.
    pub rates: Option<Rates>,
    pub tunables: BTreeMap<String, Option<String>>,
    /// The rules' findings: empty from `derive`, filled by the pipeline's rules step
    /// (`crate::diagnostics::judge`).
    #[schemars(
        description = "The diagnostics rules' findings, most severe first, then by id; empty when none."
    )]
    pub diagnostics: Vec<Finding>,
    /// Each tunable with its current value and the one suggested for this swap setup (filled
    /// by `crate::diagnostics::judge`, like `diagnostics`).
    #[schemars(
        description = "Each tunable of `tunables` shown, with the value suggested for this swap setup."
    )]
    pub tunables_advice: Vec<TunableAdvice>,
    pub sources: Vec<SourceStatus>,
    /// systemd-oomd where it runs (its swap limit and the units it kills on swap); `null` where
    /// no systemd-oomd process runs.
    pub oomd: Option<oomd::Oomd>,
    /// How long swap-ins waited over the interval, by tier (BPF programs: `sources::bpf`).
    pub swapin_latency: swapin::SwapinLatency,
    /// The same programs' counters since their load, by tier (none while they are not running):
    /// the exporter's histograms. Not in the JSON (its latency is `swapin_latency`'s).
    #[serde(skip)]
    #[schemars(skip)]
    pub swapin_totals: Vec<swapin::TierTotals>,
    /// As `swapin_totals`, of the store side (`swapin_latency.stores`).
    #[serde(skip)]
    #[schemars(skip)]
    pub store_totals: Vec<swapin::TierTotals>,
    /// Top processes by swap (`--top N`, or the processes view); `null` when not asked for.
    pub processes: Option<owners::Processes>,
    /// Memory, swap and zswap per cgroup (`--cgroups`, or the cgroups view): cgroup v2, or v1's
    /// memory controller without zswap; `null` when not asked for.
    pub cgroups: Option<owners::Cgroups>,
}

/// An item zswaptop could not show, and why. In JSON: `item` (its kernel path, or what it holds,
/// in parentheses), `reason` as text and `fix`, the command that gets it (see [`Reason`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Sanitize, JsonSchema)]
#[serde(into = "MissingJson")]
#[schemars(
    description = "A value zswaptop could not show: what (`item`: its kernel path, or what it holds, in parentheses), why (`reason`), and the one command that gets it (`fix`), or null."
)]
pub struct Missing {
    /// A short name: "debugfs", "mm_stat", "zswap".
    pub item: String,
    /// The file or directory as the kernel names it, where the item is one.
    pub path: Option<String>,
    /// What the item holds, said instead of the path.
    pub holds: Option<String>,
    pub reason: Reason,
}

impl Missing {
    /// The item with its path or what it holds: "mm_stat (/sys/block/zram0/mm_stat)".
    pub fn label(&self) -> String {
        match self.holds.as_ref().or(self.path.as_ref()) {
            Some(d) => format!("{} ({d})", self.item),
            None => self.item.clone(),
        }
    }
}

#[derive(Serialize, JsonSchema)]
struct MissingJson {
    item: String,
    reason: String,
    fix: Option<&'static str>,
}

impl From<Missing> for MissingJson {
    fn from(m: Missing) -> Self {
        MissingJson {
            item: m.label(),
            reason: m.reason.text(),
            fix: m.reason.fix(),
        }
    }
}

impl Snapshot {
    /// Derive every figure from `curr`; `prev` (an earlier sample of the same system) adds rates.
    /// `diagnostics` and `tunables_advice` stay empty: the rules run after the model
    /// (`crate::diagnostics::judge`, in `crate::pipeline`).
    pub fn derive(curr: &Sample, prev: Option<&Sample>) -> Snapshot {
        let ps = curr.host.page_size.bytes;
        let mem = curr.meminfo.as_ref().ok();
        let zram = zram::derive_all(curr, prev);
        // Sums past 2^64 bytes are not real memory: unknown (and said so), never wrapped.
        let mut mem_unavailable = Vec::new();
        let zram_pool = zram::pool_bytes(&zram, mem, &mut mem_unavailable);
        let in_zram = zram::in_swap_bytes(curr, &zram, &mut mem_unavailable);
        let zswap = Zswap::derive(curr);
        let memory = Memory::derive(
            mem,
            zswap
                .pool_bytes
                .or_else(|| zswap::fallback_pool(curr, zram_pool, ps)),
            zram_pool,
            curr.zoneinfo.as_ref().ok().and_then(|z| {
                z.pcp_free_pages.checked_mul(ps).or_else(|| {
                    mem_unavailable.push(too_large(
                        "per-CPU free lists",
                        "zoneinfo pagesets count × page size",
                    ));
                    None
                })
            }),
            curr.zoneinfo
                .as_ref()
                .ok()
                .map(|z| curr.monotonic_ns.saturating_sub(z.read_ns) / 1_000_000),
            mem_unavailable,
        );
        let swap = Swap::derive(
            curr,
            prev,
            zswap.available,
            zswap.stored_bytes,
            in_zram,
            &zram,
        );
        // A nearly empty pool's ratio (its allocator's first pages) says nothing of how pages
        // compress: the capacity figures take the assumed one instead, as every output does.
        let capacity = capacity::derive(
            mem,
            zswap.pool_bytes,
            zswap::usable_ratio(zswap.compression_ratio, zswap.stored_bytes).ok(),
            zswap.pool_limit_bytes,
            zram_pool,
        );
        let rates = prev.and_then(|p| rates::derive(p, curr));
        let mut zswap = zswap;
        if let Some(r) = &rates {
            zswap.swapin_hit_ratio = cost::swapin_hit_ratio(r);
            zswap.stores = Some(cost::store_acceptance(r, ps));
        }
        let processes = curr.processes.as_ref().map(|scan| {
            owners::processes(
                scan,
                curr.faults.as_ref(),
                &owners::SwapBasis {
                    zswapped: zswap.stored_bytes,
                    swap_used: swap.used_bytes,
                    compressed_ram: owners::compressed_ram(
                        zswap.available,
                        zswap.pool_bytes,
                        zram.iter().filter(|z| z.is_swap).map(|z| z.mem_used_bytes),
                    ),
                    zram_swap: zram.iter().any(|z| z.is_swap),
                },
            )
        });
        let cgroups = curr.cgroups.as_ref().map(|c| match c {
            Ok(list) => {
                let prev_list =
                    prev.and_then(|p| p.cgroups.as_ref()?.as_ref().ok().map(Vec::as_slice));
                // Over the times the two lists were read (a large tree is not read every tick).
                let dt = prev
                    .and_then(|p| curr.cgroups_read_ns()?.checked_sub(p.cgroups_read_ns()?))
                    .map(|ns| ns as f64 / 1e9)
                    .unwrap_or(0.0);
                let interval = (prev_list.is_some() && dt > 0.0).then_some(dt);
                owners::Cgroups::read(list, owners::cgroups(list, prev_list, dt, ps), interval)
            }
            Err(e) => owners::Cgroups::unavailable(e.reason.clone()),
        });

        let mut snap = Snapshot {
            schema_version: SCHEMA_VERSION,
            timestamp: timestamp(curr.unix_ms),
            interval_seconds: rates.as_ref().map(|r| r.interval_seconds),
            tool: Tool::this(),
            host: Host::derive(curr),
            page_size: curr.host.page_size.clone(),
            memory,
            zswap,
            swap,
            zram,
            capacity,
            forecast: forecast::Forecasts::default(),
            psi: Psi::derive(curr),
            vmstat: curr.vmstat.clone().unwrap_or_default(),
            rates,
            tunables: status::tunables(curr),
            diagnostics: Vec::new(),
            tunables_advice: Vec::new(),
            oomd: oomd::derive(curr),
            swapin_latency: swapin::SwapinLatency::derive(curr, prev),
            swapin_totals: swapin::totals(curr),
            store_totals: swapin::store_totals(curr),
            sources: status::source_statuses(curr),
            processes,
            cgroups,
        };
        // One sample: every store followed, each with too few points for a rate. A front end
        // with history replaces it (`crate::pipeline::Stream`).
        let mut one = forecast::Forecaster::default();
        one.push(curr.monotonic_ns as f64 / 1e9, &forecast::observe(&snap));
        snap.forecast = one.forecasts();
        snap
    }
}

/// A sum of byte counts: unknown when a term is, `Overflow` past 2^64 (no real memory is).
pub(crate) enum Sum {
    Known(u64),
    Unknown,
    Overflow,
}

impl Sum {
    pub(crate) fn known(self) -> Option<u64> {
        match self {
            Sum::Known(v) => Some(v),
            Sum::Unknown | Sum::Overflow => None,
        }
    }
}

pub(crate) fn checked_sum(terms: impl Iterator<Item = Option<u64>>) -> Sum {
    let mut total = 0u64;
    for t in terms {
        let Some(t) = t else { return Sum::Unknown };
        let Some(s) = total.checked_add(t) else {
            return Sum::Overflow;
        };
        total = s;
    }
    Sum::Known(total)
}

/// `item` is unknown because `what` adds or multiplies up to more than 2^64 bytes.
pub(crate) fn too_large(item: &str, what: &str) -> Missing {
    Missing {
        item: item.into(),
        path: None,
        holds: None,
        reason: Reason::Malformed {
            line: None,
            detail: format!("{what} gives more than 2^64 bytes"),
        },
    }
}

/// Milliseconds since the epoch as RFC 3339 in UTC, always with three decimals
/// (`2026-11-22T21:04:05.120Z`).
pub(crate) fn timestamp(unix_ms: u64) -> String {
    let ms = i64::try_from(unix_ms).unwrap_or(i64::MAX);
    let ts = jiff::Timestamp::from_millisecond(ms).unwrap_or(jiff::Timestamp::MAX);
    format!("{ts:.3}")
}

pub(crate) fn ratio(num: Option<u64>, den: Option<u64>) -> Option<f64> {
    match (num, den) {
        (Some(n), Some(d)) if d > 0 => Some(n as f64 / d as f64),
        _ => None,
    }
}

pub(crate) fn missing_item(root: &str, item: &str, e: &Unavailable) -> Missing {
    Missing {
        item: item.to_string(),
        path: Some(kernel_path(root, e.path())),
        holds: None,
        reason: e.reason.clone(),
    }
}

/// A path as the kernel names it: the `--root` prefix taken off.
fn kernel_path(root: &str, path: &str) -> String {
    if root == "/" {
        return path.to_string();
    }
    match std::path::Path::new(path).strip_prefix(root) {
        Ok(rel) => format!("/{}", rel.display()),
        Err(_) => path.to_string(),
    }
}
