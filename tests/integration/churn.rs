//! A long dashboard session over a machine that keeps changing must not creep.
//!
//! The dashboard's own pieces (sampler, app, ui, screen) run tick after tick over a tree that
//! churns the way a busy machine does: processes start and end (thousands of pids, never
//! reused), cgroups are created and removed under new names, swap areas come and go, zram
//! devices appear and disappear, and the counters and pressure figures jump about so the graphs
//! are as spiky as they get. Every view is visited again and again. Once the history is full,
//! what the dashboard holds from one tick to the next ([`zswaptop::app::Footprint`], the
//! screen's kept panels, the open descriptors) must stay within bounds set by what the tree
//! holds now and by the screen's size, not by how much came and went.

use crate::common;

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use ratatui::backend::TestBackend;
use zswaptop::app::{Action, App, Footprint, Msg, View};
use zswaptop::root::Root;
use zswaptop::sources::sampler::{SampleSource, Sampler};
use zswaptop::tui::screen::Screen;

const COLS: u16 = 120;
const ROWS: u16 = 40;
/// `-i 0.1` with `--history 0.5`: the history is full after 300 ticks.
const TICK_NS: u64 = 100_000_000;
const WARM_UP: usize = 400;
const TICKS: usize = 900;
/// Processes alive at once (the oldest end as new ones start), and how many start a tick.
const LIVE_PROCS: usize = 400;
const PROCS_A_TICK: usize = 40;
const LIVE_CGROUPS: usize = 60;
/// The zram devices come from a pool of names, as the kernel reuses the lowest free id.
const ZRAM_NAMES: u32 = 4;

/// A small deterministic generator (xorshift64*), so a failure can be run again as it was.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// The tree and what lives in it now.
struct Machine {
    root: PathBuf,
    rng: Rng,
    status: String,
    next_pid: u32,
    procs: VecDeque<u32>,
    next_cgroup: u32,
    cgroups: VecDeque<String>,
    next_swapfile: u32,
    zram: Vec<u32>,
    swapfiles: Vec<u32>,
    counters: Vec<(String, u64)>,
}

