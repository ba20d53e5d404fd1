//! `/proc/crypto`: the compression algorithms this kernel has registered right now (built in, or
//! from a module that is loaded). zswap takes its compressor from the crypto API, so this is the
//! list `zswap.compressor=` can choose from without loading a module. (zram on 6.12+ has its own
//! backends, listed in its `comp_algorithm` file instead.)
//!
//! Parsing is delegated to `procfs_core::CryptoTable`, given only the blocks of type
//! `compression`, `scomp` or `acomp`.

use std::path::Path;

use procfs_core::{CryptoTable, FromRead, Type};
use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;
use crate::sanitize::Sanitize;

/// One registered compression implementation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize)]
pub struct Compressor {
    /// Algorithm name as zswap and `/proc/crypto` spell it (`lzo`, `lz4`, `zstd`, `deflate`).
    pub name: String,
    /// Implementation (`lzo-scomp`, `deflate-generic`).
    pub driver: String,
    /// `kernel` when built in, else the module that provides it.
    pub module: String,
    /// `compression`, `scomp` or `acomp`.
    pub kind: String,
    pub priority: i64,
}

impl Compressor {
    /// Built into the kernel image: available at boot without an initramfs module.
    pub(crate) fn built_in(&self) -> bool {
        self.module == "kernel"
    }
}

pub(crate) fn read(root: &Root) -> Reading<Vec<Compressor>> {
    let path = root.proc("crypto");
    let text = root.read_text(
        &path,
        &Reason::absent("no /proc/crypto (kernel built without CONFIG_CRYPTO?)"),
    )?;
    parse(&path, &text)
}

/// Compression entries of a `/proc/crypto` text, sorted by name then priority (highest first),
/// one entry per (name, driver).
pub(crate) fn parse(path: &Path, text: &str) -> Reading<Vec<Compressor>> {
    if !text.lines().any(|l| key_of(l) == Some("name")) {
        return Err(Unavailable::malformed(path, None, "no `name :` line"));
    }
    from_table(path, &compression_blocks(text))
}

/// The compressors of a text in `/proc/crypto`'s format, through the parser.
fn from_table(path: &Path, text: &str) -> Reading<Vec<Compressor>> {
    let table = CryptoTable::from_read(text.as_bytes())
        .map_err(|e| Unavailable::malformed(path, None, e.to_string()))?;
    let mut out: Vec<Compressor> = table
        .crypto_blocks
        .values()
        .flatten()
        .filter_map(|b| {
            let kind = match &b.crypto_type {
                Type::Compression => "compression".to_string(),
                Type::Scomp => "scomp".to_string(),
                // procfs-core files types it does not know (acomp) as Unknown, with the type name
                // under "name".
                Type::Unknown(u) => match u.fields.get("name").map(String::as_str) {
                    Some("acomp") => "acomp".to_string(),
                    _ => return None,
                },
                _ => return None,
            };
            Some(Compressor {
                name: b.name.clone(),
                driver: b.driver.clone(),
                module: b.module.clone(),
                kind,
                priority: i64::try_from(b.priority).unwrap_or(0),
            })
        })
        .collect();
    out.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then(b.priority.cmp(&a.priority))
            .then(a.driver.cmp(&b.driver))
    });
    out.dedup_by(|a, b| a.name == b.name && a.driver == b.driver);
    Ok(out)
}

/// The blocks of the text (each ends with a blank line) whose `type` is a compressor's: the
/// rest (ciphers, hashes, RNGs: nearly all of the file) is not handed to the parser. One
/// substring search finds the lines that hold `type`; only those are split, and only a
/// compressor's block is looked for around its line.
fn compression_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut kept_to = 0;
    for (i, _) in text.match_indices("type") {
        if i < kept_to {
            continue;
        }
        let from = text[..i].rfind('\n').map_or(0, |n| n + 1);
        let to = text[i..].find('\n').map_or(text.len(), |n| i + n);
        let compressor = text[from..to].split_once(':').is_some_and(|(k, v)| {
            k.trim() == "type" && matches!(v.trim(), "compression" | "scomp" | "acomp")
        });
        if compressor {
            let start = text[..from].rfind("\n\n").map_or(0, |n| n + 2);
            kept_to = text[to..].find("\n\n").map_or(text.len(), |n| to + n);
            out.push_str(&text[start..kept_to]);
            out.push_str("\n\n");
        }
    }
    out
}

