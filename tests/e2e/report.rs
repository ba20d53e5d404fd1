//! The comparison table: one row per compared value, printed as soon as it is decided.
//!
//! Tolerance rule: a value passes when it lies between the kernel's reading right before and right
//! after the zswaptop run (inclusive), widened by an explicit slack that is printed in the row.

use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail,
    Skip,
}

pub struct Report {
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub failures: Vec<String>,
    phase: String,
}

const W_NAME: usize = 72;
const W_VAL: usize = 14;

fn fmt_opt_u(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "null".into())
}

fn fmt_opt_i(v: Option<i128>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "null".into())
}

fn fmt_opt_f(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.5}"))
        .unwrap_or_else(|| "null".into())
}

impl Report {
    pub const fn new() -> Self {
        Report {
            passed: 0,
            failed: 0,
            skipped: 0,
            failures: Vec::new(),
            phase: String::new(),
        }
    }

    pub fn phase(&mut self, title: &str) {
        self.phase = title.split_whitespace().next().unwrap_or("").to_string();
        println!();
        println!("=== {title}");
        println!(
            "{:<W_NAME$} {:>W_VAL$} {:>W_VAL$} {:>W_VAL$} {:>10} {:>12} RESULT",
            "check", "zswaptop", "kernel before", "kernel after", "diff", "slack"
        );
    }

