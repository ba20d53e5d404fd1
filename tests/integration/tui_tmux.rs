//! End to end: the real binary in a real terminal (tmux), as a user would run it.
//!
//! Starts the dashboard from a shell in a tmux pane, reads the screen, presses `?`, visits every
//! view (typing a filter in the processes view), shrinks the window to 40×10 and back, quits
//! with `q`, and checks the terminal was given back (alternate screen off, the shell's prompt
//! and the exit status on screen). Then the SSH-drop cases: the
//! pane killed under the process (its terminal hangs up) and SIGHUP sent to it; either way it
//! must be gone within about a second. And `--watch` on a terminal: its header again on a new
//! height, Ctrl-C ending it with status 0.
//!
//! Each test uses its own tmux server (`-L`), so nothing else running in tmux is touched. When
//! tmux is missing it is installed with apt-get if the test runs as root; otherwise the tests
//! say SKIPPED with the reason (`common::skip`).

use crate::common::skip;

use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::thread::sleep;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_zswaptop");
const WAIT: Duration = Duration::from_secs(10);

fn fixture() -> String {
    format!(
        "{}/tests/fixtures/linux-6.18-loaded",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn run(cmd: &str, args: &[&str]) -> Option<Output> {
    Command::new(cmd).args(args).output().ok()
}

fn have_tmux() -> bool {
    run("tmux", &["-V"]).is_some_and(|o| o.status.success())
}

/// `Ok` when tmux can be used, else why not.
pub(crate) fn tmux_ready() -> Result<(), String> {
    static READY: OnceLock<Result<(), String>> = OnceLock::new();
    READY
        .get_or_init(|| {
            if have_tmux() {
                return Ok(());
            }
            let root = run("id", &["-u"])
                .is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
            if !root {
                return Err(
                    "tmux is not installed, and the test is not root so it does not install it"
                        .into(),
                );
            }
            let install =
                || run("apt-get", &["install", "-y", "tmux"]).is_some_and(|o| o.status.success());
            if !install() {
                let _ = run("apt-get", &["update"]);
                install();
            }
            if have_tmux() {
                Ok(())
            } else {
                Err("tmux is not installed and apt-get could not install it".into())
            }
        })
        .clone()
}

/// The running test says SKIPPED and returns unless tmux can be used.
macro_rules! require_tmux {
    () => {
        if let Err(why) = tmux_ready() {
            skip!("{why}");
        }
    };
}

/// A tmux server of our own with one session; killed on drop.
pub(crate) struct Tmux {
    socket: String,
}

impl Tmux {
    /// A session running `cmd` in a `cols`×`rows` window.
    fn start(name: &str, cols: u16, rows: u16, cmd: &str) -> Tmux {
        let t = Tmux {
            socket: format!("zswaptop-test-{name}-{}", std::process::id()),
        };
        let (c, r) = (cols.to_string(), rows.to_string());
        let out = t.tmux(&[
            "-u",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &c,
            "-y",
            &r,
            cmd,
        ]);
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .env("LANG", "C.UTF-8")
            .env_remove("TMUX")
            .output()
            .expect("running tmux")
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "t"]).stdout).into_owned()
    }

    /// The screen with its SGR escapes (`capture-pane -e`).
    fn styled_screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-e", "-t", "t"]).stdout)
            .into_owned()
    }

    fn display(&self, what: &str) -> String {
        String::from_utf8_lossy(&self.tmux(&["display", "-p", "-t", "t", what]).stdout)
            .trim()
            .to_string()
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Type a shell command and press Enter.
    pub(crate) fn type_line(&self, line: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", line]);
        self.keys(&["Enter"]);
    }

    fn resize(&self, cols: u16, rows: u16) {
        let (c, r) = (cols.to_string(), rows.to_string());
        self.tmux(&["resize-window", "-t", "t", "-x", &c, "-y", &r]);
    }

    /// Wait until the screen satisfies `ok`; the last screen either way.
    pub(crate) fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let end = Instant::now() + WAIT;
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            if Instant::now() > end {
                panic!("timed out waiting for {what}; the screen was:\n{s}");
            }
            sleep(Duration::from_millis(50));
        }
    }

    fn pane_pid(&self) -> u32 {
        self.display("#{pane_pid}").parse().expect("pane pid")
    }

    fn alternate_screen(&self) -> bool {
        self.display("#{alternate_on}") == "1"
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// The process's state letter from /proc, `None` once it is gone (a zombie counts as gone:
/// it has exited and only waits for its parent).
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !matches!(
            s.rsplit(") ").next().and_then(|r| r.chars().next()),
            Some('Z' | 'X')
        ),
        Err(_) => false,
    }
}

