//! `/proc/vmstat`: the swap and zswap event counters (pages since boot).

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;
use crate::sanitize::Sanitize;

/// Counters zswaptop uses. Each is `None` where this kernel does not print it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
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

pub(crate) fn read(root: &Root) -> Reading<VmstatSample> {
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
    let b = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while start < b.len() {
        // The kernel's form, `name value\n` with one space and the value in digits, is read in
        // one scan of its bytes, without the general checks below (which would give the same
        // for it); anything else, from a blank line to a negative or malformed value, goes
        // through them.
        let mut j = start;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
            j += 1;
        }
        let name_end = j;
        if name_end > start && j < b.len() && b[j] == b' ' {
            j += 1;
            let digits = j;
            let mut value = Some(0u64);
            while j < b.len() && b[j].is_ascii_digit() {
                value = value
                    .and_then(|v| v.checked_mul(10))
                    .and_then(|v| v.checked_add(u64::from(b[j] - b'0')));
                j += 1;
            }
            if let Some(value) = value.filter(|&v| i64::try_from(v).is_ok())
                && j > digits
                && (j == b.len() || b[j] == b'\n')
            {
                lines += 1;
                if let Some(slot) = out.slot(&text[start..name_end]) {
                    *slot = Some(value);
                }
                start = j + 1;
                i += 1;
                continue;
            }
        }
        // The whole line (as `str::lines` gives it), for the general checks.
        let end = b[start..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |n| start + n);
        let line = text[start..end]
            .strip_suffix('\r')
            .unwrap_or(&text[start..end]);
        start = end + 1;
        let at = i;
        i += 1;
        if let Some((name, value)) = check_line(path, at, line)? {
            lines += 1;
            if let Some(slot) = out.slot(name) {
                *slot = Some(value);
            }
        }
    }
    if lines == 0 {
        return Err(Unavailable::malformed(path, None, "empty file"));
    }
    Ok(out)
}

/// One line (the `i`th, from 0) through the general checks: its name and value, `None` for a
/// blank line, or what is wrong with it.
fn check_line<'a>(path: &Path, i: usize, line: &'a str) -> Reading<Option<(&'a str, u64)>> {
    if line.trim().is_empty() {
        return Ok(None);
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
    Ok(Some((name, value)))
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

    /// The one-scan form and the general checks agree: any text of kernel-like and broken
    /// lines reads as it does through `str::lines` and the general checks alone.
    mod agrees {
        use super::*;
        use proptest::prelude::*;

        /// `str::lines` and the general checks, line by line.
        fn general(path: &Path, text: &str) -> Reading<VmstatSample> {
            let mut out = VmstatSample::default();
            let mut lines = 0;
            for (i, line) in text.lines().enumerate() {
                if let Some((name, value)) = check_line(path, i, line)? {
                    lines += 1;
                    if let Some(slot) = out.slot(name) {
                        *slot = Some(value);
                    }
                }
            }
            if lines == 0 {
                return Err(Unavailable::malformed(path, None, "empty file"));
            }
            Ok(out)
        }

        const LINES: [&str; 15] = [
            "zswpin 12",
            "zswpout 340",
            "pswpin 0",
            "oom_kill 3",
            "nr_free_pages 99",
            "",
            "  ",
            "zswpin -1",
            "zswpout",
            "pswpout 1 2",
            "bad-name 1",
            "zswpwb\t7",
            "swap_ra  8",
            "pgmajfault 5\r",
            "zswpin 9223372036854775808",
        ];

        proptest! {
            #[test]
            fn one_scan_reads_as_the_general_checks(
                picks in prop::collection::vec(0..LINES.len(), 0..12),
                newline_at_end in any::<bool>(),
            ) {
                let mut text = picks.iter().map(|&i| LINES[i]).collect::<Vec<_>>().join("\n");
                if newline_at_end {
                    text.push('\n');
                }
                let p = Path::new("/proc/vmstat");
                prop_assert_eq!(parse(p, &text), general(p, &text), "{:?}", text);
            }
        }
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
