//! Regions of the screen kept from one frame to the next.
//!
//! A panel drawn into its own rectangle (a graph, a section of the overview) is described first,
//! as what it will write: lines of text with their styles, the dots of a plot. When that
//! description and the rectangle are the ones drawn there on the frame before, the terminal
//! already shows the panel: it is not drawn again, and the screen does not compare its cells
//! ([`Kept::kept`]). On an idle machine most of the screen stays the same from one second to the
//! next (the graphs' window scrolls a dot every few seconds), and the cost of a tick falls to
//! what changed.
//!
//! The description is kept as the bytes `Hash` feeds a hasher (every string, number and style
//! in it, lengths first), and compared whole with the one before, so a panel is kept only when
//! it would be drawn the same (no hash that two descriptions could share). Nothing else may draw inside a region: a frame with something drawn over the
//! panels (the help) keeps nothing and is not remembered, and the screen forgets the regions
//! when it is cleared or resized.

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
    pub fn off() -> Kept {
        Kept::default()
    }

    /// A new frame begins; `on`: its regions may be kept (false when something will be drawn
    /// over them).
    pub fn begin(&mut self, on: bool) {
        self.recycle_now();
        self.on = on;
    }

    /// Draw a region at `rect` whose drawing `what` describes (whatever `draw` writes must
    /// follow from it and `rect`), unless the frame before drew the same there.
    pub fn region(
        &mut self,
        buf: &mut Buffer,
        rect: Rect,
        what: impl Hash,
        draw: impl FnOnce(&mut Buffer),
    ) {
        if !self.on {
            draw(buf);
            return;
        }
        let mut e = Encoded(self.spare.pop().unwrap_or_default());
        e.0.clear();
        what.hash(&mut e);
        let keep = self.last.iter().any(|(r, b)| *r == rect && *b == e.0);
        if !keep {
            draw(buf);
        }
        self.now.push((rect, e.0, keep));
    }

    /// The regions of this frame that were kept: the terminal shows them already, and the
    /// frame's cells there are blank.
    pub fn kept(&self) -> impl Iterator<Item = Rect> + '_ {
        self.now.iter().filter(|r| r.2).map(|r| r.0)
    }

    /// The frame was written: its regions are what the next one may keep.
    pub fn finish(&mut self) {
        self.spare.extend(self.last.drain(..).map(|(_, b)| b));
        if self.on {
            self.last.extend(self.now.drain(..).map(|(r, b, _)| (r, b)));
        } else {
            self.recycle_now();
        }
    }

    /// The terminal was cleared: nothing drawn before is there any more.
    pub fn forget(&mut self) {
        self.spare.extend(self.last.drain(..).map(|(_, b)| b));
        self.recycle_now();
    }

    /// How many description buffers are held, and their bytes (capacity): bounded by the
    /// regions of a frame and the size of their descriptions, whatever the frames show.
    pub fn footprint(&self) -> (usize, usize) {
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

    fn frame(k: &mut Kept, on: bool, regions: &[(Rect, &str)]) -> Vec<bool> {
        let mut buf = Buffer::empty(Rect::new(0, 0, 20, 4));
        k.begin(on);
        let mut drawn = Vec::new();
        for (r, text) in regions {
            let mut d = false;
            k.region(&mut buf, *r, text, |_| d = true);
            drawn.push(d);
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
