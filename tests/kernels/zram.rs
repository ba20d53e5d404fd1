//! zram writeback and recompression in the guest (`scenario-zram.sh`): each moment's JSON
//! against the kernel's files read right before and right after zswaptop, and the findings
//! `zram-writeback-idle` / `zram-recompress-idle` there while idle pages sit and gone once
//! `writeback` / `recompress` was written.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::rep;

/// `bd_stat` and `writeback_limit` count 4 KiB units whatever the page size.
const FOUR_K: u64 = 4096;

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

/// The files of one side (before/ or after/) of a moment.
struct Side {
    /// bd_stat: count, reads, writes (4 KiB units).
    bd: Option<[u64; 3]>,
    /// block_state summed by the guest: slots, idle in RAM, written back, recompressed.
    state: Option<[u64; 4]>,
}

fn numbers<const N: usize>(text: &str) -> Option<[u64; N]> {
    let v: Vec<u64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    v.try_into().ok()
}

impl Side {
    fn read(dir: &Path) -> Side {
        Side {
            bd: numbers(&read(&dir.join("bd_stat"))),
            state: numbers(&read(&dir.join("block_state.sum"))),
        }
    }
}

struct Moment {
    name: String,
    before: Side,
    after: Side,
    json: Option<Value>,
}

impl Moment {
    fn read(dir: &Path, name: &str) -> Moment {
        let d = dir.join(name);
        Moment {
            name: name.to_string(),
            before: Side::read(&d.join("before")),
            after: Side::read(&d.join("after")),
            json: serde_json::from_str(&read(&d.join("once.json"))).ok(),
        }
    }

    fn zram0(&self) -> Option<&Value> {
        self.json.as_ref()?["zram"]
            .as_array()?
            .iter()
            .find(|z| z["device"] == "zram0")
    }

    fn fires(&self, id: &str) -> bool {
        self.json.as_ref().is_some_and(|j| {
            j["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|f| f["id"] == id))
        })
    }

    /// `field` of zram0 in bytes, within what the kernel said right before and right after
    /// (`pick` from each side, × `unit`).
    fn within(&self, field: &str, unit: u64, pick: impl Fn(&Side) -> Option<u64>) {
        let seen = self.zram0().and_then(|z| z[field].as_u64());
        let (a, b) = (pick(&self.before), pick(&self.after));
        let name = format!("{}: zram0 {field}", self.name);
        match (seen, a, b) {
            (Some(v), Some(a), Some(b)) => {
                let (lo, hi) = (a.min(b) * unit, a.max(b) * unit);
                rep().check(
                    &name,
                    (lo..=hi).contains(&v),
                    &v.to_string(),
                    &format!("{lo}..={hi} (the kernel's files)"),
                );
            }
            _ => {
                rep().check(
                    &name,
                    false,
                    &format!("{seen:?}"),
                    &format!("a value and the kernel's ({a:?}, {b:?})"),
                );
            }
        }
    }
}

/// Every check of the zram scenario of one kernel's run (`res`: its results directory).
pub fn check(kernel: &str, res: &Path) {
    let facts = read(&res.join("facts"));
    let fact = |k: &str| {
        facts
            .lines()
            .find_map(|l| l.strip_prefix(k)?.strip_prefix(' '))
            .map(str::trim)
            .map(str::to_string)
    };
    rep().phase(&format!("{kernel}-zram: writeback and recompression"));
    match fact("zramwb").as_deref() {
        Some("yes") => {}
        Some(_) => {
            rep().skip(
                "zram writeback",
                "no backing_dev: this kernel is built without CONFIG_ZRAM_WRITEBACK",
            );
            return;
        }
        None => {
            rep().skip(
                "zram writeback",
                "the guest ran no zram scenario (no zram0)",
            );
            return;
        }
    }
    let dir = res.join("zram");
    let idle = Moment::read(&dir, "zram-wb-idle");
    let done = Moment::read(&dir, "zram-wb-done");
    for m in [&idle, &done] {
        rep().check(
            &format!("{}: --once --json -i 1 read back", m.name),
            m.zram0().is_some(),
            if m.json.is_some() {
                "zram0 listed"
            } else {
                "no JSON"
            },
            "zram0 in the JSON",
        );
        m.within("bd_count_bytes", FOUR_K, |s| s.bd.map(|b| b[0]));
        m.within("bd_writes_bytes", FOUR_K, |s| s.bd.map(|b| b[2]));
        m.within("idle_bytes", 4096, |s| s.state.map(|b| b[1]));
    }
    let idle_pages = idle.after.state.map_or(0, |s| s[1]);
    rep().check(
        "zram-wb-idle: idle pages in RAM after `echo all > idle` (block_state)",
        idle_pages >= 256,
        &idle_pages.to_string(),
        ">= 256 (1 MiB)",
    );
    rep().check(
        "zram-wb-idle: zram-writeback-idle fires",
        idle.fires("zram-writeback-idle"),
        &idle.fires("zram-writeback-idle").to_string(),
        "true",
    );
    let moved = match (idle.after.bd, done.before.bd) {
        (Some(a), Some(b)) => b[2].saturating_sub(a[2]),
        _ => 0,
    };
    rep().check(
        "zram-wb-done: `echo idle > writeback` moved bd_stat writes",
        moved > 0,
        &format!("{} KiB", moved * 4),
        "> 0",
    );
    let left = done.after.state.map_or(u64::MAX, |s| s[1]);
    rep().check(
        "zram-wb-done: idle pages left in RAM (block_state)",
        left < 256,
        &left.to_string(),
        "< 256",
    );
    rep().check(
        "zram-wb-done: zram-writeback-idle quiet",
        done.json.is_some() && !done.fires("zram-writeback-idle"),
        &done.fires("zram-writeback-idle").to_string(),
        "false",
    );
    if fact("zramrecomp").as_deref() != Some("yes") {
        rep().skip(
            "zram recompression",
            "no recomp_algorithm: this kernel is built without CONFIG_ZRAM_MULTI_COMP",
        );
        return;
    }
    let rc_idle = Moment::read(&dir, "zram-rc-idle");
    let rc_done = Moment::read(&dir, "zram-rc-done");
    for m in [&rc_idle, &rc_done] {
        m.within("recompressed_bytes", 4096, |s| s.state.map(|b| b[3]));
    }
    rep().check(
        "zram-rc-idle: zram-recompress-idle fires",
        rc_idle.fires("zram-recompress-idle"),
        &rc_idle.fires("zram-recompress-idle").to_string(),
        "true",
    );
    rep().check(
        "zram-rc-done: zram-recompress-idle quiet after `echo type=idle > recompress`",
        rc_done.json.is_some() && !rc_done.fires("zram-recompress-idle"),
        &rc_done.fires("zram-recompress-idle").to_string(),
        "false",
    );
}
