//! `zswaptop fleet` against the real query engines: a real Prometheus and a real
//! VictoriaMetrics (Debian packages, loopback ports) each scrape five `zswaptop serve` on
//! different fixture trees (so different hosts); `fleet --once --json` must agree host by host
//! with each host's own `zswaptop --once --json --root TREE`, sorted worst first; a stopped
//! exporter shows as stale; a hostile `instance` label (ESC, BEL, a newline, set as a target
//! label) comes out escaped, in JSON and in the text. And bad answers (nothing listening, 5xx,
//! not JSON, too large, too slow) each end in a clear message. SKIPPED where a tool is missing.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;
use crate::metrics::{Guard, free_port, get, need, prometheus, query, serve};

/// The hosts' trees: zswap loaded, near its limit, writeback stalled, zswap over zram over disk;
/// the fifth is stopped.
const TREES: [&str; 5] = [
    "linux-6.18-loaded",
    "regress-pool-near-limit",
    "linux-6.18-writeback-stalled",
    "tiers-zswap-zram-disk",
    "linux-6.18-idle",
];

/// What the hostile host's `instance` label is set to (YAML double-quoted escapes).
const HOSTILE_YAML: &str = r#"evil\e]0;owned\a\nhost"#;
/// The same, as the label's value.
const HOSTILE: &str = "evil\x1b]0;owned\x07\nhost";
/// The same, as zswaptop shows it.
const HOSTILE_SHOWN: &str = "evil\\x1b]0;owned\\x07\\x0ahost";

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_zswaptop"))
}

