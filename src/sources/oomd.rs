//! systemd-oomd: whether it runs (its process in `/proc`), since when, its swap limit
//! (`SwapUsedLimit=` in `oomd.conf` and its drop-ins) and the units it may kill on swap
//! (`ManagedOOMSwap=kill` in unit files and drop-ins), with when each swap area was made.
//!
//! oomd learns `ManagedOOMSwap=` from PID 1 over varlink (`io.systemd.ManagedOOM`), not from
//! the cgroup tree: under `/sys/fs/cgroup` it reads only the `user.oomd_avoid` /
//! `user.oomd_omit` xattrs (`ManagedOOMPreference=`) and writes `user.oomd_ooms` /
//! `user.oomd_kill` (systemd `src/oom/oomd-util.c`). So the units' settings are read where
//! systemd reads them: the unit files and their `.d` drop-ins.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;

/// The config search path of `config_parse_standard_file_with_dropins("systemd/oomd.conf")`, by
/// precedence: the first main file found is used; a drop-in name in an earlier directory masks
/// the same name in a later one, and drop-ins apply in file-name order after the main file.
pub const CONF_DIRS: [&str; 4] = [
    "etc/systemd",
    "run/systemd",
    "usr/local/lib/systemd",
    "usr/lib/systemd",
];

/// Where unit files live, by precedence (systemd's system unit search path, `/lib` for the
/// distributions that have not merged `/usr`).
pub const UNIT_DIRS: [&str; 7] = [
    "etc/systemd/system",
    "run/systemd/transient",
    "run/systemd/system",
    "usr/local/lib/systemd/system",
    "usr/lib/systemd/system",
    "lib/systemd/system",
    "etc/systemd/system.control",
];

/// The most unit files and drop-ins read (a distribution ships some hundreds).
const MAX_UNIT_FILES: usize = 8192;

/// systemd's built-in `SwapUsedLimit=` (`DEFAULT_SWAP_USED_LIMIT_PERCENT`, oomd-manager.h).
pub const DEFAULT_SWAP_USED_LIMIT_PERCENT: f64 = 90.0;

/// USER_HZ: `/proc/PID/stat` start times are in these ticks (100 on every architecture Linux
/// builds for userspace today).
const USER_HZ: f64 = 100.0;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OomdSample {
    /// The systemd-oomd process, or `None` when none runs; `Err` when `/proc` could not be listed.
    pub process: Option<OomdProcess>,
    /// `SwapUsedLimit=` as read (`90%`), and the file that set it; `None`: systemd's default.
    pub swap_used_limit: Option<(String, String)>,
    /// The config files read, in the order applied.
    pub config_files: Vec<String>,
    /// Units whose `ManagedOOMSwap=` is `kill`, with the file that said so.
    pub swap_kill_units: Vec<(String, String)>,
    /// Each swap area of `/proc/swaps` and when its inode was last written (Unix seconds:
    /// mkswap writes the header through it), where it could be looked at.
    pub swap_area_mtimes: Vec<(String, Option<i64>)>,
    /// The boot time (`/proc/stat` btime), to put the process's start on the wall clock.
    pub boot_unix: Option<i64>,
    /// What could not be read.
    pub errors: Vec<Unavailable>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OomdProcess {
    pub pid: u32,
    /// Seconds after boot it started (`/proc/PID/stat` field 22 ÷ USER_HZ).
    pub started_after_boot_seconds: f64,
}

/// Where a systemd-oomd can be: the directory of its socket unit's varlink socket
/// (`systemd-oomd.socket`: `ListenStream=/run/systemd/oom/io.systemd.ManagedOOM`, and
/// `systemd-oomd.service` `Requires=` it, so it exists while oomd runs), its service unit, or its
/// configuration (`oomd.conf`, `oomd.conf.d`), shipped with it. Not PID 1's own varlink socket
/// (`/run/systemd/io.systemd.ManagedOOM`, `io.system.ManagedOOM` before 250): PID 1 listens there
/// whether or not oomd is installed.
pub fn installed(root: &Root) -> bool {
    root.exists(&root.file("run/systemd/oom"))
        || UNIT_DIRS
            .iter()
            .any(|d| root.exists(&root.file(&format!("{d}/systemd-oomd.service"))))
        || CONF_DIRS.iter().any(|d| {
            root.exists(&root.file(&format!("{d}/oomd.conf")))
                || root.exists(&root.file(&format!("{d}/oomd.conf.d")))
        })
}

/// Read it all, oomd's files only where its process runs (nothing to judge otherwise); `/proc`
/// is searched for its process only where it [`installed`] (a comm read a process each full
/// sample, for nothing on a machine without it).
pub fn read(root: &Root, swaps: &[String]) -> OomdSample {
    let mut out = OomdSample::default();
    if !installed(root) {
        return out;
    }
    match find_process(root) {
        Ok(p) => out.process = p,
        Err(e) => out.errors.push(e),
    }
    if out.process.is_none() {
        return out;
    }
    read_config(root, &mut out);
    read_units(root, &mut out);
    out.boot_unix = root
        .read_text(&root.proc("stat"), &Reason::absent("no /proc/stat"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("btime ")?.trim().parse().ok())
        });
    out.swap_area_mtimes = swaps
        .iter()
        .map(|p| {
            let rel = p.trim_start_matches('/');
            (p.clone(), root.mtime(&root.file(rel)))
        })
        .collect();
    out
}

