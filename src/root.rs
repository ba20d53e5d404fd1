//! The filesystem root every reader goes through.
//!
//! On the live system the root is `/`. With `--root DIR` every kernel file is read from
//! `DIR/proc/...` and `DIR/sys/...` instead, so a whole captured tree replaces the kernel.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The filesystem a file that needs root lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fs {
    Procfs,
    Sysfs,
    Debugfs,
}

impl Fs {
    fn of(path: &Path) -> Fs {
        let s = path.to_string_lossy();
        if s.contains("/sys/kernel/debug") {
            Fs::Debugfs
        } else if s.contains("/proc/") {
            Fs::Procfs
        } else {
            Fs::Sysfs
        }
    }

    fn name(self) -> &'static str {
        match self {
            Fs::Procfs => "procfs",
            Fs::Sysfs => "sysfs",
            Fs::Debugfs => "debugfs",
        }
    }
}

/// Why a value is missing: the one place that words each reason and names the command that
/// gets the value. Views show [`Reason::text`] and [`Reason::fix`]; code that must tell reasons
/// apart matches the variant, never the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reason {
    /// The file is not there: this kernel lacks the feature or has it switched off. `note` says
    /// which, in the words of the reader that knows the file.
    Absent { note: String },
    /// The kernel was built without zswap (no `/sys/module/zswap`).
    NoZswap,
    /// No `/proc/pressure/memory`: PSI is compiled out or switched off at boot.
    PsiDisabled,
    /// The file is there but only root may read it.
    NeedsRoot { fs: Fs },
    /// Nothing is mounted on `/sys/kernel/debug`.
    DebugfsNotMounted,
    /// zswap's debugfs directory appears the first time zswap is enabled after boot.
    ZswapNeverEnabled,
    /// debugfs is mounted and zswap enabled, yet no zswap directory: lockdown or `debugfs=off`.
    DebugfsHidden,
    /// The file was read but does not have the expected shape.
    Malformed { line: Option<usize>, detail: String },
    /// Reading the file failed (an I/O error other than absence or permission).
    Unreadable { error: String },
    /// A recording made before zswaptop read this source.
    NotRecorded,
}

impl Reason {
    /// The file is absent; `note` says what that means for it.
    pub fn absent(note: impl Into<String>) -> Reason {
        Reason::Absent { note: note.into() }
    }

    /// A one-line, human reason ("needs root: debugfs").
    pub fn text(&self) -> String {
        match self {
            Reason::Absent { note } => note.clone(),
            Reason::NoZswap => "not in this kernel (built without CONFIG_ZSWAP)".into(),
            Reason::PsiDisabled => {
                "PSI is disabled in this kernel (boot with psi=1, needs CONFIG_PSI)".into()
            }
            Reason::NeedsRoot { fs } => format!("needs root: {}", fs.name()),
            Reason::DebugfsNotMounted => "debugfs is not mounted".into(),
            Reason::ZswapNeverEnabled => {
                "zswap has not been enabled since boot (its debugfs files appear on first enable)"
                    .into()
            }
            Reason::DebugfsHidden => {
                "no zswap directory in debugfs (lockdown or debugfs=off?)".into()
            }
            Reason::Malformed { line, detail } => match line {
                Some(n) => format!("malformed at line {n}: {detail}"),
                None => format!("malformed: {detail}"),
            },
            Reason::Unreadable { error } => format!("read error: {error}"),
            Reason::NotRecorded => "not in this recording".into(),
        }
    }

    /// The one command that gets the value, where one exists.
    pub fn fix(&self) -> Option<&'static str> {
        match self {
            Reason::NeedsRoot { .. } => Some("run as root: sudo zswaptop"),
            Reason::DebugfsNotMounted => Some("sudo mount -t debugfs none /sys/kernel/debug"),
            Reason::ZswapNeverEnabled => {
                Some("echo Y | sudo tee /sys/module/zswap/parameters/enabled")
            }
            Reason::NoZswap => Some("use a kernel built with CONFIG_ZSWAP=y"),
            Reason::PsiDisabled => Some("add psi=1 to the kernel command line and reboot"),
            Reason::Absent { .. }
            | Reason::DebugfsHidden
            | Reason::Malformed { .. }
            | Reason::Unreadable { .. }
            | Reason::NotRecorded => None,
        }
    }

    /// The status word used in `sources` lists: missing, denied, malformed or unreadable.
    pub fn status(&self) -> &'static str {
        match self {
            Reason::NeedsRoot { .. } => "denied",
            Reason::Malformed { .. } => "malformed",
            Reason::Unreadable { .. } => "unreadable",
            Reason::Absent { .. }
            | Reason::NoZswap
            | Reason::PsiDisabled
            | Reason::DebugfsNotMounted
            | Reason::ZswapNeverEnabled
            | Reason::DebugfsHidden
            | Reason::NotRecorded => "missing",
        }
    }

    /// The file is not there (as opposed to unreadable or malformed).
    pub fn is_absent(&self) -> bool {
        self.status() == "missing"
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// A source that could not be read: where, and why. Shown to the user, never turned into a zero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unavailable {
    pub path: String,
    pub reason: Reason,
}

