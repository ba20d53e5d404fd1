//! Terminal safety: every string that comes from the kernel or a captured tree is made safe here,
//! once, on its way into the [`Snapshot`](crate::model::Snapshot).
//!
//! Unprivileged users choose some of those strings (a process name set with `prctl(PR_SET_NAME)`,
//! a cgroup in a delegated subtree, a swap file's path) and zswaptop is often run as root: a raw
//! ESC, BEL or C1 byte printed to root's terminal could retitle it, clear it or write the
//! clipboard (OSC 52), and an invisible or bidirectional format character makes a name read as
//! another (`<U+202E>gnp.exe` shows as `exe.png`). The last step of [`crate::pipeline`], after
//! the rules (so their text is covered too), is [`Sanitize::sanitize`], which replaces every such
//! character in every string of the snapshot with a visible escape: a control character (C0,
//! DEL, C1 = U+0080–U+009F) as `\x1b`, a format character
//! (Unicode category Cf: the bidi embeddings, overrides and isolates, zero-width spaces and
//! joiners, the BOM, soft hyphen, tag characters …) or a line or paragraph separator (Zl, Zp) as
//! `\u{202e}`. The snapshot is the one road from the sources to every output — the text report,
//! the dashboard, JSON, the metrics and any format added later — so each gets it for free.
//!
//! `#[derive(Sanitize)]` (the `zswaptop-derive` crate) writes the impl for each model type: it
//! visits every field, and a field whose type has no impl is a compile error, so no string added
//! to the model can slip past and no list of fields is kept by hand.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use unicode_general_category::{GeneralCategory, get_general_category};

pub use zswaptop_derive::Sanitize;

/// A character that must not reach a terminal raw: a control character (C0 U+0000–U+001F, DEL
/// U+007F, C1 U+0080–U+009F), a format character (category Cf) or a line or paragraph separator
/// (U+2028, U+2029: categories Zl, Zp).
pub(crate) fn is_unsafe(c: char) -> bool {
    c.is_control()
        || (!c.is_ascii()
            && matches!(
                get_general_category(c),
                GeneralCategory::Format
                    | GeneralCategory::LineSeparator
                    | GeneralCategory::ParagraphSeparator
            ))
}

/// `s` with each unsafe character shown as its escape: a control character as `\xNN` (`ESC` →
/// `\x1b`, U+009B → `\x9b`), any other as `\u{NNNN}` (U+202E → `\u{202e}`).
///
/// Every string of every snapshot passes here on every tick, nearly all of them plain ASCII: a
/// string none of whose bytes is an ASCII control or beyond ASCII is borrowed after one pass over
/// its bytes, with no character decoded and nothing allocated.
pub fn visible(s: &str) -> Cow<'_, str> {
    if s.bytes().all(|b| (0x20..0x7f).contains(&b)) || !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else if is_unsafe(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Replace every unsafe character ([`is_unsafe`]) in every string with its visible escape.
pub trait Sanitize {
    fn sanitize(&mut self);
}

impl Sanitize for Cow<'static, str> {
    fn sanitize(&mut self) {
        if let Cow::Owned(s) = visible(self) {
            *self = Cow::Owned(s);
        }
    }
}

impl Sanitize for String {
    fn sanitize(&mut self) {
        if let Cow::Owned(s) = visible(self) {
            *self = s;
        }
    }
}

impl<T: Sanitize> Sanitize for Option<T> {
    fn sanitize(&mut self) {
        if let Some(v) = self {
            v.sanitize();
        }
    }
}

impl<T: Sanitize> Sanitize for Vec<T> {
    fn sanitize(&mut self) {
        self.iter_mut().for_each(Sanitize::sanitize);
    }
}

impl<T: Sanitize, E: Sanitize> Sanitize for Result<T, E> {
    fn sanitize(&mut self) {
        match self {
            Ok(v) => v.sanitize(),
            Err(e) => e.sanitize(),
        }
    }
}

impl<V: Sanitize> Sanitize for BTreeMap<String, V> {
    fn sanitize(&mut self) {
        // Keys are strings from the tree too (parameter and tunable names).
        if self.keys().any(|k| k.chars().any(is_unsafe)) {
            *self = std::mem::take(self)
                .into_iter()
                .map(|(mut k, v)| {
                    k.sanitize();
                    (k, v)
                })
                .collect();
        }
        self.values_mut().for_each(Sanitize::sanitize);
    }
}

impl<T: Sanitize, const N: usize> Sanitize for [T; N] {
    fn sanitize(&mut self) {
        self.iter_mut().for_each(Sanitize::sanitize);
    }
}

