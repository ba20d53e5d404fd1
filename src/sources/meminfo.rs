//! `/proc/meminfo`: kB values (and a few page counts), converted to bytes.
//!
//! One pass over the text checks every line and keeps the fields zswaptop uses in fixed slots
//! (read every tick: no map of the ~60 names, no strings allocated). `procfs_core::Meminfo`, which
//! builds such a map, is the tests' reference: on every captured file both give the same values.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;

/// The meminfo fields zswaptop uses, in bytes (`HugePages_Total` is a count). `None` = line absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MeminfoSample {
    pub mem_total: u64,
    pub mem_free: u64,
    pub mem_available: Option<u64>,
    pub buffers: u64,
    pub cached: u64,
    pub swap_cached: u64,
    pub anon_pages: Option<u64>,
    /// Active(anon), Inactive(anon) and Unevictable: the anon LRU, for the swap-cache split.
    #[serde(default)]
    pub active_anon: Option<u64>,
    #[serde(default)]
    pub inactive_anon: Option<u64>,
    #[serde(default)]
    pub unevictable: Option<u64>,
    pub shmem: Option<u64>,
    pub slab: u64,
    pub s_reclaimable: Option<u64>,
    pub s_unreclaim: Option<u64>,
    pub kernel_stack: Option<u64>,
    pub page_tables: Option<u64>,
    pub sec_page_tables: Option<u64>,
    pub vmalloc_used: u64,
    pub percpu: Option<u64>,
    pub hugetlb: Option<u64>,
    pub hugepages_total: Option<u64>,
    pub hugepage_size: Option<u64>,
    pub swap_total: u64,
    pub swap_free: u64,
    pub zswap: Option<u64>,
    pub zswapped: Option<u64>,
    pub anon_huge_pages: Option<u64>,
    pub dirty: u64,
    pub writeback: u64,
}

/// Lines every kernel prints (and procfs requires); a file without one is taken as truncated.
const REQUIRED: &[&str] = &[
    "MemTotal",
    "MemFree",
    "Buffers",
    "Cached",
    "SwapCached",
    "Active",
    "Inactive",
    "SwapTotal",
    "SwapFree",
    "Dirty",
    "Writeback",
    "Mapped",
    "Slab",
    "Committed_AS",
    "VmallocTotal",
    "VmallocUsed",
    "VmallocChunk",
];

pub(crate) fn read(root: &Root) -> Reading<MeminfoSample> {
    let path = root.proc("meminfo");
    let text = root.read_text(
        &path,
        &Reason::absent("no /proc/meminfo (is /proc mounted?)"),
    )?;
    parse(&path, &text)
}

