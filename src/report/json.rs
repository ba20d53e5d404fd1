//! `--once --json`: the `Snapshot` itself, serialised (docs/json-schema.md).

use std::io::{self, Write};

use crate::model::Snapshot;

pub fn write(snap: &Snapshot, out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, snap).map_err(io::Error::other)?;
    writeln!(out)
}
