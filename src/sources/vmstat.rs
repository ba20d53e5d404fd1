//! `/proc/vmstat`: the swap and zswap event counters (pages since boot).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::root::{Reading, Reason, Root, Unavailable};

/// Counters zswaptop uses. Each is `None` where this kernel does not print it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VmstatSample {
    pub zswpin: Option<u64>,
    pub zswpout: Option<u64>,
    pub zswpwb: Option<u64>,
    pub pswpin: Option<u64>,
    pub pswpout: Option<u64>,
    pub swpin_zero: Option<u64>,
    pub swpout_zero: Option<u64>,
    pub nr_zspages: Option<u64>,
    pub pgmajfault: Option<u64>,
    pub workingset_refault_anon: Option<u64>,
    pub thp_swpout: Option<u64>,
    pub thp_swpout_fallback: Option<u64>,
    pub oom_kill: Option<u64>,
    pub swap_ra: Option<u64>,
    pub swap_ra_hit: Option<u64>,
}

pub fn read(root: &Root) -> Reading<VmstatSample> {
    let path = root.proc("vmstat");
    let text = root.read_text(
        &path,
        &Reason::absent("no /proc/vmstat (is /proc mounted?)"),
    )?;
    parse(&path, &text)
}

/// One pass over the text: every line checked, and the counters zswaptop uses put in their
/// slots as they come (no map of the ~180 names, nothing allocated).
pub fn parse(path: &Path, text: &str) -> Reading<VmstatSample> {
    let mut out = VmstatSample::default();
    let mut lines = 0;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let name = words.next().unwrap_or("");
        let word = words.next().unwrap_or("");
        let Ok(value) = word.parse::<i64>() else {
            return Err(bad_line(path, i, line));
        };
        if words.next().is_some() {
            return Err(bad_line(path, i, line));
        }
        // The kernel prints every vmstat item unsigned (a gauge's per-cpu drift is clamped at 0
        // first): a negative one is not a count.
        let Ok(value) = u64::try_from(value) else {
            return Err(Unavailable::malformed(
                path,
                Some(i + 1),
                format!("{name} is negative ({word}); the kernel prints counters unsigned"),
            ));
        };
        if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Err(Unavailable::malformed(
                path,
                Some(i + 1),
                format!("bad counter name {name:?}"),
            ));
        }
        lines += 1;
        if let Some(slot) = out.slot(name) {
            *slot = Some(value);
        }
    }
    if lines == 0 {
        return Err(Unavailable::malformed(path, None, "empty file"));
    }
    Ok(out)
}

fn bad_line(path: &Path, i: usize, line: &str) -> Unavailable {
    Unavailable::malformed(
        path,
        Some(i + 1),
        format!("expected `name number`, got {line:?}"),
    )
}

impl VmstatSample {
    /// The field that holds the counter `name`, when zswaptop uses it.
    fn slot(&mut self, name: &str) -> Option<&mut Option<u64>> {
        Some(match name {
            "zswpin" => &mut self.zswpin,
            "zswpout" => &mut self.zswpout,
            "zswpwb" => &mut self.zswpwb,
            "pswpin" => &mut self.pswpin,
            "pswpout" => &mut self.pswpout,
            "swpin_zero" => &mut self.swpin_zero,
            "swpout_zero" => &mut self.swpout_zero,
            "nr_zspages" => &mut self.nr_zspages,
            "pgmajfault" => &mut self.pgmajfault,
            "workingset_refault_anon" => &mut self.workingset_refault_anon,
            "thp_swpout" => &mut self.thp_swpout,
            "thp_swpout_fallback" => &mut self.thp_swpout_fallback,
            "oom_kill" => &mut self.oom_kill,
            "swap_ra" => &mut self.swap_ra,
            "swap_ra_hit" => &mut self.swap_ra_hit,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaded_fixture_counters() {
        let p = format!(
            "{}/tests/fixtures/linux-6.18-loaded/proc/vmstat",
            env!("CARGO_MANIFEST_DIR")
        );
        let v = parse(Path::new(&p), &std::fs::read_to_string(&p).unwrap()).unwrap();
        assert!(v.zswpout.is_some());
        assert!(v.swpout_zero.is_some());
        assert!(v.zswpwb.is_some());
        assert_eq!((v.swap_ra, v.swap_ra_hit), (Some(120_679), Some(120_115)));
        // nr_zspages (pages) equals meminfo Zswap (kB) / 4 in this capture.
        assert_eq!(v.nr_zspages, Some(510_692 / 4));
    }

    #[test]
    fn a_negative_counter_is_malformed_not_0() {
        let err = parse(Path::new("v"), "nr_free_pages 1\npswpout -5\n").unwrap_err();
        assert_eq!(
            err,
            Unavailable::malformed(
                Path::new("v"),
                Some(2),
                "pswpout is negative (-5); the kernel prints counters unsigned"
            )
        );
    }

    #[test]
    fn garbage_line_is_located() {
        let err = parse(Path::new("v"), "nr_free_pages 1\nzswpin x\n").unwrap_err();
        assert_eq!(
            err,
            Unavailable::malformed(
                Path::new("v"),
                Some(2),
                "expected `name number`, got \"zswpin x\""
            )
        );
    }
}
