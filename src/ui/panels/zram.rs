//! The zram section of the overview: one line per device in use (none without one). It gives
//! way after the swap section.

use ratatui::text::{Line, Span};

use super::{Cx, Part, Section};
use crate::display as f;
use crate::model::Snapshot;
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
        .map(|z| {
            Line::from(vec![
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
            ])
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
