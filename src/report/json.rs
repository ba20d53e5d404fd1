//! `--once --json`: the `Snapshot` itself, serialised (docs/json-schema.md).

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter, Serializer};

use crate::model::Snapshot;

pub fn write(snap: &Snapshot, out: &mut impl Write) -> io::Result<()> {
    let mut ser = Serializer::with_formatter(&mut *out, SafeFormatter(PrettyFormatter::new()));
    // `io::Error::from` keeps the kind of an I/O error (a closed pipe stays `BrokenPipe`).
    snap.serialize(&mut ser).map_err(io::Error::from)?;
    writeln!(out)
}

/// serde_json's pretty layout, with DEL and C1 (U+007F–U+009F) escaped as `\u…` as well: serde_json
/// escapes only C0, and a raw U+009B is a CSI to many terminals. The snapshot's strings are
/// already made visible ([`crate::sanitize`]); this keeps the JSON writer safe on its own.
struct SafeFormatter(PrettyFormatter<'static>);

impl Formatter for SafeFormatter {
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
}
