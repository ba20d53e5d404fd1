//! Tests that need something of the machine they run on: root (to become uid 65534), the live
//! kernel's zswap, python3 (the fixture generators). Without it a test says SKIPPED with the
//! reason (`common::skip`).

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::skip;

#[test]
fn live_as_unprivileged_user() {
    if zswaptop::sys::euid() != 0 {
        skip!("needs root to switch to uid 65534");
    }
    // Copy the binary where uid 65534 can execute it.
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("zswaptop");
    std::fs::copy(assert_cmd::cargo::cargo_bin("zswaptop"), &bin).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    use std::os::unix::process::CommandExt;
    // Another test's fork can hold the copy's write descriptor until its exec (ETXTBSY): retry.
    let run = || {
        Command::new(&bin)
            .args(["--once", "--json"])
            .uid(65534)
            .gid(65534)
            .current_dir("/")
            .output()
    };
    let mut out = run();
    for _ in 0..50 {
        match &out {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                out = run();
            }
            _ => break,
        }
    }
    let out = out.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["host"]["privileged"], false);
    if j["zswap"]["available"] != true {
        skip!("no zswap in this kernel");
    }
    assert!(
        j["zswap"]["debugfs"].is_null(),
        "uid 65534 cannot read debugfs"
    );
    // The pool still comes from meminfo (5.19+), and debugfs-only values are null, not 0.
    assert_eq!(j["zswap"]["pool_source"], "meminfo");
    assert!(j["zswap"]["pool_bytes"].is_u64());
    assert!(j["zswap"]["incompressible_bytes"].is_null());
    let unavailable = j["zswap"]["unavailable"].to_string();
    assert!(
        unavailable.contains("needs root")
            || unavailable.contains("not mounted")
            || unavailable.contains("not been enabled"),
        "{unavailable}"
    );
}

/// How a hand-made tree is made: `cp -a BASE T && rm -r T/REMOVE… && python3 GENERATOR T ARGS…`,
/// run in tests/fixtures (as each tree's README says).
struct Recipe {
    tree: &'static str,
    generator: &'static str,
    base: &'static str,
    remove: &'static [&'static str],
    args: &'static [&'static str],
}

const RECIPES: &[Recipe] = &[
    Recipe {
        tree: "depth-many-processes",
        generator: "depth-many-processes/make.py",
        base: "linux-6.18-writeback",
        remove: &["proc/7915"],
        // Its one captured input: the root memory.stat of the machine the tree was made on.
        args: &["depth-many-processes/sys/fs/cgroup/memory/memory.stat"],
    },
    Recipe {
        tree: "depth-multi-swap",
        generator: "depth-multi-swap/make.py",
        base: "linux-6.18-writeback",
        remove: &["proc/7915"],
        args: &[],
    },
    Recipe {
        tree: "depth-zram-writeback",
        generator: "depth-zram-writeback/make.py",
        base: "linux-6.18-zram",
        remove: &[],
        args: &[],
    },
    Recipe {
        tree: "depth-cgroup-v2",
        generator: "depth-cgroup-v2/make.py",
        base: "linux-6.18-writeback",
        remove: &["proc/7915"],
        args: &["t0"],
    },
    Recipe {
        tree: "depth-cgroup-v2-t1",
        generator: "depth-cgroup-v2/make.py",
        base: "linux-6.18-writeback",
        remove: &["proc/7915"],
        args: &["t1"],
    },
    Recipe {
        tree: "regress-pool-near-limit",
        generator: "regress-pool-near-limit/make.py",
        base: "linux-6.18-writeback",
        remove: &["proc/7915"],
        args: &["t0"],
    },
    Recipe {
        tree: "regress-pool-near-limit-t1",
        generator: "regress-pool-near-limit/make.py",
        base: "linux-6.18-writeback",
        remove: &["proc/7915"],
        args: &["t1"],
    },
    Recipe {
        tree: "regress-zram-room",
        generator: "regress-zram-room/make.py",
        base: "linux-6.18-zram",
        remove: &[],
        args: &["t0"],
    },
    Recipe {
        tree: "regress-zram-room-t1",
        generator: "regress-zram-room/make.py",
        base: "linux-6.18-zram",
        remove: &[],
        args: &["t1"],
    },
    Recipe {
        tree: "zram-writeback-idle",
        generator: "zram-writeback-idle/make.py",
        base: "depth-zram-writeback",
        remove: &[],
        args: &["idle"],
    },
    Recipe {
        tree: "zram-writeback-idle-t1",
        generator: "zram-writeback-idle/make.py",
        base: "depth-zram-writeback",
        remove: &[],
        args: &["idle-t1"],
    },
    Recipe {
        tree: "zram-writeback-done",
        generator: "zram-writeback-idle/make.py",
        base: "depth-zram-writeback",
        remove: &[],
        args: &["done"],
    },
    Recipe {
        tree: "zram-writeback-done-t1",
        generator: "zram-writeback-idle/make.py",
        base: "depth-zram-writeback",
        remove: &[],
        args: &["done-t1"],
    },
    Recipe {
        tree: "zoneinfo-256cpu",
        generator: "zoneinfo-256cpu/make.py",
        base: "linux-6.18-pcp",
        remove: &[],
        args: &["many"],
    },
    Recipe {
        tree: "zoneinfo-no-counts",
        generator: "zoneinfo-256cpu/make.py",
        base: "linux-6.18-pcp",
        remove: &[],
        args: &["nocounts"],
    },
    Recipe {
        tree: "zoneinfo-malformed",
        generator: "zoneinfo-256cpu/make.py",
        base: "linux-6.18-pcp",
        remove: &[],
        args: &["malformed"],
    },
];

