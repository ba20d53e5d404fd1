//! The cgroups section of the overview, where the snapshot holds the tree (it is read while the
//! cgroups view is shown, and kept in recordings): the cgroup nearest a limit, the OOM kills and
//! the highest pressure ([`present::cgroups`]), a line each, the most serious first. It gives
//! way with the zram section.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::app::View;
use crate::present::{self, Tone};
use crate::ui::widgets::{Titled, bold, dim, raw};

pub(crate) struct Cgroups;

impl Section for Cgroups {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        let t = cx.t;
        let mut facts = present::cgroups::facts(&cx.app.shown);
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
        let lines = facts
            .iter()
            .map(|fact| {
                Line::from(vec![
                    raw("  ".to_string()),
                    dim(t, format!("{} ", fact.label)),
                    Span::styled(fact.value.clone(), super::zswap::tone(fact, t)),
                ])
            })
            .collect();
        let note = format!("every cgroup: press {}", View::Cgroups.number());
        Some(Part::Text {
            block: Titled {
                theme: *t,
                title: Line::from(bold(t, "cgroups")),
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
