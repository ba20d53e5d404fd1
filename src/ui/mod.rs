//! Drawing: `draw(frame, &App)` is a pure function of the app's state. It reads the snapshot and
//! the history and writes the frame; nothing here samples, sleeps or changes the app.
//!
//! A frame is the header, the body and the bottom line (the keys and the views' tabs); the body
//! is the shown view's, each view a [`Tab`] in [`views`], listed once in its registry. The
//! layout adapts to the terminal: at 80×24 the overview shows the header, the real-memory bar,
//! the zswap panel with its counters, the swap split and one graph; taller and wider terminals
//! get all four graphs, device lines and the details of what is unavailable. Below
//! [`MIN_WIDTH`]×[`MIN_HEIGHT`] a single line says the terminal is too small.

pub mod graph;
pub mod kept;
pub mod panels;
pub mod theme;
pub mod views;
pub mod widgets;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::{App, Msg, View};
pub use kept::Kept;
pub use theme::Theme;
pub(crate) use theme::locale_is_utf8;
pub use views::Tab;

pub const MIN_WIDTH: u16 = 50;
pub const MIN_HEIGHT: u16 = 12;

/// Draw the whole screen.
pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    render(frame.buffer_mut(), area, app);
}

/// Draw into a buffer (what `draw` does, without a terminal).
pub fn render(buf: &mut Buffer, area: Rect, app: &App) {
    render_kept(buf, area, app, &mut Kept::off());
}

/// Draw into a buffer, leaving out the panels `kept` says the terminal shows already (the
/// dashboard's frames; see [`kept`]).
pub fn render_kept(buf: &mut Buffer, area: Rect, app: &App, kept: &mut Kept) {
    let t = Theme::of(app.settings.theme, app.settings.color, app.settings.ascii);
    // The help is drawn over the panels: nothing is kept under it.
    kept.begin(!app.help);
    if area.width == 0 || area.height == 0 {
        return;
    }
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(buf, area, &t);
    } else {
        let header = panels::header(app, &t, usize::from(area.width));
        let top = Rect {
            height: HEADER_ROWS.min(area.height),
            ..area
        };
        kept.region(buf, top, &widgets::Lines(&header));
        app.view.tab().draw(buf, body(area), app, &t, kept);
        let footer = panels::footer(app, &t, usize::from(area.width));
        let bottom = Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        };
        kept.region(buf, bottom, &widgets::Lines(std::slice::from_ref(&footer)));
        if app.help {
            panels::help(buf, area, app, &t);
        }
    }
    if t.ascii {
        widgets::ascii_only(buf, area);
    }
}

/// The header's rows, above the body.
const HEADER_ROWS: u16 = 3;

/// Below the header's three rows and above the footer.
fn body(area: Rect) -> Rect {
    Rect {
        y: area.y + HEADER_ROWS,
        height: area.height.saturating_sub(HEADER_ROWS + 1),
        ..area
    }
}

/// How far each pane of the view shown scrolls on the terminal the app last saw, and how far
/// PgUp/PgDn move it: what the loop tells the app before each draw.
///
/// Only the panes of the view shown are measured (laying out a list or the diagnostics text
/// costs a frame's worth of work); the others keep what they were last measured at (a pane
/// scrolls only while shown, so never past it), and the loop measures them again when their
/// view comes up.
pub fn lay_out(app: &App) -> Msg {
    let (w, h) = app.size;
    let tab = app.view.tab();
    let mut panes = vec![crate::app::Laid::default(); tab.panes().len()];
    tab.lay_out(app, body(Rect::new(0, 0, w, h)), &mut panes);
    Msg::Laid {
        view: app.view,
        panes,
    }
}

/// Which view's name in the bottom line covers the cell at `column`, `row` on the terminal the
/// app last saw (what a mouse click there switches to).
pub fn view_at(app: &App, column: u16, row: u16) -> Option<View> {
    let (w, h) = app.size;
    if w < MIN_WIDTH || h < MIN_HEIGHT || row != h - 1 {
        return None;
    }
    let t = Theme::new(false, app.settings.ascii);
    let line = panels::footer(app, &t, usize::from(w));
    // The footer ends with each view's label followed by a space.
    let tabs_from = line.spans.len().checked_sub(2 * View::ALL.len())?;
    let mut x = 0usize;
    for (i, span) in line.spans.iter().enumerate() {
        let width = span.width();
        let col = usize::from(column);
        if i >= tabs_from && (i - tabs_from) % 2 == 0 && (x..x + width).contains(&col) {
            return View::ALL.get((i - tabs_from) / 2).copied();
        }
        x += width;
    }
    None
}

fn too_small(buf: &mut Buffer, area: Rect, t: &Theme) {
    let x = if t.ascii { "x" } else { "×" };
    let (w, h) = (area.width, area.height);
    // The longest that fits: shorter forms drop whole words, never cut a size.
    let msg = [
        format!("terminal too small: {w}{x}{h}, need {MIN_WIDTH}{x}{MIN_HEIGHT} (q quits)"),
        format!("too small: {w}{x}{h}, need {MIN_WIDTH}{x}{MIN_HEIGHT}"),
        format!("need {MIN_WIDTH}{x}{MIN_HEIGHT}"),
        format!("{MIN_WIDTH}{x}{MIN_HEIGHT}"),
    ]
    .into_iter()
    .find(|m| m.chars().count() <= usize::from(w))
    .unwrap_or_default();
    widgets::put(buf, area, 0, &Line::from(Span::styled(msg, t.warn())));
}