/// A tree's own notes, not part of what zswaptop reads: not compared.
const NOT_GENERATED: [&str; 2] = ["README.md", "make.py"];

/// Every `make.py` under tests/fixtures re-run into a temporary directory: what it makes must be
/// the committed tree, byte for byte (symlinks by target).
#[test]
fn fixture_generators_make_the_committed_trees() {
    match Command::new("python3").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => skip!("python3 is not installed (the fixture generators are Python scripts)"),
    }
    let fixtures = common::fixture_dir("");
    let mut generators: Vec<String> = fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|d| fixtures.join(d).join("make.py").is_file())
        .map(|d| format!("{d}/make.py"))
        .collect();
    generators.sort();
    let mut known: Vec<String> = RECIPES.iter().map(|r| r.generator.to_string()).collect();
    known.sort();
    known.dedup();
    assert_eq!(
        generators, known,
        "every make.py under tests/fixtures needs a recipe here, and every recipe a make.py"
    );

    let tmp = tempfile::tempdir().unwrap();
    let mut problems = Vec::new();
    for r in RECIPES {
        let made = tmp.path().join(r.tree);
        common::copy_dir(&fixtures.join(r.base), &made);
        for p in r.remove {
            fs::remove_dir_all(made.join(p)).unwrap();
        }
        let out = Command::new("python3")
            .arg("-B")
            .arg(r.generator)
            .arg(&made)
            .args(r.args)
            .current_dir(&fixtures)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} {}: {}",
            r.generator,
            r.args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        let committed = fixtures.join(r.tree);
        for d in differences(&tree(&made), &tree(&committed)) {
            problems.push(format!("{}: {d}", r.tree));
        }
    }
    assert!(
        problems.is_empty(),
        "committed fixture trees differ from what their generators make \
         (re-run the recipe in each tree's README):\n{}",
        problems.join("\n")
    );
}

#[derive(PartialEq)]
enum Node {
    Dir,
    File(Vec<u8>),
    Link(PathBuf),
}

/// Every entry of a tree by its relative path, without the tree's own notes and Python caches.
fn tree(root: &Path) -> BTreeMap<PathBuf, Node> {
    fn walk(root: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, Node>) {
        for e in fs::read_dir(root.join(rel)).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            let top = rel.as_os_str().is_empty();
            if name == "__pycache__" || (top && NOT_GENERATED.iter().any(|n| name == *n)) {
                continue;
            }
            let path = rel.join(&name);
            let ty = e.file_type().unwrap();
            if ty.is_symlink() {
                out.insert(path, Node::Link(fs::read_link(e.path()).unwrap()));
            } else if ty.is_dir() {
                out.insert(path.clone(), Node::Dir);
                walk(root, &path, out);
            } else {
                out.insert(path, Node::File(fs::read(e.path()).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, Path::new(""), &mut out);
    out
}

/// What differs between the generated tree and the committed one, one line each.
fn differences(made: &BTreeMap<PathBuf, Node>, committed: &BTreeMap<PathBuf, Node>) -> Vec<String> {
    let mut out = Vec::new();
    for (path, m) in made {
        let p = path.display();
        match (m, committed.get(path)) {
            (_, None) => out.push(format!("{p}: made by the generator, not committed")),
            (m, Some(c)) if m == c => {}
            (Node::File(m), Some(Node::File(c))) => {
                let (m, c) = (String::from_utf8_lossy(m), String::from_utf8_lossy(c));
                let n = m.lines().count().max(c.lines().count());
                let line = |t: &str, i: usize| t.lines().nth(i).unwrap_or("").to_string();
                out.push(match (0..n).find(|&i| line(&m, i) != line(&c, i)) {
                    Some(i) => format!(
                        "{p}:{}: generator makes {:?}, committed has {:?}",
                        i + 1,
                        line(&m, i),
                        line(&c, i)
                    ),
                    None => format!("{p}: differs in line ends or the final newline"),
                });
            }
            (Node::Link(m), Some(Node::Link(c))) => out.push(format!(
                "{p}: generator links to {}, committed to {}",
                m.display(),
                c.display()
            )),
            _ => out.push(format!(
                "{p}: a different kind of entry (file, directory, link)"
            )),
        }
    }
    for path in committed.keys().filter(|p| !made.contains_key(*p)) {
        out.push(format!(
            "{}: committed, not made by the generator",
            path.display()
        ));
    }
    out
}
