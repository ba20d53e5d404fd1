//! Resolving a path of a captured tree (`--root`) from the tree's own directory descriptor, so
//! that nothing the tree does while it is read (a directory swapped for a link, a link rewritten)
//! leads a read out of it.
//!
//! Checking a path once resolved and then opening it by name leaves a window in which a
//! component can be swapped for a link to anywhere. Here every lookup starts at the tree's
//! directory descriptor and the kernel (or the walk below) refuses to leave it:
//!
//! - `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS` (Linux 5.6+): links are
//!   followed as long as they stay beneath the tree; an absolute link, a `..` above the tree's
//!   directory or a procfs magic link (`/proc/self/fd/N`, `/proc/PID/root`) fails the lookup.
//! - Where `openat2` is missing (ENOSYS: a kernel before 5.6, or a seccomp filter that does not
//!   know it), [`walk`] does the same one component at a time, each opened `O_PATH | O_NOFOLLOW`
//!   from the descriptor of the directory before it. A link's text is read and its components
//!   resolved in turn from that same directory; an absolute one is refused, and `..` goes back
//!   to the directory descriptor held before, never above the tree's own. A magic link's text
//!   is either absolute (refused) or a name like `pipe:[42]` that is looked up as a plain name:
//!   the walk never jumps through one.
//!
//! Which links inside a tree are followed, then: relative ones that stay beneath it. The
//! fixture trees and `scripts/capture-fixture.sh` rely on exactly those: `/sys/dev/block/MAJ:MIN`
//! → `../../block/vda`, a dm device's `slaves/sdb1` → `../../sdb/sdb1`, and a live sysfs read as
//! a tree has `/sys/block/vda` → `../devices/…`. An absolute link, even one naming a path inside
//! the tree, is refused: the tree does not know where it was copied to.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fs::{FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// Set once `openat2` answered ENOSYS: every later lookup walks.
static NO_OPENAT2: AtomicBool = AtomicBool::new(false);

/// The most links one lookup follows (the kernel's own limit, `MAXSYMLINKS`).
const MAX_LINKS: usize = 40;

/// How often a lookup that met a rename or mount (EAGAIN) is tried again.
const RETRIES: usize = 16;

/// How to look up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// `openat2` where the kernel has it, else [`walk`].
    Kernel,
    /// Always [`walk`] (tests run it where `openat2` exists).
    Walk,
}

fn how() -> How {
    if NO_OPENAT2.load(Ordering::Relaxed) {
        How::Walk
    } else {
        How::Kernel
    }
}

