//! The gauge: a row of cells filled to a percentage, with a mark.

use ratatui::style::Style;
use ratatui::text::Span;

use crate::display::{self as f, GaugeCell};
use crate::ui::theme::Theme;

/// [`f::gauge`] drawn: `width` cells filled to `pct` with a mark at `mark_pct`.
pub(crate) fn gauge(
    pct: Option<f64>,
    mark_pct: Option<u64>,
    width: usize,
    t: &Theme,
    fill: Style,
) -> Vec<Span<'static>> {
    let (full, empty, bar) = if t.ascii {
        ("#", ".", "|")
    } else {
        ("█", "░", "│")
    };
    let mut spans = Vec::with_capacity(5);
    if t.ascii {
        spans.push(Span::raw("["));
    }
    let mut run = String::new();
    let mut run_style = fill;
    for cell in f::gauge(pct, mark_pct, width) {
        let (sym, style) = match cell {
            GaugeCell::Mark => (bar, t.bold()),
            GaugeCell::Filled => (full, fill),
            GaugeCell::Empty => (empty, t.dim()),
        };
        if style != run_style && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), run_style));
        }
        run_style = style;
        run.push_str(sym);
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, run_style));
    }
    if t.ascii {
        spans.push(Span::raw("]"));
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauge_marks_the_threshold() {
        let t = Theme::new(false, true);
        let s: String = gauge(Some(50.0), Some(90), 10, &t, t.bold())
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert_eq!(s, "[#####....|]");
        let s: String = gauge(None, None, 4, &t, t.bold())
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert_eq!(s, "[....]");
    }
}
