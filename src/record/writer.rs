//! Appending samples to a recording: one file, or a directory of rotated files under a size cap.
//!
//! A writer locks what it writes to (`flock`): the directory of a rotated recording and each file
//! it appends to. A second writer on the same file or directory is refused, naming the holder
//! when `/proc/locks` does; a writer never deletes a file another one holds. Readers take no lock
//! and may read while a recorder writes. Files are created 0600 and directories 0700 (a
//! recording shows what ran on the machine), and a path whose last component is a symbolic link
//! is followed only when the user running zswaptop owns the link.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, Mode, OFlags};
use zstd::bulk::Compressor;

use super::codec::{self, Encoder};
use super::frame::{
    self, FLAG_ZSTD, HEADER_LEN, HeaderCheck, KIND_DELTA, KIND_KEYFRAME, RATIO_MAX,
};
use super::{EXTENSION, Error, quiet_zstd};
use crate::sources::Sample;

/// Payloads shorter than this are stored as they are (zstd's own frame costs about 10 bytes).
const MIN_COMPRESS: usize = 48;

/// The smallest a rotated file is made (a file holds at least a keyframe and some deltas).
pub const MIN_FILE_SIZE: u64 = 64 << 10;
/// The largest a rotated file is made by default (about a day and a half at 1 s).
pub const MAX_FILE_SIZE: u64 = 16 << 20;

/// How a recording is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterOptions {
    /// Directory: the most the recording files this writer names may take together; the
    /// oldest are deleted first to stay under it. Single file: appending stops with
    /// [`Error::CapReached`] when the next record would pass it. At least
    /// [`WriterOptions::min_max_size`]: two files.
    pub max_size: Option<u64>,
    /// Directory: a new file is started before a record would take the current one past this
    /// size. By default an eighth of `max_size` (between 64 KiB and 16 MiB), or 16 MiB without
    /// a cap (a reader's index of a file grows with it).
    pub file_size: Option<u64>,
    /// A keyframe (the whole sample) at least every this many records; the others hold what
    /// changed. A damaged record costs the records up to the next keyframe.
    pub keyframe_every: u32,
    /// ... and at least this often in the samples' own time, so that a slow recorder (5 s)
    /// loses no more time to a damaged record than a fast one.
    pub keyframe_interval: Duration,
    /// Records are handed to the kernel as they are appended (a killed recorder loses
    /// nothing) and forced to the disk (`fdatasync`) at least this often (what a power loss may
    /// cost).
    pub sync_every: Duration,
    /// zstd level.
    pub level: i32,
    /// Keep the processes' command lines. They can hold secrets (tokens, passwords given as
    /// arguments), so by default they are left out and the recording says so.
    pub command_lines: bool,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            max_size: None,
            file_size: None,
            keyframe_every: 60,
            keyframe_interval: Duration::from_secs(60),
            sync_every: Duration::from_secs(60),
            level: 3,
            command_lines: false,
        }
    }
}

impl WriterOptions {
    fn file_size(&self) -> u64 {
        self.file_size.unwrap_or(match self.max_size {
            Some(cap) => (cap / 8).clamp(MIN_FILE_SIZE, MAX_FILE_SIZE),
            None => MAX_FILE_SIZE,
        })
    }

    /// The smallest cap these options allow: two files, the one being written and the one
    /// before it (128 KiB by default). Under it the cap could not be kept.
    pub(crate) fn min_max_size(&self) -> u64 {
        2 * self.file_size()
    }
}

/// Appends samples to a recording.
pub struct Writer {
    target: PathBuf,
    /// A directory of rotated files, or one file.
    dir: bool,
    /// The directory's lock, held while the writer lives.
    _dir_lock: Option<File>,
    opts: WriterOptions,
    /// The file records go to, locked.
    file: Option<(File, PathBuf)>,
    file_len: u64,
    /// Sequence number of the next rotated file.
    next_seq: u64,
    enc: Encoder,
    plain: Compressor<'static>,
    /// Compressor with the current keyframe as dictionary.
    dict: Option<Compressor<'static>>,
    since_key: u32,
    /// The monotonic time of the last keyframe's sample.
    key_ns: Option<u64>,
    need_key: bool,
    /// The file may end in a torn record that could not be cut off, or was changed by someone
    /// else: open it again (a single file) before appending.
    broken: bool,
    last_sync: Instant,
    unsynced: bool,
}

