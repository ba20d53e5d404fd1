//! The record and replay round trip: every `zswaptop --once --json` the phases run as root also
//! records the samples it took (`--record`, one file per run), and at the end
//! `zswaptop --once --json --from FILE --at T` for the run's last sample must say what the run
//! printed live — same figures, same findings — with `recorded` naming that sample. But for the
//! processes' command lines, which `--once --record` never keeps (docs/recording-format.md): each
//! `command` reads back null and `/proc/PID/cmdline` is a source not in the recording.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use crate::rep;

/// The runs recorded so far: the file, the arguments, and the JSON the run printed.
static RUNS: Mutex<Vec<(PathBuf, String, Value)>> = Mutex::new(Vec::new());
/// Files handed out (runs may overlap: one phase samples in a thread).
static FILES: AtomicUsize = AtomicUsize::new(0);
/// Where the files go (the test's temporary directory).
static DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

fn runs() -> std::sync::MutexGuard<'static, Vec<(PathBuf, String, Value)>> {
    RUNS.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Record the runs from now on into files under `dir`.
pub fn start(dir: &Path) {
    *DIR.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(dir.to_path_buf());
}

/// The file the next run records into (`None` before [`start`]).
pub fn next_file() -> Option<PathBuf> {
    let dir = DIR
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone()?;
    let n = FILES.fetch_add(1, Ordering::SeqCst);
    Some(dir.join(format!("once-{n:03}.zsr")))
}

/// A run that recorded into `file` printed `json`.
pub fn remember(file: PathBuf, args: &[&str], json: &Value) {
    runs().push((file, args.join(" "), json.clone()));
}

/// Read every recorded run back and compare; one row per run.
pub fn check(bin: &Path) {
    let runs = std::mem::take(&mut *runs());
    rep().phase("record and replay — each --once read back from its recording");
    if runs.is_empty() {
        rep().check("runs recorded", false, "none", "at least one");
        return;
    }
    for (file, args, live) in runs {
        let name = format!(
            "--from {} --at its last sample ({})",
            file.file_name()
                .map(|f| f.to_string_lossy())
                .unwrap_or_default(),
            if args.is_empty() {
                "--once --json"
            } else {
                &args
            }
        );
        let live = as_recorded(live);
        let (ok, seen) = match read_back(bin, &file) {
            Ok((back, at)) if back == live => (true, format!("equal at {at}")),
            Ok((back, at)) => (
                false,
                format!("at {at}: {}", first_difference(&back, &live)),
            ),
            Err(e) => (false, e),
        };
        rep().check(&name, ok, &seen, "the JSON printed live");
    }
}

/// What the replay of a recording of `live` prints: `live` without the processes' command lines,
/// and saying so among the sources.
fn as_recorded(mut live: Value) -> Value {
    if live["processes"].is_null() {
        return live;
    }
    if let Some(top) = live["processes"]["top"].as_array_mut() {
        for p in top {
            p["command"] = Value::Null;
        }
    }
    if let Some(sources) = live["sources"].as_array_mut() {
        sources.push(serde_json::json!({
            "source": "/proc/PID/cmdline",
            "status": "missing",
            "reason": "not in this recording",
        }));
    }
    live
}

/// `--once --json --from FILE --at T` for the file's last sample, without `recorded`, and T.
fn read_back(bin: &Path, file: &Path) -> Result<(Value, String), String> {
    let out = Command::new(bin)
        .args(["--once", "--json", "--from"])
        .arg(file)
        .args(["--at", "-0s"])
        .output()
        .map_err(|e| format!("running zswaptop: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "exit {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let mut v: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("not JSON: {e}"))?;
    let recorded = v
        .as_object_mut()
        .and_then(|o| o.remove("recorded"))
        .ok_or("no `recorded` in the JSON")?;
    Ok((v, recorded["time"].as_str().unwrap_or("?").to_string()))
}

/// The first path where two JSON values differ, with both sides.
fn first_difference(a: &Value, b: &Value) -> String {
    fn walk(a: &Value, b: &Value, path: String) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for k in x.keys().chain(y.keys()) {
                    let (va, vb) = (
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                    );
                    if let Some(d) = walk(va, vb, format!("{path}.{k}")) {
                        return Some(d);
                    }
                }
                None
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (va, vb))| walk(va, vb, format!("{path}[{i}]"))),
            _ if a == b => None,
            _ => Some(format!("{path}: read back {a}, live {b}")),
        }
    }
    walk(a, b, String::new()).unwrap_or_else(|| "no difference found".into())
}
