//! Record and replay, in one place: raw [`Sample`]s appended to a file or a directory of rotated
//! files, and read back for replay, `--once --from` and export.
//!
//! What is stored is what the sources read, before any derivation, so a replay goes through
//! today's [`pipeline`](crate::pipeline). The format ([`codec`]) is versioned, append-only and
//! crash-safe: every record carries its length and a CRC-32, a torn tail or a corrupt record is
//! skipped with a [`Warning`], and earlier records are never lost. Records are encoded against
//! the one before them and compressed with zstd; docs/recording-format.md has the byte layout.
//!
//! - [`Writer::open`] then [`Writer::append`] for each sample; [`recorder`]: `zswaptop record`
//!   and the [`Recording`] source behind `--record`;
//! - [`Reader::open`], then [`Reader::at`] for the sample at or before a time plus the one
//!   before it (for rates), [`Reader::moment`] and [`Reader::sample`] by position,
//!   [`Reader::warnings`] for what was skipped; [`export`]: `zswaptop export` and
//!   `--once --from`; [`replay`]: the samples the replay dashboard is fed;
//! - [`time::parse`] for the TIME a user types (`--at`, `--since`, `--until`, the replay's `g`).

pub mod codec;
pub mod export;
pub mod frame;
pub mod reader;
pub mod recorder;
pub mod replay;
pub mod time;
pub mod writer;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::sanitize;
use crate::sources::Sample;

pub use reader::{Moment, Reader};
pub use recorder::Recording;
pub use replay::ReplaySource;
pub use writer::{Writer, WriterOptions};

/// The extension of recording files.
pub const EXTENSION: &str = "zsr";

/// What stops a recording from being written or read. Every message is made safe for a
/// terminal: a path can come from a directory listing, a reason from a record.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", shown(path))]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{}: not a zswaptop recording", shown(path))]
    NotARecording { path: PathBuf },
    #[error("{}: not a regular file", shown(path))]
    NotRegular { path: PathBuf },
    #[error("{}: the recording's header is corrupt", shown(path))]
    CorruptHeader { path: PathBuf },
    #[error(
        "{}: recorded in format version {found}, newer than this zswaptop reads (up to {supported}): read it with a newer zswaptop",
        shown(path)
    )]
    NewerVersion {
        path: PathBuf,
        found: u16,
        supported: u16,
    },
    #[error(
        "{}: the size cap of {cap} bytes is reached (record into a directory to drop the oldest data instead)",
        shown(path)
    )]
    CapReached { path: PathBuf, cap: u64 },
    #[error(
        "a size cap of {cap} bytes is under the least a recording needs: {min} bytes ({} KiB: two files of {} KiB, the one being written and the one before it)",
        min / 1024,
        min / 2048
    )]
    CapTooSmall { cap: u64, min: u64 },
    #[error(
        "{}: another recorder is writing to it{}: one recorder per file or directory",
        shown(path),
        holder.as_deref().map(|h| format!(" ({})", sanitize::visible(h))).unwrap_or_default()
    )]
    Locked {
        path: PathBuf,
        /// `pid N (COMMAND)`, when /proc/locks names it.
        holder: Option<String>,
    },
    #[error(
        "{}: a symbolic link owned by uid {owner}, not by this user (uid {user}): refused (give the path it leads to)",
        shown(path)
    )]
    ForeignSymlink {
        path: PathBuf,
        owner: u32,
        user: u32,
    },
    #[error(
        "{}: record at offset {offset}: {}",
        shown(path),
        sanitize::visible(reason)
    )]
    Decode {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
    #[error("a sample does not encode: {}", sanitize::visible(.0))]
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

/// The error for a file whose header says `check`, when it can be neither read nor appended
/// to (a good header, or one cut short, can).
fn refuse(check: frame::HeaderCheck, path: &Path) -> Result<(), Error> {
    let path = path.to_path_buf();
    Err(match check {
        frame::HeaderCheck::Good | frame::HeaderCheck::Short => return Ok(()),
        frame::HeaderCheck::NotARecording => Error::NotARecording { path },
        frame::HeaderCheck::Corrupt => Error::CorruptHeader { path },
        frame::HeaderCheck::Newer(found) => Error::NewerVersion {
            path,
            found,
            supported: frame::VERSION,
        },
    })
}

/// A path as a message shows it: its control characters escaped (a file name in a shared
/// directory is anyone's choice).
pub(crate) fn shown(path: &Path) -> String {
    sanitize::visible(&path.to_string_lossy()).into_owned()
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
    /// A file that could not be opened or read (rotated away, no permission, a corrupt
    /// header, not a recording).
    Unreadable,
    /// A file of a directory recorded in a newer format: skipped, the others read.
    NewerFormat,
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
        write!(f, "{}", shown(&self.path))?;
        if let Some(o) = self.offset {
            write!(f, " at offset {o}")?;
        }
        write!(f, ": {}", sanitize::visible(&self.detail))
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

/// Open a recording and say on stderr what was skipped in it.
pub fn open(path: &Path) -> anyhow::Result<Reader> {
    let r = Reader::open(path)?;
    for w in r.warnings() {
        crate::console::warn(w);
    }
    if r.is_empty() {
        bail!("{}: no samples recorded", shown(path));
    }
    Ok(r)
}

/// A TIME typed by the user, read against the recording's bounds in the local time zone.
pub(crate) fn parse_time(r: &Reader, input: &str) -> anyhow::Result<Timestamp> {
    let bounds = r.bounds().context("the recording has no readable times")?;
    Ok(time::parse(input, bounds, &TimeZone::system())?)
}

/// How a recorded moment is named: its time (RFC 3339 UTC) and host.
pub(crate) fn describe(s: &Sample) -> String {
    let at = time::rfc3339_utc(s.unix_ms).unwrap_or_else(|| s.unix_ms.to_string());
    // The raw sample's host name, as recorded: made safe here, as the snapshot's strings are.
    let host = s
        .host
        .hostname
        .as_deref()
        .map_or("unknown host".into(), sanitize::visible);
    format!("{at} on {host}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded host name is printed in the `--from` heading: its control characters show
    /// escaped, as every other string from the kernel or a tree does.
    #[test]
    fn a_recorded_host_name_is_made_safe() {
        let mut s = crate::sources::collect(&crate::root::Root::at(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/linux-6.18-idle"
        )));
        s.host.hostname = Some("h\u{1b}]0;pwned\u{7}\u{9b}2J".into());
        let d = describe(&s);
        assert!(!d.chars().any(crate::sanitize::is_unsafe), "{d:?}");
        assert!(d.ends_with(r" on h\x1b]0;pwned\x07\x9b2J"), "{d:?}");
    }
}
