//! A small blocking client of the Prometheus HTTP API (`/api/v1/query`, `/api/v1/query_range`),
//! which Thanos, Mimir and VictoriaMetrics answer too.
//!
//! hyper 1's HTTP/1.1 client connection over a tokio TCP stream (TLS by rustls with the ring
//! provider: what `serve` already builds on), on a current-thread runtime the client owns, so a
//! caller simply waits. Every exchange (connect, TLS handshake, request, whole answer) has one
//! deadline ([`Http::timeout`]) and the answer one bound ([`Http::max_bytes`]): a slow or huge
//! answer ends in a clear error, never a hang or an exhausted memory.
//!
//! The settings are those of Prometheus's own `http_config`: a CA file, a client certificate and
//! key, basic auth (a password file) or a bearer token file, a server name for the certificate.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::{Body, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use rustls::RootCertStore;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use serde::Deserialize;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::sanitize::visible;

/// The answer's bound unless told otherwise: 10,000 hosts' worth of one figure (a series is
/// ~200 bytes of JSON with its labels) with room to spare.
pub const DEFAULT_MAX_BYTES: u64 = 64 << 20;
/// The deadline of one exchange unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// The most a certificate, key, password or token file may hold.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// The system's CA bundle (Debian's ca-certificates), for `https` without a CA file.
const SYSTEM_CA: &str = "/etc/ssl/certs/ca-certificates.crt";

/// How to reach the API: Prometheus's `http_config`, as far as a reader needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct Http {
    pub timeout: Duration,
    pub max_bytes: u64,
    /// The CA certificates (PEM) the server's certificate must chain to; the system's without.
    pub ca_file: Option<PathBuf>,
    /// A client certificate and its key (PEM), both or neither.
    pub cert_file: Option<PathBuf>,
    pub key_file: Option<PathBuf>,
    /// The name the server's certificate must carry, when it is not the URL's host.
    pub server_name: Option<String>,
    /// Basic auth: the user, and the file holding the password (its first line).
    pub username: Option<String>,
    pub password_file: Option<PathBuf>,
    /// `Authorization: Bearer` with the file's first line.
    pub bearer_token_file: Option<PathBuf>,
}

impl Default for Http {
    fn default() -> Http {
        Http {
            timeout: DEFAULT_TIMEOUT,
            max_bytes: DEFAULT_MAX_BYTES,
            ca_file: None,
            cert_file: None,
            key_file: None,
            server_name: None,
            username: None,
            password_file: None,
            bearer_token_file: None,
        }
    }
}

/// What went wrong, said so that the reader knows where to look.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Setup(String),
    #[error("cannot connect to {0}: {1}")]
    Connect(String, std::io::Error),
    #[error("TLS with {0}: {1}")]
    Tls(String, std::io::Error),
    #[error("{0}: no complete answer within {1:?}")]
    Timeout(String, Duration),
    #[error("{0}: {1}")]
    Http(String, String),
    #[error("{0}: the answer is larger than {1} bytes (--max-bytes raises the bound)")]
    TooLarge(String, u64),
    #[error("{0}: status {1} ({2})")]
    Status(String, u16, String),
    #[error("{0}: the answer is not the query API's JSON: {1}")]
    NotJson(String, String),
    #[error("{0}: the server refused the query: {1}")]
    Api(String, String),
}

/// One series of an instant vector: its labels and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub labels: std::collections::BTreeMap<String, String>,
    pub value: f64,
}

/// One series of a range query: its labels and its (unix seconds, value) points.
#[derive(Debug, Clone, PartialEq)]
pub struct Range {
    pub labels: std::collections::BTreeMap<String, String>,
    pub points: Vec<(f64, f64)>,
}