impl Writer {
    /// Open `path` for appending. A directory (existing, or a path ending in `/`) gets rotated
    /// files named `zswaptop-YYYYMMDD-HHMMSS-NNNNNN.zsr` (UTC time of their first sample, then a
    /// sequence number that orders them); anything else is one file, created or appended to
    /// (after cutting off a torn last record). Refused: a cap under
    /// [`WriterOptions::min_max_size`], a file or directory another writer holds, a symbolic
    /// link another user owns, a file that is not a recording.
    pub fn open(path: impl AsRef<Path>, opts: WriterOptions) -> Result<Writer, Error> {
        let path = path.as_ref();
        if let Some(cap) = opts.max_size {
            let min = opts.min_max_size();
            if cap < min {
                return Err(Error::CapTooSmall { cap, min });
            }
        }
        let dir = path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/');
        let plain = compressor(opts.level, None).map_err(|e| Error::io(path, e))?;
        let mut w = Writer {
            target: path.to_path_buf(),
            dir,
            _dir_lock: None,
            enc: Encoder::new(opts.command_lines),
            opts,
            file: None,
            file_len: 0,
            next_seq: 1,
            plain,
            dict: None,
            since_key: 0,
            key_ns: None,
            need_key: true,
            broken: false,
            last_sync: Instant::now(),
            unsynced: false,
        };
        if dir {
            w._dir_lock = Some(lock_dir(path)?);
            let files = list_dir(path).map_err(|e| Error::io(path, e))?;
            // Saturating: a file named with the largest number (anyone may name files in a
            // shared directory) must not overflow it.
            w.next_seq = files
                .iter()
                .filter_map(|f| seq_of(f))
                .max()
                .map_or(1, |n| n.saturating_add(1));
        } else {
            w.open_file(path)?;
        }
        Ok(w)
    }

    /// The file records go to now (`None` in a directory before the first sample).
    pub fn current_file(&self) -> Option<&Path> {
        self.file.as_ref().map(|(_, p)| p.as_path())
    }

    /// Append one sample. On an error (a full disk, the cap) nothing of it stays in the file,
    /// earlier records are intact, and the next append tries again.
    pub fn append(&mut self, sample: &Sample) -> Result<(), Error> {
        if self.file.is_some() && !self.broken && !self.current_intact() {
            // Deleted, cut, appended to or its header damaged by someone else: records added
            // to it could be lost. A directory goes on in a new file; a single file is opened
            // again (created afresh if it was deleted).
            if self.dir {
                self.file = None;
            } else {
                self.broken = true;
            }
        }
        if self.broken {
            self.file = None;
            self.broken = false;
        }
        if self.file.is_none() {
            if self.dir {
                self.start_file(sample.unix_ms)?;
            } else {
                let target = self.target.clone();
                self.open_file(&target)?;
            }
        }
        let due = self.need_key
            || self.since_key + 1 >= self.opts.keyframe_every
            || self.key_ns.is_none_or(|k| {
                sample.monotonic_ns < k
                    || u128::from(sample.monotonic_ns - k) >= self.opts.keyframe_interval.as_nanos()
            });
        // Whatever happens next, a failure leaves the encoder ahead of the file: the next
        // record is then a keyframe, which needs nothing before it.
        self.need_key = true;
        let (mut frame, mut key) = self.encode(sample, due)?;
        let file_size = self.opts.file_size();
        if self.dir
            && self.file_len > HEADER_LEN as u64
            && self.file_len + frame.len() as u64 > file_size
        {
            // Rotate before the file would pass its size: the cap is never exceeded.
            self.start_file(sample.unix_ms)?;
            (frame, key) = self.encode(sample, true)?;
        }
        let Some((file, path)) = self.file.as_mut() else {
            return Err(Error::io(&self.target, std::io::ErrorKind::NotFound.into()));
        };
        let limit = if self.dir {
            Some(file_size)
        } else {
            self.opts.max_size
        };
        if let Some(cap) = limit
            && self.file_len + frame.len() as u64 > cap
        {
            if self.dir {
                return Err(Error::Encode(format!(
                    "a record of {} bytes does not fit in a file of {file_size} bytes: raise the size cap",
                    frame.len()
                )));
            }
            return Err(Error::CapReached {
                path: path.clone(),
                cap,
            });
        }
        if let Err(e) = file.write_all(&frame) {
            // Cut off what part of the record made it (a full disk), so the next record
            // follows the last whole one.
            if file.set_len(self.file_len).is_err() {
                self.broken = true;
            }
            return Err(Error::io(path, e));
        }
        self.file_len += frame.len() as u64;
        self.need_key = false;
        if key {
            self.since_key = 0;
            self.key_ns = Some(sample.monotonic_ns);
        } else {
            self.since_key += 1;
        }
        self.unsynced = true;
        if self.last_sync.elapsed() >= self.opts.sync_every {
            self.sync()?;
        }
        Ok(())
    }

