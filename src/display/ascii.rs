//! Text in ASCII characters only, for `--ascii` and a locale that is not UTF-8.

/// `s` in ASCII characters only, for `--ascii` and a locale that is not UTF-8: each character
/// this tool writes outside ASCII becomes one ASCII character of the same meaning (so a line
/// keeps its width: `…` is `~`, `—` is `-`), any other (a name from outside) `?`.
pub(crate) fn ascii(s: &str) -> String {
    if s.is_ascii() {
        return s.to_string();
    }
    s.chars()
        .map(|c| match c {
            c if c.is_ascii() => c,
            '…' => '~',
            '—' | '–' | '−' | '─' => '-',
            '·' | '•' => '.',
            'µ' => 'u',
            '×' => 'x',
            '÷' | '∕' => '/',
            '→' | '≥' | '▶' => '>',
            '←' | '≤' => '<',
            '│' | '┃' => '|',
            'é' | 'è' => 'e',
            '‘' | '’' => '\'',
            '“' | '”' => '"',
            '§' => 'S',
            'Δ' => 'd',
            'Σ' => 'S',
            _ => '?',
        })
        .collect()
}

/// A writer that passes what it is given through [`ascii`] when `ascii` is set: it holds all
/// of it and writes it on [`AsciiOut::finish`] (what it holds is one report or one row, so a
/// character is never split between two writes).
pub(crate) struct AsciiOut<'a, W: std::io::Write> {
    out: &'a mut W,
    ascii: bool,
    held: Vec<u8>,
}

impl<'a, W: std::io::Write> AsciiOut<'a, W> {
    pub(crate) fn new(out: &'a mut W, ascii: bool) -> Self {
        AsciiOut {
            out,
            ascii,
            held: Vec::new(),
        }
    }

    /// Write what is held, in ASCII.
    pub(crate) fn finish(&mut self) -> std::io::Result<()> {
        if !self.held.is_empty() {
            let text = ascii(&String::from_utf8_lossy(&self.held));
            self.held.clear();
            self.out.write_all(text.as_bytes())?;
        }
        self.out.flush()
    }
}

impl<W: std::io::Write> std::io::Write for AsciiOut<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.ascii {
            self.held.extend_from_slice(buf);
            Ok(buf.len())
        } else {
            self.out.write(buf)
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.ascii { Ok(()) } else { self.out.flush() }
    }
}
