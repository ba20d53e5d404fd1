//! `/proc/swaps`, parsed from the right: the path may contain spaces (escaped as octal).

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::{Reading, Reason, Unavailable};
use crate::root::Root;

/// One line of `/proc/swaps`: an active swap area as the kernel lists it (the model's
/// `SwapDevice` adds what lies under it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapEntry {
    /// Unescaped path (`\040` → space).
    pub path: String,
    /// `partition` or `file` as the kernel prints it.
    pub kind: String,
    pub size_bytes: u64,
    pub used_bytes: u64,
    pub priority: i64,
}

pub fn read(root: &Root) -> Reading<Vec<SwapEntry>> {
    let path = root.proc("swaps");
    let text = root.read_text(
        &path,
        &Reason::absent("no /proc/swaps (kernel built without CONFIG_SWAP?)"),
    )?;
    parse(&path, &text)
}

pub fn parse(path: &Path, text: &str) -> Reading<Vec<SwapEntry>> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, header)) if header.starts_with("Filename") => {}
        Some((_, other)) => {
            return Err(Unavailable::malformed(
                path,
                Some(1),
                format!("expected the `Filename Type Size Used Priority` header, got {other:?}"),
            ));
        }
        None => return Err(Unavailable::malformed(path, None, "empty file")),
    }
    let mut devices = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| Unavailable::malformed(path, Some(i + 1), format!("{why}: {line:?}"));
        let words: Vec<&str> = line.split_ascii_whitespace().collect();
        if words.len() < 5 {
            return Err(bad("expected 5 columns"));
        }
        let n = words.len();
        let priority: i64 = words[n - 1].parse().map_err(|_| bad("bad priority"))?;
        let used_kb: u64 = words[n - 2].parse().map_err(|_| bad("bad Used"))?;
        let size_kb: u64 = words[n - 3].parse().map_err(|_| bad("bad Size"))?;
        let kind = words[n - 4].to_string();
        // The escaped path has no raw whitespace, but be lenient and rejoin.
        let raw_path = words[..n - 4].join(" ");
        devices.push(SwapEntry {
            path: unescape_octal(&raw_path),
            kind,
            size_bytes: size_kb.saturating_mul(1024),
            used_bytes: used_kb.saturating_mul(1024),
            priority,
        });
    }
    Ok(devices)
}

/// Undo the kernel's `seq_file_path` escaping: `\ooo` octal triples become the byte.
pub fn unescape_octal(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && i + 4 <= bytes.len() {
            let oct = &bytes[i + 1..i + 4];
            if oct.iter().all(|b| (b'0'..=b'7').contains(b)) {
                let v = u32::from(oct[0] - b'0') * 64
                    + u32::from(oct[1] - b'0') * 8
                    + u32::from(oct[2] - b'0');
                if let Ok(b) = u8::try_from(v) {
                    out.push(b);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_capture() {
        let p = format!(
            "{}/tests/fixtures/linux-6.18-loaded/proc/swaps",
            env!("CARGO_MANIFEST_DIR")
        );
        let d = parse(Path::new(&p), &std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].path, "/swapfile-test");
        assert_eq!(d[0].kind, "file");
        assert_eq!(d[0].size_bytes, 2_097_148 * 1024);
        assert_eq!(d[0].used_bytes, 1_050_260 * 1024);
        assert_eq!(d[0].priority, -2);
    }

    #[test]
    fn escaped_path_and_negative_priority() {
        let text = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                    /mnt/my\\040swap\\134file                 file\t\t1024\t\t0\t\t-3\n\
                    /dev/zram0                              partition\t4194300\t\t12\t\t100\n";
        let d = parse(Path::new("s"), text).unwrap();
        assert_eq!(d[0].path, "/mnt/my swap\\file");
        assert_eq!(d[0].priority, -3);
        assert_eq!(d[1].kind, "partition");
        assert_eq!(d[1].used_bytes, 12 * 1024);
    }

    /// The kernel escapes only ASCII whitespace in a path: a Unicode space or separator is part
    /// of the name, never a column break.
    #[test]
    fn unicode_spaces_stay_in_the_path() {
        let text = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n\
                    /swap\u{2028}a\u{a0}b\u{3000}c\u{85}d   file\t\t1024\t\t0\t\t-3\n";
        let d = parse(Path::new("s"), text).unwrap();
        assert_eq!(d[0].path, "/swap\u{2028}a\u{a0}b\u{3000}c\u{85}d");
    }

    #[test]
    fn header_only_is_no_swap() {
        let d = parse(
            Path::new("s"),
            "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n",
        )
        .unwrap();
        assert!(d.is_empty());
    }

    #[test]
    fn short_row_is_malformed_with_line() {
        let err = parse(
            Path::new("s"),
            "Filename Type Size Used Priority\n/swap file 12\n",
        )
        .unwrap_err();
        assert!(matches!(
            err.reason,
            Reason::Malformed { line: Some(2), .. }
        ));
    }

    #[test]
    fn unescape_leaves_plain_backslashes() {
        assert_eq!(unescape_octal("a\\b"), "a\\b");
        assert_eq!(unescape_octal("x\\04"), "x\\04");
        assert_eq!(unescape_octal("tab\\011end"), "tab\tend");
    }
}
