//! What one read of `/proc/zoneinfo` costs (open, read, parse): the figure the dashboard's
//! zoneinfo refresh is chosen from (`sources::zoneinfo::COST_FACTOR`).
//!
//! `cargo bench --bench zoneinfo [-- ROOT...]` (default: the live system, the
//! 2-CPU capture linux-6.18-pcp and the generated zoneinfo-256cpu). For each root: the median and
//! 90th percentile of 2000 reads after 50 warm-up reads, and how long the dashboard then waits
//! between reads.

use std::time::Instant;

use zswaptop::root::Root;
use zswaptop::sources::zoneinfo;

const RUNS: usize = 2000;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let roots = if args.is_empty() {
        let fx = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/");
        vec![
            "/".to_string(),
            format!("{fx}linux-6.18-pcp"),
            format!("{fx}zoneinfo-256cpu"),
        ]
    } else {
        args
    };
    for r in roots {
        let root = if r == "/" { Root::live() } else { Root::at(&r) };
        let z = match zoneinfo::read(&root) {
            Ok(z) => z,
            Err(e) => {
                println!("{r}: {}", e.reason.text());
                continue;
            }
        };
        for _ in 0..50 {
            let _ = zoneinfo::read(&root);
        }
        let mut ns: Vec<u128> = (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                let _ = std::hint::black_box(zoneinfo::read(&root));
                t.elapsed().as_nanos()
            })
            .collect();
        ns.sort_unstable();
        let median = ns[RUNS / 2];
        let p90 = ns[RUNS * 9 / 10];
        println!(
            "{r}: {} per-CPU lists in {} zones, {} pages; read+parse median {:.1} µs, p90 {:.1} µs; \
             the dashboard reads it again after {:.1} ms",
            z.pagesets,
            z.zones,
            z.pcp_free_pages,
            median as f64 / 1e3,
            p90 as f64 / 1e3,
            median as f64 * zoneinfo::COST_FACTOR as f64 / 1e6
        );
    }
}
