//! The dashboard's sampler. Every tick it re-reads what the dashboard shows and what moves:
//! meminfo, vmstat, swaps, PSI, the zswap parameters and debugfs counters, zram and uptime.
//! What nothing on screen shows and what hardly ever changes (the boot command line, the vm
//! tunables, `/proc/crypto`, the block devices under swap areas, host name and kernel) comes
//! from a full [`sources::collect`] taken at start and again every [`FULL_EVERY`]. Each file is
//! read at most once per tick, and most ticks read about half of what a full sample reads.
//! zram devices that are not set up are looked at only with the full samples.

use std::time::Duration;

use crate::root::Root;
use crate::sources::{self, Sample, host, meminfo, psi, swaps, vmstat, zram, zswap};
use crate::sys;

/// How often the sources nothing on screen shows are read again.
pub const FULL_EVERY: Duration = Duration::from_secs(60);

#[derive(Debug)]
pub struct Sampler {
    root: Root,
    /// The last full sample: the slow-moving sources come from it.
    base: Option<Sample>,
}

impl Sampler {
    pub fn new(root: Root) -> Sampler {
        Sampler { root, base: None }
    }

    /// Read one sample.
    pub fn sample(&mut self) -> Sample {
        let now = sys::monotonic_ns();
        let every = u64::try_from(FULL_EVERY.as_nanos()).unwrap_or(u64::MAX);
        match &self.base {
            Some(b) if now.saturating_sub(b.monotonic_ns) < every => quick(&self.root, b),
            _ => {
                let s = sources::collect(&self.root);
                self.base = Some(s.clone());
                s
            }
        }
    }
}

/// The sources that move, read now; everything else as in `base`. Mirrors [`sources::collect`]
/// for the sources it reads (the debugfs read depends on the parameters, as there).
pub fn quick(root: &Root, base: &Sample) -> Sample {
    let monotonic_ns = sys::monotonic_ns();
    let unix_ms = sys::unix_ms();
    let zswap_params = zswap::read_params(root);
    let (present, enabled) = match &zswap_params {
        Ok(p) => (
            true,
            p.values
                .get("enabled")
                .and_then(|v| zswap::parse_bool(v))
                .unwrap_or(false),
        ),
        Err(_) => (false, false),
    };
    let h = host::read(root);
    let mut s = base.clone();
    s.monotonic_ns = monotonic_ns;
    s.unix_ms = unix_ms;
    s.host.uptime_seconds = h.uptime_seconds;
    s.host.privileged = h.privileged;
    s.meminfo = meminfo::read(root);
    s.vmstat = vmstat::read(root);
    s.swaps = swaps::read(root);
    s.psi = psi::read(root);
    s.zswap_debugfs = zswap::read_debugfs(root, present, enabled);
    s.zswap_params = zswap_params;
    // zram devices that hold nothing (not initialised) have nothing to show each tick; they are
    // looked at again with the next full sample.
    if base.zram.iter().any(in_use) {
        s.zram = zram::read_all(root);
    }
    s
}

/// Whether a zram device is set up (or might be: unknown counts as yes).
fn in_use(z: &zram::ZramSample) -> bool {
    match (&z.initstate, &z.disksize) {
        (Ok(init), _) => *init != 0,
        (Err(_), Ok(size)) => *size > 0,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a tree that does not change, the quick sample is the full one.
    #[test]
    fn quick_matches_a_full_sample() {
        let dirs = std::fs::read_dir("tests/fixtures").unwrap();
        let mut n = 0;
        for d in dirs {
            let path = d.unwrap().path();
            if !path.join("proc").is_dir() {
                continue;
            }
            let root = Root::at(&path);
            let full = sources::collect(&root);
            let mut q = quick(&root, &full);
            q.monotonic_ns = full.monotonic_ns;
            q.unix_ms = full.unix_ms;
            assert_eq!(q, full, "{}", path.display());
            n += 1;
        }
        assert!(n >= 5);
    }

    #[test]
    fn a_full_sample_first_then_quick_ones() {
        let mut s = Sampler::new(Root::at("tests/fixtures/linux-6.18-loaded"));
        let a = s.sample();
        let b = s.sample();
        assert!(b.monotonic_ns >= a.monotonic_ns);
        assert_eq!(a.meminfo, b.meminfo);
        assert_eq!(a.tunables, b.tunables);
    }
}
