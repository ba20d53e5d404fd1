//! The zswap section: pool and stored sizes, ratios, the pool limit and what could not be read.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::status::DEBUGFS;
use super::{Missing, missing_item, ratio, too_large};
use crate::error::Reason;
use crate::sanitize::Sanitize;
use crate::sources::Sample;
use crate::sources::crypto::Compressor;
use crate::sources::zswap::{DebugfsMap, parse_bool};

#[derive(Debug, Clone, PartialEq, Serialize, Sanitize, JsonSchema)]
pub struct Zswap {
    pub available: bool,
    pub enabled: Option<bool>,
    pub compressor: Option<String>,
    pub boot_compressor: Option<String>,
    pub max_pool_percent: Option<u64>,
    pub accept_threshold_percent: Option<u64>,
    pub shrinker_enabled: Option<bool>,
    pub pool_bytes: Option<u64>,
    #[schemars(extend("enum" = ["meminfo", "debugfs", null]))]
    pub pool_source: Option<String>,
    pub stored_bytes: Option<u64>,
    pub stored_pages: Option<u64>,
    pub saved_bytes: Option<i64>,
    #[schemars(range(min = 0))]
    pub compression_ratio: Option<f64>,
    #[schemars(range(min = 0))]
    pub compressor_ratio: Option<f64>,
    pub incompressible_bytes: Option<u64>,
    pub same_filled_bytes: Option<u64>,
    pub pool_limit_bytes: Option<u64>,
    pub accept_threshold_bytes: Option<u64>,
    pub pool_headroom_bytes: Option<u64>,
    #[schemars(range(min = 0))]
    pub pool_limit_used_percent: Option<f64>,
    pub parameters: BTreeMap<String, String>,
    pub boot_parameters: BTreeMap<String, String>,
    /// Every file of /sys/kernel/debug/zswap by its kernel name, raw (pool_total_size in bytes,
    /// *_pages in pages, the rest events); `null` when the directory could not be read.
    pub debugfs: Option<DebugfsMap<u64>>,
    /// Of the swap-ins over the interval, the share served from zswap: Δzswpin ÷ (Δzswpin +
    /// Δpswpin), 0–1; `null` without an interval, without those counters, or without swap-ins.
    #[schemars(range(min = 0, max = 1))]
    pub swapin_hit_ratio: Option<f64>,
    /// The stores over the interval: accepted by zswap against refused or bypassed; `null`
    /// without an interval.
    pub stores: Option<super::cost::StoreAcceptance>,
    pub unavailable: Vec<Missing>,
    /// Compressors registered with the crypto API (`/proc/crypto`), for the diagnostics (not in
    /// the JSON); `None` when it could not be read.
    #[serde(skip)]
    pub registered_compressors: Option<Vec<Compressor>>,
}

impl Zswap {
    /// The kernel has no parameter `name` (the parameters were read and it is not among them:
    /// `shrinker_enabled` before 6.8, `zpool` from 6.18), as against one that could not be read.
    pub(crate) fn lacks(&self, name: &str) -> bool {
        !self.parameters.is_empty() && !self.parameters.contains_key(name)
    }

    /// zswap's allocator where the kernel offers a choice (the `zpool` parameter: zbud, z3fold,
    /// zsmalloc); `None` where it has only zsmalloc and no parameter.
    pub(crate) fn allocator(&self) -> Option<&str> {
        self.parameters.get("zpool").map(String::as_str)
    }

    /// Why zswap's debugfs counters could not be read, when zswap is there and they could not.
    pub(crate) fn debugfs_reason(&self) -> Option<&Reason> {
        self.unavailable
            .iter()
            .find(|m| m.path.as_deref() == Some(DEBUGFS))
            .map(|m| &m.reason)
    }