fn is_zswaptop(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "zswaptop")
}

/// The zswaptop started by the shell `shell_pid`.
fn child_zswaptop(shell_pid: u32) -> u32 {
    let end = Instant::now() + WAIT;
    loop {
        let kids = std::fs::read_to_string(format!("/proc/{shell_pid}/task/{shell_pid}/children"))
            .unwrap_or_default();
        if let Some(p) = kids
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .find(|&p| is_zswaptop(p))
        {
            return p;
        }
        assert!(Instant::now() < end, "zswaptop did not start");
        sleep(Duration::from_millis(50));
    }
}

/// How long the process took to go away, up to `limit`.
fn gone_within(pid: u32, limit: Duration) -> Option<Duration> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if !running(pid) {
            return Some(t.elapsed());
        }
        sleep(Duration::from_millis(20));
    }
    None
}

pub(crate) fn shell_session(name: &str) -> Tmux {
    shell_session_in(name, "sh", (100, 30))
}

/// A shell session of `cols` × `rows`.
pub(crate) fn shell_session_sized(name: &str, cols: u16, rows: u16) -> Tmux {
    shell_session_in(name, "sh", (cols, rows))
}

/// A tmux session running `shell` (a command line) with a bare environment and a `READY$ ` prompt.
fn shell_session_in(name: &str, shell: &str, (cols, rows): (u16, u16)) -> Tmux {
    let t = Tmux::start(
        name,
        cols,
        rows,
        &format!("env -i PATH=/usr/bin:/bin LANG=C.UTF-8 TERM=tmux-256color {shell}"),
    );
    t.type_line("PS1='READY$ '");
    t.type_line("clear");
    t.wait_for("the shell prompt", |s| s.trim_end().ends_with("READY$"));
    t
}

const PANELS: [&str; 9] = [
    "zswaptop",
    "zswap ",
    "PSI memory",
    "Real memory",
    "free says",
    "compressed swap",
    "swap traffic",
    "Swap",
    "q quit",
];

/// Every view by its number key, a filter typed and cleared, and back to the overview.
fn visit_views(t: &Tmux) {
    t.keys(&["3"]);
    t.wait_for("the devices view", |s| {
        s.contains("Swap devices") && s.contains("zram devices")
    });
    t.keys(&["4"]);
    t.wait_for("the diagnostics view", |s| {
        s.contains("Diagnostics") && (s.contains("Tunables") || s.contains("lines 1-"))
    });
    t.keys(&["5"]);
    t.wait_for("the processes view", |s| {
        s.contains("Processes by swap") && (s.contains("have swap") || s.contains("no process"))
    });
    // q typed into the filter prompt is text, not quit.
    t.keys(&["/", "q", "x"]);
    t.wait_for("the filter prompt", |s| s.contains("filter: qx"));
    t.keys(&["Escape"]);
    t.wait_for("the filter cleared", |s| {
        s.contains("/ filter") && !s.contains("filter: qx")
    });
    t.keys(&["6"]);
    t.wait_for("the cgroups view", |s| {
        s.contains("cgroups")
            && (s.contains("cgroup v1") || s.contains("cgroup v2") || s.contains("(v2)"))
    });
    t.keys(&["Tab"]);
    t.wait_for("Tab wraps to the overview", |s| s.contains("Real memory"));
}

/// What the dashboard shows at every size it draws at, whatever the machine's state: the
/// header, the memory bar, the key line. Which other panels fit depends on the state (at
/// 80×24 on a machine with zswap, zram and a disk swap loaded, the findings take header lines
/// and the zram panel the place of the swap traffic graphs).
const ALWAYS: [&str; 4] = ["zswaptop ", "kernel ", "Real memory", "q quit"];