/// Open `rel` beneath `dir` with `flags` (`O_PATH`, `O_RDONLY | O_DIRECTORY`, or a read-only
/// open of a file). EXDEV: the path leads out of the tree.
pub(crate) fn open(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> io::Result<OwnedFd> {
    open_with(how(), dir, rel, flags)
}

pub(crate) fn open_with(
    how: How,
    dir: BorrowedFd<'_>,
    rel: &Path,
    flags: OFlags,
) -> io::Result<OwnedFd> {
    if how == How::Kernel {
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
        let rel = if rel.as_os_str().is_empty() {
            Path::new(".")
        } else {
            rel
        };
        let mut tries = 0;
        loop {
            match rustix::fs::openat2(dir, rel, flags | OFlags::CLOEXEC, Mode::empty(), resolve) {
                Ok(fd) => return Ok(fd),
                Err(Errno::NOSYS) => {
                    NO_OPENAT2.store(true, Ordering::Relaxed);
                    break;
                }
                // A rename or mount somewhere during the lookup: the kernel could not vouch
                // that `..` stayed beneath. Trying again is what openat2(2) advises.
                Err(Errno::AGAIN) if tries < RETRIES => tries += 1,
                // A magic link, or a loop: the walk tells which (a magic link's text is
                // absolute, or a name that is not there).
                Err(Errno::LOOP) => return walk(dir, rel, flags).map(|(fd, _)| fd),
                Err(e) => return Err(e.into()),
            }
        }
    }
    walk(dir, rel, flags).map(|(fd, _)| fd)
}

/// The path `rel` leads to beneath `dir`, every link resolved (relative to `dir`).
pub(crate) fn canonical(dir: BorrowedFd<'_>, rel: &Path) -> io::Result<PathBuf> {
    walk(dir, rel, OFlags::PATH).map(|(_, names)| names.iter().collect())
}

/// Look `rel` up from `dir` one component at a time (see the module's notes), and open what it
/// leads to with `flags`. Also returns the names of the directories passed through on the way
/// down, and the last: the path without links, relative to `dir`.
fn walk(dir: BorrowedFd<'_>, rel: &Path, flags: OFlags) -> io::Result<(OwnedFd, Vec<OsString>)> {
    // Components still to resolve, the next last.
    let mut todo: Vec<OsString> = Vec::new();
    push_components(&mut todo, rel)?;
    // The directories entered below `dir`, with their names.
    let mut stack: Vec<(OwnedFd, OsString)> = Vec::new();
    let mut links = 0;
    while let Some(name) = todo.pop() {
        if name == ".." {
            if stack.pop().is_none() {
                return Err(Errno::XDEV.into());
            }
            continue;
        }
        let parent = stack.last().map_or(dir, |(fd, _)| fd.as_fd());
        let fd = rustix::fs::openat(
            parent,
            name.as_os_str(),
            OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let kind = FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode);
        if kind == FileType::Symlink {
            links += 1;
            if links > MAX_LINKS {
                return Err(Errno::LOOP.into());
            }
            let target = rustix::fs::readlinkat(&fd, c"", Vec::new())?;
            push_components(
                &mut todo,
                Path::new(std::ffi::OsStr::from_bytes(target.as_bytes())),
            )?;
            continue;
        }
        if todo.is_empty() {
            // The last component: open it as asked, by name from its directory (no link can
            // have taken its place: `O_NOFOLLOW`).
            let fd = if flags == OFlags::PATH {
                fd
            } else {
                rustix::fs::openat(
                    parent,
                    name.as_os_str(),
                    flags | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                    Mode::empty(),
                )?
            };
            let mut names: Vec<OsString> = stack.into_iter().map(|(_, n)| n).collect();
            names.push(name);
            return Ok((fd, names));
        }
        if kind != FileType::Directory {
            return Err(Errno::NOTDIR.into());
        }
        stack.push((fd, name));
    }
    // The path ended in the directory last entered (or the tree's own: `..` back to it, or
    // nothing at all).
    let names: Vec<OsString> = stack.iter().map(|(_, n)| n.clone()).collect();
    let here = stack.last().map_or(dir, |(fd, _)| fd.as_fd());
    let fd = rustix::fs::openat(here, c".", flags | OFlags::CLOEXEC, Mode::empty())?;
    Ok((fd, names))
}

/// Queue `path`'s components to be resolved before those already queued. An absolute path
/// leaves the tree.
fn push_components(todo: &mut Vec<OsString>, path: &Path) -> io::Result<()> {
    let mut parts = Vec::new();
    for c in path.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => return Err(Errno::XDEV.into()),
            Component::CurDir => {}
            Component::ParentDir => parts.push(OsString::from("..")),
            Component::Normal(n) => parts.push(n.to_os_string()),
        }
    }
    todo.extend(parts.into_iter().rev());
    Ok(())
}

