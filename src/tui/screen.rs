//! The screen: what is drawn each frame, and the least that must be written to the terminal to
//! show it.
//!
//! ratatui's `Terminal` keeps two full frames (48 bytes a cell) and compares them cell by cell,
//! measuring the display width of every cell's text on the way, then clears the old one for the
//! next frame. On a dashboard that is mostly the same from one second to the next that compare
//! is most of what a frame costs after the drawing itself, and it runs on memory the second of
//! sleep has pushed out of the caches. [`Screen`] draws the frame the same way (a ratatui
//! `Buffer` the views write into) but remembers what the terminal shows as a compact copy
//! ([`Shade`], 16 bytes a cell): the compare reads the frame just drawn (still in the cache) and
//! a third of the memory besides, and measures a cell's width only when the cell changed.
//!
//! Wide characters: a cell the terminal shows as the right half of a wide character is
//! remembered as covered. While the wide character stays, its covered cells are left alone (what
//! ratatui does too); once something else is drawn there, every covered cell is written again,
//! whatever it holds, because terminals differ in what they leave behind when half of a wide
//! character is overwritten.
//!
//! Cells a widget marks for the diff are treated as ratatui's own diff treats them: a cell
//! marked `Skip` is left as the terminal shows it, one marked `AlwaysUpdate` is written on every
//! frame, whether or not the terminal shows it already.

use ratatui::backend::Backend;
use ratatui::buffer::{Buffer, Cell, CellDiffOption, CellWidth};
use ratatui::layout::{Rect, Size};
use ratatui::style::{Color, Modifier};

use crate::ui::Kept;

/// What the terminal shows in one cell, as far as a frame's cell can be compared with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shade {
    /// The cell's text in UTF-8, when it fits in four bytes (one character, any of them).
    text: [u8; 4],
    /// How many bytes of `text` are used, or [`LONG`] or [`COVERED`].
    len: u8,
    modifier: Modifier,
    fg: Color,
    bg: Color,
}

/// The text is longer than four bytes (a character with combining marks): such a cell is never
/// taken to be the same, so it is written on every frame (they are rare: a name or two).
const LONG: u8 = u8::MAX;
/// The terminal shows this cell as part of the wide character to its left.
const COVERED: u8 = u8::MAX - 1;

impl Shade {
    /// A blank cell with the terminal's default colours: what a cleared screen shows.
    const BLANK: Shade = Shade {
        text: [b' ', 0, 0, 0],
        len: 1,
        modifier: Modifier::empty(),
        fg: Color::Reset,
        bg: Color::Reset,
    };
    const COVERED: Shade = Shade {
        len: COVERED,
        ..Shade::BLANK
    };

    fn of(cell: &Cell) -> Shade {
        // Written out so that no call to memcpy is made for each cell.
        let (text, len) = match *cell.symbol().as_bytes() {
            [a] => ([a, 0, 0, 0], 1),
            [a, b] => ([a, b, 0, 0], 2),
            [a, b, c] => ([a, b, c, 0], 3),
            [a, b, c, d] => ([a, b, c, d], 4),
            [] => ([0; 4], 0),
            _ => ([0; 4], LONG),
        };
        Shade {
            text,
            len,
            modifier: cell.modifier,
            fg: cell.fg,
            bg: cell.bg,
        }
    }

    fn is_blank(&self) -> bool {
        self.len == 1
            && self.text[0] == b' '
            && matches!(self.fg, Color::Reset)
            && matches!(self.bg, Color::Reset)
            && self.modifier.is_empty()
    }

    /// Whether the terminal, showing `self`, already shows `cell` (as [`Shade::of`] it).
    fn shows(&self, cell: &Shade) -> bool {
        self == cell && self.len != LONG
    }
}

/// A cell as a blank buffer holds it: a space in the terminal's colours (what [`Shade::BLANK`]
/// shows).
fn is_blank(cell: &Cell) -> bool {
    matches!(cell.diff_option, CellDiffOption::None)
        && matches!(cell.fg, Color::Reset)
        && matches!(cell.bg, Color::Reset)
        && cell.modifier.is_empty()
        && cell.symbol() == " "
}

