//! One function per rule. Each returns a finding only when the kernel's own files prove it.
//! The rules are grouped by what they look at: the swap setup and the VM's tunables
//! ([`swap`]), zram ([`zram`]), zswap's pool ([`zswap`]); what they share is here, the fix
//! commands' building blocks are [`super::fix`].

mod cgroup;
mod latency;
mod oomd;
mod swap;
mod zram;
mod zswap;

pub(crate) use cgroup::*;
pub(crate) use latency::*;
pub(crate) use oomd::*;
pub(crate) use swap::*;
pub(crate) use zram::*;
pub(crate) use zswap::*;

use super::fix::{cmdline, fstab_field, plain_name, sh, sys_block, sysctl_fix, zswap_param_fix};
use super::thresholds as t;
use super::{Ctx, compressors, tunables};
use crate::display as f;
use crate::error::Reason;
use crate::model::{ASSUMED_RATIO, Finding, Severity, SwapDevice};

const GIB: u64 = 1 << 30;

fn finding(
    id: &str,
    severity: Severity,
    summary: impl Into<String>,
    evidence: Vec<String>,
    fix: impl Into<String>,
    why: &str,
) -> Finding {
    Finding {
        id: id.to_string(),
        severity,
        summary: summary.into(),
        evidence,
        fix: fix.into(),
        why: why.to_string(),
    }
}

fn dev_desc(d: &SwapDevice) -> String {
    let kind = if d.is_zram { "zram" } else { d.kind.as_str() };
    format!(
        "{} ({kind}, priority {}, {} used of {})",
        d.path,
        d.priority,
        f::bytes_raw(d.used_bytes),
        f::bytes_raw(d.size_bytes)
    )
}

fn ceil_gib(bytes: f64) -> u64 {
    ((bytes / GIB as f64).ceil() as u64).max(1)
}

fn zswap_line(c: &Ctx) -> String {
    let z = &c.snap.zswap;
    format!(
        "zswap enabled=Y (compressor {}, max_pool_percent {}), pool {}",
        z.compressor.as_deref().unwrap_or(f::MISSING),
        f::num(z.max_pool_percent),
        f::bytes(z.pool_bytes)
    )
}
