//! The TIME a user gives to pick a moment of a recording, and the timestamps printed for one.
//!
//! Accepted forms (all pure: the recording's bounds and the time zone are passed in):
//! - RFC 3339: `2026-11-22T03:12:00Z`, `2026-11-22T04:12:00+01:00`, with or without fractions;
//! - a local date and time: `2026-11-22 03:12[:05]` (or with `T`);
//! - a local time of day `HH:MM[:SS]` on the recording's day: the latest such moment at or
//!   before the recording's end, on the day the recording ends or, when that moment is later
//!   than its end, the day before (if the recording reaches back to it) — so `23:50` in a
//!   recording running from 22:00 to 01:00 is the evening before;
//! - relative to the recording's end: `-10m`, `-90s`, `-1h30m`, `-2 hours`.

use jiff::civil::{DateTime, Time};
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};

/// The first and last wall times of a recording (in recorded order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub first: Timestamp,
    pub last: Timestamp,
}

/// A TIME that does not parse, with what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{input}' is not a time: {reason} (use RFC 3339 like 2026-11-22T03:12:00Z, a local HH:MM[:SS] on the recording's day, or -10m from its end)"
)]
pub struct TimeError {
    pub input: String,
    pub reason: String,
}

/// Parse a TIME against a recording's bounds, local times in `tz`.
pub(crate) fn parse(input: &str, bounds: Bounds, tz: &TimeZone) -> Result<Timestamp, TimeError> {
    let text = input.trim();
    let fail = |reason: String| TimeError {
        input: input.to_string(),
        reason,
    };
    if let Some(rest) = text.strip_prefix('-') {
        let span: Span = rest
            .trim()
            .parse()
            .map_err(|e| fail(format!("not a duration after '-': {e}")))?;
        return bounds
            .last
            .to_zoned(tz.clone())
            .checked_sub(span)
            .map(|z| z.timestamp())
            .map_err(|e| fail(e.to_string()));
    }
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    let looks_like_time_of_day =
        text.len() <= 12 && text.bytes().filter(|&b| b == b':').count() >= 1;
    if looks_like_time_of_day && !text.contains(['-', 'T', ' ']) {
        let time: Time = text
            .parse()
            .map_err(|e| fail(format!("not a time of day: {e}")))?;
        return on_recording_day(time, bounds, tz).map_err(fail);
    }
    let dt: DateTime = text.parse().map_err(|e| {
        fail(format!(
            "neither RFC 3339, a local date and time, HH:MM nor -DURATION ({e})"
        ))
    })?;
    dt.to_zoned(tz.clone())
        .map(|z| z.timestamp())
        .map_err(|e| fail(e.to_string()))
}

/// `time` on the day the recording ends, or the day before when that is after its end.
fn on_recording_day(time: Time, bounds: Bounds, tz: &TimeZone) -> Result<Timestamp, String> {
    let last = bounds.last.to_zoned(tz.clone());
    let first_day = bounds.first.to_zoned(tz.clone()).date();
    let at_day = |day: jiff::civil::Date| {
        day.to_datetime(time)
            .to_zoned(tz.clone())
            .map(|z| z.timestamp())
            .map_err(|e| e.to_string())
    };
    let same_day = at_day(last.date())?;
    if same_day <= bounds.last || last.date() <= first_day {
        return Ok(same_day);
    }
    let before = last.date().yesterday().map_err(|e| e.to_string())?;
    at_day(before)
}

/// RFC 3339 in UTC with milliseconds (`2026-11-22T03:12:00.250Z`), as JSON and CSV show a
/// sample's time. `None` past the year 9999.
pub fn rfc3339_utc(unix_ms: u64) -> Option<String> {
    let ts = Timestamp::from_millisecond(i64::try_from(unix_ms).ok()?).ok()?;
    Some(format!("{ts:.3}"))
}

/// A sample's wall time as a timestamp.
pub fn timestamp(unix_ms: u64) -> Option<Timestamp> {
    Timestamp::from_millisecond(i64::try_from(unix_ms).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    fn paris() -> TimeZone {
        TimeZone::get("Europe/Paris").unwrap_or_else(|_| TimeZone::fixed(jiff::tz::offset(1)))
    }

    /// A recording from 22:00 to 01:30 Paris time (UTC+1 in November).
    fn night() -> Bounds {
        Bounds {
            first: ts("2026-11-21T21:00:00Z"),
            last: ts("2026-11-22T00:30:00Z"),
        }
    }

    #[test]
    fn rfc3339_with_any_offset() {
        let b = night();
        let tz = paris();
        assert_eq!(
            parse("2026-11-21T23:10:00Z", b, &tz).unwrap(),
            ts("2026-11-21T23:10:00Z")
        );
        assert_eq!(
            parse("2026-11-22T00:10:00.5+01:00", b, &tz).unwrap(),
            ts("2026-11-21T23:10:00.5Z")
        );
    }

    #[test]
    fn time_of_day_is_on_the_recording_day() {
        let b = night();
        let tz = paris();
        // 01:00 local is on the day the recording ends.
        assert_eq!(parse("01:00", b, &tz).unwrap(), ts("2026-11-22T00:00:00Z"));
        // 23:10 local would be after the end on the last day: the evening before.
        assert_eq!(parse("23:10", b, &tz).unwrap(), ts("2026-11-21T22:10:00Z"));
        assert_eq!(
            parse("23:10:30", b, &tz).unwrap(),
            ts("2026-11-21T22:10:30Z")
        );
        // A recording within one day: that day, even for a time after its end.
        let day = Bounds {
            first: ts("2026-11-22T08:00:00Z"),
            last: ts("2026-11-22T09:00:00Z"),
        };
        assert_eq!(
            parse("12:00", day, &tz).unwrap(),
            ts("2026-11-22T11:00:00Z")
        );
        assert_eq!(
            parse("07:30", day, &TimeZone::UTC).unwrap(),
            ts("2026-11-22T07:30:00Z")
        );
    }

    #[test]
    fn relative_to_the_end() {
        let b = night();
        let tz = TimeZone::UTC;
        assert_eq!(parse("-10m", b, &tz).unwrap(), ts("2026-11-22T00:20:00Z"));
        assert_eq!(parse("-1h30m", b, &tz).unwrap(), ts("2026-11-21T23:00:00Z"));
        assert_eq!(parse("-90s", b, &tz).unwrap(), ts("2026-11-22T00:28:30Z"));
        assert_eq!(
            parse("- 2 hours", b, &tz).unwrap(),
            ts("2026-11-21T22:30:00Z")
        );
    }

    #[test]
    fn local_date_and_time() {
        let tz = paris();
        assert_eq!(
            parse("2026-11-21 23:59", night(), &tz).unwrap(),
            ts("2026-11-21T22:59:00Z")
        );
    }

    #[test]
    fn junk_is_a_clear_error() {
        let tz = TimeZone::UTC;
        for bad in [
            "",
            "yesterday",
            "25:00",
            "-",
            "-10 parsecs",
            "12:61",
            "2026-13-01T00:00:00Z",
        ] {
            let e = parse(bad, night(), &tz).unwrap_err();
            assert!(e.to_string().contains("is not a time"), "{bad}: {e}");
        }
    }

    #[test]
    fn utc_with_milliseconds() {
        assert_eq!(
            rfc3339_utc(1_795_000_000_250).unwrap(),
            "2026-11-18T11:06:40.250Z"
        );
        assert_eq!(rfc3339_utc(0).unwrap(), "1970-01-01T00:00:00.000Z");
        assert!(rfc3339_utc(u64::MAX).is_none());
    }
}
