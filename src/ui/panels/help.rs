//! The help overlay.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Widget};

use crate::app::{App, keys};
use crate::display as f;
use crate::ui::theme::Theme;
use crate::ui::views;
use crate::ui::widgets::{self, bold, dim, raw};

/// The help overlay: every key, centred over the screen.
pub(crate) fn help(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let replay: &[(&str, &str)] = if app.replay.is_some() {
        &keys::REPLAY_HELP
    } else {
        &[]
    };
    // In a replay its keys come first, in place of the live pause and interval.
    let live = views::help()
        .into_iter()
        .filter(|(k, _)| replay.is_empty() || !replay.iter().any(|(rk, _)| rk == k));
    let replay = replay.iter().map(|(k, w)| (k.to_string(), w.to_string()));
    let mut lines: Vec<Line<'static>> = replay
        .chain(live)
        .map(|(k, what)| Line::from(vec![bold(t, format!(" {k:<16}")), raw(what)]))
        .collect();
    // A blank line before the settings where the screen has the room (keys, blank, two
    // settings lines and the border).
    if usize::from(area.height) >= lines.len() + 5 {
        lines.push(Line::from(""));
    }
    lines.push(Line::from(dim(
        t,
        format!(
            " now: {}, graphs show {} of {} kept{}",
            match &app.replay {
                Some(c) => format!("replay at x{}", c.speed()),
                None => format!("every {}", f::interval(app.interval)),
            },
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
