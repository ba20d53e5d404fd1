//! `zswaptop serve`: `/metrics` over HTTP for Prometheus, sampled at scrape time.
//!
//! A small synchronous server over [`std::net`], with the request head parsed by `httparse`:
//! a fixed pool of [`WORKERS`] threads serves the connections that an accept loop hands over a
//! queue of [`QUEUE`]; a connection that finds the queue full is answered 503 at once and
//! closed, so at most `WORKERS + QUEUE` connections are ever held. Each request must arrive
//! whole, head at most [`HEAD_BYTES`], within [`REQUEST_TIME`] of its accept (a client that
//! dribbles a header now and then is closed when that time is up, however often it sends), and
//! its answer must be taken within [`WRITE_TIME`]. One request per connection (`Connection:
//! close`). Only `GET`/`HEAD` of `/metrics` and `/`.
//!
//! Each scrape reads the kernel afresh; scrapes that come within [`SHARED_FOR`] of each other
//! share one sample (fifty scrapers at once cost one read). Rates (the PSI shares, the bypass
//! rate) are taken against the sample of an earlier scrape at least [`MIN_RATE_WINDOW`] before,
//! so they cover the time between scrapes; Prometheus computes its own from the counters.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::model::Snapshot;
use crate::report::openmetrics::{self, Flavor};
use crate::root::Root;
use crate::sources::sampler::{SampleSource, Sampler};
use crate::sources::{Extras, Sample};

/// Threads that serve requests.
pub const WORKERS: usize = 4;
/// Accepted connections that wait for a worker; more are answered 503.
pub const QUEUE: usize = 64;
/// The largest request head (request line and headers) read.
pub const HEAD_BYTES: usize = 8 * 1024;
/// How long a request may take to arrive, from its connection's accept.
pub const REQUEST_TIME: Duration = Duration::from_secs(5);
/// How long the client may take to read the answer.
pub const WRITE_TIME: Duration = Duration::from_secs(5);
/// Scrapes this close together share one sample.
pub const SHARED_FOR: Duration = Duration::from_millis(200);
/// The shortest time rates are taken over.
pub const MIN_RATE_WINDOW: Duration = Duration::from_secs(1);

/// The sampler the workers share.
struct Scraper {
    source: Sampler,
    /// The sample rates are taken from.
    base: Option<Sample>,
    /// The last sample's time and its exposition in each format, rendered when first asked for.
    last: Option<(Instant, Arc<Snapshot>)>,
    bodies: [Option<Arc<String>>; 2],
}

impl Scraper {
    /// The exposition in `flavor`, of a sample no older than [`SHARED_FOR`].
    fn body(&mut self, flavor: Flavor) -> Arc<String> {
        let fresh = self
            .last
            .as_ref()
            .is_some_and(|(at, _)| at.elapsed() < SHARED_FOR);
        if !fresh {
            self.last = Some((Instant::now(), self.sample()));
            self.bodies = [None, None];
        }
        let slot = usize::from(flavor == Flavor::Prometheus);
        if let Some(b) = &self.bodies[slot] {
            return Arc::clone(b);
        }
        let mut text = String::with_capacity(32 * 1024);
        if let Some((_, snap)) = &self.last {
            openmetrics::render(snap, flavor, &mut text);
        }
        let body = Arc::new(text);
        self.bodies[slot] = Some(Arc::clone(&body));
        body
    }

