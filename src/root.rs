//! The filesystem root every reader goes through.
//!
//! On the live system the root is `/`. With `--root DIR` every kernel file is read from
//! `DIR/proc/...` and `DIR/sys/...` instead, so a whole captured tree replaces the kernel.

mod beneath;

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::error::{Fs, Reading, Reason, Unavailable};
use rustix::fs::{FileType, OFlags};
use rustix::io::Errno;

/// The tree that stands for `/`.
///
/// Every file a source reads goes through it. A captured tree (`--root`) is not trusted: a read
/// there refuses anything but a regular file (a FIFO would block, `/dev/zero` never ends) and any
/// path whose links lead out of the tree. Every path under it is looked up from the tree's
/// directory descriptor, opened once by [`Root::at`], and the lookup cannot leave it (see
/// `root/beneath.rs`): a directory of the tree swapped for a link while it is read leads nowhere
/// else. Live and captured alike, no read takes more than a real kernel file of its kind can
/// hold ([`read_cap`]).
#[derive(Debug)]
pub struct Root {
    base: PathBuf,
    live: bool,
    /// `base` with every link resolved: what paths built from [`Root::canonicalize`] start with
    /// (`None` when the directory could not be resolved: then nothing under it can be read
    /// either).
    resolved: Option<PathBuf>,
    /// Under `--root`: the tree's directory, open since [`Root::at`] (`None` when it could not
    /// be opened). Shared by the copies.
    dir: Option<Arc<OwnedFd>>,
    /// The files read every tick ([`KEPT`]), open since their first read.
    kept: Mutex<Vec<Kept>>,
    /// `/proc/self/mounts`, open to be asked whether anything was mounted or unmounted since
    /// ([`Root::mounts_unchanged`]).
    mounts: Mutex<Option<fs::File>>,
}

/// A [`KEPT`] file and its open descriptor.
#[derive(Debug)]
struct Kept {
    path: PathBuf,
    /// `None`: a file that cannot be read with `pread`, opened for each read.
    file: Option<fs::File>,
    /// Under `--root`: the device and inode the path led to when it was opened. A read first
    /// checks that the path still leads there: a tree's file replaced, or its directory renamed
    /// and another put in its place, is opened again. (The open descriptor keeps its inode
    /// allocated, so no other file can carry the same number meanwhile.)
    id: Option<(u64, u64)>,
    /// Read since the last [`Root::sweep`].
    used: bool,
}

