//! Which block device holds each active swap area (through `/sys/dev/block/MAJ:MIN`,
//! Documentation/ABI/testing/sysfs-dev), and the facts about it that swap advice depends on:
//! whether the disk is rotational, and for zram, its writeback device.
//!
//! The mapping, per `/proc/swaps` row:
//! 1. On the live system, `stat()` the path: a partition (or zram, or dm) by its `st_rdev`, a
//!    swapfile by the `st_dev` of its filesystem. `ROOT/sys/dev/block/MAJ:MIN` then leads to the
//!    device's sysfs directory (a symlink live; in a captured tree it may instead hold a `uevent`
//!    naming the device).
//! 2. Otherwise (a captured tree, where `stat()` of the swap path means nothing, or a path that no
//!    longer exists), a `/dev/NAME` path is matched by name: `ROOT/sys/class/block/NAME`,
//!    `ROOT/sys/block/NAME`, a partition `ROOT/sys/block/*/NAME`, or `/dev/mapper/NAME` through
//!    `ROOT/sys/block/dm-*/dm/name`.
//! 3. A partition's disk is its parent directory; dm/md devices lead to their physical disks
//!    through `slaves/`. `queue/rotational` of those disks says whether seeks cost.
//!
//! When nothing maps, the device is unknown and `unmapped` says why: callers must then make no
//! claim about it. Each [`BlockDev`] and [`Disk`] keeps its sysfs directory, so per-device I/O
//! statistics (`stat`) can be read from the same mapping.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::swaps::SwapEntry;
use crate::error::{Reading, Reason};
use crate::root::Root;
use crate::sanitize::Sanitize;

/// A device number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct DevNum {
    pub major: u32,
    pub minor: u32,
}

impl DevNum {
    /// Split a Linux `dev_t` (glibc encoding: 12-bit major and 20-bit minor, high bits spread).
    pub(crate) fn from_dev_t(dev: u64) -> Self {
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
        let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
        DevNum {
            major: u32::try_from(major).unwrap_or(u32::MAX),
            minor: u32::try_from(minor).unwrap_or(u32::MAX),
        }
    }

    /// `MAJ:MIN`, the name under `/sys/dev/block`.
    pub(crate) fn key(&self) -> String {
        format!("{}:{}", self.major, self.minor)
    }
}

/// The block device a swap area sits on: a partition, a whole disk, a dm/md device or zram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockDev {
    /// Kernel name (`vda`, `sda2`, `dm-0`, `zram0`).
    pub name: String,
    /// Its sysfs directory (under the root read).
    pub dir: String,
    pub partition: bool,
}

impl BlockDev {
    /// This device's own I/O counters (`stat`, 512-byte sectors); for a partition, its share only.
    pub fn stat_path(&self) -> PathBuf {
        Path::new(&self.dir).join("stat")
    }
}

/// A whole physical disk under a swap area (after partition → disk and dm/md → slaves).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Disk {
    pub name: String,
    pub dir: String,
    /// `queue/rotational`: 1 for a seek-bound disk. `None` when the file could not be read.
    pub rotational: Option<bool>,
}

impl Disk {
    pub(crate) fn stat_path(&self) -> PathBuf {
        Path::new(&self.dir).join("stat")
    }
}

/// What a zram swap device has behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize)]
pub struct ZramBacking {
    pub name: String,
    /// `backing_dev` as read: `none`, or the writeback device's path. Missing when the kernel
    /// was built without CONFIG_ZRAM_WRITEBACK.
    pub backing_dev: Reading<String>,
}

impl ZramBacking {
    /// A writeback device is configured. `None` when `backing_dev` could not be read for a reason
    /// other than the kernel lacking writeback support.
    pub fn has_writeback_device(&self) -> Option<bool> {
        match &self.backing_dev {
            Ok(s) => Some(!matches!(s.trim(), "" | "none")),
            Err(e) if e.reason.is_absent() => Some(false),
            Err(_) => None,
        }
    }

    /// The kernel can do zram writeback at all (the `backing_dev` attribute exists).
    pub fn writeback_supported(&self) -> bool {
        !matches!(&self.backing_dev, Err(e) if e.reason.is_absent())
    }
}

/// One active swap area and the devices under it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapBacking {
    /// As in `/proc/swaps` (unescaped).
    pub path: String,
    /// `partition` or `file`.
    pub kind: String,
    /// Device number found by `stat()` (live only).
    pub devnum: Option<DevNum>,
    /// How the device was found: `st_rdev`, `st_dev` or `device name`.
    pub mapped_by: Option<String>,
    /// The device holding the area (for a swapfile: the device of its filesystem).
    pub device: Option<BlockDev>,
    /// The physical disks below it.
    pub disks: Vec<Disk>,
    /// Set for zram swap devices.
    pub zram: Option<ZramBacking>,
    /// Why no device is known, when none is.
    pub unmapped: Option<String>,
}