    fn sample(&mut self) -> Arc<Snapshot> {
        let curr = self
            .source
            .next(self.base.as_ref(), crate::metrics_extras(Extras::default()));
        let snap = Arc::new(crate::diagnostics::judged(Snapshot::derive(
            &curr,
            self.base.as_ref(),
        )));
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

/// Listen on `listen` and serve until the process is stopped.
pub fn run(listen: SocketAddr, root: Option<PathBuf>) -> anyhow::Result<()> {
    if let Some(r) = &root
        && !r.is_dir()
    {
        anyhow::bail!("root '{}' is not a directory", r.display());
    }
    let listener = TcpListener::bind(listen).with_context(|| format!("listening on {listen}"))?;
    let addr = listener.local_addr().context("reading the bound address")?;
    crate::console::note(format_args!("serving http://{addr}/metrics"));
    let root = root.map(Root::at).unwrap_or_else(Root::live);
    serve(listener, root)
}

/// Serve on a bound listener (never returns but on an accept error that persists).
pub fn serve(listener: TcpListener, root: Root) -> anyhow::Result<()> {
    let scraper = Arc::new(Mutex::new(Scraper {
        source: Sampler::full(root),
        base: None,
        last: None,
        bodies: [None, None],
    }));
    let (tx, rx): (SyncSender<(TcpStream, Instant)>, Receiver<_>) = mpsc::sync_channel(QUEUE);
    let rx = Arc::new(Mutex::new(rx));
    for i in 0..WORKERS {
        let rx = Arc::clone(&rx);
        let scraper = Arc::clone(&scraper);
        std::thread::Builder::new()
            .name(format!("http-{i}"))
            .stack_size(512 * 1024)
            .spawn(move || worker(&rx, &scraper))
            .context("starting a worker thread")?;
    }
    let mut failures = 0u32;
    for conn in listener.incoming() {
        match conn {
            Ok(stream) => {
                failures = 0;
                match tx.try_send((stream, Instant::now())) {
                    Ok(()) => {}
                    Err(TrySendError::Full((stream, _))) => busy(stream),
                    Err(TrySendError::Disconnected(_)) => {
                        anyhow::bail!("every worker thread has stopped")
                    }
                }
            }
            // Out of descriptors, a connection reset before accept: wait a little, go on.
            Err(e) => {
                failures += 1;
                if failures > 1000 {
                    return Err(e).context("accepting connections");
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
    Ok(())
}

fn worker(rx: &Mutex<Receiver<(TcpStream, Instant)>>, scraper: &Mutex<Scraper>) {
    loop {
        let next = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok((stream, accepted)) = next else {
            return;
        };
        // A bug in one request's handling ends that connection, not the worker.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            handle(stream, accepted, scraper);
        }));
    }
}

/// Answer a connection that found the queue full, without waiting on it.
fn busy(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
    let _ = stream.write_all(
        b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\nConnection: close\r\n\r\n",
    );
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // What the client has sent already: read, so that closing sends FIN, not a reset that
    // could drop the answer before the client reads it.
    if stream.set_nonblocking(true).is_ok() {
        drain(&mut stream);
    }
}

/// Read and drop what the client sent beyond the request head, up to 64 KiB, until the read
/// times out, fails or ends.
fn drain(stream: &mut TcpStream) {
    let mut sink = [0u8; 4096];
    for _ in 0..16 {
        match stream.read(&mut sink) {
            Ok(n) if n > 0 => {}
            _ => return,
        }
    }
}

/// What a request asks for.
#[derive(Debug, PartialEq, Eq)]
enum Ask {
    Metrics {
        head_only: bool,
        flavor: Flavor,
    },
    Index {
        head_only: bool,
    },
    NotFound,
    BadMethod,
    /// Unparsable, or a head over [`HEAD_BYTES`].
    Bad(u16),
}

/// Read the request head by the deadline; `None` when the time is up or the client went away.
fn read_head(stream: &mut TcpStream, deadline: Instant, buf: &mut [u8]) -> Option<Ask> {
    let mut len = 0;
    loop {
        let left = deadline.checked_duration_since(Instant::now())?;
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return None;
        }
        let n = match stream.read(&mut buf[len..]) {
            Ok(0) | Err(_) => return None,
            Ok(n) => n,
        };
        len += n;
        match parse(&buf[..len]) {
            Some(ask) => return Some(ask),
            None if len == buf.len() => return Some(Ask::Bad(431)),
            None => {}
        }
    }
}

/// The request in `head`, `None` while it is incomplete.
fn parse(head: &[u8]) -> Option<Ask> {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return None,
        Err(httparse::Error::TooManyHeaders) => return Some(Ask::Bad(431)),
        Err(_) => return Some(Ask::Bad(400)),
    }
    let head_only = match req.method {
        Some("GET") => false,
        Some("HEAD") => true,
        _ => return Some(Ask::BadMethod),
    };
    let path = req.path.unwrap_or("");
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    Some(match path {
        "/metrics" => {
            let accept = req
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("accept"))
                .and_then(|h| std::str::from_utf8(h.value).ok());
            Ask::Metrics {
                head_only,
                flavor: Flavor::negotiate(accept),
            }
        }
        "/" => Ask::Index { head_only },
        _ => Ask::NotFound,
    })
}

