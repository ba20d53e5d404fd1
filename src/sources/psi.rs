//! `/proc/pressure/memory`: pressure stall information (percentages and µs totals).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;

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

pub(crate) fn read(root: &Root) -> Reading<PsiSample> {
    let path = root.proc("pressure/memory");
    let text = root.read_text(&path, &Reason::PsiDisabled)?;
    parse(&path, &text)
}

pub fn parse(path: &Path, text: &str) -> Reading<PsiSample> {
    let (mut some, mut full) = (None, None);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let at = Some(i + 1);
        let mut words = line.split_ascii_whitespace();
        let slot = match words.next() {
            Some("some") => &mut some,
            Some("full") => &mut full,
            _ => {
                return Err(Unavailable::malformed(
                    path,
                    at,
                    "expected a line starting `some` or `full`".to_string(),
                ));
            }
        };
        *slot = Some(parse_record(words).map_err(|why| Unavailable::malformed(path, at, why))?);
    }
    match (some, full) {
        (Some(some), Some(full)) => Ok(PsiSample { some, full }),
        _ => Err(Unavailable::malformed(
            path,
            None,
            "expected a `some` and a `full` line (file truncated?)".to_string(),
        )),
    }
}

/// `avg10=1.50 avg60=0.19 avg300=0.13 total=582869`, every field present exactly as the kernel
/// prints it. A share of time that is NaN, infinite or outside 0–100 is not one the kernel prints.
fn parse_record<'a>(words: impl Iterator<Item = &'a str>) -> Result<PsiLine, String> {
    let (mut avg10, mut avg60, mut avg300, mut total) = (None, None, None, None);
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            return Err(format!("`{word}` is not key=value"));
        };
        let avg = |v: &str| -> Result<f64, String> {
            match v.parse::<f64>() {
                Ok(x) if (0.0..=100.0).contains(&x) => Ok(x),
                _ => Err(format!("{key}={v} is not a percentage (0 to 100)")),
            }
        };
        match key {
            "avg10" => avg10 = Some(avg(value)?),
            "avg60" => avg60 = Some(avg(value)?),
            "avg300" => avg300 = Some(avg(value)?),
            "total" => {
                total = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("total={value} is not a count of microseconds"))?,
                );
            }
            _ => {} // a field a later kernel may add
        }
    }
    match (avg10, avg60, avg300, total) {
        (Some(avg10), Some(avg60), Some(avg300), Some(total_us)) => Ok(PsiLine {
            avg10: round2(avg10),
            avg60: round2(avg60),
            avg300: round2(avg300),
            total_us,
        }),
        _ => Err("expected avg10=, avg60=, avg300= and total=".to_string()),
    }
}

/// The kernel prints two decimals; keep exactly those.
fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
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
                err.reason.text().contains("is not a percentage"),
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
        assert!(err.reason.text().contains("truncated"));
    }

    #[test]
    fn cut_lines_are_malformed_not_a_panic() {
        // A file cut inside its first word, or inside a multi-byte character, is still only
        // malformed (the parser this replaced sliced `line[5..]` and panicked on these).
        for t in [
            "some",
            "full\n",
            "some avg10=1.00 avg60=0.00 avg300=0.00 total=1\nfu",
            "some\u{e9}x",
            "so",
        ] {
            let err = parse(Path::new("p"), t).unwrap_err();
            assert!(!err.reason.text().is_empty(), "{t:?}");
        }
        let t = "some avg10=1.00 avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00\n";
        assert!(
            parse(Path::new("p"), t)
                .unwrap_err()
                .reason
                .text()
                .contains("total=")
        );
    }
}