    /// Force what was appended to the disk.
    pub fn sync(&mut self) -> Result<(), Error> {
        if let Some((file, path)) = &self.file
            && self.unsynced
        {
            file.sync_data().map_err(|e| Error::io(path, e))?;
        }
        self.unsynced = false;
        self.last_sync = Instant::now();
        Ok(())
    }

    /// Whether the file records go to is still as this writer left it: linked, of the length
    /// it wrote, with its header. Costs an `fstat` and a 16-byte read.
    fn current_intact(&self) -> bool {
        let Some((file, _)) = &self.file else {
            return true;
        };
        let Ok(meta) = file.metadata() else {
            return false;
        };
        let mut head = [0u8; HEADER_LEN];
        meta.nlink() > 0
            && meta.len() == self.file_len
            && file.read_exact_at(&mut head, 0).is_ok()
            && head == frame::header(frame::VERSION)
    }

    /// The record of `sample`, and whether it is a keyframe (asked for, or because a delta
    /// would make the slot table too large).
    fn encode(&mut self, sample: &Sample, key: bool) -> Result<(Vec<u8>, bool), Error> {
        let path = self.target.clone();
        let io = |e| Error::io(&path, e);
        if !key && let Some(raw) = self.enc.delta(sample).map_err(|e| Error::Encode(e.0))? {
            // A delta of a few counters does not shrink: do not spend the time.
            let packed = match self.dict.as_mut() {
                Some(c) if raw.len() >= MIN_COMPRESS => c.compress(&raw).map_err(io)?,
                _ => Vec::new(),
            };
            return Ok((body(KIND_DELTA, sample.unix_ms, &raw, &packed), false));
        }
        let raw = self.enc.keyframe(sample).map_err(|e| Error::Encode(e.0))?;
        self.dict = Some(compressor(self.opts.level, Some(&raw)).map_err(io)?);
        let packed = self.plain.compress(&raw).map_err(io)?;
        Ok((body(KIND_KEYFRAME, sample.unix_ms, &raw, &packed), true))
    }

    /// Open (or create) one recording file for appending, locked, cutting off a torn tail.
    fn open_file(&mut self, path: &Path) -> Result<(), Error> {
        let io = |e| Error::io(path, e);
        let mut file = open_locked(path, false)?;
        let size = file.metadata().map_err(io)?.len();
        let mut head = vec![0u8; (size as usize).min(HEADER_LEN)];
        file.read_exact_at(&mut head, 0).map_err(io)?;
        let check = frame::check_header(&head);
        super::refuse(check, path)?;
        let end = match check {
            HeaderCheck::Short => {
                // Empty, or cut inside the header while it was created: nothing recorded.
                file.set_len(0).map_err(io)?;
                file.write_all(&frame::header(frame::VERSION))
                    .map_err(|e| {
                        let _ = file.set_len(0);
                        io(e)
                    })?;
                HEADER_LEN as u64
            }
            _ => frame::scan(&file, HEADER_LEN as u64).map_err(io)?.end,
        };
        if end < file.metadata().map_err(io)?.len() {
            file.set_len(end).map_err(io)?;
        }
        self.file = Some((file, path.to_path_buf()));
        self.file_len = end;
        self.need_key = true;
        Ok(())
    }

