//! `serve --web-config FILE`: TLS, basic authentication and response headers, in the format of
//! the Prometheus exporter toolkit (node_exporter's `--web.config.file`), so one file serves both.
//!
//! The keys and their meaning are exporter-toolkit's (`docs/web-configuration.md`,
//! `web/tls_config.go`): relative file names are taken from the file's directory, an empty file
//! means plain HTTP, `basic_auth_users` maps names to bcrypt hashes, `http_server_config.headers`
//! takes the five headers the toolkit allows. What this exporter cannot do the way the toolkit
//! does is refused with the reason, never ignored: TLS below 1.2, cipher suites and curves the
//! rustls ring provider lacks, client-certificate modes that accept a certificate unverified,
//! `client_allowed_sans` and `rate_limit`. A key the format does not have is refused by name.
//!
//! The file is read once, at start (the toolkit reads it again for every request): restart the
//! exporter to apply a change, a renewed certificate included.
//!
//! The file and those it names are read as the configuration file is ([`crate::sys::open_regular`]):
//! a regular file or nothing (a FIFO is refused without waiting for a writer), and at most
//! [`MAX_CONFIG_BYTES`] or [`MAX_PEM_BYTES`] of it. An error in the file says where (line and
//! column) and what was wrong, never the file's text: a web config that is a link to a file of
//! secrets must not show them in its error. `basic_auth_users` with no user in it is refused (the
//! toolkit then serves without authentication); a key file others than its owner may read is
//! warned about at start.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hyper::header::{HeaderName, HeaderValue};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig, SupportedProtocolVersion};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use serde::Deserialize;

use super::auth::Users;

/// The file as written: every key of exporter-toolkit's format, no other.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    tls_server_config: Option<TlsFile>,
    http_server_config: Option<HttpFile>,
    /// `Some` when the key is there, empty or null included (refused: [`WebConfig::parse`]).
    #[serde(default, deserialize_with = "present")]
    basic_auth_users: Option<BTreeMap<String, String>>,
    rate_limit: Option<serde_norway::Value>,
}

/// A map whose key is there: `Some`, empty when its value is null (`basic_auth_users:` alone).
fn present<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<BTreeMap<String, String>>, D::Error> {
    Ok(Some(
        Option::<BTreeMap<String, String>>::deserialize(d)?.unwrap_or_default(),
    ))
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TlsFile {
    cert: Option<String>,
    key: Option<String>,
    client_ca: Option<String>,
    cert_file: Option<PathBuf>,
    key_file: Option<PathBuf>,
    client_auth_type: Option<String>,
    client_ca_file: Option<PathBuf>,
    client_allowed_sans: Option<Vec<String>>,
    min_version: Option<String>,
    max_version: Option<String>,
    cipher_suites: Option<Vec<String>>,
    prefer_server_cipher_suites: Option<bool>,
    curve_preferences: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpFile {
    http2: Option<bool>,
    headers: Option<BTreeMap<String, String>>,
}

/// A web configuration, checked and loaded: what `serve` needs.
#[derive(Default)]
pub struct WebConfig {
    /// TLS, when the file configures it.
    pub tls: Option<Arc<ServerConfig>>,
    /// Whether a client must present a certificate that verifies against `client_ca_file`.
    pub client_certs_required: bool,
    /// Basic authentication, when the file names users.
    pub users: Option<Users>,
    /// Headers added to every answer.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// What is weak but allowed (a key file others may read), to say once at start.
    pub warnings: Vec<String>,
}

/// What the configuration holds, without its keys and hashes.
impl std::fmt::Debug for WebConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebConfig")
            .field("tls", &self.tls.is_some())
            .field("client_certs_required", &self.client_certs_required)
            .field("users", &self.users.is_some())
            .field("headers", &self.headers)
            .field("warnings", &self.warnings)
            .finish()
    }
}