const INDEX: &str = "<!DOCTYPE html>\n<html><head><title>zswaptop</title></head><body>\n\
<h1>zswaptop</h1>\n<p>Where memory really is when zswap or zram compresses it.</p>\n\
<p><a href=\"/metrics\">/metrics</a>: OpenMetrics, or the Prometheus text format 0.0.4 \
when the scraper's Accept header asks for it.</p>\n</body></html>\n";

fn handle(mut stream: TcpStream, accepted: Instant, scraper: &Mutex<Scraper>) {
    let mut buf = [0u8; HEAD_BYTES];
    let Some(ask) = read_head(&mut stream, accepted + REQUEST_TIME, &mut buf) else {
        return;
    };
    let _ = stream.set_write_timeout(Some(WRITE_TIME));
    let text = |t: &str| Arc::new(t.to_string());
    let (status, ctype, body, head_only): (&str, &str, Arc<String>, bool) = match ask {
        Ask::Metrics { head_only, flavor } => {
            let body = scraper
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .body(flavor);
            ("200 OK", flavor.content_type(), body, head_only)
        }
        Ask::Index { head_only } => ("200 OK", "text/html; charset=utf-8", text(INDEX), head_only),
        Ask::NotFound => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            text("Not found: try /metrics\n"),
            false,
        ),
        Ask::BadMethod => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            text("Only GET and HEAD\n"),
            false,
        ),
        Ask::Bad(431) => (
            "431 Request Header Fields Too Large",
            "text/plain; charset=utf-8",
            text("Request head too large\n"),
            false,
        ),
        Ask::Bad(_) => (
            "400 Bad Request",
            "text/plain; charset=utf-8",
            text("Bad request\n"),
            false,
        ),
    };
    let allow = if status.starts_with("405") {
        "Allow: GET, HEAD\r\n"
    } else {
        ""
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n{allow}Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| {
            if head_only {
                Ok(())
            } else {
                stream.write_all(body.as_bytes())
            }
        })
        .and_then(|()| stream.flush());
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // A lingering close: the answer is sent; take what else the client sent (briefly) so the
    // close is a FIN and the client reads the answer.
    if stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .is_ok()
    {
        drain(&mut stream);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any bytes at all: an answer or "not yet", never a panic.
        #[test]
        fn any_request_head_parses_or_waits(head in proptest::collection::vec(proptest::num::u8::ANY, 0..600)) {
            let _ = parse(&head);
        }

        /// Any Accept header picks a format.
        #[test]
        fn any_accept_header_negotiates(accept in ".{0,200}") {
            let _ = Flavor::negotiate(Some(&accept));
        }
    }

    #[test]
    fn requests() {
        assert_eq!(parse(b"GET /metrics HTTP/1.1\r\nHost: x\r\n"), None);
        assert_eq!(
            parse(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
            Some(Ask::Metrics {
                head_only: false,
                flavor: Flavor::Prometheus
            })
        );
        assert_eq!(
            parse(b"HEAD /metrics?x=1 HTTP/1.0\r\nAccept: application/openmetrics-text; version=1.0.0\r\n\r\n"),
            Some(Ask::Metrics {
                head_only: true,
                flavor: Flavor::OpenMetrics
            })
        );
        assert_eq!(
            parse(b"GET / HTTP/1.1\r\n\r\n"),
            Some(Ask::Index { head_only: false })
        );
        assert_eq!(
            parse(b"GET /etc/passwd HTTP/1.1\r\n\r\n"),
            Some(Ask::NotFound)
        );
        assert_eq!(
            parse(b"POST /metrics HTTP/1.1\r\n\r\n"),
            Some(Ask::BadMethod)
        );
        assert_eq!(parse(b"\x00\x01garbage\r\n\r\n"), Some(Ask::Bad(400)));
        let many = format!("GET / HTTP/1.1\r\n{}\r\n", "a: b\r\n".repeat(100));
        assert_eq!(parse(many.as_bytes()), Some(Ask::Bad(431)));
    }
}