/// Start, look, help, resize, quit: the whole session of a user. `live`: on this machine,
/// whose state decides which panels fit (then only [`ALWAYS`] is looked for); else on a
/// fixture tree, every panel where it always is.
fn session(name: &str, args: &str, expect: &[&str], live: bool) {
    let panels: &[&str] = if live { &ALWAYS } else { &PANELS };
    let t = shell_session(name);
    t.type_line(&format!("{BIN} {args}; echo EXIT=$?"));
    let s = t.wait_for("the dashboard", |s| panels.iter().all(|p| s.contains(p)));
    for e in expect {
        assert!(s.contains(e), "missing {e:?}:\n{s}");
    }
    assert!(
        t.alternate_screen(),
        "the dashboard should use the alternate screen"
    );

    t.keys(&["?"]);
    t.wait_for("the help", |s| {
        s.contains("Keys") && s.contains("quit") && s.contains("pause")
    });
    t.keys(&["?"]);
    t.wait_for("the help to close", |s| {
        !s.contains("Keys") && s.contains("Real memory")
    });

    visit_views(&t);

    t.resize(40, 10);
    t.wait_for("the too-small notice", |s| s.contains("too small"));
    t.resize(100, 30);
    t.wait_for("the dashboard again", |s| {
        s.contains("Real memory") && !s.contains("too small")
    });
    t.resize(80, 24);
    // At 80×24 the graphs give way to the findings when there are any (a machine without a
    // swap area has one: zswap has nowhere to write back).
    t.wait_for("80x24", |s| {
        !s.contains("too small")
            && panels
                .iter()
                .all(|p| s.contains(p) || (*p == "swap traffic" && s.contains("─ Findings")))
    });

    t.keys(&["q"]);
    let s = t.wait_for("the shell back", |s| {
        s.contains("EXIT=0") && s.trim_end().ends_with("READY$")
    });
    assert!(
        !t.alternate_screen(),
        "alternate screen still on after q:\n{s}"
    );
    // The shell's screen is back: the prompt the command was typed at, and a new one.
    assert!(s.matches("READY$").count() >= 2, "{s}");
}

#[test]
fn fixture_tree_session() {
    require_tmux!();
    let f = fixture();
    assert!(Path::new(&f).is_dir());
    session(
        "fixture",
        &format!("--root {f}"),
        &[
            "zswap on",
            "compressor lzo",
            "498.7 MiB",
            "974.3 MiB",
            "/swapfile-test",
        ],
        false,
    );
}

#[test]
fn live_session() {
    require_tmux!();
    session("live", "", &["kernel "], true);
}

#[test]
fn ascii_session_draws_only_ascii() {
    require_tmux!();
    let t = shell_session("ascii");
    t.type_line(&format!("{BIN} --ascii --root {}; echo EXIT=$?", fixture()));
    let s = t.wait_for("the dashboard", |s| s.contains("Real memory"));
    assert!(s.is_ascii(), "{s}");
    t.keys(&["q"]);
    t.wait_for("the shell back", |s| s.contains("EXIT=0"));
}

#[test]
fn killed_terminal_ends_it() {
    require_tmux!();
    // The dashboard is the pane's own process: killing the pane hangs its terminal up, as an
    // SSH connection that drops does.
    let t = Tmux::start(
        "hangup",
        100,
        30,
        &format!("exec {BIN} --root {}", fixture()),
    );
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    let pid = t.pane_pid();
    assert!(is_zswaptop(pid) && running(pid));
    t.tmux(&["kill-session", "-t", "t"]);
    let took = gone_within(pid, Duration::from_millis(1500));
    assert!(
        took.is_some(),
        "zswaptop still running 1.5 s after its terminal went away"
    );
}

#[test]
fn sighup_ends_it_and_restores_the_terminal() {
    require_tmux!();
    let t = shell_session("sighup");
    t.type_line(&format!("{BIN}; echo EXIT=$?"));
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    let pid = child_zswaptop(t.pane_pid());
    let _ = Command::new("kill")
        .args(["-HUP", &pid.to_string()])
        .status();
    assert!(
        gone_within(pid, Duration::from_millis(1500)).is_some(),
        "still running after SIGHUP"
    );
    let s = t.wait_for("the shell back", |s| {
        s.contains("EXIT=129") && s.trim_end().ends_with("READY$")
    });
    assert!(
        !t.alternate_screen(),
        "alternate screen still on after SIGHUP:\n{s}"
    );
}

#[test]
fn sigterm_ends_it_and_restores_the_terminal() {
    require_tmux!();
    let t = shell_session("sigterm");
    t.type_line(&format!("{BIN} --root {}; echo EXIT=$?", fixture()));
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    let pid = child_zswaptop(t.pane_pid());
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    assert!(
        gone_within(pid, Duration::from_millis(1500)).is_some(),
        "still running after SIGTERM"
    );
    t.wait_for("the shell back", |s| s.contains("EXIT=143"));
    assert!(!t.alternate_screen());
}