/// The systemd-oomd process: the first `/proc/PID/comm` that says `systemd-oomd`.
fn find_process(root: &Root) -> Reading<Option<OomdProcess>> {
    let proc_dir = root.proc("");
    let rd = root
        .read_dir(&proc_dir)
        .map_err(|e| crate::root::classify_io(&proc_dir, &e, &Reason::absent("no /proc")))?;
    let mut pids: Vec<u32> = rd
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    for pid in pids {
        let comm = root.read_text(
            &root.proc(&format!("{pid}/comm")),
            &Reason::absent("exited"),
        );
        if comm.as_deref().map(str::trim) != Ok("systemd-oomd") {
            continue;
        }
        let stat = root.read_text(
            &root.proc(&format!("{pid}/stat")),
            &Reason::absent("exited"),
        )?;
        let started = parse_start_ticks(&stat).ok_or_else(|| {
            Unavailable::malformed(
                &root.proc(&format!("{pid}/stat")),
                Some(1),
                "no start time (field 22)",
            )
        })?;
        return Ok(Some(OomdProcess {
            pid,
            started_after_boot_seconds: started as f64 / USER_HZ,
        }));
    }
    Ok(None)
}

/// Field 22 of `/proc/PID/stat`, counted after the `)` that closes the command name (which may
/// hold spaces and parentheses itself).
pub fn parse_start_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // Fields 3 onwards: field 22 is the 20th of them.
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// `[OOM] SwapUsedLimit=` (or its name before systemd 248, `SwapUsedLimitPercent=`) from the
/// main file and the drop-ins, the last assignment winning.
fn read_config(root: &Root, out: &mut OomdSample) {
    let mut files: Vec<PathBuf> = Vec::new();
    if let Some(main) = CONF_DIRS
        .iter()
        .map(|d| root.file(&format!("{d}/oomd.conf")))
        .find(|p| root.exists(p))
    {
        files.push(main);
    }
    let mut dropins: BTreeMap<String, PathBuf> = BTreeMap::new();
    for d in CONF_DIRS {
        let dir = root.file(&format!("{d}/oomd.conf.d"));
        for (name, path) in conf_files(root, &dir) {
            dropins.entry(name).or_insert(path);
        }
    }
    files.extend(dropins.into_values());
    for path in files {
        let text = match root.read_text(&path, &Reason::absent("vanished")) {
            Ok(t) => t,
            Err(e) => {
                out.errors.push(e);
                continue;
            }
        };
        let shown = shown_path(root, &path);
        for (key, value) in assignments(&text, "OOM") {
            if key == "SwapUsedLimit" || key == "SwapUsedLimitPercent" {
                out.swap_used_limit = if value.is_empty() {
                    None
                } else {
                    Some((value, shown.clone()))
                };
            }
        }
        out.config_files.push(shown);
    }
}

/// The units with `ManagedOOMSwap=kill`: unit files (`.slice`, `.service`, `.scope`) and their
/// drop-ins (`NAME.d/*.conf`), each unit's last assignment winning, higher-precedence
/// directories read last so that they win.
fn read_units(root: &Root, out: &mut OomdSample) {
    let mut values: BTreeMap<String, (String, String)> = BTreeMap::new();
    let mut read = 0usize;
    for d in UNIT_DIRS.iter().rev() {
        let dir = root.file(d);
        let Ok(rd) = root.read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<(String, PathBuf)> = rd
            .filter_map(Result::ok)
            .filter_map(|e| Some((e.file_name().to_str()?.to_string(), e.path().to_path_buf())))
            .collect();
        entries.sort();
        for (name, path) in entries {
            let (unit, files) = if let Some(unit) = name.strip_suffix(".d") {
                (unit.to_string(), conf_files(root, &path))
            } else {
                (name.clone(), vec![(name.clone(), path)])
            };
            if ![".slice", ".service", ".scope"]
                .iter()
                .any(|s| unit.ends_with(s))
            {
                continue;
            }
            for (_, file) in files {
                read += 1;
                if read > MAX_UNIT_FILES {
                    return;
                }
                let Ok(text) = root.read_text(&file, &Reason::absent("vanished")) else {
                    continue;
                };
                for (key, value) in assignments(&text, "") {
                    if key == "ManagedOOMSwap" {
                        values.insert(unit.clone(), (value, shown_path(root, &file)));
                    }
                }
            }
        }
    }
    out.swap_kill_units = values
        .into_iter()
        .filter(|(_, (v, _))| v == "kill")
        .map(|(unit, (_, file))| (unit, file))
        .collect();
}

