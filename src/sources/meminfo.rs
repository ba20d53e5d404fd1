//! `/proc/meminfo`: kB values (and a few page counts), converted to bytes.
//!
//! Parsing is delegated to `procfs_core::Meminfo`; a first pass over the text finds the exact line of
//! any malformed entry so the user is told where the file is broken.

use std::path::Path;

use procfs_core::FromRead;
use serde::{Deserialize, Serialize};

use crate::root::{Reading, Reason, Root, Unavailable};

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

/// Lines procfs requires; named here so a truncated file gets a clear message.
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

pub fn read(root: &Root) -> Reading<MeminfoSample> {
    let path = root.proc("meminfo");
    let text = root.read_text(
        &path,
        &Reason::absent("no /proc/meminfo (is /proc mounted?)"),
    )?;
    parse(&path, &text)
}

/// Parse the text of a meminfo file read from `path`.
pub fn parse(path: &Path, text: &str) -> Reading<MeminfoSample> {
    let mut seen: Vec<&str> = Vec::with_capacity(64);
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
        let mut words = rest.split_whitespace();
        let value = words.next().unwrap_or("");
        let Ok(n) = value.parse::<u64>() else {
            return Err(Unavailable::malformed(
                path,
                lineno,
                format!("{key}: expected a number, got {value:?}"),
            ));
        };
        match words.next() {
            None => {}
            // procfs multiplies by 1024 unchecked: an impossible size must not wrap.
            Some("kB") if n.checked_mul(1024).is_none() => {
                return Err(Unavailable::malformed(
                    path,
                    lineno,
                    format!("{key}: {n} kB is more than 2^64 bytes"),
                ));
            }
            Some("kB") => {}
            Some(unit) => {
                return Err(Unavailable::malformed(
                    path,
                    lineno,
                    format!("{key}: unknown unit {unit:?}"),
                ));
            }
        }
        if words.next().is_some() {
            return Err(Unavailable::malformed(
                path,
                lineno,
                "extra words after the value",
            ));
        }
        seen.push(key);
    }
    if let Some(missing) = REQUIRED.iter().find(|k| !seen.contains(k)) {
        return Err(Unavailable::malformed(
            path,
            None,
            format!("no {missing} line (file truncated?)"),
        ));
    }
    let m = procfs_core::Meminfo::from_read(text.as_bytes())
        .map_err(|e| Unavailable::malformed(path, None, e.to_string()))?;
    Ok(MeminfoSample {
        mem_total: m.mem_total,
        mem_free: m.mem_free,
        mem_available: m.mem_available,
        buffers: m.buffers,
        cached: m.cached,
        swap_cached: m.swap_cached,
        anon_pages: m.anon_pages,
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