/// A copy starts with no kept files of its own (it opens them on its first reads); the tree's
/// directory is shared.
impl Clone for Root {
    fn clone(&self) -> Root {
        Root {
            base: self.base.clone(),
            live: self.live,
            resolved: self.resolved.clone(),
            dir: self.dir.clone(),
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
/// gets this by being listed here. A tick ends with [`Root::sweep`], which closes the ones it
/// did not read: the files of a zram device removed, of a swap area switched off, of a device
/// directory renamed in a tree.
///
/// The settings (the vm sysctls, transparent hugepages, zswap's parameters), `/proc/cmdline` and
/// `/proc/crypto` are read by every sample of `serve` and `--once`, and by the dashboard once a
/// minute or while shown: kept too, they cost `serve` a `pread` each instead of an open, a read
/// and a close (27 files; 43 opens a scrape before, measured with `perf stat -e
/// 'syscalls:sys_enter_openat'` on the server over 100 scrapes). The dashboard's sweep closes
/// them on the tick after it read them.
pub const KEPT: &[&str] = &[
    "proc/meminfo",
    "proc/vmstat",
    "proc/swaps",
    "proc/uptime",
    "proc/zoneinfo",
    "proc/pressure/",
    "proc/cmdline",
    "proc/crypto",
    "proc/sys/vm/",
    "sys/kernel/debug/zswap/",
    "sys/kernel/mm/transparent_hugepage/",
    "sys/module/zswap/parameters/",
    "sys/block/",
    "sys/devices/",
];

/// Whether `rel` (relative to the root) is one of the [`KEPT`] files.
fn is_kept(rel: &Path) -> bool {
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

/// Whether a read of `rel` (a [`KEPT`] file) returns the whole file when the buffer holds it, so
/// that a short read is the end without a read of 0 to say so: a sysfs attribute (its `show`
/// fills at most a page, handed over whole) and a sysctl (its handler writes the value whole),
/// not the debugfs counters nor a seq_file of many records (`/proc/vmstat`, `/proc/crypto`,
/// `/proc/zoneinfo` come a page at a time). It saves `serve` about 30 `pread`s a scrape.
fn whole_at_once(rel: &Path) -> bool {
    (rel.starts_with("sys") && !rel.starts_with("sys/kernel/debug")) || rel.starts_with("proc/sys")
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

/// The most a read of `rel` (relative to the root) takes (see the constants above).
pub(crate) fn read_cap(rel: &Path) -> u64 {
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
            dir: None,
            kept: Mutex::default(),
            mounts: Mutex::default(),
        }
    }

    /// A captured tree laid out like `/`. Its directory is opened here, once: what is read
    /// later is what lies beneath this directory, whatever `dir` names by then.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        let base: PathBuf = dir.into();
        let resolved = fs::canonicalize(&base).ok();
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = rustix::fs::open(&base, flags, rustix::fs::Mode::empty())
            .ok()
            .map(Arc::new);
        Root {
            base,
            live: false,
            resolved,
            dir,
            kept: Mutex::default(),
            mounts: Mutex::default(),
        }
    }

    /// Live: whether nothing was mounted or unmounted (in this process's mount namespace) since
    /// the last call. The kernel flags the open mount table when it changes, so asking is one
    /// `poll` with no wait, and no path is looked up. `false` on the first call, when the table
    /// cannot be watched, and under `--root`.
    pub(crate) fn mounts_unchanged(&self) -> bool {
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

    pub(crate) fn is_live(&self) -> bool {
        self.live
    }

    pub(crate) fn base(&self) -> &Path {
        &self.base
    }

    /// `ROOT/proc/<rel>`.
    pub(crate) fn proc(&self, rel: &str) -> PathBuf {
        self.base.join("proc").join(rel)
    }

    /// `ROOT/sys/<rel>`.
    pub(crate) fn sys(&self, rel: &str) -> PathBuf {
        self.base.join("sys").join(rel)
    }

    /// `ROOT/<rel>`, for files a capture keeps beside proc/ and sys/ (`pagesize`, `uname-r`).
    pub(crate) fn file(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
}

impl Root {
    /// Read a whole kernel file as text, classifying failures.
    ///
    /// `absent` is the reason when the file is not there.
    pub(crate) fn read_text(&self, path: &Path, absent: &Reason) -> Reading<String> {
        let mut bytes = Vec::new();
        self.read_into(path, &mut bytes, absent)?;
        String::from_utf8(bytes)
            .map_err(|_| Unavailable::malformed(path, None, "not valid UTF-8 text"))
    }

    /// Read and parse one decimal integer file.
    pub(crate) fn read_u64(&self, path: &Path, absent: &Reason) -> Reading<u64> {
        let text = self.read_text(path, absent)?;
        parse_u64_file(path, &text)
    }

    /// Append the whole file at `path` to `buf` (a buffer reused across many small files).
    pub(crate) fn read_into(&self, path: &Path, buf: &mut Vec<u8>, absent: &Reason) -> Reading<()> {
        let rel = self.rel(path);
        let cap = read_cap(rel.unwrap_or(path));
        let start = buf.len();
        if let Some(rel) = rel.filter(|r| is_kept(r)) {
            self.read_kept(path, buf, cap, absent, whole_at_once(rel))?;
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
    /// fresh one, as does a tree's path that no longer leads to the file opened; a file that
    /// cannot be opened is not kept. A file that refuses `pread` (ESPIPE: debugfs's counters
    /// are not seekable) is remembered as such and opened for each read.
    fn read_kept(
        &self,
        path: &Path,
        buf: &mut Vec<u8>,
        cap: u64,
        absent: &Reason,
        at_once: bool,
    ) -> Reading<()> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let start = buf.len();
        if let Some(i) = kept.iter().position(|k| k.path == path) {
            kept[i].used = true;
            let Some(file) = &kept[i].file else {
                let file = self.open(path, absent)?;
                return read_to_cap(&file, buf, cap).map_err(|e| classify_io(path, &e, absent));
            };
            // A tree's file replaced, or its directory renamed, since it was opened (the
            // kernel's own fail the read instead).
            let same = self.live || self.identity(path).is_ok_and(|id| Some(id) == kept[i].id);
            if same && pread_all(file, buf, cap, at_once).is_ok() {
                return Ok(());
            }
            buf.truncate(start);
            kept.swap_remove(i);
        }
        let file = self.open(path, absent)?;
        let id = if self.live {
            None
        } else {
            file.metadata().ok().map(|m| (m.dev(), m.ino()))
        };
        let read = match pread_all(&file, buf, cap, at_once) {
            Err(e) if e.raw_os_error() == Some(Errno::SPIPE.raw_os_error()) => {
                buf.truncate(start);
                read_to_cap(&file, buf, cap).map(|()| None)
            }
            other => other.map(|()| Some(file)),
        };
        match read {
            Ok(file) => {
                kept.push(Kept {
                    path: path.to_path_buf(),
                    file,
                    id,
                    used: true,
                });
                Ok(())
            }
            Err(e) => {
                buf.truncate(start);
                Err(classify_io(path, &e, absent))
            }
        }
    }

    /// Close the kept files not read since the last sweep: their device, swap area or tree
    /// directory is gone (or no longer shown). Every tick ends with one, so the descriptors a
    /// tick holds are those of the files it read.
    pub(crate) fn sweep(&self) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain_mut(|k| std::mem::take(&mut k.used));
    }

    /// How many files are kept open (for tests and the descriptor checks).
    pub fn kept_count(&self) -> usize {
        self.kept.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// List a directory. Under `--root`, the directory is looked up beneath the tree and listed
    /// from the descriptor that lookup opened.
    pub(crate) fn read_dir(&self, dir: &Path) -> io::Result<ReadDir> {
        if self.live {
            return Ok(ReadDir::Live(fs::read_dir(dir)?));
        }
        let fd = self.beneath(dir, OFlags::RDONLY | OFlags::DIRECTORY)?;
        Ok(ReadDir::Tree {
            dir: dir.to_path_buf(),
            entries: rustix::fs::Dir::new(fd)?,
        })
    }

    /// `path` with every link resolved; under `--root`, within the tree (the result starts with
    /// the tree's resolved directory), or refused when that leaves the tree.
    pub(crate) fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        if self.live {
            return fs::canonicalize(path);
        }
        let (dir, rel) = self.tree_rel(path)?;
        let resolved = self.resolved.as_ref().ok_or_else(out_of_tree)?;
        Ok(resolved.join(beneath::canonical(dir.as_fd(), rel)?))
    }

    /// What `path` leads to, links followed (under `--root`, within the tree): `None` when
    /// nothing is there (or it cannot be told).
    pub(crate) fn kind(&self, path: &Path) -> Option<FileType> {
        self.stat(path).ok().map(|(kind, _, _)| kind)
    }

    /// Whether `path` leads to a directory.
    pub(crate) fn is_dir(&self, path: &Path) -> bool {
        self.kind(path) == Some(FileType::Directory)
    }

    /// Whether anything is at `path`.
    pub(crate) fn exists(&self, path: &Path) -> bool {
        self.kind(path).is_some()
    }

    /// The inode `path` leads to.
    pub(crate) fn inode(&self, path: &Path) -> Option<u64> {
        self.stat(path).ok().map(|(_, _, ino)| ino)
    }

    /// The kind, device and inode of what `path` leads to.
    fn stat(&self, path: &Path) -> io::Result<(FileType, u64, u64)> {
        if self.live {
            let m = fs::metadata(path)?;
            return Ok((FileType::from_raw_mode(m.mode()), m.dev(), m.ino()));
        }
        let fd = self.beneath(path, OFlags::PATH)?;
        let st = rustix::fs::fstat(&fd)?;
        Ok((FileType::from_raw_mode(st.st_mode), st.st_dev, st.st_ino))
    }

    /// Under `--root`: the device and inode `path` now leads to.
    fn identity(&self, path: &Path) -> io::Result<(u64, u64)> {
        self.stat(path).map(|(_, dev, ino)| (dev, ino))
    }

    /// Open `path` to stream it, with every check a read makes (a file too large for one read:
    /// the caller bounds what it takes).
    pub(crate) fn open_file(&self, path: &Path, absent: &Reason) -> Reading<fs::File> {
        self.open(path, absent)
    }

    /// When `path` (any kind of file, a device node too) was last modified, in Unix seconds;
    /// under `--root` looked up beneath the tree, never followed out of it.
    pub(crate) fn mtime(&self, path: &Path) -> Option<i64> {
        if self.live {
            return fs::metadata(path).ok().map(|m| m.mtime());
        }
        let fd = self.beneath(path, OFlags::PATH).ok()?;
        rustix::fs::fstat(&fd).ok().map(|st| st.st_mtime)
    }

    /// Open a file to read. Live, the kernel's files are trusted as they are. Under `--root` the
    /// path is looked up beneath the tree (`O_PATH`, which opens nothing), must be a regular
    /// file, and only then is that same file opened to read, without blocking.
    fn open(&self, path: &Path, absent: &Reason) -> Reading<fs::File> {
        if self.live {
            return fs::File::open(path).map_err(|e| classify_io(path, &e, absent));
        }
        let err = |e: io::Error| classify_io(path, &e, absent);
        let found = self.beneath(path, OFlags::PATH).map_err(err)?;
        let st = rustix::fs::fstat(&found).map_err(|e| err(e.into()))?;
        not_regular(path, FileType::from_raw_mode(st.st_mode))?;
        match beneath::reopen(&found) {
            Some(fd) => Ok(fs::File::from(fd.map_err(err)?)),
            None => self.open_again(path, (st.st_dev, st.st_ino), absent),
        }
    }

    /// Under `--root`, where there is no /proc to reopen a file through: `path` looked up again
    /// to read, and refused unless it is still the regular file `id` (device, inode) names. A
    /// swap in between opens the other file, then refuses it.
    fn open_again(&self, path: &Path, id: (u64, u64), absent: &Reason) -> Reading<fs::File> {
        let err = |e: io::Error| classify_io(path, &e, absent);
        let read = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY;
        let fd = self.beneath(path, read).map_err(err)?;
        let st = rustix::fs::fstat(&fd).map_err(|e| err(e.into()))?;
        not_regular(path, FileType::from_raw_mode(st.st_mode))?;
        if (st.st_dev, st.st_ino) != id {
            return Err(Unavailable::new(
                path,
                Reason::Unreadable {
                    error: "replaced while it was opened".into(),
                },
            ));
        }
        Ok(fs::File::from(fd))
    }

    /// Under `--root`: `path` opened with `flags`, looked up beneath the tree's directory.
    fn beneath(&self, path: &Path, flags: OFlags) -> io::Result<OwnedFd> {
        let (dir, rel) = self.tree_rel(path)?;
        beneath::open(dir.as_fd(), rel, flags)
    }

    /// Under `--root`: the tree's directory and `path` relative to it; refused when `path` does
    /// not start with the tree's directory.
    fn tree_rel<'a>(&self, path: &'a Path) -> io::Result<(&Arc<OwnedFd>, &'a Path)> {
        let dir = self
            .dir
            .as_ref()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        let rel = self.rel(path).ok_or_else(out_of_tree)?;
        Ok((dir, rel))
    }

    /// `path` relative to the root: it starts with the root's directory as given, or with it
    /// resolved (the paths [`Root::canonicalize`] builds).
    fn rel<'a>(&self, path: &'a Path) -> Option<&'a Path> {
        path.strip_prefix(&self.base)
            .ok()
            .or_else(|| path.strip_prefix(self.resolved.as_ref()?).ok())
    }
}

/// A directory's entries, from [`Root::read_dir`].
#[derive(Debug)]
pub enum ReadDir {
    Live(fs::ReadDir),
    /// Listed from the descriptor the lookup beneath the tree opened.
    Tree {
        dir: PathBuf,
        entries: rustix::fs::Dir,
    },
}

/// One entry of a listing: its path (the directory's, as given, joined with its name) and
/// what it is, as the directory says (links not followed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    path: PathBuf,
    kind: FileType,
}