/// Parse the text of a meminfo file read from `path`: one pass that checks every line (so the
/// user is told where a broken file is broken) and keeps the values zswaptop uses in fixed
/// slots (no map of names, nothing allocated).
pub fn parse(path: &Path, text: &str) -> Reading<MeminfoSample> {
    let mut values = [None::<u64>; NAMES.len()];
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let lineno = Some(i + 1);
        let Some((key, rest)) = line.split_once(':') else {
            return Err(Unavailable::malformed(
                path,
                lineno,
                "no ':' after the name",
            ));
        };
        let mut words = rest.split_ascii_whitespace();
        let value = words.next().unwrap_or("");
        let Ok(n) = value.parse::<u64>() else {
            return Err(Unavailable::malformed(
                path,
                lineno,
                format!("{key}: expected a number, got {value:?}"),
            ));
        };
        let bytes = match words.next() {
            None => n,
            Some("kB") => n.checked_mul(1024).ok_or_else(|| {
                Unavailable::malformed(
                    path,
                    lineno,
                    format!("{key}: {n} kB is more than 2^64 bytes"),
                )
            })?,
            Some(unit) => {
                return Err(Unavailable::malformed(
                    path,
                    lineno,
                    format!("{key}: unknown unit {unit:?}"),
                ));
            }
        };
        if words.next().is_some() {
            return Err(Unavailable::malformed(
                path,
                lineno,
                "extra words after the value",
            ));
        }
        if let Some(slot) = index(key) {
            values[slot] = Some(bytes);
        }
    }
    let get = |name: &str| index(name).and_then(|i| values[i]);
    if let Some(missing) = REQUIRED.iter().find(|k| get(k).is_none()) {
        return Err(Unavailable::malformed(
            path,
            None,
            format!("no {missing} line (file truncated?)"),
        ));
    }
    // Present: REQUIRED lists them all.
    let need = |name: &str| get(name).unwrap_or_default();
    Ok(MeminfoSample {
        mem_total: need("MemTotal"),
        mem_free: need("MemFree"),
        mem_available: get("MemAvailable"),
        buffers: need("Buffers"),
        cached: need("Cached"),
        swap_cached: need("SwapCached"),
        anon_pages: get("AnonPages"),
        active_anon: get("Active(anon)"),
        inactive_anon: get("Inactive(anon)"),
        unevictable: get("Unevictable"),
        shmem: get("Shmem"),
        slab: need("Slab"),
        s_reclaimable: get("SReclaimable"),
        s_unreclaim: get("SUnreclaim"),
        kernel_stack: get("KernelStack"),
        page_tables: get("PageTables"),
        sec_page_tables: get("SecPageTables"),
        vmalloc_used: need("VmallocUsed"),
        percpu: get("Percpu"),
        hugetlb: get("Hugetlb"),
        hugepages_total: get("HugePages_Total"),
        hugepage_size: get("Hugepagesize"),
        swap_total: need("SwapTotal"),
        swap_free: need("SwapFree"),
        zswap: get("Zswap"),
        zswapped: get("Zswapped"),
        anon_huge_pages: get("AnonHugePages"),
        dirty: need("Dirty"),
        writeback: need("Writeback"),
    })
}

/// The lines kept: the fields of [`MeminfoSample`] and the [`REQUIRED`] ones.
const NAMES: [&str; 35] = [
    "MemTotal",
    "MemFree",
    "MemAvailable",
    "Buffers",
    "Cached",
    "SwapCached",
    "AnonPages",
    "Active(anon)",
    "Inactive(anon)",
    "Unevictable",
    "Shmem",
    "Slab",
    "SReclaimable",
    "SUnreclaim",
    "KernelStack",
    "PageTables",
    "SecPageTables",
    "VmallocUsed",
    "Percpu",
    "Hugetlb",
    "HugePages_Total",
    "Hugepagesize",
    "SwapTotal",
    "SwapFree",
    "Zswap",
    "Zswapped",
    "AnonHugePages",
    "Dirty",
    "Writeback",
    "Active",
    "Inactive",
    "Mapped",
    "Committed_AS",
    "VmallocTotal",
    "VmallocChunk",
];

