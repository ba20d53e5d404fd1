//! The ASCII pass over a drawn buffer.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

/// Replace every symbol outside 7-bit ASCII with a stand-in: the guarantee behind `--ascii`
/// and non-UTF-8 locales, whatever a widget or a kernel string put there.
pub(crate) fn ascii_only(buf: &mut Buffer, area: Rect) {
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            let cell = &mut buf[(x, y)];
            let sym = cell.symbol();
            if sym.is_ascii() {
                continue;
            }
            let c = sym.chars().next().unwrap_or(' ');
            let r = match c {
                '─' | '━' | '—' | '–' => '-',
                '│' | '┃' => '|',
                '┌' | '┐' | '└' | '┘' | '├' | '┤' | '┬' | '┴' | '┼' => '+',
                '…' => '~',
                '·' | '•' => '.',
                '█' | '▇' | '▆' | '▅' | '▄' | '▃' | '▂' | '▁' => '#',
                '░' | '▒' | '▓' => '.',
                '×' => 'x',
                // The micro sign of a time (`41µs`): `41us`, as ASCII writes it.
                'µ' | 'μ' => 'u',
                '↓' => 'v',
                '↑' => '^',
                '÷' => '/',
                '≤' => '<',
                '≥' => '>',
                '\u{2800}'..='\u{28ff}' => '*',
                _ => '?',
            };
            cell.set_char(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    #[test]
    fn ascii_pass_leaves_only_ascii() {
        let area = Rect::new(0, 0, 6, 1);
        let mut buf = Buffer::empty(area);
        buf.set_string(0, 0, "─│…⣿éµ", Style::new());
        ascii_only(&mut buf, area);
        let s: String = (0..6).map(|x| buf[(x, 0)].symbol().to_string()).collect();
        assert_eq!(s, "-|~*?u");
    }
}