    /// Start the next rotated file, then delete the oldest ones over the cap.
    fn start_file(&mut self, unix_ms: u64) -> Result<(), Error> {
        let _ = self.sync();
        self.file = None;
        let stamp = super::time::timestamp(unix_ms)
            .map(|t| t.strftime("%Y%m%d-%H%M%S").to_string())
            .unwrap_or_else(|| "00000000-000000".into());
        let path = self
            .target
            .join(format!("zswaptop-{stamp}-{:06}.{EXTENSION}", self.next_seq));
        self.next_seq = self.next_seq.saturating_add(1);
        let mut file = open_locked(&path, true)?;
        if let Err(e) = file.write_all(&frame::header(frame::VERSION)) {
            drop(file);
            let _ = fs::remove_file(&path);
            return Err(Error::io(&path, e));
        }
        self.file = Some((file, path));
        self.file_len = HEADER_LEN as u64;
        self.need_key = true;
        self.unsynced = true;
        self.enforce_cap()
    }

    /// Delete the oldest files until the others leave room for the current one to grow to its
    /// full size under the cap. Only files this writer's naming made are counted and deleted
    /// (never a recording copied in by hand), and never one another writer holds.
    fn enforce_cap(&mut self) -> Result<(), Error> {
        let Some(cap) = self.opts.max_size else {
            return Ok(());
        };
        let current = self.current_file().map(Path::to_path_buf);
        let files = list_dir(&self.target).map_err(|e| Error::io(&self.target, e))?;
        let mut sized: Vec<(PathBuf, u64)> = files
            .into_iter()
            .filter(|f| Some(f) != current.as_ref() && seq_of(f).is_some())
            .map(|f| {
                let len = fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
                (f, len)
            })
            .collect();
        let mut total: u64 = sized.iter().map(|(_, n)| n).sum();
        let room = cap.saturating_sub(self.opts.file_size());
        sized.reverse();
        while total > room
            && let Some((oldest, len)) = sized.pop()
        {
            // Deleted, or held by another writer (then not this writer's to count).
            delete_unheld(&oldest).map_err(|e| Error::io(&oldest, e))?;
            total -= len;
        }
        Ok(())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

/// The frame of a record, its payload compressed when that is smaller and within the
/// expansion a reader accepts ([`RATIO_MAX`]).
fn body(kind: u8, unix_ms: u64, raw: &[u8], packed: &[u8]) -> Vec<u8> {
    let mut len = Vec::with_capacity(4);
    codec::put_varint(&mut len, raw.len() as u64);
    if !packed.is_empty()
        && len.len() + packed.len() < raw.len()
        && raw.len() <= packed.len() * RATIO_MAX
    {
        len.extend_from_slice(packed);
        frame::frame(kind | FLAG_ZSTD, unix_ms, &len)
    } else {
        frame::frame(kind, unix_ms, raw)
    }
}

fn compressor(level: i32, dict: Option<&[u8]>) -> std::io::Result<Compressor<'static>> {
    let mut c = match dict {
        Some(d) => Compressor::with_dictionary(level, d)?,
        None => Compressor::new(level)?,
    };
    quiet_zstd(&mut c)?;
    Ok(c)
}

/// Whether the last component of `path` may be followed if it is a symbolic link: only one the
/// user running zswaptop owns (a link someone else planted, say in /tmp, could lead root's
/// recorder to create or append to any file). `Ok(true)` for such a link, `Ok(false)` for
/// anything else, including a path that does not exist yet.
fn own_link(path: &Path) -> Result<bool, Error> {
    // Without a trailing `/`, which would make lstat follow the link.
    let bare: PathBuf = path.components().collect();
    match fs::symlink_metadata(&bare) {
        Ok(m) if m.file_type().is_symlink() => {
            let user = rustix::process::geteuid().as_raw();
            if m.uid() == user {
                Ok(true)
            } else {
                Err(Error::ForeignSymlink {
                    path: path.to_path_buf(),
                    owner: m.uid(),
                    user,
                })
            }
        }
        Ok(_) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Open a recording file for appending, created 0600 if missing (`new`: it must not exist),
/// and lock it. A symbolic link is followed only when [`own_link`] allows it; anything but a
/// regular file is refused before it is opened.
fn open_locked(path: &Path, new: bool) -> Result<File, Error> {
    let io = |e| Error::io(path, e);
    let follow = !new && own_link(path)?;
    match fs::metadata(path) {
        Ok(m) if !m.is_file() => {
            return Err(Error::NotRegular {
                path: path.to_path_buf(),
            });
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    let mut oo = OpenOptions::new();
    oo.read(true).append(true).mode(0o600);
    if new {
        oo.create_new(true);
    } else {
        oo.create(true);
    }
    if !follow {
        oo.custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32);
    }
    let file = oo.open(path).map_err(io)?;
    if !file.metadata().map_err(io)?.is_file() {
        return Err(Error::NotRegular {
            path: path.to_path_buf(),
        });
    }
    lock(file, path)
}

/// Create the directory of a rotated recording if needed (0700: a recording shows what ran on
/// the machine) and lock it.
fn lock_dir(path: &Path) -> Result<File, Error> {
    let io = |e| Error::io(path, e);
    let follow = own_link(path)?;
    if !path.is_dir() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(path)
            .map_err(io)?;
    }
    let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(|e| io(e.into()))?;
    lock(File::from(fd), path)
}

/// Take the exclusive lock of `file`, or say who holds it.
fn lock(file: File, path: &Path) -> Result<File, Error> {
    match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(file),
        Err(rustix::io::Errno::WOULDBLOCK) => Err(Error::Locked {
            path: path.to_path_buf(),
            holder: holder(&file),
        }),
        Err(e) => Err(Error::io(path, e.into())),
    }
}

/// Delete `path` unless another writer holds it (`Ok(false)`: left alone). The lock is taken
/// first, so a writer that opens the file meanwhile either holds it first or finds it gone.
fn delete_unheld(path: &Path) -> std::io::Result<bool> {
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
        .open(path)
    {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        // A symbolic link (ELOOP) is only a name: deleting it touches nothing else.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return remove(path);
        }
        Err(e) => return Err(e),
    };
    match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => remove(path),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

fn remove(path: &Path) -> std::io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(e) => Err(e),
    }
}

