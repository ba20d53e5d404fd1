//! Recordings: raw [`Sample`](crate::sources::Sample)s appended to a file or a directory of
//! rotated files, and read back for replay and export.
//!
//! What is stored is what the sources read, before any derivation, so a replay goes through
//! today's [`model`](crate::model) code. The format is versioned, append-only and crash-safe:
//! every record carries its length and a CRC-32, a torn tail or a corrupt record is skipped with
//! a [`Warning`], and earlier records are never lost. Records are encoded against the one
//! before them and compressed with zstd; docs/recording-format.md has the byte layout.
//!
//! - [`Writer::open`] then [`Writer::append`] for each sample (`zswaptop record`);
//! - [`Reader::open`], then [`Reader::at`] for the sample at or before a time plus the one
//!   before it (for rates), [`Reader::moment`] to step by position, [`Reader::range`] to export,
//!   [`Reader::warnings`] for what was skipped;
//! - [`time::parse`] for the TIME a user types (`--at`, `--since`, `--until`).

pub mod format;
pub mod reader;
pub mod time;
pub mod writer;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

pub use reader::{Moment, Reader};
pub use writer::{Writer, WriterOptions};

/// The extension of recording files.
pub const EXTENSION: &str = "zsr";

/// What stops a recording from being written or read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: not a zswaptop recording", path.display())]
    NotARecording { path: PathBuf },
    #[error("{}: the recording's header is corrupt", path.display())]
    CorruptHeader { path: PathBuf },
    #[error(
        "{}: recorded in format version {found}, newer than this zswaptop reads (up to {supported}): read it with a newer zswaptop",
        path.display()
    )]
    NewerVersion {
        path: PathBuf,
        found: u16,
        supported: u16,
    },
    #[error(
        "{}: the size cap of {cap} bytes is reached (record into a directory to drop the oldest data instead)",
        path.display()
    )]
    CapReached { path: PathBuf, cap: u64 },
    #[error("{}: record at offset {offset}: {reason}", path.display())]
    Decode {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
    #[error("a sample does not encode: {0}")]
    Encode(String),
    #[error("no record at position {0}")]
    NoSuchRecord(usize),
}

impl Error {
    fn io(path: &Path, source: io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// What a reader skipped, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    /// The file is empty or ends inside its header: nothing was recorded in it.
    Empty,
    /// The file ends inside a record (the recorder was killed, lost power or filled the disk).
    TornTail,
    /// Bytes in the middle fail their length or checksum; reading went on at the next record.
    Corrupt,
    /// Records intact in themselves but encoded against a record that was lost.
    Orphaned,
    /// A record whose bytes check out but do not decode.
    Undecodable,
    /// A file that could not be opened or read (rotated away, no permission).
    Unreadable,
    /// The wall clock went backwards between two records (records stay in recorded order).
    ClockWentBack,
}

/// One thing the reader skipped or noticed, with where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub kind: WarningKind,
    pub path: PathBuf,
    /// Byte offset in the file, when the warning is about a place in it.
    pub offset: Option<u64>,
    pub detail: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(o) = self.offset {
            write!(f, " at offset {o}")?;
        }
        write!(f, ": {}", self.detail)
    }
}

/// The zstd settings of every compressed payload: no checksum (the frame has one), no content
/// size (the payload carries it) and no dictionary id (the dictionary is the keyframe).
fn quiet_zstd(c: &mut zstd::bulk::Compressor<'_>) -> io::Result<()> {
    use zstd::zstd_safe::CParameter;
    c.set_parameter(CParameter::ChecksumFlag(false))?;
    c.set_parameter(CParameter::ContentSizeFlag(false))?;
    c.set_parameter(CParameter::DictIdFlag(false))
}
