//! The stream server: the upstream-compatible WebSocket live view plus its small HTTP API, on
//! 127.0.0.1, for one session.
//!
//! * WebSocket upgrade on any path but `/api/*`: `status`, `tabs`, a pending `dialog`, the cached
//!   frame, then frames and events; viewer messages per [`crate::protocol`]. `?maxFps=&pacing=`
//!   set the initial delivery.
//! * `GET /api/status` → `{"engine":"chrome"}`, `GET /api/tabs` → the tab list, `GET
//!   /api/sessions` → [`ServerHooks::sessions`], `POST /api/command` → the JSON body run by
//!   [`ServerHooks::command`] (only when `Origin` or `Referer` matches `Host`). The server knows
//!   nothing of where sessions live or how commands reach them: its host (the daemon) does.
//!
//! Access rules: a WebSocket from a browser page must come from a local origin (no `Origin`,
//! `file://`, `localhost`, `127.0.0.1`, `::1`), else 403 `Origin not allowed`. When a token is
//! configured (`AGENT_BROWSER_STREAM_TOKEN`, beyond upstream), every request must carry it as
//! `?token=`, `Authorization: Bearer <token>` or `X-Stream-Token: <token>`, else 401.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::extract::ws::{WebSocketUpgrade, rejection::WebSocketUpgradeRejection};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::error::RelayError;
use crate::http::{Served, error_response, json_response};
use crate::protocol::{ViewerConfig, query_pairs};
use crate::relay::Relay;

/// How the stream server listens.
///
/// ```
/// let options = abx_relay::ServerOptions {
///     port: 9223,
///     fallback_to_any_port: false,
///     token: Some("s3cret".into()),
///     ..Default::default()
/// };
/// assert_eq!(options.write_deadline.as_secs(), 5);
/// ```
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Port on 127.0.0.1; 0 lets the OS pick (`AGENT_BROWSER_STREAM_PORT`).
    pub port: u16,
    /// When the port is taken, listen on an OS-assigned port instead of failing (daemon boot
    /// does; `stream enable --port N` does not).
    pub fallback_to_any_port: bool,
    /// Required token (`AGENT_BROWSER_STREAM_TOKEN`); `None` = no token (upstream).
    pub token: Option<String>,
    /// A viewer whose socket stays unwritable this long is disconnected.
    pub write_deadline: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            port: 0,
            fallback_to_any_port: true,
            token: None,
            write_deadline: Duration::from_secs(5),
        }
    }
}

/// What [`ServerHooks::command`] returns: the command's reply, or why there is none.
pub type CommandReply<'a> = Pin<Box<dyn Future<Output = Result<Value, String>> + Send + 'a>>;

/// What the server asks of its host process (the daemon): everything it cannot know itself.
///
/// ```
/// struct Idle(std::sync::atomic::AtomicU64);
/// impl abx_relay::ServerHooks for Idle {
///     fn activity(&self) {
///         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
///     }
/// }
/// ```
pub trait ServerHooks: Send + Sync + 'static {
    /// A viewer sent input or answered a dialog (the daemon marks its idle timer).
    fn activity(&self) {}
    /// A viewer reopened the tab (the daemon records the new tab binding).
    fn tab_reopened(&self) {}
    /// `GET /api/sessions`: the live sessions a viewer could switch to,
    /// `[{"session","port","engine",…}]` (none by default).
    fn sessions(&self) -> Vec<Value> {
        Vec::new()
    }
    /// `POST /api/command`: runs `command` (the request body, a JSON object) and returns its
    /// reply. By default the server takes no commands.
    fn command(&self, command: Value) -> CommandReply<'_> {
        let _ = command;
        Box::pin(async { Err("This stream does not take commands".to_string()) })
    }
}

/// Hooks that do nothing (a library user without a daemon).
///
/// ```
/// let hooks: std::sync::Arc<dyn abx_relay::ServerHooks> = std::sync::Arc::new(abx_relay::NoHooks);
/// hooks.activity();
/// ```
#[derive(Debug, Default)]
pub struct NoHooks;

