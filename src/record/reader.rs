//! Reading a recording back: a light index at open, samples decoded on demand.
//!
//! Opening reads each file once, checks every record's length and checksum and keeps, per
//! record, its wall time and place (about 32 bytes); nothing is decoded. A sample is rebuilt
//! from its keyframe forward, and a cursor makes stepping forward (replay, export) cost one
//! record each; a record that changes nothing gives the sample before it again, unrebuilt.
//!
//! Records stay in the order they were recorded. When the wall clock went backwards, [`at`]
//! picks the record with the latest wall time at or before the time asked (the later record on
//! a tie), and the record before it in recorded order is the one for rates, as it was for the
//! live dashboard.
//!
//! [`at`]: Reader::at

use std::collections::HashSet;
use std::fs::{self, File};
use std::hash::{Hash, Hasher};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use zstd::bulk::Decompressor;

use super::codec::{Input, Slots};
use super::frame::{self, FLAG_ZSTD, FrameCheck, Gap, HEADER_LEN, HeaderCheck, KIND_KEYFRAME};
use super::time::Bounds;
use super::writer::list_dir;
use super::{Error, Warning, WarningKind};
use crate::sources::Sample;

/// A recorded moment: the sample, and the one recorded before it (for rates).
#[derive(Debug, Clone, PartialEq)]
pub struct Moment {
    /// Position in recorded order (0 is the first readable record).
    pub position: usize,
    pub sample: Sample,
    /// `None` for the first record, or when the one before could not be decoded.
    pub prev: Option<Sample>,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    unix_ms: u64,
    offset: u64,
    file: u32,
    len: u32,
    /// Position of the keyframe this record builds on.
    key: u32,
}

/// Where decoding stands.
#[derive(Default)]
struct Cursor {
    /// The position last applied to `slots`, and its keyframe.
    at: Option<(usize, u32)>,
    slots: Slots,
    dict: Option<Decompressor<'static>>,
    open: Option<(u32, File)>,
    buf: Vec<u8>,
    /// The slots' generation at the last sample asked for: a rebuild is counted when it
    /// moved (a record that changes nothing gives the sample again, unrebuilt: a rebuild of
    /// every slot was most of a row's cost when export rebuilt every record, 52,000 records
    /// of a MiB of empty deltas took 6.6 s as CSV; a record that changes values rebuilds the
    /// parts it changed, [`Slots::build`]).
    built: Option<u64>,
}

/// An open recording.
pub struct Reader {
    files: Vec<PathBuf>,
    entries: Vec<Entry>,
    /// Positions ordered by wall time (then position).
    by_time: Vec<u32>,
    warnings: Vec<Warning>,
    /// A hash of each record-skipped warning given, so that one said again (a moment reads the
    /// record before it too) is not added twice, at the cost of one lookup however many there
    /// are (a search of `warnings` made a MiB of undecodable records quadratic).
    undecodable: HashSet<u64>,
    cursor: Cursor,
    rebuilds: u64,
}