#[test]
fn idle_dashboard_does_not_spin() {
    require_tmux!();
    let t = Tmux::start(
        "idle",
        100,
        30,
        &format!("exec {BIN} -i 0.5 --root {}", fixture()),
    );
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    let pid = t.pane_pid();
    let ticks = |pid: u32| -> u64 {
        let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // After "pid (comm) ", field 3 (the state) comes first: utime and stime, fields 14
        // and 15, are at 11 and 12.
        let f: Vec<&str> = s.rsplit(") ").next().unwrap_or("").split(' ').collect();
        let n = |i: usize| f.get(i).and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
        n(11) + n(12)
    };
    let a = ticks(pid);
    sleep(Duration::from_secs(3));
    let used = ticks(pid) - a;
    // 3 s is 300 ticks at 100 Hz; a spinning loop would use about that much.
    assert!(used < 60, "used {used} ticks of CPU in 3 s");
}

#[test]
fn hang_up_without_sighup_ends_it() {
    require_tmux!();
    if run("setsid", &["--version"]).is_none() {
        skip!("no setsid to start zswaptop outside the terminal's session");
    }
    // In a session of its own the process gets no SIGHUP when the terminal goes: it has to
    // notice the hang-up on the terminal itself, and not spin on it.
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let t = shell_session("nosighup");
    t.type_line(&format!(
        "setsid -w sh -c 'echo $$ > {}; exec {BIN} --root {}'",
        pidfile.display(),
        fixture()
    ));
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(is_zswaptop(pid));
    t.tmux(&["kill-session", "-t", "t"]);
    assert!(
        gone_within(pid, Duration::from_millis(1500)).is_some(),
        "zswaptop still running 1.5 s after its terminal hung up"
    );
}

/// Whether a screen captured with its escapes sets a foreground or background colour
/// (SGR 30–38, 40–48, 90–97, 100–107; not bold, dim, reverse or the defaults 39/49).
fn sets_a_colour(styled: &str) -> bool {
    styled.split("\x1b[").skip(1).any(|seq| {
        let Some(end) = seq.find('m') else {
            return false;
        };
        seq[..end].split([';', ':']).any(|p| {
            matches!(
                p.parse::<u16>(),
                Ok(30..=38 | 40..=48 | 90..=97 | 100..=107)
            )
        })
    })
}

#[test]
fn colour_follows_color_and_no_color() {
    require_tmux!();
    for (i, (env, flags, colour)) in [
        ("-u NO_COLOR", "", true),
        ("NO_COLOR=1", "", false),
        ("-u NO_COLOR", "--color=never", false),
        ("-u NO_COLOR", "--no-color", false),
        ("NO_COLOR=1", "--color=always", true),
    ]
    .into_iter()
    .enumerate()
    {
        let t = Tmux::start(
            &format!("colour{i}"),
            100,
            30,
            &format!("exec env {env} {BIN} {flags} --root {}", fixture()),
        );
        t.wait_for("the dashboard", |s| s.contains("Real memory"));
        let styled = t.styled_screen();
        assert_eq!(
            sets_a_colour(&styled),
            colour,
            "env {env} zswaptop {flags}:\n{styled}"
        );
    }
}

/// Ctrl-Z suspends the dashboard as it does htop: the shell says Stopped and has the terminal
/// back in its own modes; `fg` brings the dashboard back, drawn in full and answering keys at
/// once. The same after `kill -TSTP` from elsewhere.
#[test]
fn ctrl_z_suspends_and_fg_resumes() {
    require_tmux!();
    let t = shell_session("suspend");
    // No `; echo` after it: a shell would run that as soon as the job stops.
    t.type_line(&format!("{BIN} --root {}", fixture()));
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    let pid = child_zswaptop(t.pane_pid());

    t.keys(&["C-z"]);
    let s = t.wait_for("the shell to say Stopped", |s| {
        s.contains("Stopped") && s.trim_end().ends_with("READY$")
    });
    assert!(
        !t.alternate_screen(),
        "alternate screen on while stopped:\n{s}"
    );
    assert!(running(pid), "it stopped, it did not end:\n{s}");
    // The shell reads a line in cooked mode: the command echoes as typed.
    t.type_line("fg");
    t.wait_for("the dashboard again", |s| s.contains("Real memory"));
    assert!(t.alternate_screen());

    // Stopped from outside, the way a job-control shell's `kill -TSTP` does.
    let _ = Command::new("kill")
        .args(["-TSTP", &pid.to_string()])
        .status();
    t.wait_for("the shell to say Stopped", |s| {
        s.matches("Stopped").count() >= 2 && s.trim_end().ends_with("READY$")
    });
    t.type_line("fg");
    t.wait_for("the dashboard again", |s| s.contains("Real memory"));

    // One q, with no Enter: raw mode is back.
    t.keys(&["q"]);
    t.wait_for("the shell back", |s| {
        s.matches("READY$").count() >= 4 && s.trim_end().ends_with("READY$")
    });
    assert!(gone_within(pid, Duration::from_secs(2)).is_some());
    assert!(!t.alternate_screen());
    t.type_line("echo EXIT=$?");
    t.wait_for("its exit status", |s| s.contains("EXIT=0"));
}