    /// Derive the zswap section from one sample.
    pub(crate) fn derive(curr: &Sample) -> Zswap {
        let ps = curr.host.page_size.bytes;
        let mem = curr.meminfo.as_ref().ok();
        let params = curr.zswap_params.as_ref().ok();
        let debugfs = curr.zswap_debugfs.as_ref().ok();
        let dbg = |k: &str| debugfs.and_then(|d| d.values.get(k).copied());
        let param = |k: &str| params.and_then(|p| p.values.get(k));
        let param_u64 = |k: &str| param(k).and_then(|v| v.trim().parse::<u64>().ok());

        let (pool_bytes, pool_source) = match (mem.and_then(|m| m.zswap), dbg("pool_total_size")) {
            (Some(p), _) => (Some(p), Some("meminfo")),
            (None, Some(p)) => (Some(p), Some("debugfs")),
            (None, None) => (None, None),
        };
        let stored_pages = dbg("stored_pages").or_else(|| mem?.zswapped.map(|z| z / ps));
        let stored_bytes = mem
            .and_then(|m| m.zswapped)
            .or_else(|| stored_pages.map(|p| p.saturating_mul(ps)));
        let compression_ratio = ratio(stored_bytes, pool_bytes);
        let same = dbg("same_filled_pages");
        let incompressible = dbg("stored_incompressible_pages");
        let compressor_ratio =
            compressor_ratio_opt(stored_pages, pool_bytes, same, incompressible, ps);
        let max_pct = param_u64("max_pool_percent");
        let accept_pct = param_u64("accept_threshold_percent");
        let mut unavailable = Vec::new();
        // Pages × percent / 100, in whole pages; a product past 2^64 is not a real limit.
        let mut pct_of = |bytes: u64, pct: u64, item: &str, param: &str| {
            let v = (bytes / ps)
                .checked_mul(pct)
                .and_then(|p| (p / 100).checked_mul(ps));
            if v.is_none() {
                unavailable.push(too_large(item, &format!("{param} {pct}%")));
            }
            v
        };
        let pool_limit = match (mem, max_pct) {
            (Some(m), Some(pct)) => pct_of(m.mem_total, pct, "pool limit", "max_pool_percent"),
            _ => None,
        };
        let accept_bytes = match (pool_limit, accept_pct) {
            // zswap_accept_thr_pages(): max pages × percent / 100, in whole pages.
            (Some(l), Some(a)) => pct_of(l, a, "accept threshold", "accept_threshold_percent"),
            _ => None,
        };

        let available = curr.zswap_params.is_ok();
        if let Err(e) = &curr.zswap_params {
            unavailable.push(missing_item(&curr.root, "zswap", e));
        }
        if available {
            if let Err(e) = &curr.zswap_debugfs {
                unavailable.push(Missing {
                    item: "debugfs".into(),
                    path: Some(DEBUGFS.into()),
                    holds: Some("writeback, rejects, pool limit hits, incompressible pages".into()),
                    reason: e.reason.clone(),
                });
            }
            if mem.is_some() && mem.is_some_and(|m| m.zswap.is_none()) {
                unavailable.push(Missing {
                    item: "meminfo Zswap/Zswapped".into(),
                    path: None,
                    holds: None,
                    reason: Reason::absent("not in this kernel (the lines appeared in 5.19)"),
                });
            }
        }
        if let Ok(d) = &curr.zswap_debugfs {
            for e in &d.errors {
                unavailable.push(missing_item(&curr.root, "debugfs file", e));
            }
        }
        if let Ok(p) = &curr.zswap_params {
            for e in &p.errors {
                unavailable.push(missing_item(&curr.root, "parameter", e));
            }
        }
        let boot_parameters = curr.boot_params.as_ref().clone().unwrap_or_default();
        Zswap {
            available,
            enabled: param("enabled").and_then(|v| parse_bool(v)),
            compressor: param("compressor").cloned(),
            boot_compressor: boot_parameters.get("zswap.compressor").cloned(),
            max_pool_percent: max_pct,
            accept_threshold_percent: accept_pct,
            shrinker_enabled: param("shrinker_enabled").and_then(|v| parse_bool(v)),
            pool_bytes,
            pool_source: pool_source.map(str::to_string),
            stored_bytes,
            stored_pages,
            saved_bytes: match (stored_bytes, pool_bytes) {
                (Some(s), Some(p)) => i64::try_from(i128::from(s) - i128::from(p)).ok(),
                _ => None,
            },
            compression_ratio,
            compressor_ratio,
            incompressible_bytes: incompressible.map(|p| p.saturating_mul(ps)),
            same_filled_bytes: same.map(|p| p.saturating_mul(ps)),
            pool_limit_bytes: pool_limit,
            accept_threshold_bytes: accept_bytes,
            pool_headroom_bytes: match (pool_limit, pool_bytes) {
                (Some(l), Some(p)) => Some(l.saturating_sub(p)),
                _ => None,
            },
            pool_limit_used_percent: match (pool_limit, pool_bytes) {
                (Some(l), Some(p)) if l > 0 => Some(p as f64 * 100.0 / l as f64),
                _ => None,
            },
            parameters: params.map(|p| p.values.clone()).unwrap_or_default(),
            boot_parameters,
            debugfs: debugfs.map(|d| d.values.clone()),
            // Over an interval: filled by `Snapshot::derive` from the rates.
            swapin_hit_ratio: None,
            stores: None,
            unavailable,
            registered_compressors: curr.crypto.as_ref().as_ref().ok().cloned(),
        }
    }
}

