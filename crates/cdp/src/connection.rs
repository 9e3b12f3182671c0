//! The connection: one socket to Chrome, a reader task, a writer task, and the shared routing
//! state (pending calls by id, event subscribers by session).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_util::sync::CancellationToken;

use crate::event::{Event, RawJson, offset_in, parse_frame};
use crate::session::Session;
use crate::{Error, discovery};

/// How to connect.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    /// Extra HTTP headers for endpoint discovery and the WebSocket handshake (`--cdp-headers`).
    pub headers: Vec<(String, String)>,
    /// Deadline for discovery plus the WebSocket handshake.
    pub connect_timeout: Duration,
    /// Deadline of calls that do not pass their own.
    pub default_call_timeout: Duration,
    /// Capacity of the outgoing message queue; senders wait when it is full.
    pub outgoing_queue: usize,
    /// Extra root certificates (DER) trusted for `wss://` and `https://` endpoints, besides
    /// Mozilla's roots (a private CA in front of a remote browser; a test certificate).
    pub extra_root_certs: Vec<Vec<u8>>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            default_call_timeout: Duration::from_secs(30),
            outgoing_queue: 1024,
            extra_root_certs: Vec::new(),
        }
    }
}

/// Counters for what the reader saw; useful in tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnectionStats {
    /// Messages that were not valid UTF-8 JSON of the CDP envelope shape (ignored).
    pub malformed: u64,
    /// Events dropped because a subscriber's channel was full.
    pub dropped_events: u64,
    /// Replies whose id matched no pending call (late replies after a deadline).
    pub unmatched_replies: u64,
}

/// Which events a [`Subscription`] receives.
#[derive(Clone, Debug)]
pub enum EventFilter {
    /// Every event of the session.
    All,
    /// Only events whose method is one of these.
    Methods(Arc<[String]>),
}

impl EventFilter {
    /// A filter for the given methods.
    pub fn methods<I, S>(methods: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        EventFilter::Methods(methods.into_iter().map(Into::into).collect())
    }

    fn matches(&self, method: &str) -> bool {
        match self {
            EventFilter::All => true,
            EventFilter::Methods(methods) => methods.iter().any(|m| m == method),
        }
    }
}

/// A bounded stream of events of one session.
///
/// The reader never waits for a subscriber: when the channel is full the event is dropped and
/// counted in [`Subscription::dropped`]. `recv` returns `None` once the session is detached or
/// the connection is closed.
#[derive(Debug)]
pub struct Subscription {
    rx: mpsc::Receiver<Event>,
    dropped: Arc<AtomicU64>,
}

impl Subscription {
    /// The next event, or `None` when the session or connection ended.
    pub async fn recv(&mut self) -> Option<Event> {
        self.rx.recv().await
    }

    /// An event if one is queued.
    pub fn try_recv(&mut self) -> Option<Event> {
        self.rx.try_recv().ok()
    }

    /// How many events were dropped because this subscriber fell behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

struct Subscriber {
    filter: EventFilter,
    tx: mpsc::Sender<Event>,
    dropped: Arc<AtomicU64>,
}

struct Pending {
    tx: oneshot::Sender<Result<RawJson, Error>>,
    method: String,
    session: Option<Arc<str>>,
}

#[derive(Default)]
struct RouteTable {
    closed: Option<String>,
    pending: HashMap<u64, Pending>,
    /// Keyed by session id; the browser session is the empty string.
    subscribers: HashMap<String, Vec<Subscriber>>,
    stats: ConnectionStats,
}

/// State shared by the handles and the reader/writer tasks.
pub(crate) struct Shared {
    routes: Mutex<RouteTable>,
    next_id: AtomicU64,
    /// Messages sent per flat session (see [`crate::Session::messages_sent`]).
    sent: Mutex<HashMap<Arc<str>, u64>>,
    dead: CancellationToken,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    method: Option<&'a str>,
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<&'a str>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<ProtocolError>,
}

#[derive(Deserialize)]
struct ProtocolError {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<String>,
}

#[derive(Deserialize)]
struct SessionParam<'a> {
    #[serde(rename = "sessionId", borrow)]
    session_id: Option<&'a str>,
}

