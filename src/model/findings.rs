//! What the diagnostics rules produce. The rules run after the model (`crate::diagnostics`);
//! these are the types a snapshot carries their verdicts in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

use crate::sanitize::Sanitize;

/// One diagnostic finding (see the diagnostics rules).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct Finding {
    #[schemars(regex(pattern = r"^[a-z0-9]+(-[a-z0-9]+)*$"))]
    pub id: String,
    pub severity: Severity,
    pub summary: String,
    pub evidence: Vec<String>,
    pub fix: String,
    pub why: String,
}

/// A tunable, its current value, and the value suggested for the detected swap setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Sanitize, JsonSchema)]
pub struct TunableAdvice {
    /// `vm.swappiness`, `transparent_hugepage.enabled`, … (the keys of `tunables`).
    pub name: Cow<'static, str>,
    /// As read; `None` when it could not be.
    pub current: Option<String>,
    pub suggested: Cow<'static, str>,
    /// One line on why.
    pub why: Cow<'static, str>,
    /// The kernel documentation describes the trade-off but not this exact value.
    pub opinion: bool,
    /// The setup the suggestion is for: "zswap + disk swap", "zram only", "disk swap only", …
    pub setup: Cow<'static, str>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Sanitize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warn,
    Crit,
}