/// The query API's envelope, its result read as `T`.
#[derive(Deserialize)]
struct Envelope<T> {
    status: String,
    #[serde(default = "Option::default")]
    data: Option<Data<T>>,
    #[serde(default, rename = "errorType")]
    error_type: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

#[derive(Deserialize)]
struct Data<T = serde_json::Value> {
    #[serde(rename = "resultType")]
    result_type: String,
    result: T,
}

/// One answer as it came: what it answers (for messages), its status and body.
struct Raw {
    what: String,
    status: StatusCode,
    body: Vec<u8>,
}

impl Raw {
    /// The envelope's data with its result read as `T`, or what went wrong.
    fn data<T: serde::de::DeserializeOwned>(&self) -> Result<Data<T>, Error> {
        envelope(self.what.clone(), self.status, &self.body)
    }
}

#[derive(Deserialize)]
struct VectorItem {
    metric: std::collections::BTreeMap<String, String>,
    value: (f64, String),
}

#[derive(Deserialize)]
struct MatrixItem {
    metric: std::collections::BTreeMap<String, String>,
    values: Vec<(f64, String)>,
}

/// A Prometheus (or compatible) query API at one URL.
pub struct Client {
    conn: Conn,
    runtime: tokio::runtime::Runtime,
}

/// How to reach the API: what each exchange needs (cloned into each of the queries asked at
/// once).
#[derive(Clone)]
struct Conn {
    /// The URL as given, for messages (without any user info).
    shown: String,
    host: String,
    port: u16,
    /// The path the API's paths go under (`/prometheus` behind a proxy), without a trailing `/`.
    prefix: String,
    tls: Option<(TlsConnector, ServerName<'static>)>,
    authorization: Option<HeaderValue>,
    timeout: Duration,
    max_bytes: u64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("url", &self.conn.shown)
            .finish()
    }
}

/// The first line of a small regular file (a password or a token).
fn secret(path: &Path, what: &str) -> Result<String, Error> {
    let bytes = read_file(path, what)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Error::Setup(format!("{what} '{}' is not UTF-8", path.display())))?;
    let line = text.lines().next().unwrap_or("").trim_end_matches('\r');
    if line.is_empty() {
        return Err(Error::Setup(format!(
            "{what} '{}' is empty",
            path.display()
        )));
    }
    Ok(line.to_string())
}

fn read_file(path: &Path, what: &str) -> Result<Vec<u8>, Error> {
    let fail = |e: crate::sys::SmallFileError| {
        Error::Setup(format!(
            "{what} '{}': {e}",
            visible(&path.to_string_lossy())
        ))
    };
    let (file, _) = crate::sys::open_regular(path).map_err(fail)?;
    crate::sys::read_capped(file, MAX_FILE_BYTES).map_err(fail)
}