use chromiumoxide_cdp::cdp::browser_protocol::{inspector, page, target};
const CRASHED: &str = inspector::EventTargetCrashed::IDENTIFIER;
const DETACHED: &str = target::EventDetachedFromTarget::IDENTIFIER;
/// Parsed on the reader's fast path (see the crate docs), not through the generated type.
const FRAME: &str = page::EventScreencastFrame::IDENTIFIER;

impl Shared {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            routes: Mutex::new(RouteTable::default()),
            next_id: AtomicU64::new(1),
            sent: Mutex::new(HashMap::new()),
            dead: CancellationToken::new(),
        })
    }

    /// Counts one message going out on `session` (the browser session is not counted).
    fn note_sent(&self, session: Option<&Arc<str>>) {
        if let Some(session) = session {
            let mut sent = self
                .sent
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match sent.get_mut(session) {
                Some(count) => *count += 1,
                None => {
                    sent.insert(session.clone(), 1);
                }
            }
        }
    }

    /// Messages sent on `session` so far.
    pub(crate) fn sent_on(&self, session: &str) -> u64 {
        self.sent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(session)
            .copied()
            .unwrap_or(0)
    }

    fn routes(&self) -> MutexGuard<'_, RouteTable> {
        // A panic while holding this lock would be a bug in this module; keep serving anyway.
        self.routes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Routes one received message. Never blocks on a consumer.
    fn dispatch(&self, buffer: &Bytes) {
        let received_at = Instant::now();
        let Ok(text) = std::str::from_utf8(buffer) else {
            self.routes().stats.malformed += 1;
            tracing::warn!(
                len = buffer.len(),
                "ignoring a CDP message that is not UTF-8"
            );
            return;
        };
        let envelope: Envelope<'_> = match serde_json::from_str(text) {
            Ok(envelope) => envelope,
            Err(err) => {
                self.routes().stats.malformed += 1;
                tracing::warn!(%err, "ignoring a malformed CDP message");
                return;
            }
        };
        if let Some(id) = envelope.id {
            self.complete(id, buffer, text, envelope);
            return;
        }
        let Some(method) = envelope.method else {
            self.routes().stats.malformed += 1;
            return;
        };
        // Event arrival times for latency work (`ABX_LOG=abx_cdp=trace`); free when off.
        tracing::trace!(method, "event");
        let params_text = envelope.params.map(RawValue::get);
        let frame = if method == FRAME {
            params_text.and_then(|params| parse_frame(buffer, text, params, received_at))
        } else {
            None
        };
        let event = Event::new(
            buffer.clone(),
            offset_in(text, method),
            envelope.session_id.map(|s| offset_in(text, s)),
            params_text.map(|p| offset_in(text, p)),
            frame,
            received_at,
        );

        let mut routes = self.routes();
        match method {
            DETACHED => {
                let child = params_text
                    .and_then(|p| serde_json::from_str::<SessionParam<'_>>(p).ok())
                    .and_then(|p| p.session_id.map(str::to_string));
                if let Some(child) = child {
                    fail_session(&mut routes, &child, |session_id, method| {
                        Error::SessionDetached { session_id, method }
                    });
                    // Dropping the senders ends the child's subscriptions after what they queued.
                    routes.subscribers.remove(&child);
                    self.sent
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .remove(child.as_str());
                }
            }
            CRASHED => {
                if let Some(session) = envelope.session_id {
                    fail_session(&mut routes, session, |session_id, method| {
                        Error::TargetCrashed { session_id, method }
                    });
                }
            }
            _ => {}
        }
        let key = envelope.session_id.unwrap_or("");
        let RouteTable {
            subscribers, stats, ..
        } = &mut *routes;
        if let Some(list) = subscribers.get_mut(key) {
            list.retain(|sub| {
                if !sub.filter.matches(method) {
                    return !sub.tx.is_closed();
                }
                match sub.tx.try_send(event.clone()) {
                    Ok(()) => true,
                    Err(mpsc::error::TrySendError::Full(_)) => {
                        sub.dropped.fetch_add(1, Ordering::Relaxed);
                        stats.dropped_events += 1;
                        true
                    }
                    Err(mpsc::error::TrySendError::Closed(_)) => false,
                }
            });
        }
    }

    fn complete(&self, id: u64, buffer: &Bytes, text: &str, envelope: Envelope<'_>) {
        let pending = {
            let mut routes = self.routes();
            let pending = routes.pending.remove(&id);
            if pending.is_none() {
                routes.stats.unmatched_replies += 1;
            }
            pending
        };
        let Some(pending) = pending else { return };
        let outcome = match envelope.error {
            Some(err) => Err(Error::Protocol {
                method: pending.method,
                code: err.code,
                message: match err.data {
                    Some(data) if !data.is_empty() => format!("{} ({data})", err.message),
                    _ => err.message,
                },
            }),
            None => Ok(match envelope.result {
                Some(result) => RawJson::new(buffer.clone(), offset_in(text, result.get())),
                None => RawJson::from_string("{}".to_string()),
            }),
        };
        // The caller may have given up (deadline or cancellation); nothing to do then.
        let _ = pending.tx.send(outcome);
    }

    /// Marks the connection dead and fails every pending call at once.
    pub(crate) fn shutdown(&self, reason: &str) {
        let (pending, subscribers) = {
            let mut routes = self.routes();
            if routes.closed.is_some() {
                return;
            }
            routes.closed = Some(reason.to_string());
            (
                std::mem::take(&mut routes.pending),
                std::mem::take(&mut routes.subscribers),
            )
        };
        tracing::debug!(reason, pending = pending.len(), "CDP connection closed");
        for (_, call) in pending {
            let _ = call.tx.send(Err(Error::ConnectionClosed {
                reason: reason.to_string(),
            }));
        }
        drop(subscribers);
        self.dead.cancel();
    }

    fn closed_reason(&self) -> Option<String> {
        self.routes().closed.clone()
    }
}

