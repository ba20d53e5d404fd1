//! zram devices added and removed 100 times through `/sys/class/zram-control` while the
//! dashboard's sampler and the full one (`serve`'s, `--once`'s) read them in this process: the
//! descriptors the process holds after each round are as many as before the first.
//!
//! The kernel hands a removed device's number to the next one added, so the names repeat; what
//! leaked before was the files of the device just removed, kept open until its number came back.
//! An anchor device with a disk size is set up first, so the dashboard's fast ticks read every
//! zram device (they skip zram while none is in use). Everything added is removed: at the end of
//! the phase, by the machine's teardown when the run is cut short.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use zswaptop::root::Root;
use zswaptop::sources::sampler::{SampleSource, Sampler};
use zswaptop::sources::{Extras, Sample};

use crate::kernel;
use crate::machine::{self, ZRAM_CONTROL};
use crate::rep;

const ROUNDS: usize = 100;
/// The lock every change of kernel state on a shared machine is made under.
const KERNEL_LOCK: &str = "/tmp/zswaptop-kernel.lock";

/// What the descriptors this process holds are open on.
fn fds() -> Vec<std::path::PathBuf> {
    fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| fs::read_link(e.path()).ok())
        .collect()
}

/// Descriptors this process holds.
fn fd_count() -> usize {
    fds().len()
}

/// Descriptors on a zram device's sysfs files.
fn zram_fds() -> usize {
    fds()
        .iter()
        .filter(|p| {
            p.starts_with("/sys/devices/virtual/block")
                && p.iter()
                    .any(|c| c.to_str().is_some_and(|c| c.starts_with("zram")))
        })
        .count()
}

/// The zram devices there are, by number.
fn zram_devices() -> Vec<u32> {
    let mut ids: Vec<u32> = fs::read_dir("/sys/block")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("zram")?.parse().ok())
        .collect();
    ids.sort_unstable();
    ids
}

/// The kernel lock, unless this process holds it already (run under `flock(1)`, whose
/// descriptor it inherited: taking it again on another descriptor would wait forever).
fn kernel_lock() -> Result<Option<fs::File>> {
    let held = fs::read_dir("/proc/self/fd")?
        .flatten()
        .filter_map(|e| fs::read_link(e.path()).ok())
        .any(|target| target == Path::new(KERNEL_LOCK));
    if held {
        return Ok(None);
    }
    let file = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(KERNEL_LOCK)
        .with_context(|| format!("opening {KERNEL_LOCK}"))?;
    let start = Instant::now();
    loop {
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(Some(file)),
            Err(rustix::io::Errno::WOULDBLOCK) if start.elapsed() < Duration::from_secs(300) => {
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => bail!("locking {KERNEL_LOCK}: {e}"),
        }
    }
}

pub fn run() -> Result<()> {
    rep().phase("churn — zram devices added and removed, descriptors flat");
    if !Path::new(ZRAM_CONTROL).join("hot_add").exists() {
        rep().skip(
            "descriptors flat over zram hot_add/hot_remove",
            "no /sys/class/zram-control (zram not loaded)",
        );
        return Ok(());
    }
    let lock = kernel_lock()?;
    let outcome = churn();
    let errors = machine::zram_remove_added();
    drop(lock);
    if !errors.is_empty() {
        bail!("removing the devices added: {}", errors.join("; "));
    }
    outcome
}

fn churn() -> Result<()> {
    let before_devices = zram_devices();
    let anchor = machine::zram_hot_add()?;
    kernel::write_str(format!("/sys/block/zram{anchor}/disksize"), "1M")?;
    let extras = Extras {
        smaps: false,
        top_processes: Some(5),
        cgroups: false,
        settings: false,
    };
    let mut dashboard = Sampler::new(Root::live());
    let mut full = Sampler::full(Root::live());
    let mut prev: (Option<Sample>, Option<Sample>) = (None, None);
    let mut tick = || -> [Vec<String>; 2] {
        let a = dashboard.next(prev.0.as_ref(), extras);
        let b = full.next(prev.1.as_ref(), extras);
        let names = |s: &Sample| s.zram.iter().map(|z| z.name.clone()).collect::<Vec<_>>();
        let seen = [names(&a), names(&b)];
        prev = (Some(a), Some(b));
        seen
    };
    tick();
    tick();
    let (at_start, zram_at_start) = (fd_count(), zram_fds());
    let (mut counts, mut most, mut unseen) = (Vec::new(), at_start, Vec::new());
    let t = Instant::now();
    for _ in 0..ROUNDS {
        let id = machine::zram_hot_add()?;
        let name = format!("zram{id}");
        let seen = tick();
        if !seen.iter().all(|s| s.contains(&name)) {
            unseen.push(name.clone());
        }
        most = most.max(fd_count());
        machine::zram_hot_remove(id)?;
        let seen = tick();
        if seen.iter().any(|s| s.contains(&name)) {
            bail!("{name} still listed after hot_remove");
        }
        counts.push((fd_count(), zram_fds()));
    }
    let took = t.elapsed();
    machine::zram_hot_remove(anchor)?;
    let all = counts.iter().map(|c| c.0);
    let (least, largest) = (all.clone().min().unwrap_or(0), all.max().unwrap_or(0));
    let zram_largest = counts.iter().map(|c| c.1).max().unwrap_or(0);
    let r = &mut *rep();
    r.note(&format!(
        "{ROUNDS} rounds in {:.1}s; anchor zram{anchor}; descriptors {at_start} before \
         ({zram_at_start} on zram files), at most {most} while a device lived; after each \
         round: {least}..{largest} ({zram_largest} at most on zram files)",
        took.as_secs_f64(),
    ));
    r.check(
        "both samplers read each device added",
        unseen.is_empty(),
        &format!("{} unread", unseen.len()),
        "0 unread",
    );
    r.check(
        "the devices' files were kept open while they lived",
        most > at_start,
        &most.to_string(),
        &format!("> {at_start}"),
    );
    r.check(
        "descriptors on zram files after each round as before the first",
        counts.iter().all(|c| c.1 == zram_at_start),
        &format!("max {zram_largest}"),
        &zram_at_start.to_string(),
    );
    // All of them: /proc/zoneinfo, which the dashboard reads only when due, is open after the
    // rounds whose last tick read it (one per sampler).
    r.check(
        "descriptors after each round as before, but files read when due",
        largest <= at_start + 2,
        &format!("max {largest}"),
        &format!("<= {}", at_start + 2),
    );
    let after_devices = zram_devices();
    r.check(
        "the zram devices are those there were before",
        after_devices == before_devices,
        &format!("{after_devices:?}"),
        &format!("{before_devices:?}"),
    );
    Ok(())
}
