//! The filesystem root every reader goes through.
//!
//! On the live system the root is `/`. With `--root DIR` every kernel file is read from
//! `DIR/proc/...` and `DIR/sys/...` instead, so a whole captured tree replaces the kernel.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustix::fs::OFlags;
use rustix::io::Errno;
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
#[derive(Debug)]
pub struct Root {
    base: PathBuf,
    live: bool,
    /// `base` with every link resolved, to tell what lies inside the tree (`None` when the
    /// directory could not be resolved: then nothing under it can be read either).
    resolved: Option<PathBuf>,
    /// The files read every tick ([`KEPT`]), open since their first read (`None`: a file that
    /// cannot be read with `pread`, opened for each read).
    kept: Mutex<Vec<(PathBuf, Option<fs::File>)>>,
    /// `/proc/self/mounts`, open to be asked whether anything was mounted or unmounted since
    /// ([`Root::mounts_unchanged`]).
    mounts: Mutex<Option<fs::File>>,
}

/// A copy starts with no descriptors of its own (it opens them on its first reads).
impl Clone for Root {
    fn clone(&self) -> Root {
        Root {
            base: self.base.clone(),
            live: self.live,
            resolved: self.resolved.clone(),
            kept: Mutex::default(),
            mounts: Mutex::default(),
        }
    }
}

/// Two roots are the same when they stand for the same tree (what is open does not count).
impl PartialEq for Root {
    fn eq(&self, other: &Root) -> bool {
        (&self.base, self.live, &self.resolved) == (&other.base, other.live, &other.resolved)
    }
}

impl Eq for Root {}

/// The files (or directories of files) read on every tick, relative to the root. Their
/// descriptors stay open and each tick reads them again from offset 0 with `pread`: procfs,
/// sysfs and debugfs build the file anew for a read at 0. One that fails is opened again once
/// (a device removed, debugfs mounted again) before its error counts. A file read every tick
/// gets this by being listed here.
pub const KEPT: &[&str] = &[
    "proc/meminfo",
    "proc/vmstat",
    "proc/swaps",
    "proc/uptime",
    "proc/zoneinfo",
    "proc/pressure/",
    "sys/kernel/debug/zswap/",
    "sys/block/",
    "sys/devices/",
];

/// Whether `path` (under `base`) is one of the [`KEPT`] files.
fn is_kept(base: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(base) else {
        return false;
    };
    let rel = rel.as_os_str().as_encoded_bytes();
    KEPT.iter().any(|k| {
        let k = k.as_bytes();
        if k.ends_with(b"/") {
            rel.len() > k.len() && rel.starts_with(k)
        } else {
            rel == k
        }
    })
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
            kept: Mutex::default(),
            mounts: Mutex::default(),
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
            kept: Mutex::default(),
            mounts: Mutex::default(),
        }
    }

    /// Live: whether nothing was mounted or unmounted (in this process's mount namespace) since
    /// the last call. The kernel flags the open mount table when it changes, so asking is one
    /// `poll` with no wait, and no path is looked up. `false` on the first call, when the table
    /// cannot be watched, and under `--root`.
    pub fn mounts_unchanged(&self) -> bool {
        if !self.live {
            return false;
        }
        let mut mounts = self.mounts.lock().unwrap_or_else(|e| e.into_inner());
        match mounts.as_ref() {
            Some(f) => {
                let unchanged = crate::sys::unflagged(f);
                if !unchanged {
                    // Changed, or the poll failed (which would say "changed" every time): a
                    // descriptor opened now starts from the table as it is.
                    *mounts = fs::File::open("/proc/self/mounts").ok();
                }
                unchanged
            }
            None => {
                *mounts = fs::File::open("/proc/self/mounts").ok();
                false
            }
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
        let start = buf.len();
        if is_kept(&self.base, path) {
            self.read_kept(path, buf, cap, absent)?;
        } else {
            let file = self.open(path, absent)?;
            read_to_cap(&file, buf, cap).map_err(|e| classify_io(path, &e, absent))?;
        }
        if (buf.len() - start) as u64 > cap {
            buf.truncate(start);
            return Err(Unavailable::new(path, Reason::TooLarge { cap }));
        }
        Ok(())
    }

    /// Read a [`KEPT`] file through its open descriptor (opened, with every check, on first
    /// use), from offset 0. A read that fails drops the descriptor and tries once more on a
    /// fresh one, as does a tree's file removed or replaced since it was opened; a file that
    /// cannot be opened is not kept. A file that refuses `pread` (ESPIPE: debugfs's counters
    /// are not seekable) is remembered as such and opened for each read.
    fn read_kept(&self, path: &Path, buf: &mut Vec<u8>, cap: u64, absent: &Reason) -> Reading<()> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let start = buf.len();
        if let Some(i) = kept.iter().position(|(p, _)| p == path) {
            let Some(file) = &kept[i].1 else {
                let file = self.open(path, absent)?;
                return read_to_cap(&file, buf, cap).map_err(|e| classify_io(path, &e, absent));
            };
            // A tree's file removed or replaced since (the kernel's own fail the read instead).
            let replaced = !self.live && file.metadata().is_ok_and(|m| m.nlink() == 0);
            if !replaced && pread_all(file, buf, cap).is_ok() {
                return Ok(());
            }
            buf.truncate(start);
            kept.swap_remove(i);
        }
        let file = self.open(path, absent)?;
        let read = match pread_all(&file, buf, cap) {
            Err(e) if e.raw_os_error() == Some(Errno::SPIPE.raw_os_error()) => {
                buf.truncate(start);
                read_to_cap(&file, buf, cap).map(|()| None)
            }
            other => other.map(|()| Some(file)),
        };
        match read {
            Ok(file) => {
                kept.push((path.to_path_buf(), file));
                Ok(())
            }
            Err(e) => {
                buf.truncate(start);
                Err(classify_io(path, &e, absent))
            }
        }
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
        let flags = OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::NOCTTY;
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags.bits().cast_signed())
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