fn fail_session(routes: &mut RouteTable, session: &str, error: impl Fn(String, String) -> Error) {
    let ids: Vec<u64> = routes
        .pending
        .iter()
        .filter(|(_, p)| p.session.as_deref() == Some(session))
        .map(|(id, _)| *id)
        .collect();
    for id in ids {
        if let Some(call) = routes.pending.remove(&id) {
            let _ = call.tx.send(Err(error(session.to_string(), call.method)));
        }
    }
}

/// Removes a pending call when the caller stops waiting (deadline, or its future is dropped).
struct PendingGuard<'a> {
    shared: &'a Shared,
    id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.shared.routes().pending.remove(&self.id);
    }
}

struct Handle {
    shared: Arc<Shared>,
    outgoing: mpsc::Sender<String>,
    stop: CancellationToken,
    url: String,
    default_timeout: Duration,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A connection to Chrome's DevTools endpoint. Cheap to clone; the socket closes when the last
/// clone (including every [`Session`] made from it) is dropped, or on [`Connection::close`].
#[derive(Clone)]
pub struct Connection {
    handle: Arc<Handle>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("url", &self.handle.url)
            .field("closed", &self.is_closed())
            .finish()
    }
}

pub(crate) type WsStream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

impl Connection {
    /// Connects to `ws://…/devtools/browser/<id>` (or a page's ws URL), or to `http://host:port`
    /// which is resolved through `/json/version`.
    pub async fn connect(url: &str) -> Result<Connection, Error> {
        Self::connect_with(url, ConnectOptions::default()).await
    }

    /// [`Connection::connect`] with options.
    pub async fn connect_with(url: &str, options: ConnectOptions) -> Result<Connection, Error> {
        let deadline = options.connect_timeout;
        match tokio::time::timeout(deadline, Self::connect_inner(url, &options)).await {
            Ok(result) => result,
            Err(_) => Err(Error::Connect {
                url: url.to_string(),
                reason: format!("no answer within {} ms", deadline.as_millis()),
            }),
        }
    }

    async fn connect_inner(url: &str, options: &ConnectOptions) -> Result<Connection, Error> {
        let (stream, ws_url) = open_ws(url, options).await?;
        Ok(Self::spawn_ws(stream, ws_url, options))
    }
}

