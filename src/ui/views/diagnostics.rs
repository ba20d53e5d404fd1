//! The diagnostics view: every finding in full (severity, id, summary, the evidence, the fix and
//! why), then the tunables with the value suggested for the detected setup. One text, wrapped
//! to the terminal and scrolled by line; the wording is `--once`'s.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{Tab, View};
use crate::app::{App, Laid};
use crate::display as f;
use crate::model::Snapshot;
use crate::ui::kept::Kept;
use crate::ui::panels::finding_counts;
use crate::ui::theme::Theme;
use crate::ui::widgets;
use crate::ui::widgets::{bold, dim, raw};

pub struct Diagnostics;

/// The tunables are read while it is shown.
impl crate::app::Kind for Diagnostics {
    fn panes(&self) -> &'static [&'static str] {
        &["diagnostics"]
    }

    fn scans(&self, _app: &App) -> crate::sources::Extras {
        crate::sources::Extras {
            settings: true,
            ..Default::default()
        }
    }
}

impl Tab for Diagnostics {
    /// The text scrolls until its last line is at the bottom.
    fn lay_out(&self, app: &App, body: Rect, panes: &mut [Laid]) {
        let t = Theme::new(false, app.settings.ascii);
        let rows = text_rows(body.height);
        if let Some(p) = panes.first_mut() {
            *p = Laid {
                max: lines(&app.shown, &t, usize::from(body.width))
                    .len()
                    .saturating_sub(rows),
                page: rows.saturating_sub(1).max(1),
            };
        }
    }

    fn draw(&self, buf: &mut Buffer, body: Rect, app: &App, t: &Theme, _kept: &mut Kept) {
        draw(buf, body, app, t);
    }
}

/// How a paragraph's text is wrapped: [`f::wrap`], or [`f::wrap_commands`] for a fix.
type Wrap = fn(&str, usize, usize, usize) -> Vec<String>;

/// `text` wrapped to `width` by `wrap`: the first line after `head` (already styled), the
/// others indented by `indent`.
fn paragraph(
    out: &mut Vec<Line<'static>>,
    head: Vec<Span<'static>>,
    indent: usize,
    text: &str,
    (width, wrap): (usize, Wrap),
    style: ratatui::style::Style,
) {
    let first: usize = head.iter().map(Span::width).sum();
    for (i, l) in wrap(text, width, first, indent).into_iter().enumerate() {
        if i == 0 {
            let mut spans = head.clone();
            spans.push(Span::styled(l, style));
            out.push(Line::from(spans));
        } else {
            out.push(Line::from(vec![
                raw(" ".repeat(indent)),
                Span::styled(l, style),
            ]));
        }
    }
}

/// The heading, which stays while the text below scrolls: the counts, the detected setup, and
/// which lines are shown.
fn heading(s: &Snapshot, t: &Theme, width: usize, shown: (usize, usize, usize)) -> Line<'static> {
    let mut right = finding_counts(&s.diagnostics, t);
    if right.is_empty() {
        right.push(raw("none"));
    }
    if let Some(a) = s.tunables_advice.first() {
        right.push(dim(t, format!("{}setup: ", t.sep())));
        right.push(bold(t, a.setup.clone()));
    }
    let (from, to, of) = shown;
    if to < of || from > 0 {
        right.push(dim(
            t,
            format!("{}lines {}-{to} of {of}", t.sep(), from + 1),
        ));
    }
    widgets::rule_line(vec![bold(t, "Diagnostics")], right, width, t)
}

