//! Per-second rates from two readings of a monotonic counter.

/// `(curr − prev) ÷ dt`, or `None` when either side is unknown, `dt` is not positive, or the
/// counter went backwards (a reset: module reload, device re-created, cgroup restarted).
pub fn counter_rate(prev: Option<u64>, curr: Option<u64>, dt_secs: f64) -> Option<f64> {
    let (p, c) = (prev?, curr?);
    if dt_secs.is_nan() || dt_secs <= 0.0 || !dt_secs.is_finite() || c < p {
        return None;
    }
    Some((c - p) as f64 / dt_secs)
}

/// The raw delta with the same reset rule.
pub fn counter_delta(prev: Option<u64>, curr: Option<u64>) -> Option<u64> {
    let (p, c) = (prev?, curr?);
    c.checked_sub(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_and_resets() {
        assert_eq!(counter_rate(Some(10), Some(30), 2.0), Some(10.0));
        assert_eq!(
            counter_rate(Some(30), Some(10), 2.0),
            None,
            "a reset is not a negative rate"
        );
        assert_eq!(counter_rate(None, Some(10), 2.0), None);
        assert_eq!(counter_rate(Some(1), Some(2), 0.0), None);
        assert_eq!(counter_rate(Some(1), Some(2), f64::NAN), None);
        assert_eq!(counter_delta(Some(5), Some(4)), None);
        assert_eq!(counter_delta(Some(4), Some(5)), Some(1));
    }
}
