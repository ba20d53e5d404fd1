//! A small tmpfs to fill: mounted as root under the machine's kernel lock
//! (`/tmp/zswaptop-kernel.lock`, which every change to kernel state takes), unmounted on drop.

use std::fs::{self, File};
use std::path::Path;

pub struct SmallDisk {
    pub dir: tempfile::TempDir,
    /// Held from before the mount to after the unmount.
    _lock: File,
}

impl SmallDisk {
    /// A tmpfs of `size` (`64k`), or why there cannot be one (not root, no mount).
    pub fn mount(size: &str) -> Result<SmallDisk, String> {
        if rustix::process::geteuid().as_raw() != 0 {
            return Err("not root: cannot mount a small tmpfs".into());
        }
        let lock = File::options()
            .create(true)
            .append(true)
            .open("/tmp/zswaptop-kernel.lock")
            .map_err(|e| format!("the kernel lock: {e}"))?;
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| format!("the kernel lock: {e}"))?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let out = std::process::Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(dir.path())
            .output()
            .map_err(|e| format!("mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(SmallDisk { dir, _lock: lock })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fill the disk with a file of zeros until a write fails.
    pub fn fill(&self, name: &str) {
        use std::io::Write;
        let mut f = File::create(self.path().join(name)).unwrap();
        let chunk = vec![0u8; 4096];
        while f.write_all(&chunk).is_ok() {}
        let _ = f.write_all(&[0]);
    }

    pub fn free(&self, name: &str) {
        fs::remove_file(self.path().join(name)).unwrap();
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}