impl ServerHooks for NoHooks {}

pub(crate) struct App {
    pub(crate) relay: Relay,
    pub(crate) options: ServerOptions,
    pub(crate) hooks: Arc<dyn ServerHooks>,
    pub(crate) stop: CancellationToken,
}

/// A running stream server.
///
/// ```no_run
/// # async fn demo(session: std::sync::Arc<abx_engine::Session>) -> Result<(), abx_relay::RelayError> {
/// use std::sync::Arc;
/// use abx_relay::{NoHooks, Relay, RelayOptions, ServerOptions, StreamServer};
/// let relay = Relay::new(RelayOptions::default());
/// relay.set_session(Some(session));
/// let server = StreamServer::start(relay, ServerOptions::default(), Arc::new(NoHooks))?;
/// println!("live view on ws://127.0.0.1:{}", server.port());
/// server.shutdown().await;
/// # Ok(()) }
/// ```
pub struct StreamServer {
    served: Served,
}

impl std::fmt::Debug for StreamServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamServer")
            .field("port", &self.served.port())
            .finish_non_exhaustive()
    }
}

impl StreamServer {
    /// Binds 127.0.0.1 and serves `relay`. Synchronous so the daemon can call it from a
    /// non-async hook; must run inside a tokio runtime.
    ///
    /// ```
    /// # #[tokio::main] async fn main() -> Result<(), abx_relay::RelayError> {
    /// use std::sync::Arc;
    /// let relay = abx_relay::Relay::new(Default::default());
    /// let server = abx_relay::StreamServer::start(relay, Default::default(), Arc::new(abx_relay::NoHooks))?;
    /// assert!(server.port() > 0);
    /// server.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn start(
        relay: Relay,
        options: ServerOptions,
        hooks: Arc<dyn ServerHooks>,
    ) -> Result<StreamServer, RelayError> {
        let listener = bind(options.port, options.fallback_to_any_port)?;
        let port = listener
            .local_addr()
            .map_err(|source| RelayError::Bind {
                port: options.port,
                source,
            })?
            .port();
        let listener =
            tokio::net::TcpListener::from_std(listener).map_err(|source| RelayError::Bind {
                port: options.port,
                source,
            })?;
        let stop = CancellationToken::new();
        let app = Arc::new(App {
            relay,
            options,
            hooks,
            stop: stop.clone(),
        });
        let router = Router::new().fallback(handle).with_state(app);
        Ok(StreamServer {
            served: Served::start(vec![listener], port, router, stop, "stream server"),
        })
    }

    /// The port it listens on (written to `<session>.stream` by the daemon).
    ///
    /// ```no_run
    /// # fn demo(server: &abx_relay::StreamServer) {
    /// println!("ws://127.0.0.1:{}/", server.port());
    /// # }
    /// ```
    pub fn port(&self) -> u16 {
        self.served.port()
    }

    /// Stops accepting and tells every viewer to go (without waiting).
    ///
    /// ```no_run
    /// # fn demo(server: &abx_relay::StreamServer) {
    /// server.stop(); // `stream disable`
    /// # }
    /// ```
    pub fn stop(&self) {
        self.served.stop();
    }

    /// Stops and waits (bounded) for the server and its viewers to end.
    ///
    /// ```no_run
    /// # async fn demo(server: abx_relay::StreamServer) {
    /// server.shutdown().await;
    /// # }
    /// ```
    pub async fn shutdown(self) {
        self.served.shutdown().await;
    }
}

fn bind(port: u16, fallback: bool) -> Result<std::net::TcpListener, RelayError> {
    let attempt = std::net::TcpListener::bind(("127.0.0.1", port));
    let listener = match attempt {
        Ok(listener) => listener,
        Err(err) if fallback && port != 0 => {
            tracing::debug!(%err, port, "stream port taken; using an OS-assigned port");
            std::net::TcpListener::bind(("127.0.0.1", 0))
                .map_err(|source| RelayError::Bind { port: 0, source })?
        }
        Err(source) => return Err(RelayError::Bind { port, source }),
    };
    listener
        .set_nonblocking(true)
        .map_err(|source| RelayError::Bind { port, source })?;
    Ok(listener)
}

