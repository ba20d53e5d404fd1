//! A scratch view: what adding a view takes.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::Tab;
use crate::app::{App, Kind};
use crate::ui::kept::Kept;
use crate::ui::theme::Theme;

pub struct Scratch;

impl Kind for Scratch {}

impl Tab for Scratch {
    fn draw(&self, _buf: &mut Buffer, _body: Rect, _app: &App, _t: &Theme, _kept: &mut Kept) {}
}
