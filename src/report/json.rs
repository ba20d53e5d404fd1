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
            compact(value, &mut line)?;
            line.push(b'\n');
            out.write_all(&line)
        }
    }
}

/// Append `value` as compact JSON (no newline) to `out`, escaped as [`serialize`] escapes.
fn compact<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> io::Result<()> {
    let mut ser = Serializer::with_formatter(out, SafeFormatter(CompactFormatter));
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// Snapshot after snapshot as compact JSON objects, each member written again only when it
/// differs from the same member of the snapshot before: the bytes [`serialize`] writes for
/// each (its [`Layout::Line`] less the closing `}` and the newline, so a caller can add
/// members), in work that follows what changed. A snapshot's JSON is 13–21 KB; a row of
/// `export --format jsonl` over a record that moved only the clocks spent 59 us serializing
/// it whole, a third of the row (`cargo bench --bench record -- export-parts`).
#[derive(Debug, Default)]
pub struct Members {
    /// The body last made, and where each member's `"name":value` lies in it.
    body: Vec<u8>,
    spans: Vec<std::ops::Range<usize>>,
    /// Where each row of the cgroup list lies in the body (the member holding the most rows,
    /// written again row by row: one cgroup's counter moving changes one row).
    cgroup_rows: Vec<std::ops::Range<usize>>,
    /// What the body was made of, as the caller named it.
    of: Option<u64>,
    next: Vec<u8>,
}

impl Members {
    /// The body of `snap` (`{` and its members, no closing brace), named `id`. `prev` is the
    /// snapshot the caller named `prev_id`: when that is what the last body was made of, each
    /// member equal to `prev`'s is copied from it rather than serialized.
    pub(crate) fn body(
        &mut self,
        snap: &Snapshot,
        id: u64,
        prev: Option<(&Snapshot, u64)>,
    ) -> io::Result<&[u8]> {
        let prev = prev.filter(|(_, p)| self.of == Some(*p)).map(|(s, _)| s);
        self.of = None;
        let (old, old_spans) = (
            std::mem::take(&mut self.body),
            std::mem::take(&mut self.spans),
        );
        let mut body = std::mem::take(&mut self.next);
        body.clear();
        body.push(b'{');
        let mut spans = Vec::with_capacity(old_spans.len().max(24));
        let old_rows = std::mem::take(&mut self.cgroup_rows);
        let mut rows = Vec::with_capacity(old_rows.len());
        // Every member, in the order serde writes them, named with no `..`: a member added to
        // `Snapshot` does not compile until it is here (and the tests compare the bytes with
        // `serialize`'s).
        let Snapshot {
            schema_version,
            timestamp,
            interval_seconds,
            tool,
            host,
            page_size,
            memory,
            zswap,
            swap,
            zram,
            capacity,
            forecast,
            psi,
            vmstat,
            rates,
            tunables,
            diagnostics,
            tunables_advice,
            sources,
            oomd,
            swapin_latency,
            // Not serialised (`#[serde(skip)]`): the exporter's.
            swapin_totals: _,
            store_totals: _,
            processes,
            cgroups,
        } = snap;
        macro_rules! member {
            ($name:ident) => {{
                let i = spans.len();
                if i > 0 {
                    body.push(b',');
                }
                let start = body.len();
                match (prev, old_spans.get(i)) {
                    (Some(p), Some(span)) if p.$name == *$name => {
                        body.extend_from_slice(&old[span.clone()])
                    }
                    _ => {
                        body.extend_from_slice(concat!("\"", stringify!($name), "\":").as_bytes());
                        write_member!($name);
                    }
                }
                spans.push(start..body.len());
            }};
        }
        macro_rules! write_member {
            (cgroups) => {{
                let before = prev.and_then(|p| p.cgroups.as_ref()).map(|c| &c.list[..]);
                let rows_of_old = before.map(|b| (b, &old[..], &old_rows[..]));
                cgroups_json(cgroups.as_ref(), rows_of_old, &mut body, &mut rows)?;
            }};
            ($name:ident) => {
                compact($name, &mut body)?
            };
        }
        macro_rules! members {
            ($($name:ident),*) => { $( member!($name); )* };
        }
        members! {
            schema_version, timestamp, interval_seconds, tool, host, page_size, memory, zswap,
            swap, zram, capacity, forecast, psi, vmstat, rates, tunables, diagnostics,
            tunables_advice, sources, oomd, swapin_latency, processes, cgroups
        }
        if rows.is_empty() && cgroups.is_some() {
            rows = moved(&old_rows, &old_spans, &spans);
        }
        self.cgroup_rows = rows;
        self.next = old;
        self.body = body;
        self.spans = spans;
        self.of = Some(id);
        Ok(&self.body)
    }

    /// The body made last (empty before the first).
    pub(crate) fn last(&self) -> &[u8] {
        &self.body
    }
}

/// The cgroup member (the last) copied whole: its rows are where they were, moved with it.
fn moved(
    old_rows: &[std::ops::Range<usize>],
    old_spans: &[std::ops::Range<usize>],
    spans: &[std::ops::Range<usize>],
) -> Vec<std::ops::Range<usize>> {
    let (Some(from), Some(to)) = (old_spans.last(), spans.last()) else {
        return Vec::new();
    };
    let (from, to) = (from.start, to.start);
    old_rows
        .iter()
        .map(|r| r.start - from + to..r.end - from + to)
        .collect()
}

/// The cgroup list of the body before, the body, and where each of its rows lies in it.
type RowsBefore<'a> = (
    &'a [crate::model::owners::CgroupRow],
    &'a [u8],
    &'a [std::ops::Range<usize>],
);

