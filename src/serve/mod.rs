//! `zswaptop serve`: `/metrics` over HTTP or HTTPS for Prometheus, sampled at scrape time.
//!
//! HTTP/1.1 by hyper on a current-thread tokio runtime: one thread accepts, runs the TLS
//! handshakes (rustls) and the connections; the kernel is read on a blocking thread, so a slow
//! sample never stalls an accept or another connection's answer. Keep-alive is allowed
//! (Prometheus reuses its connection from scrape to scrape). Slow clients cannot take the
//! scraper's answers ([`guard`]): a request head (at most [`HEAD_BYTES`]) must be whole within
//! [`HEAD_TIME`] of its first byte (of the accept, for a connection's first request, TLS
//! handshake included), an answer must be taken within [`ANSWER_TIME`], a kept-alive
//! connection may wait [`IDLE_TIME`] for its next request, and when [`MAX_CONNECTIONS`] are
//! held (fewer under a low descriptor limit) one is closed to admit the newcomer: the oldest of
//! those never answered, or, when all have been, the one whose last request is the oldest. Only `GET`/`HEAD` of `/metrics` and `/`. With `--web-config`
//! ([`WebConfig`], node_exporter's format): TLS, basic authentication (401 with
//! `WWW-Authenticate: Basic` before anything else is looked at), extra response headers.
//!
//! Each scrape reads the kernel afresh (but `/proc/cmdline`, fixed for the boot, and
//! `/proc/crypto`, which changes only when a module loads: once a minute, as the dashboard reads
//! them); scrapes that come within [`SHARED_FOR`] of each other share one sample (fifty
//! scrapers at once cost one read). Rates (the PSI shares, the bypass
//! rate) are taken against the sample of an earlier scrape at least [`MIN_RATE_WINDOW`] before,
//! so they cover the time between scrapes; Prometheus computes its own from the counters.

mod auth;
mod guard;
mod web_config;

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use hyper::body::{Body, Bytes, Frame, Incoming, SizeHint};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::TlsAcceptor;

pub use guard::{ANSWER_TIME, HEAD_TIME, IDLE_TIME, MAX_CONNECTIONS};
pub use web_config::{Error as WebConfigError, WebConfig};

use crate::model::Snapshot;
use crate::report::openmetrics::{self, Flavor};
use crate::root::Root;
use crate::sources::sampler::{SampleSource, Sampler};
use crate::sources::{Extras, Sample};
use guard::{Conn, Registry, Release, Watched};

/// The largest request head (request line and headers) read; a larger one is answered 431.
pub const HEAD_BYTES: usize = 8 * 1024;
/// Scrapes this close together share one sample.
pub const SHARED_FOR: Duration = Duration::from_millis(200);
/// The shortest time rates are taken over.
pub const MIN_RATE_WINDOW: Duration = Duration::from_secs(1);
/// The queue of connections the kernel keeps until they are accepted. std's 128 fills under a
/// flood of connections, and the kernel then drops a newcomer's SYN: a scraper that opens a new
/// connection for each scrape waits for its retransmission, a second later (measured: p90
/// 1.04 s under 3,000 idle connections opened again as they are closed). With room for 4,096
/// the accept loop, which admits a newcomer by closing another, keeps up.
const BACKLOG: u32 = 4096;
/// Descriptors kept free of connections: the sampler's files, the listener, stdio.
const SPARE_DESCRIPTORS: u64 = 64;

/// The sampler the connections share.
struct Scraper {
    source: Sampler,
    /// The sample rates are taken from.
    base: Option<Sample>,
    /// The forecasts' window over the samples taken.
    stream: crate::pipeline::Stream,
    /// The last sample's time and its exposition in each format, rendered when first asked for.
    last: Option<(Instant, Arc<Snapshot>)>,
    bodies: [Option<Bytes>; 2],
}

impl Scraper {
    fn fresh(&self) -> bool {
        self.last
            .as_ref()
            .is_some_and(|(at, _)| at.elapsed() < SHARED_FOR)
    }

    /// The exposition in `flavor` when one of a sample younger than [`SHARED_FOR`] is rendered.
    fn cached(&self, flavor: Flavor) -> Option<Bytes> {
        if !self.fresh() {
            return None;
        }
        self.bodies[usize::from(flavor == Flavor::Prometheus)].clone()
    }

