//! What keeps slow and idle clients from holding the exporter: each connection's phase and its
//! deadline, and the bound on connections that makes room for a newcomer instead of refusing it.
//!
//! A connection is always in one of three phases, each with its own time limit:
//! - **head**: from its accept (the TLS handshake included), or from the first byte of a next
//!   request, until the request head is whole: [`HEAD_TIME`]. A client that dribbles a header
//!   byte now and then is closed when that time is up, however often it sends.
//! - **answer**: from a whole request head until its answer has been written to the socket:
//!   [`ANSWER_TIME`] (a slow reader, a sample that hangs).
//! - **idle**: kept alive between requests, nothing sent: [`IDLE_TIME`], long enough for
//!   Prometheus to reuse its connection at a scrape interval of a minute.
//!
//! hyper's own `header_read_timeout` is not used: it starts when hyper waits for a request head,
//! so on a kept-alive connection it runs from the previous answer and closes a connection
//! Prometheus would reuse (a 5 s limit ends a 15 s scraper's connection after every scrape).
//!
//! At most [`MAX_CONNECTIONS`] connections are held; when a new one would pass the bound, one is
//! closed to make room, and a newcomer is never turned away. First to go are the connections
//! that have never been answered (a connection that is opened and left idle, a dribbled head),
//! the oldest accept first; only when every connection held has been answered, the one whose
//! last request is the oldest. A scraper's kept-alive connection, answered at every scrape,
//! outlives any number of idle connections opened in the time between two scrapes (by age alone
//! it would be closed once the bound's worth of them came in between); a client that wants to
//! outrank it has to send whole requests, and each of those is served and costs what a scrape
//! costs.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::task::AbortHandle;
use tokio::time::Instant;

/// How long a request head may take to arrive whole: from the connection's accept (the TLS
/// handshake included) for its first request, from its first byte for a later one.
pub const HEAD_TIME: Duration = Duration::from_secs(5);
/// How long an answer may take, from its request's head to its last byte written to the socket.
pub const ANSWER_TIME: Duration = Duration::from_secs(10);
/// How long a kept-alive connection may wait for its next request.
pub const IDLE_TIME: Duration = Duration::from_secs(90);
/// The most connections held at once (fewer when the descriptor limit is low: [`Registry::new`]).
pub const MAX_CONNECTIONS: usize = 512;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Head,
    Answer { body_sent: bool },
    Idle,
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// When the phase began.
    since: Instant,
    /// When the last request's head was whole, or the accept: the older, the sooner evicted.
    rank: Instant,
    /// Whether an answer has been written whole: one never answered is evicted first.
    answered: bool,
}

/// One connection's phase, shared by its I/O, its service and its watchdog.
#[derive(Debug)]
pub struct Conn {
    state: Mutex<State>,
    /// Wakes the watchdog when the phase changes.
    changed: Notify,
}

