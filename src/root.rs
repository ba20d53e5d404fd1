//! The filesystem root every reader goes through.
//!
//! On the live system the root is `/`. With `--root DIR` every kernel file is read from
//! `DIR/proc/...` and `DIR/sys/...` instead, so a whole captured tree replaces the kernel.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
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
    pub fn kind(&self) -> Kind {
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
    pub fn status(&self) -> &'static str {
        match self.kind() {
            Kind::Missing => "missing",
            Kind::Denied => "denied",
            Kind::Malformed => "malformed",
            Kind::Unreadable => "unreadable",
        }
    }

    /// The file is not there (as opposed to unreadable or malformed).
    pub fn is_absent(&self) -> bool {
        self.kind() == Kind::Missing
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
///
/// Every file a source reads goes through it. A captured tree (`--root`) is not trusted: a read
/// there refuses anything but a regular file (a FIFO would block, `/dev/zero` never ends) and any
/// path whose links lead out of the tree. Live and captured alike, no read takes more than a real
/// kernel file of its kind can hold ([`read_cap`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    base: PathBuf,
    live: bool,
    /// `base` with every link resolved, to tell what lies inside the tree (`None` when the
    /// directory could not be resolved: then nothing under it can be read either).
    resolved: Option<PathBuf>,
}

/// The most any read takes from a file under `proc/`, outside a process directory: the largest
/// kernel files read here (`/proc/zoneinfo` and `/proc/mounts` on big machines, `/proc/crypto`)
/// stay far below it.
pub const PROC_CAP: u64 = 16 << 20;
/// A file in a process directory (`/proc/PID/status`, `cgroup`): even a `Groups:` line with the
/// 65536 groups a process may have keeps a status file under 1 MiB.
pub const PID_CAP: u64 = 1 << 20;
/// A sysfs, cgroupfs or debugfs attribute: sysfs fills at most one page (64 KiB on the largest
/// page size), and the cgroup and debugfs files read here are a few KiB; 1 MiB leaves room.
pub const SYS_CAP: u64 = 1 << 20;

/// The most a read of `path` under `base` takes (see the constants above).
pub fn read_cap(base: &Path, path: &Path) -> u64 {
    let rel = path.strip_prefix(base).unwrap_or(path);
    let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy());
    match parts.next().as_deref() {
        Some("proc") => match parts.next() {
            Some(pid) if pid.bytes().all(|b| b.is_ascii_digit()) || pid == "self" => PID_CAP,
            _ => PROC_CAP,
        },
        Some("sys") => SYS_CAP,
        _ => PROC_CAP,
    }
}

impl Root {
    /// The running system.
    pub fn live() -> Self {
        Root {
            base: PathBuf::from("/"),
            live: true,
            resolved: Some(PathBuf::from("/")),
        }
    }

    /// A captured tree laid out like `/`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        let base: PathBuf = dir.into();
        let resolved = fs::canonicalize(&base).ok();
        Root {
            base,
            live: false,
            resolved,
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

impl Root {
    /// Read a whole kernel file as text, classifying failures.
    ///
    /// `absent` is the reason when the file is not there.
    pub fn read_text(&self, path: &Path, absent: &Reason) -> Reading<String> {
        let mut bytes = Vec::new();
        self.read_into(path, &mut bytes, absent)?;
        String::from_utf8(bytes)
            .map_err(|_| Unavailable::malformed(path, None, "not valid UTF-8 text"))
    }

    /// Read and parse one decimal integer file.
    pub fn read_u64(&self, path: &Path, absent: &Reason) -> Reading<u64> {
        let text = self.read_text(path, absent)?;
        parse_u64_file(path, &text)
    }

    /// Append the whole file at `path` to `buf` (a buffer reused across many small files).
    pub fn read_into(&self, path: &Path, buf: &mut Vec<u8>, absent: &Reason) -> Reading<()> {
        let cap = read_cap(&self.base, path);
        let file = self.open(path, absent)?;
        let start = buf.len();
        // One byte past the cap tells a file that fills it from one that overflows it.
        file.take(cap.saturating_add(1))
            .read_to_end(buf)
            .map_err(|e| classify_io(path, &e, absent))?;
        if (buf.len() - start) as u64 > cap {
            buf.truncate(start);
            return Err(Unavailable::new(path, Reason::TooLarge { cap }));
        }
        Ok(())
    }

    /// List a directory. Under `--root` a directory whose links lead out of the tree is refused.
    pub fn read_dir(&self, dir: &Path) -> io::Result<fs::ReadDir> {
        if !self.live {
            self.inside(dir)?.ok_or_else(out_of_tree)?;
        }
        fs::read_dir(dir)
    }

    /// `path` with every link resolved; under `--root`, refused when that leaves the tree.
    pub fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        if self.live {
            fs::canonicalize(path)
        } else {
            self.inside(path)?.ok_or_else(out_of_tree)
        }
    }

    /// Open a file to read. Live, the kernel's files are trusted as they are. Under `--root` the
    /// path must resolve inside the tree to a regular file; it is opened without following a
    /// last link (already resolved) and without blocking, and checked again once open.
    fn open(&self, path: &Path, absent: &Reason) -> Reading<fs::File> {
        if self.live {
            return fs::File::open(path).map_err(|e| classify_io(path, &e, absent));
        }
        let real = self
            .inside(path)
            .map_err(|e| classify_io(path, &e, absent))?
            .ok_or_else(|| Unavailable::new(path, Reason::OutOfTree))?;
        let kind = fs::symlink_metadata(&real)
            .map_err(|e| classify_io(path, &e, absent))?
            .file_type();
        not_regular(path, kind)?;
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
            .open(&real)
            .map_err(|e| classify_io(path, &e, absent))?;
        let kind = file
            .metadata()
            .map_err(|e| classify_io(path, &e, absent))?
            .file_type();
        not_regular(path, kind)?;
        Ok(file)
    }

    /// `path` resolved, `None` when that leaves the tree.
    fn inside(&self, path: &Path) -> io::Result<Option<PathBuf>> {
        let real = fs::canonicalize(path)?;
        Ok(match &self.resolved {
            Some(base) if real.starts_with(base) => Some(real),
            _ => None,
        })
    }
}

/// The error of a listing whose links leave the `--root` tree ([`classify_io`] knows it).
#[derive(Debug)]
struct OutOfTree;

impl std::fmt::Display for OutOfTree {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a link leads out of the tree")
    }
}

