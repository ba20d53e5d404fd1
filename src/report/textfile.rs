//! `--textfile DIR`: the exposition written where node_exporter's textfile collector reads it.

use std::io::Write;
use std::path::Path;

use anyhow::Context;

use super::openmetrics::{self, Flavor};
use crate::model::Snapshot;

/// The file `--textfile DIR` writes.
pub const NAME: &str = "zswaptop.prom";

/// Write DIR/zswaptop.prom for node_exporter's textfile collector: into a temporary file in
/// DIR (a name without `.prom`, which the collector skips), made readable by all (the exporter
/// runs as its own user), then renamed over the old one, so a scrape never sees half a file.
pub(crate) fn write(snap: &Snapshot, dir: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut tmp = tempfile::Builder::new()
        .prefix(".zswaptop.prom.")
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    openmetrics::write(snap, Flavor::Prometheus, &mut tmp)
        .and_then(|()| tmp.flush())
        .and_then(|()| {
            tmp.as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o644))
        })
        .with_context(|| format!("writing {}", tmp.path().display()))?;
    let path = dir.join(NAME);
    tmp.persist(&path)
        .with_context(|| format!("renaming it to {}", path.display()))?;
    Ok(())
}
