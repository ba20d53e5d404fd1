//! The exposition on a fleet: two `zswaptop serve` on two loopback ports, each on its own fixture
//! tree (so their values differ), scraped every second by one real Prometheus. Every panel query
//! of the Grafana dashboard (assets/zswaptop-grafana.json), with `$instance` as Grafana writes it
//! (All: both hosts; a repeated panel: one), returns one series per host and per bucket, device
//! or cgroup its legend splits by (a host whose exposition lacks a metric the query reads, as a
//! value the kernel does not give is absent, has none), names the host in its legend unless the
//! panel is repeated per host, and stacks only within one host; the cgroup series sum to the
//! leaves' zswap, each page once. Also: node_exporter's defaults against the README's list of
//! what it already has, and the breakdown's bucket count wherever it is said. SKIPPED without
//! Prometheus or node_exporter; loopback only, every process stopped at the end.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;
use crate::metrics::{get, metrics_in, need, prometheus, query, sample_names, scalar_of, serve};

/// The two hosts' trees: the same cgroup hierarchy captured twice, its pools of other sizes.
const TREES: [&str; 2] = ["depth-cgroup-v2", "depth-cgroup-v2-t1"];

/// `$instance` as Grafana's Prometheus data source writes it into a query: each value's regex
/// characters escaped (the backslash doubled, as PromQL's string wants), several values joined
/// as `(a|b)`, a single one alone.
fn instance_regex(values: &[&str]) -> String {
    let escaped: Vec<String> = values
        .iter()
        .map(|v| {
            v.chars()
                .map(|c| {
                    if "\\^$*+?.()|[]{}".contains(c) {
                        format!("\\\\{c}")
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        })
        .collect();
    match escaped.as_slice() {
        [one] => one.clone(),
        many => format!("({})", many.join("|")),
    }
}

/// The labels a legend format names: its `{{label}}` placeholders.
fn legend_labels(format: &str) -> Vec<String> {
    format
        .split("{{")
        .skip(1)
        .filter_map(|s| s.split_once("}}"))
        .map(|(label, _)| label.trim().to_string())
        .collect()
}

/// A series' value of `label` ("" without it).
fn label<'a>(series: &'a serde_json::Value, label: &str) -> &'a str {
    series["metric"][label].as_str().unwrap_or("")
}

/// The zswap of the tree's leaf cgroups (memory.stat `zswap` of each directory under
/// sys/fs/cgroup with no child directory that has one), read from the files: what the cgroup
/// series should sum to when no page is counted twice.
fn leaf_zswap(tree: &Path) -> f64 {
    fn walk(dir: &Path, sum: &mut f64) {
        let children: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.join("memory.stat").is_file())
            .collect();
        if children.is_empty() {
            let stat = std::fs::read_to_string(dir.join("memory.stat")).unwrap();
            *sum += stat
                .lines()
                .find_map(|l| l.strip_prefix("zswap "))
                .map_or(0.0, |v| v.trim().parse::<f64>().unwrap());
        }
        for c in children {
            walk(&c, sum);
        }
    }
    let mut sum = 0.0;
    let cgroup = tree.join("sys/fs/cgroup");
    for top in std::fs::read_dir(&cgroup).unwrap() {
        let top = top.unwrap().path();
        if top.join("memory.stat").is_file() {
            walk(&top, &mut sum);
        }
    }
    sum
}