impl SwapBacking {
    /// `Some(true)` if any disk below is rotational, `Some(false)` if every disk is known not to
    /// be, `None` when unknown.
    pub fn rotational(&self) -> Option<bool> {
        if self.disks.is_empty() {
            return None;
        }
        if self.disks.iter().any(|d| d.rotational == Some(true)) {
            return Some(true);
        }
        if self.disks.iter().all(|d| d.rotational == Some(false)) {
            return Some(false);
        }
        None
    }

    /// Names of the physical disks, for "on the same disk" comparisons.
    pub fn disk_names(&self) -> Vec<&str> {
        self.disks.iter().map(|d| d.name.as_str()).collect()
    }
}

/// Map every active swap area.
pub fn read(root: &Root, swaps: &[SwapEntry]) -> Vec<SwapBacking> {
    swaps.iter().map(|s| map_one(root, s)).collect()
}

fn map_one(root: &Root, s: &SwapEntry) -> SwapBacking {
    let zram_name = s
        .path
        .strip_prefix("/dev/")
        .filter(|n| {
            n.strip_prefix("zram")
                .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string);
    let zram = zram_name.map(|name| ZramBacking {
        backing_dev: root
            .read_text(
                &root.sys(&format!("block/{name}/backing_dev")),
                &Reason::absent(
                    "no writeback support (kernel built without CONFIG_ZRAM_WRITEBACK)",
                ),
            )
            .map(|t| t.trim().to_string()),
        name,
    });

    let mut out = SwapBacking {
        path: s.path.clone(),
        kind: s.kind.clone(),
        devnum: None,
        mapped_by: None,
        device: None,
        disks: Vec::new(),
        zram,
        unmapped: None,
    };
    let mut why = Vec::new();

    // 1. stat() on the live system.
    if root.is_live() {
        match stat_devnum(&s.path, &s.kind) {
            Ok((dn, how)) => {
                out.devnum = Some(dn);
                if dn.major == 0 {
                    why.push(format!(
                        "{} is on a filesystem with no block device number ({}; btrfs?)",
                        s.path,
                        dn.key()
                    ));
                } else if let Some(dir) = by_devnum(root, dn) {
                    out.mapped_by = Some(how.to_string());
                    out.device = Some(block_dev(root, &dir));
                } else {
                    why.push(format!("no /sys/dev/block/{}", dn.key()));
                }
            }
            Err(e) => why.push(e),
        }
    }

    // 2. By name, for device paths.
    if out.device.is_none() {
        match s.path.strip_prefix("/dev/") {
            Some(rel) if s.kind == "partition" => match by_name(root, rel) {
                Some(dir) => {
                    out.mapped_by = Some("device name".into());
                    out.device = Some(block_dev(root, &dir));
                }
                None => why.push(format!("no sysfs entry for {}", s.path)),
            },
            _ if !root.is_live() => why.push(format!(
                "{} is a swapfile in a captured tree: its filesystem's device is not recorded",
                s.path
            )),
            _ => {}
        }
    }

    // 3. Down to the physical disks.
    if let Some(dev) = &out.device {
        out.disks = disks_below(root, Path::new(&dev.dir), 0);
    }
    if out.device.is_none() {
        out.unmapped = Some(if why.is_empty() {
            "device not found".to_string()
        } else {
            why.join("; ")
        });
    }
    out
}

/// `st_rdev` of a device node, `st_dev` of a swapfile.
fn stat_devnum(path: &str, kind: &str) -> Result<(DevNum, &'static str), String> {
    use std::os::unix::fs::MetadataExt;
    let md = fs::metadata(path).map_err(|e| format!("stat {path}: {e}"))?;
    if kind == "partition" {
        Ok((DevNum::from_dev_t(md.rdev()), "st_rdev"))
    } else {
        Ok((DevNum::from_dev_t(md.dev()), "st_dev"))
    }
}

/// `ROOT/sys/dev/block/MAJ:MIN`, followed to the device directory.
fn by_devnum(root: &Root, dn: DevNum) -> Option<PathBuf> {
    let link = root.sys(&format!("dev/block/{}", dn.key()));
    let dir = root.canonicalize(&link).ok().filter(|d| root.is_dir(d))?;
    if is_device_dir(root, &dir) {
        return Some(dir);
    }
    // A captured tree may keep only the uevent: DEVNAME= names the device.
    let name = uevent_value(root, &dir, "DEVNAME")?;
    by_name(root, &name)
}

fn is_device_dir(root: &Root, dir: &Path) -> bool {
    ["queue", "partition", "dev", "stat", "slaves"]
        .iter()
        .any(|f| root.exists(&dir.join(f)))
}

fn uevent_value(root: &Root, dir: &Path, key: &str) -> Option<String> {
    let text = root
        .read_text(&dir.join("uevent"), &Reason::absent(""))
        .ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix('=').map(str::to_string))
        .filter(|v| !v.is_empty())
}