/// A web configuration file that cannot be used, and why.
#[derive(Debug, thiserror::Error)]
#[error("web config '{}': {msg}", path.display())]
pub struct Error {
    path: PathBuf,
    msg: String,
}

/// The most a web config may hold: every key with a few users and headers takes under 4 KiB.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// The most a certificate, key or CA file may hold: a system's whole CA bundle is ~220 KiB.
pub const MAX_PEM_BYTES: u64 = 4 << 20;

/// The headers exporter-toolkit lets a web config set, with the values each accepts (any when
/// none are listed).
const HEADERS: &[(&str, &[&str])] = &[
    ("Strict-Transport-Security", &[]),
    ("X-Content-Type-Options", &["nosniff"]),
    ("X-Frame-Options", &["deny", "sameorigin"]),
    ("X-XSS-Protection", &[]),
    ("Content-Security-Policy", &[]),
];

impl WebConfig {
    /// Read, check and load the file at `path` (its certificates and keys too).
    pub(crate) fn load(path: &Path) -> Result<Self, Error> {
        let fail = |msg: String| Error {
            path: path.to_path_buf(),
            msg,
        };
        let bytes =
            crate::sys::read_small_file(path, MAX_CONFIG_BYTES).map_err(|e| fail(e.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|_| fail("not UTF-8 text".into()))?;
        let dir = path.parent().unwrap_or(Path::new("."));
        Self::parse(&text, dir).map_err(fail)
    }

    /// The configuration in `text`, its relative file names taken from `dir`.
    fn parse(text: &str, dir: &Path) -> Result<Self, String> {
        // An empty file (or one of comments only) is an empty YAML document: no TLS, no users.
        let file: File = match serde_norway::from_str::<Option<File>>(text) {
            Ok(f) => f.unwrap_or_default(),
            Err(e) => return Err(yaml_error(&e)),
        };
        if file.rate_limit.is_some() {
            return Err(
                "rate_limit is not supported: a limit on all requests is one an \
                        unauthenticated client can use up, and the scraper's requests with it"
                    .into(),
            );
        }
        let mut config = WebConfig::default();
        if let Some(http) = file.http_server_config {
            // `http2` is accepted and moot: the exporter serves HTTP/1.1 (offered by ALPN).
            let _ = http.http2;
            for (name, value) in http.headers.unwrap_or_default() {
                config.headers.push(header(&name, &value)?);
            }
        }
        if let Some(users) = file.basic_auth_users {
            if users.is_empty() {
                return Err(
                    "basic_auth_users names no user: with none every client would be \
                            served without authentication (name users with their bcrypt \
                            hashes, or remove the key to serve without authentication)"
                        .into(),
                );
            }
            config.users = Some(Users::new(users)?);
        }
        if let Some(tls) = file.tls_server_config {
            let (server, required) = tls_config(tls, dir, &mut config.warnings)?;
            config.tls = server.map(Arc::new);
            config.client_certs_required = required;
        }
        Ok(config)
    }
}

/// What a YAML error says, without the text it quotes (a key, a value: what a file that is not a
/// web config holds may be secret): the kind of error, what was expected (the format's own
/// names), line and column. The path serde_norway puts first is left out too (it holds the
/// file's map keys); the line and column say where.
fn yaml_error(e: &serde_norway::Error) -> String {
    let mut msg = e.to_string();
    if let Some(at) = e.location() {
        let suffix = format!(" at line {} column {}", at.line(), at.column());
        if let Some(stripped) = msg.strip_suffix(&suffix) {
            msg.truncate(stripped.len());
        }
    }
    // serde's messages: each begins with one of these, after the path, and quotes the input's
    // text (`…` or "…") before its ", expected".
    const KINDS: [&str; 8] = [
        "unknown field",
        "unknown variant",
        "invalid type",
        "invalid value",
        "invalid length",
        "missing field",
        "duplicate field",
        "duplicate entry",
    ];
    let what = match KINDS.iter().filter_map(|k| msg.find(k)).min() {
        Some(start) => {
            let kind = &msg[start..];
            let (given, expected) = match kind.find(", expected") {
                Some(i) => kind.split_at(i),
                None => (kind, ""),
            };
            format!("{}{expected}", unquoted(given))
        }
        // libyaml's own errors ("mapping values are not allowed in this context") are fixed
        // texts; anything else is not shown.
        None if !msg.contains(['`', '"', '\'']) => msg.clone(),
        None => "not a web config in the exporter toolkit's format".into(),
    };
    match e.location() {
        Some(at) => format!("line {}, column {}: {what}", at.line(), at.column()),
        None => format!("line unknown: {what}"),
    }
}

/// `text` without what it quotes between backticks or double quotes (the quotes too).
fn unquoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut quote = None;
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '`' || c == '"' => {
                quote = Some(c);
                if out.ends_with(' ') {
                    out.pop();
                }
            }
            None => out.push(c),
        }
    }
    out
}

