//! The dashboard: a web page for people, served on 127.0.0.1, that shows every session's live
//! view at once and passes a person's input to it.
//!
//! The page (plain HTML, CSS and JavaScript compiled into the binary, no build step) lists the
//! sessions [`DashboardHooks::sessions`] names and opens one viewer per session through this
//! server: `GET /api/sessions/<name>/stream` is a WebSocket the server relays to that session's
//! own stream server, so the browser only ever talks to the dashboard's origin, and a session's
//! stream token never reaches the page. The server knows nothing of socket directories or
//! daemons: its host (the CLI) says which sessions exist and where their streams listen.
//!
//! It listens on 127.0.0.1 and, where the machine has IPv6, on [::1] at the same port.
//!
//! Access rules: the `Host` header must name a loopback host (a page on another site that
//! rebinds its DNS name to 127.0.0.1 is refused) or the host of an allowed origin (a reverse
//! proxy in front of the dashboard); API calls and the WebSocket must come from the dashboard's
//! own loopback origin (or from a client that sends no `Origin`, i.e. not a browser page), or
//! from an allowed origin with the access token; when a token is configured every API call and
//! WebSocket must carry it (`?token=`, `Authorization: Bearer` or `X-Stream-Token`). The page
//! itself is served without a token so it can ask for one.
//!
//! Control: the first viewer of a session controls it (input, dialog answers, reopen tab); later
//! viewers, and any viewer that asks with `?mode=watch`, watch only. A watcher's input is refused
//! here, before it reaches the session, and the page marks the view as watch-only.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite;
use tokio_util::sync::CancellationToken;

use crate::error::RelayError;
use crate::http::{Served, error_response, json_response};
use crate::protocol::query_pairs;
use crate::server::{same_origin, token_ok};

const INDEX_HTML: &str = include_str!("dashboard/index.html");
const DASHBOARD_JS: &str = include_str!("dashboard/dashboard.js");
const DASHBOARD_CSS: &str = include_str!("dashboard/dashboard.css");

/// Upstream's dashboard port.
pub const DEFAULT_DASHBOARD_PORT: u16 = 4848;

/// How the dashboard listens.
///
/// ```
/// let options = abx_relay::DashboardOptions {
///     port: 0,
///     token: Some("s3cret".into()),
///     ..Default::default()
/// };
/// assert_eq!(abx_relay::DashboardOptions::default().port, 4848);
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
pub struct DashboardOptions {
    /// Port on 127.0.0.1 and [::1] (0: the OS picks).
    pub port: u16,
    /// Token every API call and viewer must carry; `None`: loopback access needs none.
    pub token: Option<String>,
    /// Browser origins of reverse proxies in front of the dashboard (`https://host[:port]`,
    /// normalized); their requests must carry `access_token`.
    pub allowed_origins: Vec<String>,
    /// The token a page on an allowed origin must carry.
    pub access_token: Option<String>,
}

impl Default for DashboardOptions {
    fn default() -> Self {
        Self {
            port: DEFAULT_DASHBOARD_PORT,
            token: None,
            allowed_origins: Vec::new(),
            access_token: None,
        }
    }
}

/// One session the dashboard can show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DashboardSession {
    /// The session name.
    pub name: String,
    /// Its stream server's port on 127.0.0.1.
    pub port: u16,
    /// The token its stream server wants, if any (never sent to the page).
    pub token: Option<String>,
}

/// What the dashboard asks of its host: which sessions exist right now.
///
/// ```
/// struct Fixed;
/// impl abx_relay::DashboardHooks for Fixed {
///     fn sessions(&self) -> Vec<abx_relay::DashboardSession> {
///         vec![abx_relay::DashboardSession { name: "default".into(), port: 9223, token: None }]
///     }
/// }
/// ```
pub trait DashboardHooks: Send + Sync + 'static {
    /// The sessions to list, in display order.
    fn sessions(&self) -> Vec<DashboardSession>;
}

struct App {
    options: DashboardOptions,
    hooks: Arc<dyn DashboardHooks>,
    stop: CancellationToken,
    /// Per session: how many viewers control it right now (at most one).
    controllers: Mutex<HashMap<String, usize>>,
}