fn pem_certs(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>, Error> {
    let bytes = read_file(path, what)?;
    let certs: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(&bytes).collect();
    match certs {
        Ok(c) if !c.is_empty() => Ok(c),
        Ok(_) => Err(Error::Setup(format!(
            "{what} '{}' holds no certificate",
            path.display()
        ))),
        Err(e) => Err(Error::Setup(format!("{what} '{}': {e}", path.display()))),
    }
}

/// The rustls client configuration `http` asks for.
fn tls_config(http: &Http) -> Result<rustls::ClientConfig, Error> {
    let mut roots = RootCertStore::empty();
    let (ca, what) = match &http.ca_file {
        Some(p) => (p.clone(), "ca_file"),
        None => (PathBuf::from(SYSTEM_CA), "the system's CA bundle"),
    };
    for cert in pem_certs(&ca, what)? {
        // A bundle may hold a certificate rustls cannot use; a CA file of ours may not.
        if let Err(e) = roots.add(cert)
            && http.ca_file.is_some()
        {
            return Err(Error::Setup(format!("ca_file '{}': {e}", ca.display())));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Setup(format!("TLS: {e}")))?
        .with_root_certificates(roots);
    match (&http.cert_file, &http.key_file) {
        (Some(cert), Some(key)) => {
            let chain = pem_certs(cert, "cert_file")?;
            let key_bytes = read_file(key, "key_file")?;
            let key = PrivateKeyDer::from_pem_slice(&key_bytes)
                .map_err(|e| Error::Setup(format!("key_file '{}': {e}", key.display())))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| Error::Setup(format!("cert_file and key_file: {e}")))
        }
        (None, None) => Ok(builder.with_no_client_auth()),
        _ => Err(Error::Setup(
            "a client certificate needs both cert_file and key_file".into(),
        )),
    }
}

/// `s` percent-encoded for a query string (everything but RFC 3986's unreserved characters).
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3 / 2);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Client {
    /// A client of the API at `url` (`http://host:port[/prefix]` or `https://…`).
    pub fn new(url: &str, http: &Http) -> Result<Client, Error> {
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| Error::Setup(format!("--prometheus '{}': {e}", visible(url))))?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => {
                return Err(Error::Setup(format!(
                    "--prometheus '{}': the URL must begin with http:// or https://",
                    visible(url)
                )));
            }
        };
        let auth = uri
            .authority()
            .ok_or_else(|| Error::Setup(format!("--prometheus '{}': no host", visible(url))))?;
        if auth.as_str().contains('@') {
            return Err(Error::Setup(
                "--prometheus: give a user with --username and --password-file, not in the URL"
                    .into(),
            ));
        }
        let host = auth.host().trim_start_matches('[').trim_end_matches(']');
        let port = auth.port_u16().unwrap_or(if https { 443 } else { 80 });
        let prefix = uri.path().trim_end_matches('/').to_string();
        let tls = if https {
            let name = http.server_name.clone().unwrap_or_else(|| host.to_string());
            let server = ServerName::try_from(name.clone())
                .map_err(|e| Error::Setup(format!("server name '{}': {e}", visible(&name))))?;
            Some((TlsConnector::from(Arc::new(tls_config(http)?)), server))
        } else {
            if http.ca_file.is_some() || http.cert_file.is_some() {
                return Err(Error::Setup(
                    "a CA file or a client certificate needs an https:// URL".into(),
                ));
            }
            None
        };
        let authorization = match (&http.username, &http.password_file, &http.bearer_token_file) {
            (Some(_), _, Some(_)) => {
                return Err(Error::Setup(
                    "basic auth and a bearer token: give one".into(),
                ));
            }
            (Some(user), password, None) => {
                use base64::Engine as _;
                let password = match password {
                    Some(p) => secret(p, "password_file")?,
                    None => String::new(),
                };
                let token =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                Some(format!("Basic {token}"))
            }
            (None, Some(_), _) => {
                return Err(Error::Setup(
                    "a password file needs a user (--username)".into(),
                ));
            }
            (None, None, Some(file)) => {
                Some(format!("Bearer {}", secret(file, "bearer_token_file")?))
            }
            (None, None, None) => None,
        };
        let authorization = match authorization {
            Some(a) => Some(HeaderValue::from_str(&a).map_err(|_| {
                Error::Setup("the credentials hold a character a header cannot carry".into())
            })?),
            None => None,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Setup(format!("the I/O runtime: {e}")))?;
        let shown = format!(
            "{}://{}{}",
            if https { "https" } else { "http" },
            auth.as_str(),
            prefix
        );
        Ok(Client {
            conn: Conn {
                shown: visible(&shown).into_owned(),
                host: host.to_string(),
                port,
                prefix,
                tls,
                authorization,
                timeout: http.timeout,
                max_bytes: http.max_bytes,
            },
            runtime,
        })
    }

    /// The URL, as messages show it.
    pub fn url(&self) -> &str {
        &self.conn.shown
    }

    /// An instant query at `time` (unix seconds; the server's now without): its vector.
    pub fn query(&self, promql: &str, time: Option<f64>) -> Result<Vec<Sample>, Error> {
        self.query_all(&[promql], time)
            .pop()
            .unwrap_or_else(|| Err(Error::Setup("no query".into())))
    }

    /// Instant queries at `time`, asked at once (each on its own connection): their vectors, in
    /// order. One look at 10,000 hosts is a dozen queries the engine answers in parallel.
    pub fn query_all(&self, promql: &[&str], time: Option<f64>) -> Vec<Result<Vec<Sample>, Error>> {
        let queries: Vec<String> = promql
            .iter()
            .map(|p| {
                let mut q = format!("query={}", encode(p));
                if let Some(t) = time {
                    q.push_str(&format!("&time={t:.3}"));
                }
                q
            })
            .collect();
        self.api_all("/api/v1/query", queries)
            .into_iter()
            .map(|raw| vector(&raw?))
            .collect()
    }

    /// A range query from `start` to `end` (unix seconds) every `step` seconds.
    pub fn query_range(
        &self,
        promql: &str,
        start: f64,
        end: f64,
        step: f64,
    ) -> Result<Vec<Range>, Error> {
        let q = format!(
            "query={}&start={start:.3}&end={end:.3}&step={step}",
            encode(promql)
        );
        let raw = self
            .api_all("/api/v1/query_range", vec![q])
            .pop()
            .unwrap_or_else(|| Err(Error::Setup("no query".into())))?;
        let items: Vec<MatrixItem> = match raw.data::<Vec<MatrixItem>>() {
            Ok(d) if d.result_type == "matrix" => d.result,
            _ => {
                let d = raw.data::<serde_json::Value>()?;
                let why = if d.result_type == "matrix" {
                    "a matrix of another shape".to_string()
                } else {
                    format!(
                        "a result of type '{}' where a matrix was asked",
                        visible(&d.result_type)
                    )
                };
                return Err(Error::NotJson(raw.what, why));
            }
        };
        Ok(items
            .into_iter()
            .map(|i| Range {
                labels: i.metric,
                points: i
                    .values
                    .into_iter()
                    .filter_map(|(t, v)| Some((t, parse_value(&v)?)))
                    .collect(),
            })
            .collect())
    }

    /// GET `path?query` for each query at once: each answer, or why there is none.
    fn api_all(&self, path: &str, queries: Vec<String>) -> Vec<Result<Raw, Error>> {
        let what = format!("{}{}", self.conn.shown, path);
        let asks = queries
            .into_iter()
            .map(|q| (format!("{}{path}?{q}", self.conn.prefix), what.clone()))
            .collect();
        self.get_all(asks)
            .into_iter()
            .map(|answer| {
                let (status, body) = answer?;
                Ok(Raw {
                    what: what.clone(),
                    status,
                    body,
                })
            })
            .collect()
    }

    /// The GETs `asks` (path and query, what to call it), at once, each within the deadline:
    /// each status and whole body, in order.
    fn get_all(&self, asks: Vec<(String, String)>) -> Vec<Result<(StatusCode, Vec<u8>), Error>> {
        self.runtime.block_on(async {
            let tasks: Vec<_> = asks
                .into_iter()
                .map(|(path, what)| {
                    let conn = self.conn.clone();
                    tokio::spawn(async move {
                        match tokio::time::timeout(conn.timeout, conn.exchange(&path, &what)).await
                        {
                            Ok(r) => r,
                            Err(_) => Err(Error::Timeout(what, conn.timeout)),
                        }
                    })
                })
                .collect();
            let mut out = Vec::with_capacity(tasks.len());
            for t in tasks {
                out.push(match t.await {
                    Ok(r) => r,
                    Err(e) => Err(Error::Http(self.conn.shown.clone(), e.to_string())),
                });
            }
            out
        })
    }
}