/// Stopped by a plain SIGSTOP from outside (not Ctrl-Z: the dashboard is not told), bash puts
/// its own terminal modes back while the job is stopped. `bg` continues it in the background,
/// where it stops again (SIGTTOU) instead of drawing over the shell; after `fg` it takes raw mode
/// again for real: one `q` without Enter ends it.
#[test]
fn sigstop_from_outside_and_fg_takes_raw_mode_back() {
    require_tmux!();
    if run("bash", &["--version"]).is_none() {
        skip!("no bash: the job-control shell that resets the terminal's modes");
    }
    let t = shell_session_in("sigstop", "bash --norc --noprofile -i", (100, 30));
    t.type_line(&format!("{BIN} --root {} -i 0.1", fixture()));
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    let pid = child_zswaptop(t.pane_pid());

    let _ = Command::new("kill")
        .args(["-STOP", &pid.to_string()])
        .status();
    // Written over the dashboard (still on the alternate screen): the rest of the prompt's line
    // is what the dashboard had drawn there.
    t.wait_for("the shell to say Stopped", |s| {
        s.contains("Stopped") && s.lines().any(|l| l.starts_with("READY$"))
    });
    // Continued in the background, it must not draw over the shell: setting raw mode stops it
    // again (SIGTTOU) until it is in the foreground.
    t.type_line("bg");
    t.wait_for("bg's line", |s| s.contains(" &"));
    sleep(Duration::from_millis(500));
    t.keys(&["Enter"]);
    t.wait_for("the shell to say Stopped again", |s| {
        s.matches("Stopped").count() >= 2 && s.contains(" &")
    });
    t.type_line("fg");
    // Drawn again, over what the shell wrote.
    t.wait_for("the dashboard again", |s| {
        s.contains("Real memory") && !s.contains("Stopped")
    });
    assert!(t.alternate_screen());

    // One q, with no Enter: raw mode is back.
    t.keys(&["q"]);
    let gone = gone_within(pid, Duration::from_secs(3));
    if gone.is_none() {
        let _ = Command::new("kill").arg(pid.to_string()).status();
    }
    assert!(
        gone.is_some(),
        "a single q did not end it after fg; the screen:\n{}",
        t.screen()
    );
    assert!(!t.alternate_screen());
    t.type_line("echo EXIT=$?");
    t.wait_for("its exit status", |s| s.contains("EXIT=0"));
}

/// `--watch` on a terminal: the header again when the window's height changes (and not before),
/// and SIGINT (Ctrl-C) ends it with status 0.
#[test]
fn watch_repeats_its_header_when_the_height_changes() {
    require_tmux!();
    let t = shell_session("watch");
    t.type_line(&format!(
        "{BIN} --watch -i 0.2 --count 10 --root {}; echo EXIT=$?",
        fixture()
    ));
    // Rows begin with the date and time, `2026-11-26T05:31:13+00:00`; the header's second line
    // with the time column's unit, `local`.
    let rows = |s: &str| {
        s.lines()
            .filter(|l| {
                let b = l.as_bytes();
                b.len() > 25
                    && b[4] == b'-'
                    && b[10] == b'T'
                    && b[13] == b':'
                    && b[..4].iter().all(u8::is_ascii_digit)
            })
            .count()
    };
    let headers = |s: &str| s.lines().filter(|l| l.starts_with("local ")).count();
    t.wait_for("three rows", |s| rows(s) >= 3);
    let screen = t.screen();
    assert_eq!(headers(&screen), 1, "{screen}");
    // Wide enough for a row on one line: ten rows and two headers on the screen.
    t.resize(200, 28);
    let screen = t.wait_for("the end", |s| s.contains("EXIT=0"));
    assert_eq!(headers(&screen), 2, "{screen}");
    assert_eq!(rows(&screen), 10, "{screen}");

    t.type_line("clear");
    t.type_line(&format!(
        "{BIN} --watch -i 0.2 --root {}; echo EXIT=$?",
        fixture()
    ));
    t.wait_for("a row", |s| rows(s) >= 2);
    t.keys(&["C-c"]);
    t.wait_for("the shell back", |s| s.contains("EXIT=0"));
}