/// `pid N (COMMAND)` of the process holding the flock on `file`, from `/proc/locks` (which
/// names the device as `MAJOR:MINOR:INODE`, in hex then decimal).
fn holder(file: &File) -> Option<String> {
    let meta = file.metadata().ok()?;
    let (major, minor) = (rustix::fs::major(meta.dev()), rustix::fs::minor(meta.dev()));
    let key = format!("{major:02x}:{minor:02x}:{}", meta.ino());
    let locks = fs::read_to_string("/proc/locks").ok()?;
    let pid = locks.lines().find_map(|line| {
        // `1: FLOCK  ADVISORY  WRITE 1234 fe:00:7512068 0 EOF` (a waiter's line has `->`).
        let f: Vec<&str> = line.split_whitespace().collect();
        (f.get(1) == Some(&"FLOCK") && f.get(5) == Some(&key.as_str()))
            .then(|| f.get(4)?.parse::<u32>().ok())
            .flatten()
    })?;
    let comm = fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
    let comm = comm.trim_end();
    Some(if comm.is_empty() {
        format!("pid {pid}")
    } else {
        format!("pid {pid}, {comm}")
    })
}

/// The recording files of a directory, oldest first: `*.zsr`, ordered by the sequence number
/// at the end of their name (then by name).
pub fn list_dir(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == EXTENSION) && p.is_file())
        .collect();
    files.sort_by(|a, b| {
        let key = |p: &PathBuf| (seq_of(p).unwrap_or(u64::MAX), p.clone());
        key(a).cmp(&key(b))
    });
    Ok(files)
}

/// `zswaptop-20261122-031200-000042.zsr` → 42.
fn seq_of(path: &Path) -> Option<u64> {
    let stem = path.file_stem()?.to_str()?;
    let rest = stem.strip_prefix("zswaptop-")?;
    rest.rsplit('-').next()?.parse().ok()
}
