//! Small drawing helpers that write straight into the buffer, one widget per file: text pieces
//! and wrapped rows of items, the titled section, the stacked bar, the gauge, plain tables, and
//! the ASCII pass.

mod ascii;
mod bar;
mod gauge;
mod section;
mod table;
mod text;

pub use crate::display::fit;
pub use ascii::ascii_only;
pub use bar::{Segment, stacked_bar};
pub use gauge::gauge;
pub use section::{Section, rule};
pub use table::{Col, fit_columns, sorted_table, table};
pub use text::{bold, dim, flow, joined, put, raw, rule_line, sep, set_line};
