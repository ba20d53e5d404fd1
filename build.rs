//! Sets `ZSWAPTOP_VERSION`: the crate's version, with the git revision when built from a
//! checkout (`0.1.0 (3f2c1ab)`), the plain version otherwise (a crate tarball, no git, an error).
//!
//! Builds the BPF programs (src/sources/bpf/swapin.bpf.c) with clang (`$CLANG`, else `clang`)
//! into `$OUT_DIR/swapin.bpf.o` and sets `cfg(zswaptop_bpf)` when that works. Without clang the
//! build goes on without them (a cargo warning), and the swap-in latency section says so.
//!
//! Cargo re-runs this only when the checkout's HEAD or the branch it points at moves, not on
//! every build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The files whose change means another revision: HEAD, the branch it names, packed refs.
fn watched(dir: &Path) -> Vec<PathBuf> {
    let abs = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() { p } else { dir.join(p) }
    };
    let mut files = Vec::new();
    if let Some(git_dir) = git(dir, &["rev-parse", "--git-dir"]).map(abs) {
        files.push(git_dir.join("HEAD"));
    }
    if let Some(common) = git(dir, &["rev-parse", "--git-common-dir"]).map(abs) {
        if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"]) {
            files.push(common.join(branch));
        }
        files.push(common.join("packed-refs"));
    }
    // A path that does not exist would make cargo re-run this on every build.
    files.retain(|f| f.exists());
    files
}

/// `clang -target bpf -O2 -g`, twice: the lean fentry set (`swapin.bpf.o`) and the kprobe
/// fallback (`swapin-kprobe.bpf.o`, `-DKPROBES`, which reads the return register of the
/// target's `struct pt_regs`). Each object carries its BTF (aya needs it for the maps and the
/// CO-RE relocations). Nothing binary is committed: the objects are made from source on every
/// build that changes it.
fn build_bpf() {
    const SRC: &str = "src/sources/bpf/swapin.bpf.c";
    println!("cargo::rustc-check-cfg=cfg(zswaptop_bpf)");
    println!("cargo:rerun-if-changed={SRC}");
    println!("cargo:rerun-if-env-changed=CLANG");
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let clang = std::env::var_os("CLANG").unwrap_or_else(|| "clang".into());
    let arch = match std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() {
        Ok("x86_64") => "-D__TARGET_ARCH_x86",
        Ok("aarch64") => "-D__TARGET_ARCH_arm64",
        Ok(other) => {
            println!(
                "cargo:warning=no BPF programs for {other} (their kprobes read x86_64's or arm64's registers): zswaptop is built without swap-in latency"
            );
            return;
        }
        Err(_) => return,
    };
    let mut built = true;
    for (obj, extra) in [
        ("swapin.bpf.o", &[][..]),
        ("swapin-kprobe.bpf.o", &["-DKPROBES", arch][..]),
    ] {
        let run = Command::new(&clang)
            .args(["-target", "bpf", "-O2", "-g", "-Wall", "-c", SRC])
            .args(extra)
            .arg("-o")
            .arg(out.join(obj))
            .output();
        match run {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                let err = String::from_utf8_lossy(&o.stderr);
                let first = err.lines().next().unwrap_or("").to_string();
                println!(
                    "cargo:warning=the BPF programs did not build ({} failed on {obj}: {first}); zswaptop is built without swap-in latency",
                    PathBuf::from(&clang).display()
                );
                built = false;
            }
            Err(e) => {
                println!(
                    "cargo:warning=no clang ({}: {e}): zswaptop is built without its BPF programs (swap-in latency); install clang or set CLANG",
                    PathBuf::from(&clang).display()
                );
                built = false;
            }
        }
        if !built {
            return;
        }
    }
    println!("cargo:rustc-cfg=zswaptop_bpf");
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    build_bpf();
    // scripts/build-static.sh links with a symbol order file it makes (lld's
    // --symbol-ordering-file), which cargo does not track: a new order must relink the binary.
    // Watched only when that script names it, so an ordinary build never waits on a missing file.
    println!("cargo:rerun-if-env-changed=ZSWAPTOP_LINK_ORDER");
    if let Some(order) = std::env::var_os("ZSWAPTOP_LINK_ORDER") {
        println!("cargo:rerun-if-changed={}", PathBuf::from(order).display());
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let rev = if dir.join(".git").exists() {
        for f in watched(&dir) {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        git(&dir, &["rev-parse", "--short", "HEAD"])
    } else {
        None
    };
    match rev {
        Some(rev) => println!("cargo:rustc-env=ZSWAPTOP_VERSION={version} ({rev})"),
        None => println!("cargo:rustc-env=ZSWAPTOP_VERSION={version}"),
    }
}
