//! What `zswaptop advise`'s sampler costs on a process that reserves a giant address space and
//! touches 8 pages of it, as a program built with AddressSanitizer does (~20 TiB): this
//! process maps the most it can of 128 TiB (MAP_NORESERVE), touches 8 pages spread over it,
//! and times `count_present` and `read_spread` on itself, as `advise` runs them. The budget is
//! 50 ms. Walking every pagemap entry of 16 TiB took 95 s.
//!
//! `cargo bench --bench advise_sparse` (prints the time of each of 5 runs and the best).

use std::time::Instant;

use zswaptop::advise::sample::Reader;
use zswaptop::root::Root;

const TIB: usize = 1 << 40;

/// The largest private anonymous mapping of at most 128 TiB the kernel grants (a 47-bit
/// address space holds a little less than 128 TiB), and its length.
#[allow(unsafe_code)]
fn reserve() -> (*mut std::ffi::c_void, usize) {
    use rustix::mm::{MapFlags, ProtFlags, mmap_anonymous};
    let mut len = 128 * TIB;
    loop {
        // SAFETY: a new private mapping, at an address the kernel chooses.
        let got = unsafe {
            mmap_anonymous(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        };
        match got {
            Ok(at) => return (at, len),
            Err(e) if len > TIB => {
                let _ = e;
                len -= TIB;
            }
            Err(e) => panic!("no mapping of 1 TiB: {e}"),
        }
    }
}

#[allow(unsafe_code)]
fn main() {
    let ps = rustix::param::page_size();
    let (at, len) = reserve();
    for k in 0..8 {
        // SAFETY: inside the mapping, which lives to the end of the process.
        unsafe { at.cast::<u8>().add(k * (len / 8) + ps).write_volatile(1) };
    }
    let root = Root::live();
    let never = || false;
    let mut buf = vec![0u8; ps];
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        let Ok(mut r) = Reader::open(&root, std::process::id(), ps as u64) else {
            panic!("this process's pagemap and memory cannot be read");
        };
        let present = r.count_present(&never);
        let mut pages = 0;
        let (read, _) = r.read_spread(present, present, &mut buf, &never, &mut |_| pages += 1);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        best = best.min(ms);
        let report = format!(
            "{} TiB reserved, {present} pages present (this process's own included), {read} read: {ms:.1} ms\n",
            len / TIB
        );
        std::io::Write::write_all(&mut std::io::stdout(), report.as_bytes()).ok();
    }
    std::io::Write::write_all(
        &mut std::io::stdout(),
        format!("best: {best:.1} ms (budget 50 ms)\n").as_bytes(),
    )
    .ok();
}