/// The text under the heading at `width`.
pub fn lines(s: &Snapshot, t: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let setup = s.tunables_advice.first().map(|a| a.setup.clone());
    if s.diagnostics.is_empty() {
        out.push(Line::from(raw(
            "no problems found in what the kernel exposes",
        )));
    }
    for (i, d) in s.diagnostics.iter().enumerate() {
        if i > 0 {
            out.push(Line::from(""));
        }
        let head = vec![
            Span::styled(
                format!("{}  ", f::severity_tag(d.severity)),
                t.severity(d.severity),
            ),
            bold(t, format!("{}: ", d.id)),
        ];
        let prose = (width, f::wrap as Wrap);
        paragraph(&mut out, head, 6, &d.summary, prose, t.plain());
        for e in &d.evidence {
            paragraph(&mut out, vec![dim(t, "      - ")], 8, e, prose, t.plain());
        }
        // A fix holds commands to copy: broken only where the shell reads on (a word longer
        // than the line runs past the edge, marked `…`; `--once --full` prints it whole).
        paragraph(
            &mut out,
            vec![dim(t, "      fix: ")],
            11,
            &d.fix,
            (width, f::wrap_commands),
            t.plain(),
        );
        paragraph(
            &mut out,
            vec![dim(t, "      why: ")],
            11,
            &d.why,
            prose,
            t.plain(),
        );
    }

    if let Some(setup) = setup {
        out.push(Line::from(""));
        out.push(widgets::rule_line(
            vec![bold(t, "Tunables")],
            vec![dim(t, "suggested for "), bold(t, setup)],
            width,
            t,
        ));
        let name_w = 30.min(width.saturating_sub(30)).max(12);
        out.push(Line::from(dim(
            t,
            format!("{:<name_w$} {:>9}  {:<9}", "setting", "now", "suggested"),
        )));
        for a in &s.tunables_advice {
            let now = a.current.as_deref().unwrap_or(t.missing());
            let mark = match &a.current {
                Some(c) if c.trim() == a.suggested => dim(t, "ok"),
                Some(_) => Span::styled("change", t.warn()),
                None => raw(""),
            };
            out.push(Line::from(vec![
                raw(format!(
                    "{:<name_w$} {:>9}  ",
                    widgets::fit(&a.name, name_w, t.ascii),
                    widgets::fit(now, 9, t.ascii)
                )),
                bold(t, format!("{:<9} ", widgets::fit(&a.suggested, 9, t.ascii))),
                mark,
            ]));
            let why = if a.opinion {
                format!("{} (opinion)", a.why)
            } else {
                a.why.to_string()
            };
            paragraph(
                &mut out,
                vec![raw("    ")],
                4,
                &why,
                (width, f::wrap),
                t.dim(),
            );
        }
    }

    // The advisor samples other processes' memory: it runs only when asked, never from here.
    out.push(Line::from(""));
    out.push(widgets::rule_line(
        vec![bold(t, "Compressor")],
        vec![dim(t, "measured on demand")],
        width,
        t,
    ));
    paragraph(
        &mut out,
        Vec::new(),
        0,
        ADVISE_HINT,
        (width, f::wrap_commands),
        t.plain(),
    );
    out
}

/// What `zswaptop advise` answers, said where the findings are (the dashboard never samples
/// page contents itself).
const ADVISE_HINT: &str = "Which compressor would hold these pages in the least RAM, and at what CPU? \
    `sudo zswaptop advise` compresses a sample of this machine's resident anonymous memory (64 MiB, \
    about 1-2 s of CPU) with every algorithm zswap and zram offer here, checks its prediction against \
    the ratio the kernel reaches now, and says which to choose with the exact command. Page contents \
    are compressed in memory and dropped, never kept or shown.";

/// Rows of text under the heading.
fn text_rows(area_height: u16) -> usize {
    usize::from(area_height.saturating_sub(1))
}

/// The view, scrolled.
fn draw(buf: &mut Buffer, area: Rect, app: &App, t: &Theme) {
    let width = usize::from(area.width);
    let all = lines(&app.shown, t, width);
    let rows = text_rows(area.height);
    let max = all.len().saturating_sub(rows);
    let offset = app.scroll(View::Diagnostics).min(max);
    let to = (offset + rows).min(all.len());
    widgets::put(
        buf,
        area,
        0,
        &heading(&app.shown, t, width, (offset, to, all.len())),
    );
    for (y, l) in all[offset..to].iter().enumerate() {
        widgets::put(buf, area, 1 + y as u16, l);
    }
}
