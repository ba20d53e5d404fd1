//! The capacity section: how much memory the machine effectively has with compression.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::sanitize::Sanitize;
use crate::sources::meminfo::MeminfoSample;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct Capacity {
    pub effective_now_bytes: Option<u64>,
    pub effective_at_pool_limit_bytes: Option<u64>,
    pub zswap_resident_max_bytes: Option<u64>,
    pub fast_tier_headroom_bytes: Option<u64>,
    /// The ratio used above; `ratio_assumed` when the pool is empty, or holds too little (under
    /// 1 MiB stored) for its ratio to say how pages compress, and 2.0 stands in.
    #[schemars(range(min = 0))]
    pub ratio: Option<f64>,
    pub ratio_assumed: bool,
}

/// Used for capacity figures when the pool is empty or too nearly empty to have a ratio.
pub const ASSUMED_RATIO: f64 = 2.0;

/// What the machine can hold: RAM plus swap less what the pools cost, now and at the pool limit.
pub(crate) fn derive(
    mem: Option<&MeminfoSample>,
    pool: Option<u64>,
    measured_ratio: Option<f64>,
    pool_limit: Option<u64>,
    zram_pool: Option<u64>,
) -> Capacity {
    let (r, assumed) = match measured_ratio {
        Some(r) if r.is_finite() && r > 0.0 => (Some(r), false),
        _ if pool.is_some() => (Some(ASSUMED_RATIO), true),
        _ => (None, false),
    };
    let Some(m) = mem else {
        return Capacity {
            effective_now_bytes: None,
            effective_at_pool_limit_bytes: None,
            zswap_resident_max_bytes: None,
            fast_tier_headroom_bytes: None,
            ratio: r,
            ratio_assumed: assumed,
        };
    };
    let base = m.mem_total.saturating_add(m.swap_total);
    // An unreadable zram device leaves the RAM it costs unknown, and so the effective figures.
    let effective_now = match (pool, zram_pool) {
        (Some(p), Some(z)) => Some(base.saturating_sub(p).saturating_sub(z)),
        _ => None,
    };
    let (resident_max, at_limit, headroom) = match (r, pool_limit, pool) {
        (Some(r), Some(limit), Some(p)) => {
            let resident = (limit as f64 * r).min(m.swap_total as f64);
            let cost = resident / r;
            let at_limit = zram_pool.map(|z| (base as f64 - cost - z as f64).max(0.0) as u64);
            let head = ((limit.saturating_sub(p)) as f64 * r).min(m.swap_free as f64);
            (Some(resident as u64), at_limit, Some(head as u64))
        }
        _ => (None, None, None),
    };
    Capacity {
        effective_now_bytes: effective_now,
        effective_at_pool_limit_bytes: at_limit,
        zswap_resident_max_bytes: resident_max,
        fast_tier_headroom_bytes: headroom,
        ratio: r,
        ratio_assumed: assumed,
    }
}