impl DirEntry {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn into_path(self) -> PathBuf {
        self.path
    }

    pub(crate) fn file_name(&self) -> &OsStr {
        self.path.file_name().unwrap_or_default()
    }

    pub(crate) fn is_dir(&self) -> bool {
        self.kind == FileType::Directory
    }

    pub(crate) fn is_file(&self) -> bool {
        self.kind == FileType::RegularFile
    }
}

impl Iterator for ReadDir {
    type Item = io::Result<DirEntry>;

    fn next(&mut self) -> Option<io::Result<DirEntry>> {
        match self {
            ReadDir::Live(rd) => Some(rd.next()?.and_then(|e| {
                Ok(DirEntry {
                    kind: kind_of(e.file_type()?),
                    path: e.path(),
                })
            })),
            ReadDir::Tree { dir, entries } => loop {
                let e = match entries.next()? {
                    Ok(e) => e,
                    Err(err) => return Some(Err(err.into())),
                };
                let name = OsStr::from_bytes(e.file_name().to_bytes());
                if name == "." || name == ".." {
                    continue;
                }
                let mut kind = e.file_type();
                if kind == FileType::Unknown {
                    // A file system that does not give the type in the listing: asked of the
                    // entry itself, from the listed directory, the link not followed.
                    let Ok(fd) = entries.fd() else { continue };
                    kind = rustix::fs::statat(
                        fd,
                        e.file_name(),
                        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                    )
                    .map_or(FileType::Unknown, |st| FileType::from_raw_mode(st.st_mode));
                }
                break Some(Ok(DirEntry {
                    path: dir.join(name),
                    kind,
                }));
            },
        }
    }
}