fn header(name: &str, value: &str) -> Result<(HeaderName, HeaderValue), String> {
    let Some((name, allowed)) = HEADERS.iter().find(|(n, _)| *n == name) else {
        return Err(format!(
            "http_server_config.headers: '{name}' can not be configured (only {})",
            HEADERS
                .iter()
                .map(|(n, _)| *n)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    if !allowed.is_empty() && !allowed.contains(&value) {
        return Err(format!(
            "http_server_config.headers: {name}: '{value}' is not one of {}",
            allowed.join(", ")
        ));
    }
    let value = HeaderValue::from_str(value)
        .map_err(|_| format!("http_server_config.headers: {name}: not a valid header value"))?;
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| format!("http_server_config.headers: {name}: not a valid header name"))?;
    Ok((name, value))
}

/// PEM text from a file (relative to `dir`) or inline, for the key `what`; a key file (`secret`)
/// that others than its owner may read adds a warning to `warnings`.
fn pem(
    inline: Option<String>,
    file: Option<PathBuf>,
    what: &str,
    dir: &Path,
    secret: Option<&mut Vec<String>>,
) -> Result<Option<Vec<u8>>, String> {
    let inline = inline.filter(|s| !s.is_empty());
    let file = file.filter(|p| !p.as_os_str().is_empty());
    match (inline, file) {
        (Some(_), Some(_)) => Err(format!(
            "tls_server_config: both {what} and {what}_file: give one"
        )),
        (Some(text), None) => Ok(Some(text.into_bytes())),
        (None, Some(path)) => {
            let path = dir.join(path);
            let fail = |e: crate::sys::SmallFileError| {
                format!("tls_server_config: {what}_file '{}': {e}", path.display())
            };
            let (file, meta) = crate::sys::open_regular(&path).map_err(fail)?;
            if let Some(warnings) = secret {
                use std::os::unix::fs::PermissionsExt as _;
                let mode = meta.permissions().mode() & 0o7777;
                if mode & 0o044 != 0 {
                    warnings.push(format!(
                        "tls_server_config: {what}_file '{}' may be read by others than its \
                         owner (mode {mode:04o}): chmod 600 it",
                        path.display()
                    ));
                }
            }
            crate::sys::read_capped(file, MAX_PEM_BYTES)
                .map(Some)
                .map_err(fail)
        }
        (None, None) => Ok(None),
    }
}

/// What is wrong with a PEM file, without the line it quotes (the label of a section).
fn pem_error(e: &rustls_pki_types::pem::Error) -> String {
    use rustls_pki_types::pem::Error as E;
    match e {
        E::MissingSectionEnd { .. } => "a section's END line is missing".into(),
        E::IllegalSectionStart { .. } => "a BEGIN line is malformed".into(),
        E::NoItemsFound => "no PEM item of this kind in it".into(),
        other => other.to_string(),
    }
}

/// The TLS versions rustls has, oldest first.
const VERSIONS: [&SupportedProtocolVersion; 2] = [&rustls::version::TLS12, &rustls::version::TLS13];

/// The index in [`VERSIONS`] of Go's version `name`, for the key `key`.
fn version(name: &str, key: &str) -> Result<usize, String> {
    match name {
        "TLS12" => Ok(0),
        "TLS13" => Ok(1),
        "TLS10" | "TLS11" => Err(format!(
            "tls_server_config: {key}: {name}: TLS 1.0 and 1.1 are not supported (TLS12 or TLS13)"
        )),
        _ => Err(format!(
            "tls_server_config: {key}: unknown TLS version '{name}' (TLS12 or TLS13)"
        )),
    }
}

/// The TLS configuration (`None` when `tls_server_config` sets nothing), and whether client
/// certificates are required.
fn tls_config(
    tls: TlsFile,
    dir: &Path,
    warnings: &mut Vec<String>,
) -> Result<(Option<ServerConfig>, bool), String> {
    if tls.client_allowed_sans.is_some() {
        return Err(
            "tls_server_config: client_allowed_sans is not supported: give each \
                    allowed client a certificate from its own CA in client_ca_file"
                .into(),
        );
    }
    let cert = pem(tls.cert, tls.cert_file, "cert", dir, None)?;
    let key = pem(tls.key, tls.key_file, "key", dir, Some(warnings))?;
    let client_ca = pem(tls.client_ca, tls.client_ca_file, "client_ca", dir, None)?;
    let auth = tls.client_auth_type.unwrap_or_default();
    let enabled = cert.is_some() || key.is_some() || client_ca.is_some() || !auth.is_empty();
    if !enabled {
        return Ok((None, false));
    }
    let cert = cert.ok_or("tls_server_config: missing one of cert or cert_file")?;
    let key = key.ok_or("tls_server_config: missing one of key or key_file")?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("tls_server_config: cert: {}", pem_error(&e)))?;
    if certs.is_empty() {
        return Err("tls_server_config: cert: no PEM certificate in it".into());
    }
    let key = PrivateKeyDer::from_pem_slice(&key)
        .map_err(|e| format!("tls_server_config: key: {}", pem_error(&e)))?;

    let mut provider = rustls::crypto::ring::default_provider();
    if let Some(names) = &tls.cipher_suites {
        provider.cipher_suites = cipher_suites(names)?;
    }
    if let Some(names) = &tls.curve_preferences {
        provider.kx_groups = curves(names)?;
    }
    let provider = Arc::new(provider);

    let min = version(tls.min_version.as_deref().unwrap_or("TLS12"), "min_version")?;
    let max = version(tls.max_version.as_deref().unwrap_or("TLS13"), "max_version")?;
    if min > max {
        return Err("tls_server_config: min_version is above max_version".into());
    }
    let versions = &VERSIONS[min..=max];
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(versions)
        .map_err(|e| format!("tls_server_config: {e}"))?;

    let (verifier, required) = match auth.as_str() {
        "" | "NoClientCert" => {
            if client_ca.is_some() {
                return Err("tls_server_config: client_ca_file is set without a \
                            client_auth_type (RequireAndVerifyClientCert)"
                    .into());
            }
            (WebPkiClientVerifier::no_client_auth(), false)
        }
        "RequireAndVerifyClientCert" | "VerifyClientCertIfGiven" => {
            let ca = client_ca.ok_or_else(|| {
                format!("tls_server_config: client_auth_type {auth} needs client_ca_file")
            })?;
            let mut roots = RootCertStore::empty();
            for c in CertificateDer::pem_slice_iter(&ca) {
                let c =
                    c.map_err(|e| format!("tls_server_config: client_ca: {}", pem_error(&e)))?;
                roots
                    .add(c)
                    .map_err(|e| format!("tls_server_config: client_ca: {e}"))?;
            }
            let mut verifier =
                WebPkiClientVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider));
            let required = auth == "RequireAndVerifyClientCert";
            if !required {
                verifier = verifier.allow_unauthenticated();
            }
            let verifier = verifier
                .build()
                .map_err(|e| format!("tls_server_config: client_ca: {e}"))?;
            (verifier, required)
        }
        "RequestClientCert" | "RequireAnyClientCert" | "RequireClientCert" => {
            return Err(format!(
                "tls_server_config: client_auth_type {auth} is not supported: it accepts a \
                 client certificate without verifying it (RequireAndVerifyClientCert with \
                 client_ca_file verifies it)"
            ));
        }
        other => {
            return Err(format!(
                "tls_server_config: unknown client_auth_type '{other}' (NoClientCert, \
                 VerifyClientCertIfGiven or RequireAndVerifyClientCert)"
            ));
        }
    };
    let mut server = builder
        .with_client_cert_verifier(verifier)
        .with_single_cert(certs, key)
        .map_err(|e| format!("tls_server_config: cert and key: {e}"))?;
    server.alpn_protocols = vec![b"http/1.1".to_vec()];
    server.ignore_client_order = tls.prefer_server_cipher_suites.unwrap_or(true);
    Ok((Some(server), required))
}

