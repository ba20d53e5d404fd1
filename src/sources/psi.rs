//! `/proc/pressure/memory`: pressure stall information (percentages and µs totals).

use std::path::Path;

use procfs_core::FromRead;
use serde::{Deserialize, Serialize};

use crate::root::{Reading, Root, Unavailable, read_text};

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PsiLine {
    pub avg10: f64,
    pub avg60: f64,
    pub avg300: f64,
    pub total_us: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct PsiSample {
    pub some: PsiLine,
    pub full: PsiLine,
}

pub fn read(root: &Root) -> Reading<PsiSample> {
    let path = root.proc("pressure/memory");
    let text = read_text(
        &path,
        "PSI is disabled in this kernel (boot with psi=1, needs CONFIG_PSI)",
    )?;
    parse(&path, &text)
}

pub fn parse(path: &Path, text: &str) -> Reading<PsiSample> {
    let p = procfs_core::MemoryPressure::from_read(text.as_bytes()).map_err(|e| {
        let lines = text.lines().count();
        let why = if lines < 2 {
            "expected a `some` and a `full` line (file truncated?)".to_string()
        } else {
            format!("expected `some avg10=… avg60=… avg300=… total=…` and a `full` line ({e})")
        };
        Unavailable::malformed(path, None, why)
    })?;
    // A share of time: NaN, infinite or outside 0–100 is not one the kernel prints.
    for (line, r) in [("some", &p.some), ("full", &p.full)] {
        for (name, v) in [("avg10", r.avg10), ("avg60", r.avg60), ("avg300", r.avg300)] {
            if !(0.0..=100.0).contains(&v) {
                return Err(Unavailable::malformed(
                    path,
                    None,
                    format!("{line} {name}={v} is not a percentage (0 to 100)"),
                ));
            }
        }
    }
    let conv = |r: &procfs_core::PressureRecord| PsiLine {
        avg10: round2(r.avg10),
        avg60: round2(r.avg60),
        avg300: round2(r.avg300),
        total_us: r.total,
    };
    Ok(PsiSample {
        some: conv(&p.some),
        full: conv(&p.full),
    })
}

/// The kernel prints two decimals; f32 → f64 would show 0.1899999976.
fn round2(v: f32) -> f64 {
    (f64::from(v) * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_lines() {
        let t = "some avg10=1.50 avg60=0.19 avg300=0.13 total=582869\nfull avg10=0.00 avg60=0.19 avg300=0.13 total=582815\n";
        let p = parse(Path::new("p"), t).unwrap();
        assert_eq!(p.some.avg10, 1.5);
        assert_eq!(p.some.avg60, 0.19);
        assert_eq!(p.full.total_us, 582_815);
    }

    #[test]
    fn nan_inf_and_negative_shares_are_malformed() {
        for bad in ["NaN", "inf", "-5.00", "100.01"] {
            let t = format!(
                "some avg10={bad} avg60=0.19 avg300=0.13 total=1\nfull avg10=0.00 avg60=0.19 avg300=0.13 total=1\n"
            );
            let err = parse(Path::new("p"), &t).unwrap_err();
            assert!(
                err.reason().contains("is not a percentage"),
                "{bad}: {err:?}"
            );
        }
    }

    #[test]
    fn some_only_is_malformed() {
        let err = parse(
            Path::new("p"),
            "some avg10=0.00 avg60=0.00 avg300=0.00 total=1\n",
        )
        .unwrap_err();
        assert!(err.reason().contains("truncated"));
    }
}