/// `zswaptop ARGS`: (status, stdout, stderr).
fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(bin()).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The scrape configuration both engines read: the hosts as targets of job zswaptop, the last
/// one under the hostile instance label.
fn scrape_config(targets: &[String], hostile: &str) -> String {
    let list = targets
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n\
         \x20 - job_name: zswaptop\n    static_configs:\n      - targets: [{list}]\n\
         \x20     - targets: ['{hostile}']\n        labels: {{instance: \"{HOSTILE_YAML}\"}}\n"
    )
}

/// VictoriaMetrics on a free loopback port scraping as `config` says; its address once ready.
fn victoria(tool: &Path, dir: &Path, config: &str) -> (Guard, String) {
    std::fs::write(dir.join("scrape.yml"), config).unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let guard = Guard(
        Command::new(tool)
            .arg(format!("-httpListenAddr={addr}"))
            .arg(format!("-storageDataPath={}", dir.join("vm").display()))
            .arg(format!(
                "-promscrape.config={}",
                dir.join("scrape.yml").display()
            ))
            // Answer with the newest samples (by default the last 30 s are held back).
            .arg("-search.latencyOffset=0s")
            .arg("-search.disableCache")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let start = Instant::now();
    while !(std::net::TcpStream::connect(&addr).is_ok() && get(&addr, "/health", None).0 == 200) {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "VictoriaMetrics not ready within 60 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    (guard, addr)
}

/// Wait until every target of job zswaptop has been scraped `n` times.
fn scraped(engine: &str, hosts: usize, n: usize) {
    let start = Instant::now();
    loop {
        let done = query(
            engine,
            &format!("count_over_time(up{{job=\"zswaptop\"}}[1m]) >= {n}"),
        );
        if done.len() == hosts {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(90),
            "{engine}: not every host scraped {n} times within 90 s: {done:?}"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

/// `zswaptop --once --json --cgroups` on `tree` with two samples a second apart (rates, and the
/// cgroup tree whose findings serve judges too, as serve has).
fn own(tree: &Path) -> Value {
    let (code, out, err) = run(&[
        "--once",
        "--json",
        "--cgroups",
        "-i",
        "1",
        "--root",
        tree.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    serde_json::from_str(&out).unwrap()
}

fn f(v: &Value) -> Option<f64> {
    v.as_f64()
}

fn close(a: Option<f64>, b: Option<f64>, what: &str) {
    match (a, b) {
        (Some(x), Some(y)) => assert!(
            (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0),
            "{what}: fleet {x}, host {y}"
        ),
        (None, None) => {}
        _ => panic!("{what}: fleet {a:?}, host {b:?}"),
    }
}

/// The fleet over `engine` agrees with each host, sorted worst first; the stopped one is stale;
/// the hostile label is escaped.
fn fleet_agrees(engine_name: &str, start: impl FnOnce(&Path, &str) -> (Guard, String)) {
    let trees: Vec<PathBuf> = TREES.iter().map(|t| common::fixture_dir(t)).collect();
    let mut serves: Vec<(Guard, String)> = trees.iter().map(|t| serve(Some(t))).collect();
    let (stopped_guard, stopped) = serves.pop().unwrap();
    let (hostile_guard, hostile) = serve(Some(&trees[0]));
    let mut targets: Vec<String> = serves.iter().map(|(_, a)| a.clone()).collect();
    targets.push(stopped.clone());
    let dir = tempfile::tempdir().unwrap();
    let (_engine, addr) = start(dir.path(), &scrape_config(&targets, &hostile));
    scraped(&addr, targets.len() + 1, 8);
    drop(stopped_guard);
    // Until the engine has seen the stopped exporter down.
    let t = Instant::now();
    while !query(&addr, "up{job=\"zswaptop\"} == 0")
        .iter()
        .any(|s| s["metric"]["instance"] == stopped.as_str())
    {
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "{engine_name}: the stopped exporter never showed down"
        );
        std::thread::sleep(Duration::from_millis(300));
    }

    let url = format!("http://{addr}");
    let fleet_once = |extra: &[&str]| {
        let mut args = vec![
            "fleet",
            "--prometheus",
            &url,
            "--selector",
            "{job=\"zswaptop\"}",
        ];
        args.push("--once");
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(0), "{engine_name}: {err}");
        out
    };
    let out = fleet_once(&["--json"]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let v = crate::schema::validator_of(zswaptop::schema::FLEET_FILE);
    let complaints: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(complaints.is_empty(), "{complaints:?}\n{out}");
    let hosts: BTreeMap<String, &Value> = doc["fleet"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["instance"].as_str().unwrap().to_string(), h))
        .collect();
    assert_eq!(hosts.len(), targets.len() + 1, "{engine_name}: {out}");

    // Host by host, against the host's own report.
    for ((_, addr), tree) in serves.iter().zip(&trees) {
        let h = hosts
            .get(addr.as_str())
            .unwrap_or_else(|| panic!("{engine_name}: {addr} missing: {out}"));
        let s = own(tree);
        let what = |k: &str| format!("{engine_name}: {addr} ({tree:?}) {k}");
        assert_eq!(h["up"], true, "{}", what("up"));
        assert_eq!(h["stale"], false, "{}", what("stale"));
        let age = h["age_seconds"].as_f64().unwrap();
        assert!((0.0..5.0).contains(&age), "{}: {age}", what("age"));
        close(
            f(&h["zswap_pool_bytes"]),
            f(&s["zswap"]["pool_bytes"]),
            &what("pool"),
        );
        let share = match (
            f(&s["zswap"]["pool_bytes"]),
            f(&s["zswap"]["pool_limit_bytes"]),
        ) {
            (Some(p), Some(l)) if l > 0.0 => Some(p / l),
            _ => None,
        };
        close(f(&h["zswap_pool_limit_share"]), share, &what("limit share"));
        close(
            f(&h["swapin_hit_ratio"]),
            f(&s["zswap"]["swapin_hit_ratio"]),
            &what("hit ratio"),
        );
        close(
            f(&h["psi_some_avg10"]),
            f(&s["psi"]["some_avg10"]),
            &what("psi"),
        );
        // A tree does not change: nothing fills, nothing is written back.
        assert_eq!(h["full_seconds"], Value::Null, "{}", what("full"));
        assert!(
            h["unknown"]["full_seconds"]
                .as_str()
                .unwrap()
                .contains("filling"),
            "{}",
            what("full")
        );
        // Where the host's kernel counts writeback (its own rates name zswpwb).
        let counts_writeback = s["rates"]["per_sec"]["zswpwb"].is_number();
        close(
            f(&h["writeback_bytes_per_second"]),
            counts_writeback.then_some(0.0),
            &what("writeback"),
        );
        let mut counts = BTreeMap::from([("crit", 0), ("warn", 0), ("info", 0)]);
        for finding in s["diagnostics"].as_array().unwrap() {
            *counts
                .get_mut(finding["severity"].as_str().unwrap())
                .unwrap() += 1;
        }
        for (sev, n) in counts {
            assert_eq!(h["findings"][sev], n, "{} {sev}", what("findings"));
        }
    }

    // The stopped exporter.
    let gone = hosts[stopped.as_str()];
    assert_eq!(gone["up"], false, "{engine_name}: {gone}");
    assert_eq!(gone["stale"], true, "{engine_name}: {gone}");
    assert!(
        gone["unknown"]["zswap_pool_bytes"]
            .as_str()
            .unwrap()
            .contains("down"),
        "{gone}"
    );
    let age = gone["age_seconds"].as_f64().unwrap();
    assert!((0.0..60.0).contains(&age), "{engine_name}: {gone}");
    assert_eq!(doc["fleet"]["summary"]["stale"], 1, "{out}");
    assert_eq!(doc["fleet"]["summary"]["hosts"], targets.len() + 1);

    // The hostile label: escaped, never raw.
    assert!(hosts.contains_key(HOSTILE_SHOWN), "{engine_name}: {out}");
    assert!(!out.contains(HOSTILE) && !out.contains('\x1b'));

    // Worst first: soonest to fill, then critical findings, then pressure, then the name.
    let list = doc["fleet"]["hosts"].as_array().unwrap();
    let key = |h: &Value| {
        (
            f(&h["full_seconds"]).unwrap_or(f64::INFINITY),
            -(h["findings"]["crit"].as_i64().unwrap()),
            -f(&h["psi_some_avg10"]).unwrap_or(-1.0),
            h["instance"].as_str().unwrap().to_string(),
        )
    };
    for pair in list.windows(2) {
        let (a, b) = (key(&pair[0]), key(&pair[1]));
        assert!(
            a.partial_cmp(&b) != Some(std::cmp::Ordering::Greater),
            "{engine_name}: not worst first: {a:?} before {b:?}"
        );
    }

    // The text: 80 columns, nothing raw.
    let text = fleet_once(&[]);
    for line in text.lines() {
        assert!(line.chars().count() <= 80, "{line}");
        assert!(!line.chars().any(char::is_control), "{line:?}");
    }
    assert!(text.contains("1 stale"), "{text}");
    assert!(text.contains("evil\\x1b]0;o"), "{text}");
    // The hostile exporter serves until here: stopped earlier, a scrape in between made it a
    // second stale host ("2 stale", once in CI).
    drop(hostile_guard);
}

#[test]
fn fleet_over_prometheus_agrees_with_each_host() {
    let tool = need!("prometheus");
    fleet_agrees("Prometheus", |dir, config| prometheus(&tool, dir, config));
}

#[test]
fn fleet_over_victoriametrics_agrees_with_each_host() {
    let Some(tool) = crate::metrics::find("victoria-metrics") else {
        common::skip!(
            "victoria-metrics is not installed (Debian: apt-get install victoria-metrics)"
        );
    };
    fleet_agrees("VictoriaMetrics", |dir, config| {
        victoria(&tool, dir, config)
    });
}

/// The fleet view in a real terminal (tmux): the table, Enter on a host opens its last hour and
/// findings, Esc goes back, q quits with status 0.
#[test]
fn the_fleet_view_opens_a_host_and_quits() {
    let tool = need!("prometheus");
    if let Err(why) = crate::tui_tmux::tmux_ready() {
        common::skip!("{why}");
    }
    let trees = [TREES[0], TREES[1]].map(common::fixture_dir);
    let serves: Vec<(Guard, String)> = trees.iter().map(|t| serve(Some(t))).collect();
    let list = serves
        .iter()
        .map(|(_, a)| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let dir = tempfile::tempdir().unwrap();
    let (_prom, addr) = prometheus(
        &tool,
        dir.path(),
        &format!(
            "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: zswaptop\n\
             \x20   static_configs: [{{targets: [{list}]}}]\n"
        ),
    );
    scraped(&addr, 2, 3);
    // The size the view is made for (and the closing notes show it at).
    let t = crate::tui_tmux::shell_session_sized("fleet", 120, 40);
    t.type_line(&format!(
        "{} fleet --prometheus http://{addr}; echo EXIT=$?",
        bin().display()
    ));
    let first = &serves[0].1;
    let table = t.wait_for("the fleet table", |s| {
        s.contains("2 hosts, 0 in trouble, 0 stale") && s.contains(first.as_str())
    });
    // The screen as it was, for a person to read (`FLEET_VIEW_SCREEN=FILE`).
    if let Some(path) = std::env::var_os("FLEET_VIEW_SCREEN") {
        std::fs::write(path, &table).unwrap();
    }
    t.keys(&["Enter"]);
    t.wait_for("the host's last hour and findings", |s| {
        s.contains("Esc back")
            && s.contains("the last hour (query_range")
            && s.contains("findings now")
    });
    t.keys(&["Escape"]);
    t.wait_for("the table again", |s| s.contains("Enter open"));
    t.keys(&["q"]);
    t.wait_for("the exit status", |s| s.contains("EXIT=0"));
}

/// Every series the Grafana dashboard reads is one the registry exports (names made as
/// report::openmetrics makes them), it has the panels the fleet view has, and no panel draws two
/// units on one axis (writeback bytes/s apart from the refusals' events/s).
#[test]
fn the_dashboards_series_are_the_registrys() {
    use zswaptop::model::metrics::{Output, reaching};
    use zswaptop::report::openmetrics::sample_names;
    let exported: std::collections::BTreeSet<String> = reaching(Output::Exposition)
        .flat_map(sample_names)
        .collect();
    let dash: Value =
        serde_json::from_str(&std::fs::read_to_string("assets/zswaptop-grafana.json").unwrap())
            .unwrap();
    let panels = dash["panels"].as_array().unwrap();
    for panel in panels {
        let title = panel["title"].as_str().unwrap();
        let unit = panel["fieldConfig"]["defaults"]["unit"]
            .as_str()
            .unwrap_or("");
        for t in panel["targets"].as_array().unwrap() {
            let expr = t["expr"].as_str().unwrap();
            for m in crate::metrics::metrics_in(expr) {
                assert!(exported.contains(&m), "{title}: {m} is not exported");
                // A panel in bytes reads only byte series; one in events only counts.
                if unit == "Bps" || unit == "bytes" {
                    assert!(m.contains("_bytes"), "{title} ({unit}): {m}");
                }
                if unit == "ops" {
                    assert!(!m.contains("_bytes"), "{title} ({unit}): {m}");
                }
            }
        }
    }
    let titles: Vec<&str> = panels
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    for want in [
        "zswap swap-in hit ratio",
        "Time to full",
        "Swap device latency",
        "Source status",
        "Host ranking",
        "zswap writeback",
        "zswap refusals and failures",
    ] {
        assert!(titles.contains(&want), "no panel {want:?}: {titles:?}");
    }
}

/// A server on a loopback port that answers every request with `answer` (after `delay`); its
/// address. It stops when the test process ends.
fn canned(answer: Vec<u8>, delay: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(8) {
            let Ok(mut stream) = stream else { continue };
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                std::thread::sleep(delay);
                let _ = stream.write_all(&answer);
            });
        }
    });
    addr
}

fn http_answer(status: &str, body: &[u8]) -> Vec<u8> {
    let mut a = format!(
        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    a.extend_from_slice(body);
    a
}

/// Each bad answer ends the run with status 1 and a message that says what went wrong.
#[test]
fn bad_answers_end_in_clear_messages() {
    let fleet = |addr: &str, extra: &[&str]| {
        let url = format!("http://{addr}");
        let mut args = vec!["fleet", "--prometheus", url.as_str(), "--once"];
        args.extend_from_slice(extra);
        let t = Instant::now();
        let (code, out, err) = run(&args);
        assert!(
            t.elapsed() < Duration::from_secs(20),
            "{addr}: took {:?}",
            t.elapsed()
        );
        assert_eq!(code, Some(1), "{addr}: {out} {err}");
        assert!(out.is_empty(), "{out}");
        assert!(!err.contains('\x1b'), "{err:?}");
        err
    };
    let nobody = format!("127.0.0.1:{}", free_port());
    assert!(fleet(&nobody, &[]).contains("cannot connect"));

    let five = canned(
        http_answer("503 Service Unavailable", b"overloaded\x1b[2J"),
        Duration::ZERO,
    );
    let err = fleet(&five, &[]);
    assert!(
        err.contains("status 503") && err.contains("overloaded\\x1b[2J"),
        "{err}"
    );

    let html = canned(http_answer("200 OK", b"<html>hello</html>"), Duration::ZERO);
    assert!(fleet(&html, &[]).contains("not the query API's JSON"));

    let huge = canned(http_answer("200 OK", &vec![b' '; 3 << 20]), Duration::ZERO);
    let err = fleet(&huge, &["--max-bytes", "1MiB"]);
    assert!(err.contains("larger than 1048576 bytes"), "{err}");

    let slow = canned(http_answer("200 OK", b"{}"), Duration::from_secs(30));
    let err = fleet(&slow, &["--timeout", "1"]);
    assert!(err.contains("no complete answer within 1s"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.toml");
    std::fs::write(&empty, "").unwrap();
    let (code, _, err) = run(&["fleet", "--once", "--config", empty.to_str().unwrap()]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--prometheus"), "{err}");
    // The URL and the selector from the configuration file.
    let conf = dir.path().join("config.toml");
    std::fs::write(
        &conf,
        format!("[fleet]\nprometheus = \"http://{nobody}\"\nselector = '{{job=\"z\"}}'\n"),
    )
    .unwrap();
    let (code, _, err) = run(&["fleet", "--once", "--config", conf.to_str().unwrap()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("cannot connect to http://{nobody}")),
        "{err}"
    );
    let (code, _, err) = run(&[
        "fleet",
        "--once",
        "--prometheus",
        "ftp://x",
        "--selector",
        "job",
    ]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--selector"), "{err}");
}
