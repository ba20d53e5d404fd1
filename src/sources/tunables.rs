//! Swap-related sysctls (`/proc/sys/vm/*`) and transparent huge page settings. Read-only.

use serde::{Deserialize, Serialize};

use super::zram::{Selector, parse_selector};
use crate::error::{Reading, Reason};
use crate::root::Root;

/// vm sysctls zswaptop shows, in display order.
pub const VM_SYSCTLS: &[&str] = &[
    "swappiness",
    "page-cluster",
    "vfs_cache_pressure",
    "watermark_scale_factor",
    "min_free_kbytes",
    "dirty_ratio",
    "dirty_background_ratio",
    "dirty_bytes",
    "dirty_background_bytes",
    "dirty_expire_centisecs",
    "dirty_writeback_centisecs",
    "overcommit_memory",
    "overcommit_ratio",
];

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tunables {
    /// `(name, value)` for each of [`VM_SYSCTLS`], raw text.
    pub vm: Vec<(String, Reading<String>)>,
    pub thp_enabled: Reading<Selector>,
    pub thp_defrag: Reading<Selector>,
}

pub(crate) fn read(root: &Root) -> Tunables {
    let vm = VM_SYSCTLS
        .iter()
        .map(|name| {
            let path = root.proc(&format!("sys/vm/{name}"));
            let v = root
                .read_text(&path, &Reason::absent("not in this kernel"))
                .map(|t| t.trim().to_string());
            ((*name).to_string(), v)
        })
        .collect();
    let thp = |f: &str| {
        root.read_text(
            &root.sys(&format!("kernel/mm/transparent_hugepage/{f}")),
            &Reason::absent("no transparent hugepage support"),
        )
        .map(|t| parse_selector(&t))
    };
    Tunables {
        vm,
        thp_enabled: thp("enabled"),
        thp_defrag: thp("defrag"),
    }
}
