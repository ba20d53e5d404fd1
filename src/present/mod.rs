//! What people read, declared once: each section turns a snapshot into *facts* (a label, the
//! value worded, a long and a short phrase, a tone, and the outputs it belongs to). The
//! dashboard's panels (`ui::panels`), the one screen (`report::summary`) and `--once --full`
//! (`report::text`) only place the facts and wrap them; none of them words a figure itself.
//!
//! A fact's label is the registry's where the fact is a registry figure (a typed handle such as
//! [`metrics::ZSWAP_POOL_BYTES`]), so a graph legend, a CSV column and the text name the figure
//! alike. Nothing here knows of a terminal or of ratatui: a tone is a name each front end paints.
//!
//! # Adding a figure people read
//!
//! One [`Fact`] in its section's file (`header.rs`, `memory.rs`, `zswap.rs`, `swap.rs`, `zram.rs`,
//! `outlook.rs`, `processes.rs`, `cgroups.rs`, `findings.rs`): it then reaches every output
//! its [`Fact::depths`] names, through the layouts that already place that section's facts.
//! `tests/integration/present.rs` checks that every fact reaches every output it claims.
//!
//! [`metrics::ZSWAP_POOL_BYTES`]: crate::model::metrics::ZSWAP_POOL_BYTES

pub mod cgroups;
pub mod findings;
pub mod header;
pub mod memory;
pub mod outlook;
pub mod processes;
pub mod swap;
pub mod swapin;
pub mod zram;
pub mod zswap;

use crate::model::Snapshot;

/// How a fact reads: fine, worth a look, serious, or by the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Ok,
    Warn,
    Crit,
    Dim,
}

/// An output people read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// `--once`: the answer on one 80×24 screen.
    OneScreen,
    /// `--once --full`: the complete report.
    Full,
    /// The dashboard's overview.
    Dashboard,
}

/// Every output people read.
pub const EVERYWHERE: &[Depth] = &[Depth::OneScreen, Depth::Full, Depth::Dashboard];

/// One thing a section says.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// Which fact this is (`zswap.pool`), for the layouts that place a fact apart and the tests.
    pub key: &'static str,
    /// What it is called (the registry's label where it is a registry figure).
    pub label: &'static str,
    /// The value in full (`476.0 MiB`, `94 %`), or the missing mark.
    pub value: String,
    /// The value in the fewest characters (`476M`): what a crowded line shows.
    pub value_short: String,
    /// The fact as a phrase, in full (`zswap served 94 % of swap-ins`).
    pub long: String,
    /// The fact as a phrase, short (`94% from zswap`).
    pub short: String,
    /// The fewest words that still say it (`wb 3.2M`, `2.14:1`), for a line that is full.
    pub tight: String,
    pub tone: Tone,
    /// The outputs it belongs to.
    pub depths: &'static [Depth],
}

impl Fact {
    /// A fact whose phrases are its label and its value.
    pub fn labelled(
        key: &'static str,
        label: &'static str,
        value: String,
        value_short: String,
    ) -> Fact {
        Fact {
            key,
            label,
            long: format!("{label} {value}"),
            short: format!("{label} {value_short}"),
            tight: format!("{label} {value_short}"),
            value,
            value_short,
            tone: Tone::Ok,
            depths: EVERYWHERE,
        }
    }

    /// Whether it belongs to the output `d`.
    pub fn at(&self, d: Depth) -> bool {
        self.depths.contains(&d)
    }

    pub fn tone(self, tone: Tone) -> Fact {
        Fact { tone, ..self }
    }

    /// With `tight` as its fewest words.
    pub fn tight(self, tight: String) -> Fact {
        Fact { tight, ..self }
    }
}

/// The fact `key` of `facts`, if the section says it.
pub fn find<'a>(facts: &'a [Fact], key: &str) -> Option<&'a Fact> {
    facts.iter().find(|f| f.key == key)
}

/// Every section and its facts, in the order people read them.
pub fn sections(s: &Snapshot) -> Vec<(&'static str, Vec<Fact>)> {
    vec![
        ("header", header::facts(s)),
        ("memory", memory::facts(s)),
        ("zswap", zswap::facts(s)),
        ("swap", swap::facts(s)),
        ("zram", zram::facts(s)),
        ("outlook", outlook::facts(s)),
        ("processes", processes::facts(s)),
        ("cgroups", cgroups::facts(s)),
        ("findings", findings::facts(s)),
    ]
}
