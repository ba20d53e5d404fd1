//! The columns of `zswaptop export --format csv`: after `time`, `unix_ms` and
//! `interval_seconds`, one per figure of the registry declared for CSV ([`figures`]), in registry
//! order, each holding [`Metric::value`] (a level, or a counter's rate per second; pages as bytes).
//!
//! A column is named after its figure's id with the unit of what it holds as the suffix
//! ([`column()`]): `zswpout_bytes_per_sec`, `zswap_pool_bytes`, `pgmajfault_per_sec`.

use crate::model::metrics::{self, Kind, Metric, Output, Unit};

/// The figures with a column, in column order.
pub fn figures() -> impl Iterator<Item = &'static Metric> {
    metrics::reaching(Output::Csv)
}

/// The column names after `time`, `unix_ms` and `interval_seconds`.
pub fn columns() -> impl Iterator<Item = String> {
    figures().map(column)
}

/// The column of a figure: its id (without a `_pages` the value no longer is in) with the unit
/// of [`Metric::value`] as its suffix, unless the id already ends with it.
pub fn column(m: &Metric) -> String {
    let shown = m.shown_unit();
    let unit = match shown {
        Unit::Bytes => "_bytes",
        Unit::BytesPerSec => "_bytes_per_sec",
        Unit::Pages => "_pages",
        Unit::Ratio | Unit::Share => "_ratio",
        Unit::Percent => "_percent",
        Unit::Seconds => "_seconds",
        Unit::Milliseconds => "_ms",
        Unit::Microseconds => "_us",
        Unit::Events | Unit::Number => "",
    };
    // A counter's column holds its rate (bytes per second already says so).
    let per_sec = if m.kind == Kind::Counter && shown != Unit::BytesPerSec {
        "_per_sec"
    } else {
        ""
    };
    let suffix = format!("{unit}{per_sec}");
    let stem = m.id.trim_end_matches("_pages");
    if stem.ends_with(&suffix) {
        stem.to_string()
    } else {
        format!("{stem}{suffix}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn columns_carry_their_unit() {
        let csv = |id: &str| metrics::get(id).map(column);
        assert_eq!(csv("zswpout").as_deref(), Some("zswpout_bytes_per_sec"));
        assert_eq!(csv("zswap_pool_bytes").as_deref(), Some("zswap_pool_bytes"));
        assert_eq!(csv("stored_pages").as_deref(), Some("stored_bytes"));
        assert_eq!(csv("pgmajfault").as_deref(), Some("pgmajfault_per_sec"));
        assert_eq!(
            csv("psi_some_stalled").as_deref(),
            Some("psi_some_stalled_us_per_sec")
        );
        assert_eq!(
            csv("bypassed_zswap_bytes_per_sec").as_deref(),
            Some("bypassed_zswap_bytes_per_sec")
        );
        assert_eq!(
            csv("zswap_compression_ratio").as_deref(),
            Some("zswap_compression_ratio")
        );
        assert_eq!(
            csv("psi_some_avg10").as_deref(),
            Some("psi_some_avg10_percent")
        );
    }

    #[test]
    fn columns_are_unique_single_values() {
        let mut seen = HashSet::new();
        for m in figures() {
            assert!(!m.is_labelled(), "{}", m.id);
            let c = column(m);
            assert!(seen.insert(c.clone()), "{c} twice");
            assert!(
                !["time", "unix_ms", "interval_seconds"].contains(&c.as_str()),
                "{c}"
            );
        }
    }
}
