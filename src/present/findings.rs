//! The findings' facts: how many of each severity, and each finding (its id and its summary),
//! most severe first. The evidence, the fix and the why are the finding's own text, which
//! `--full` and the diagnostics view print whole under it.

use super::{EVERYWHERE, Fact, Tone};
use crate::display as f;
use crate::model::{Finding, Severity, Snapshot};

/// The findings most severe first (the rules' order within a severity).
pub fn sorted(s: &Snapshot) -> Vec<&Finding> {
    let mut out: Vec<&Finding> = s.diagnostics.iter().collect();
    out.sort_by_key(|d| std::cmp::Reverse(d.severity));
    out
}

/// A finding's tone: its severity's.
pub fn tone(sev: Severity) -> Tone {
    match sev {
        Severity::Crit => Tone::Crit,
        Severity::Warn => Tone::Warn,
        Severity::Info => Tone::Dim,
    }
}

/// The counts (`2 crit, 1 warn`; none without findings), then a fact for each finding: labelled with its
/// severity's tag, worded `id: summary` in full and by its id where a line is full.
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    let counts: Vec<String> = f::severity_counts(&s.diagnostics)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    let mut out = Vec::new();
    if !counts.is_empty() {
        let value = counts.join(", ");
        let worst = s.diagnostics.iter().map(|d| d.severity).max();
        let mut count = Fact::labelled("findings.counts", "findings", value.clone(), value.clone());
        // `--full` says the counts beside its DIAGNOSTICS heading, the value alone.
        count.tight = value;
        count.depths = &[super::Depth::Full, super::Depth::Dashboard];
        out.push(count.tone(worst.map_or(Tone::Ok, tone)));
    }
    for d in sorted(s) {
        let mut fact = Fact::labelled(
            "findings.finding",
            f::severity_tag(d.severity),
            d.id.clone(),
            d.id.clone(),
        );
        fact.long = format!("{}: {}", d.id, d.summary);
        (fact.short, fact.tight) = (d.id.clone(), d.id.clone());
        fact.depths = EVERYWHERE;
        out.push(fact.tone(tone(d.severity)));
    }
    out
}
