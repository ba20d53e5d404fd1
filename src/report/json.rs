//! The one JSON writer: every JSON and JSON Lines zswaptop prints goes through [`serialize`]
//! (`--once --json`, `--watch --json`, `export --format jsonl`, `--once --json --from`,
//! `advise --json`), so each has the same escaping: serde_json's, plus DEL and C1 as `\u…`.
//!
//! `--once --json` is the `Snapshot` itself (docs/json-schema.md), [`write()`].

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter, Serializer};

use crate::model::Snapshot;

/// How a value is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One document: indented, a newline after it.
    Pretty,
    /// One line of JSON Lines: compact, a newline after it, written whole in one write (so a
    /// reader never sees half a line, and a closed pipe is the error of that write).
    Line,
}

/// `--once --json`: the snapshot, pretty.
pub fn write(snap: &Snapshot, out: &mut impl Write) -> io::Result<()> {
    serialize(snap, Layout::Pretty, out)
}

/// Write `value` as JSON laid out as `layout`. An I/O error keeps its kind (a closed pipe stays
/// `BrokenPipe`).
pub fn serialize<T: Serialize + ?Sized, W: Write + ?Sized>(
    value: &T,
    layout: Layout,
    out: &mut W,
) -> io::Result<()> {
    match layout {
        Layout::Pretty => {
            let mut ser =
                Serializer::with_formatter(&mut *out, SafeFormatter(PrettyFormatter::new()));
            value.serialize(&mut ser).map_err(io::Error::from)?;
            writeln!(out)
        }
        Layout::Line => {
            let mut line = Vec::with_capacity(16 * 1024);
            let mut ser = Serializer::with_formatter(&mut line, SafeFormatter(CompactFormatter));
            value.serialize(&mut ser).map_err(io::Error::from)?;
            line.push(b'\n');
            out.write_all(&line)
        }
    }
}

/// A serde_json layout (pretty or compact), with DEL and C1 (U+007F–U+009F) escaped as `\u…` as
/// well: serde_json escapes only C0, and a raw U+009B is a CSI to many terminals. The snapshot's
/// strings are already made visible ([`crate::sanitize`]); this keeps the JSON writer safe on
/// its own, for every value it writes.
struct SafeFormatter<F>(F);

impl<F: Formatter> Formatter for SafeFormatter<F> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        frag: &str,
    ) -> io::Result<()> {
        let mut rest = frag;
        while let Some(i) = rest.find(|c: char| ('\u{7f}'..='\u{9f}').contains(&c)) {
            w.write_all(&rest.as_bytes()[..i])?;
            let c = rest[i..].chars().next().unwrap_or_default();
            write!(w, "\\u{:04x}", u32::from(c))?;
            rest = &rest[i + c.len_utf8()..];
        }
        w.write_all(rest.as_bytes())
    }
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn del_and_c1_are_escaped() {
        let root = crate::root::Root::at(format!(
            "{}/tests/fixtures/linux-6.18-idle",
            env!("CARGO_MANIFEST_DIR")
        ));
        let mut source = crate::sources::sampler::Sampler::full(root);
        let mut snap = crate::pipeline::take(&mut source, None, crate::sources::Extras::default());
        snap.host.hostname = Some("a\u{9b}2J\u{7f}\u{85}b\x1b".into());
        let mut out = Vec::new();
        write(&snap, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains(r#""hostname": "a\u009b2J\u007f\u0085b\u001b""#),
            "{text}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            back["host"]["hostname"].as_str(),
            snap.host.hostname.as_deref()
        );
    }

    /// Both layouts escape DEL and C1, in keys as in values; a line is one line, compact.
    #[test]
    fn both_layouts_escape_del_and_c1() {
        let v = serde_json::json!({ "k\u{9b}": ["v\u{7f}\u{85}", 1] });
        let text = |layout| {
            let mut out = Vec::new();
            serialize(&v, layout, &mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            text(Layout::Line),
            "{\"k\\u009b\":[\"v\\u007f\\u0085\",1]}\n"
        );
        assert_eq!(
            text(Layout::Pretty),
            "{\n  \"k\\u009b\": [\n    \"v\\u007f\\u0085\",\n    1\n  ]\n}\n"
        );
    }

    /// A closed pipe stays a `BrokenPipe` error, which the front ends take for a reader gone.
    #[test]
    fn a_write_error_keeps_its_kind() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        for layout in [Layout::Pretty, Layout::Line] {
            let e = serialize(&serde_json::json!({"a": 1}), layout, &mut Closed).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::BrokenPipe);
        }
    }
}