/// Where `name` is in [`NAMES`]: a `match`, which the compiler turns into a few comparisons.
fn index(name: &str) -> Option<usize> {
    Some(match name {
        "MemTotal" => 0,
        "MemFree" => 1,
        "MemAvailable" => 2,
        "Buffers" => 3,
        "Cached" => 4,
        "SwapCached" => 5,
        "AnonPages" => 6,
        "Active(anon)" => 7,
        "Inactive(anon)" => 8,
        "Unevictable" => 9,
        "Shmem" => 10,
        "Slab" => 11,
        "SReclaimable" => 12,
        "SUnreclaim" => 13,
        "KernelStack" => 14,
        "PageTables" => 15,
        "SecPageTables" => 16,
        "VmallocUsed" => 17,
        "Percpu" => 18,
        "Hugetlb" => 19,
        "HugePages_Total" => 20,
        "Hugepagesize" => 21,
        "SwapTotal" => 22,
        "SwapFree" => 23,
        "Zswap" => 24,
        "Zswapped" => 25,
        "AnonHugePages" => 26,
        "Dirty" => 27,
        "Writeback" => 28,
        "Active" => 29,
        "Inactive" => 30,
        "Mapped" => 31,
        "Committed_AS" => 32,
        "VmallocTotal" => 33,
        "VmallocChunk" => 34,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> String {
        let p = format!(
            "{}/tests/fixtures/{name}/proc/meminfo",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read_to_string(p).unwrap()
    }

    #[test]
    fn loaded_fixture_in_bytes() {
        let m = parse(Path::new("meminfo"), &fixture("linux-6.18-loaded")).unwrap();
        assert_eq!(m.mem_total, 24_682_416 * 1024);
        assert_eq!(m.zswap, Some(510_692 * 1024));
        assert_eq!(m.zswapped, Some(997_660 * 1024));
        assert_eq!(m.hugepages_total, Some(0));
    }

    #[test]
    fn the_names_are_where_index_says() {
        for (i, n) in NAMES.iter().enumerate() {
            assert_eq!(index(n), Some(i), "{n}");
        }
        for r in REQUIRED {
            assert!(index(r).is_some(), "{r}");
        }
    }

    /// procfs's parser, as the reference: every captured meminfo gives the same values.
    #[test]
    fn every_fixture_reads_as_procfs_reads_it() {
        use procfs_core::FromRead;
        let mut n = 0;
        for tree in crate::root::fixture_trees() {
            let Ok(text) = std::fs::read_to_string(tree.join("proc/meminfo")) else {
                continue;
            };
            let Ok(m) = procfs_core::Meminfo::from_read(text.as_bytes()) else {
                assert!(parse(Path::new("m"), &text).is_err(), "{}", tree.display());
                continue;
            };
            let ours = parse(Path::new("m"), &text).unwrap();
            let theirs = MeminfoSample {
                mem_total: m.mem_total,
                mem_free: m.mem_free,
                mem_available: m.mem_available,
                buffers: m.buffers,
                cached: m.cached,
                swap_cached: m.swap_cached,
                anon_pages: m.anon_pages,
                active_anon: m.active_anon,
                inactive_anon: m.inactive_anon,
                unevictable: m.unevictable,
                shmem: m.shmem,
                slab: m.slab,
                s_reclaimable: m.s_reclaimable,
                s_unreclaim: m.s_unreclaim,
                kernel_stack: m.kernel_stack,
                page_tables: m.page_tables,
                sec_page_tables: m.secondary_page_tables,
                vmalloc_used: m.vmalloc_used,
                percpu: m.per_cpu,
                hugetlb: m.hugetlb,
                hugepages_total: m.hugepages_total,
                hugepage_size: m.hugepagesize,
                swap_total: m.swap_total,
                swap_free: m.swap_free,
                zswap: m.z_swap,
                zswapped: m.z_swapped,
                anon_huge_pages: m.anon_hugepages,
                dirty: m.dirty,
                writeback: m.writeback,
            };
            assert_eq!(ours, theirs, "{}", tree.display());
            n += 1;
        }
        assert!(n >= 5, "{n} fixtures compared");
    }

    #[test]
    fn bad_line_is_located() {
        let text = fixture("linux-6.18-idle").replacen("MemFree:", "MemFree ", 1);
        let err = parse(Path::new("/proc/meminfo"), &text).unwrap_err();
        assert_eq!(
            err,
            Unavailable::malformed(Path::new("/proc/meminfo"), Some(2), "no ':' after the name")
        );
    }

    #[test]
    fn a_size_past_2_pow_64_bytes_is_malformed() {
        let huge = u64::MAX / 1024 + 1;
        let text =
            fixture("linux-6.18-idle").replacen("Shmem:", &format!("Shmem:  {huge} kB\nOld:"), 1);
        let err = parse(Path::new("m"), &text).unwrap_err();
        assert!(
            err.reason.text().contains("more than 2^64 bytes"),
            "{err:?}"
        );
    }

    #[test]
    fn truncated_file_names_the_missing_line() {
        let text: String = fixture("linux-6.18-idle")
            .lines()
            .take(5)
            .map(|l| format!("{l}\n"))
            .collect();
        let err = parse(Path::new("m"), &text).unwrap_err();
        assert!(
            err.reason.text().contains("truncated"),
            "{}",
            err.reason.text()
        );
    }
}