impl Conn {
    fn new(now: Instant) -> Self {
        Conn {
            state: Mutex::new(State {
                phase: Phase::Head,
                since: now,
                rank: now,
                answered: false,
            }),
            changed: Notify::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn enter(&self, phase: Phase) {
        let mut s = self.state();
        if phase == Phase::Idle {
            s.answered = true;
        }
        s.phase = phase;
        s.since = Instant::now();
        if let Phase::Answer { .. } = phase {
            s.rank = s.since;
        }
        drop(s);
        self.changed.notify_one();
    }

    /// A whole request head: its answer's time starts.
    pub(crate) fn request(&self) {
        self.enter(Phase::Answer { body_sent: false });
    }

    /// The answer's last byte is handed to hyper (or the answer has no body): the next flush
    /// that completes has written it to the socket.
    pub(crate) fn body_sent(&self) {
        let mut s = self.state();
        if let Phase::Answer { body_sent } = &mut s.phase {
            *body_sent = true;
        }
    }

    fn read(&self) {
        let idle = self.state().phase == Phase::Idle;
        if idle {
            self.enter(Phase::Head);
        }
    }

    fn flushed(&self) {
        let done = self.state().phase == Phase::Answer { body_sent: true };
        if done {
            self.enter(Phase::Idle);
        }
    }

    fn deadline(&self) -> Instant {
        let s = self.state();
        s.since
            + match s.phase {
                Phase::Head => HEAD_TIME,
                Phase::Answer { .. } => ANSWER_TIME,
                Phase::Idle => IDLE_TIME,
            }
    }

    /// The order of eviction, first to go least: never answered before answered, then the
    /// oldest request (or accept).
    fn rank(&self) -> (bool, Instant) {
        let s = self.state();
        (s.answered, s.rank)
    }

    /// Resolves when the connection's phase has outlived its limit.
    pub async fn expired(&self) {
        loop {
            let changed = self.changed.notified();
            let deadline = self.deadline();
            if Instant::now() >= deadline {
                return;
            }
            tokio::select! {
                () = tokio::time::sleep_until(deadline) => {}
                () = changed => {}
            }
        }
    }
}

/// The connections held, each with the handle that closes it.
pub struct Registry {
    conns: Mutex<HashMap<u64, (Arc<Conn>, AbortHandle)>>,
    next: AtomicU64,
    limit: usize,
}

impl Registry {
    /// A registry of at most `limit` connections.
    pub(crate) fn new(limit: usize) -> Self {
        Registry {
            conns: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            limit: limit.max(1),
        }
    }

    fn conns(&self) -> MutexGuard<'_, HashMap<u64, (Arc<Conn>, AbortHandle)>> {
        self.conns.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new connection's state and id, accepted now; when the registry is full, the connection
    /// that ranks first to go is closed first to make room (its socket once its task is dropped,
    /// at the runtime's next turn: the accept loop yields for it).
    pub async fn admit(&self) -> (u64, Arc<Conn>) {
        let mut evicted = false;
        while self.conns().len() >= self.limit {
            evicted |= self.evict_oldest();
        }
        if evicted {
            tokio::task::yield_now().await;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        (id, Arc::new(Conn::new(Instant::now())))
    }

    /// Hold the task serving connection `id` (spawned after [`Registry::admit`]).
    pub(crate) fn hold(&self, id: u64, conn: Arc<Conn>, task: AbortHandle) {
        self.conns().insert(id, (conn, task));
    }

    /// Forget connection `id` (its task has ended).
    pub(crate) fn release(&self, id: u64) {
        self.conns().remove(&id);
    }

    /// Close the connection that ranks first to go ([`Conn::rank`]); false when there is none.
    pub(crate) fn evict_oldest(&self) -> bool {
        let mut conns = self.conns();
        let oldest = conns
            .iter()
            .min_by_key(|(_, (conn, _))| conn.rank())
            .map(|(&id, _)| id);
        match oldest.and_then(|id| conns.remove(&id)) {
            Some((_, task)) => {
                task.abort();
                true
            }
            None => false,
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.conns().len()
    }
}

/// Forgets its connection when the connection's task ends, however it ends (an abort included).
pub struct Release<'a> {
    pub registry: &'a Registry,
    pub id: u64,
}

impl Drop for Release<'_> {
    fn drop(&mut self) {
        self.registry.release(self.id);
    }
}

/// A socket whose reads and flushes move its connection's phase: a byte read while idle starts
/// a request head; a flush that completes after the answer's last byte ends the answer.
pub struct Watched<T> {
    pub io: T,
    pub conn: Arc<Conn>,
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.io).poll_read(cx, buf);
        if matches!(res, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.conn.read();
        }
        res
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let res = Pin::new(&mut self.io).poll_flush(cx);
        if matches!(res, Poll::Ready(Ok(()))) {
            self.conn.flushed();
        }
        res
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap()
    }

    #[test]
    fn each_phase_has_its_limit() {
        runtime().block_on(async {
            let c = Conn::new(Instant::now());
            let t0 = Instant::now();
            assert_eq!(c.deadline(), t0 + HEAD_TIME);
            // Bytes of the first head do not extend it.
            c.read();
            assert_eq!(c.deadline(), t0 + HEAD_TIME);
            tokio::time::advance(Duration::from_secs(2)).await;
            c.request();
            assert_eq!(c.deadline(), Instant::now() + ANSWER_TIME);
            // A flush before the body is out (the head) does not end the answer.
            c.flushed();
            assert_eq!(c.deadline(), Instant::now() + ANSWER_TIME);
            c.body_sent();
            c.flushed();
            let idle = Instant::now();
            assert_eq!(c.deadline(), idle + IDLE_TIME);
            tokio::time::advance(Duration::from_secs(30)).await;
            // The next request's first byte starts its head's time.
            c.read();
            assert_eq!(c.deadline(), Instant::now() + HEAD_TIME);
            c.read();
            tokio::time::advance(Duration::from_secs(1)).await;
            c.read();
            assert_eq!(c.deadline(), idle + Duration::from_secs(30) + HEAD_TIME);
        });
    }