/// A cell the terminal is to be left alone at, as ratatui's diff tells it (the deprecated
/// `skip` flag included).
#[allow(deprecated)]
fn is_skip(cell: &Cell) -> bool {
    cell.diff_option == CellDiffOption::Skip
        || (cell.skip && cell.diff_option == CellDiffOption::None)
}

/// The dashboard's screen on a ratatui backend: the frame being drawn, what the terminal shows,
/// the panels it shows already, and the backend.
pub struct Screen<B: Backend> {
    backend: B,
    /// The frame: blank between frames, drawn into on each [`Screen::draw`].
    frame: Buffer,
    /// What the terminal shows, cell by cell (row after row, as in `frame`).
    shown: Vec<Shade>,
    /// The cells of the frame being written, by index (kept to reuse its memory).
    changed: Vec<u32>,
    /// The panels drawn on the frame before, which the next may keep ([`Kept`]).
    kept: Kept,
    /// The regions kept on this frame (kept to reuse its memory).
    kept_rects: Vec<Rect>,
}

impl<B: Backend> Screen<B> {
    /// The screen on `backend`, taken to show nothing yet: the first frame is written whole.
    pub fn new(backend: B) -> Result<Screen<B>, B::Error> {
        let size = backend.size()?;
        let area = Rect::new(0, 0, size.width, size.height);
        Ok(Screen {
            backend,
            frame: Buffer::empty(area),
            shown: vec![Shade::COVERED; usize::from(size.width) * usize::from(size.height)],
            changed: Vec::new(),
            kept: Kept::off(),
            kept_rects: Vec::new(),
        })
    }

    pub fn backend(&self) -> &B {
        &self.backend
    }

    pub fn backend_mut(&mut self) -> &mut B {
        &mut self.backend
    }

    /// How many panels the last frame kept (left as the terminal showed them).
    pub fn kept_regions(&self) -> usize {
        self.kept_rects.len()
    }

    /// The panels' descriptions kept for the next frame: how many buffers, and their bytes.
    pub fn kept_footprint(&self) -> (usize, usize) {
        self.kept.footprint()
    }

    /// The terminal's size, from the backend.
    pub fn size(&self) -> Result<Size, B::Error> {
        self.backend.size()
    }

    /// Blank the terminal: the next frame is written in full (what it shows on a blank screen).
    pub(crate) fn clear(&mut self) -> Result<(), B::Error> {
        self.kept.forget();
        self.backend.clear()?;
        self.shown.fill(Shade::BLANK);
        Ok(())
    }

    /// Draw a frame: `render` writes it into a blank buffer of the terminal's size, then the
    /// cells that differ from what the terminal shows are written and flushed, and the cursor
    /// is kept hidden. A terminal whose size changed is cleared first.
    pub fn draw(
        &mut self,
        render: impl FnOnce(&mut Buffer, Rect, &mut Kept),
    ) -> Result<(), B::Error> {
        let size = self.backend.size()?;
        let area = Rect::new(0, 0, size.width, size.height);
        if area != self.frame.area {
            self.frame.resize(area);
            self.shown.resize(
                usize::from(size.width) * usize::from(size.height),
                Shade::BLANK,
            );
            self.clear()?;
        }
        render(&mut self.frame, area, &mut self.kept);
        self.compare();
        self.kept.finish();
        let frame = &self.frame;
        let width = usize::from(area.width.max(1));
        let written = self.backend.draw(self.changed.iter().map(|&i| {
            let i = i as usize;
            // Both fit: the area is at most u16::MAX on each side.
            ((i % width) as u16, (i / width) as u16, &frame.content[i])
        }));
        // The rest of the frame was blanked as it was compared.
        for &i in &self.changed {
            self.frame.content[i as usize] = Cell::EMPTY;
        }
        written?;
        self.backend.hide_cursor()?;
        Backend::flush(&mut self.backend)
    }

