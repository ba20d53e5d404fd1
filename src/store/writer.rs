//! Appending samples to a recording: one file, or a directory of rotated files under a size cap.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use zstd::bulk::Compressor;

use super::format::{self, Encoder, FLAG_ZSTD, HEADER_LEN, HeaderCheck, KIND_DELTA, KIND_KEYFRAME};
use super::{EXTENSION, Error, quiet_zstd};
use crate::sources::Sample;

/// Payloads shorter than this are stored as they are (zstd's own frame costs about 10 bytes).
const MIN_COMPRESS: usize = 48;

/// How a recording is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterOptions {
    /// Directory: the most the recording files may take together; the oldest files are
    /// deleted first to stay under it. Single file: appending stops with
    /// [`Error::CapReached`] when the next record would pass it.
    pub max_size: Option<u64>,
    /// Directory: a new file is started once the current one reaches this size. By default an
    /// eighth of `max_size` (between 64 KiB and 16 MiB), or 16 MiB without a cap (about a day
    /// and a half at 1 s: a reader holds one file in memory while it indexes it).
    pub file_size: Option<u64>,
    /// A keyframe (the whole sample) every this many records; the others hold what changed.
    pub keyframe_every: u32,
    /// Records are handed to the kernel as they are appended (a killed recorder loses
    /// nothing) and forced to the disk (`fdatasync`) at least this often (what a power loss may
    /// cost).
    pub sync_every: Duration,
    /// zstd level.
    pub level: i32,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            max_size: None,
            file_size: None,
            keyframe_every: 300,
            sync_every: Duration::from_secs(60),
            level: 3,
        }
    }
}

impl WriterOptions {
    fn file_size(&self) -> u64 {
        self.file_size.unwrap_or(match self.max_size {
            Some(cap) => (cap / 8).clamp(64 << 10, 16 << 20),
            None => 16 << 20,
        })
    }
}

/// Appends samples to a recording.
pub struct Writer {
    target: PathBuf,
    /// A directory of rotated files, or one file.
    dir: bool,
    opts: WriterOptions,
    file: Option<(File, PathBuf)>,
    file_len: u64,
    /// Sequence number of the next rotated file.
    next_seq: u64,
    enc: Encoder,
    plain: Compressor<'static>,
    /// Compressor with the current keyframe as dictionary.
    dict: Option<Compressor<'static>>,
    since_key: u32,
    need_key: bool,
    /// The file may end in a torn record that could not be cut off: check it before appending.
    broken: bool,
    last_sync: Instant,
    unsynced: bool,
}