#[test]
fn every_panel_returns_one_series_per_instance() {
    let tool = need!("prometheus");
    let trees = TREES.map(common::fixture_dir);
    let (_first, a) = serve(Some(&trees[0]));
    let (_second, b) = serve(Some(&trees[1]));
    let hosts = [a.as_str(), b.as_str()];
    // The sample names each host exports, without a counter's `_total` or an info's `_info`.
    let exported: BTreeMap<&str, BTreeSet<String>> = hosts
        .iter()
        .map(|h| {
            let (_, _, text) = get(h, "/metrics", None);
            let names = sample_names(&text)
                .into_iter()
                .map(|n| {
                    let n = n.strip_suffix("_total").unwrap_or(&n);
                    n.strip_suffix("_info").unwrap_or(n).to_string()
                })
                .collect();
            (*h, names)
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let (_prometheus, prom) = prometheus(
        &tool,
        dir.path(),
        &format!(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n\
             \x20 - job_name: zswaptop\n    static_configs: [{{targets: ['{a}', '{b}']}}]\n"
        ),
    );
    // Until each host has been scraped five times (rate() needs two samples in its range).
    let start = Instant::now();
    loop {
        let scrapes = query(&prom, "count_over_time(up{job=\"zswaptop\"}[1m]) >= 5");
        if scrapes.len() == 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "Prometheus did not scrape both hosts five times within 30 s: {scrapes:?}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    for up in query(&prom, "up{job=\"zswaptop\"}") {
        assert_eq!(scalar_of(&up), 1.0, "{up}");
    }

    // The instance variable's query lists both hosts.
    let dash: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("assets/zswaptop-grafana.json").unwrap())
            .unwrap();
    let variable = dash["templating"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "instance")
        .expect("an instance variable");
    assert_eq!(variable["multi"], true);
    assert_eq!(variable["includeAll"], true);
    assert_eq!(
        variable["definition"],
        "label_values(zswaptop_build_info, instance)"
    );
    let (_, _, body) = get(
        &prom,
        "/api/v1/label/instance/values?match[]=zswaptop_build_info",
        None,
    );
    let values: serde_json::Value = serde_json::from_str(&body).unwrap();
    let mut want: Vec<&str> = hosts.to_vec();
    want.sort_unstable();
    assert_eq!(values["data"], serde_json::json!(want), "{body}");

    let all = instance_regex(&hosts);
    let mut queries = 0;
    let mut absent = Vec::new();
    for panel in dash["panels"].as_array().unwrap() {
        let title = panel["title"].as_str().unwrap();
        let repeated = panel["repeat"] == "instance";
        let stacking = &panel["fieldConfig"]["defaults"]["custom"]["stacking"]["mode"];
        assert!(
            repeated || stacking.is_null() || stacking == "none",
            "{title}: stacked across hosts (stack only in a panel repeated per instance)"
        );
        for target in panel["targets"].as_array().unwrap() {
            let legend = target["legendFormat"].as_str().unwrap_or("");
            let split = legend_labels(legend);
            let expr = target["expr"]
                .as_str()
                .unwrap()
                .replace("$__rate_interval", "1m")
                .replace("$__interval", "15s");
            // What Grafana sends: All for a panel over the fleet, each host in its own copy of a
            // repeated one.
            let runs: Vec<(String, Vec<&str>)> = if repeated {
                hosts
                    .iter()
                    .map(|h| (instance_regex(&[h]), vec![*h]))
                    .collect()
            } else {
                assert!(
                    split.iter().any(|l| l == "instance"),
                    "{title}: the legend {legend:?} does not name the host"
                );
                vec![(all.clone(), hosts.to_vec())]
            };
            let read = metrics_in(&expr);
            for (regex, hosts_asked) in runs {
                let q = expr.replace("$instance", &regex);
                let mut expected: Vec<&str> = hosts_asked
                    .into_iter()
                    .filter(|h| {
                        read.iter().all(|m| {
                            let m = m.strip_suffix("_total").unwrap_or(m);
                            let m = m.strip_suffix("_info").unwrap_or(m);
                            exported[h].contains(m)
                        })
                    })
                    .collect();
                if expected.is_empty() {
                    absent.push(format!("{title}: {q}"));
                }
                let series = query(&prom, &q);
                let mut per_host: BTreeMap<&str, BTreeSet<Vec<&str>>> = BTreeMap::new();
                for s in &series {
                    let key: Vec<&str> = split.iter().map(|l| label(s, l)).collect();
                    let host = label(s, "instance");
                    assert!(
                        per_host.entry(host).or_default().insert(key.clone()),
                        "{title}: {q}: two series of {host} under one legend {key:?}: {series:?}"
                    );
                }
                let got: Vec<&str> = per_host.keys().copied().collect();
                expected.sort_unstable();
                assert_eq!(got, expected, "{title}: {q}: {series:?}");
                queries += usize::from(got.len() == hosts.len() || repeated && !got.is_empty());
            }
        }
    }
    // Absent on both trees: zram's factor (its device holds no data there); and what only a
    // change over time gives, on trees that never change: the forecasts (nothing fills), the
    // swap-in hit ratio (no swap-in), the swap devices' latency (no I/O); and the swap-in latency
    // histogram, which needs the BPF programs (a tree has no kernel to probe): its repeated
    // panel's two quantiles, once per host. Each query still ran.
    assert_eq!(
        absent[0],
        format!("Compression factor: zswaptop_zram_effective_factor{{instance=~\"{all}\"}}")
    );
    let titles: Vec<&str> = absent
        .iter()
        .skip(1)
        .map(|a| a.split(": ").next().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "zswap swap-in hit ratio",
            "Time to full",
            "Time to full",
            "Time to full",
            "Time to full",
            "Swap device latency",
            "Swap device latency",
            "Host ranking",
            "Host ranking",
            "Swap-in latency by tier on $instance",
            "Swap-in latency by tier on $instance",
            "Swap-in latency by tier on $instance",
            "Swap-in latency by tier on $instance"
        ],
        "{absent:#?}"
    );
    assert!(
        queries >= 30,
        "{queries} panel queries answered by every host"
    );

    // Summing the cgroup series counts each page once: per host, the leaves' zswap as the tree's
    // files give it.
    let sums = query(
        &prom,
        "sum by (instance) (zswaptop_cgroup_zswap_bytes{job=\"zswaptop\"})",
    );
    for (host, tree) in hosts.iter().zip(&trees) {
        let sum = sums
            .iter()
            .find(|s| label(s, "instance") == *host)
            .map(scalar_of);
        assert_eq!(sum, Some(leaf_zswap(tree)), "{host}: {tree:?}");
    }
}

/// The breakdown's help, the dashboard and the README say how many buckets it has (they said ten
/// when there were eleven).
#[test]
fn the_breakdowns_bucket_count_is_said_right() {
    let words = [
        "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve", "thirteen",
    ];
    let n = zswaptop::model::memory::BUCKETS.len();
    let help = zswaptop::model::metrics::get("memory_breakdown_bytes")
        .unwrap()
        .help;
    let texts = [
        ("the help", help.to_lowercase()),
        ("the dashboard", read_lower("assets/zswaptop-grafana.json")),
        ("the README", read_lower("README.md")),
    ];
    for (file, text) in texts {
        assert!(text.contains(&format!("{} buckets", words[n])), "{file}");
        for (i, other) in words.iter().enumerate().filter(|(i, _)| *i != n) {
            assert!(
                !text.contains(&format!("{other} buckets")),
                "{file} says {other} buckets; there are {n}, not {i}"
            );
        }
    }
}

fn read_lower(file: &str) -> String {
    std::fs::read_to_string(file).unwrap().to_lowercase()
}

/// The README's table of what node_exporter already has: (zswaptop's names, node_exporter's,
/// kept), the names of a cell in backquotes, in the same order in both columns.
fn readme_duplicates() -> Vec<(Vec<String>, Vec<String>, bool)> {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let section = readme
        .split("**What node_exporter already has.**")
        .nth(1)
        .expect("the README says what node_exporter already has");
    let names = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|row| {
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            let (ours, theirs) = (names(cells[1]), names(cells[2]));
            assert_eq!(ours.len(), theirs.len(), "{row}");
            (ours, theirs, cells[3].starts_with("kept"))
        })
        .collect()
}