    /// Find the cells of the frame the terminal does not show yet (into `changed`), and take
    /// them as shown; blank the others for the next frame while they are in the cache (one
    /// pass over the frame instead of two).
    fn compare(&mut self) {
        self.changed.clear();
        // Kept regions are shown already and blank in the frame: not compared at all.
        self.kept_rects.clear();
        self.kept_rects.extend(self.kept.kept());
        self.kept_rects.sort_unstable_by_key(|r| r.x);
        let width = usize::from(self.frame.area.width);
        for (row, (cells, shown)) in self
            .frame
            .content
            .chunks_exact_mut(width.max(1))
            .zip(self.shown.chunks_exact_mut(width.max(1)))
            .enumerate()
        {
            let y = row as u16;
            let mut x = 0;
            for r in self
                .kept_rects
                .iter()
                .filter(|r| r.y <= y && y < r.bottom())
            {
                let from = usize::from(r.x).min(cells.len());
                // Nothing may be drawn inside a kept region (it would stay in the frame).
                debug_assert!(
                    cells[from..usize::from(r.right()).min(cells.len())]
                        .iter()
                        .all(is_blank),
                    "drawn inside the kept region {r:?}"
                );
                if x < from {
                    compare_span(&mut self.changed, row * width, cells, shown, x, from);
                }
                x = x.max(usize::from(r.right()).min(cells.len()));
            }
            compare_span(&mut self.changed, row * width, cells, shown, x, cells.len());
        }
    }
}

/// Compare the cells `x..end` of one row (the first at `base` in the frame), as
/// [`Screen::compare`] says.
fn compare_span(
    changed: &mut Vec<u32>,
    base: usize,
    cells: &mut [Cell],
    shown: &mut [Shade],
    mut x: usize,
    end: usize,
) {
    while x < end {
        let cell = &mut cells[x];
        // Most of a screen is blank in both: told apart first, without building a shade.
        if shown[x].is_blank() && is_blank(cell) {
            x += 1;
            continue;
        }
        // As ratatui's own diff (`BufferDiff`): a skipped cell is left as the terminal shows
        // it, a cell to update always is written even when the terminal shows it already.
        if is_skip(cell) {
            *cell = Cell::EMPTY;
            x += 1;
            continue;
        }
        let shade = Shade::of(cell);
        if cell.diff_option != CellDiffOption::AlwaysUpdate && shown[x].shows(&shade) {
            // The same as shown; so is the rest of it when it is wide. A blank cell stays as
            // it is (writing it would only dirty the cache).
            if shade != Shade::BLANK || cell.diff_option != CellDiffOption::None {
                *cell = Cell::EMPTY;
            }
            x += 1;
            while x < end && shown[x].len == COVERED {
                cells[x] = Cell::EMPTY;
                x += 1;
            }
            continue;
        }
        // Both fit in u32: the area is at most u16::MAX × u16::MAX cells.
        changed.push((base + x) as u32);
        shown[x] = shade;
        let next = (x + usize::from(cell.cell_width().max(1))).min(end);
        for s in &mut shown[x + 1..next] {
            *s = Shade::COVERED;
        }
        for c in &mut cells[x + 1..next] {
            *c = Cell::EMPTY;
        }
        x = next;
    }
}

