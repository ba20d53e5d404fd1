//! The overview's sections of whose memory it is, where the snapshot holds them (the processes
//! are scanned while the processes view is shown, the cgroup tree read while the cgroups view
//! is; both are kept in recordings): the facts of `present::processes` (the largest footprint,
//! the most RAM compressed, the most swapped shmem) and of `present::cgroups` (the cgroup nearest
//! a limit, the OOM kills, the highest pressure), on one line, the most serious first, with the
//! key of the view that lists them all. They give way with the zram section.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::app::View;
use crate::model::Snapshot;
use crate::present::{self, Fact, Tone};
use crate::ui::widgets::{Titled, bold, dim, raw};

/// A section of facts about a list a view shows whole.
pub(crate) struct Owners {
    title: &'static str,
    view: View,
    facts: fn(&Snapshot) -> Vec<Fact>,
}

/// The listed processes' facts.
pub(crate) const PROCESSES: Owners = Owners {
    title: "processes",
    view: View::Processes,
    facts: present::processes::facts,
};

/// The cgroups' facts.
pub(crate) const CGROUPS: Owners = Owners {
    title: "cgroups",
    view: View::Cgroups,
    facts: present::cgroups::facts,
};

impl Section for Owners {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        let t = cx.t;
        let mut facts = (self.facts)(&cx.app.shown);
        if facts.is_empty() {
            return None;
        }
        let rank = |tone: Tone| match tone {
            Tone::Crit => 0,
            Tone::Warn => 1,
            Tone::Ok => 2,
            Tone::Dim => 3,
        };
        facts.sort_by_key(|f| rank(f.tone));
        // One line: each fact as its label and short value, or in its fewest words where the
        // line would pass the width.
        let full: usize = facts.iter().map(|f| f.short.chars().count() + 2).sum();
        let mut spans = Vec::new();
        for fact in &facts {
            spans.push(raw("  ".to_string()));
            if full <= cx.width {
                spans.push(dim(t, format!("{} ", fact.label)));
                spans.push(Span::styled(
                    fact.value_short.clone(),
                    super::zswap::tone(fact, t),
                ));
            } else {
                spans.push(Span::styled(
                    fact.tight.clone(),
                    super::zswap::tone(fact, t),
                ));
            }
        }
        let lines = vec![Line::from(spans)];
        let note = format!("every one: press {}", self.view.number());
        Some(Part::Text {
            block: Titled {
                theme: *t,
                title: Line::from(bold(t, self.title)),
                right: Some(Line::from(dim(t, note))),
                bar: None,
                lines,
                min_lines: 1,
            },
            gives_way: 1,
            without_fill: None,
        })
    }
}