/// The samples of an exposition by name (labels included), with their values.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            Some((series.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// node_exporter with its default collectors and zswaptop on this machine export the 12 values
/// the README lists; zswaptop still exports those it says it keeps, with node_exporter's values
/// (counters read between two of its scrapes; pages turned into bytes), and no longer those it
/// says are gone.
#[test]
fn node_exporter_has_what_the_readme_says() {
    let exporter = need!("prometheus-node-exporter");
    let table = readme_duplicates();
    let theirs: BTreeSet<&String> = table.iter().flat_map(|(_, t, _)| t).collect();
    assert_eq!(theirs.len(), 12, "{table:?}");
    let (_exporter, addr, _) = crate::metrics::node_exporter(&exporter, &[]);
    let node = || {
        let (code, _, body) = get(&addr, "/metrics", None);
        assert_eq!(code, 200, "node_exporter: {body}");
        samples(&body)
    };
    let (_serve, ours_addr) = serve(None);
    let before = node();
    let (_, _, text) = get(&ours_addr, "/metrics", None);
    let ours = samples(&text);
    let after = node();
    let page = String::from_utf8(
        std::process::Command::new("getconf")
            .arg("PAGESIZE")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .trim()
    .parse::<f64>()
    .unwrap();
    // What this build exports anywhere: a family it has on some tree.
    let mut families = BTreeSet::new();
    for tree in common::fixture_trees() {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_zswaptop"))
            .args(["--format", "prometheus", "--root"])
            .arg(&tree)
            .output()
            .unwrap();
        families.extend(sample_names(&String::from_utf8(out.stdout).unwrap()));
    }
    for (zswaptop, node_names, kept) in &table {
        for (z, n) in zswaptop.iter().zip(node_names) {
            let (lo, hi) = match (before.get(n), after.get(n)) {
                (Some(a), Some(b)) => (a.min(*b), a.max(*b)),
                _ => panic!("node_exporter's defaults lack {n}"),
            };
            if !kept {
                assert!(!families.contains(z), "{z} is still exported");
                continue;
            }
            let scale = if n.starts_with("node_vmstat_") {
                page
            } else {
                1.0
            };
            let v = *ours.get(z).unwrap_or_else(|| panic!("{z} is not exported"));
            // Gauges move between the reads: 1 % and a page of slack (the pool under another
            // test's load); counters only go up, so they lie between the two reads.
            let (rel, abs) = if z.ends_with("_total") {
                (1e-9, 0.0)
            } else {
                (0.01, page)
            };
            assert!(
                lo * scale * (1.0 - rel) - abs <= v && v <= hi * scale * (1.0 + rel) + abs,
                "{z} = {v}, {n} = {lo}..{hi} (× {scale})"
            );
        }
    }
}