fn write(path: &Path, text: &str) {
    fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

impl Machine {
    /// A copy of the zram fixture (a swapfile and zram0) with a cgroup v2 tree.
    fn new(dir: &Path) -> Machine {
        let root = dir.join("root");
        let src = common::fixture_dir("e2e-phase3-zram");
        assert!(
            Command::new("cp")
                .arg("-r")
                .arg(&src)
                .arg(&root)
                .status()
                .unwrap()
                .success()
        );
        let status = fs::read_to_string(root.join("proc/32283/status")).unwrap();
        let cg = root.join("sys/fs/cgroup");
        fs::create_dir_all(&cg).unwrap();
        write(&cg.join("cgroup.controllers"), "cpu io memory pids\n");
        write(&cg.join("memory.stat"), "anon 4096\nzswap 0\nzswapped 0\n");
        let counters = fs::read_to_string(root.join("proc/vmstat"))
            .unwrap()
            .lines()
            .filter_map(|l| {
                let (k, v) = l.split_once(' ')?;
                Some((k.to_string(), v.trim().parse().ok()?))
            })
            .collect();
        Machine {
            root,
            rng: Rng(0x5eed_1234_abcd_0001),
            status,
            next_pid: 100_000,
            procs: VecDeque::new(),
            next_cgroup: 0,
            cgroups: VecDeque::new(),
            next_swapfile: 0,
            zram: vec![0],
            swapfiles: Vec::new(),
            counters,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// One tick of churn.
    fn churn(&mut self, tick: usize) {
        self.processes();
        if tick.is_multiple_of(3) {
            self.cgroups();
        }
        if tick.is_multiple_of(7) {
            self.swap_areas();
        }
        self.counters();
    }

    fn processes(&mut self) {
        for _ in 0..PROCS_A_TICK {
            let pid = self.next_pid;
            self.next_pid += 1;
            let dir = self.path(&format!("proc/{pid}"));
            fs::create_dir_all(&dir).unwrap();
            let swap = self.rng.below(1 << 20);
            let text: String = self
                .status
                .lines()
                .map(|l| match l.split_once(':') {
                    Some(("Name", _)) => format!("Name:\tchurn-{pid}\n"),
                    Some(("Pid" | "Tgid", _)) => {
                        format!("{}:\t{pid}\n", &l[..l.find(':').unwrap()])
                    }
                    Some(("VmSwap", _)) => format!("VmSwap:\t{swap:>8} kB\n"),
                    _ => format!("{l}\n"),
                })
                .collect();
            write(&dir.join("status"), &text);
            self.procs.push_back(pid);
        }
        while self.procs.len() > LIVE_PROCS {
            let pid = self.procs.pop_front().unwrap();
            fs::remove_dir_all(self.path(&format!("proc/{pid}"))).unwrap();
        }
    }

    fn cgroups(&mut self) {
        for _ in 0..10 {
            let name = format!(
                "s{}.slice/u{}.service",
                self.next_cgroup % 7,
                self.next_cgroup
            );
            self.next_cgroup += 1;
            let dir = self.path(&format!("sys/fs/cgroup/{name}"));
            fs::create_dir_all(&dir).unwrap();
            let zswap = self.rng.below(1 << 30);
            write(
                &dir.join("memory.stat"),
                &format!(
                    "anon {}\nzswap {zswap}\nzswapped {}\nzswpin {}\nzswpout {}\nzswpwb 0\n",
                    self.rng.below(1 << 30),
                    zswap * 3,
                    self.rng.below(1 << 20),
                    self.rng.below(1 << 20),
                ),
            );
            write(
                &dir.join("memory.current"),
                &format!("{}\n", self.rng.below(1 << 32)),
            );
            self.cgroups.push_back(name);
        }
        while self.cgroups.len() > LIVE_CGROUPS {
            let name = self.cgroups.pop_front().unwrap();
            fs::remove_dir(self.path(&format!("sys/fs/cgroup/{name}"))).unwrap_or_else(|_| {
                fs::remove_dir_all(self.path(&format!("sys/fs/cgroup/{name}"))).unwrap()
            });
        }
    }

    /// Swap files under new names come and go; zram devices of the pool appear (their sysfs
    /// directory and device link) and disappear.
    fn swap_areas(&mut self) {
        if self.rng.below(2) == 0 || self.swapfiles.is_empty() {
            self.swapfiles.push(self.next_swapfile);
            self.next_swapfile += 1;
        }
        if self.swapfiles.len() > 3 {
            self.swapfiles.remove(0);
        }
        let n = u32::try_from(self.rng.below(u64::from(ZRAM_NAMES) + 1)).unwrap();
        let mut wanted: Vec<u32> = (0..ZRAM_NAMES)
            .filter(|_| self.rng.below(2) == 0)
            .take(n as usize)
            .collect();
        wanted.sort_unstable();
        for &z in &self.zram {
            if !wanted.contains(&z) {
                let _ = fs::remove_dir_all(self.path(&format!("sys/block/zram{z}")));
                let _ = fs::remove_file(self.path(&format!("sys/dev/block/253:{z}")));
            }
        }
        for &z in &wanted {
            self.zram_device(z);
        }
        self.zram = wanted;
        let mut swaps = String::from("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        for f in &self.swapfiles {
            let _ = writeln!(
                swaps,
                "/swapfile-churn-{f}\tfile\t\t1572860\t\t{}\t\t-2",
                self.rng.below(1_572_860)
            );
        }
        for z in &self.zram {
            let _ = writeln!(
                swaps,
                "/dev/zram{z}\tpartition\t1048572\t\t{}\t\t100",
                self.rng.below(1_048_572)
            );
        }
        write(&self.path("proc/swaps"), &swaps);
    }

    fn zram_device(&mut self, z: u32) {
        let dir = self.path(&format!("sys/block/zram{z}"));
        if !dir.exists() {
            let src = self.path("sys/block/zram0");
            let src = if src.exists() {
                src
            } else {
                common::fixture_dir("e2e-phase3-zram/sys/block/zram0")
            };
            assert!(
                Command::new("cp")
                    .arg("-r")
                    .arg(&src)
                    .arg(&dir)
                    .status()
                    .unwrap()
                    .success()
            );
            write(&dir.join("dev"), &format!("253:{z}\n"));
            write(
                &dir.join("uevent"),
                &format!("MAJOR=253\nMINOR={z}\nDEVNAME=zram{z}\nDEVTYPE=disk\n"),
            );
            let link = self.path(&format!("sys/dev/block/253:{z}"));
            let _ = std::os::unix::fs::symlink(format!("../../block/zram{z}"), link);
        }
        let orig = self.rng.below(1 << 31);
        let compr = orig / (1 + self.rng.below(4));
        write(
            &dir.join("mm_stat"),
            &format!("{orig} {compr} {} 0 {compr} 0 0 0 0\n", compr + 4096),
        );
    }

    /// Counters that jump by wildly different amounts, and pressure that swings: the graphs as
    /// spiky as they get.
    fn counters(&mut self) {
        let mut text = String::new();
        for (k, v) in &mut self.counters {
            if k.starts_with("pswp") || k.starts_with("zswp") || k.starts_with("swap_ra") {
                let shift = self.rng.below(30);
                *v += self.rng.below(1 << shift);
            }
            let _ = writeln!(text, "{k} {v}");
        }
        write(&self.path("proc/vmstat"), &text);
        let (a, b) = (self.rng.below(10_000), self.rng.below(10_000));
        write(
            &self.path("proc/pressure/memory"),
            &format!(
                "some avg10={}.{:02} avg60=1.00 avg300=1.00 total={}\n\
                 full avg10={}.{:02} avg60=0.50 avg300=0.50 total={}\n",
                a / 100,
                a % 100,
                self.rng.next() >> 20,
                b / 100,
                b % 100,
                self.rng.next() >> 20,
            ),
        );
    }
}

#[test]
fn a_long_session_over_a_churning_machine_stays_bounded() {
    // In memory when possible: thousands of small files come and go.
    let shm = Path::new("/dev/shm");
    let dir = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    };
    let mut m = Machine::new(dir.path());
    let settings =
        zswaptop::cli::dashboard_settings(&["zswaptop", "-i", "0.1", "--history", "0.5"], false)
            .unwrap();
    let mut sampler = Sampler::new(Root::at(&m.root));
    let mut first = sampler.next(None, Default::default());
    let t0 = 1_000_000_000_000;
    first.monotonic_ns = t0;
    let mut app = App::new(settings, first);
    let mut screen = Screen::new(TestBackend::new(COLS, ROWS)).unwrap();
    app.update(Msg::Resize(COLS, ROWS));
    let mut warm: Option<(Footprint, (usize, usize), usize)> = None;
    let mut worst_kept = 0;
    for tick in 1..=TICKS {
        m.churn(tick);
        let view = View::ALL[(tick / 20) % View::ALL.len()];
        // The samples' own clock, 0.1 s apart: the history fills as it would live. A view
        // coming up is sampled at once besides, halfway to the next tick (as the loop does for
        // a view that needs a scan): the history holds a few more than its span's share.
        let mut times = vec![t0 + tick as u64 * TICK_NS];
        if app.view != view {
            app.update(Msg::Key(Action::Show(view)));
            times.push(times[0] + TICK_NS / 2);
        }
        for t in times {
            let mut s = sampler.next(Some(app.last_sample()), app.extras());
            while sampler.work() == Some(false) {}
            s.monotonic_ns = t;
            s.cgroups_age_ns = 0;
            app.update(Msg::Sampled(Box::new(s)));
        }
        app.update(zswaptop::ui::lay_out(&app));
        screen
            .draw(|buf, area, kept| zswaptop::ui::render_kept(buf, area, &app, kept))
            .unwrap();

        let fp = app.footprint();
        let kept = screen.kept_footprint();
        worst_kept = worst_kept.max(kept.1);
        // What the tree holds now: at most the processes view's rows, every live cgroup and
        // the root, and each swap area and zram device with its block devices (a few each).
        let areas = m.swapfiles.len() + m.zram.len() + 1;
        let owners_bound = 2 * (zswaptop::app::TOP_PROCESSES + LIVE_CGROUPS + 1 + 4 * areas)
            + 2 * ZRAM_NAMES as usize;
        assert!(
            fp.owners <= owners_bound,
            "tick {tick}: {} owners held, the tree has room for {owners_bound}",
            fp.owners
        );
        assert!(
            fp.list_rows <= 2 * (zswaptop::app::TOP_PROCESSES + LIVE_CGROUPS + 1),
            "tick {tick}: list orders hold {} rows",
            fp.list_rows
        );
        // Each panel's description is bounded by its area, whatever the graphs show: here the
        // buffers held ~100 KB at most (21 B a cell); when a graph was described by the dots
        // it drew, they held 870 KB once the history was full and 1.34 MB 500 ticks later.
        let cells = usize::from(COLS) * usize::from(ROWS);
        assert!(
            kept.1 <= 32 * cells,
            "tick {tick}: the kept panels hold {} bytes in {} buffers on a {COLS}×{ROWS} screen",
            kept.1,
            kept.0
        );
        match warm {
            None if tick == WARM_UP => warm = Some((fp, kept, common::fds_under(dir.path()))),
            None => {}
            Some((w, _, _)) => {
                // 30 s at 0.1 s, and a view coming up every 2 s.
                assert!(fp.history_samples <= 302 + 16, "tick {tick}: {fp:?}");
                assert!(
                    fp.history_room <= fp.history_samples * 9 / 8 + 16,
                    "tick {tick}: room for {} samples, {} held",
                    fp.history_room,
                    fp.history_samples
                );
                assert!(
                    fp.history_bytes <= w.history_bytes * 9 / 8,
                    "tick {tick}: the history grew after it was full: {fp:?}, {w:?}"
                );
            }
        }
    }
    let (w, wk, wfd) = warm.unwrap();
    // A tick on the overview: the settings a view read on the last tick (kept open while it
    // reads them every tick) are closed by this one's sweep.
    app.update(Msg::Key(Action::Show(View::Overview)));
    let s = sampler.next(Some(app.last_sample()), app.extras());
    app.update(Msg::Sampled(Box::new(s)));
    let fds = common::fds_under(dir.path());
    println!(
        "after {TICKS} ticks ({} processes, {} cgroups, {} swap files started): {:?}, kept {} B \
         (worst {worst_kept} B; {} B at tick {WARM_UP}), {fds} descriptors ({wfd} at tick {WARM_UP})",
        m.next_pid - 100_000,
        m.next_cgroup,
        m.next_swapfile,
        app.footprint(),
        screen.kept_footprint().1,
        wk.1,
    );
    assert!(w.history_samples >= 300, "the history was full: {w:?}");
    // Descriptors kept open for vanished devices come back when their name does (a pool of
    // names here): no more than at the end of the warm-up, but for the pool's files.
    assert!(
        fds <= wfd + 6 * ZRAM_NAMES as usize,
        "{fds} descriptors open, {wfd} after the warm-up"
    );
}