/// The cgroup member's JSON, its list row by row: a row equal to the one at its index in
/// `before` (the list, the body it was written in and where each of its rows lies there) is
/// copied. `rows` gets where each row lies in `body`.
fn cgroups_json(
    cgroups: Option<&crate::model::owners::Cgroups>,
    before: Option<RowsBefore<'_>>,
    body: &mut Vec<u8>,
    rows: &mut Vec<std::ops::Range<usize>>,
) -> io::Result<()> {
    use crate::model::owners::Cgroups;
    let Some(c) = cgroups else {
        return compact(&None::<Cgroups>, body);
    };
    // Every member but the list, named (a member added does not compile until it is here);
    // the list is the last member, so its rows go between `[` and `]}`.
    let Cgroups {
        available,
        reason,
        version,
        zswap_missing,
        swap_missing,
        interval_seconds,
        events_missing,
        pressure_missing,
        limits_missing,
        list,
    } = c;
    let head = Cgroups {
        available: *available,
        reason: reason.clone(),
        version: *version,
        zswap_missing: zswap_missing.clone(),
        swap_missing: swap_missing.clone(),
        interval_seconds: *interval_seconds,
        events_missing: events_missing.clone(),
        pressure_missing: pressure_missing.clone(),
        limits_missing: limits_missing.clone(),
        list: Vec::new(),
    };
    let start = body.len();
    compact(&head, body)?;
    if !body.ends_with(b"\"list\":[]}") {
        body.truncate(start);
        return compact(c, body);
    }
    body.truncate(body.len() - 2);
    for (i, row) in list.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        let at = body.len();
        match before {
            Some((list, old, spans)) if list.get(i) == Some(row) && i < spans.len() => {
                body.extend_from_slice(&old[spans[i].clone()])
            }
            _ => compact(row, body)?,
        }
        rows.push(at..body.len());
    }
    body.extend_from_slice(b"]}");
    Ok(())
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
        // In UTF-8, DEL is the byte 0x7f and U+0080–U+009F are 0xc2 then 0x80–0x9f: found by
        // looking at bytes, no character decoded (a char-by-char search was a tenth of export's
        // JSON time).
        let bytes = frag.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let escaped = match bytes[i] {
                0x7f => Some((0x7f, 1)),
                0xc2 if bytes.get(i + 1).is_some_and(|b| (0x80..=0x9f).contains(b)) => {
                    Some((u32::from(bytes[i + 1]), 2))
                }
                _ => None,
            };
            if let Some((code, len)) = escaped {
                w.write_all(&bytes[start..i])?;
                write!(w, "\\u{code:04x}")?;
                i += len;
                start = i;
            } else {
                i += 1;
            }
        }
        w.write_all(&bytes[start..])
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

    /// Each body is the snapshot's compact JSON less its `}`, whichever members changed from
    /// the snapshot before, and whatever that snapshot was named.
    #[test]
    fn members_are_the_snapshot_serialized() {
        let mut s = crate::sources::largest_fixture_sample(true);
        let listed = s.processes.clone();
        let mut members = Members::default();
        let mut prev: Option<(Snapshot, u64)> = None;
        for step in 0..12u64 {
            let next = {
                let mut n = s.clone();
                n.unix_ms += 1000;
                n.monotonic_ns += 1_000_000_000;
                match step % 4 {
                    1 => n.processes.as_mut().unwrap().top[0].swap_bytes += 4096,
                    2 => n.host.hostname = Some(format!("h\u{9b}{step}\u{7f}")),
                    3 => n.processes = None,
                    _ => n.processes = listed.clone(),
                }
                // One cgroup's memory moves most steps; now and then the list loses a row.
                if let Some(Ok(list)) = n.cgroups.as_mut() {
                    match step % 3 {
                        0 => list[1].memory_current = Some(step << 20),
                        1 if step == 7 => drop(list.pop()),
                        _ => {}
                    }
                }
                n
            };
            let snap = crate::pipeline::snapshot(&next, Some(&s));
            // Named wrongly every fifth step: the body is made whole.
            let named = prev
                .as_ref()
                .map(|(p, id)| (p, if step % 5 == 4 { 99 } else { *id }));
            let mut body = members.body(&snap, step, named).unwrap().to_vec();
            body.extend_from_slice(b"}\n");
            let mut whole = Vec::new();
            serialize(&snap, Layout::Line, &mut whole).unwrap();
            assert_eq!(
                String::from_utf8(body).unwrap(),
                String::from_utf8(whole).unwrap()
            );
            prev = Some((snap, step));
            s = next;
        }
    }

    #[test]
    fn del_and_c1_are_escaped() {
        let root = crate::root::Root::at(format!(
            "{}/tests/fixtures/linux-6.18-idle",
            env!("CARGO_MANIFEST_DIR")
        ));
        let mut source = crate::sources::sampler::Sampler::full(root);
        let mut snap = crate::pipeline::take(
            &mut source,
            None,
            crate::sources::Extras::default(),
            &Default::default(),
        );
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
