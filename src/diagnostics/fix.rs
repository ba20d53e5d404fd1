//! The fix commands' building blocks: every value a fix pastes into a root shell made one shell
//! word ([`sh`]), a sysfs path, an fstab field, a kernel command-line word and how to keep it, a
//! sysctl or a zswap parameter set now and kept. The rules (`super::rules`) say what to run with
//! these; `advise` quotes its commands through them too.

use std::fmt::Write as _;

/// `value` as exactly one shell word. Every value a fix puts into a command (paths, device and
/// algorithm names, numbers) comes from the kernel or a captured tree and is pasted into a root
/// shell, so each one goes through here: `/var/swap;id` comes out as `'/var/swap;id'`.
pub(crate) fn sh(value: &str) -> String {
    // A NUL byte is the one thing no shell word can hold: show it inert instead.
    let value = value.replace('\0', "\\0");
    if value.chars().any(crate::sanitize::is_unsafe) {
        return ansi_c_quoted(&value);
    }
    shlex::try_quote(&value).map_or_else(|_| "''".to_string(), |q| q.into_owned())
}

/// `value` as one bash/zsh `$'…'` word whose escapes stand for the characters a terminal must
/// not see raw (controls, bidi and other format characters, line separators): the command shown
/// stays runnable, and the safety step that runs after the rules finds nothing left to escape (a
/// plain quote would be escaped there into a word that names another file).
fn ansi_c_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 8);
    out.push_str("$'");
    for c in value.chars() {
        match c {
            '\\' | '\'' => {
                out.push('\\');
                out.push(c);
            }
            c if crate::sanitize::is_unsafe(c) => {
                let n = u32::from(c);
                let _ = match n {
                    0..=0x7f => write!(out, "\\x{n:02x}"),
                    0x80..=0xffff => write!(out, "\\u{n:04x}"),
                    _ => write!(out, "\\U{n:08x}"),
                };
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `/sys/block/<device>/<file>` as one shell word.
pub(super) fn sys_block(device: &str, file: &str) -> String {
    sh(&format!("/sys/block/{device}/{file}"))
}

/// A name that can go as it is into a config file or the kernel command line: kernel algorithm
/// names are letters, digits, `-`, `_` and `.` (`lzo-rle`, `842`). Anything else cannot be one.
pub(super) fn plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// A path as an /etc/fstab field: whitespace and backslashes octal-escaped, as fstab(5) reads them.
pub(super) fn fstab_field(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for ch in path.chars() {
        match ch {
            ' ' | '\t' | '\n' | '\\' => out.push_str(&format!("\\{:03o}", ch as u32)),
            _ => out.push(ch),
        }
    }
    out
}

/// How to make a kernel command-line word permanent.
pub(crate) fn cmdline(word: &str) -> String {
    format!(
        "add `{word}` to the kernel command line (GRUB_CMDLINE_LINUX in /etc/default/grub, then \
         `sudo update-grub`; Fedora: `sudo grubby --update-kernel=ALL --args={}`)",
        sh(word)
    )
}

/// Set a vm sysctl now and keep it.
pub(super) fn sysctl_fix(name: &str, value: i64) -> String {
    format!(
        "`sudo sysctl -w vm.{name}={value}`; to keep it across reboots: \
         `echo 'vm.{name} = {value}' | sudo tee -a /etc/sysctl.d/90-swap.conf`"
    )
}

/// Set a zswap parameter now and keep it (`value` as sysfs takes it, `boot` as the command line).
pub(super) fn zswap_param_fix(param: &str, value: &str, boot: &str) -> String {
    format!(
        "`echo {} | sudo tee /sys/module/zswap/parameters/{param}`; to make it permanent, {}",
        sh(value),
        cmdline(&format!("zswap.{param}={boot}"))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_one_shell_word() {
        assert_eq!(sh("/dev/zram0"), "/dev/zram0");
        assert_eq!(sh("/var/swap;id"), "'/var/swap;id'");
        assert_eq!(sh(""), "''");
        assert_eq!(
            shlex::split(&sh("a\0b'c")),
            Some(vec!["a\\0b'c".to_string()])
        );
        assert_eq!(fstab_field("/a b\\c\td\ne"), "/a\\040b\\134c\\011d\\012e");
        assert!(plain_name("lzo-rle") && plain_name("842") && !plain_name("zstd;id"));
    }

    /// A value a terminal must not see raw becomes a `$'…'` word that the safety step leaves
    /// alone and that bash reads back as the value itself.
    #[test]
    fn unsafe_values_are_ansi_c_quoted() {
        let value = "/swap\u{202e}gnp.exe it's\x1b\u{85}\\";
        let word = sh(value);
        assert_eq!(word, "$'/swap\\u202egnp.exe it\\'s\\x1b\\u0085\\\\'");
        assert!(!word.chars().any(crate::sanitize::is_unsafe));
        let Ok(out) = std::process::Command::new("bash")
            .args(["-c", &format!("printf %s {word}")])
            .output()
        else {
            crate::console::plain("skipped running bash: not installed");
            return;
        };
        assert_eq!(String::from_utf8_lossy(&out.stdout), value);
        assert!(plain_name("lzo-rle") && plain_name("842") && !plain_name("zstd;id"));
        assert!(!plain_name(""));
    }
}
