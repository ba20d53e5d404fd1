//! Styles and symbols. Colours are the terminal's own 16 (never fixed RGB), used only as
//! accents on the default foreground and for backgrounds of bar segments. The default theme
//! reads on dark and light backgrounds alike; the light theme ([`Palette::Light`]) trades the
//! pale colours (bright yellow, blue and magenta, grey) for their darker kin, which read better
//! on a white background. Without colour (NO_COLOR, `--no-color`, TERM=dumb, the mono theme) only
//! bold, dim and reverse remain; in ASCII mode every symbol has a 7-bit stand-in.

use ratatui::style::{Color, Modifier, Style};

pub use crate::app::Palette;
use crate::model::Severity;
use crate::model::memory::BUCKETS;
use crate::model::metrics::Hue;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Theme {
    pub color: bool,
    pub ascii: bool,
    pub palette: Palette,
}

/// The terminal colour for a catalogue hue.
pub(crate) fn color(h: Hue) -> Color {
    match h {
        Hue::Green => Color::Green,
        Hue::Cyan => Color::Cyan,
        Hue::Blue => Color::Blue,
        Hue::LightBlue => Color::LightBlue,
        Hue::Yellow => Color::Yellow,
        Hue::LightYellow => Color::LightYellow,
        Hue::Magenta => Color::Magenta,
        Hue::LightMagenta => Color::LightMagenta,
        Hue::Red => Color::Red,
        Hue::Gray => Color::Gray,
        Hue::DarkGray => Color::DarkGray,
    }
}

/// `c` as the light theme shows it: the pale colours, which fade into a white background,
/// replaced by their darker kin. Light blue becomes dark grey rather than blue: the traffic
/// graph draws both a blue and a light blue series (a test keeps each graph's series apart).
fn on_light(c: Color) -> Color {
    match c {
        Color::LightYellow | Color::Yellow => Color::Yellow,
        Color::LightBlue => Color::DarkGray,
        Color::LightMagenta => Color::Magenta,
        Color::LightCyan => Color::Cyan,
        Color::LightGreen => Color::Green,
        Color::Gray | Color::White => Color::DarkGray,
        other => other,
    }
}

impl Theme {
    /// The default theme, with colour or without.
    pub fn new(color: bool, ascii: bool) -> Theme {
        Theme::of(Palette::Default, color, ascii)
    }

    /// The theme `palette`; the mono theme never has colour.
    pub(crate) fn of(palette: Palette, color: bool, ascii: bool) -> Theme {
        Theme {
            color: color && palette != Palette::Mono,
            ascii,
            palette,
        }
    }

    /// The colour `c` as this theme shows it.
    pub(crate) fn hue(&self, c: Color) -> Color {
        match self.palette {
            Palette::Light => on_light(c),
            Palette::Default | Palette::Mono => c,
        }
    }

    fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::new().fg(self.hue(c))
        } else {
            Style::new()
        }
    }

    pub(crate) fn plain(&self) -> Style {
        Style::new()
    }

    pub(crate) fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub(crate) fn dim(&self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }

    pub(crate) fn title(&self) -> Style {
        self.bold()
    }

    /// The compressed pools, wherever they appear.
    pub(crate) fn pool(&self) -> Style {
        self.fg(Color::Magenta).add_modifier(Modifier::BOLD)
    }

    pub(crate) fn good(&self) -> Style {
        self.fg(Color::Green)
    }

    pub(crate) fn warn(&self) -> Style {
        if self.color {
            self.fg(Color::Yellow)
        } else {
            self.bold()
        }
    }

    pub(crate) fn bad(&self) -> Style {
        if self.color {
            self.fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            self.bold()
        }
    }

    /// A finding's tag: critical red, warning yellow, information dimmed.
    pub(crate) fn severity(&self, s: Severity) -> Style {
        match s {
            Severity::Crit => self.bad(),
            Severity::Warn => self.warn(),
            Severity::Info => self.dim(),
        }
    }

    /// Reverse video: the paused badge, the focused table's title, the current view.
    pub(crate) fn badge(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    }

    /// The bar colour of breakdown bucket `i` (in `BUCKETS` order), with colour on.
    pub(crate) fn bucket_bg(&self, i: usize) -> Option<Color> {
        if self.color {
            // The same in every theme: a swatch carries a black glyph, readable on any of them,
            // and the pale colours keep the buckets apart.
            BUCKETS.get(i).map(|b| color(b.hue))
        } else {
            None
        }
    }

    /// A series' colour in a graph (all readable on either background).
    pub(crate) fn series(&self, h: Hue) -> Style {
        self.fg(color(h))
    }

    pub(crate) fn hline(&self) -> &'static str {
        if self.ascii { "-" } else { "─" }
    }

    pub(crate) fn sep(&self) -> &'static str {
        if self.ascii { " | " } else { " · " }
    }

    /// The sort direction's arrow: largest first (down) or smallest first (up).
    pub(crate) fn arrow(&self, descending: bool) -> &'static str {
        match (self.ascii, descending) {
            (false, true) => "↓",
            (false, false) => "↑",
            (true, true) => "v",
            (true, false) => "^",
        }
    }

    /// The text cursor in the filter prompt.
    pub(crate) fn cursor(&self) -> &'static str {
        if self.ascii { "_" } else { "█" }
    }

    pub(crate) fn missing(&self) -> &'static str {
        if self.ascii {
            crate::display::MISSING_ASCII
        } else {
            crate::display::MISSING
        }
    }
}

