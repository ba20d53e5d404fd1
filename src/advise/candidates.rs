//! The algorithms to estimate: every compressor the kernel offers zswap (the compression entries
//! of `/proc/crypto`), every algorithm each zram device offers (`comp_algorithm`), and the usual
//! ones this kernel does not have, marked as such with how to get them.

use crate::sources::crypto::Compressor;
use crate::sources::zram::ZramSample;

use super::estimate::Backend;

/// The algorithms zswap and zram are usually built with, best known first.
pub const USUAL: &[&str] = &["lzo", "lzo-rle", "lz4", "lz4hc", "zstd", "deflate", "842"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub backend: Backend,
    /// Offered by this kernel now.
    pub in_kernel: bool,
    /// What zswap runs now, or what a zram device runs.
    pub running: bool,
    /// How to get it when the kernel does not offer it.
    pub how: Option<String>,
}

/// The kernel config option and module of a crypto API compressor.
fn crypto_option(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "lzo" => ("CONFIG_CRYPTO_LZO", "lzo"),
        "lzo-rle" => ("CONFIG_CRYPTO_LZO", "lzo-rle"),
        "lz4" => ("CONFIG_CRYPTO_LZ4", "lz4"),
        "lz4hc" => ("CONFIG_CRYPTO_LZ4HC", "lz4hc"),
        "zstd" => ("CONFIG_CRYPTO_ZSTD", "zstd"),
        "deflate" => ("CONFIG_CRYPTO_DEFLATE", "deflate"),
        "842" => ("CONFIG_CRYPTO_842", "842"),
        _ => return None,
    })
}

/// zram's backend option (6.12+; before, zram took its algorithms from the crypto API).
fn zram_option(name: &str) -> Option<&'static str> {
    Some(match name {
        "lzo" | "lzo-rle" => "CONFIG_ZRAM_BACKEND_LZO",
        "lz4" => "CONFIG_ZRAM_BACKEND_LZ4",
        "lz4hc" => "CONFIG_ZRAM_BACKEND_LZ4HC",
        "zstd" => "CONFIG_ZRAM_BACKEND_ZSTD",
        "deflate" => "CONFIG_ZRAM_BACKEND_DEFLATE",
        "842" => "CONFIG_ZRAM_BACKEND_842",
        _ => return None,
    })
}

/// The modules this kernel has (`/lib/modules/RELEASE/modules.dep`), when readable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Modules {
    /// Where the list was read.
    pub path: String,
    /// Each module's name (`zstd` for `kernel/crypto/zstd.ko.xz`).
    pub names: Vec<String>,
}

impl Modules {
    /// The list of `release`'s modules under `root`; `None` when it cannot be read.
    pub(crate) fn read(root: &crate::root::Root, release: Option<&str>) -> Option<Modules> {
        let release = release.filter(|r| !r.contains('/') && !r.starts_with('.'))?;
        let rel = format!("lib/modules/{release}/modules.dep");
        let text = root
            .read_text(
                &root.file(&rel),
                &crate::error::Reason::absent("no modules"),
            )
            .ok()?;
        let mut names: Vec<String> = text
            .lines()
            .filter_map(|l| l.split(':').next())
            .filter_map(|path| path.rsplit('/').next())
            .filter_map(|file| file.split(".ko").next())
            .map(str::to_string)
            .collect();
        names.sort_unstable();
        names.dedup();
        Some(Modules {
            path: crate::sanitize::visible(&format!("/{rel}")).into_owned(),
            names,
        })
    }

    fn has(&self, module: &str) -> bool {
        self.names
            .binary_search_by(|n| n.as_str().cmp(module))
            .is_ok()
    }
}

fn how_zswap(name: &str, modules: Option<&Modules>) -> String {
    let Some((opt, module)) = crypto_option(name) else {
        return "not registered with the crypto API".into();
    };
    match modules {
        Some(m) if m.has(module) => format!(
            "not registered with the crypto API, but this kernel has it as a module ({}): \
             `sudo modprobe {module}`",
            m.path
        ),
        Some(m) => format!(
            "not in this kernel (no module {module} in {}): a kernel built with {opt}",
            m.path
        ),
        None => format!(
            "not registered with the crypto API: `sudo modprobe {module}` where it is a module \
             ({opt}=m), else a kernel built with {opt}"
        ),
    }
}

fn how_zram(name: &str, any_device: bool) -> String {
    let opt = zram_option(name).unwrap_or("its zram backend option");
    if any_device {
        format!(
            "no zram device offers it: a kernel (or zram module) built with {opt} (6.12+; \
             older kernels take it from the crypto API: {})",
            crypto_option(name).map_or("its module", |(o, _)| o)
        )
    } else {
        format!("no zram device: `sudo modprobe zram` (CONFIG_ZRAM), with {opt} for {name}")
    }
}

/// Add `c` unless the backend has it already. Names come from kernel files (or a captured
/// tree): made safe before any output.
fn push(out: &mut Vec<Candidate>, mut c: Candidate) {
    c.name = crate::sanitize::visible(&c.name).into_owned();
    if !out
        .iter()
        .any(|o| o.backend == c.backend && o.name == c.name)
    {
        out.push(c);
    }
}

/// The usual algorithms `backend` does not offer, with how to get each.
fn lacking(out: &mut Vec<Candidate>, backend: Backend, how: impl Fn(&str) -> String) {
    for name in USUAL {
        push(
            out,
            Candidate {
                name: (*name).into(),
                backend,
                in_kernel: false,
                running: false,
                how: Some(how(name)),
            },
        );
    }
}

