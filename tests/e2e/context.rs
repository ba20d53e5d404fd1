//! The test's context and one run of zswaptop against the live kernel: the binaries (among them
//! the one uid 65534 can run), the page size, the memory cgroup, where fixture trees go; and a
//! `--once --json` run with the kernel read right before and right after it.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use crate::kernel::{self, Kernel};
use crate::machine::Cgroup;
use crate::phases::record;

const NOBODY: u32 = 65534;

pub use crate::readings::Snap;

pub struct Ctx {
    pub bin: PathBuf,
    pub nobody_bin: PathBuf,
    pub ps: u64,
    pub cg: Cgroup,
    pub tmp: tempfile::TempDir,
    pub save: Option<PathBuf>,
}

impl Ctx {
    /// The context on a machine [`crate::machine::setup`] made ready: a temporary directory,
    /// the binary uid 65534 can run, where the fixture trees go (`ZSWAPTOP_E2E_SAVE_FIXTURES`,
    /// else the temporary directory), and every `--once` run as root recorded from now on.
    pub fn new(bin: PathBuf, cg: Cgroup) -> Result<Ctx> {
        let tmp = tempfile::Builder::new()
            .prefix("zswaptop-e2e-")
            .tempdir()
            .context("tempdir")?;
        let nobody_bin = nobody_binary(&bin, tmp.path())?;
        let save = std::env::var_os("ZSWAPTOP_E2E_SAVE_FIXTURES").map(PathBuf::from);
        if let Some(dir) = &save {
            fs::create_dir_all(dir)?;
        }
        // Absolute: zswaptop runs with / as its working directory.
        let save = save.map(fs::canonicalize).transpose()?;
        if let Some(dir) = &save {
            println!("setup: fixtures are saved to {}", dir.display());
        }
        record::start(tmp.path());
        Ok(Ctx {
            bin,
            nobody_bin,
            ps: kernel::page_size(),
            cg,
            tmp,
            save,
        })
    }

    pub fn snap(&self, nobody: bool) -> Result<Snap> {
        let before = Kernel::read()?;
        let bin = if nobody { &self.nobody_bin } else { &self.bin };
        let (json, status) = run_zswaptop(bin, &[], nobody)?;
        let after = Kernel::read()?;
        if !status.success() {
            bail!("zswaptop --once --json exited with {status}");
        }
        Ok(Snap {
            before,
            json,
            after,
        })
    }

    pub fn settle(&self, what: &str) -> Result<Kernel> {
        let t = Instant::now();
        let (k, ok) = kernel::settle(Duration::from_millis(400), Duration::from_secs(30))?;
        println!(
            "  {what}: counters {} after {:.1}s",
            if ok {
                "settled"
            } else {
                "still moving (timeout)"
            },
            t.elapsed().as_secs_f64()
        );
        Ok(k)
    }

    pub fn settle_quiet(&self) -> Result<Kernel> {
        Ok(kernel::settle(Duration::from_millis(300), Duration::from_secs(10))?.0)
    }

    pub fn fixture_dir(&self, name: &str) -> Result<PathBuf> {
        let dir = match &self.save {
            Some(d) => d.join(name),
            None => self.tmp.path().join(name),
        };
        if dir.exists() {
            // Only our own e2e-* trees are ever replaced.
            if !name.starts_with("e2e-") {
                bail!("refusing to replace {}", dir.display());
            }
            fs::remove_dir_all(&dir)?;
        }
        Ok(dir)
    }
}

/// Runs zswaptop and parses its JSON. `nobody` runs it as uid/gid 65534.
pub fn run_zswaptop(
    bin: &Path,
    args: &[&str],
    nobody: bool,
) -> Result<(Value, std::process::ExitStatus)> {
    let mut cmd = Command::new(bin);
    cmd.args(["--once", "--json"]).args(args).current_dir("/");
    if nobody {
        cmd.uid(NOBODY).gid(NOBODY);
    }
    // As root, the run also records its samples, read back at the end (record.rs).
    let recorded = (!nobody).then(record::next_file).flatten();
    if let Some(f) = &recorded {
        cmd.arg("--record").arg(f);
    }
    let out = cmd
        .output()
        .with_context(|| format!("running {}", bin.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&stdout).with_context(|| {
        format!(
            "zswaptop {} printed no JSON ({}); stderr: {}; stdout starts: {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim(),
            stdout.chars().take(300).collect::<String>()
        )
    })?;
    if let Some(f) = recorded.filter(|_| out.status.success()) {
        record::remember(f, args, &json);
    }
    Ok((json, out.status))
}

/// A copy of the binary that uid 65534 can execute: the original when every directory on its
/// path is world-searchable, else a copy in a fresh 0755 temporary directory.
fn nobody_binary(bin: &Path, tmp: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let world_x = |p: &Path| {
        fs::metadata(p)
            .map(|m| m.permissions().mode() & 0o001 != 0)
            .unwrap_or(false)
    };
    let ok = bin.ancestors().skip(1).all(world_x) && world_x(bin);
    if ok {
        return Ok(bin.to_path_buf());
    }
    let dir = tmp.join("nobody-bin");
    fs::create_dir_all(&dir)?;
    fs::set_permissions(tmp, fs::Permissions::from_mode(0o755))?;
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755))?;
    let copy = dir.join("zswaptop");
    fs::copy(bin, &copy)?;
    fs::set_permissions(&copy, fs::Permissions::from_mode(0o755))?;
    Ok(copy)
}
