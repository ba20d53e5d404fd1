//! The filesystem root every reader goes through.
//!
//! On the live system the root is `/`. With `--root DIR` every kernel file is read from
//! `DIR/proc/...` and `DIR/sys/...` instead, so a whole captured tree replaces the kernel.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why a source could not be read. Shown to the user, never turned into a zero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unavailable {
    /// The file is not there: the kernel lacks the feature, or it is switched off.
    Missing { path: String, reason: String },
    /// The file is there but this user may not read it.
    Denied { path: String, reason: String },
    /// The file was read but its contents do not have the expected shape.
    Malformed {
        path: String,
        line: Option<usize>,
        reason: String,
    },
}

impl Unavailable {
    pub fn path(&self) -> &str {
        match self {
            Unavailable::Missing { path, .. }
            | Unavailable::Denied { path, .. }
            | Unavailable::Malformed { path, .. } => path,
        }
    }

    /// A one-line, human reason ("needs root: debugfs").
    pub fn reason(&self) -> String {
        match self {
            Unavailable::Missing { reason, .. } | Unavailable::Denied { reason, .. } => {
                reason.clone()
            }
            Unavailable::Malformed { line, reason, .. } => match line {
                Some(n) => format!("malformed at line {n}: {reason}"),
                None => format!("malformed: {reason}"),
            },
        }
    }

    /// The status word used in `sources` lists.
    pub fn status(&self) -> &'static str {
        match self {
            Unavailable::Missing { .. } => "missing",
            Unavailable::Denied { .. } => "denied",
            Unavailable::Malformed { .. } => "malformed",
        }
    }

    pub fn malformed(path: &Path, line: Option<usize>, reason: impl Into<String>) -> Self {
        Unavailable::Malformed {
            path: path.display().to_string(),
            line,
            reason: reason.into(),
        }
    }

    pub fn missing(path: &Path, reason: impl Into<String>) -> Self {
        Unavailable::Missing {
            path: path.display().to_string(),
            reason: reason.into(),
        }
    }

    pub fn denied(path: &Path, reason: impl Into<String>) -> Self {
        Unavailable::Denied {
            path: path.display().to_string(),
            reason: reason.into(),
        }
    }

    /// Replace the reason text, keeping the kind and path.
    pub fn with_reason(mut self, new: impl Into<String>) -> Self {
        match &mut self {
            Unavailable::Missing { reason, .. }
            | Unavailable::Denied { reason, .. }
            | Unavailable::Malformed { reason, .. } => *reason = new.into(),
        }
        self
    }
}

/// A value read from the kernel, or the reason it could not be.
pub type Reading<T> = Result<T, Unavailable>;

/// The tree that stands for `/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    base: PathBuf,
    live: bool,
}

impl Root {
    /// The running system.
    pub fn live() -> Self {
        Root {
            base: PathBuf::from("/"),
            live: true,
        }
    }

    /// A captured tree laid out like `/`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Root {
            base: dir.into(),
            live: false,
        }
    }

    pub fn is_live(&self) -> bool {
        self.live
    }

    pub fn base(&self) -> &Path {
        &self.base
    }

    /// `ROOT/proc/<rel>`.
    pub fn proc(&self, rel: &str) -> PathBuf {
        self.base.join("proc").join(rel)
    }

    /// `ROOT/sys/<rel>`.
    pub fn sys(&self, rel: &str) -> PathBuf {
        self.base.join("sys").join(rel)
    }

    /// `ROOT/<rel>`, for files a capture keeps beside proc/ and sys/ (`pagesize`, `uname-r`).
    pub fn file(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }

    /// The path as the user knows it: `/proc/meminfo` live, the full path under `--root`.
    pub fn display(&self, path: &Path) -> String {
        path.display().to_string()
    }
}

/// Read a whole small kernel file as text, classifying failures.
///
/// `what` names the feature for the "missing" reason ("PSI", "zswap").
pub fn read_text(path: &Path, missing_reason: &str) -> Reading<String> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| Unavailable::malformed(path, None, "not valid UTF-8 text")),
        Err(e) => Err(classify_io(path, &e, missing_reason)),
    }
}

/// Map an I/O error on `path` to a user-facing reason.
pub fn classify_io(path: &Path, e: &io::Error, missing_reason: &str) -> Unavailable {
    match e.kind() {
        io::ErrorKind::NotFound => Unavailable::missing(path, missing_reason),
        io::ErrorKind::PermissionDenied => {
            Unavailable::denied(path, format!("needs root: {}", needs_root_item(path)))
        }
        _ => match e.raw_os_error() {
            // ENOTDIR: a parent is a file; treat like missing.
            Some(libc::ENOTDIR) => Unavailable::missing(path, missing_reason),
            // EOPNOTSUPP on cgroup pressure files, ENODEV on vanished devices.
            Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) | Some(libc::ENXIO) => {
                Unavailable::missing(path, format!("{missing_reason} ({e})"))
            }
            _ => Unavailable::malformed(path, None, format!("read error: {e}")),
        },
    }
}

fn needs_root_item(path: &Path) -> &'static str {
    let s = path.to_string_lossy();
    if s.contains("/sys/kernel/debug") {
        "debugfs"
    } else if s.contains("/proc/") {
        "procfs"
    } else {
        "sysfs"
    }
}

/// Parse one decimal integer file (`"123\n"`).
pub fn parse_u64_file(path: &Path, text: &str) -> Reading<u64> {
    let t = text.trim();
    t.parse::<u64>()
        .map_err(|_| Unavailable::malformed(path, Some(1), format!("expected a number, got {t:?}")))
}

/// Read and parse one decimal integer file.
pub fn read_u64(path: &Path, missing_reason: &str) -> Reading<u64> {
    let text = read_text(path, missing_reason)?;
    parse_u64_file(path, &text)
}
