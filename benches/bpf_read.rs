//! What reading the swap-in latency histograms costs a tick (the budget: 50 µs): one lookup of
//! the per-CPU map for every CPU, summed into the tiers. The maps alone are made (no program
//! attached: a kernel that refuses the programs still creates their maps), so it runs as root
//! on any kernel with BPF maps; elsewhere it says why and measures nothing.
//!
//!   sudo cargo bench --bench bpf_read
//!
//! CI compiles it (`cargo test --benches --no-run`) without running it: a measurement, not a
//! test. On the developers' 2-CPU host, as root: median 4.8-5.1 µs a read (two runs; max 954 µs
//! and 1.2 ms of 100), the map's two entries of eight tiers each (1.5 µs when it had one of five).

use divan::Bencher;

fn main() {
    divan::main();
}

#[divan::bench]
fn read_histograms(bencher: Bencher) {
    match zswaptop::sources::bpf::maps_reader() {
        Ok(mut read) => bencher.bench_local(&mut read),
        Err(why) => {
            // divan wants a measured closure: an empty one, its figure meaningless (said here).
            let _ = std::io::Write::write_all(
                &mut std::io::stderr(),
                format!("bpf_read: nothing measured (the figure below is of nothing): {why}\n")
                    .as_bytes(),
            );
            bencher.bench_local(|| ());
        }
    }
}