/// An instant query's answer as samples. Read straight into the samples' types first: a
/// serde_json::Value tree of 10,000 series first took several times the memory of the answer.
fn vector(raw: &Raw) -> Result<Vec<Sample>, Error> {
    let samples = |items: Vec<VectorItem>| {
        items
            .into_iter()
            .filter_map(|i| {
                Some(Sample {
                    labels: i.metric,
                    value: parse_value(&i.value.1)?,
                })
            })
            .collect()
    };
    if let Ok(d) = raw.data::<Vec<VectorItem>>()
        && d.result_type == "vector"
    {
        return Ok(samples(d.result));
    }
    // A scalar (time()), an error, or not the API's JSON: read again, loosely, to say which.
    let data = raw.data::<serde_json::Value>()?;
    let what = || raw.what.clone();
    match data.result_type.as_str() {
        "vector" => {
            let items: Vec<VectorItem> = serde_json::from_value(data.result)
                .map_err(|e| Error::NotJson(what(), e.to_string()))?;
            Ok(samples(items))
        }
        "scalar" => {
            let (_, v): (f64, String) = serde_json::from_value(data.result)
                .map_err(|e| Error::NotJson(what(), e.to_string()))?;
            Ok(parse_value(&v)
                .map(|value| Sample {
                    labels: Default::default(),
                    value,
                })
                .into_iter()
                .collect())
        }
        other => Err(Error::NotJson(
            what(),
            format!(
                "a result of type '{}' where a vector was asked",
                visible(other)
            ),
        )),
    }
}

