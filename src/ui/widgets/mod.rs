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
pub(crate) use ascii::ascii_only;
pub use bar::Segment;
pub(crate) use bar::stacked_bar;
pub(crate) use gauge::gauge;
pub(crate) use table::{Col, table};
pub(crate) use table::{fit_columns, sorted_table};
pub(crate) use text::{Lines, bold, dim, joined, put, raw};
pub(crate) use text::{flow, rule_line, sep, set_line};
pub(crate) use titled::{Titled, rule};
