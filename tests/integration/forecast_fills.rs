//! The forecast's budgets on the fills recorded on the kernel by the e2e
//! (`tests/e2e/phases/forecast.rs`, `recorded_fills`): each recording is replayed through the
//! dashboard's pipeline and judged as the e2e judges it (tests/shared/forecast_suite.rs).

#[path = "../shared/forecast_suite.rs"]
mod suite;

use crate::common::fixture_dir;

fn judged(name: &str, stops: bool) -> (Vec<suite::Row>, suite::Verdict) {
    let rows = suite::replay(&fixture_dir(&format!("forecast-{name}.zsr"))).unwrap();
    let v = suite::judge(&rows, stops);
    println!(
        "fill {name}: {} rows, limit at {:?}, ranges held {} of {} ({} without); full {:?} s after \
         the first refusal; growth stopped at {:?}, not filling {:?} s later (from then on: {})",
        rows.len(),
        v.limit_at,
        v.held,
        v.ranged,
        v.unranged,
        v.full_after,
        v.stopped_at,
        v.not_filling_after,
        v.stayed_not_filling
    );
    for l in suite::table(name, &v) {
        println!("{l}");
    }
    // FORECAST_ROWS=1: every row, for a look at how the forecast went.
    if std::env::var_os("FORECAST_ROWS").is_some() {
        for r in &rows {
            println!(
                "{:6.1} s {:>10.0} B {:12} {:?} {:?} {:?}..{:?} | truth {:?}",
                r.t,
                r.used,
                r.state,
                r.model,
                r.seconds,
                r.earliest,
                r.latest,
                v.limit_at.map(|l| l - r.t)
            );
        }
    }
    (rows, v)
}

fn assert_budgets(name: &str, stops: bool) {
    let (_, v) = judged(name, stops);
    let misses = suite::misses(&v, stops);
    assert!(misses.is_empty(), "{name}: {misses:?}");
}

#[test]
fn steady() {
    assert_budgets("steady", false);
}

#[test]
fn accelerating() {
    assert_budgets("accelerating", false);
}

/// Bursts of 5 s every 15 s: the forecast in a burst is between the time at the burst's rate
/// and at the mean rate (at the mean rate alone it said +42 % 15 s before the limit).
#[test]
fn bursty() {
    assert_budgets("bursty", false);
}

/// One step, then the same byte count: "not filling" within 30 s of the growth stopping, and
/// the dashboard's words and the pool-full finding at each moment agree.
#[test]
fn step_then_flat() {
    let (rows, v) = judged("step", true);
    for r in &rows {
        println!(
            "{:6.1} s {:>10.0} B {:12} {} | {}",
            r.t,
            r.used,
            r.state,
            r.words,
            r.finding.as_deref().unwrap_or("-")
        );
    }
    let misses = suite::misses(&v, true);
    assert!(misses.is_empty(), "{misses:?}");
}