/// A running dashboard server.
///
/// ```no_run
/// # async fn demo(hooks: std::sync::Arc<dyn abx_relay::DashboardHooks>) -> Result<(), abx_relay::RelayError> {
/// let server = abx_relay::DashboardServer::start(abx_relay::DashboardOptions::default(), hooks)?;
/// println!("Dashboard at http://localhost:{}", server.port());
/// server.shutdown().await;
/// # Ok(()) }
/// ```
pub struct DashboardServer {
    served: Served,
}

impl std::fmt::Debug for DashboardServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DashboardServer")
            .field("port", &self.served.port())
            .finish_non_exhaustive()
    }
}

impl DashboardServer {
    /// Binds 127.0.0.1 (and [::1] at the same port where the machine has IPv6) and serves the
    /// dashboard; must run inside a tokio runtime.
    pub fn start(
        options: DashboardOptions,
        hooks: Arc<dyn DashboardHooks>,
    ) -> Result<DashboardServer, RelayError> {
        let bind_err = |source| RelayError::Bind {
            port: options.port,
            source,
        };
        let v4 = std::net::TcpListener::bind(("127.0.0.1", options.port)).map_err(bind_err)?;
        let port = v4.local_addr().map_err(bind_err)?.port();
        // A kernel without IPv6 (or a port taken on ::1 only) leaves the dashboard on IPv4.
        let v6 = std::net::TcpListener::bind((std::net::Ipv6Addr::LOCALHOST, port)).ok();
        let mut listeners = Vec::new();
        for listener in std::iter::once(v4).chain(v6) {
            listener.set_nonblocking(true).map_err(bind_err)?;
            listeners.push(tokio::net::TcpListener::from_std(listener).map_err(bind_err)?);
        }
        let stop = CancellationToken::new();
        let app = Arc::new(App {
            options,
            hooks,
            stop: stop.clone(),
            controllers: Mutex::new(HashMap::new()),
        });
        let router = Router::new().fallback(handle).with_state(app);
        Ok(DashboardServer {
            served: Served::start(listeners, port, router, stop, "dashboard server"),
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.served.port()
    }

    /// Resolves when the server stopped (after [`DashboardServer::shutdown`] or a fatal error).
    pub async fn stopped(&self) {
        self.served.stopped().await;
    }

    /// Stops and waits (bounded) for the server and its viewers to end.
    pub async fn shutdown(self) {
        self.served.shutdown().await;
    }
}

/// The `Host` header names a loopback host (any port): no DNS-rebound page gets in.
fn loopback_host(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let host = host.trim().to_ascii_lowercase();
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    matches!(name, "127.0.0.1" | "localhost" | "::1")
}

/// The `Host` header is the authority of an allowed (reverse-proxy) origin.
fn proxied_host(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let host = host.trim().to_ascii_lowercase();
    let host = host.strip_suffix(":443").unwrap_or(&host);
    allowed
        .iter()
        .any(|origin| origin.strip_prefix("https://") == Some(host))
}

/// The request's `Origin` (else `Referer`'s origin) is one of the allowed origins.
fn allowed_origin(headers: &HeaderMap, allowed: &[String]) -> bool {
    let origin = headers
        .get(header::ORIGIN)
        .or_else(|| headers.get(header::REFERER))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| normalize_origin(v.split(['?', '#']).next().unwrap_or(v), true).ok());
    origin.is_some_and(|origin| allowed.contains(&origin))
}

/// A browser page calling us is our own page (no `Origin` at all is a non-browser client).
fn own_origin(headers: &HeaderMap) -> bool {
    headers.get(header::ORIGIN).is_none() || same_origin(headers)
}

/// Why an origin cannot be a dashboard's allowed origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not an exact non-loopback https origin")]
pub struct InvalidOrigin;

/// Normalizes an allowed origin: `https://host[:port]`, lowercase, no default port, no path
/// (a trailing `/` or, with `lenient_path`, any path is dropped), no query, fragment or
/// credentials, not a loopback host (those are allowed anyway).
///
/// ```
/// use abx_relay::normalize_origin;
/// assert_eq!(normalize_origin("HTTPS://Dash.Example.com:443/", false).unwrap(), "https://dash.example.com");
/// assert!(normalize_origin("http://dash.example.com", false).is_err());
/// assert!(normalize_origin("https://localhost:3000", false).is_err());
/// ```
pub fn normalize_origin(text: &str, lenient_path: bool) -> Result<String, InvalidOrigin> {
    let url = url::Url::parse(text.trim()).map_err(|_| InvalidOrigin)?;
    let exact = url.path() == "/" && url.query().is_none() && url.fragment().is_none();
    if url.scheme() != "https"
        || !url.username().is_empty()
        || url.password().is_some()
        || (!lenient_path && !exact)
    {
        return Err(InvalidOrigin);
    }
    let loopback = match url.host().ok_or(InvalidOrigin)? {
        url::Host::Domain(name) => name == "localhost" || name.ends_with(".localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    };
    if loopback {
        return Err(InvalidOrigin);
    }
    // `https://host[:port]`, lower-cased, the default port dropped, IDN hosts in punycode (as
    // browsers send them in `Origin`).
    Ok(url.origin().ascii_serialization())
}

fn text_response(status: StatusCode, content_type: &'static str, body: &'static str) -> Response {
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    response
}

async fn handle(
    State(app): State<Arc<App>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let proxied = !loopback_host(&headers);
    if proxied && !proxied_host(&headers, &app.options.allowed_origins) {
        return error_response(
            StatusCode::FORBIDDEN,
            "The dashboard answers only to localhost, 127.0.0.1, [::1] or its allowed origins",
        );
    }
    let path = uri.path();
    let query = uri.query().unwrap_or("");
    if method == Method::GET {
        match path {
            "/" | "/index.html" => {
                return text_response(StatusCode::OK, "text/html; charset=utf-8", INDEX_HTML);
            }
            "/dashboard.js" => {
                return text_response(
                    StatusCode::OK,
                    "text/javascript; charset=utf-8",
                    DASHBOARD_JS,
                );
            }
            "/dashboard.css" => {
                return text_response(StatusCode::OK, "text/css; charset=utf-8", DASHBOARD_CSS);
            }
            "/favicon.ico" => return StatusCode::NO_CONTENT.into_response(),
            _ => {}
        }
    }
    if !path.starts_with("/api/") {
        return error_response(StatusCode::NOT_FOUND, "Not found");
    }
    // A page of an allowed (reverse-proxy) origin, or any request through the proxy, must
    // carry the access token its private URL gave it.
    let from_allowed = allowed_origin(&headers, &app.options.allowed_origins);
    if proxied || from_allowed {
        let carries = app.options.access_token.is_some()
            && token_ok(app.options.access_token.as_deref(), &headers, query);
        if !from_allowed || !carries {
            return error_response(
                StatusCode::FORBIDDEN,
                "The request's Origin or dashboard access token is not accepted",
            );
        }
    } else if !own_origin(&headers) {
        return error_response(
            StatusCode::FORBIDDEN,
            "Origin does not match the dashboard's own origin",
        );
    } else if !token_ok(app.options.token.as_deref(), &headers, query) {
        return error_response(
            StatusCode::UNAUTHORIZED,
            "Unauthorized: this dashboard needs its token (open it with ?token=…)",
        );
    }
    if method == Method::GET && path == "/api/sessions" {
        let sessions: Vec<Value> = app
            .hooks
            .sessions()
            .into_iter()
            .map(|s| json!({"session": s.name, "port": s.port}))
            .collect();
        return json_response(StatusCode::OK, Value::Array(sessions).to_string());
    }
    if let Some(name) = path
        .strip_prefix("/api/sessions/")
        .and_then(|rest| rest.strip_suffix("/stream"))
    {
        let Ok(upgrade) = upgrade else {
            return error_response(StatusCode::BAD_REQUEST, "Expected a WebSocket upgrade");
        };
        let name = percent_decode(name);
        let Some(session) = app.hooks.sessions().into_iter().find(|s| s.name == name) else {
            return error_response(
                StatusCode::NOT_FOUND,
                &format!("No live session named {name}"),
            );
        };
        let pairs = query_pairs(query);
        let want_watch = pairs.iter().any(|(k, v)| k == "mode" && v == "watch");
        let max_fps = pairs
            .iter()
            .find(|(k, _)| k == "maxFps")
            .and_then(|(_, v)| v.parse::<u32>().ok());
        return upgrade
            .max_message_size(1 << 20)
            .on_upgrade(move |socket| viewer(app, socket, session, want_watch, max_fps));
    }
    error_response(StatusCode::NOT_FOUND, "Not found")
}

/// A path segment with its `%XX` escapes decoded (`+` is a plus in a path, not a space).
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// Holds a session's control slot while a controlling viewer is connected.
struct ControlSlot {
    app: Arc<App>,
    session: String,
}

impl Drop for ControlSlot {
    fn drop(&mut self) {
        if let Ok(mut controllers) = self.app.controllers.lock()
            && let Some(n) = controllers.get_mut(&self.session)
        {
            *n = n.saturating_sub(1);
            if *n == 0 {
                controllers.remove(&self.session);
            }
        }
    }
}

fn take_control(app: &Arc<App>, session: &str) -> Option<ControlSlot> {
    let mut controllers = app.controllers.lock().ok()?;
    let n = controllers.entry(session.to_string()).or_insert(0);
    if *n > 0 {
        return None;
    }
    *n += 1;
    Some(ControlSlot {
        app: app.clone(),
        session: session.to_string(),
    })
}

/// Viewer messages only a controlling viewer may send.
fn is_control_message(text: &str) -> bool {
    let kind = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_string));
    !matches!(kind.as_deref(), Some("config" | "ack"))
}

/// Relays one page viewer to the session's own stream.
async fn viewer(
    app: Arc<App>,
    socket: WebSocket,
    session: DashboardSession,
    want_watch: bool,
    max_fps: Option<u32>,
) {
    let slot = if want_watch {
        None
    } else {
        take_control(&app, &session.name)
    };
    let mode = if slot.is_some() { "control" } else { "watch" };
    let (mut page_tx, mut page_rx) = socket.split();
    let hello = json!({"type": "viewer", "session": session.name, "mode": mode});
    if page_tx
        .send(Message::Text(Utf8Bytes::from(hello.to_string())))
        .await
        .is_err()
    {
        return;
    }
    let mut url = format!("ws://127.0.0.1:{}/", session.port);
    let mut params = Vec::new();
    if let Some(fps) = max_fps {
        params.push(format!("maxFps={fps}"));
    }
    if let Some(token) = &session.token {
        params.push(format!("token={}", encode_component(token)));
    }
    if !params.is_empty() {
        url.push('?');
        url.push_str(&params.join("&"));
    }
    let upstream = match tokio::time::timeout(
        Duration::from_secs(5),
        tokio_tungstenite::connect_async(url),
    )
    .await
    {
        Ok(Ok((ws, _))) => ws,
        _ => {
            let message = json!({"type": "error", "message": format!("Cannot reach the live view of session {}", session.name)});
            let _ = page_tx
                .send(Message::Text(Utf8Bytes::from(message.to_string())))
                .await;
            return;
        }
    };
    let (mut up_tx, mut up_rx) = upstream.split();
    let (reply_tx, mut reply_rx) = tokio::sync::mpsc::channel::<String>(16);
    let controlling = slot.is_some();
    // Page → session, in order; a watcher's input stops here.
    let to_session = async move {
        while let Some(Ok(message)) = page_rx.next().await {
            let text = match message {
                Message::Text(text) => text,
                Message::Close(_) => break,
                _ => continue,
            };
            if !controlling && is_control_message(text.as_str()) {
                let _ = reply_tx.try_send(
                    json!({"type": "error", "message": "This view is watch-only: another viewer controls the session"})
                        .to_string(),
                );
                continue;
            }
            if up_tx
                .send(tungstenite::Message::text(text.as_str()))
                .await
                .is_err()
            {
                break;
            }
        }
        let _ = up_tx.close().await;
    };
    // Session → page: frames pass through as the same bytes (no JPEG is decoded).
    let to_page = async move {
        loop {
            tokio::select! {
                message = up_rx.next() => {
                    let Some(Ok(message)) = message else { break };
                    let text = match message {
                        tungstenite::Message::Text(text) => text,
                        tungstenite::Message::Close(_) => break,
                        _ => continue,
                    };
                    let Ok(text) = Utf8Bytes::try_from(bytes::Bytes::from(text)) else { continue };
                    let sent = tokio::time::timeout(Duration::from_secs(5), page_tx.send(Message::Text(text))).await;
                    if !matches!(sent, Ok(Ok(()))) {
                        break;
                    }
                }
                reply = reply_rx.recv() => {
                    let Some(reply) = reply else { continue };
                    if page_tx.send(Message::Text(Utf8Bytes::from(reply))).await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = page_tx.close().await;
    };
    tokio::select! {
        _ = app.stop.cancelled() => {}
        _ = to_session => {}
        _ = to_page => {}
    }
    drop(slot);
}

fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
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
    fn allowed_origins_are_exact_non_loopback_https_origins() {
        let strict = |t: &str| normalize_origin(t, false).ok();
        assert_eq!(
            strict(" HTTPS://Dash.Example.com:443/ ").as_deref(),
            Some("https://dash.example.com")
        );
        assert_eq!(
            strict("https://[2001:DB8::1]:8443").as_deref(),
            Some("https://[2001:db8::1]:8443")
        );
        assert_eq!(
            strict("https://bücher.example").as_deref(),
            Some("https://xn--bcher-kva.example")
        );
        for bad in [
            "https://u@dash.example",
            "https://dash.example/app",
            "https://dash.example/?x",
            "https://dash.example#f",
            "https://dash.example:99999",
            "https://127.0.0.2",
            "https://[::1]",
            "https://app.localhost",
            "http://dash.example",
            "dash.example",
            "https://",
        ] {
            assert_eq!(strict(bad), None, "{bad}");
        }
        assert_eq!(
            normalize_origin("https://dash.example/app/x", true)
                .ok()
                .as_deref(),
            Some("https://dash.example"),
            "a referer's path is dropped"
        );
    }

    #[test]
    fn only_loopback_host_names_are_served() {
        for ok in [
            "127.0.0.1:4848",
            "localhost:4848",
            "[::1]:4848",
            "LOCALHOST",
        ] {
            assert!(loopback_host(&headers(&[("host", ok)])), "{ok}");
        }
        for bad in [
            "evil.example:4848",
            "127.0.0.1.evil.example",
            "localhost.evil.example",
        ] {
            assert!(!loopback_host(&headers(&[("host", bad)])), "{bad}");
        }
        assert!(!loopback_host(&HeaderMap::new()));
    }

    #[test]
    fn a_foreign_page_is_refused() {
        assert!(own_origin(&headers(&[("host", "127.0.0.1:4848")])));
        assert!(own_origin(&headers(&[
            ("host", "127.0.0.1:4848"),
            ("origin", "http://127.0.0.1:4848")
        ])));
        assert!(!own_origin(&headers(&[
            ("host", "127.0.0.1:4848"),
            ("origin", "http://localhost:3000")
        ])));
        assert!(!own_origin(&headers(&[
            ("host", "127.0.0.1:4848"),
            ("origin", "null")
        ])));
    }

    #[test]
    fn watchers_may_only_pace_themselves() {
        assert!(!is_control_message(r#"{"type":"config","maxFps":5}"#));
        assert!(!is_control_message(r#"{"type":"ack","seq":3}"#));
        assert!(is_control_message(r#"{"type":"input_mouse","x":1,"y":1}"#));
        assert!(is_control_message(
            r#"{"type":"dialog_answer","accept":true}"#
        ));
        assert!(is_control_message(r#"{"type":"reopen_tab"}"#));
        assert!(is_control_message("not json"));
    }

    #[test]
    fn session_tokens_are_url_encoded() {
        assert_eq!(encode_component("a+b/c d"), "a%2Bb%2Fc%20d");
    }
}