/// A kernel device name (`sda2`, `dm-0`, `mapper/cryptswap`) → its sysfs directory.
fn by_name(root: &Root, rel: &str) -> Option<PathBuf> {
    if let Some(mapped) = rel.strip_prefix("mapper/") {
        return dm_by_name(root, mapped);
    }
    if rel.is_empty() || rel.contains('/') || rel.starts_with('.') {
        return None;
    }
    let canon = |p: PathBuf| root.canonicalize(&p).ok().filter(|d| root.is_dir(d));
    if let Some(d) = canon(root.sys(&format!("class/block/{rel}"))) {
        return Some(d);
    }
    if let Some(d) = canon(root.sys(&format!("block/{rel}"))) {
        return Some(d);
    }
    // A partition inside its disk's directory.
    let mut disks: Vec<PathBuf> = root
        .read_dir(&root.sys("block"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .collect();
    disks.sort();
    disks.into_iter().find_map(|d| canon(d.join(rel)))
}

/// `/dev/mapper/NAME` → the `dm-N` whose `dm/name` is NAME.
fn dm_by_name(root: &Root, name: &str) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = root
        .read_dir(&root.sys("block"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| {
            root.read_text(&p.join("dm/name"), &Reason::absent(""))
                .is_ok_and(|n| n.trim() == name)
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .next()
        .and_then(|p| root.canonicalize(&p).ok())
}

fn file_name(dir: &Path) -> String {
    dir.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn is_partition(root: &Root, dir: &Path) -> bool {
    root.exists(&dir.join("partition"))
        || uevent_value(root, dir, "DEVTYPE").as_deref() == Some("partition")
}

fn block_dev(root: &Root, dir: &Path) -> BlockDev {
    BlockDev {
        name: file_name(dir),
        dir: dir.display().to_string(),
        partition: is_partition(root, dir),
    }
}

/// The physical disks under a device directory: partition → parent disk; a disk with `slaves/`
/// (dm, md) → each slave, recursively.
fn disks_below(root: &Root, dir: &Path, depth: usize) -> Vec<Disk> {
    const MAX_DEPTH: usize = 8;
    let disk_dir = if is_partition(root, dir) {
        match dir.parent() {
            Some(p) => p.to_path_buf(),
            None => return Vec::new(),
        }
    } else {
        dir.to_path_buf()
    };
    let mut slaves: Vec<String> = root
        .read_dir(&disk_dir.join("slaves"))
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    slaves.sort();
    if !slaves.is_empty() && depth < MAX_DEPTH {
        let mut out: Vec<Disk> = Vec::new();
        for s in slaves {
            if let Some(d) = by_name(root, &s) {
                for disk in disks_below(root, &d, depth + 1) {
                    if !out.iter().any(|o| o.dir == disk.dir) {
                        out.push(disk);
                    }
                }
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    let rotational = root
        .read_text(&disk_dir.join("queue/rotational"), &Reason::absent(""))
        .ok()
        .and_then(|t| match t.trim() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        });
    vec![Disk {
        name: file_name(&disk_dir),
        dir: disk_dir.display().to_string(),
        rotational,
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swap(path: &str, kind: &str) -> SwapEntry {
        SwapEntry {
            path: path.into(),
            kind: kind.into(),
            size_bytes: 1 << 30,
            used_bytes: 0,
            priority: -2,
        }
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    #[test]
    fn dev_t_split() {
        // 254:0 as st_dev of /swapfile-test on the 6.18 VM (0xfe00).
        assert_eq!(
            DevNum::from_dev_t(0xfe00),
            DevNum {
                major: 254,
                minor: 0
            }
        );
        // 259:65537 (an NVMe namespace with a large minor) in the glibc encoding:
        // major << 8 | (minor & 0xff) | (minor & !0xff) << 12.
        let dev: u64 = (259 << 8) | 1 | (65_536 << 12);
        assert_eq!(DevNum::from_dev_t(dev).key(), "259:65537");
    }

    /// A tree laid out like the 6.18 VM: vda (rotational 1, as virtio reports it) with a
    /// partition vda2, zram0, and a dm device over vda2.
    fn tree() -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        write(r, "sys/block/vda/queue/rotational", "1\n");
        write(r, "sys/block/vda/dev", "254:0\n");
        write(
            r,
            "sys/block/vda/uevent",
            "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\nDISKSEQ=9\n",
        );
        write(r, "sys/block/vda/vda2/partition", "2\n");
        write(r, "sys/block/vda/vda2/dev", "254:2\n");
        write(r, "sys/block/zram0/queue/rotational", "0\n");
        write(r, "sys/block/zram0/dev", "253:0\n");
        write(r, "sys/block/dm-0/queue/rotational", "0\n");
        write(r, "sys/block/dm-0/dm/name", "cryptswap\n");
        fs::create_dir_all(r.join("sys/block/dm-0/slaves/vda2")).unwrap();
        t
    }

    #[test]
    fn partition_by_name_in_a_captured_tree() {
        let t = tree();
        let m = read(&Root::at(t.path()), &[swap("/dev/vda2", "partition")]);
        let b = &m[0];
        assert_eq!(b.mapped_by.as_deref(), Some("device name"));
        let dev = b.device.as_ref().unwrap();
        assert_eq!(dev.name, "vda2");
        assert!(dev.partition);
        assert!(dev.stat_path().ends_with("vda2/stat"));
        assert_eq!(b.disk_names(), vec!["vda"]);
        assert_eq!(b.rotational(), Some(true));
        assert!(b.zram.is_none());
    }

    #[test]
    fn dm_follows_slaves_to_the_disk() {
        let t = tree();
        let root = Root::at(t.path());
        for path in ["/dev/dm-0", "/dev/mapper/cryptswap"] {
            let m = read(&root, &[swap(path, "partition")]);
            assert_eq!(m[0].device.as_ref().unwrap().name, "dm-0", "{path}");
            assert_eq!(m[0].disk_names(), vec!["vda"], "{path}");
            assert_eq!(m[0].rotational(), Some(true), "{path}");
        }
    }

    #[test]
    fn zram_without_writeback_support() {
        let t = tree();
        let m = read(&Root::at(t.path()), &[swap("/dev/zram0", "partition")]);
        assert_eq!(m[0].rotational(), Some(false));
        let z = m[0].zram.as_ref().unwrap();
        assert!(!z.writeback_supported());
        assert_eq!(z.has_writeback_device(), Some(false));
    }

    #[test]
    fn zram_backing_dev_values() {
        let t = tree();
        write(t.path(), "sys/block/zram0/backing_dev", "none\n");
        let root = Root::at(t.path());
        let m = read(&root, &[swap("/dev/zram0", "partition")]);
        assert_eq!(
            m[0].zram.as_ref().unwrap().has_writeback_device(),
            Some(false)
        );
        assert!(m[0].zram.as_ref().unwrap().writeback_supported());
        write(t.path(), "sys/block/zram0/backing_dev", "/dev/vda3\n");
        let m = read(&root, &[swap("/dev/zram0", "partition")]);
        assert_eq!(
            m[0].zram.as_ref().unwrap().has_writeback_device(),
            Some(true)
        );
    }

    #[test]
    fn swapfile_in_a_captured_tree_is_unknown() {
        // The 6.18 idle capture: /swapfile-test on vda, but a tree cannot say which device holds
        // a file, so nothing is claimed.
        let root = Root::at(format!(
            "{}/tests/fixtures/linux-6.18-idle",
            env!("CARGO_MANIFEST_DIR")
        ));
        let m = read(&root, &[swap("/swapfile-test", "file")]);
        assert!(m[0].device.is_none());
        assert_eq!(m[0].rotational(), None);
        assert!(m[0].unmapped.as_ref().unwrap().contains("swapfile"));
    }

    #[test]
    fn unknown_partition_is_unmapped() {
        let t = tree();
        let m = read(&Root::at(t.path()), &[swap("/dev/sdz9", "partition")]);
        assert!(m[0].device.is_none());
        assert_eq!(m[0].rotational(), None);
        assert!(m[0].unmapped.as_ref().unwrap().contains("/dev/sdz9"));
        let m = read(&Root::at(t.path()), &[swap("/dev/../etc", "partition")]);
        assert!(m[0].device.is_none());
    }

    #[test]
    fn uevent_only_devnum_entry_resolves_by_name() {
        // The idle capture keeps sys/dev/block/254:0/uevent (DEVNAME=vda) as a plain directory.
        let t = tree();
        write(
            t.path(),
            "sys/dev/block/254:0/uevent",
            "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n",
        );
        let root = Root::at(t.path());
        let dir = by_devnum(
            &root,
            DevNum {
                major: 254,
                minor: 0,
            },
        )
        .unwrap();
        assert_eq!(file_name(&dir), "vda");
        assert_eq!(disks_below(&root, &dir, 0)[0].rotational, Some(true));
    }

    #[test]
    fn live_swap_devices_map() {
        // On the live system every active swap area's device is found by stat(); a swapfile on
        // a btrfs-like anonymous device is the only allowed exception.
        let root = Root::live();
        let Ok(swaps) = super::super::swaps::read(&root) else {
            return;
        };
        for b in read(&root, &swaps) {
            assert!(
                b.device.is_some() || b.devnum.is_some_and(|d| d.major == 0),
                "{b:?}"
            );
        }
    }
}