/// Each row of `buf` as a terminal shows it: `cell(c)` of every cell, but for the cells covered
/// by a wide character to their left. What tests compare.
pub fn rows(buf: &Buffer, cell: impl Fn(&Cell) -> String) -> Vec<String> {
    (buf.area.top()..buf.area.bottom())
        .map(|y| {
            let mut line = String::new();
            let mut x = buf.area.left();
            while x < buf.area.right() {
                let c = &buf[(x, y)];
                line.push_str(&cell(c));
                x += c.cell_width().max(1);
            }
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::backend::TestBackend;
    use ratatui::style::Style;

    fn screen(w: u16, h: u16) -> Screen<TestBackend> {
        Screen::new(TestBackend::new(w, h)).unwrap()
    }

    /// Draw `lines` (each at its row) and return how many cells were written.
    fn draw(s: &mut Screen<TestBackend>, lines: &[(&str, Style)]) -> usize {
        s.draw(|buf, area, _| {
            for (y, (text, style)) in lines.iter().enumerate() {
                buf.set_stringn(0, y as u16, text, usize::from(area.width), *style);
            }
        })
        .unwrap();
        s.changed.len()
    }

    fn shown(s: &Screen<TestBackend>) -> Vec<String> {
        rows(s.backend().buffer(), |c| c.symbol().to_string())
    }

    #[test]
    fn the_first_frame_is_written_whole_and_an_unchanged_one_not_at_all() {
        let mut s = screen(10, 2);
        assert_eq!(draw(&mut s, &[("hello", Style::new())]), 20);
        assert_eq!(draw(&mut s, &[("hello", Style::new())]), 0);
        assert_eq!(draw(&mut s, &[("help", Style::new())]), 2);
        assert_eq!(shown(&s), ["help      ", "          "]);
        // A style is part of what is shown.
        assert_eq!(draw(&mut s, &[("help", Style::new().red())]), 4);
        assert_eq!(s.backend().buffer()[(0, 0)].fg, Color::Red);
        // Nothing left over from the frame before: an empty frame blanks what was shown.
        assert_eq!(draw(&mut s, &[]), 4);
        assert_eq!(shown(&s), ["          ", "          "]);
        assert_eq!(draw(&mut s, &[]), 0);
    }

    #[test]
    fn a_cleared_screen_gets_every_cell_that_is_not_blank() {
        let mut s = screen(10, 2);
        draw(&mut s, &[("ab", Style::new()), ("c", Style::new())]);
        s.clear().unwrap();
        assert_eq!(shown(&s), ["          ", "          "]);
        assert_eq!(
            draw(&mut s, &[("ab", Style::new()), ("c", Style::new())]),
            3
        );
        assert_eq!(shown(&s), ["ab        ", "c         "]);
    }

    #[test]
    fn wide_characters_cover_the_next_cell_until_something_else_is_drawn_there() {
        let mut s = screen(6, 1);
        draw(&mut s, &[("ab", Style::new())]);
        // 世 covers columns 0 and 1: one write.
        assert_eq!(draw(&mut s, &[("世c", Style::new())]), 2);
        assert_eq!(shown(&s), ["世c   "]);
        assert_eq!(draw(&mut s, &[("世c", Style::new())]), 0);
        // Narrow again: the covered column is written even though it is blank in both frames.
        assert_eq!(draw(&mut s, &[("x", Style::new())]), 3);
        assert_eq!(shown(&s), ["x     "]);
        let b = s.backend().buffer();
        assert_eq!(b[(1, 0)].symbol(), " ");
    }

    #[test]
    fn text_longer_than_four_bytes_is_always_written() {
        let mut s = screen(4, 1);
        // e with two combining marks: one cell, five bytes.
        let e = "e\u{0301}\u{0302}";
        assert_eq!(draw(&mut s, &[(e, Style::new())]), 4);
        assert_eq!(draw(&mut s, &[(e, Style::new())]), 1);
        assert_eq!(s.backend().buffer()[(0, 0)].symbol(), e);
    }

    #[test]
    fn a_new_size_clears_and_writes_the_frame_at_that_size() {
        let mut s = screen(8, 2);
        draw(&mut s, &[("one", Style::new()), ("two", Style::new())]);
        s.backend_mut().resize(5, 3);
        assert_eq!(
            draw(&mut s, &[("one", Style::new()), ("two", Style::new())]),
            6
        );
        assert_eq!(shown(&s), ["one  ", "two  ", "     "]);
        assert_eq!(s.backend().buffer().area, Rect::new(0, 0, 5, 3));
    }

    /// Cells marked to be updated always are written on every frame, and cells marked to be
    /// skipped never, as through ratatui's own `Terminal`: after each frame both terminals show
    /// the same, and the cells written are the ones ratatui's diff writes for those marks.
    #[test]
    fn cells_marked_always_update_or_skip_are_written_as_ratatui_does() {
        use ratatui::Terminal;
        let frames: [(&str, CellDiffOption, CellDiffOption); 5] = [
            ("abcd", CellDiffOption::None, CellDiffOption::None),
            ("abcd", CellDiffOption::AlwaysUpdate, CellDiffOption::None),
            ("abXd", CellDiffOption::AlwaysUpdate, CellDiffOption::Skip),
            ("abXd", CellDiffOption::None, CellDiffOption::Skip),
            ("abXd", CellDiffOption::None, CellDiffOption::None),
        ];
        let paint = |buf: &mut Buffer, (text, b, c): (&str, CellDiffOption, CellDiffOption)| {
            buf.set_string(0, 0, text, Style::new());
            buf[(1, 0)].set_diff_option(b);
            buf[(2, 0)].set_diff_option(c);
        };
        let mut ours = screen(4, 1);
        let mut theirs = Terminal::new(TestBackend::new(4, 1)).unwrap();
        let mut written = Vec::new();
        for f in frames {
            draw_with(&mut ours, |b| paint(b, f));
            theirs.draw(|fr| paint(fr.buffer_mut(), f)).unwrap();
            assert_eq!(
                shown(&ours),
                rows(theirs.backend().buffer(), |c| c.symbol().into())
            );
            written.push(ours.changed.clone());
        }
        // The first frame whole; the updated cell again and again; nothing where skipped (the
        // X is written once the mark is gone, as ratatui does).
        assert_eq!(
            written,
            [vec![0, 1, 2, 3], vec![1], vec![1], vec![], vec![2]]
        );
        assert_eq!(shown(&ours), ["abXd"]);
    }

    fn draw_with(s: &mut Screen<TestBackend>, paint: impl Fn(&mut Buffer)) {
        s.draw(|buf, _, _| paint(buf)).unwrap();
    }

    /// What a terminal shows after each frame of a random sequence (text with wide
    /// characters, combining marks and styles, at random places) is that frame, as ratatui
    /// would show it drawn on a blank screen.
    mod sequences {
        use super::*;
        use proptest::prelude::*;

        const PIECES: [&str; 8] = ["a", "bc", "世", "界x", " ", "e\u{0301}", "⣀", "━━"];

        fn line() -> impl Strategy<Value = (u16, u16, String, u8)> {
            (
                0u16..12,
                0u16..3,
                prop::collection::vec(0..PIECES.len(), 0..6),
                0u8..3,
            )
                .prop_map(|(x, y, p, st)| (x, y, p.into_iter().map(|i| PIECES[i]).collect(), st))
        }

        fn style(st: u8) -> Style {
            match st {
                0 => Style::new(),
                1 => Style::new().red(),
                _ => Style::new().on_blue().bold(),
            }
        }

        proptest! {
            #[test]
            fn the_terminal_shows_each_frame(
                frames in prop::collection::vec(prop::collection::vec(line(), 0..5), 1..8)
            ) {
                let mut s = screen(12, 3);
                for lines in &frames {
                    let paint = |buf: &mut Buffer, area: Rect| {
                        for (x, y, text, st) in lines {
                            buf.set_stringn(*x, *y, text, usize::from(area.width), style(*st));
                        }
                    };
                    s.draw(|b, a, _| paint(b, a)).unwrap();
                    let mut expected = Buffer::empty(Rect::new(0, 0, 12, 3));
                    let area = expected.area;
                    paint(&mut expected, area);
                    let got = s.backend().buffer();
                    for y in 0..3 {
                        let mut x = 0;
                        while x < 12 {
                            let (g, e) = (&got[(x, y)], &expected[(x, y)]);
                            prop_assert_eq!(
                                (g.symbol(), g.fg, g.bg, g.modifier),
                                (e.symbol(), e.fg, e.bg, e.modifier),
                                "at {},{}", x, y
                            );
                            x += e.cell_width().max(1);
                        }
                    }
                }
            }
        }
    }
}