/// A recording of 15 minutes at 1 s from 2026-11-22T03:00:00Z (the idle and the loaded fixture
/// in turn), written with the store.
fn fifteen_minutes(path: &Path) {
    let root = |n: &str| {
        zswaptop::root::Root::at(format!("{}/tests/fixtures/{n}", env!("CARGO_MANIFEST_DIR")))
    };
    let idle = zswaptop::sources::collect(&root("linux-6.18-idle"));
    let loaded = zswaptop::sources::collect(&root("linux-6.18-loaded"));
    let mut w =
        zswaptop::record::Writer::open(path, zswaptop::record::WriterOptions::default()).unwrap();
    for i in 0..900u64 {
        let mut s = if i % 2 == 0 {
            idle.clone()
        } else {
            loaded.clone()
        };
        s.unix_ms = 1_795_316_400_000 + i * 1000;
        s.monotonic_ns = 1_000_000_000_000 + i * 1_000_000_000;
        w.append(&s).unwrap();
    }
    w.sync().unwrap();
}

/// `zswaptop replay`: the REPLAY header with the sample's time and host, a step, jumps of ten
/// minutes and one, play at x2 and pause, go to a time, the replay keys in the help.
#[test]
fn replay_seeks_steps_and_pauses() {
    require_tmux!();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.zsr");
    fifteen_minutes(&path);
    let t = shell_session("replay");
    t.type_line(&format!(
        "TZ=UTC {BIN} replay {}; echo EXIT=$?",
        path.display()
    ));
    let at = |what: &str, time: &str, pos: &str| {
        let (time, pos) = (time.to_string(), format!(" {pos}/900 "));
        t.wait_for(what, move |s| {
            let top = s.lines().next().unwrap_or("");
            top.contains("REPLAY") && top.contains(&time) && top.contains(&pos)
        })
    };
    let s = at("the first sample", "2026-11-22T03:00:00.000Z", "1");
    assert!(s.lines().next().unwrap().contains("host "), "{s}");
    assert!(s.contains("paused x1"), "{s}");
    t.keys(&["."]);
    at("one step", "03:00:01.000Z", "2");
    t.keys(&["F"]);
    at("ten minutes on", "03:10:01.000Z", "602");
    t.keys(&["b"]);
    at("a minute back", "03:09:01.000Z", "542");
    t.keys(&[","]);
    at("a step back", "03:09:00.000Z", "541");
    t.keys(&["+", "Space"]);
    t.wait_for("playing at x2", |s| {
        let top = s.lines().next().unwrap_or("");
        top.contains("x2") && !top.contains("paused") && !top.contains(" 541/900 ")
    });
    t.keys(&["Space"]);
    let s = t.wait_for("paused", |s| s.contains("paused x2"));
    let top = s.lines().next().unwrap().to_string();
    sleep(Duration::from_millis(800));
    assert_eq!(
        t.screen().lines().next().unwrap(),
        top,
        "paused: the cursor stays"
    );
    t.keys(&["g"]);
    t.wait_for("the go-to prompt", |s| s.contains("go to"));
    t.type_line("03:05:00");
    at("the time asked", "03:05:00.000Z", "301");
    t.keys(&["?"]);
    t.wait_for("the replay keys in the help", |s| {
        s.contains("replay: play / pause") && s.contains("replay: go to a time")
    });
    t.keys(&["?"]);
    t.wait_for("the help closed", |s| !s.contains("replay: play / pause"));
    t.keys(&["q"]);
    t.wait_for("the shell back", |s| s.contains("EXIT=0"));
}

/// `--record`: every sample the dashboard took is in the recording when it quits.
#[test]
fn the_dashboard_records_what_it_samples() {
    require_tmux!();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dash.zsr");
    let t = shell_session("record");
    t.type_line(&format!(
        "{BIN} -i 0.1 --root {} --record {}; echo EXIT=$?",
        fixture(),
        path.display()
    ));
    t.wait_for("the dashboard", |s| s.contains("Real memory"));
    sleep(Duration::from_millis(700));
    t.keys(&["q"]);
    t.wait_for("the shell back", |s| s.contains("EXIT=0"));
    let r = zswaptop::record::Reader::open(&path).unwrap();
    assert!(r.len() >= 4, "{} samples recorded", r.len());
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
}
