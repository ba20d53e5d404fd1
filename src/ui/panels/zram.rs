//! The zram section of the overview: one line per device in use (none without one). It gives
//! way after the swap section.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
use crate::present::{self, Depth};
use crate::ui::theme::Theme;
use crate::ui::widgets::{Titled, bold, dim, raw};

pub(crate) struct Zram;

impl Section for Zram {
    fn describe(&self, cx: &Cx) -> Option<Part> {
        Some(Part::Text {
            block: block(&cx.app.shown, cx.t)?,
            gives_way: 1,
            without_fill: None,
        })
    }
}

/// The devices in use, a line each.
fn block(s: &Snapshot, t: &Theme) -> Option<Titled> {
    let used: Vec<_> = s
        .zram
        .iter()
        .filter(|z| z.initialized == Some(true))
        .collect();
    if used.is_empty() {
        return None;
    }
    let lines = used
        .iter()
        .flat_map(|z| {
            let head = Line::from(vec![
                bold(t, z.device.clone()),
                raw(format!(
                    " {}",
                    z.algorithm.clone().unwrap_or_else(|| t.missing().into())
                )),
                dim(t, "  orig "),
                raw(f::bytes(z.orig_data_bytes)),
                dim(t, "  compr "),
                raw(f::bytes(z.compr_data_bytes)),
                dim(t, "  mem used "),
                Span::styled(f::bytes(z.mem_used_bytes), t.pool()),
                dim(t, "  ratio "),
                bold(t, f::ratio(z.effective_ratio)),
            ]);
            // Writeback and recompression, where the kernel has them: a line each under the
            // device.
            let facts: Vec<_> = present::zram::device_facts(z)
                .into_iter()
                .filter(|f| f.at(Depth::Dashboard))
                .collect();
            let (recomp, writeback): (Vec<_>, Vec<_>) =
                facts.iter().partition(|f| f.key.starts_with("zram.recomp"));
            let detail = |part: &[&present::Fact]| {
                let mut spans = vec![raw("  ".to_string())];
                for (i, fact) in part.iter().enumerate() {
                    if i > 0 {
                        spans.push(dim(t, "  "));
                    }
                    spans.push(dim(t, format!("{} ", fact.label)));
                    spans.push(Span::styled(
                        fact.value_short.clone(),
                        super::zswap::tone(fact, t),
                    ));
                }
                Line::from(spans)
            };
            std::iter::once(head)
                .chain((!writeback.is_empty()).then(|| detail(&writeback)))
                .chain((!recomp.is_empty()).then(|| detail(&recomp)))
                .collect::<Vec<_>>()
        })
        .collect();
    Some(Titled {
        theme: *t,
        title: Line::from(bold(t, "zram")),
        right: None,
        bar: None,
        lines,
        min_lines: 1,
    })
}