impl Writer {
    /// Open `path` for appending. A directory (existing, or a path ending in `/`) gets rotated
    /// files named `zswaptop-YYYYMMDD-HHMMSS-NNNNNN.zsr` (UTC time of their first sample, then a
    /// sequence number that orders them); anything else is one file, created or appended to
    /// (after cutting off a torn last record).
    pub fn open(path: impl AsRef<Path>, opts: WriterOptions) -> Result<Writer, Error> {
        let path = path.as_ref();
        let dir = path.is_dir() || path.as_os_str().to_string_lossy().ends_with('/');
        let plain = compressor(opts.level, None).map_err(|e| Error::io(path, e))?;
        let mut w = Writer {
            target: path.to_path_buf(),
            dir,
            opts,
            file: None,
            file_len: 0,
            next_seq: 1,
            enc: Encoder::default(),
            plain,
            dict: None,
            since_key: 0,
            need_key: true,
            broken: false,
            last_sync: Instant::now(),
            unsynced: false,
        };
        if dir {
            fs::create_dir_all(path).map_err(|e| Error::io(path, e))?;
            let files = list_dir(path).map_err(|e| Error::io(path, e))?;
            w.next_seq = files.iter().filter_map(|f| seq_of(f)).max().unwrap_or(0) + 1;
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
        if self.broken {
            let path = self.current_file().map(Path::to_path_buf);
            self.file = None;
            if let Some(p) = path {
                self.open_file(&p)?;
            }
            self.broken = false;
        }
        if self.dir && (self.file.is_none() || self.file_len >= self.opts.file_size()) {
            self.start_file(sample.unix_ms)?;
        }
        let key = self.need_key || self.since_key + 1 >= self.opts.keyframe_every;
        // Whatever happens next, a failure leaves the encoder ahead of the file: the next
        // record is then a keyframe, which needs nothing before it.
        self.need_key = true;
        let frame = self.encode(sample, key)?;
        let Some((file, path)) = self.file.as_mut() else {
            return Err(Error::io(&self.target, std::io::ErrorKind::NotFound.into()));
        };
        if !self.dir
            && let Some(cap) = self.opts.max_size
            && self.file_len + frame.len() as u64 > cap
        {
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
        self.since_key = if key { 0 } else { self.since_key + 1 };
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

    fn encode(&mut self, sample: &Sample, key: bool) -> Result<Vec<u8>, Error> {
        let path = self.target.clone();
        let io = |e| Error::io(&path, e);
        if key {
            let raw = self.enc.keyframe(sample).map_err(|e| Error::Encode(e.0))?;
            self.dict = Some(compressor(self.opts.level, Some(&raw)).map_err(io)?);
            let packed = self.plain.compress(&raw).map_err(io)?;
            Ok(body(KIND_KEYFRAME, sample.unix_ms, &raw, &packed))
        } else {
            let raw = self.enc.delta(sample).map_err(|e| Error::Encode(e.0))?;
            // A delta of a few counters does not shrink: do not spend the time.
            let packed = match self.dict.as_mut() {
                Some(c) if raw.len() >= MIN_COMPRESS => c.compress(&raw).map_err(io)?,
                _ => Vec::new(),
            };
            Ok(body(KIND_DELTA, sample.unix_ms, &raw, &packed))
        }
    }

    /// Open (or create) one recording file for appending, cutting off a torn tail.
    fn open_file(&mut self, path: &Path) -> Result<(), Error> {
        let io = |e| Error::io(path, e);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        let bytes = fs::read(path).map_err(io)?;
        let end = match format::check_header(&bytes) {
            HeaderCheck::Good => format::scan(&bytes, HEADER_LEN).end,
            HeaderCheck::Short => {
                file.set_len(0).map_err(io)?;
                file.write_all(&format::header(format::VERSION))
                    .map_err(|e| {
                        let _ = file.set_len(0);
                        io(e)
                    })?;
                HEADER_LEN as u64
            }
            HeaderCheck::NotARecording => {
                return Err(Error::NotARecording {
                    path: path.to_path_buf(),
                });
            }
            HeaderCheck::Corrupt => {
                return Err(Error::CorruptHeader {
                    path: path.to_path_buf(),
                });
            }
            HeaderCheck::Newer(found) => {
                return Err(Error::NewerVersion {
                    path: path.to_path_buf(),
                    found,
                    supported: format::VERSION,
                });
            }
        };
        if end < bytes.len() as u64 {
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
        let stamp = super::time::timestamp(unix_ms)
            .map(|t| t.strftime("%Y%m%d-%H%M%S").to_string())
            .unwrap_or_else(|| "00000000-000000".into());
        let path = self
            .target
            .join(format!("zswaptop-{stamp}-{:06}.{EXTENSION}", self.next_seq));
        let io = |e| Error::io(&path, e);
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(&path)
            .map_err(io)?;
        self.next_seq += 1;
        if let Err(e) = file.write_all(&format::header(format::VERSION)) {
            drop(file);
            let _ = fs::remove_file(&path);
            return Err(io(e));
        }
        self.file = Some((file, path));
        self.file_len = HEADER_LEN as u64;
        self.need_key = true;
        self.unsynced = true;
        self.enforce_cap()
    }

    /// Delete the oldest files until the others leave room for the current one to grow to its
    /// full size under the cap.
    fn enforce_cap(&mut self) -> Result<(), Error> {
        let Some(cap) = self.opts.max_size else {
            return Ok(());
        };
        let current = self.current_file().map(Path::to_path_buf);
        let files = list_dir(&self.target).map_err(|e| Error::io(&self.target, e))?;
        let mut sized: Vec<(PathBuf, u64)> = files
            .into_iter()
            // Only the files this writer's naming made: never a recording copied in by hand.
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
            match fs::remove_file(&oldest) {
                Ok(()) => total -= len,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => total -= len,
                Err(e) => return Err(Error::io(&oldest, e)),
            }
        }
        Ok(())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

/// The frame of a record, its payload compressed when that is smaller.
fn body(kind: u8, unix_ms: u64, raw: &[u8], packed: &[u8]) -> Vec<u8> {
    let mut len = Vec::with_capacity(4);
    format::put_varint(&mut len, raw.len() as u64);
    if !packed.is_empty() && len.len() + packed.len() < raw.len() {
        len.extend_from_slice(packed);
        format::frame(kind | FLAG_ZSTD, unix_ms, &len)
    } else {
        format::frame(kind, unix_ms, raw)
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