/// Open for reading the file an `O_PATH` descriptor stands for, through its `/proc/self/fd`
/// link: the same file whatever happened to its name since, and nothing but a regular file is
/// ever opened (opening a device can start it: a tape rewinds, a watchdog arms). `None` when
/// the process has no `/proc` to reopen through.
pub(crate) fn reopen(path_fd: &OwnedFd) -> Option<io::Result<OwnedFd>> {
    let link = format!("/proc/self/fd/{}", path_fd.as_raw_fd());
    match rustix::fs::open(
        link.as_str(),
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Err(Errno::NOENT) => None,
        other => Some(other.map_err(io::Error::from)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    /// A tree with links of every kind: inside, up and out, absolute, looping.
    fn tree() -> (tempfile::TempDir, OwnedFd) {
        let t = tempfile::tempdir().unwrap();
        let r = t.path().join("tree");
        fs::create_dir_all(r.join("proc")).unwrap();
        fs::create_dir_all(r.join("sys/block/vda")).unwrap();
        fs::create_dir_all(r.join("sys/dev/block")).unwrap();
        fs::create_dir_all(t.path().join("outside")).unwrap();
        fs::write(t.path().join("outside/meminfo"), "MemTotal: 1 kB\n").unwrap();
        fs::write(r.join("proc/real"), "7\n").unwrap();
        fs::write(r.join("sys/block/vda/dev"), "254:0\n").unwrap();
        symlink("real", r.join("proc/inside")).unwrap();
        symlink("../proc/real", r.join("proc/up_and_back")).unwrap();
        symlink("../../block/vda", r.join("sys/dev/block/254:0")).unwrap();
        symlink("../../outside/meminfo", r.join("proc/out")).unwrap();
        symlink("/etc/passwd", r.join("proc/absolute")).unwrap();
        symlink(r.join("proc/real"), r.join("proc/absolute_inside")).unwrap();
        symlink("b", r.join("proc/a")).unwrap();
        symlink("a", r.join("proc/b")).unwrap();
        let dir = rustix::fs::open(
            &r,
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap();
        (t, dir)
    }

    fn read(how: How, dir: &OwnedFd, rel: &str) -> Result<String, Errno> {
        let fd = open_with(how, dir.as_fd(), Path::new(rel), OFlags::RDONLY)
            .map_err(|e| Errno::from_io_error(&e).unwrap())?;
        Ok(fs::read_to_string(format!("/proc/self/fd/{}", fd.as_raw_fd())).unwrap())
    }

    /// Both ways of looking up answer alike: links that stay beneath are followed, every way
    /// out is EXDEV.
    #[test]
    fn links_are_followed_beneath_and_no_further() {
        let (_t, dir) = tree();
        for how in [How::Kernel, How::Walk] {
            for inside in [
                "proc/real",
                "proc/inside",
                "proc/up_and_back",
                "proc/../proc/real",
                "./proc/./real",
            ] {
                assert_eq!(
                    read(how, &dir, inside).as_deref(),
                    Ok("7\n"),
                    "{how:?} {inside}"
                );
            }
            for out in [
                "proc/out",
                "proc/absolute",
                "proc/absolute_inside",
                "../outside/meminfo",
                "proc/../../outside/meminfo",
                "sys/dev/block/254:0/../../../../outside/meminfo",
            ] {
                assert_eq!(read(how, &dir, out), Err(Errno::XDEV), "{how:?} {out}");
            }
            assert_eq!(read(how, &dir, "proc/a"), Err(Errno::LOOP), "{how:?}");
            assert_eq!(
                read(how, &dir, "proc/real/x"),
                Err(Errno::NOTDIR),
                "{how:?}"
            );
            assert_eq!(read(how, &dir, "proc/none"), Err(Errno::NOENT), "{how:?}");
            // A directory through a link, opened to list.
            let listed = open_with(
                how,
                dir.as_fd(),
                Path::new("sys/dev/block/254:0"),
                OFlags::RDONLY | OFlags::DIRECTORY,
            )
            .unwrap();
            let names: Vec<_> = rustix::fs::Dir::new(listed)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != "." && n != "..")
                .collect();
            assert_eq!(names, ["dev"], "{how:?}");
            let e = open_with(
                how,
                dir.as_fd(),
                Path::new("proc/real"),
                OFlags::RDONLY | OFlags::DIRECTORY,
            )
            .unwrap_err();
            assert_eq!(Errno::from_io_error(&e), Some(Errno::NOTDIR), "{how:?}");
        }
        assert_eq!(
            canonical(dir.as_fd(), Path::new("sys/dev/block/254:0/dev")).unwrap(),
            Path::new("sys/block/vda/dev")
        );
        assert_eq!(
            canonical(dir.as_fd(), Path::new("proc/up_and_back")).unwrap(),
            Path::new("proc/real")
        );
        assert_eq!(
            canonical(dir.as_fd(), Path::new("")).unwrap(),
            Path::new("")
        );
        let e = canonical(dir.as_fd(), Path::new("proc/out")).unwrap_err();
        assert_eq!(Errno::from_io_error(&e), Some(Errno::XDEV));
    }

    /// procfs read as a tree (a tree at `/`): `/proc/self` is an ordinary link and is
    /// followed, but a magic link (`/proc/self/fd/N`) is never jumped through.
    #[test]
    fn magic_links_are_not_followed() {
        let t = tempfile::tempdir().unwrap();
        let secret = t.path().join("secret");
        fs::write(&secret, "outside the tree\n").unwrap();
        let file = fs::File::open(&secret).unwrap();
        let (pipe_r, _pipe_w) = std::io::pipe().unwrap();
        let slash = rustix::fs::open(
            "/",
            OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .unwrap();
        for how in [How::Kernel, How::Walk] {
            let status = read(how, &slash, "proc/self/status").unwrap();
            assert!(status.starts_with("Name:"), "{how:?}");
            let to_file = format!("proc/self/fd/{}", file.as_raw_fd());
            assert_eq!(read(how, &slash, &to_file), Err(Errno::XDEV), "{how:?}");
            let to_pipe = format!("proc/self/fd/{}", pipe_r.as_raw_fd());
            assert!(read(how, &slash, &to_pipe).is_err(), "{how:?}");
            assert!(
                read(how, &slash, "proc/self/root/etc/hostname").is_err(),
                "{how:?}"
            );
        }
    }

    /// An `O_PATH` descriptor is opened to read as the file it stands for, even after its
    /// name was given to another file.
    #[test]
    fn reopening_reads_the_file_looked_up() {
        let (t, dir) = tree();
        let found = open(dir.as_fd(), Path::new("proc/real"), OFlags::PATH).unwrap();
        let real = t.path().join("tree/proc/real");
        fs::rename(&real, t.path().join("tree/proc/moved")).unwrap();
        fs::write(&real, "other\n").unwrap();
        let fd = reopen(&found).unwrap().unwrap();
        let text = fs::read_to_string(format!("/proc/self/fd/{}", fd.as_raw_fd())).unwrap();
        assert_eq!(text, "7\n");
    }
}