impl std::error::Error for OutOfTree {}

fn out_of_tree() -> io::Error {
    io::Error::other(OutOfTree)
}

/// Under `--root`, anything but a regular file is refused: a FIFO blocks, a device never ends.
fn not_regular(path: &Path, kind: fs::FileType) -> Reading<()> {
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    };
    Err(Unavailable::new(
        path,
        Reason::NotRegular { what: what.into() },
    ))
}

/// Map an I/O error on `path` to a reason; `absent` when the file is not there.
pub fn classify_io(path: &Path, e: &io::Error, absent: &Reason) -> Unavailable {
    if e.get_ref().is_some_and(|inner| inner.is::<OutOfTree>()) {
        return Unavailable::new(path, Reason::OutOfTree);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_follow_the_kind_of_file() {
        let b = Path::new("/t");
        assert_eq!(read_cap(b, Path::new("/t/proc/zoneinfo")), PROC_CAP);
        assert_eq!(read_cap(b, Path::new("/t/proc/4242/status")), PID_CAP);
        assert_eq!(read_cap(b, Path::new("/t/sys/block/vda/stat")), SYS_CAP);
        assert_eq!(
            read_cap(Path::new("/"), Path::new("/proc/self/status")),
            PID_CAP
        );
    }

    #[test]
    fn a_tree_follows_its_own_links_and_no_others() {
        let t = tempfile::tempdir().unwrap();
        let proc = t.path().join("proc");
        fs::create_dir_all(&proc).unwrap();
        fs::write(proc.join("real"), "7\n").unwrap();
        std::os::unix::fs::symlink("real", proc.join("inside")).unwrap();
        std::os::unix::fs::symlink("/proc/self/status", proc.join("outside")).unwrap();
        let root = Root::at(t.path());
        assert_eq!(
            root.read_u64(&root.proc("inside"), &Reason::absent("")),
            Ok(7)
        );
        let e = root
            .read_text(&root.proc("outside"), &Reason::absent(""))
            .unwrap_err();
        assert_eq!(e.reason, Reason::OutOfTree);
        assert!(root.read_dir(&proc).is_ok());
        assert!(root.read_dir(Path::new("/proc")).is_err());
        // Live, the kernel's own links are followed.
        let live = Root::live();
        assert!(
            live.read_text(&live.proc("self/status"), &Reason::absent(""))
                .is_ok()
        );
    }

    #[test]
    fn a_read_stops_at_its_cap() {
        let t = tempfile::tempdir().unwrap();
        let big = t.path().join("sys/big");
        fs::create_dir_all(big.parent().unwrap()).unwrap();
        let f = fs::File::create(&big).unwrap();
        f.set_len(SYS_CAP + 1).unwrap();
        let root = Root::at(t.path());
        let mut buf = b"kept".to_vec();
        let e = root
            .read_into(&big, &mut buf, &Reason::absent(""))
            .unwrap_err();
        assert_eq!(e.reason, Reason::TooLarge { cap: SYS_CAP });
        assert_eq!(buf, b"kept");
        f.set_len(SYS_CAP).unwrap();
        assert!(root.read_into(&big, &mut buf, &Reason::absent("")).is_ok());
    }

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
        assert_eq!(classify(out_of_tree()), Reason::OutOfTree);
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