/// Discovery (for `http(s)://`), headers and TLS, then the WebSocket handshake: the raw stream
/// and the URL it speaks to. Shared by [`Connection`] and the forwarder.
pub(crate) async fn open_ws(
    url: &str,
    options: &ConnectOptions,
) -> Result<(WsStream, String), Error> {
    // `ws://host:port?token=…` has no path: it is sent as `GET /?token=…`, never `GET ?token=…`.
    let ws_url = if url.starts_with("ws://") || url.starts_with("wss://") {
        discovery::normalize_ws_url(url)
    } else if url.starts_with("http://") || url.starts_with("https://") {
        let discovered =
            discovery::browser_ws_url_with(url, &options.headers, &options.extra_root_certs)
                .await?;
        discovery::normalize_ws_url(&discovered)
    } else {
        return Err(Error::Connect {
            url: url.to_string(),
            reason: "expected a ws://, wss://, http:// or https:// URL".to_string(),
        });
    };
    #[cfg(not(feature = "tls"))]
    if ws_url.starts_with("wss://") {
        return Err(Error::Connect {
            url: ws_url,
            reason: "wss:// endpoints need abx-cdp's `tls` feature".to_string(),
        });
    }
    let connect_error = |reason: String| Error::Connect {
        url: ws_url.clone(),
        reason,
    };
    let mut request = ws_url
        .as_str()
        .into_client_request()
        .map_err(|e| connect_error(e.to_string()))?;
    for (name, value) in &options.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| connect_error(format!("bad header name {name:?}: {e}")))?;
        let value = HeaderValue::from_str(value)
            .map_err(|e| connect_error(format!("bad header value for {name}: {e}")))?;
        request.headers_mut().insert(name, value);
    }
    // Chrome's messages can be many MB (full AX trees, screenshots): no size limits.
    let config = WebSocketConfig::default()
        .max_message_size(None)
        .max_frame_size(None);
    #[cfg(feature = "tls")]
    let (stream, _response) = {
        let connector = if ws_url.starts_with("wss://") {
            let tls =
                crate::tls::client_config(&options.extra_root_certs).map_err(&connect_error)?;
            Some(tokio_tungstenite::Connector::Rustls(tls))
        } else {
            None
        };
        tokio_tungstenite::connect_async_tls_with_config(request, Some(config), true, connector)
            .await
            .map_err(|e| connect_error(e.to_string()))?
    };
    #[cfg(not(feature = "tls"))]
    let (stream, _response) =
        tokio_tungstenite::connect_async_with_config(request, Some(config), true)
            .await
            .map_err(|e| connect_error(e.to_string()))?;
    Ok((stream, ws_url))
}

impl Connection {
    fn spawn_ws(stream: WsStream, url: String, options: &ConnectOptions) -> Connection {
        let (sink, source) = stream.split();
        let shared = Shared::new();
        let stop = CancellationToken::new();
        let (outgoing, queue) = mpsc::channel(options.outgoing_queue.max(1));
        tokio::spawn(read_ws(source, shared.clone(), stop.clone()));
        tokio::spawn(write_ws(sink, queue, shared.clone(), stop.clone()));
        Connection {
            handle: Arc::new(Handle {
                shared,
                outgoing,
                stop,
                url,
                default_timeout: options.default_call_timeout,
            }),
        }
    }

