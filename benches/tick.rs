//! What one dashboard tick costs, step by step: a fast collect from a fixture tree, `derive`,
//! the diagnostics rules, and a full draw into a TestBackend at two sizes.
//!
//!   cargo bench --bench tick
//!
//! CI compiles these (`cargo bench --no-run`) without running them: they are measurements, not
//! tests.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use divan::{Bencher, black_box};
use ratatui::backend::TestBackend;

use zswaptop::app::{Action, App, Msg, View};
use zswaptop::model::Snapshot;
use zswaptop::root::Root;
use zswaptop::sources::{self, Extras};
use zswaptop::tui::screen::Screen;

fn main() {
    divan::main();
}

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/linux-6.18-loaded"
);
const IDLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/linux-6.18-idle"
);

fn sample(dir: &str, t_ns: u64) -> sources::Sample {
    let mut s = sources::collect(&Root::at(dir));
    s.monotonic_ns = t_ns;
    s
}

/// One fast tick's reads from a fixture tree (the descriptors kept by the root stay open
/// across iterations, as they do across the dashboard's ticks).
#[divan::bench]
fn collect_fast(bencher: Bencher) {
    let root = Root::at(FIXTURE);
    let prev = sources::collect(&root);
    bencher.bench_local(|| sources::collect_fast(&root, black_box(&prev), Extras::default()));
}

/// One fast tick's reads on the running system (no `--root`): what the dashboard pays.
#[divan::bench]
fn collect_fast_live(bencher: Bencher) {
    let root = Root::live();
    let prev = sources::collect(&root);
    bencher.bench_local(|| sources::collect_fast(&root, black_box(&prev), Extras::default()));
}

/// The snapshot from two samples one second apart.
#[divan::bench]
fn derive(bencher: Bencher) {
    let a = sample(IDLE, 1_000_000_000_000);
    let b = sample(FIXTURE, 1_001_000_000_000);
    bencher.bench_local(|| Snapshot::derive(black_box(&b), Some(black_box(&a))));
}

/// Every diagnostics rule over one snapshot.
#[divan::bench]
fn rules(bencher: Bencher) {
    let a = sample(IDLE, 1_000_000_000_000);
    let b = sample(FIXTURE, 1_001_000_000_000);
    let snap = Snapshot::derive(&b, Some(&a));
    bencher.bench_local(|| zswaptop::diagnostics::evaluate(black_box(&snap), &Default::default()));
}

fn app(view: View, w: u16, h: u16) -> App {
    let settings = zswaptop::cli::dashboard_settings(&["zswaptop"], true).unwrap();
    let mut app = App::new(settings, sample(IDLE, 1_000_000_000_000));
    app.update(Msg::Sampled(Box::new(sample(FIXTURE, 1_001_000_000_000))));
    app.update(Msg::Resize(w, h));
    app.update(zswaptop::ui::lay_out(&app));
    app.update(Msg::Key(Action::Show(view)));
    app
}

/// What the loop measures before each frame (how far each pane scrolls), on the overview.
#[divan::bench]
fn lay_out(bencher: Bencher) {
    let app = app(View::Overview, 120, 40);
    bencher.bench_local(|| zswaptop::ui::lay_out(black_box(&app)));
}

/// The diagnostics text laid out: what measuring the scroll limits cost on every frame before
/// they were measured only for the view shown.
#[divan::bench]
fn diagnostics_text(bencher: Bencher) {
    let app = app(View::Overview, 120, 40);
    let t = zswaptop::ui::Theme::new(false, false);
    bencher.bench_local(|| zswaptop::ui::views::diagnostics::lines(black_box(&app.shown), &t, 120));
}

/// A frame into a TestBackend through the dashboard's screen: drawn, compared with what the
/// terminal shows, written, flushed. The frame is the same each time, as on an idle tick: the
/// panels are kept, and the header and footer drawn and compared.
#[divan::bench(args = [(80, 24), (120, 40), (200, 60)])]
fn draw_overview(bencher: Bencher, (w, h): (u16, u16)) {
    let app = app(View::Overview, w, h);
    let mut screen = Screen::new(TestBackend::new(w, h)).unwrap();
    bencher.bench_local(|| {
        screen
            .draw(|buf, area, kept| zswaptop::ui::render_kept(buf, area, black_box(&app), kept))
            .unwrap();
    });
}

/// Frames that differ each time (two dashboards, one after the other): nothing is kept, every
/// panel is drawn and compared, as on a tick where every value moved.
#[divan::bench(args = [(80, 24), (120, 40), (200, 60)])]
fn draw_overview_changing(bencher: Bencher, (w, h): (u16, u16)) {
    let a = app(View::Overview, w, h);
    let mut b = app(View::Overview, w, h);
    b.update(Msg::Sampled(Box::new(sample(IDLE, 1_002_000_000_000))));
    let apps = [a, b];
    let mut screen = Screen::new(TestBackend::new(w, h)).unwrap();
    let mut i = 0;
    bencher.bench_local(|| {
        i += 1;
        let app = &apps[i % 2];
        screen
            .draw(|buf, area, kept| zswaptop::ui::render_kept(buf, area, black_box(app), kept))
            .unwrap();
    });
}