/// The ring provider's suites in the order `names` gives the TLS 1.2 ones (Go's names, the IANA
/// names); the TLS 1.3 suites are all kept, as Go keeps them (its list is for TLS 1.2 only).
fn cipher_suites(names: &[String]) -> Result<Vec<rustls::SupportedCipherSuite>, String> {
    let all = rustls::crypto::ring::ALL_CIPHER_SUITES;
    let tls12: Vec<(String, rustls::SupportedCipherSuite)> = all
        .iter()
        .filter(|s| s.version() == &rustls::version::TLS12)
        .map(|s| (format!("{:?}", s.suite()), *s))
        .collect();
    let mut out: Vec<rustls::SupportedCipherSuite> = all
        .iter()
        .filter(|s| s.version() == &rustls::version::TLS13)
        .copied()
        .collect();
    for name in names {
        if matches!(
            name.as_str(),
            "TLS_AES_128_GCM_SHA256" | "TLS_AES_256_GCM_SHA384" | "TLS_CHACHA20_POLY1305_SHA256"
        ) {
            continue;
        }
        let Some((_, suite)) = tls12.iter().find(|(n, _)| n == name) else {
            return Err(format!(
                "tls_server_config: cipher_suites: '{name}' is not supported (TLS 1.2: {})",
                tls12
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        if !out.contains(suite) {
            out.push(*suite);
        }
    }
    Ok(out)
}

/// The key exchange groups for Go's curve names, in their order.
fn curves(names: &[String]) -> Result<Vec<&'static dyn rustls::crypto::SupportedKxGroup>, String> {
    use rustls::crypto::ring::kx_group;
    names
        .iter()
        .map(|name| match name.as_str() {
            "X25519" => Ok(kx_group::X25519),
            "CurveP256" => Ok(kx_group::SECP256R1),
            "CurveP384" => Ok(kx_group::SECP384R1),
            _ => Err(format!(
                "tls_server_config: curve_preferences: '{name}' is not supported \
                 (X25519, CurveP256, CurveP384)"
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A self-signed certificate and its key, PEM, in `dir`.
    fn cert_in(dir: &Path) {
        let c = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        std::fs::write(dir.join("server.crt"), c.cert.pem()).unwrap();
        std::fs::write(dir.join("server.key"), c.signing_key.serialize_pem()).unwrap();
    }

    fn parse(text: &str) -> Result<WebConfig, String> {
        let dir = tempfile::tempdir().unwrap();
        cert_in(dir.path());
        WebConfig::parse(text, dir.path())
    }

    fn err(text: &str) -> String {
        match parse(text) {
            Ok(_) => panic!("accepted: {text}"),
            Err(e) => e,
        }
    }

    #[test]
    fn empty_means_plain_http() {
        for text in ["", "# nothing\n", "tls_server_config:\n"] {
            let c = parse(text).unwrap();
            assert!(c.tls.is_none() && c.users.is_none() && c.headers.is_empty());
        }
    }

    #[test]
    fn tls_with_files_relative_to_the_config() {
        let c =
            parse("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n").unwrap();
        let tls = c.tls.unwrap();
        assert_eq!(tls.alpn_protocols, [b"http/1.1".to_vec()]);
        assert!(tls.ignore_client_order);
        assert!(!c.client_certs_required);
        let c = parse(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
             min_version: TLS13\n  prefer_server_cipher_suites: false\n  \
             curve_preferences: [X25519, CurveP256]\n  \
             cipher_suites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n",
        )
        .unwrap();
        assert!(!c.tls.unwrap().ignore_client_order);
    }

    #[test]
    fn client_certificates_verified_against_the_ca() {
        let c = parse(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
             client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: server.crt\n",
        )
        .unwrap();
        assert!(c.client_certs_required);
        assert!(
            err(
                "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
                 client_auth_type: RequireAndVerifyClientCert\n"
            )
            .contains("needs client_ca_file")
        );
        assert!(
            err(
                "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
                 client_ca_file: server.crt\n"
            )
            .contains("without a client_auth_type")
        );
        assert!(
            err(
                "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  \
                 client_auth_type: RequireAnyClientCert\n"
            )
            .contains("without verifying it")
        );
    }

    #[test]
    fn headers_are_the_toolkits_five() {
        let c = parse(
            "http_server_config:\n  http2: true\n  headers:\n    X-Frame-Options: deny\n    \
             Strict-Transport-Security: max-age=31536000\n",
        )
        .unwrap();
        let got: Vec<(&str, &str)> = c
            .headers
            .iter()
            .map(|(n, v)| (n.as_str(), v.to_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("strict-transport-security", "max-age=31536000"),
                ("x-frame-options", "deny")
            ]
        );
        let e = err("http_server_config:\n  headers:\n    X-XSS-Protection: \"a\\nb\"\n");
        assert!(e.contains("not a valid header value"), "{e}");
    }

    #[test]
    fn unknown_keys_are_placed_not_quoted() {
        let e = err("tls_server_config:\n  cert_filse: server.crt\n");
        assert!(
            e.starts_with("line 2, column 3: unknown field, expected one of `cert`, `key`"),
            "{e}"
        );
        assert!(!e.contains("cert_filse"), "{e}");
        let e = err("basic_auth_user:\n  alice: x\n");
        assert!(
            e.starts_with("line 1, column 1: unknown field, expected one of `tls_server_config`"),
            "{e}"
        );
        assert!(!e.contains("basic_auth_user`,"), "{e}");
        let e = err("http_server_config:\n  headers:\n    Content-Type: foo\n");
        assert!(e.contains("'Content-Type' can not be configured"), "{e}");
        let e = err("http_server_config:\n  headers:\n    X-Frame-Options: allow\n");
        assert!(e.contains("'allow' is not one of deny, sameorigin"), "{e}");
        let e = err("hWkNKCp3fvIx3jKnsaBI\nTuEjdwNS8A2vYdFbiKqr\n");
        assert!(e.contains("invalid type: string, expected"), "{e}");
        assert!(!e.contains("hWkN") && !e.contains("TuEj"), "{e}");
    }

    #[test]
    fn errors_quote_nothing_of_the_file() {
        for (text, says) in [
            (
                "basic_auth_users: s3cr3t\n",
                "line 1, column 19: invalid type: string, expected a map",
            ),
            (
                "basic_auth_users:\n  s3cr3t: [1]\n",
                "line 2, column 11: invalid type: sequence, expected a string",
            ),
            (
                "tls_server_config:\n  prefer_server_cipher_suites: s3cr3t\n",
                "line 2, column 32: invalid type: string, expected a boolean",
            ),
            (
                "tls_server_config: \"s3cr3t\n",
                "line 2, column 1: found unexpected end of stream",
            ),
        ] {
            let e = err(text);
            assert!(e.starts_with(says), "{text}: {e}");
            assert!(!e.contains("s3cr3t"), "{text}: {e}");
        }
        assert_eq!(unquoted("unknown field `a`b\"c\" d"), "unknown fieldb d");
    }

    #[test]
    fn a_key_file_others_may_read_is_warned_about() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        cert_in(dir.path());
        let key = dir.path().join("server.key");
        let text = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
        for (mode, warned) in [(0o600, false), (0o400, false), (0o640, true), (0o604, true)] {
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(mode)).unwrap();
            let c = WebConfig::parse(text, dir.path()).unwrap();
            assert_eq!(c.warnings.len(), usize::from(warned), "{mode:o}: {c:?}");
            if warned {
                assert!(c.warnings[0].contains(&format!("mode 0{mode:o}")), "{c:?}");
            }
        }
    }

    #[test]
    fn files_that_are_not_pem_files_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        cert_in(dir.path());
        let big = dir.path().join("big.crt");
        std::fs::write(&big, vec![b'A'; (MAX_PEM_BYTES + 1) as usize]).unwrap();
        std::fs::write(
            dir.path().join("label.crt"),
            "-----BEGIN S3CR3T-----\nAAAA\n",
        )
        .unwrap();
        for (file, says) in [
            ("/dev/zero", "not a regular file"),
            ("big.crt", "larger than"),
            ("label.crt", "a section's END line is missing"),
        ] {
            let e = WebConfig::parse(
                &format!("tls_server_config:\n  cert_file: {file}\n  key_file: server.key\n"),
                dir.path(),
            )
            .unwrap_err();
            assert!(e.contains(says) && !e.contains("S3CR3T"), "{file}: {e}");
        }
    }

    #[test]
    fn what_cannot_be_honoured_is_refused() {
        let base = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
        for (extra, says) in [
            (
                "  min_version: TLS10\n",
                "TLS 1.0 and 1.1 are not supported",
            ),
            ("  min_version: TLS14\n", "unknown TLS version"),
            (
                "  min_version: TLS13\n  max_version: TLS12\n",
                "above max_version",
            ),
            (
                "  curve_preferences: [CurveP521]\n",
                "'CurveP521' is not supported",
            ),
            (
                "  cipher_suites: [TLS_RSA_WITH_AES_128_CBC_SHA]\n",
                "'TLS_RSA_WITH_AES_128_CBC_SHA' is not supported",
            ),
            (
                "  client_allowed_sans: [a]\n",
                "client_allowed_sans is not supported",
            ),
            ("  cert: inline\n", "both cert and cert_file"),
        ] {
            let e = err(&format!("{base}{extra}"));
            assert!(e.contains(says), "{extra}: {e}");
        }
        assert!(err("rate_limit:\n  interval: 1s\n  burst: 5\n").contains("rate_limit"));
        let e = err("tls_server_config:\n  cert_file: nowhere.crt\n  key_file: server.key\n");
        assert!(e.contains("cert_file") && e.contains("nowhere.crt"), "{e}");
        let e = err("tls_server_config:\n  cert_file: server.crt\n");
        assert!(e.contains("missing one of key or key_file"), "{e}");
        let e = err("tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n");
        assert!(e.contains("no PEM certificate"), "{e}");
    }

    #[test]
    fn users_need_bcrypt_hashes() {
        let e = err("basic_auth_users:\n  john: doe\n");
        assert!(e.contains("john") && e.contains("bcrypt"), "{e}");
        let hash = bcrypt::hash("secret", 4).unwrap();
        let c = parse(&format!("basic_auth_users:\n  alice: '{hash}'\n")).unwrap();
        assert!(c.users.is_some());
        for text in ["basic_auth_users:\n", "basic_auth_users: {}\n"] {
            assert!(
                err(text).contains("basic_auth_users names no user"),
                "{text}"
            );
        }
    }
}