fn key_of(line: &str) -> Option<&str> {
    line.split_once(':').map(|(k, _)| k.trim())
}

/// For samples recorded before `/proc/crypto` was read.
pub(crate) fn not_recorded() -> Reading<Vec<Compressor>> {
    Err(Unavailable::new(
        Path::new("/proc/crypto"),
        Reason::NotRecorded,
    ))
}

/// Distinct algorithm names, in order.
pub(crate) fn names(list: &[Compressor]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|c| c.name.clone()).collect();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> (std::path::PathBuf, String) {
        let p = std::path::PathBuf::from(format!(
            "{}/tests/fixtures/{name}/proc/crypto",
            env!("CARGO_MANIFEST_DIR")
        ));
        let t = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        (p, t)
    }

    #[test]
    fn real_capture_keeps_only_compressors() {
        // Captured on 6.18 (598 lines: shash, rng, kpp, lskcipher, … and three compressors).
        let (p, t) = fixture("linux-6.18-zram");
        let c = parse(&p, &t).unwrap();
        let got: Vec<(&str, &str, &str)> = c
            .iter()
            .map(|c| (c.name.as_str(), c.driver.as_str(), c.kind.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("deflate", "deflate-generic", "acomp"),
                ("lzo", "lzo-scomp", "scomp"),
                ("lzo-rle", "lzo-rle-scomp", "scomp"),
            ]
        );
        assert!(c.iter().all(Compressor::built_in));
        assert_eq!(names(&c), vec!["deflate", "lzo", "lzo-rle"]);
    }

    #[test]
    fn older_compression_type_and_modules() {
        // The format of kernels before the scomp/acomp split (4.x), and a module-provided zstd.
        let t = "name         : lz4\n\
                 driver       : lz4-generic\n\
                 module       : lz4\n\
                 priority     : 0\n\
                 refcnt       : 1\n\
                 selftest     : passed\n\
                 internal     : no\n\
                 type         : compression\n\
                 \n\
                 name         : zstd\n\
                 driver       : zstd-scomp\n\
                 module       : zstd\n\
                 priority     : 0\n\
                 refcnt       : 1\n\
                 selftest     : passed\n\
                 internal     : no\n\
                 type         : scomp\n\
                 \n\
                 name         : zstd\n\
                 driver       : zstd-generic\n\
                 module       : zstd\n\
                 priority     : 0\n\
                 refcnt       : 1\n\
                 selftest     : passed\n\
                 internal     : no\n\
                 type         : compression\n";
        let c = parse(Path::new("c"), t).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c[0].kind, "compression");
        assert!(!c[0].built_in());
        assert_eq!(names(&c), vec!["lz4", "zstd"]);
    }

    /// Handing the parser only the compressors' blocks finds what the whole file gives it, in
    /// every fixture and on this machine.
    #[test]
    fn only_the_compressors_blocks_are_parsed() {
        let files: Vec<std::path::PathBuf> = crate::root::fixture_trees()
            .into_iter()
            .map(|t| t.join("proc/crypto"))
            .chain([std::path::PathBuf::from("/proc/crypto")])
            .filter(|p| p.is_file())
            .collect();
        assert!(files.len() > 3, "{files:?}");
        for p in files {
            let t = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
            let named = t.lines().any(|l| key_of(l) == Some("name"));
            if let (true, Ok(whole)) = (named, from_table(&p, &t)) {
                assert_eq!(parse(&p, &t), Ok(whole), "{}", p.display());
            }
        }
        assert!(
            compression_blocks(&fixture("linux-6.18-zram").1)
                .lines()
                .count()
                < 40
        );
    }

    #[test]
    fn garbage_and_truncated() {
        let (p, t) = fixture("garbage");
        assert!(parse(&p, &t).is_err());
        // Cut in the middle of a block: whatever parses must not invent a compressor.
        let (p, t) = fixture("truncated");
        if let Ok(c) = parse(&p, &t) {
            assert!(c.iter().all(|c| !c.name.is_empty()));
        }
        assert!(parse(Path::new("c"), "").is_err());
    }
}
