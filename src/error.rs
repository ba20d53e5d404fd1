//! Why a value is missing: the project's vocabulary for what could not be read, shown to the
//! user with its text and fix and never turned into a zero. Every reader returns a
//! [`Reading`]: the value, or an [`Unavailable`] saying where and why ([`Reason`]).

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::sanitize::Sanitize;

/// The filesystem a file that needs root lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fs {
    Procfs,
    Sysfs,
    Debugfs,
}

impl Fs {
    pub(crate) fn of(path: &Path) -> Fs {
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

/// The four kinds of trouble a [`Reason`] can be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The file is not there.
    Missing,
    /// Only root may read it.
    Denied,
    /// Read, but not in the expected shape (or not a kernel file at all).
    Malformed,
    /// Reading it failed.
    Unreadable,
}

/// Why a value is missing: the one place that words each reason and names the command that
/// gets the value. Views show [`Reason::text`] and [`Reason::fix`]; code that must tell reasons
/// apart matches the variant, never the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
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
    /// Larger than any kernel file of its kind (the read stops at this many bytes).
    TooLarge { cap: u64 },
    /// Under `--root`: not a regular file (`what`: a FIFO, a device, …), refused unread.
    NotRegular { what: String },
    /// Under `--root`: a link leads out of the tree, refused.
    OutOfTree,
    /// A recording made before zswaptop read this source.
    NotRecorded,
}

impl Reason {
    /// The file is absent; `note` says what that means for it.
    pub(crate) fn absent(note: impl Into<String>) -> Reason {
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
            Reason::TooLarge { cap } => {
                format!("malformed: larger than {cap} bytes: not a kernel file")
            }
            Reason::NotRegular { what } => format!("malformed: {what}, not a kernel file: refused"),
            Reason::OutOfTree => "malformed: a link leads out of the tree: refused".into(),
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
            | Reason::TooLarge { .. }
            | Reason::NotRegular { .. }
            | Reason::OutOfTree
            | Reason::NotRecorded => None,
        }
    }

    /// What kind of trouble it is.
    pub(crate) fn kind(&self) -> Kind {
        match self {
            Reason::NeedsRoot { .. } => Kind::Denied,
            // Not what a kernel file of its kind can be: malformed as far as zswaptop can tell.
            Reason::Malformed { .. }
            | Reason::TooLarge { .. }
            | Reason::NotRegular { .. }
            | Reason::OutOfTree => Kind::Malformed,
            Reason::Unreadable { .. } => Kind::Unreadable,
            Reason::Absent { .. }
            | Reason::NoZswap
            | Reason::PsiDisabled
            | Reason::DebugfsNotMounted
            | Reason::ZswapNeverEnabled
            | Reason::DebugfsHidden
            | Reason::NotRecorded => Kind::Missing,
        }
    }

    /// The status word used in `sources` lists: missing, denied, malformed or unreadable.
    pub(crate) fn status(&self) -> &'static str {
        match self.kind() {
            Kind::Missing => "missing",
            Kind::Denied => "denied",
            Kind::Malformed => "malformed",
            Kind::Unreadable => "unreadable",
        }
    }

    /// The file is not there (as opposed to unreadable or malformed).
    pub(crate) fn is_absent(&self) -> bool {
        self.kind() == Kind::Missing
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text())
    }
}

/// A source that could not be read: where, and why. Shown to the user, never turned into a zero.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize)]
pub struct Unavailable {
    pub path: String,
    pub reason: Reason,
}

impl Unavailable {
    pub(crate) fn new(path: &Path, reason: Reason) -> Self {
        Unavailable {
            path: path.display().to_string(),
            reason,
        }
    }

    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    pub(crate) fn malformed(path: &Path, line: Option<usize>, detail: impl Into<String>) -> Self {
        Self::new(
            path,
            Reason::Malformed {
                line,
                detail: detail.into(),
            },
        )
    }

    /// The file is absent; `note` says what that means for this file.
    pub(crate) fn absent(path: &Path, note: impl Into<String>) -> Self {
        Self::new(path, Reason::absent(note))
    }
}

/// Serialise an optional reason as its text (the JSON report's form).
pub(crate) fn reason_text<S: serde::Serializer>(
    r: &Option<Reason>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match r {
        Some(r) => s.serialize_str(&r.text()),
        None => s.serialize_none(),
    }
}

/// A value read from the kernel, or the reason it could not be.
pub type Reading<T> = Result<T, Unavailable>;