impl Reader {
    /// Open a recording file, or a directory of them. Damage is skipped with a warning; only a
    /// path that cannot be read at all, or a single file that is not a recording, has a
    /// corrupt header or is from a newer format, is an error. In a directory such a file is
    /// skipped with a warning and the others are read: one bad file never hides the rest.
    pub fn open(path: impl AsRef<Path>) -> Result<Reader, Error> {
        let path = path.as_ref();
        let meta = fs::metadata(path).map_err(|e| Error::io(path, e))?;
        let dir = meta.is_dir();
        if !dir && !meta.is_file() {
            return Err(Error::NotRegular {
                path: path.to_path_buf(),
            });
        }
        let files = if dir {
            list_dir(path).map_err(|e| Error::io(path, e))?
        } else {
            vec![path.to_path_buf()]
        };
        let mut r = Reader {
            files: Vec::new(),
            entries: Vec::new(),
            by_time: Vec::new(),
            warnings: Vec::new(),
            undecodable: HashSet::new(),
            cursor: Cursor::default(),
            rebuilds: 0,
        };
        let listed = files.len();
        for f in files {
            match r.index_file(&f) {
                Ok(()) => {}
                Err(e) if dir => {
                    let kind = match e {
                        Error::NewerVersion { .. } => WarningKind::NewerFormat,
                        _ => WarningKind::Unreadable,
                    };
                    let detail = match &e {
                        Error::Io { source, .. } => format!("skipped: {source}"),
                        Error::NotARecording { .. } => "skipped: not a zswaptop recording".into(),
                        Error::CorruptHeader { .. } => "skipped: its header is corrupt".into(),
                        Error::NewerVersion {
                            found, supported, ..
                        } => format!(
                            "skipped: recorded in format version {found}, newer than this zswaptop reads (up to {supported})"
                        ),
                        other => format!("skipped: {other}"),
                    };
                    r.warn(kind, &f, None, detail);
                }
                Err(e) => return Err(e),
            }
        }
        if dir && listed == 0 {
            r.warn(
                WarningKind::Empty,
                path,
                None,
                "no recording files (*.zsr) in this directory".into(),
            );
        }
        r.note_clock_jumps();
        let mut by_time: Vec<u32> = (0..r.entries.len() as u32).collect();
        by_time.sort_by_key(|&i| (r.entries[i as usize].unix_ms, i));
        r.by_time = by_time;
        Ok(r)
    }

    /// What was skipped or noticed while opening and reading.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Readable records.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The wall time recorded with the record at `position` (milliseconds since the epoch).
    pub fn unix_ms(&self, position: usize) -> Option<u64> {
        self.entries.get(position).map(|e| e.unix_ms)
    }

    /// The first and last wall times, in recorded order: what a TIME is read against.
    pub fn bounds(&self) -> Option<Bounds> {
        let first = super::time::timestamp(self.entries.first()?.unix_ms)?;
        let last = super::time::timestamp(self.entries.last()?.unix_ms)?;
        Some(Bounds { first, last })
    }

    /// The position of the record with the latest wall time at or before `t`.
    pub(crate) fn position_at(&self, t: Timestamp) -> Option<usize> {
        let ms = u64::try_from(t.as_millisecond()).ok()?;
        let n = self
            .by_time
            .partition_point(|&i| self.entries[i as usize].unix_ms <= ms);
        n.checked_sub(1).map(|k| self.by_time[k] as usize)
    }

    /// The sample at or before `t`, with the one recorded before it. `None` when nothing was
    /// recorded at or before `t`.
    pub fn at(&mut self, t: Timestamp) -> Result<Option<Moment>, Error> {
        match self.position_at(t) {
            Some(p) => self.moment(p).map(Some),
            None => Ok(None),
        }
    }