    /// The exposition in `flavor`, of a sample no older than [`SHARED_FOR`] (reads the kernel).
    fn body(&mut self, flavor: Flavor) -> Bytes {
        if !self.fresh() {
            self.last = Some((Instant::now(), self.sample()));
            self.bodies = [None, None];
        }
        let slot = usize::from(flavor == Flavor::Prometheus);
        if let Some(b) = &self.bodies[slot] {
            return b.clone();
        }
        let mut text = String::with_capacity(32 * 1024);
        if let Some((_, snap)) = &self.last {
            openmetrics::render(snap, flavor, &mut text);
        }
        let body = Bytes::from(text);
        self.bodies[slot] = Some(body.clone());
        body
    }

    fn sample(&mut self) -> Arc<Snapshot> {
        let curr = self.source.next(
            self.base.as_ref(),
            crate::report::metrics_extras(Extras::default()),
        );
        let snap = Arc::new(self.stream.snapshot(&curr, self.base.as_ref()));
        let window = u64::try_from(MIN_RATE_WINDOW.as_nanos()).unwrap_or(u64::MAX);
        let old_enough = self
            .base
            .as_ref()
            .is_none_or(|b| curr.monotonic_ns.saturating_sub(b.monotonic_ns) >= window);
        if old_enough {
            self.base = Some(curr);
        }
        snap
    }
}

/// Listen on `listen` and serve until the process is stopped: the metrics of `root` (a captured
/// tree, a directory), or of this system.
pub(crate) fn run(listen: SocketAddr, root: Option<PathBuf>, web: WebConfig) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        // One thread samples (the scraper's lock is held across it) and one a core checks
        // bcrypt hashes (`auth`): all the blocking work ever needs.
        .max_blocking_threads(1 + std::thread::available_parallelism().map_or(1, usize::from))
        // Kept between scrapes rather than started for each (tokio's default keeps them 10 s).
        .thread_keep_alive(Duration::from_secs(3600))
        .thread_stack_size(512 * 1024)
        .thread_name("zswaptop-serve")
        .build()
        .context("starting the server's runtime")?;
    runtime.block_on(async {
        let listener = bind(listen).with_context(|| format!("listening on {listen}"))?;
        let addr = listener.local_addr().context("reading the bound address")?;
        let scheme = if web.tls.is_some() { "https" } else { "http" };
        crate::console::note(format_args!("serving {scheme}://{addr}/metrics"));
        for w in web
            .warnings
            .iter()
            .cloned()
            .chain(exposure_warnings(addr.ip(), &web))
        {
            crate::console::warn(w);
        }
        let root = root.map(Root::at).unwrap_or_else(Root::live);
        serve(listener, root, web).await
    })
}

/// A listener on `addr` whose queue of connections not yet accepted holds [`BACKLOG`] (the
/// kernel caps it at `net.core.somaxconn`).
fn bind(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = match addr {
        SocketAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
        SocketAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(BACKLOG)
}

/// What `run` warns of when it listens beyond loopback.
fn exposure_warnings(ip: IpAddr, web: &WebConfig) -> Vec<String> {
    let loopback = match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map_or(v6.is_loopback(), |v4| v4.is_loopback()),
    };
    let mut out = Vec::new();
    if loopback {
        return out;
    }
    if web.tls.is_none() {
        out.push(format!(
            "listening on {ip} beyond loopback without TLS: the metrics cross the network in \
             clear text (--web-config with tls_server_config)"
        ));
    }
    if web.users.is_none() && !web.client_certs_required {
        out.push(format!(
            "listening on {ip} beyond loopback without authentication: anyone who reaches the \
             port can scrape it (--web-config with basic_auth_users, or client_auth_type \
             RequireAndVerifyClientCert)"
        ));
    }
    out
}

/// The most connections to hold: [`MAX_CONNECTIONS`], fewer when the descriptor limit would be
/// reached first (an accept that fails for want of a descriptor turns the newcomer away).
fn connection_limit() -> usize {
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile)
        .current
        .unwrap_or(u64::MAX);
    let room = usize::try_from(soft.saturating_sub(SPARE_DESCRIPTORS)).unwrap_or(usize::MAX);
    MAX_CONNECTIONS.min(room).max(8)
}

/// What every connection shares.
struct App {
    scraper: Arc<tokio::sync::Mutex<Scraper>>,
    users: Option<auth::Users>,
    headers: Vec<(HeaderName, HeaderValue)>,
}