    /// Speaks CDP over a `--remote-debugging-pipe` pair (messages separated by NUL bytes):
    /// `read` is Chrome's fd 4, `write` is Chrome's fd 3.
    pub fn over_pipe<R, W>(read: R, write: W, options: &ConnectOptions) -> Connection
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let shared = Shared::new();
        let stop = CancellationToken::new();
        let (outgoing, queue) = mpsc::channel(options.outgoing_queue.max(1));
        tokio::spawn(read_pipe(read, shared.clone(), stop.clone()));
        tokio::spawn(write_pipe(write, queue, shared.clone(), stop.clone()));
        Connection {
            handle: Arc::new(Handle {
                shared,
                outgoing,
                stop,
                url: "pipe:".to_string(),
                default_timeout: options.default_call_timeout,
            }),
        }
    }

    /// The browser-level session (messages without a `sessionId`).
    pub fn browser(&self) -> Session {
        Session::new(self.clone(), None)
    }

    /// A handle for an existing flat session id.
    pub fn session(&self, session_id: &str) -> Session {
        Session::new(self.clone(), Some(Arc::from(session_id)))
    }

    /// Attaches to a target with `Target.attachToTarget { flatten: true }` and returns its session.
    pub async fn attach(&self, target_id: &str) -> Result<Session, Error> {
        use chromiumoxide_cdp::cdp::browser_protocol::target::AttachToTargetParams;
        let attach = AttachToTargetParams {
            flatten: Some(true),
            ..AttachToTargetParams::new(target_id.to_string())
        };
        let attached = self.browser().call(attach).await?;
        Ok(self.session(attached.session_id.as_ref()))
    }

    /// The WebSocket URL this connection speaks to (`pipe:` for a pipe).
    pub fn url(&self) -> &str {
        &self.handle.url
    }

    /// Whether the socket is gone.
    pub fn is_closed(&self) -> bool {
        self.handle.shared.dead.is_cancelled()
    }

    /// Resolves when the socket is gone, with the reason.
    pub async fn closed(&self) -> String {
        self.handle.shared.dead.cancelled().await;
        self.handle.shared.closed_reason().unwrap_or_default()
    }

    /// Closes the socket now; pending calls fail with [`Error::ConnectionClosed`].
    pub fn close(&self) {
        self.handle.shared.shutdown("connection closed by client");
        self.handle.stop.cancel();
    }

    /// How many messages (calls and sends) went out on this connection so far: a caller can
    /// tell whether something it did touched Chrome at all.
    pub fn messages_sent(&self) -> u64 {
        self.handle.shared.next_id.load(Ordering::Relaxed) - 1
    }

    /// Reader counters.
    pub fn stats(&self) -> ConnectionStats {
        self.handle.shared.routes().stats
    }

    pub(crate) fn default_timeout(&self) -> Duration {
        self.handle.default_timeout
    }

    pub(crate) fn subscribe(
        &self,
        session: Option<&str>,
        filter: EventFilter,
        capacity: usize,
    ) -> Subscription {
        let (tx, rx) = mpsc::channel(capacity.max(1));
        let dropped = Arc::new(AtomicU64::new(0));
        let mut routes = self.handle.shared.routes();
        // A subscription on a dead connection ends at once (its sender is dropped here).
        if routes.closed.is_none() {
            routes
                .subscribers
                .entry(session.unwrap_or("").to_string())
                .or_default()
                .push(Subscriber {
                    filter,
                    tx,
                    dropped: dropped.clone(),
                });
        }
        Subscription { rx, dropped }
    }

    fn next_id(&self, session: Option<&Arc<str>>) -> u64 {
        self.handle.shared.note_sent(session);
        self.handle.shared.next_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Messages sent on the flat session `session` so far.
    pub(crate) fn messages_sent_on(&self, session: &str) -> u64 {
        self.handle.shared.sent_on(session)
    }

    fn envelope(id: u64, session: Option<&str>, method: &str, params: &str) -> String {
        let method = serde_json::Value::String(method.to_string());
        match session {
            Some(session) => {
                let session = serde_json::Value::String(session.to_string());
                format!(
                    r#"{{"id":{id},"method":{method},"sessionId":{session},"params":{params}}}"#
                )
            }
            None => format!(r#"{{"id":{id},"method":{method},"params":{params}}}"#),
        }
    }

    /// Sends a call and waits for its reply or its deadline.
    pub(crate) async fn call_json(
        &self,
        session: Option<&Arc<str>>,
        method: &str,
        params: &str,
        timeout: Duration,
    ) -> Result<RawJson, Error> {
        let shared = &self.handle.shared;
        let id = self.next_id(session);
        let (tx, rx) = oneshot::channel();
        {
            let mut routes = shared.routes();
            if let Some(reason) = &routes.closed {
                return Err(Error::ConnectionClosed {
                    reason: reason.clone(),
                });
            }
            routes.pending.insert(
                id,
                Pending {
                    tx,
                    method: method.to_string(),
                    session: session.cloned(),
                },
            );
        }
        let _guard = PendingGuard { shared, id };
        let message = Self::envelope(id, session.map(|s| &**s), method, params);
        let work = async {
            if self.handle.outgoing.send(message).await.is_err() {
                return Err(Error::ConnectionClosed {
                    reason: shared
                        .closed_reason()
                        .unwrap_or_else(|| "writer stopped".into()),
                });
            }
            match rx.await {
                Ok(outcome) => outcome,
                Err(_) => Err(Error::ConnectionClosed {
                    reason: shared
                        .closed_reason()
                        .unwrap_or_else(|| "reply dropped".into()),
                }),
            }
        };
        let started = Instant::now();
        let outcome = match tokio::time::timeout(timeout, work).await {
            Ok(outcome) => outcome,
            Err(_) => Err(Error::Timeout {
                method: method.to_string(),
                after: timeout,
            }),
        };
        // Per-call timing for latency work (`ABX_LOG=abx_cdp=trace`); free when off.
        tracing::trace!(
            method,
            id,
            us = started.elapsed().as_micros() as u64,
            ok = outcome.is_ok(),
            "call"
        );
        outcome
    }

    /// Queues a call without waiting for its reply. Order with other sends and calls on this
    /// connection is preserved; the reply (or error) is discarded.
    pub(crate) async fn send_json(
        &self,
        session: Option<&Arc<str>>,
        method: &str,
        params: &str,
    ) -> Result<(), Error> {
        if let Some(reason) = self.handle.shared.closed_reason() {
            return Err(Error::ConnectionClosed { reason });
        }
        let id = self.next_id(session);
        tracing::trace!(method, id, "send");
        let message = Self::envelope(id, session.map(|s| &**s), method, params);
        self.handle
            .outgoing
            .send(message)
            .await
            .map_err(|_| Error::ConnectionClosed {
                reason: self
                    .handle
                    .shared
                    .closed_reason()
                    .unwrap_or_else(|| "writer stopped".into()),
            })
    }
}

async fn read_ws(
    mut source: futures_util::stream::SplitStream<WsStream>,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    let reason = loop {
        tokio::select! {
            _ = stop.cancelled() => break "connection closed by client".to_string(),
            _ = shared.dead.cancelled() => return,
            message = source.next() => match message {
                Some(Ok(Message::Text(text))) => shared.dispatch(&Bytes::from(text)),
                Some(Ok(Message::Binary(data))) => shared.dispatch(&data),
                Some(Ok(Message::Close(frame))) => {
                    break match frame {
                        Some(frame) => format!("Chrome closed the WebSocket ({})", frame.code),
                        None => "Chrome closed the WebSocket".to_string(),
                    };
                }
                Some(Ok(_)) => {}
                Some(Err(err)) => break format!("WebSocket error: {err}"),
                None => break "WebSocket ended".to_string(),
            },
        }
    };
    shared.shutdown(&reason);
}

async fn write_ws(
    mut sink: futures_util::stream::SplitSink<WsStream, Message>,
    mut queue: mpsc::Receiver<String>,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = shared.dead.cancelled() => break,
            message = queue.recv() => match message {
                Some(text) => {
                    if let Err(err) = sink.send(Message::text(text)).await {
                        shared.shutdown(&format!("WebSocket write failed: {err}"));
                        return;
                    }
                }
                None => break,
            },
        }
    }
    // Best effort: tell Chrome we are leaving; bounded so a stuck peer cannot hold us.
    let _ = tokio::time::timeout(Duration::from_millis(200), sink.close()).await;
    shared.shutdown("connection closed by client");
}