/// The same frame after the caches were filled with other data (16 MiB read, not timed): what a
/// tick a second after the last one meets on a machine doing other work.
#[divan::bench(args = [(80, 24), (200, 60)])]
fn draw_overview_cold(bencher: Bencher, (w, h): (u16, u16)) {
    let app = app(View::Overview, w, h);
    let mut screen = Screen::new(TestBackend::new(w, h)).unwrap();
    let mut other = vec![1u64; 2 << 20];
    bencher
        .with_inputs(|| {
            for (i, v) in other.iter_mut().enumerate() {
                *v = v.wrapping_add(i as u64);
            }
            black_box(other[12345])
        })
        .bench_local_values(|_| {
            screen
                .draw(|buf, area, kept| zswaptop::ui::render_kept(buf, area, black_box(&app), kept))
                .unwrap();
        });
}

/// The graphs view, full frame.
#[divan::bench(args = [(80, 24), (200, 60)])]
fn draw_graphs(bencher: Bencher, (w, h): (u16, u16)) {
    let app = app(View::Graphs, w, h);
    let mut screen = Screen::new(TestBackend::new(w, h)).unwrap();
    bencher.bench_local(|| {
        screen
            .draw(|buf, area, kept| zswaptop::ui::render_kept(buf, area, black_box(&app), kept))
            .unwrap();
    });
}

/// The snapshot's one sanitize step (every string made safe for a terminal), as each tick runs
/// it: on the loaded tree, and on a tree of many processes with their names, commands, users
/// and cgroups (the top 200 and the cgroup tree scanned).
#[divan::bench(args = ["linux-6.18-loaded", "depth-many-processes"])]
fn sanitize(bencher: Bencher, tree: &str) {
    use zswaptop::sanitize::Sanitize;
    let root = Root::at(format!(
        "{}/tests/fixtures/{tree}",
        env!("CARGO_MANIFEST_DIR")
    ));
    let extras = Extras {
        smaps: false,
        top_processes: Some(200),
        cgroups: true,
        settings: true,
    };
    let snap = Snapshot::derive(&sources::collect_with(&root, extras), None);
    bencher
        .with_inputs(|| snap.clone())
        .bench_local_values(|mut s| {
            s.sanitize();
            s
        });
}

/// The processes view's scan of every process on the running system: the swap list alone
/// (`/proc/PID/status`), and with every process's major faults (`/proc/PID/stat` as well, and
/// the deltas against the scan before). The difference is what the faults column costs.
#[divan::bench(args = [false, true])]
fn scan_processes_live(bencher: Bencher, faults: bool) {
    use zswaptop::sources::processes;
    let root = Root::live();
    if faults {
        let (_, _, mut counts) = processes::scan_with_faults(&root, 10, 0, None, false);
        bencher.bench_local(|| {
            let (list, f, c) = processes::scan_with_faults(&root, 10, 1, Some(&counts), false);
            counts = c;
            (list, f)
        });
    } else {
        bencher.bench_local(|| processes::scan(&root, 10, false));
    }
}

/// What one `serve` scrape costs, step by step, on the running system: the full read of the
/// kernel with the cgroup tree (every scrape reads afresh), the pipeline over it and the
/// sample before, and the OpenMetrics exposition.
#[divan::bench]
fn scrape_collect_live(bencher: Bencher) {
    let root = Root::live();
    let extras = zswaptop::report::metrics_extras(Extras::default());
    bencher.bench_local(|| sources::collect_with(&root, black_box(extras)));
}

#[divan::bench]
fn scrape_pipeline_live(bencher: Bencher) {
    let root = Root::live();
    let extras = zswaptop::report::metrics_extras(Extras::default());
    let a = sources::collect_with(&root, extras);
    let b = sources::collect_with(&root, extras);
    bencher.bench_local(|| zswaptop::pipeline::snapshot(black_box(&b), Some(black_box(&a))));
}

#[divan::bench]
fn scrape_render_live(bencher: Bencher) {
    use zswaptop::report::openmetrics::{self, Flavor};
    let root = Root::live();
    let extras = zswaptop::report::metrics_extras(Extras::default());
    let a = sources::collect_with(&root, extras);
    let b = sources::collect_with(&root, extras);
    let snap = zswaptop::pipeline::snapshot(&b, Some(&a));
    bencher.bench_local(|| {
        let mut text = String::with_capacity(32 * 1024);
        openmetrics::render(black_box(&snap), Flavor::OpenMetrics, &mut text);
        text
    });
}