const CORS: [(&str, &str); 3] = [
    ("access-control-allow-origin", "*"),
    ("access-control-allow-methods", "GET, POST, OPTIONS"),
    (
        "access-control-allow-headers",
        "Content-Type, Authorization, X-Stream-Token",
    ),
];

fn with_cors(mut response: Response) -> Response {
    for (name, value) in CORS {
        response
            .headers_mut()
            .insert(name, HeaderValue::from_static(value));
    }
    response
}

async fn handle(
    State(app): State<Arc<App>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    body: Bytes,
) -> Response {
    let path = uri.path();
    let query = uri.query().unwrap_or("");
    let api = path.starts_with("/api/");
    let guarded = matches!(path, "/api/command" | "/api/sessions");
    if method == Method::OPTIONS {
        if guarded && !same_origin(&headers) {
            return error_response(
                StatusCode::FORBIDDEN,
                "Origin or Referer does not match Host header.",
            );
        }
        let mut response = with_cors(StatusCode::NO_CONTENT.into_response());
        response
            .headers_mut()
            .insert("access-control-max-age", HeaderValue::from_static("86400"));
        return response;
    }
    if !api {
        if let Ok(upgrade) = upgrade {
            return websocket(app, upgrade, &headers, query);
        }
        return with_cors((StatusCode::NOT_FOUND, "404 Not Found").into_response());
    }
    if !token_ok(app.options.token.as_deref(), &headers, query) {
        return with_cors(error_response(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: this stream needs its token (?token=, Authorization: Bearer or X-Stream-Token)",
        ));
    }
    let response = match (method, path) {
        (Method::GET, "/api/status") => {
            json_response(StatusCode::OK, json!({"engine": "chrome"}).to_string())
        }
        (Method::GET, "/api/tabs") => {
            let tabs = serde_json::to_string(&app.relay.tabs()).unwrap_or_else(|_| "[]".into());
            json_response(StatusCode::OK, tabs)
        }
        (Method::GET, "/api/sessions") => json_response(
            StatusCode::OK,
            Value::Array(app.hooks.sessions()).to_string(),
        ),
        (Method::POST, "/api/command") => {
            if !same_origin(&headers) {
                // Upstream answers this one without CORS headers.
                return error_response(
                    StatusCode::FORBIDDEN,
                    "Origin or Referer does not match Host header.",
                );
            }
            match run_command(app.hooks.as_ref(), &body).await {
                Ok(reply) => json_response(StatusCode::OK, reply.to_string()),
                Err(message) => error_response(StatusCode::BAD_GATEWAY, &message),
            }
        }
        _ => (StatusCode::NOT_FOUND, "404 Not Found").into_response(),
    };
    with_cors(response)
}

fn websocket(
    app: Arc<App>,
    upgrade: WebSocketUpgrade,
    headers: &HeaderMap,
    query: &str,
) -> Response {
    let origin = headers
        .get(header::ORIGIN)
        .map(|v| v.to_str().unwrap_or("\u{fffd}"));
    if !origin_allowed(origin) {
        return (StatusCode::FORBIDDEN, "Origin not allowed").into_response();
    }
    if !token_ok(app.options.token.as_deref(), headers, query) {
        return (
            StatusCode::UNAUTHORIZED,
            "Unauthorized: this stream needs its token",
        )
            .into_response();
    }
    let config = ViewerConfig::from_query(query);
    upgrade
        // Viewer messages are small; a paste arrives one character per event.
        .max_message_size(1 << 20)
        .max_frame_size(1 << 20)
        .on_upgrade(move |socket| crate::viewer::serve(socket, app, config))
}