async fn read_pipe<R: AsyncRead + Unpin>(read: R, shared: Arc<Shared>, stop: CancellationToken) {
    let mut reader = BufReader::with_capacity(256 * 1024, read);
    let reason = loop {
        let mut message = Vec::new();
        tokio::select! {
            _ = stop.cancelled() => break "connection closed by client".to_string(),
            _ = shared.dead.cancelled() => return,
            read = reader.read_until(0, &mut message) => match read {
                Ok(0) => break "pipe closed".to_string(),
                Ok(_) => {
                    if message.last() == Some(&0) {
                        message.pop();
                    }
                    shared.dispatch(&Bytes::from(message));
                }
                Err(err) => break format!("pipe read failed: {err}"),
            },
        }
    };
    shared.shutdown(&reason);
}

async fn write_pipe<W: AsyncWrite + Unpin>(
    mut write: W,
    mut queue: mpsc::Receiver<String>,
    shared: Arc<Shared>,
    stop: CancellationToken,
) {
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = shared.dead.cancelled() => break,
            message = queue.recv() => match message {
                Some(text) => {
                    let written = async {
                        write.write_all(text.as_bytes()).await?;
                        write.write_all(&[0]).await?;
                        write.flush().await
                    };
                    if let Err(err) = written.await {
                        shared.shutdown(&format!("pipe write failed: {err}"));
                        return;
                    }
                }
                None => break,
            },
        }
    }
    shared.shutdown("connection closed by client");
}