/// The compressor's own ratio: same-filled pages (≤ 6.11, no pool bytes) and incompressible
/// pages (6.18+, stored raw at a page each) taken out. `None` when neither count is known.
fn compressor_ratio_opt(
    stored_pages: Option<u64>,
    pool: Option<u64>,
    same: Option<u64>,
    incompressible: Option<u64>,
    ps: u64,
) -> Option<f64> {
    if same.is_none() && incompressible.is_none() {
        return None;
    }
    let inc = incompressible.unwrap_or(0);
    let pages = stored_pages?.checked_sub(same.unwrap_or(0).saturating_add(inc))?;
    let den = pool?.checked_sub(inc.saturating_mul(ps))?;
    ratio(Some(pages.saturating_mul(ps)), Some(den))
}

/// Before 5.19 (no meminfo Zswap) and without debugfs: zsmalloc pages minus zram's, valid only
/// when zswap's allocator is zsmalloc (vmstat nr_zspages counts every zsmalloc pool,
/// mm/zsmalloc.c; the `zpool` parameter names zswap's allocator, always zsmalloc from 6.18).
pub(crate) fn fallback_pool(curr: &Sample, zram_pool: Option<u64>, ps: u64) -> Option<u64> {
    let params = curr.zswap_params.as_ref().ok()?;
    let zpool = params.values.get("zpool").map(String::as_str);
    if !matches!(zpool, Some("zsmalloc")) {
        return None;
    }
    let zspages = curr.vmstat.as_ref().ok()?.nr_zspages?;
    Some(zspages.saturating_mul(ps).saturating_sub(zram_pool?))
}

/// Below this much stored, a zswap pool's own first pages (the allocator's) outweigh what it
/// holds: 4 KiB stored in an 8 KiB pool is "0.50:1", which says nothing of how pages compress.
pub(crate) const RATIO_MIN_STORED: u64 = 1 << 20;

/// A pool's compression ratio (stored ÷ pool) where it says how pages compress, else why not:
/// nothing stored, or too little (under [`RATIO_MIN_STORED`]) to tell. The one rule every
/// output, finding and derived figure follows (the presentation layer's `zswap.ratio`, the
/// diagnostics, the capacity figures).
pub(crate) fn usable_ratio(ratio: Option<f64>, stored: Option<u64>) -> Result<f64, &'static str> {
    match (ratio, stored) {
        (_, Some(0)) => Err("nothing stored"),
        (_, Some(stored)) if stored < RATIO_MIN_STORED => Err("too little stored to tell"),
        (Some(r), _) if r.is_finite() => Ok(r),
        _ => Err("unknown"),
    }
}
