//! What each compressor trades, and which offered one compresses better than the current one.

/// Algorithms from the best typical ratio to the worst. Speed runs roughly the other way.
const BY_RATIO: &[&str] = &["zstd", "deflate", "lz4hc", "lzo-rle", "lzo", "lz4", "842"];

/// One phrase on what an algorithm trades.
pub(crate) fn trade(name: &str) -> Option<&'static str> {
    Some(match name {
        "zstd" => "best ratio, slower to compress and decompress",
        "deflate" => "good ratio, slow",
        "lz4hc" => "better ratio than lz4, slow to compress, fast to decompress",
        "lzo-rle" => "fast, moderate ratio, quicker than lzo on runs of zeros",
        "lzo" => "fast, moderate ratio",
        "lz4" => "fastest, lowest ratio",
        "842" => "fast only with POWER nx hardware",
        _ => return None,
    })
}

/// `lzo (fast, moderate ratio), zstd (…)`.
pub(crate) fn describe(names: &[String]) -> String {
    names
        .iter()
        .map(|n| match trade(n) {
            Some(t) => format!("{n} ({t})"),
            None => n.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn rank(name: &str) -> usize {
    BY_RATIO
        .iter()
        .position(|&n| n == name)
        .unwrap_or(BY_RATIO.len())
}

/// The offered algorithm with the best typical ratio, if it beats `current`.
pub(crate) fn better_ratio(current: Option<&str>, offered: &[String]) -> Option<String> {
    let best = offered
        .iter()
        .filter(|n| rank(n) < BY_RATIO.len())
        .min_by_key(|n| rank(n))?;
    match current {
        Some(c) if rank(c) <= rank(best) => None,
        _ => Some(best.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_a_stronger_offered_compressor() {
        let offered: Vec<String> = ["deflate", "lzo", "lzo-rle"].map(String::from).to_vec();
        assert_eq!(
            better_ratio(Some("lzo"), &offered).as_deref(),
            Some("deflate")
        );
        assert_eq!(better_ratio(Some("zstd"), &offered), None);
        assert_eq!(better_ratio(Some("deflate"), &offered), None);
        assert_eq!(better_ratio(Some("lzo"), &[]), None);
        assert!(describe(&offered).starts_with("deflate (good ratio, slow), lzo ("));
    }
}