/// The `*.conf` files of `dir`, by name.
fn conf_files(root: &Root, dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(rd) = root.read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = rd
        .filter_map(Result::ok)
        .filter(|e| e.is_file())
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            name.ends_with(".conf")
                .then(|| (name, e.path().to_path_buf()))
        })
        .collect();
    out.sort();
    out
}

/// `Key=Value` lines of an INI-style systemd file, in `section` (any, when empty), comments
/// (`#`, `;`) and other sections skipped.
pub fn assignments(text: &str, section: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.trim().to_string();
            continue;
        }
        if !section.is_empty() && current != section {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            out.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    out
}

/// The path as on the machine (the `--root` prefix taken off).
fn shown_path(root: &Root, path: &Path) -> String {
    match path.strip_prefix(root.base()) {
        Ok(rel) => format!("/{}", rel.display()),
        Err(_) => path.display().to_string(),
    }
}

/// `90%`, `90.5%`, `9050‱`… as a percentage.
pub fn parse_percent(v: &str) -> Option<f64> {
    let v = v.trim();
    let p = if let Some(n) = v.strip_suffix('%') {
        n.trim().parse::<f64>().ok()?
    } else if let Some(n) = v.strip_suffix('‰') {
        n.trim().parse::<f64>().ok()? / 10.0
    } else if let Some(n) = v.strip_suffix('‱') {
        n.trim().parse::<f64>().ok()? / 100.0
    } else {
        return None;
    };
    (0.0..=100.0).contains(&p).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A systemd-oomd process where none of oomd's files is: not looked for (the scan of every
    /// process's comm is skipped); each of its files alone makes it looked for and found.
    #[test]
    fn oomd_is_looked_for_only_where_it_is_installed() {
        let t = tempfile::tempdir().unwrap();
        let pid = t.path().join("proc/812");
        std::fs::create_dir_all(&pid).unwrap();
        std::fs::write(pid.join("comm"), "systemd-oomd\n").unwrap();
        std::fs::write(
            pid.join("stat"),
            "812 (systemd-oomd) S 1 812 812 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 1234 1 1\n",
        )
        .unwrap();
        let root = Root::at(t.path());
        assert!(!installed(&root));
        assert_eq!(read(&root, &[]).process, None, "not looked for");
        for (i, file) in [
            "run/systemd/oom/io.systemd.ManagedOOM",
            "usr/lib/systemd/system/systemd-oomd.service",
            "lib/systemd/system/systemd-oomd.service",
            "etc/systemd/oomd.conf",
            "usr/lib/systemd/oomd.conf.d/10-oomd-defaults.conf",
        ]
        .iter()
        .enumerate()
        {
            let one = t.path().join(format!("t{i}"));
            let copy = one.join("proc/812");
            std::fs::create_dir_all(&copy).unwrap();
            for f in ["comm", "stat"] {
                std::fs::copy(pid.join(f), copy.join(f)).unwrap();
            }
            let path = one.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "").unwrap();
            let root = Root::at(&one);
            assert!(installed(&root), "{file}");
            let found = read(&root, &[]).process.map(|p| p.pid);
            assert_eq!(found, Some(812), "{file}");
        }
        // PID 1's own varlink socket is on every systemd machine: no sign of oomd.
        let pid1 = t.path().join("pid1");
        std::fs::create_dir_all(pid1.join("run/systemd")).unwrap();
        std::fs::write(pid1.join("run/systemd/io.systemd.ManagedOOM"), "").unwrap();
        assert!(!installed(&Root::at(&pid1)));
    }

    #[test]
    fn start_time_after_a_name_with_spaces() {
        let stat = "812 (systemd-oomd) S 1 812 812 0 -1 4194560 1200 0 0 0 5 3 0 0 20 0 1 0 1234 \
                    20000000 900 18446744073709551615";
        assert_eq!(parse_start_ticks(stat), Some(1234));
        let odd = "9 (a) b) c) S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 777 1 2";
        assert_eq!(parse_start_ticks(odd), Some(777));
    }

    #[test]
    fn percent_forms() {
        assert_eq!(parse_percent("90%"), Some(90.0));
        assert_eq!(parse_percent(" 80.5 % "), Some(80.5));
        assert_eq!(parse_percent("900‰"), Some(90.0));
        assert_eq!(parse_percent("150%"), None);
        assert_eq!(parse_percent("90"), None);
    }

    #[test]
    fn sections_and_comments() {
        let t = "[OOM]\n#SwapUsedLimit=10%\nSwapUsedLimit=80%\n[Other]\nSwapUsedLimit=1%\n";
        assert_eq!(
            assignments(t, "OOM"),
            vec![("SwapUsedLimit".to_string(), "80%".to_string())]
        );
    }
}