/// Serve on a bound listener (never returns but on an accept error that persists).
async fn serve(
    listener: tokio::net::TcpListener,
    root: Root,
    web: WebConfig,
) -> anyhow::Result<()> {
    let registry = Arc::new(Registry::new(connection_limit()));
    let tls = web.tls.map(TlsAcceptor::from);
    let app = Arc::new(App {
        scraper: Arc::new(tokio::sync::Mutex::new(Scraper {
            source: Sampler::scraper(root),
            base: None,
            stream: crate::pipeline::Stream::default(),
            last: None,
            bodies: [None, None],
        })),
        users: web.users,
        headers: web.headers,
    });
    let mut failures = 0u32;
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                failures = 0;
                let _ = stream.set_nodelay(true);
                let (id, conn) = registry.admit().await;
                let task = tokio::spawn(connection(
                    stream,
                    peer.ip(),
                    id,
                    Arc::clone(&conn),
                    Arc::clone(&app),
                    tls.clone(),
                    Arc::clone(&registry),
                ));
                // The task runs only when this loop awaits again: it is held before it can end.
                registry.hold(id, conn, task.abort_handle());
            }
            // Out of descriptors, a connection reset before its accept: free one, go on.
            Err(e) => {
                failures += 1;
                if failures > 1000 {
                    return Err(e).context("accepting connections");
                }
                registry.evict_oldest();
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
}

/// Serve one connection until it ends, its phase outlives its limit, or it is evicted.
async fn connection(
    stream: tokio::net::TcpStream,
    peer: IpAddr,
    id: u64,
    conn: Arc<Conn>,
    app: Arc<App>,
    tls: Option<TlsAcceptor>,
    registry: Arc<Registry>,
) {
    let _release = Release {
        registry: &registry,
        id,
    };
    let io = Watched {
        io: stream,
        conn: Arc::clone(&conn),
    };
    let work = async {
        match tls {
            // A failed handshake (plain HTTP to the TLS port, an unknown CA) just ends it.
            Some(acceptor) => {
                if let Ok(stream) = acceptor.accept(io).await {
                    http(stream, peer, &conn, &app).await;
                }
            }
            None => http(io, peer, &conn, &app).await,
        }
    };
    tokio::select! {
        () = work => {}
        () = conn.expired() => {}
    }
}

async fn http<T>(io: T, peer: IpAddr, conn: &Arc<Conn>, app: &Arc<App>)
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(|req: Request<Incoming>| {
        let app = Arc::clone(app);
        let conn = Arc::clone(conn);
        async move { Ok::<_, Infallible>(app.answer(&req, peer, conn).await) }
    });
    let _ = hyper::server::conn::http1::Builder::new()
        // The head's time is kept by `guard`, from the first byte rather than from the last
        // answer (which would close a kept-alive connection between scrapes).
        .header_read_timeout(None)
        .max_header_size(HEAD_BYTES)
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), service)
        .await;
}

/// An answer's body: one buffer, and the connection told when it is handed over.
struct Answer {
    data: Option<Bytes>,
    conn: Arc<Conn>,
}

impl Answer {
    fn new(data: Bytes, conn: Arc<Conn>) -> Self {
        if data.is_empty() {
            conn.body_sent();
            return Answer { data: None, conn };
        }
        Answer {
            data: Some(data),
            conn,
        }
    }
}

impl Body for Answer {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        Poll::Ready(this.data.take().map(|d| {
            this.conn.body_sent();
            Ok(Frame::data(d))
        }))
    }

    fn is_end_stream(&self) -> bool {
        self.data.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.data.as_ref().map_or(0, |d| d.len() as u64))
    }
}

const INDEX: &str = "<!DOCTYPE html>\n<html><head><title>zswaptop</title></head><body>\n\
<h1>zswaptop</h1>\n<p>Where memory really is when zswap or zram compresses it.</p>\n\
<p><a href=\"/metrics\">/metrics</a>: OpenMetrics, or the Prometheus text format 0.0.4 \
when the scraper's Accept header asks for it.</p>\n</body></html>\n";

const TEXT: &str = "text/plain; charset=utf-8";

