//! Helpers shared by the integration tests.

pub mod crafted;
pub mod pty;
pub mod skip;

/// `skip!("why")`: the running test says why it cannot run here, and returns (`skip.rs`).
pub(crate) use skip::skip;

use std::path::PathBuf;

use zswaptop::model::Snapshot;
use zswaptop::root::Root;
use zswaptop::sources;

/// The samples of `r` recorded with a wall time in `since..=until` (either end open), in
/// recorded order; a record that does not decode is an `Err` (and a warning of the reader).
pub fn samples_in(
    r: &mut zswaptop::record::Reader,
    since: Option<jiff::Timestamp>,
    until: Option<jiff::Timestamp>,
) -> Vec<Result<sources::Sample, zswaptop::record::Error>> {
    let ms = |t: jiff::Timestamp| u64::try_from(t.as_millisecond()).unwrap_or(0);
    let (lo, hi) = (since.map_or(0, ms), until.map_or(u64::MAX, ms));
    let wanted: Vec<usize> = (0..r.len())
        .filter(|&p| r.unix_ms(p).is_some_and(|t| (lo..=hi).contains(&t)))
        .collect();
    wanted.into_iter().map(|p| r.sample(p)).collect()
}

pub fn fixture_dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Every fixture tree (a directory with a `proc/`), sorted by name.
pub fn fixture_trees() -> Vec<PathBuf> {
    let mut trees: Vec<PathBuf> = std::fs::read_dir(fixture_dir(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("proc").is_dir())
        .collect();
    trees.sort();
    trees
}

pub fn fixture(name: &str) -> Root {
    Root::at(fixture_dir(name))
}

/// One snapshot of a fixture tree, judged by the rules, with the uid-dependent fact pinned.
pub fn snapshot(name: &str) -> Snapshot {
    let mut sample = sources::collect(&fixture(name));
    sample.host.privileged = true;
    zswaptop::pipeline::snapshot(&sample, None)
}

/// The `expected` block of a fixture's README.md or EXPECTED.md: `key = value` lines.
pub fn expected(name: &str) -> Option<Vec<(String, String)>> {
    block(name, "expected")
}

/// The `key = value` lines of the ```` ```FENCE ```` block of a tree's EXPECTED.md or README.md.
/// Keys may hold `=` inside `[...]` (`list[path=/a]`), so the separator is ` = `.
pub fn block(name: &str, fence: &str) -> Option<Vec<(String, String)>> {
    let dir = fixture_dir(name);
    let open = format!("```{fence}\n");
    let text = ["EXPECTED.md", "README.md"].iter().find_map(|f| {
        std::fs::read_to_string(dir.join(f))
            .ok()
            .filter(|t| t.contains(&open))
    })?;
    let start = text.find(&open)? + open.len();
    let body = &text[start..];
    let end = body.find("```")?;
    Some(
        body[..end]
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                if l.is_empty() || l.starts_with('#') {
                    return None;
                }
                let (k, v) = l.split_once(" = ")?;
                Some((k.trim().to_string(), v.trim().to_string()))
            })
            .collect(),
    )
}

/// Descriptors this process holds on files under `dir`: what a test's own tree has open,
/// whatever the other tests running in this process hold.
pub fn fds_under(dir: &std::path::Path) -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .filter(|target| target.starts_with(dir))
        .count()
}

/// Copy a fixture tree (symlinks kept as links) into `dst`.
pub fn copy_dir(src: &std::path::Path, dst: &std::path::Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        let ty = e.file_type().unwrap();
        if ty.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &to).unwrap();
        } else if ty.is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), &to).unwrap();
        }
    }
}

/// Look up a dotted path (`memory.breakdown.apps_bytes`, `zram.0.orig_data_bytes`) in JSON.
pub fn json_path<'a>(v: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
    path.split('.')
        .try_fold(v, |v, key| match key.parse::<usize>() {
            Ok(i) => v.get(i),
            Err(_) => v.get(key),
        })
}

/// The command of the swap-priorities fix ("Give them one priority: `…`; to keep it …") as a
/// person copies it from `lines` (the fix as printed, each line's prefix of `prefix` columns
/// taken off): the lines between the backticks, line breaks and all.
pub fn copied_priority_command(lines: &[String], prefix: usize) -> String {
    let text: Vec<&str> = lines
        .iter()
        .map(|l| l.get(prefix..).unwrap_or("").trim_end())
        .collect();
    let text = text.join("\n");
    let from = text.find("priority:").unwrap();
    let start = from + text[from..].find('`').unwrap() + 1;
    let end = text.rfind("`;").unwrap();
    text[start..end].to_string()
}

/// What `sh` runs for `command` (commands of `sudo …` joined by `&&`): each command's words as
/// the shell splits them, one a line in brackets (each `sudo` made a `printf` of its arguments).
pub fn shell_words(command: &str) -> String {
    let script = command.replace("sudo ", "printf '[%s]\\n' ");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .output()
        .unwrap();
    assert!(out.status.success(), "{script}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}