/// Numbers and flags hold no text.
macro_rules! no_text {
    ($($t:ty),*) => {$(
        impl Sanitize for $t {
            fn sanitize(&mut self) {}
        }
    )*};
}
no_text!(bool, u8, u32, u64, i64, usize, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_become_visible() {
        assert_eq!(visible("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
        assert_eq!(visible("a\u{9b}2J\u{7f}\n\tb"), "a\\x9b2J\\x7f\\x0a\\x09b");
        assert_eq!(visible("zstd ä ✓"), "zstd ä ✓");
        assert!(matches!(visible("plain"), Cow::Borrowed(_)));
    }

    /// The characters the audit named, listed by hand from the Unicode tables (not asked of the
    /// category lookup under test), each shown as `\u{…}`; letters, marks, spaces and symbols
    /// beyond ASCII stay as they are, borrowed.
    #[test]
    fn format_characters_and_separators_become_visible() {
        let named = [
            (0x202a..=0x202e, "bidi embeddings and overrides"),
            (0x2066..=0x2069, "bidi isolates"),
            (
                0x200b..=0x200f,
                "zero-width space, non-joiner, joiner, LRM, RLM",
            ),
            (0x2028..=0x2029, "line and paragraph separators"),
            (0x2060..=0x2064, "word joiner and invisible operators"),
            (0xfeff..=0xfeff, "byte order mark"),
            (0x00ad..=0x00ad, "soft hyphen"),
            (0x061c..=0x061c, "Arabic letter mark"),
            (0xfff9..=0xfffb, "interlinear annotation"),
            (0xe0001..=0xe0001, "language tag"),
            (0xe0020..=0xe007f, "tag characters"),
        ];
        for (range, what) in named {
            for u in range {
                let c = char::from_u32(u).unwrap();
                assert!(is_unsafe(c), "U+{u:04X} ({what})");
                assert_eq!(
                    visible(&format!("a{c}b")),
                    format!("a\\u{{{u:x}}}b"),
                    "{what}"
                );
            }
        }
        assert_eq!(visible("\u{202e}gnp.exe"), "\\u{202e}gnp.exe");
        assert_eq!(visible("x\u{2028}\x1b\u{85}"), "x\\u{2028}\\x1b\\x85");
        for safe in [
            "zstd ä ✓",
            "中文 名前",
            "e\u{301}",               // a combining mark (Mn)
            "a\u{a0}b\u{3000}c",      // no-break and ideographic spaces (Zs)
            "👩🔬 \u{fe0f}",          // emoji and a variation selector (Mn)
            "ελληνικά עברית العربية", // right-to-left letters themselves are not format characters
        ] {
            assert!(matches!(visible(safe), Cow::Borrowed(_)), "{safe:?}");
        }
    }

    #[derive(Sanitize, Debug, Clone, PartialEq)]
    struct Row {
        name: String,
        pid: u32,
        command: Option<String>,
    }

    #[derive(Sanitize, Debug, Clone, PartialEq)]
    enum Why {
        Known,
        Note { note: String },
        Pair(Option<String>, Vec<Row>),
    }

    #[derive(Sanitize, Debug, Clone, PartialEq)]
    struct Section<T> {
        rows: Vec<Row>,
        why: Vec<Why>,
        by_name: BTreeMap<String, T>,
        slots: [Option<T>; 2],
        last: Result<String, Why>,
    }

    /// The derived impls reach every string: in every field, nested, in every variant, behind
    /// generics, in map keys and values, array slots and both sides of a `Result`.
    #[test]
    fn derived_impls_visit_every_field_of_every_variant() {
        let bad = "\x1b]0;x\x07\u{202e}";
        let shown = "\\x1b]0;x\\x07\\u{202e}";
        let row = |s: &str| Row {
            name: s.into(),
            pid: 7,
            command: Some(s.into()),
        };
        let make = |s: &str| Section {
            rows: vec![row(s), row("ok")],
            why: vec![
                Why::Known,
                Why::Note { note: s.into() },
                Why::Pair(Some(s.into()), vec![row(s)]),
            ],
            by_name: BTreeMap::from([(s.to_string(), s.to_string())]),
            slots: [None, Some(s.to_string())],
            last: Err(Why::Note { note: s.into() }),
        };
        let mut got = make(bad);
        got.sanitize();
        assert_eq!(got, make(shown));
        let mut ok = Section::<String> {
            last: Ok(bad.into()),
            ..make("ok")
        };
        ok.sanitize();
        assert_eq!(ok.last, Ok(shown.to_string()));
    }

    #[test]
    fn map_keys_and_values() {
        let mut m = BTreeMap::from([("k\x1b".to_string(), "v\u{85}".to_string())]);
        m.sanitize();
        assert_eq!(
            m,
            BTreeMap::from([("k\\x1b".to_string(), "v\\x85".to_string())])
        );
    }
}
