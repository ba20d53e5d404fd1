//! `zswaptop fleet`: every host that runs `zswaptop serve`, in one screen, worst first, read from
//! the Prometheus (or Thanos, Mimir, VictoriaMetrics) that scrapes them through its query API.
//! The distributed part stays Prometheus's: zswaptop only asks it.
//!
//! [`client`] speaks the HTTP API (bounded, with deadlines, TLS and auth as Prometheus's
//! `http_config`); [`query`] asks one instant query per figure and joins the answers by
//! `instance` into the [`model`] (worst first, a summary); [`text`] prints it within 80 columns,
//! and `--json` prints the model itself (its schema: `schema::fleet`). The dashboard's fleet view
//! is [`view`] (above the dashboard's layers, `src/layers.rs`).

pub mod client;
pub mod model;
pub mod query;
pub mod text;
pub mod view;

use std::io::Write;

use anyhow::Context as _;

pub use client::{Client, Http};
pub use query::Selector;

/// What `zswaptop fleet` was asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The query API's base URL.
    pub url: String,
    pub selector: Selector,
    pub http: Http,
    /// Print JSON (with `once`).
    pub json: bool,
}

/// The server's clock now (unix seconds): the moment every query of a look is asked at, so
/// that ages are taken on the clock the samples were stamped by.
pub fn server_time(client: &Client) -> Result<f64, client::Error> {
    let now = client.query("time()", None)?;
    Ok(now.first().map_or_else(
        || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64())
        },
        |s| s.value,
    ))
}

/// One look at the fleet, or why there is none (the server cannot be asked at all).
pub fn look(client: &Client, selector: &Selector) -> anyhow::Result<model::Fleet> {
    let time = server_time(client)?;
    let fleet = query::look(client, selector, time);
    if query::all_failed(&fleet) {
        anyhow::bail!(
            "every query to {} failed; the first: {}",
            client.url(),
            fleet.errors.first().map(String::as_str).unwrap_or("")
        );
    }
    Ok(fleet)
}

/// `zswaptop fleet --once [--json]`.
pub fn once(options: &Options, out: &mut impl Write) -> anyhow::Result<()> {
    let client = Client::new(&options.url, &options.http)?;
    let fleet = look(&client, &options.selector)?;
    if options.json {
        let doc = model::Document { fleet };
        serde_json::to_writer_pretty(&mut *out, &doc).context("writing the JSON")?;
        writeln!(out)?;
    } else {
        text::write(&fleet, out)?;
    }
    Ok(())
}