/// The envelope's data out of an answer, its result read as `T`, or what went wrong.
fn envelope<T: serde::de::DeserializeOwned>(
    what: String,
    status: StatusCode,
    body: &[u8],
) -> Result<Data<T>, Error> {
    {
        let envelope: Result<Envelope<T>, _> = serde_json::from_slice(body);
        match envelope {
            Ok(e) if e.status == "success" => e
                .data
                .ok_or_else(|| Error::NotJson(what, "success without data".into())),
            Ok(e) => Err(Error::Api(
                what,
                visible(&format!(
                    "{}: {}",
                    e.error_type.as_deref().unwrap_or("error"),
                    e.error.as_deref().unwrap_or("no reason given")
                ))
                .into_owned(),
            )),
            Err(_) if !status.is_success() => {
                Err(Error::Status(what, status.as_u16(), snippet(body)))
            }
            Err(e) => Err(Error::NotJson(what, e.to_string())),
        }
    }
}

impl Conn {
    async fn exchange(
        &self,
        path_and_query: &str,
        what: &str,
    ) -> Result<(StatusCode, Vec<u8>), Error> {
        let target = format!("{}:{}", self.host, self.port);
        let tcp = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| Error::Connect(self.shown.clone(), e))?;
        let _ = tcp.set_nodelay(true);
        match &self.tls {
            Some((connector, name)) => {
                let stream = connector
                    .connect(name.clone(), tcp)
                    .await
                    .map_err(|e| Error::Tls(target.clone(), e))?;
                self.over(TokioIo::new(stream), path_and_query, what).await
            }
            None => self.over(TokioIo::new(tcp), path_and_query, what).await,
        }
    }

    async fn over<S>(
        &self,
        io: S,
        path_and_query: &str,
        what: &str,
    ) -> Result<(StatusCode, Vec<u8>), Error>
    where
        S: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
    {
        let http = |e: hyper::Error| Error::Http(what.to_string(), e.to_string());
        let (mut sender, conn) = hyper::client::conn::http1::handshake::<_, String>(io)
            .await
            .map_err(http)?;
        let driver = tokio::spawn(conn);
        let host = if self.port == 80 || self.port == 443 {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        };
        let mut req = Request::get(path_and_query)
            .header(header::HOST, host)
            .header(header::ACCEPT, "application/json")
            .header(
                header::USER_AGENT,
                concat!("zswaptop/", env!("CARGO_PKG_VERSION")),
            );
        if let Some(a) = &self.authorization {
            req = req.header(header::AUTHORIZATION, a.clone());
        }
        let req = req
            .body(String::new())
            .map_err(|e| Error::Http(what.to_string(), e.to_string()))?;
        let res = sender.send_request(req).await.map_err(http)?;
        let status = res.status();
        let mut body: Incoming = res.into_body();
        if body.size_hint().lower() > self.max_bytes {
            driver.abort();
            return Err(Error::TooLarge(what.to_string(), self.max_bytes));
        }
        let mut bytes = Vec::new();
        while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
        {
            let frame = frame.map_err(http)?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() as u64 + data.len() as u64 > self.max_bytes {
                    driver.abort();
                    return Err(Error::TooLarge(what.to_string(), self.max_bytes));
                }
                bytes.extend_from_slice(&data);
            }
        }
        driver.abort();
        Ok((status, bytes))
    }
}

/// A sample's value as the API writes it ("1.5", "NaN", "+Inf"): `None` when not finite.
fn parse_value(v: &str) -> Option<f64> {
    v.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// The start of a body, safe to show: its first line, at most 120 characters.
fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let short: String = line.chars().take(120).collect();
    if short.is_empty() {
        "empty answer".into()
    } else {
        visible(short.trim()).into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_promql() {
        assert_eq!(
            encode("up{job=\"a b\"} > 0"),
            "up%7Bjob%3D%22a%20b%22%7D%20%3E%200"
        );
    }

    #[test]
    fn refuses_what_it_cannot_use() {
        let bad = |url: &str, http: &Http| Client::new(url, http).unwrap_err().to_string();
        assert!(bad("ftp://x", &Http::default()).contains("http://"));
        assert!(bad("http://u:p@x:9090", &Http::default()).contains("--username"));
        let http = Http {
            ca_file: Some("/nonexistent".into()),
            ..Http::default()
        };
        assert!(bad("http://x:9090", &http).contains("https://"));
        assert!(bad("https://x:9090", &http).contains("ca_file"));
    }

    #[test]
    fn a_snippet_is_safe_and_short() {
        let s = snippet(b"\n<html>\x1b[31m".repeat(100).as_slice());
        assert!(!s.contains('\x1b'));
        assert!(s.chars().count() <= 130);
    }
}
