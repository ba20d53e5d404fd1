//! The help overlay.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Widget};

use crate::app::{App, keys};
use crate::format as f;
use crate::ui::theme::Theme;
use crate::ui::widgets::{self, bold, dim, raw};

/// The help overlay: every key, centred over the screen.
pub fn help(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let mut lines: Vec<Line<'static>> = keys::HELP
        .iter()
        .map(|(k, what)| Line::from(vec![bold(t, format!(" {k:<16}")), raw(what.to_string())]))
        .collect();
    // A blank line before the settings where the screen has the room (keys, blank, two
    // settings lines and the border).
    if usize::from(area.height) >= lines.len() + 5 {
        lines.push(Line::from(""));
    }
    lines.push(Line::from(dim(
        t,
        format!(
            " now: every {}, graphs show {} of {} kept{}",
            f::interval(app.interval),
            f::span(app.window),
            f::span(app.history.max_age()),
            if app.paused { ", paused" } else { "" }
        ),
    )));
    lines.push(Line::from(dim(
        t,
        " rates are per second over the last interval",
    )));
    let w = (lines.iter().map(Line::width).max().unwrap_or(0) as u16 + 3).min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let x = area.x + (area.width - w) / 2;
    let y = area.y + (area.height - h) / 2;
    let r = Rect {
        x,
        y,
        width: w,
        height: h,
    };
    Clear.render(r, buf);
    let (hz, vt, tl, tr, bl, br) = if t.ascii {
        ("-", "|", "+", "+", "+", "+")
    } else {
        ("─", "│", "┌", "┐", "└", "┘")
    };
    for xx in r.x..r.x + r.width {
        buf[(xx, r.y)].set_symbol(hz);
        buf[(xx, r.y + r.height - 1)].set_symbol(hz);
    }
    for yy in r.y..r.y + r.height {
        buf[(r.x, yy)].set_symbol(vt);
        buf[(r.x + r.width - 1, yy)].set_symbol(vt);
    }
    buf[(r.x, r.y)].set_symbol(tl);
    buf[(r.x + r.width - 1, r.y)].set_symbol(tr);
    buf[(r.x, r.y + r.height - 1)].set_symbol(bl);
    buf[(r.x + r.width - 1, r.y + r.height - 1)].set_symbol(br);
    if r.width > 8 {
        buf.set_string(r.x + 2, r.y, " Keys ", t.title());
    }
    let inner = Rect {
        x: r.x + 1,
        y: r.y + 1,
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    };
    for (i, l) in lines.iter().enumerate() {
        widgets::put(buf, inner, i as u16, l);
    }
}