    #[test]
    fn a_dribbled_head_expires_on_time() {
        runtime().block_on(async {
            let c = Arc::new(Conn::new(Instant::now()));
            let t0 = Instant::now();
            let watch = tokio::spawn({
                let c = Arc::clone(&c);
                async move { c.expired().await }
            });
            // A byte every 500 ms: closed at 5 s all the same.
            let mut closed = None;
            for _ in 0..20 {
                tokio::time::advance(Duration::from_millis(500)).await;
                tokio::task::yield_now().await;
                if watch.is_finished() {
                    closed = Some(Instant::now() - t0);
                    break;
                }
                c.read();
            }
            assert_eq!(closed, Some(HEAD_TIME));
        });
    }

    #[test]
    fn a_kept_alive_connection_outlives_the_head_limit() {
        runtime().block_on(async {
            let c = Arc::new(Conn::new(Instant::now()));
            c.request();
            c.body_sent();
            c.flushed();
            let idle = Instant::now();
            let watch = tokio::spawn({
                let c = Arc::clone(&c);
                async move {
                    c.expired().await;
                    Instant::now()
                }
            });
            tokio::time::advance(Duration::from_secs(15)).await;
            // A scrape 15 s later: served, idle again.
            c.read();
            c.request();
            c.body_sent();
            c.flushed();
            let again = Instant::now();
            assert_eq!(again - idle, Duration::from_secs(15));
            assert_eq!(watch.await.unwrap() - again, IDLE_TIME);
        });
    }

    #[test]
    fn a_full_registry_closes_the_oldest_to_admit_a_newcomer() {
        runtime().block_on(async {
            let reg = Registry::new(3);
            let mut tasks = Vec::new();
            let mut conns = Vec::new();
            for _ in 0..3 {
                let (id, conn) = reg.admit().await;
                let task = tokio::spawn(std::future::pending::<()>());
                reg.hold(id, Arc::clone(&conn), task.abort_handle());
                tasks.push(task);
                conns.push(conn);
                tokio::time::advance(Duration::from_secs(1)).await;
            }
            // The first has just made a request: it is the newest now; the second is the oldest.
            conns[0].request();
            let (id, conn) = reg.admit().await;
            let task = tokio::spawn(std::future::pending::<()>());
            reg.hold(id, conn, task.abort_handle());
            assert_eq!(reg.len(), 3);
            tokio::task::yield_now().await;
            assert!(!tasks[0].is_finished());
            assert!(tasks[1].is_finished(), "the oldest closed");
            assert!(!tasks[2].is_finished());
            assert!(!task.is_finished(), "the newcomer held");
        });
    }

    #[test]
    fn connections_never_answered_are_closed_before_an_answered_one() {
        runtime().block_on(async {
            let reg = Registry::new(3);
            let hold = |reg: &Registry, id, conn: &Arc<Conn>| {
                let task = tokio::spawn(std::future::pending::<()>());
                reg.hold(id, Arc::clone(conn), task.abort_handle());
                task
            };
            // A scraper's connection, answered, then idle: older than all that follow.
            let (id, scraper) = reg.admit().await;
            let scraper_task = hold(&reg, id, &scraper);
            scraper.request();
            scraper.body_sent();
            scraper.flushed();
            // Idle connections, a second apart, ten times the room: each closes the oldest
            // idle one, never the scraper's.
            let mut idle = Vec::new();
            for _ in 0..30 {
                tokio::time::advance(Duration::from_secs(1)).await;
                let (id, conn) = reg.admit().await;
                idle.push(hold(&reg, id, &conn));
                tokio::task::yield_now().await;
            }
            assert_eq!(reg.len(), 3);
            assert!(
                !scraper_task.is_finished(),
                "the answered connection is held"
            );
            assert_eq!(idle.iter().filter(|t| !t.is_finished()).count(), 2);
            assert!(!idle[29].is_finished() && !idle[28].is_finished());
        });
    }
}
