//! The phrases for findings (severity tags and counts) and for what a snapshot could not show.

use crate::model::{Finding, Severity};

/// A finding's severity as its tag: `CRIT`, `WARN`, `INFO`.
pub(crate) fn severity_tag(s: Severity) -> &'static str {
    match s {
        Severity::Crit => "CRIT",
        Severity::Warn => "WARN",
        Severity::Info => "INFO",
    }
}

/// The findings counted by severity, most severe first, as `2 crit`, `1 warn`, `3 info`;
/// severities with no finding are left out.
pub(crate) fn severity_counts(findings: &[Finding]) -> Vec<(Severity, String)> {
    [Severity::Crit, Severity::Warn, Severity::Info]
        .into_iter()
        .filter_map(|sev| {
            let n = findings.iter().filter(|f| f.severity == sev).count();
            (n > 0).then(|| (sev, format!("{n} {}", severity_tag(sev).to_lowercase())))
        })
        .collect()
}

/// Everything the snapshot could not show, with the reason and the fix: the memory, zswap and
/// zram items, then every unreadable source not already covered by one of them (zswap's own items
/// speak for its parameters and debugfs directories).
pub fn unavailable(s: &crate::model::Snapshot) -> Vec<crate::model::Missing> {
    use crate::model::status::{DEBUGFS, ZSWAP_PARAMS};
    let mut items: Vec<crate::model::Missing> = s.memory.unavailable.clone();
    items.extend(s.zswap.unavailable.iter().cloned());
    for z in &s.zram {
        items.extend(z.unavailable.iter().cloned());
    }
    for src in &s.sources {
        let Some(reason) = &src.reason else {
            continue;
        };
        let covered = items
            .iter()
            .any(|m| m.path.as_deref() == Some(src.source.as_str()));
        if !covered && src.source != DEBUGFS && src.source != ZSWAP_PARAMS {
            items.push(crate::model::Missing {
                item: src.source.clone(),
                path: None,
                holds: None,
                reason: reason.clone(),
            });
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_words_count_most_severe_first() {
        let finding = |severity| Finding {
            id: "x".into(),
            severity,
            summary: String::new(),
            evidence: Vec::new(),
            fix: String::new(),
            why: String::new(),
        };
        let fs = [
            finding(Severity::Info),
            finding(Severity::Crit),
            finding(Severity::Info),
        ];
        assert_eq!(
            severity_counts(&fs),
            [
                (Severity::Crit, "1 crit".to_string()),
                (Severity::Info, "2 info".to_string())
            ]
        );
        assert_eq!(severity_tag(Severity::Warn), "WARN");
    }
}