impl Unavailable {
    pub fn new(path: &Path, reason: Reason) -> Self {
        Unavailable {
            path: path.display().to_string(),
            reason,
        }
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    pub fn malformed(path: &Path, line: Option<usize>, detail: impl Into<String>) -> Self {
        Self::new(
            path,
            Reason::Malformed {
                line,
                detail: detail.into(),
            },
        )
    }

    /// The file is absent; `note` says what that means for this file.
    pub fn absent(path: &Path, note: impl Into<String>) -> Self {
        Self::new(path, Reason::absent(note))
    }
}

/// Serialise an optional reason as its text (the JSON report's form).
pub fn reason_text<S: serde::Serializer>(r: &Option<Reason>, s: S) -> Result<S::Ok, S::Error> {
    match r {
        Some(r) => s.serialize_str(&r.text()),
        None => s.serialize_none(),
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
}

/// Read a whole small kernel file as text, classifying failures.
///
/// `absent` is the reason when the file is not there.
pub fn read_text(path: &Path, absent: &Reason) -> Reading<String> {
    match fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes)
            .map_err(|_| Unavailable::malformed(path, None, "not valid UTF-8 text")),
        Err(e) => Err(classify_io(path, &e, absent)),
    }
}

/// Map an I/O error on `path` to a reason; `absent` when the file is not there.
pub fn classify_io(path: &Path, e: &io::Error, absent: &Reason) -> Unavailable {
    let reason = match e.kind() {
        io::ErrorKind::NotFound => absent.clone(),
        io::ErrorKind::PermissionDenied => Reason::NeedsRoot { fs: Fs::of(path) },
        _ => match e.raw_os_error() {
            // ENOTDIR: a parent is a file; treat like missing.
            Some(libc::ENOTDIR) => absent.clone(),
            // EOPNOTSUPP on cgroup pressure files, ENODEV on vanished devices.
            Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) | Some(libc::ENXIO) => Reason::Absent {
                note: format!("{} ({e})", absent.text()),
            },
            _ => Reason::Unreadable {
                error: e.to_string(),
            },
        },
    };
    Unavailable::new(path, reason)
}

/// Parse one decimal integer file (`"123\n"`).
pub fn parse_u64_file(path: &Path, text: &str) -> Reading<u64> {
    let t = text.trim();
    t.parse::<u64>()
        .map_err(|_| Unavailable::malformed(path, Some(1), format!("expected a number, got {t:?}")))
}

/// Read and parse one decimal integer file.
pub fn read_u64(path: &Path, absent: &Reason) -> Reading<u64> {
    let text = read_text(path, absent)?;
    parse_u64_file(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(e: io::Error) -> Reason {
        classify_io(Path::new("/proc/x"), &e, &Reason::absent("no x")).reason
    }

    /// Absent, denied, unreadable and malformed are four different things, each with its own
    /// status word: an I/O error is not "malformed".
    #[test]
    fn io_errors_are_told_apart() {
        let absent = classify(io::Error::from(io::ErrorKind::NotFound));
        assert_eq!(absent, Reason::absent("no x"));
        assert_eq!(absent.status(), "missing");
        let denied = classify(io::Error::from(io::ErrorKind::PermissionDenied));
        assert_eq!(denied, Reason::NeedsRoot { fs: Fs::Procfs });
        assert_eq!(denied.status(), "denied");
        assert_eq!(denied.text(), "needs root: procfs");
        let eio = classify(io::Error::from_raw_os_error(libc::EIO));
        assert!(matches!(eio, Reason::Unreadable { .. }), "{eio:?}");
        assert_eq!(eio.status(), "unreadable");
        assert!(!eio.is_absent());
        let enodev = classify(io::Error::from_raw_os_error(libc::ENODEV));
        assert!(enodev.is_absent(), "{enodev:?}");
        let bad = Unavailable::malformed(Path::new("/proc/x"), Some(3), "no colon").reason;
        assert_eq!(bad.status(), "malformed");
        assert_eq!(bad.text(), "malformed at line 3: no colon");
    }

    /// Each reason with a known remedy names the one command that gets the value.
    #[test]
    fn fixes_live_with_their_reasons() {
        let debugfs = Reason::NeedsRoot { fs: Fs::Debugfs };
        assert_eq!(debugfs.text(), "needs root: debugfs");
        assert_eq!(debugfs.fix(), Some("run as root: sudo zswaptop"));
        assert_eq!(
            Reason::DebugfsNotMounted.fix(),
            Some("sudo mount -t debugfs none /sys/kernel/debug")
        );
        assert!(Reason::ZswapNeverEnabled.fix().is_some());
        assert!(Reason::PsiDisabled.fix().is_some());
        assert_eq!(Reason::absent("no x").fix(), None);
    }

    /// A recorded sample keeps the kind of each reason, not only its text.
    #[test]
    fn reasons_round_trip_in_samples() {
        let u = Unavailable::new(
            Path::new("/sys/kernel/debug/zswap"),
            Reason::ZswapNeverEnabled,
        );
        let json = serde_json::to_string(&u).unwrap();
        assert!(json.contains(r#""kind":"zswap_never_enabled""#), "{json}");
        assert_eq!(serde_json::from_str::<Unavailable>(&json).unwrap(), u);
    }
}
