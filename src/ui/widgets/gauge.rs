//! The gauge: a row of cells filled to a percentage, with a mark.

use ratatui::style::Style;
use ratatui::text::Span;

use crate::ui::theme::Theme;

/// A gauge of `width` cells filled to `pct` with a mark at `mark_pct`.
pub fn gauge(
    pct: Option<f64>,
    mark_pct: Option<u64>,
    width: usize,
    t: &Theme,
    fill: Style,
) -> Vec<Span<'static>> {
    let filled = pct
        .filter(|p| p.is_finite())
        .map(|p| ((p.clamp(0.0, 100.0) / 100.0) * width as f64).round() as usize)
        .unwrap_or(0);
    let mark = mark_pct.map(|m| (((m.min(100) as f64) / 100.0) * width as f64).round() as usize);
    let mark = mark.map(|m| m.min(width.saturating_sub(1)));
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
    for i in 0..width {
        let (sym, style) = if Some(i) == mark {
            (bar, t.bold())
        } else if i < filled {
            (full, fill)
        } else {
            (empty, t.dim())
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