/// Append the rest of the file (at most `cap + 1` bytes) to `buf`: one byte past the cap tells
/// a file that fills it from one that overflows it.
fn read_to_cap(file: &fs::File, buf: &mut Vec<u8>, cap: u64) -> io::Result<()> {
    file.take(cap.saturating_add(1)).read_to_end(buf).map(drop)
}

/// Append the file from offset 0 to its end (at most `cap + 1` bytes) to `buf`, with `pread`.
fn pread_all(file: &fs::File, buf: &mut Vec<u8>, cap: u64, at_once: bool) -> io::Result<()> {
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
            // Less than asked of a file the kernel gives whole at once: that was all of it.
            Ok(n) if at_once && n < room => {
                buf.truncate(end + n);
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

/// The error of a path that is not in the `--root` tree at all ([`classify_io`] knows it).
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

/// std's file type as rustix names it.
fn kind_of(t: fs::FileType) -> FileType {
    use std::os::unix::fs::FileTypeExt;
    if t.is_file() {
        FileType::RegularFile
    } else if t.is_dir() {
        FileType::Directory
    } else if t.is_symlink() {
        FileType::Symlink
    } else if t.is_fifo() {
        FileType::Fifo
    } else if t.is_socket() {
        FileType::Socket
    } else if t.is_char_device() {
        FileType::CharacterDevice
    } else if t.is_block_device() {
        FileType::BlockDevice
    } else {
        FileType::Unknown
    }
}

/// Under `--root`, anything but a regular file is refused: a FIFO blocks, a device never ends.
fn not_regular(path: &Path, kind: FileType) -> Reading<()> {
    let what = match kind {
        FileType::RegularFile => return Ok(()),
        FileType::Fifo => "a FIFO",
        FileType::CharacterDevice | FileType::BlockDevice => "a device",
        FileType::Socket => "a socket",
        FileType::Directory => "a directory",
        _ => "not a regular file",
    };
    Err(Unavailable::new(
        path,
        Reason::NotRegular { what: what.into() },
    ))
}

/// Map an I/O error on `path` to a reason; `absent` when the file is not there.
pub(crate) fn classify_io(path: &Path, e: &io::Error, absent: &Reason) -> Unavailable {
    if e.get_ref().is_some_and(|inner| inner.is::<OutOfTree>()) {
        return Unavailable::new(path, Reason::OutOfTree);
    }
    let reason = match e.kind() {
        io::ErrorKind::NotFound => absent.clone(),
        io::ErrorKind::PermissionDenied => Reason::NeedsRoot { fs: Fs::of(path) },
        _ => match Errno::from_io_error(e) {
            // A lookup beneath the tree that would have left it (root/beneath.rs).
            Some(Errno::XDEV) => Reason::OutOfTree,
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
pub(crate) fn parse_u64_file(path: &Path, text: &str) -> Reading<u64> {
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
        assert_eq!(read_cap(Path::new("proc/zoneinfo")), PROC_CAP);
        assert_eq!(read_cap(Path::new("proc/4242/status")), PID_CAP);
        assert_eq!(read_cap(Path::new("proc/self/status")), PID_CAP);
        assert_eq!(read_cap(Path::new("sys/block/vda/stat")), SYS_CAP);
        // Relative to the tree whichever way the path names it: as given or resolved.
        let t = tempfile::tempdir().unwrap();
        fs::create_dir(t.path().join("x")).unwrap();
        let root = Root::at(t.path().join("x/.."));
        let resolved = fs::canonicalize(t.path()).unwrap();
        assert_eq!(
            root.rel(&resolved.join("proc/1/status")),
            Some(Path::new("proc/1/status"))
        );
        assert_eq!(
            root.rel(&t.path().join("x/../sys/block")),
            Some(Path::new("sys/block"))
        );
        assert_eq!(root.rel(Path::new("/etc/passwd")), None);
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
        let e = root.read_dir(Path::new("/proc")).unwrap_err();
        assert_eq!(
            classify_io(&proc, &e, &Reason::absent("")).reason,
            Reason::OutOfTree
        );
        // A path that climbs out by itself.
        let e = root
            .read_text(&root.proc("../../../../../etc/passwd"), &Reason::absent(""))
            .unwrap_err();
        assert_eq!(e.reason, Reason::OutOfTree);
        // Live, the kernel's own links are followed.
        let live = Root::live();
        assert!(
            live.read_text(&live.proc("self/status"), &Reason::absent(""))
                .is_ok()
        );
    }

    /// A tree's directory swapped for a link after the root was opened: absolute or relative,
    /// a link out is refused for reads, listings, kinds and resolved paths alike.
    #[test]
    fn a_directory_swapped_for_a_link_out_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let tree = t.path().join("tree");
        let outside = t.path().join("outside");
        for d in [&tree, &outside] {
            fs::create_dir_all(d.join("proc")).unwrap();
            fs::write(d.join("proc/meminfo"), "MemTotal: 4 kB\n").unwrap();
        }
        let root = Root::at(&tree);
        let absent = Reason::absent("");
        assert!(root.read_text(&root.proc("meminfo"), &absent).is_ok());
        for target in [outside.join("proc"), PathBuf::from("../outside/proc")] {
            fs::remove_dir_all(tree.join("proc")).ok();
            fs::remove_file(tree.join("proc")).ok();
            std::os::unix::fs::symlink(&target, tree.join("proc")).unwrap();
            let e = root.read_text(&root.proc("meminfo"), &absent).unwrap_err();
            assert_eq!(e.reason, Reason::OutOfTree, "{target:?}");
            assert!(root.read_dir(&root.proc("")).is_err(), "{target:?}");
            assert!(!root.exists(&root.proc("meminfo")), "{target:?}");
            assert!(
                root.canonicalize(&root.proc("meminfo")).is_err(),
                "{target:?}"
            );
            assert_eq!(root.kept_count(), 0, "{target:?}");
        }
        // In-tree links are followed by every query, and resolved paths stay in the tree.
        fs::remove_file(tree.join("proc")).unwrap();
        fs::create_dir_all(tree.join("sys/devices/vda")).unwrap();
        fs::create_dir_all(tree.join("sys/block")).unwrap();
        fs::write(tree.join("sys/devices/vda/stat"), "1 2 3\n").unwrap();
        std::os::unix::fs::symlink("../devices/vda", tree.join("sys/block/vda")).unwrap();
        let vda = root.sys("block/vda");
        assert!(root.is_dir(&vda));
        assert!(root.exists(&vda.join("stat")));
        let real = root.canonicalize(&vda).unwrap();
        assert_eq!(
            real,
            fs::canonicalize(tree.join("sys/devices/vda")).unwrap()
        );
        assert_eq!(
            root.read_text(&real.join("stat"), &absent).unwrap(),
            "1 2 3\n"
        );
        let names: Vec<_> = root
            .read_dir(&vda)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_owned())
            .collect();
        assert_eq!(names, ["stat"]);
    }

    /// The tree is the directory `--root` named when zswaptop started: renamed and another
    /// put in its place, the reads stay in the first.
    #[test]
    fn the_tree_is_the_directory_opened_first() {
        let t = tempfile::tempdir().unwrap();
        let tree = t.path().join("tree");
        fs::create_dir_all(tree.join("proc")).unwrap();
        fs::write(tree.join("proc/cmdline"), "first\n").unwrap();
        let root = Root::at(&tree);
        fs::rename(&tree, t.path().join("moved")).unwrap();
        fs::create_dir_all(tree.join("proc")).unwrap();
        fs::write(tree.join("proc/cmdline"), "second\n").unwrap();
        let text = root.read_text(&root.proc("cmdline"), &Reason::absent(""));
        assert_eq!(text.as_deref(), Ok("first\n"));
    }

    /// procfs read as a tree: a magic link (`/proc/self/fd/N`) is refused as a way out.
    #[test]
    fn a_magic_link_in_a_tree_is_refused() {
        let t = tempfile::tempdir().unwrap();
        let secret = t.path().join("secret");
        fs::write(&secret, "outside\n").unwrap();
        let file = fs::File::open(&secret).unwrap();
        let root = Root::at("/");
        let link = root.proc(&format!(
            "self/fd/{}",
            std::os::fd::AsRawFd::as_raw_fd(&file)
        ));
        let e = root.read_text(&link, &Reason::absent("")).unwrap_err();
        assert_eq!(e.reason, Reason::OutOfTree);
        assert!(
            root.read_text(&root.proc("self/status"), &Reason::absent(""))
                .is_ok()
        );
    }

    /// A kept file of a tree whose directory was renamed and another put in its place: the
    /// file now at the path is read, not the one kept open.
    #[test]
    fn a_kept_file_follows_its_path_in_a_tree() {
        let t = tempfile::tempdir().unwrap();
        let block = t.path().join("sys/block");
        fs::create_dir_all(block.join("zram0")).unwrap();
        fs::create_dir_all(block.join("zram1")).unwrap();
        fs::write(block.join("zram0/disksize"), "100\n").unwrap();
        fs::write(block.join("zram1/disksize"), "200\n").unwrap();
        let root = Root::at(t.path());
        let absent = Reason::absent("");
        let path = root.sys("block/zram0/disksize");
        assert_eq!(root.read_u64(&path, &absent), Ok(100));
        assert_eq!(root.kept_count(), 1);
        fs::rename(block.join("zram0"), block.join("zram9")).unwrap();
        fs::rename(block.join("zram1"), block.join("zram0")).unwrap();
        assert_eq!(root.read_u64(&path, &absent), Ok(200));
        assert_eq!(root.kept_count(), 1);
        fs::remove_dir_all(block.join("zram0")).unwrap();
        assert!(
            root.read_u64(&path, &absent)
                .unwrap_err()
                .reason
                .is_absent()
        );
        assert_eq!(root.kept_count(), 0);
    }

    /// Without /proc to reopen through, a file is looked up a second time to read and must be
    /// the one the first lookup found.
    #[test]
    fn a_second_lookup_must_find_the_same_file() {
        let t = tempfile::tempdir().unwrap();
        let proc = t.path().join("proc");
        fs::create_dir_all(&proc).unwrap();
        fs::write(proc.join("meminfo"), "MemTotal: 1 kB\n").unwrap();
        let root = Root::at(t.path());
        let path = root.proc("meminfo");
        let absent = Reason::absent("");
        // Held open, as the first lookup's descriptor is: its inode number is not given to
        // another file meanwhile.
        let first = fs::File::open(&path).unwrap();
        let id = (
            first.metadata().unwrap().dev(),
            first.metadata().unwrap().ino(),
        );
        let mut text = String::new();
        root.open_again(&path, id, &absent)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "MemTotal: 1 kB\n");
        // Replaced in between: refused, whatever the other file holds.
        fs::remove_file(&path).unwrap();
        fs::write(&path, "MemTotal: 2 kB\n").unwrap();
        let e = root.open_again(&path, id, &absent).unwrap_err();
        assert!(matches!(e.reason, Reason::Unreadable { .. }), "{e:?}");
        // And a FIFO put there is refused as one.
        fs::remove_file(&path).unwrap();
        if std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .is_ok_and(|s| s.success())
        {
            let e = root.open_again(&path, id, &absent).unwrap_err();
            assert!(matches!(e.reason, Reason::NotRegular { .. }), "{e:?}");
        }
    }

    /// A sweep closes the kept files not read since the one before.
    #[test]
    fn a_sweep_closes_what_was_not_read() {
        let t = tempfile::tempdir().unwrap();
        let proc = t.path().join("proc");
        fs::create_dir_all(&proc).unwrap();
        fs::write(proc.join("meminfo"), "MemTotal: 1 kB\n").unwrap();
        fs::write(proc.join("vmstat"), "pswpin 1\n").unwrap();
        let root = Root::at(t.path());
        let absent = Reason::absent("");
        for f in ["meminfo", "vmstat"] {
            root.read_text(&root.proc(f), &absent).unwrap();
        }
        root.sweep();
        assert_eq!(root.kept_count(), 2, "both read since the last sweep");
        root.read_text(&root.proc("meminfo"), &absent).unwrap();
        root.sweep();
        assert_eq!(root.kept_count(), 1, "vmstat was not read");
        root.sweep();
        assert_eq!(root.kept_count(), 0);
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
        fs::write(proc.join("mounts"), "none / tmpfs rw 0 0\n").unwrap();
        assert!(root.read_text(&root.proc("mounts"), &absent).is_ok());
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
        let e = pread_all(&file, &mut buf, SYS_CAP, false).unwrap_err();
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

    /// A sysfs attribute or a sysctl is taken as whole after a short read; a file longer than
    /// the first read is read on to its end all the same, and seq_files of many records and the
    /// debugfs counters are read to a read of 0.
    #[test]
    fn files_given_whole_are_read_whole() {
        assert!(whole_at_once(Path::new("sys/block/zram0/mm_stat")));
        assert!(whole_at_once(Path::new("proc/sys/vm/swappiness")));
        assert!(!whole_at_once(Path::new(
            "sys/kernel/debug/zswap/stored_pages"
        )));
        assert!(!whole_at_once(Path::new("proc/vmstat")));
        assert!(!whole_at_once(Path::new("proc/crypto")));
        let t = tempfile::tempdir().unwrap();
        let dir = t.path().join("sys/block/zram0");
        fs::create_dir_all(&dir).unwrap();
        let root = Root::at(t.path());
        let absent = Reason::absent("");
        for len in [10, 4095, 4096, 4097, 10_000] {
            let text: String = (0..len)
                .map(|i| char::from(b'a' + (i % 26) as u8))
                .collect();
            fs::write(dir.join("mm_stat"), &text).unwrap();
            for _ in 0..2 {
                let read = root.read_text(&dir.join("mm_stat"), &absent).unwrap();
                assert_eq!(read.len(), len);
                assert_eq!(read, text);
            }
        }
    }

    #[test]
    fn which_files_are_kept() {
        assert!(is_kept(Path::new("proc/meminfo")));
        assert!(is_kept(Path::new("proc/pressure/memory")));
        assert!(is_kept(Path::new("sys/kernel/debug/zswap/stored_pages")));
        assert!(!is_kept(Path::new("proc/meminfo2")));
        assert!(!is_kept(Path::new("proc/pressure")));
        assert!(is_kept(Path::new("proc/sys/vm/swappiness")));
        assert!(is_kept(Path::new("sys/module/zswap/parameters/enabled")));
        assert!(is_kept(Path::new("proc/crypto")));
        assert!(!is_kept(Path::new("proc/sys/kernel/pid_max")));
        assert!(!is_kept(Path::new("proc/mounts")));
        assert!(!is_kept(Path::new("proc/42/status")));
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