/// Whether the locale's character set is UTF-8, from LC_ALL, LC_CTYPE and LANG in that order
/// (the first one set decides; none set means the "C" locale, which is ASCII).
pub(crate) fn locale_is_utf8(var: impl Fn(&str) -> Option<String>) -> bool {
    for k in ["LC_ALL", "LC_CTYPE", "LANG"] {
        if let Some(v) = var(k).filter(|v| !v.is_empty()) {
            let v = v.to_ascii_lowercase();
            return v.contains("utf-8") || v.contains("utf8");
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn locale_detection() {
        assert!(locale_is_utf8(env(&[("LANG", "en_US.UTF-8")])));
        assert!(locale_is_utf8(env(&[("LANG", "C.utf8")])));
        assert!(!locale_is_utf8(env(&[])));
        assert!(!locale_is_utf8(env(&[("LANG", "C")])));
        assert!(!locale_is_utf8(env(&[
            ("LC_ALL", "POSIX"),
            ("LANG", "en_US.UTF-8")
        ])));
        assert!(locale_is_utf8(env(&[
            ("LC_ALL", ""),
            ("LC_CTYPE", "de_DE.UTF-8"),
            ("LANG", "C")
        ])));
        assert!(!locale_is_utf8(env(&[("LANG", "en_US.ISO-8859-1")])));
    }

    #[test]
    fn no_colour_means_no_colours() {
        let t = Theme::new(false, false);
        for s in [t.pool(), t.good(), t.warn(), t.bad(), t.series(Hue::Cyan)] {
            assert_eq!(s.fg, None);
            assert_eq!(s.bg, None);
        }
        assert_eq!(t.bucket_bg(0), None);
    }

    /// The mono theme has no colour even when colour is allowed; the light theme draws no text
    /// in a pale colour.
    #[test]
    fn the_themes_colours() {
        let mono = Theme::of(Palette::Mono, true, false);
        assert!(!mono.color);
        assert_eq!(mono.pool().fg, None);
        let light = Theme::of(Palette::Light, true, false);
        let pale = [
            Color::LightYellow,
            Color::LightBlue,
            Color::LightMagenta,
            Color::Gray,
            Color::White,
        ];
        for h in [
            Hue::Green,
            Hue::Cyan,
            Hue::Blue,
            Hue::LightBlue,
            Hue::Yellow,
            Hue::LightYellow,
            Hue::Magenta,
            Hue::LightMagenta,
            Hue::Red,
            Hue::Gray,
            Hue::DarkGray,
        ] {
            let fg = light.series(h).fg.unwrap();
            assert!(!pale.contains(&fg), "{h:?} is {fg:?}");
        }
    }

    /// In every theme with colour, the series of one graph have colours of their own.
    #[test]
    fn a_graphs_series_keep_their_colours_apart() {
        use crate::model::metrics::{GraphId, in_graph};
        for palette in [Palette::Default, Palette::Light] {
            let t = Theme::of(palette, true, false);
            for g in [
                GraphId::Pool,
                GraphId::Ratio,
                GraphId::Traffic,
                GraphId::Psi,
            ] {
                let mut seen: Vec<Option<Color>> = Vec::new();
                for m in in_graph(g) {
                    let fg = m.series.map(|s| t.series(s.hue).fg).unwrap_or_default();
                    assert!(!seen.contains(&fg), "{palette:?} {g:?}: {} {fg:?}", m.id);
                    seen.push(fg);
                }
            }
        }
    }
}
