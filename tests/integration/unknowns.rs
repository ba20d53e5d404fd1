//! Values no kernel prints (sums past 2^64 bytes, a missing line, NaN) are shown as unknown with
//! their reason, never as a wrapped number or a 0.

use crate::common;

use std::fs;

use zswaptop::model::Snapshot;
use zswaptop::report::text::{self, Style};
use zswaptop::root::Root;
use zswaptop::sources::Extras;
use zswaptop::sources::sampler::Sampler;

/// A copy of `fixture` changed by `edit`, its snapshot and its text report.
fn edited(fixture: &str, edit: impl FnOnce(&std::path::Path)) -> (Snapshot, String) {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir(fixture), tmp.path());
    edit(tmp.path());
    let extras = Extras {
        smaps: false,
        top_processes: Some(5),
        cgroups: false,
        settings: false,
    };
    let mut source = Sampler::full(Root::at(tmp.path()));
    let snap = zswaptop::pipeline::take(&mut source, None, extras, &Default::default());
    let mut out = Vec::new();
    text::write(&snap, &mut out, Style { color: false }).unwrap();
    (snap, String::from_utf8(out).unwrap())
}

fn replace(path: &std::path::Path, from: &str, to: &str) {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from:?} not in {}", path.display());
    fs::write(path, text.replacen(from, to, 1)).unwrap();
}

fn said(snap: &Snapshot, item: &str) -> String {
    let found = zswaptop::display::unavailable(snap)
        .into_iter()
        .find(|m| m.label().contains(item));
    found.map(|m| m.reason.text()).unwrap_or_default()
}

#[test]
fn a_zram_pool_of_2_pow_64_is_unknown_not_wrapped_into_the_hidden_figure() {
    let zram_tree = |t: &std::path::Path, mem_used: u64| {
        common::copy_dir(
            &common::fixture_dir("linux-6.18-zram/sys/block/zram0"),
            &t.join("sys/block/zram0"),
        );
        fs::write(
            t.join("sys/block/zram0/mm_stat"),
            format!("4096 4096 {mem_used} 0 4096 0 0 0 0\n"),
        )
        .unwrap();
    };
    // Two devices of 2^63: the sum is past 2^64.
    let (snap, text) = edited("linux-6.18-loaded", |t| {
        zram_tree(t, 1 << 63);
        common::copy_dir(&t.join("sys/block/zram0"), &t.join("sys/block/zram1"));
    });
    assert_eq!(snap.memory.hidden_in_used_bytes, None);
    assert!(said(&snap, "zram pool").contains("2^64"), "{text}");
    assert!(text.contains("— — of it is compressed swap"), "{text}");
    // One device of 2^64 - 1: a pool larger than the RAM it lives in.
    let (snap, text) = edited("linux-6.18-loaded", |t| zram_tree(t, u64::MAX));
    assert_eq!(snap.memory.hidden_in_used_bytes, None);
    assert_eq!(snap.memory.breakdown.unwrap().zram_pool, None);
    assert!(
        said(&snap, "zram pool").contains("more than MemTotal"),
        "{text}"
    );
    assert!(text.contains("— — of it is compressed swap"), "{text}");
}

#[test]
fn a_pool_percent_past_2_pow_64_bytes_is_unknown() {
    let (snap, text) = edited("linux-6.18-loaded", |t| {
        fs::write(
            t.join("sys/module/zswap/parameters/max_pool_percent"),
            format!("{}\n", u64::MAX),
        )
        .unwrap();
    });
    assert_eq!(snap.zswap.pool_limit_bytes, None);
    assert!(
        said(&snap, "pool limit").contains("max_pool_percent"),
        "{text}"
    );
}

#[test]
fn no_shmem_line_is_unknown_not_0() {
    let (snap, text) = edited("linux-6.18-loaded", |t| {
        replace(&t.join("proc/meminfo"), "Shmem:", "Shmxx:");
    });
    let b = snap.memory.breakdown.unwrap();
    assert_eq!(b.shmem, None);
    assert!(said(&snap, "Shmem").contains("no Shmem line"), "{text}");
    let line = text.lines().find(|l| l.contains("shmem/tmpfs")).unwrap();
    assert!(line.contains('—') && !line.contains(" 0 B"), "{line}");
}

#[test]
fn an_overflowing_hugetlb_product_is_unknown_not_0() {
    let (snap, text) = edited("linux-6.18-loaded", |t| {
        let m = t.join("proc/meminfo");
        replace(&m, "Hugetlb:               0 kB\n", "");
        replace(
            &m,
            "HugePages_Total:       0",
            &format!("HugePages_Total:       {}", u64::MAX / 2),
        );
    });
    assert_eq!(snap.memory.breakdown.unwrap().hugetlb, None);
    assert!(said(&snap, "hugetlb").contains("2^64"), "{text}");
}

#[test]
fn psi_nan_and_negative_are_not_printed() {
    for bad in ["NaN", "inf", "-5.00"] {
        let (snap, text) = edited("linux-6.18-loaded", |t| {
            let psi = format!(
                "some avg10={bad} avg60=0.19 avg300=0.13 total=1\n\
                 full avg10=0.00 avg60=0.19 avg300=0.13 total=1\n"
            );
            fs::write(t.join("proc/pressure/memory"), psi).unwrap();
        });
        assert_eq!(snap.psi, None, "{bad}");
        assert!(
            said(&snap, "pressure").contains("not a percentage"),
            "{bad}: {text}"
        );
        for shown in ["NaN%", "inf%", "-5.00%"] {
            assert!(!text.contains(shown), "{bad}: {text}");
        }
    }
}

#[test]
fn an_unreadable_proc_is_not_0_of_0() {
    let (snap, text) = edited("empty-root", |t| {
        fs::remove_dir_all(t.join("proc")).unwrap();
    });
    // In JSON the counts are unknown (null), never 0.
    let j = serde_json::to_value(&snap).unwrap();
    for count in ["scanned", "with_swap", "total_swap_bytes"] {
        assert!(
            j["processes"][count].is_null(),
            "{count}: {}",
            j["processes"]
        );
    }
    assert!(
        j["processes"]["unreadable"].is_string(),
        "{}",
        j["processes"]
    );
    let p = snap.processes.unwrap();
    assert!(
        p.unreadable
            .unwrap()
            .text()
            .contains("/proc can't be listed")
    );
    assert!(!text.contains("0 of 0 have swap"), "{text}");
    assert!(text.contains("no process could be read"), "{text}");
}

#[test]
fn io_failure_counts_near_2_pow_64_do_not_overflow() {
    let (snap, text) = edited("linux-6.18-zram", |t| {
        fs::write(
            t.join("sys/block/zram0/io_stat"),
            format!("{} 1 0 0\n", u64::MAX),
        )
        .unwrap();
    });
    assert!(snap.zram[0].io_failed());
    assert!(text.contains("FAILED reads"), "{text}");
}