/// The WebSocket origin rule (upstream): no `Origin` (not a browser page), a `file://` page, or
/// a page on localhost / 127.0.0.1 / ::1 (any scheme and port). `null` is refused: sandboxed
/// iframes on any site send it.
///
/// ```
/// use abx_relay::origin_allowed;
/// assert!(origin_allowed(None) && origin_allowed(Some("http://localhost:3000")));
/// assert!(!origin_allowed(Some("https://example.com")));
/// ```
pub fn origin_allowed(origin: Option<&str>) -> bool {
    let Some(origin) = origin.map(str::trim) else {
        return true;
    };
    if origin.is_empty() {
        return true;
    }
    match url::Url::parse(origin) {
        Ok(url) if url.scheme() == "file" => true,
        Ok(url) => url.host().is_some_and(|host| is_loopback(&host)),
        Err(_) => false,
    }
}

/// `localhost`, `127.0.0.1` or `::1` (the hosts a local page's origin has).
fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => *ip == std::net::Ipv4Addr::LOCALHOST,
        url::Host::Ipv6(ip) => *ip == std::net::Ipv6Addr::LOCALHOST,
    }
}

/// Upstream's rule for state-changing API calls: the page's `Origin` (or `Referer`) names the
/// same `host:port` as the `Host` header, and is https or a local host.
///
/// ```
/// use axum::http::{HeaderMap, HeaderValue};
/// let mut headers = HeaderMap::new();
/// headers.insert("host", HeaderValue::from_static("127.0.0.1:9223"));
/// headers.insert("origin", HeaderValue::from_static("http://127.0.0.1:9223"));
/// assert!(abx_relay::same_origin(&headers));
/// ```
pub fn same_origin(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let host = normalize_authority(host);
    [header::ORIGIN, header::REFERER].iter().any(|name| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(origin_authority)
            .is_some_and(|(authority, trusted)| trusted && authority == host)
    })
}

/// `(normalized host:port, https or local)` of an origin or referer URL (credentials in a
/// referer are not part of the authority we compare).
fn origin_authority(text: &str) -> Option<(String, bool)> {
    let url = url::Url::parse(text).ok()?;
    let scheme = url.scheme();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let host = url.host()?;
    let local = is_loopback(&host)
        || matches!(&host, url::Host::Domain(name) if name.ends_with(".localhost"));
    // `port()` is `None` for the scheme's default port, as the Host header usually omits it.
    let authority = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    };
    Some((authority, scheme == "https" || local))
}

/// A `Host` header as a lower-cased `host[:port]` without `:80` or `:443` (its scheme is
/// unknown). Not parsed as a URL on purpose: `user@host` must stay unequal to `host`.
fn normalize_authority(authority: &str) -> String {
    let authority = authority.trim().to_ascii_lowercase();
    let (host, port) = match authority.rfind(':') {
        Some(i)
            if !authority[i + 1..].is_empty()
                && authority[i + 1..].bytes().all(|b| b.is_ascii_digit())
                && (authority.starts_with('[') == authority[..i].ends_with(']')) =>
        {
            (&authority[..i], Some(&authority[i + 1..]))
        }
        _ => (authority.as_str(), None),
    };
    let default = matches!(port, Some("80" | "443"));
    match port {
        Some(port) if !default => format!("{host}:{port}"),
        _ => host.to_string(),
    }
}

/// Whether the request carries the configured token (always true without one).
///
/// ```
/// let none = axum::http::HeaderMap::new();
/// assert!(abx_relay::token_ok(Some("s3cret"), &none, "token=s3cret"));
/// assert!(!abx_relay::token_ok(Some("s3cret"), &none, "token=guess"));
/// ```
pub fn token_ok(expected: Option<&str>, headers: &HeaderMap, query: &str) -> bool {
    let Some(expected) = expected else {
        return true;
    };
    let from_query = query_pairs(query)
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v);
    let from_bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(|v| v.trim().to_string());
    let from_header = headers
        .get("x-stream-token")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string());
    [from_query, from_bearer, from_header]
        .into_iter()
        .flatten()
        .any(|given| constant_time_eq(given.as_bytes(), expected.as_bytes()))
}

/// Compares without an early exit on the first differing byte.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// How long `/api/command` waits for the reply (commands carry their own deadlines).
const COMMAND_REPLY: Duration = Duration::from_secs(120);