/// What a request is answered, before it becomes a response.
struct Reply {
    status: StatusCode,
    content_type: &'static str,
    body: Bytes,
    extra: Option<(HeaderName, &'static str)>,
}

impl Reply {
    fn text(status: StatusCode, body: &'static str) -> Self {
        Reply {
            status,
            content_type: TEXT,
            body: Bytes::from_static(body.as_bytes()),
            extra: None,
        }
    }
}

impl App {
    async fn answer(
        &self,
        req: &Request<Incoming>,
        peer: IpAddr,
        conn: Arc<Conn>,
    ) -> Response<Answer> {
        conn.request();
        let reply = self.reply(req, peer).await;
        let head_only = req.method() == Method::HEAD;
        let len = reply.body.len();
        let body = if head_only { Bytes::new() } else { reply.body };
        let mut res = Response::new(Answer::new(body, conn));
        *res.status_mut() = reply.status;
        let h = res.headers_mut();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(reply.content_type),
        );
        if head_only {
            h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
        }
        if let Some((name, value)) = reply.extra {
            h.insert(name, HeaderValue::from_static(value));
        }
        for (name, value) in &self.headers {
            h.insert(name.clone(), value.clone());
        }
        res
    }

    async fn reply(&self, req: &Request<Incoming>, peer: IpAddr) -> Reply {
        if let Some(users) = &self.users {
            let given = req.headers().get(header::AUTHORIZATION);
            match users.verdict(given.map(HeaderValue::as_bytes), peer).await {
                auth::Verdict::Allowed => {}
                auth::Verdict::Refused => {
                    let mut r = Reply::text(StatusCode::UNAUTHORIZED, "Unauthorized\n");
                    r.extra = Some((header::WWW_AUTHENTICATE, "Basic"));
                    return r;
                }
                auth::Verdict::Busy => {
                    let mut r = Reply::text(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "Too many passwords being checked for this address: try again\n",
                    );
                    r.extra = Some((header::RETRY_AFTER, "1"));
                    return r;
                }
            }
        }
        if req.method() != Method::GET && req.method() != Method::HEAD {
            let mut r = Reply::text(StatusCode::METHOD_NOT_ALLOWED, "Only GET and HEAD\n");
            r.extra = Some((header::ALLOW, "GET, HEAD"));
            return r;
        }
        match req.uri().path() {
            "/metrics" => {
                let accept = req
                    .headers()
                    .get(header::ACCEPT)
                    .and_then(|v| v.to_str().ok());
                let flavor = Flavor::negotiate(accept);
                match self.body(flavor).await {
                    Some(body) => Reply {
                        status: StatusCode::OK,
                        content_type: flavor.content_type(),
                        body,
                        extra: None,
                    },
                    None => Reply::text(StatusCode::INTERNAL_SERVER_ERROR, "Sampling failed\n"),
                }
            }
            "/" => Reply {
                status: StatusCode::OK,
                content_type: "text/html; charset=utf-8",
                body: Bytes::from_static(INDEX.as_bytes()),
                extra: None,
            },
            _ => Reply::text(StatusCode::NOT_FOUND, "Not found: try /metrics\n"),
        }
    }

    /// The exposition in `flavor`: shared when fresh, else sampled on a blocking thread (the
    /// lock held across it, so scrapers that arrive meanwhile share that sample). `None` when the
    /// sampling panicked.
    async fn body(&self, flavor: Flavor) -> Option<Bytes> {
        let mut scraper = Arc::clone(&self.scraper).lock_owned().await;
        if let Some(body) = scraper.cached(flavor) {
            return Some(body);
        }
        tokio::task::spawn_blocking(move || scraper.body(flavor))
            .await
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any Accept header picks a format.
        #[test]
        fn any_accept_header_negotiates(accept in ".{0,200}") {
            let _ = Flavor::negotiate(Some(&accept));
        }
    }

    #[test]
    fn warns_beyond_loopback_without_tls_or_auth() {
        let plain = WebConfig::default();
        for ip in ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"] {
            assert!(
                exposure_warnings(ip.parse().unwrap(), &plain).is_empty(),
                "{ip}"
            );
        }
        for ip in ["0.0.0.0", "::", "192.0.2.1", "::ffff:192.0.2.1"] {
            let w = exposure_warnings(ip.parse().unwrap(), &plain);
            assert_eq!(w.len(), 2, "{ip}: {w:?}");
            assert!(w[0].contains("without TLS") && w[1].contains("without authentication"));
        }
        let mtls = WebConfig {
            client_certs_required: true,
            ..WebConfig::default()
        };
        let w = exposure_warnings("0.0.0.0".parse().unwrap(), &mtls);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("without TLS"));
    }

    #[test]
    fn connections_fit_the_descriptor_limit() {
        let n = connection_limit();
        assert!((8..=MAX_CONNECTIONS).contains(&n), "{n}");
    }
}