    /// The sample at `position` with the one before it.
    pub fn moment(&mut self, position: usize) -> Result<Moment, Error> {
        if position >= self.entries.len() {
            return Err(Error::NoSuchRecord(position));
        }
        let prev = match position.checked_sub(1) {
            Some(p) => match self.sample(p) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.warn_error(&e);
                    None
                }
            },
            None => None,
        };
        let sample = self.sample(position)?;
        Ok(Moment {
            position,
            sample,
            prev,
        })
    }

    /// The sample at `position`. Rebuilt from the slots only when a record since the last one
    /// built changed them: a run of records that change nothing costs one rebuild.
    pub fn sample(&mut self, position: usize) -> Result<Sample, Error> {
        self.seek(position)?;
        let generation = self.cursor.slots.generation();
        if self.cursor.built != Some(generation) {
            self.rebuilds += 1;
            self.cursor.built = Some(generation);
        }
        let built = self.cursor.slots.build().map_err(|e| e.0);
        // The slots are as the records left them: the next record applies over them whether
        // this one made a sample or not.
        built.map_err(|reason| self.decode_error(position, reason))
    }

    /// How many samples were rebuilt from the slots since the recording was opened (the work
    /// of reading that grows with what the records changed, not with how many there are).
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds
    }

    fn warn(&mut self, kind: WarningKind, path: &Path, offset: Option<u64>, detail: String) {
        self.warnings.push(Warning {
            kind,
            path: path.to_path_buf(),
            offset,
            detail,
        });
    }

    fn warn_error(&mut self, e: &Error) {
        if let Error::Decode {
            path,
            offset,
            reason,
        } = e
        {
            let w = Warning {
                kind: WarningKind::Undecodable,
                path: path.clone(),
                offset: Some(*offset),
                detail: format!("record skipped: {reason}"),
            };
            // 64 bits of SipHash: two different warnings of one recording sharing a hash (and
            // the second going unsaid) is a chance in 10^8 with a million of them.
            let mut h = std::collections::hash_map::DefaultHasher::new();
            (&w.path, w.offset, &w.detail).hash(&mut h);
            if self.undecodable.insert(h.finish()) {
                self.warnings.push(w);
            }
        }
    }

    fn decode_error(&mut self, position: usize, reason: String) -> Error {
        let e = self.entries[position];
        let err = Error::Decode {
            path: self.files[e.file as usize].clone(),
            offset: e.offset,
            reason,
        };
        self.warn_error(&err);
        err
    }

    /// Check one file and add its intact records to the index (read through a window: the
    /// memory this takes does not grow with the file, only the index does).
    fn index_file(&mut self, path: &Path) -> Result<(), Error> {
        let io = |e| Error::io(path, e);
        let file = File::open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(Error::NotRegular {
                path: path.to_path_buf(),
            });
        }
        let mut head = vec![0u8; (meta.len() as usize).min(HEADER_LEN)];
        file.read_exact_at(&mut head, 0).map_err(io)?;
        let check = frame::check_header(&head);
        super::refuse(check, path)?;
        if check == HeaderCheck::Short {
            let detail = if head.is_empty() {
                "empty file: nothing recorded".to_string()
            } else {
                format!(
                    "ends inside its header ({} bytes): nothing recorded",
                    head.len()
                )
            };
            self.warn(WarningKind::Empty, path, None, detail);
            return Ok(());
        }
        let scan = frame::scan(&file, HEADER_LEN as u64).map_err(io)?;
        let file = self.files.len() as u32;
        for &(offset, len, gap) in &scan.gaps {
            let (kind, detail) = match gap {
                Gap::Torn => (
                    WarningKind::TornTail,
                    format!(
                        "the last {len} bytes are a torn record (the recorder stopped while writing it): skipped"
                    ),
                ),
                Gap::Corrupt => (
                    WarningKind::Corrupt,
                    format!(
                        "{len} bytes fail their length or checksum: skipped, reading on at offset {}",
                        offset + len
                    ),
                ),
                Gap::Unsearched => (
                    WarningKind::Corrupt,
                    format!(
                        "the last {len} bytes fail their length or checksum, and so many claim to start a record that the search for the next intact one stopped: skipped"
                    ),
                ),
            };
            self.warn(kind, path, Some(offset), detail);
        }
        let mut key: Option<u32> = None;
        let mut expected = HEADER_LEN as u64;
        let mut orphans: Option<(u64, usize)> = None;
        for &(offset, info) in &scan.frames {
            if offset != expected {
                // Something was lost before this record: deltas cannot build over the gap.
                key = None;
            }
            expected = offset + info.len as u64;
            if info.kind & !FLAG_ZSTD == KIND_KEYFRAME {
                key = Some(self.entries.len() as u32);
                if let Some((at, n)) = orphans.take() {
                    self.warn_orphans(path, at, n);
                }
            }
            let Some(k) = key else {
                let o = orphans.get_or_insert((offset, 0));
                o.1 += 1;
                continue;
            };
            self.entries.push(Entry {
                unix_ms: info.unix_ms,
                offset,
                file,
                len: info.len as u32,
                key: k,
            });
        }
        if let Some((at, n)) = orphans {
            self.warn_orphans(path, at, n);
        }
        self.files.push(path.to_path_buf());
        Ok(())
    }

    fn warn_orphans(&mut self, path: &Path, offset: u64, n: usize) {
        self.warn(
            WarningKind::Orphaned,
            path,
            Some(offset),
            format!("{n} records skipped: they hold changes to a record that was lost before them (up to the next keyframe)"),
        );
    }

    fn note_clock_jumps(&mut self) {
        let mut notes = Vec::new();
        for pair in self.entries.windows(2) {
            if pair[1].unix_ms < pair[0].unix_ms {
                notes.push((
                    pair[1].file,
                    pair[1].offset,
                    format!(
                        "the wall clock went back {:.3} s here: records stay in recorded order, with the time each was recorded at",
                        (pair[0].unix_ms - pair[1].unix_ms) as f64 / 1000.0
                    ),
                ));
            }
        }
        for (file, offset, detail) in notes {
            let path = self.files[file as usize].clone();
            self.warn(WarningKind::ClockWentBack, &path, Some(offset), detail);
        }
    }

    /// Bring the cursor's slots to `position`.
    fn seek(&mut self, position: usize) -> Result<(), Error> {
        let entry = *self
            .entries
            .get(position)
            .ok_or(Error::NoSuchRecord(position))?;
        let from = match self.cursor.at {
            Some((at, key)) if key == entry.key && at <= position => at + 1,
            _ => entry.key as usize,
        };
        for p in from..=position {
            if let Err(reason) = self.apply(p) {
                self.cursor.at = None;
                return Err(self.decode_error(p, reason));
            }
            self.cursor.at = Some((p, entry.key));
        }
        Ok(())
    }

    /// Read and apply the record at `position` to the cursor's slots.
    fn apply(&mut self, position: usize) -> Result<(), String> {
        let e = self.entries[position];
        let c = &mut self.cursor;
        if c.open.as_ref().is_none_or(|(f, _)| *f != e.file) {
            let file = File::open(&self.files[e.file as usize]).map_err(|err| err.to_string())?;
            c.open = Some((e.file, file));
        }
        let Some((_, file)) = c.open.as_ref() else {
            return Err("file not open".into());
        };
        c.buf.resize(e.len as usize, 0);
        file.read_exact_at(&mut c.buf, e.offset)
            .map_err(|err| format!("cannot read it again: {err}"))?;
        let info = match frame::check_frame(&c.buf) {
            FrameCheck::Good(info) => info,
            _ => return Err("the record changed on disk since the recording was opened".into()),
        };
        let body = &c.buf[frame::FRAME_PREFIX + frame::BODY_MIN..];
        let keyframe = info.kind & !FLAG_ZSTD == KIND_KEYFRAME;
        let raw: Vec<u8>;
        let payload: &[u8] = if info.kind & FLAG_ZSTD != 0 {
            let mut input = Input::new(body);
            let claimed = input.varint().map_err(|e| e.0)?;
            let packed = &body[input.position()..];
            // At most RAW_MAX, and at most RATIO_MAX times the compressed size: decoding a
            // file costs in proportion to its size.
            let len = usize::try_from(claimed)
                .ok()
                .filter(|&n| n <= frame::RAW_MAX && n <= packed.len() * frame::RATIO_MAX)
                .ok_or("impossible uncompressed length")?;
            raw = if keyframe {
                zstd::bulk::decompress(packed, len).map_err(|err| format!("zstd: {err}"))?
            } else {
                let d = c.dict.as_mut().ok_or("no keyframe dictionary")?;
                d.decompress(packed, len)
                    .map_err(|err| format!("zstd: {err}"))?
            };
            &raw
        } else {
            body
        };
        if keyframe {
            c.slots.read_keyframe(payload).map_err(|e| e.0)?;
            c.dict =
                Some(Decompressor::with_dictionary(payload).map_err(|err| format!("zstd: {err}"))?);
        } else {
            c.slots.read_delta(payload).map_err(|e| e.0)?;
        }
        Ok(())
    }
}