/// Every candidate: zswap's first, then zram's; within each, what the kernel offers first (in
/// its order), then the usual ones it lacks.
pub(crate) fn list(
    crypto: Option<&[Compressor]>,
    zswap_running: Option<&str>,
    zswap_present: bool,
    zram: &[ZramSample],
    modules: Option<&Modules>,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    if zswap_present {
        let offered: Vec<String> = crypto
            .map(crate::sources::crypto::names)
            .unwrap_or_default();
        let running = zswap_running.map(str::to_string);
        for name in offered.iter().chain(running.iter()) {
            push(
                &mut out,
                Candidate {
                    name: name.clone(),
                    backend: Backend::Zswap,
                    in_kernel: true,
                    running: zswap_running == Some(name.as_str()),
                    how: None,
                },
            );
        }
        lacking(&mut out, Backend::Zswap, |n| how_zswap(n, modules));
    }
    let selectors: Vec<_> = zram
        .iter()
        .filter_map(|z| z.comp_algorithm.as_ref().ok())
        .collect();
    for sel in &selectors {
        for name in &sel.options {
            let running = zram.iter().any(|z| {
                z.comp_algorithm
                    .as_ref()
                    .is_ok_and(|s| s.selected.as_deref() == Some(name.as_str()))
                    && z.disksize.as_ref().is_ok_and(|&d| d > 0)
            });
            push(
                &mut out,
                Candidate {
                    name: name.clone(),
                    backend: Backend::Zram,
                    in_kernel: true,
                    running,
                    how: None,
                },
            );
        }
    }
    let any_device = !selectors.is_empty();
    lacking(&mut out, Backend::Zram, |n| how_zram(n, any_device));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::root::Root;

    /// A 6.18 capture: /proc/crypto registers deflate, lzo and lzo-rle (zswap runs lzo);
    /// zram0 offers `lzo-rle lzo [lz4]`.
    #[test]
    fn from_a_captured_tree() {
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-zram",
            env!("CARGO_MANIFEST_DIR")
        ));
        let crypto = crate::sources::crypto::read(&root).unwrap();
        let zram = crate::sources::zram::read_all(&root, 0);
        let c = list(Some(&crypto), Some("lzo"), true, &zram, None);
        let names = |b: Backend, in_kernel: bool| -> Vec<&str> {
            c.iter()
                .filter(|x| x.backend == b && x.in_kernel == in_kernel)
                .map(|x| x.name.as_str())
                .collect()
        };
        assert_eq!(names(Backend::Zswap, true), ["deflate", "lzo", "lzo-rle"]);
        assert_eq!(
            names(Backend::Zswap, false),
            ["lz4", "lz4hc", "zstd", "842"]
        );
        assert_eq!(names(Backend::Zram, true), ["lzo-rle", "lzo", "lz4"]);
        assert_eq!(
            names(Backend::Zram, false),
            ["lz4hc", "zstd", "deflate", "842"]
        );
        let running: Vec<(Backend, &str)> = c
            .iter()
            .filter(|x| x.running)
            .map(|x| (x.backend, x.name.as_str()))
            .collect();
        assert_eq!(running, [(Backend::Zswap, "lzo"), (Backend::Zram, "lz4")]);
        let zstd = c
            .iter()
            .find(|x| x.backend == Backend::Zswap && x.name == "zstd")
            .and_then(|x| x.how.as_deref())
            .unwrap();
        assert!(zstd.contains("modprobe zstd") && zstd.contains("CONFIG_CRYPTO_ZSTD"));
        // No zswap in the kernel: only zram's; no zram device: every zram one says how.
        let c = list(None, None, false, &[], None);
        assert!(c.iter().all(|x| x.backend == Backend::Zram && !x.in_kernel));
        assert!(c[0].how.as_deref().unwrap().contains("modprobe zram"));
        // A hostile tree's algorithm name reaches no terminal raw.
        let bad = crate::sources::zram::ZramSample {
            comp_algorithm: Ok(crate::sources::zram::parse_selector("[x\x1b]0;t\x07]")),
            ..zram[0].clone()
        };
        let c = list(None, None, false, &[bad], None);
        assert_eq!(c[0].name, "x\\x1b]0;t\\x07");
    }

    #[test]
    fn how_to_get_one_by_the_kernels_modules() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("lib/modules/6.1.0-28-amd64");
        std::fs::create_dir_all(&lib).unwrap();
        std::fs::write(
            lib.join("modules.dep"),
            "kernel/crypto/zstd.ko: kernel/lib/zstd/zstd_compress.ko\nkernel/mm/z3fold.ko:\n\
             kernel/crypto/lz4.ko.xz: kernel/lib/lz4/lz4_compress.ko.xz\n",
        )
        .unwrap();
        let root = Root::at(dir.path());
        let m = Modules::read(&root, Some("6.1.0-28-amd64")).unwrap();
        assert_eq!(m.names, ["lz4", "z3fold", "zstd"]);
        let c = list(None, Some("lzo"), true, &[], Some(&m));
        let how = |name: &str| {
            c.iter()
                .find(|x| x.backend == Backend::Zswap && x.name == name)
                .and_then(|x| x.how.clone())
                .unwrap()
        };
        assert!(
            how("zstd").ends_with("`sudo modprobe zstd`"),
            "{}",
            how("zstd")
        );
        assert!(how("lz4").contains("modprobe lz4"));
        assert_eq!(
            how("deflate"),
            "not in this kernel (no module deflate in /lib/modules/6.1.0-28-amd64/modules.dep): a \
             kernel built with CONFIG_CRYPTO_DEFLATE"
        );
        assert!(Modules::read(&root, Some("6.12.0")).is_none());
        assert!(Modules::read(&root, Some("../x")).is_none());
    }
}