    pub fn note(&self, text: &str) {
        for line in text.lines() {
            println!("    # {line}");
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn row(
        &mut self,
        name: &str,
        zt: &str,
        before: &str,
        after: &str,
        diff: &str,
        slack: &str,
        outcome: Outcome,
    ) {
        let word = match outcome {
            Outcome::Pass => {
                self.passed += 1;
                "PASS"
            }
            Outcome::Fail => {
                self.failed += 1;
                self.failures.push(format!(
                    "[{}] {name}: zswaptop {zt}, kernel {before} .. {after}",
                    self.phase
                ));
                "FAIL"
            }
            Outcome::Skip => {
                self.skipped += 1;
                "SKIP"
            }
        };
        let name = if name.len() > W_NAME {
            name.to_string() + "\n" + &" ".repeat(W_NAME)
        } else {
            name.to_string()
        };
        println!(
            "{name:<W_NAME$} {zt:>W_VAL$} {before:>W_VAL$} {after:>W_VAL$} {diff:>10} {slack:>12} {word}"
        );
    }

    pub fn skip(&mut self, name: &str, reason: &str) {
        self.row(name, "-", "-", "-", "-", "-", Outcome::Skip);
        self.note(&format!("skipped: {reason}"));
    }

    /// zswaptop's integer must lie in [min(before, after) − slack, max(before, after) + slack].
    pub fn bracket(
        &mut self,
        name: &str,
        zt: Option<u64>,
        before: Option<u64>,
        after: Option<u64>,
        slack: u64,
    ) -> bool {
        let (zt_s, b_s, a_s) = (fmt_opt_u(zt), fmt_opt_u(before), fmt_opt_u(after));
        let (Some(z), Some(b), Some(a)) = (zt, before, after) else {
            self.row(
                name,
                &zt_s,
                &b_s,
                &a_s,
                "-",
                &slack.to_string(),
                Outcome::Fail,
            );
            return false;
        };
        let lo = b.min(a).saturating_sub(slack);
        let hi = b.max(a).saturating_add(slack);
        let diff: i128 = if z < b.min(a) {
            i128::from(z) - i128::from(b.min(a))
        } else if z > b.max(a) {
            i128::from(z) - i128::from(b.max(a))
        } else {
            0
        };
        let ok = z >= lo && z <= hi;
        self.row(
            name,
            &zt_s,
            &b_s,
            &a_s,
            &diff.to_string(),
            &slack.to_string(),
            if ok { Outcome::Pass } else { Outcome::Fail },
        );
        ok
    }

    /// Float version; slack is relative (0.005 = ±0.5 %).
    pub fn bracket_f(
        &mut self,
        name: &str,
        zt: Option<f64>,
        before: Option<f64>,
        after: Option<f64>,
        rel: f64,
    ) -> bool {
        let (zt_s, b_s, a_s) = (fmt_opt_f(zt), fmt_opt_f(before), fmt_opt_f(after));
        let slack_s = format!("±{:.2}%", rel * 100.0);
        let (Some(z), Some(b), Some(a)) = (zt, before, after) else {
            // Both null is the right answer when the kernel side is undefined too.
            let ok = zt.is_none() && before.is_none() && after.is_none();
            self.row(
                name,
                &zt_s,
                &b_s,
                &a_s,
                "-",
                &slack_s,
                if ok { Outcome::Pass } else { Outcome::Fail },
            );
            return ok;
        };
        let (lo, hi) = (b.min(a), b.max(a));
        let diff = if z < lo {
            z - lo
        } else if z > hi {
            z - hi
        } else {
            0.0
        };
        // Relative slack on the magnitude, so it widens the bracket for negative values too.
        let slack = rel * lo.abs().max(hi.abs());
        let ok = z >= lo - slack && z <= hi + slack;
        self.row(
            name,
            &zt_s,
            &b_s,
            &a_s,
            &format!("{diff:.5}"),
            &slack_s,
            if ok { Outcome::Pass } else { Outcome::Fail },
        );
        ok
    }

    /// Exact integer equality (signed, so identities with a signed bucket work).
    pub fn exact(&mut self, name: &str, zt: Option<i128>, expected: Option<i128>) -> bool {
        let ok = zt.is_some() && zt == expected;
        let diff = match (zt, expected) {
            (Some(z), Some(e)) => (z - e).to_string(),
            _ => "-".into(),
        };
        let e = fmt_opt_i(expected);
        self.row(
            name,
            &fmt_opt_i(zt),
            &e,
            &e,
            &diff,
            "0",
            if ok { Outcome::Pass } else { Outcome::Fail },
        );
        ok
    }

    /// |value − expected| ≤ tol (both computed by the test, e.g. kernel deltas vs the workload's shares).
    pub fn near(&mut self, name: &str, value: Option<u64>, expected: u64, tol: u64) -> bool {
        let ok = value.is_some_and(|v| v.abs_diff(expected) <= tol);
        let diff = value
            .map(|v| (i128::from(v) - i128::from(expected)).to_string())
            .unwrap_or_else(|| "-".into());
        let e = expected.to_string();
        self.row(
            name,
            &fmt_opt_u(value),
            &e,
            &e,
            &diff,
            &format!("±{tol}"),
            if ok { Outcome::Pass } else { Outcome::Fail },
        );
        ok
    }

    /// value ≥ bound.
    pub fn at_least(&mut self, name: &str, value: Option<u64>, bound: i128) -> bool {
        let ok = value.is_some_and(|v| i128::from(v) >= bound);
        let diff = value
            .map(|v| (i128::from(v) - bound).to_string())
            .unwrap_or_else(|| "-".into());
        let b = format!(">={bound}");
        self.row(
            name,
            &fmt_opt_u(value),
            &b,
            &b,
            &diff,
            "0",
            if ok { Outcome::Pass } else { Outcome::Fail },
        );
        ok
    }

    /// A yes/no fact, with what was seen and what was wanted.
    pub fn check(&mut self, name: &str, ok: bool, seen: &str, wanted: &str) -> bool {
        self.row(
            name,
            seen,
            wanted,
            wanted,
            "-",
            "-",
            if ok { Outcome::Pass } else { Outcome::Fail },
        );
        ok
    }

    /// The closing line, exactly `e2e: N passed, M failed`.
    pub fn summary(&self) {
        println!();
        if !self.failures.is_empty() {
            println!("failures:");
            for f in &self.failures {
                println!("  {f}");
            }
        }
        if self.skipped > 0 {
            println!(
                "({} check(s) skipped, listed above with their reasons)",
                self.skipped
            );
        }
        println!("e2e: {} passed, {} failed", self.passed, self.failed);
    }
}

/// `zswaptop advise --json`'s predicted ratio for `name` on `backend`.
pub fn predicted(j: &Value, backend: &str, name: &str) -> Option<f64> {
    at(j, "advise.candidates")?
        .as_array()?
        .iter()
        .find(|c| {
            c.get("backend").and_then(Value::as_str) == Some(backend)
                && c.get("name").and_then(Value::as_str) == Some(name)
        })?
        .get("ratio")?
        .as_f64()
}

/// `zswap.pool_bytes` → the value at that dotted path.
pub fn at<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = v;
    for part in path.split('.') {
        cur = match cur {
            Value::Object(m) => m.get(part)?,
            Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

pub fn u(v: &Value, path: &str) -> Option<u64> {
    at(v, path).and_then(Value::as_u64)
}

pub fn i(v: &Value, path: &str) -> Option<i128> {
    at(v, path).and_then(|x| {
        x.as_i64()
            .map(i128::from)
            .or_else(|| x.as_u64().map(i128::from))
    })
}

pub fn f(v: &Value, path: &str) -> Option<f64> {
    at(v, path).and_then(Value::as_f64)
}

pub fn s<'a>(v: &'a Value, path: &str) -> Option<&'a str> {
    at(v, path).and_then(Value::as_str)
}

pub fn b(v: &Value, path: &str) -> Option<bool> {
    at(v, path).and_then(Value::as_bool)
}

pub fn is_null(v: &Value, path: &str) -> bool {
    matches!(at(v, path), Some(Value::Null))
}

/// Short text of a JSON value for the table.
pub fn show(v: Option<&Value>) -> String {
    match v {
        None => "<missing>".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            let t = other.to_string();
            if t.chars().count() > 40 {
                format!("{}…", t.chars().take(40).collect::<String>())
            } else {
                t
            }
        }
    }
}
