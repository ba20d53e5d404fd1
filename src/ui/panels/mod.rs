//! The text panels, one per file: header, real memory, zswap, swap, zram, footer and help.
//! Each builds a [`Section`](super::widgets::Section) (a titled block of lines) from the
//! snapshot; the layout decides what fits.

mod footer;
mod header;
mod help;
mod memory;
mod swap;
mod zram;
mod zswap;

pub use footer::footer;
pub use header::{finding_counts, finding_lines, header, unavailable_lines};
pub use help::help;
pub use memory::memory;
pub use swap::{split_line, swap};
pub use zram::zram;
pub use zswap::{traffic_lines, zswap};
