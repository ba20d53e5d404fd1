//! The filesystem root every reader goes through.
//!
//! On the live system the root is `/`. With `--root DIR` every kernel file is read from
//! `DIR/proc/...` and `DIR/sys/...` instead, so a whole captured tree replaces the kernel.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
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

    /// The path as the user knows it: `/proc/meminfo` live, the full path under `--root`.
    pub fn display(&self, path: &Path) -> String {
        path.display().to_string()
    }
}

impl Root {
    /// Read a whole kernel file as text, classifying failures.
    ///
    /// `missing_reason` names the feature for the "missing" reason ("PSI", "zswap").
    pub fn read_text(&self, path: &Path, missing_reason: &str) -> Reading<String> {
        let mut bytes = Vec::new();
        self.read_into(path, &mut bytes, missing_reason)?;
        String::from_utf8(bytes)
            .map_err(|_| Unavailable::malformed(path, None, "not valid UTF-8 text"))
    }

    /// Read and parse one decimal integer file.
    pub fn read_u64(&self, path: &Path, missing_reason: &str) -> Reading<u64> {
        let text = self.read_text(path, missing_reason)?;
        parse_u64_file(path, &text)
    }

    /// Append the whole file at `path` to `buf` (a buffer reused across many small files).
    pub fn read_into(&self, path: &Path, buf: &mut Vec<u8>, missing_reason: &str) -> Reading<()> {
        let cap = read_cap(&self.base, path);
        let file = self.open(path, missing_reason)?;
        let start = buf.len();
        // One byte past the cap tells a file that fills it from one that overflows it.
        file.take(cap.saturating_add(1))
            .read_to_end(buf)
            .map_err(|e| classify_io(path, &e, missing_reason))?;
        if (buf.len() - start) as u64 > cap {
            buf.truncate(start);
            return Err(Unavailable::malformed(
                path,
                None,
                format!("larger than {cap} bytes: not a kernel file"),
            ));
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
    fn open(&self, path: &Path, missing_reason: &str) -> Reading<fs::File> {
        if self.live {
            return fs::File::open(path).map_err(|e| classify_io(path, &e, missing_reason));
        }
        let real = self
            .inside(path)
            .map_err(|e| classify_io(path, &e, missing_reason))?
            .ok_or_else(|| Unavailable::malformed(path, None, OUT_OF_TREE))?;
        let kind = fs::symlink_metadata(&real)
            .map_err(|e| classify_io(path, &e, missing_reason))?
            .file_type();
        not_regular(path, kind)?;
        let file = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_NOCTTY)
            .open(&real)
            .map_err(|e| classify_io(path, &e, missing_reason))?;
        let kind = file
            .metadata()
            .map_err(|e| classify_io(path, &e, missing_reason))?
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

/// The reason a path whose links leave the `--root` tree is refused.
const OUT_OF_TREE: &str = "a link leads out of the tree: refused";

fn out_of_tree() -> io::Error {
    io::Error::other(OUT_OF_TREE)
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
    Err(Unavailable::malformed(
        path,
        None,
        format!("{what}, not a kernel file: refused"),
    ))
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
        assert_eq!(root.read_u64(&root.proc("inside"), ""), Ok(7));
        let e = root.read_text(&root.proc("outside"), "").unwrap_err();
        assert_eq!(e.reason(), format!("malformed: {OUT_OF_TREE}"));
        assert!(root.read_dir(&proc).is_ok());
        assert!(root.read_dir(Path::new("/proc")).is_err());
        // Live, the kernel's own links are followed.
        let live = Root::live();
        assert!(live.read_text(&live.proc("self/status"), "").is_ok());
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
        let e = root.read_into(&big, &mut buf, "").unwrap_err();
        assert!(e.reason().contains("larger than 1048576 bytes"), "{e:?}");
        assert_eq!(buf, b"kept");
        f.set_len(SYS_CAP).unwrap();
        assert!(root.read_into(&big, &mut buf, "").is_ok());
    }
}
