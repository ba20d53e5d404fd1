//! Regions of the screen kept from one frame to the next.
//!
//! A panel drawn into its own rectangle (a graph, a section of the overview, the header) is a
//! value that describes what it will write: lines of text with their styles, the dots of a
//! plot, the styles of its series ([`Panel`]). It is drawn from that value and its rectangle
//! alone: [`Panel::draw`] gets nothing else, so what is compared is all that is drawn. When the
//! value and the rectangle are the ones drawn there on the frame before, the terminal already
//! shows the panel: it is not drawn again, and the screen does not compare its cells
//! ([`Kept::kept`]). On an idle machine most of the screen stays the same from one second to the
//! next (the graphs' window scrolls a dot every few seconds), and the cost of a tick falls to
//! what changed.
//!
//! The value is kept as the bytes `Hash` feeds a hasher (every string, number and style in it,
//! lengths first), and compared whole with the one before, so a panel is kept only when it
//! would be drawn the same (no hash that two values could share). A panel's `Hash` is derived,
//! so that every field it draws from is in it. Nothing else may draw inside a region: a frame
//! with something drawn over the panels (the help) keeps nothing and is not remembered, and the
//! screen forgets the regions when it is cleared or resized.

use std::hash::{Hash, Hasher};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The regions of the frame before and of this one.
#[derive(Debug, Default)]
pub struct Kept {
    /// Drawn on the frame before: where, and what (as [`Encoded`] it).
    last: Vec<(Rect, Vec<u8>)>,
    /// This frame's: where, what, and whether it was kept rather than drawn.
    now: Vec<(Rect, Vec<u8>, bool)>,
    /// Byte buffers to reuse (no allocation a frame once they have grown).
    spare: Vec<Vec<u8>>,
    /// Regions may be kept and remembered on this frame.
    on: bool,
}

/// What a kept region shows: drawn from itself and its rectangle only, and compared as the
/// bytes its (derived) `Hash` writes.
pub trait Panel: Hash {
    /// Draw the panel into `area` of `buf`.
    fn draw(&self, buf: &mut Buffer, area: Rect);
}

/// A `Hasher` that keeps every byte it is fed: the description, whole.
struct Encoded(Vec<u8>);

impl Hasher for Encoded {
    fn write(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn finish(&self) -> u64 {
        0
    }
}

impl Kept {
    /// Regions that are never kept: every panel is drawn (what a frame drawn once needs).
    pub(crate) fn off() -> Kept {
        Kept::default()
    }

    /// A new frame begins; `on`: its regions may be kept (false when something will be drawn
    /// over them).
    pub(crate) fn begin(&mut self, on: bool) {
        self.recycle_now();
        self.on = on;
    }

    /// Draw `panel` at `rect`, unless the frame before drew the same panel there.
    pub(crate) fn region(&mut self, buf: &mut Buffer, rect: Rect, panel: &impl Panel) {
        if !self.on {
            panel.draw(buf, rect);
            return;
        }
        let mut e = Encoded(self.spare.pop().unwrap_or_default());
        e.0.clear();
        panel.hash(&mut e);
        let keep = self.last.iter().any(|(r, b)| *r == rect && *b == e.0);
        if !keep {
            panel.draw(buf, rect);
        }
        self.now.push((rect, e.0, keep));
    }

    /// The regions of this frame that were kept: the terminal shows them already, and the
    /// frame's cells there are blank.
    pub(crate) fn kept(&self) -> impl Iterator<Item = Rect> + '_ {
        self.now.iter().filter(|r| r.2).map(|r| r.0)
    }

    /// The frame was written: its regions are what the next one may keep.
    pub(crate) fn finish(&mut self) {
        self.spare.extend(self.last.drain(..).map(|(_, b)| b));
        if self.on {
            self.last.extend(self.now.drain(..).map(|(r, b, _)| (r, b)));
        } else {
            self.recycle_now();
        }
    }

    /// The terminal was cleared: nothing drawn before is there any more.
    pub(crate) fn forget(&mut self) {
        self.spare.extend(self.last.drain(..).map(|(_, b)| b));
        self.recycle_now();
    }

    /// How many description buffers are held, and their bytes (capacity): bounded by the
    /// regions of a frame and the size of their descriptions, whatever the frames show.
    pub(crate) fn footprint(&self) -> (usize, usize) {
        let last = self.last.iter().map(|(_, b)| b);
        let now = self.now.iter().map(|(_, b, _)| b);
        let all = last.chain(now).chain(&self.spare);
        all.fold((0, 0), |(n, bytes), b| (n + 1, bytes + b.capacity()))
    }

    fn recycle_now(&mut self) {
        self.spare.extend(self.now.drain(..).map(|(_, b, _)| b));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A panel of one word: drawn where its first cell is not blank.
    #[derive(Hash)]
    struct Text<'a>(&'a str);

    impl Panel for Text<'_> {
        fn draw(&self, buf: &mut Buffer, area: Rect) {
            buf.set_string(area.x, area.y, self.0, ratatui::style::Style::new());
        }
    }

    fn frame(k: &mut Kept, on: bool, regions: &[(Rect, &str)]) -> Vec<bool> {
        let mut drawn = Vec::new();
        k.begin(on);
        for (r, text) in regions {
            let mut buf = Buffer::empty(Rect::new(0, 0, 20, 4));
            k.region(&mut buf, *r, &Text(text));
            drawn.push(buf[(r.x, r.y)].symbol() != " ");
        }
        k.finish();
        drawn
    }

    #[test]
    fn the_same_drawing_in_the_same_place_is_kept() {
        let (a, b) = (Rect::new(0, 0, 20, 2), Rect::new(0, 2, 20, 2));
        let mut k = Kept::default();
        assert_eq!(frame(&mut k, true, &[(a, "x"), (b, "y")]), [true, true]);
        assert_eq!(frame(&mut k, true, &[(a, "x"), (b, "z")]), [false, true]);
        // Moved: drawn.
        assert_eq!(frame(&mut k, true, &[(b, "x"), (a, "z")]), [true, true]);
        // Under an overlay nothing is kept, and the frame after keeps nothing either.
        assert_eq!(frame(&mut k, false, &[(b, "x"), (a, "z")]), [true, true]);
        assert_eq!(frame(&mut k, true, &[(b, "x"), (a, "z")]), [true, true]);
        assert_eq!(frame(&mut k, true, &[(b, "x"), (a, "z")]), [false, false]);
        k.forget();
        assert_eq!(frame(&mut k, true, &[(b, "x"), (a, "z")]), [true, true]);
        assert_eq!(Kept::off().kept().count(), 0);
    }
}
