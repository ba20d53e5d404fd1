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
//! The key is a hash of the whole description, so a panel is kept only when it would be drawn
//! the same. Nothing else may draw inside a region: a frame with something drawn over the
//! panels (the help) keeps nothing and is not remembered, and the screen forgets the regions
//! when it is cleared or resized.

use std::hash::{DefaultHasher, Hash, Hasher};

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// The regions of the frame before and of this one.
#[derive(Debug, Default)]
pub struct Kept {
    /// Drawn on the frame before: where, and the hash of what.
    last: Vec<(Rect, u64)>,
    /// This frame's: where, the hash of what, and whether it was kept rather than drawn.
    now: Vec<(Rect, u64, bool)>,
    /// Regions may be kept and remembered on this frame.
    on: bool,
}

impl Kept {
    /// Regions that are never kept: every panel is drawn (what a frame drawn once needs).
    pub fn off() -> Kept {
        Kept::default()
    }

    /// A new frame begins; `on`: its regions may be kept (false when something will be drawn
    /// over them).
    pub fn begin(&mut self, on: bool) {
        self.now.clear();
        self.on = on;
    }

    /// Draw a region at `rect` whose drawing `key` describes (whatever `draw` writes must follow
    /// from it and `rect`), unless the frame before drew the same there.
    pub fn region(
        &mut self,
        buf: &mut Buffer,
        rect: Rect,
        key: impl Hash,
        draw: impl FnOnce(&mut Buffer),
    ) {
        let mut h = DefaultHasher::new();
        (rect, key).hash(&mut h);
        let hash = h.finish();
        let keep = self.on && self.last.contains(&(rect, hash));
        if !keep {
            draw(buf);
        }
        if self.on {
            self.now.push((rect, hash, keep));
        }
    }

    /// The regions of this frame that were kept: the terminal shows them already, and the
    /// frame's cells there are blank.
    pub fn kept(&self) -> impl Iterator<Item = Rect> + '_ {
        self.now.iter().filter(|r| r.2).map(|r| r.0)
    }

    /// The frame was written: its regions are what the next one may keep.
    pub fn finish(&mut self) {
        self.last.clear();
        if self.on {
            self.last.extend(self.now.iter().map(|&(r, h, _)| (r, h)));
        }
        self.now.clear();
    }

    /// The terminal was cleared: nothing drawn before is there any more.
    pub fn forget(&mut self) {
        self.last.clear();
        self.now.clear();
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
