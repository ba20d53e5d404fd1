//! Gauges and cells split in proportion, for the bars the dashboard and the one screen draw.

/// Split `width` cells among non-negative values in proportion, largest remainder first, so the
/// cells add up to exactly `width` (when the total is positive). Small non-zero values get at
/// least one cell where room allows, so a pool is never invisible.
pub(crate) fn proportional_cells(values: &[u64], width: usize) -> Vec<usize> {
    let total: u128 = values.iter().map(|&v| u128::from(v)).sum();
    if total == 0 || width == 0 {
        return vec![0; values.len()];
    }
    let w = width as u128;
    let mut cells: Vec<usize> = values
        .iter()
        .map(|&v| (u128::from(v) * w / total) as usize)
        .collect();
    let mut rema: Vec<(u128, usize)> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| ((u128::from(v) * w) % total, i))
        .collect();
    rema.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let short = width.saturating_sub(cells.iter().sum());
    for &(_, i) in rema.iter().take(short) {
        cells[i] += 1;
    }
    // Give every non-zero value a cell, taken from the largest.
    for i in 0..values.len() {
        if values[i] > 0
            && cells[i] == 0
            && let Some(big) = (0..cells.len())
                .max_by_key(|&j| cells[j])
                .filter(|&j| cells[j] > 1)
        {
            cells[big] -= 1;
            cells[i] = 1;
        }
    }
    cells
}

/// A cell of a gauge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GaugeCell {
    Filled,
    Empty,
    /// The mark (zswap's accept threshold) where it falls.
    Mark,
}

/// A gauge of `width` cells filled to `pct` (0–100; none filled when unknown), with a mark at
/// `mark_pct` (kept inside the gauge).
pub(crate) fn gauge(pct: Option<f64>, mark_pct: Option<u64>, width: usize) -> Vec<GaugeCell> {
    let filled = pct
        .filter(|p| p.is_finite())
        .map(|p| ((p.clamp(0.0, 100.0) / 100.0) * width as f64).round() as usize)
        .unwrap_or(0);
    let mark = mark_pct
        .map(|m| (((m.min(100) as f64) / 100.0) * width as f64).round() as usize)
        .map(|m| m.min(width.saturating_sub(1)));
    (0..width)
        .map(|i| {
            if Some(i) == mark {
                GaugeCell::Mark
            } else if i < filled {
                GaugeCell::Filled
            } else {
                GaugeCell::Empty
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_sum_to_width_and_show_small_values() {
        let c = proportional_cells(&[1000, 1, 0, 500], 30);
        assert_eq!(c.iter().sum::<usize>(), 30);
        assert_eq!(c[1], 1);
        assert_eq!(c[2], 0);
    }

    #[test]
    fn gauge_cells_keep_the_mark_inside() {
        use GaugeCell::*;
        assert_eq!(
            gauge(Some(50.0), Some(75), 4),
            [Filled, Filled, Empty, Mark]
        );
        // A 100% threshold still shows, on the last cell.
        assert_eq!(gauge(None, Some(100), 3), [Empty, Empty, Mark]);
        assert_eq!(gauge(Some(f64::NAN), None, 2), [Empty, Empty]);
    }
}
