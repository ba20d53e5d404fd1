//! The header's facts: what the figures are of (the tool, the host, its kernel and uptime, who
//! read them, the tree they were read from, the page size) and the memory pressure.
//!
//! The dashboard's header, the one screen's first line and `--full`'s first lines place these;
//! where a line is too narrow the layouts drop whole facts, never half of one.

use super::{Depth, Fact, Tone};
use crate::display as f;
use crate::model::Snapshot;

/// The pressure is a dashboard and `--full` figure: the one screen's 22 lines go to where the
/// memory is.
const NOT_ONE_SCREEN: &[Depth] = &[Depth::Full, Depth::Dashboard];

/// Every fact of the section, in the order the header says them.
pub fn facts(s: &Snapshot) -> Vec<Fact> {
    let h = &s.host;
    let version = s.tool.version.clone();
    let mut tool = Fact::labelled("header.tool", "zswaptop", version.clone(), version);
    tool.tight = tool.long.clone();
    let named = |key, label, v: &Option<String>| {
        let v = v.clone().unwrap_or_else(|| f::MISSING.to_string());
        Fact::labelled(key, label, v.clone(), v)
    };
    let up = f::duration_secs(h.uptime_seconds);
    let who = if h.privileged { "root" } else { "not root" };
    let mut who = Fact::labelled("header.who", "read as", who.into(), who.into())
        .tone(if h.privileged { Tone::Ok } else { Tone::Warn });
    // Said as the word alone: "root", "not root".
    (who.long, who.short, who.tight) = (who.value.clone(), who.value.clone(), who.value.clone());
    let mut out = vec![
        tool,
        named("header.host", "host", &h.hostname),
        named("header.kernel", "kernel", &h.kernel),
        Fact::labelled("header.uptime", "up", up.clone(), up),
        who,
    ];
    if h.root != "/" {
        let mut tree = Fact::labelled("header.tree", "tree", h.root.clone(), h.root.clone());
        tree.long = format!("reading tree {}", h.root);
        // The dashboard's first line gives it up first when the line is too narrow (the tree's
        // path is the longest field there and the one a person set themselves).
        tree.depths = &[Depth::OneScreen, Depth::Full];
        out.push(tree.tone(Tone::Dim));
    }
    let page = s.page_size.bytes.to_string();
    let mut page = Fact::labelled("header.page_size", "page size", page.clone(), page);
    page.long = format!("page size {} ({})", s.page_size.bytes, s.page_size.source);
    page.depths = &[Depth::Full];
    out.push(page.tone(Tone::Dim));
    out.push(pressure(s));
    out
}

/// Memory pressure over the last 10 s (PSI): the share of time some task, and all tasks, waited
/// for memory. Missing where the kernel has no PSI.
fn pressure(s: &Snapshot) -> Fact {
    let (value, tight) = match &s.psi {
        Some(p) => (
            format!("some {:.2}% full {:.2}%", p.some_avg10, p.full_avg10),
            format!("PSI {:.2}%/{:.2}%", p.some_avg10, p.full_avg10),
        ),
        None => (f::MISSING.to_string(), format!("PSI {}", f::MISSING)),
    };
    let mut fact = Fact::labelled("header.pressure", "memory pressure", value.clone(), value);
    fact.long = format!("memory pressure avg10 {}", fact.value);
    fact.short = format!("PSI memory avg10 {}", fact.value);
    fact.tight = tight;
    fact.depths = NOT_ONE_SCREEN;
    match &s.psi {
        Some(p) if p.full_avg10 >= 10.0 => fact.tone(Tone::Crit),
        Some(p) if p.some_avg10 >= 10.0 => fact.tone(Tone::Warn),
        Some(_) => fact,
        None => fact.tone(Tone::Dim),
    }
}
