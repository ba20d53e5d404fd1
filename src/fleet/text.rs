//! `fleet --once`: the fleet as text within 80 columns, one row per host, worst first.

use std::io::{self, Write};

use crate::display::{self, fit};
use crate::fleet::model::{Fleet, Host};

/// The widest the text goes.
pub const WIDTH: usize = 80;

/// The columns after the host's: (title, width), each right-aligned after one space.
pub const COLUMNS: [(&str, usize); 8] = [
    ("AGE", 5),
    ("POOL", 6),
    ("LIMIT", 5),
    ("FULL IN", 8),
    ("HIT", 4),
    ("WB/s", 6),
    ("PSI", 5),
    ("C/W/I", 8),
];

/// The host column's width in a line of `width`: what the others leave (at least 12).
pub fn host_width(width: usize) -> usize {
    width
        .saturating_sub(COLUMNS.iter().map(|(_, w)| w + 1).sum::<usize>())
        .max(12)
}

/// A duration in at most 5 characters: `45s`, `12m`, `3.5h`, `12d`.
pub fn short_duration(s: f64) -> String {
    if s < 60.0 {
        format!("{s:.0}s")
    } else if s < 3600.0 {
        format!("{:.0}m", s / 60.0)
    } else if s < 86_400.0 {
        format!("{:.1}h", s / 3600.0)
    } else if s < 86_400.0 * 999.0 {
        format!("{:.0}d", s / 86_400.0)
    } else {
        ">999d".into()
    }
}

/// A row's cells after the host's, as [`COLUMNS`] orders them ("?" for an unknown figure).
pub fn cells(h: &Host) -> [String; 8] {
    cells_at(h, 0.0)
}

/// The cells `since` seconds after the fleet was read (the age grows with them).
pub fn cells_at(h: &Host, since: f64) -> [String; 8] {
    const UNKNOWN: &str = "?";
    let or = |v: Option<String>| v.unwrap_or_else(|| UNKNOWN.to_string());
    let age = match (h.stale, h.age_seconds) {
        (true, None) => "gone".to_string(),
        (_, Some(a)) => short_duration(a + since),
        (false, None) => UNKNOWN.to_string(),
    };
    let full = match (h.full_seconds, &h.full_first) {
        (Some(s), Some(w)) => format!("{} {}", short_duration(s), &w[..1]),
        (Some(s), None) => short_duration(s),
        // Live and nothing filling: say so rather than "?".
        (None, _)
            if !h.stale
                && h.unknown
                    .get("full_seconds")
                    .is_some_and(|r| r.starts_with("none")) =>
        {
            "-".to_string()
        }
        (None, _) => UNKNOWN.to_string(),
    };
    [
        age,
        or(h.zswap_pool_bytes.map(display::bytes_short)),
        or(h.zswap_pool_limit_share
            .map(|s| format!("{:.0}%", s * 100.0))),
        full,
        or(h.swapin_hit_ratio.map(|s| format!("{:.0}%", s * 100.0))),
        or(h.writeback_bytes_per_second
            .map(|r| display::bytes_short(r.max(0.0).round() as u64))),
        or(h.psi_some_avg10.map(|p| format!("{p:.1}"))),
        format!(
            "{}/{}/{}",
            h.findings.crit, h.findings.warn, h.findings.info
        ),
    ]
}

/// A row: the host (cut in the middle to fit), then its cells.
pub fn row(host: &str, cells: &[String]) -> String {
    row_in(host, cells, WIDTH)
}

/// A row in a line of `width`.
pub fn row_in(host: &str, cells: &[String], width: usize) -> String {
    let hw = host_width(width);
    let mut line = format!("{:<hw$}", fit(host, hw, false));
    for ((_, w), c) in COLUMNS.iter().zip(cells) {
        line.push_str(&format!(" {c:>w$}"));
    }
    line
}

/// The header line.
pub fn header() -> String {
    header_in(WIDTH)
}

/// The header in a line of `width`.
pub fn header_in(width: usize) -> String {
    let titles: Vec<String> = COLUMNS.iter().map(|(t, _)| t.to_string()).collect();
    row_in("HOST", &titles, width)
}

/// The summary line.
pub fn summary(f: &Fleet) -> String {
    format!(
        "{} hosts, {} in trouble, {} stale",
        f.summary.hosts, f.summary.in_trouble, f.summary.stale
    )
}

/// The whole text.
pub fn write(f: &Fleet, out: &mut impl Write) -> io::Result<()> {
    let title = format!(
        "zswaptop fleet  {}{}",
        f.source,
        if f.selector.is_empty() {
            String::new()
        } else {
            format!("  {}", f.selector)
        }
    );
    writeln!(out, "{}", fit(&title, WIDTH, false))?;
    writeln!(out, "{}", summary(f))?;
    for e in &f.errors {
        writeln!(out, "{}", fit(&format!("query failed: {e}"), WIDTH, false))?;
    }
    writeln!(out)?;
    writeln!(out, "{}", header())?;
    for h in &f.hosts {
        writeln!(out, "{}", row(&h.instance, &cells(h)))?;
    }
    let gone: Vec<&Host> = f.hosts.iter().filter(|h| h.stale).collect();
    if !gone.is_empty() {
        writeln!(out)?;
        for h in gone {
            let why = if h.up {
                "its samples are gone".to_string()
            } else {
                format!(
                    "down (up = 0){}",
                    h.age_seconds
                        .map(|a| format!(", last sample {} ago", short_duration(a)))
                        .unwrap_or_default()
                )
            };
            writeln!(
                out,
                "{}",
                fit(&format!("stale: {}: {why}", h.instance), WIDTH, false)
            )?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "FULL IN: the first of pool (p), swap (s), zram (z) to fill; - none filling."
    )?;
    writeln!(
        out,
        "PSI: memory some avg10 %. C/W/I: findings crit/warn/info. ?: unknown (--json)."
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::model::Findings;

    #[test]
    fn rows_fit_80_columns() {
        let h = Host {
            instance: "a-very-long-host-name.example.internal.company.com:9100".into(),
            zswap_pool_bytes: Some(999_999_999_999),
            zswap_pool_limit_share: Some(1.234),
            full_seconds: Some(86_400.0 * 5000.0),
            full_first: Some("zram".into()),
            swapin_hit_ratio: Some(1.0),
            writeback_bytes_per_second: Some(1e12),
            psi_some_avg10: Some(100.0),
            age_seconds: Some(1e9),
            findings: Findings {
                crit: 99,
                warn: 99,
                info: 99,
            },
            ..Host::default()
        };
        let line = row(&h.instance, &cells(&h));
        assert_eq!(line.chars().count(), WIDTH, "{line}");
        assert_eq!(header().chars().count(), WIDTH);
        let mut f = Fleet {
            hosts: vec![h],
            ..Fleet::default()
        };
        f.finish();
        let mut out = Vec::new();
        write(&f, &mut out).unwrap();
        for l in String::from_utf8(out).unwrap().lines() {
            assert!(l.chars().count() <= WIDTH, "{l}");
        }
    }
}