/// Append the rest of the file (at most `cap + 1` bytes) to `buf`: one byte past the cap tells
/// a file that fills it from one that overflows it.
fn read_to_cap(file: &fs::File, buf: &mut Vec<u8>, cap: u64) -> io::Result<()> {
    file.take(cap.saturating_add(1)).read_to_end(buf).map(drop)
}

/// Append the file from offset 0 to its end (at most `cap + 1` bytes) to `buf`, with `pread`.
fn pread_all(file: &fs::File, buf: &mut Vec<u8>, cap: u64) -> io::Result<()> {
    let start = buf.len();
    let limit = usize::try_from(cap.saturating_add(1)).unwrap_or(usize::MAX);
    loop {
        let got = buf.len() - start;
        if got >= limit {
            return Ok(());
        }
        if buf.capacity() == buf.len() {
            buf.reserve(4096.min(limit - got).max(1));
        }
        let room = (buf.capacity() - buf.len()).min(limit - got);
        let end = buf.len();
        buf.resize(end + room, 0);
        match file.read_at(&mut buf[end..], got as u64) {
            Ok(0) => {
                buf.truncate(end);
                return Ok(());
            }
            Ok(n) => buf.truncate(end + n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => buf.truncate(end),
            Err(e) => {
                buf.truncate(end);
                return Err(e);
            }
        }
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
        _ => match Errno::from_io_error(e) {
            // ENOTDIR: a parent is a file; treat like missing.
            Some(Errno::NOTDIR) => absent.clone(),
            // EOPNOTSUPP on cgroup pressure files, ENODEV on vanished devices.
            Some(Errno::OPNOTSUPP | Errno::NODEV | Errno::NXIO) => Reason::Absent {
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

/// Every fixture tree of the project (a directory of `tests/fixtures` with a `proc/`), sorted:
/// what the unit tests run over every capture use.
#[cfg(test)]
pub(crate) fn fixture_trees() -> Vec<PathBuf> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut trees: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("proc").is_dir())
        .collect();
    trees.sort();
    trees
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mount or an unmount is seen once, by the next call; a tree's table is never watched.
    #[test]
    fn the_live_mount_table_is_watched() {
        assert!(!Root::at("/").mounts_unchanged());
        let root = Root::live();
        assert!(!root.mounts_unchanged(), "the first call does not know");
        assert!(root.mounts_unchanged());
        if crate::sys::euid() != 0 {
            crate::console::plain("skipped mounting a tmpfs: not root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let ok = std::process::Command::new(args[0])
                .args(&args[1..])
                .arg(dir.path())
                .status()
                .is_ok_and(|s| s.success());
            assert!(ok, "{args:?} failed");
        };
        run(&["mount", "-t", "tmpfs", "zswaptop-test"]);
        let after_mount = (root.mounts_unchanged(), root.mounts_unchanged());
        run(&["umount"]);
        assert_eq!(after_mount, (false, true));
        assert!(!root.mounts_unchanged());
        assert!(root.mounts_unchanged());
    }

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
        // A file read once, and one whose descriptor is kept (read with pread).
        for rel in ["sys/big", "sys/block/vda/stat"] {
            let big = t.path().join(rel);
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
            assert_eq!(buf.len() as u64, 4 + SYS_CAP, "{rel}");
        }
    }

    /// A file read every tick is opened once and read again from offset 0 on its descriptor:
    /// a shorter new content replaces the old, and nothing is left over from it.
    #[test]
    fn kept_files_are_read_again_from_the_start_on_one_descriptor() {
        let t = tempfile::tempdir().unwrap();
        let proc = t.path().join("proc");
        fs::create_dir_all(proc.join("pressure")).unwrap();
        fs::write(proc.join("meminfo"), "MemTotal: 1000 kB\nMemFree: 10 kB\n").unwrap();
        let root = Root::at(t.path());
        let absent = Reason::absent("");
        let first = root.read_text(&root.proc("meminfo"), &absent).unwrap();
        assert!(first.starts_with("MemTotal: 1000"));
        assert_eq!(root.kept.lock().unwrap().len(), 1);
        // Rewritten in place, as the kernel does: the same descriptor sees the new text.
        fs::write(proc.join("meminfo"), "MemTotal: 7 kB\n").unwrap();
        assert_eq!(
            root.read_text(&root.proc("meminfo"), &absent).unwrap(),
            "MemTotal: 7 kB\n"
        );
        assert_eq!(root.kept.lock().unwrap().len(), 1, "still one descriptor");
        // Replaced by another file (a tree rewritten): the new file is opened and read.
        fs::remove_file(proc.join("meminfo")).unwrap();
        fs::write(proc.join("meminfo"), "MemTotal: 8 kB\n").unwrap();
        assert_eq!(
            root.read_text(&root.proc("meminfo"), &absent).unwrap(),
            "MemTotal: 8 kB\n"
        );
        assert_eq!(root.kept.lock().unwrap().len(), 1);
        // Not there yet: not kept; once it appears, read and kept.
        let psi = root.proc("pressure/memory");
        assert!(root.read_text(&psi, &absent).is_err());
        assert_eq!(root.kept.lock().unwrap().len(), 1);
        fs::write(&psi, "some avg10=0.00\n").unwrap();
        assert!(root.read_text(&psi, &absent).is_ok());
        assert_eq!(root.kept.lock().unwrap().len(), 2);
        // Files not read every tick are not kept; a copy of the root keeps its own.
        fs::write(proc.join("cmdline"), "quiet\n").unwrap();
        assert!(root.read_text(&root.proc("cmdline"), &absent).is_ok());
        assert_eq!(root.kept.lock().unwrap().len(), 2);
        assert!(root.clone().kept.lock().unwrap().is_empty());
        assert_eq!(root.clone(), root);
    }

    /// Kept or not, a captured tree's file is checked when opened: a FIFO is refused (and not
    /// kept). The cap on kept files: `a_read_stops_at_its_cap`.
    #[test]
    fn kept_files_keep_the_checks() {
        let t = tempfile::tempdir().unwrap();
        let proc = t.path().join("proc");
        fs::create_dir_all(&proc).unwrap();
        let fifo = proc.join("vmstat");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let root = Root::at(t.path());
        if made.is_ok_and(|s| s.success()) {
            let e = root
                .read_text(&root.proc("vmstat"), &Reason::absent(""))
                .unwrap_err();
            assert!(matches!(e.reason, Reason::NotRegular { .. }), "{e:?}");
            assert!(root.kept.lock().unwrap().is_empty());
        }
    }

    /// A descriptor that refuses `pread` (debugfs's counters answer ESPIPE, as a pipe does) is
    /// read from where it stands instead.
    #[test]
    fn a_file_that_refuses_pread_is_read_as_a_stream() {
        let (r, mut w) = io::pipe().unwrap();
        io::Write::write_all(&mut w, b"42\n").unwrap();
        drop(w);
        let file = fs::File::from(std::os::fd::OwnedFd::from(r));
        let mut buf = Vec::new();
        let e = pread_all(&file, &mut buf, SYS_CAP).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(Errno::SPIPE.raw_os_error()));
        assert!(buf.is_empty());
        read_to_cap(&file, &mut buf, SYS_CAP).unwrap();
        assert_eq!(buf, b"42\n");
        // Live, where this machine lets us read debugfs: every tick reads the counters.
        let live = Root::live();
        let counter = live.sys("kernel/debug/zswap/stored_pages");
        if fs::read_to_string(&counter).is_ok() {
            for _ in 0..3 {
                assert!(live.read_u64(&counter, &Reason::absent("")).is_ok());
            }
        }
    }

    #[test]
    fn which_files_are_kept() {
        let b = Path::new("/");
        assert!(is_kept(b, Path::new("/proc/meminfo")));
        assert!(is_kept(b, Path::new("/proc/pressure/memory")));
        assert!(is_kept(
            b,
            Path::new("/sys/kernel/debug/zswap/stored_pages")
        ));
        assert!(!is_kept(b, Path::new("/proc/meminfo2")));
        assert!(!is_kept(b, Path::new("/proc/pressure")));
        assert!(!is_kept(b, Path::new("/proc/sys/vm/swappiness")));
        assert!(!is_kept(b, Path::new("/proc/42/status")));
        let t = Path::new("/t/x");
        assert!(is_kept(t, Path::new("/t/x/proc/vmstat")));
        assert!(!is_kept(t, Path::new("/proc/vmstat")));
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
        let eio = classify(io::Error::from_raw_os_error(Errno::IO.raw_os_error()));
        assert!(matches!(eio, Reason::Unreadable { .. }), "{eio:?}");
        assert_eq!(eio.status(), "unreadable");
        assert!(!eio.is_absent());
        assert_eq!(classify(out_of_tree()), Reason::OutOfTree);
        let enodev = classify(io::Error::from_raw_os_error(Errno::NODEV.raw_os_error()));
        assert!(enodev.is_absent(), "{enodev:?}");
        let enotdir = classify(io::Error::from_raw_os_error(Errno::NOTDIR.raw_os_error()));
        assert_eq!(enotdir, Reason::absent("no x"));
        let eopnotsupp = classify(io::Error::from_raw_os_error(
            Errno::OPNOTSUPP.raw_os_error(),
        ));
        assert!(eopnotsupp.is_absent(), "{eopnotsupp:?}");
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
