//! `--once` output: pure writers over a [`Snapshot`](crate::model::Snapshot), for any `Write`.

pub mod json;
pub mod openmetrics;
pub mod text;
