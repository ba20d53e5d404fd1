//! Small drawing helpers that write straight into the buffer, one widget per file: text pieces
//! and wrapped rows of items, the titled block, the stacked bar, the gauge, plain tables, a
//! list view's frame, and the ASCII pass.

mod ascii;
mod bar;
mod gauge;
pub mod list;
mod table;
mod text;
mod titled;

pub use crate::display::fit;
pub use ascii::ascii_only;
pub use bar::{Segment, stacked_bar};
pub use gauge::gauge;
pub use table::{Col, fit_columns, sorted_table, table};
pub use text::{Lines, bold, dim, flow, joined, put, raw, rule_line, sep, set_line};
pub use titled::{Titled, rule};