/// Runs one `/api/command` body (a JSON object) through the host.
async fn run_command(hooks: &dyn ServerHooks, body: &[u8]) -> Result<Value, String> {
    let command: Value = serde_json::from_slice(body).map_err(|e| format!("Invalid JSON: {e}"))?;
    if !command.is_object() {
        return Err("Invalid JSON: expected an object".into());
    }
    tokio::time::timeout(COMMAND_REPLY, hooks.command(command))
        .await
        .map_err(|_| "The session did not answer in time".to_string())?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).expect("header"));
        }
        map
    }

    #[test]
    fn websocket_origins() {
        for ok in [
            None,
            Some(""),
            Some("file://"),
            Some("http://localhost:3000"),
            Some("https://127.0.0.1"),
            Some("http://[::1]:8080"),
            Some("HTTP://LOCALHOST"),
            Some("http://[0:0::1]:1"),
            Some("http://u:p@localhost:1"),
        ] {
            assert!(origin_allowed(ok), "{ok:?}");
        }
        for bad in [
            Some("null"),
            Some("https://evil.example"),
            Some("http://localhost.evil.example"),
            Some("http://127.0.0.1.evil.example:80"),
            Some("garbage"),
            Some("http://evil.example/localhost"),
            Some("http://localhost@evil.example"),
            Some("http://[::2]"),
        ] {
            assert!(!origin_allowed(bad), "{bad:?}");
        }
    }

    #[test]
    fn api_command_needs_a_matching_origin_or_referer() {
        assert!(same_origin(&headers(&[
            ("host", "127.0.0.1:4848"),
            ("origin", "http://127.0.0.1:4848")
        ])));
        assert!(same_origin(&headers(&[
            ("host", "localhost:4848"),
            ("referer", "http://localhost:4848/x?y")
        ])));
        assert!(same_origin(&headers(&[
            ("host", "dash.example"),
            ("origin", "https://dash.example")
        ])));
        assert!(same_origin(&headers(&[
            ("host", "dash.example:443"),
            ("origin", "https://dash.example")
        ])));
        // Plain http from a non-local host is not trusted even when it matches.
        assert!(!same_origin(&headers(&[
            ("host", "dash.example"),
            ("origin", "http://dash.example")
        ])));
        assert!(!same_origin(&headers(&[("host", "127.0.0.1:4848")])));
        assert!(same_origin(&headers(&[
            ("host", "[::1]:4848"),
            ("referer", "http://u:p@[::1]:4848/x")
        ])));
        assert!(same_origin(&headers(&[
            ("host", "app.localhost:80"),
            ("origin", "http://App.Localhost")
        ])));
        assert!(!same_origin(&headers(&[
            ("host", "evil@127.0.0.1:4848"),
            ("origin", "http://127.0.0.1:4848")
        ])));
        assert!(!same_origin(&headers(&[
            ("host", "127.0.0.1:4848"),
            ("origin", "http://127.0.0.1:9999")
        ])));
        assert!(!same_origin(&headers(&[
            ("host", "127.0.0.1:4848"),
            ("origin", "null")
        ])));
        assert!(!same_origin(&headers(&[(
            "origin",
            "http://127.0.0.1:4848"
        )])));
    }

    #[test]
    fn tokens() {
        let none = HeaderMap::new();
        assert!(token_ok(None, &none, ""));
        assert!(!token_ok(Some("s3"), &none, ""));
        assert!(!token_ok(Some("s3"), &none, "token=s4"));
        assert!(token_ok(Some("s3"), &none, "maxFps=5&token=s3"));
        assert!(token_ok(Some("a+b"), &none, "token=a%2Bb"));
        assert!(token_ok(
            Some("s3"),
            &headers(&[("authorization", "Bearer s3")]),
            ""
        ));
        assert!(token_ok(
            Some("s3"),
            &headers(&[("x-stream-token", "s3")]),
            ""
        ));
        assert!(!token_ok(
            Some("s3"),
            &headers(&[("authorization", "Basic s3")]),
            ""
        ));
    }
}
