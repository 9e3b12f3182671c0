//! A loopback CDP forwarder: clients connect to `ws://127.0.0.1:<port>/devtools/browser/<id>/<token>`
//! with a token the owner handed them, and each connection is relayed to one upstream browser
//! over its own upstream WebSocket, which carries the credentials (headers, query) the clients
//! never see.
//!
//! A client is either [`ClientScope::Full`] (the whole browser, as upstream) or
//! [`ClientScope::OwnTargets`]: it sees and reaches only the targets it created, the ones granted
//! to it ([`Forwarder::grant`]) and the popups they open. Browser-level target events and
//! `Target.getTargets` answers are filtered; a command naming another target's id gets Chrome's
//! own "no target" error; commands that would reach everything (`Target.setAutoAttach` on the
//! browser, `Target.attachToBrowserTarget`, `Target.exposeDevToolsProtocol`) or end the browser
//! (`Browser.close`, `Browser.crash`) are refused. Sessions need no filter: Chrome delivers a
//! session's messages only to the connection that attached it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), abx_cdp::Error> {
//! use abx_cdp::forward::{ClientScope, Forwarder, Upstream};
//! let forwarder = Forwarder::start(Upstream {
//!     url: "wss://browsers.example/devtools/browser/abc".into(),
//!     headers: vec![("Authorization".into(), "Bearer secret".into())],
//!     ..Upstream::default()
//! })
//! .await?;
//! forwarder.add_client("stage-token", ClientScope::OwnTargets);
//! let stage_url = forwarder.client_url("stage-token"); // no credential in it
//! # Ok(()) }
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::{SinkExt, StreamExt};
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::http::StatusCode;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_util::sync::CancellationToken;

use crate::connection::open_ws;
use crate::{ConnectOptions, Error};

/// The browser the forwarder relays to, with the credentials only it holds.
#[derive(Clone, Debug, Default)]
pub struct Upstream {
    /// `ws(s)://…` of the browser (a query token may be part of it).
    pub url: String,
    /// Headers for the upstream handshake (e.g. `Authorization`).
    pub headers: Vec<(String, String)>,
    /// Extra root certificates for a `wss://` upstream.
    pub extra_root_certs: Vec<Vec<u8>>,
    /// The id put in client URLs (`/devtools/browser/<id>/…`), which tab claims are keyed by.
    /// Empty: the upstream URL's own browser id, or a random one when it has none.
    pub browser_id: String,
}

/// What a client may reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientScope {
    /// The whole browser (the owner's own connections).
    Full,
    /// Only the targets it created or was granted, and the popups they open.
    OwnTargets,
}

/// One client token: its scope and the targets it owns (kept across its reconnections).
struct Client {
    scope: ClientScope,
    owned: HashSet<String>,
}

struct Shared {
    upstream: Upstream,
    clients: Mutex<HashMap<String, Client>>,
    stop: CancellationToken,
}

impl Shared {
    fn clients(&self) -> MutexGuard<'_, HashMap<String, Client>> {
        self.clients
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn owns(&self, token: &str, target: &str) -> bool {
        self.clients()
            .get(token)
            .is_some_and(|c| c.owned.contains(target))
    }

    fn own(&self, token: &str, target: &str) {
        if let Some(client) = self.clients().get_mut(token) {
            client.owned.insert(target.to_string());
        }
    }
}

/// A running forwarder; dropping it (or [`Forwarder::stop`]) ends every relayed connection.
pub struct Forwarder {
    shared: Arc<Shared>,
    port: u16,
    browser_id: String,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Forwarder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Forwarder")
            .field("port", &self.port)
            .field("browser_id", &self.browser_id)
            .finish_non_exhaustive()
    }
}

fn random_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    // Not a secret (it names the browser in claim files); unique per forwarder is enough.
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    format!("fwd{:016x}", hasher.finish())
}

impl Forwarder {
    /// Listens on a free loopback port. Nothing is connected upstream until a client comes.
    pub async fn start(upstream: Upstream) -> Result<Forwarder, Error> {
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| Error::Connect {
                url: "ws://127.0.0.1:0".into(),
                reason: format!("cannot listen: {e}"),
            })?;
        let port = listener.local_addr().map(|a| a.port()).unwrap_or_default();
        let browser_id = if !upstream.browser_id.is_empty() {
            upstream.browser_id.clone()
        } else {
            upstream
                .url
                .split_once("/devtools/browser/")
                .map(|(_, id)| id.split(['?', '#', '/']).next().unwrap_or("").to_string())
                .filter(|id| !id.is_empty())
                .unwrap_or_else(random_id)
        };
        let shared = Arc::new(Shared {
            upstream,
            clients: Mutex::new(HashMap::new()),
            stop: CancellationToken::new(),
        });
        let accepting = shared.clone();
        let prefix = format!("/devtools/browser/{browser_id}/");
        let task = tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    () = accepting.stop.cancelled() => return,
                    accepted = listener.accept() => accepted,
                };
                let Ok((stream, _)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                tokio::spawn(serve(stream, accepting.clone(), prefix.clone()));
            }
        });
        Ok(Forwarder {
            shared,
            port,
            browser_id,
            task,
        })
    }

    /// The loopback port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The browser id in client URLs.
    pub fn browser_id(&self) -> &str {
        &self.browser_id
    }

    /// `ws://127.0.0.1:<port>/devtools/browser/<id>`: client URLs without their token.
    pub fn base_url(&self) -> String {
        format!(
            "ws://127.0.0.1:{}/devtools/browser/{}",
            self.port, self.browser_id
        )
    }

    /// The URL a client with `token` connects to.
    pub fn client_url(&self, token: &str) -> String {
        format!("{}/{token}", self.base_url())
    }

    /// Lets `token` in with `scope` (its owned targets are kept when it is added again).
    pub fn add_client(&self, token: &str, scope: ClientScope) {
        self.shared
            .clients()
            .entry(token.to_string())
            .and_modify(|c| c.scope = scope)
            .or_insert_with(|| Client {
                scope,
                owned: HashSet::new(),
            });
    }

    /// Whether `token` may connect.
    pub fn has_client(&self, token: &str) -> bool {
        self.shared.clients().contains_key(token)
    }

    /// Refuses `token` from now on (its open connections stay until they close).
    pub fn remove_client(&self, token: &str) {
        self.shared.clients().remove(token);
    }

    /// Gives `token` a target that exists already (e.g. a tab the owner made for it).
    pub fn grant(&self, token: &str, target_id: &str) {
        self.shared.own(token, target_id);
    }

    /// Ends the listener and every relayed connection.
    pub fn stop(&self) {
        self.shared.stop.cancel();
    }
}

impl Drop for Forwarder {
    fn drop(&mut self) {
        self.shared.stop.cancel();
        self.task.abort();
    }
}

fn ws_config() -> WebSocketConfig {
    // Chrome's messages can be many MB: no size limits (as the client side).
    WebSocketConfig::default()
        .max_message_size(None)
        .max_frame_size(None)
}

/// One client connection: the token check at the handshake, then its own upstream connection.
async fn serve(stream: TcpStream, shared: Arc<Shared>, prefix: String) {
    let mut token = None;
    // The shape tungstenite's handshake callback requires.
    #[allow(clippy::result_large_err)]
    let check = |request: &Request, response: Response| -> Result<Response, ErrorResponse> {
        let path = request.uri().path();
        let candidate = path.strip_prefix(&prefix).unwrap_or("");
        if !candidate.is_empty() && shared.clients().contains_key(candidate) {
            token = Some(candidate.to_string());
            return Ok(response);
        }
        let mut refused = ErrorResponse::new(Some("unknown client".into()));
        *refused.status_mut() = StatusCode::FORBIDDEN;
        Err(refused)
    };
    let Ok(client) =
        tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(ws_config())).await
    else {
        return;
    };
    let Some(token) = token else { return };
    let options = ConnectOptions {
        headers: shared.upstream.headers.clone(),
        extra_root_certs: shared.upstream.extra_root_certs.clone(),
        ..ConnectOptions::default()
    };
    let upstream = match tokio::time::timeout(
        options.connect_timeout,
        open_ws(&shared.upstream.url, &options),
    )
    .await
    {
        Ok(Ok((upstream, _))) => upstream,
        Ok(Err(err)) => {
            tracing::warn!(error = %redacted(&err.to_string()), "forwarder: upstream refused");
            return;
        }
        Err(_) => {
            tracing::warn!("forwarder: upstream did not answer");
            return;
        }
    };
    let scope = shared
        .clients()
        .get(&token)
        .map_or(ClientScope::OwnTargets, |c| c.scope);
    let mut filter = (scope == ClientScope::OwnTargets).then(|| TargetFilter {
        shared: shared.clone(),
        token: token.clone(),
        pending: HashMap::new(),
        held: VecDeque::new(),
    });
    let (mut client_sink, mut client_source) = client.split();
    let (mut upstream_sink, mut upstream_source) = upstream.split();
    loop {
        tokio::select! {
            () = shared.stop.cancelled() => break,
            message = client_source.next() => {
                let Some(Ok(message)) = message else { break };
                let outcome = match (&mut filter, message) {
                    (Some(filter), Message::Text(text)) => filter.outgoing(text.as_str()),
                    (_, Message::Close(_)) => break,
                    (_, other) => Outgoing::Forward(other),
                };
                let sent = match outcome {
                    Outgoing::Forward(message) => upstream_sink.send(message).await,
                    Outgoing::Text(text) => upstream_sink.send(Message::text(text)).await,
                    Outgoing::Refuse(reply) => client_sink.send(Message::text(reply)).await,
                };
                if sent.is_err() {
                    break;
                }
            }
            message = upstream_source.next() => {
                let Some(Ok(message)) = message else { break };
                let out = match (&mut filter, message) {
                    (Some(filter), Message::Text(text)) => filter.incoming(text.as_str(), Message::Text(text.clone())),
                    (_, Message::Close(_)) => break,
                    (_, other) => vec![other],
                };
                let mut failed = false;
                for message in out {
                    if client_sink.send(message).await.is_err() {
                        failed = true;
                        break;
                    }
                }
                if failed {
                    break;
                }
            }
        }
    }
    let _ = client_sink.close().await;
    let _ = upstream_sink.close().await;
}

/// Strips queries (tokens) from an error text.
fn redacted(text: &str) -> String {
    text.split_whitespace()
        .map(|word| word.split('?').next().unwrap_or(word))
        .collect::<Vec<_>>()
        .join(" ")
}

enum Outgoing {
    Forward(Message),
    Text(String),
    Refuse(String),
}

/// What a pending browser-level command's answer means to the filter.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    GetTargets,
    CreateTarget,
}

#[derive(Deserialize)]
struct Command<'a> {
    id: Option<u64>,
    #[serde(borrow)]
    method: Option<&'a str>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a str>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Incoming<'a> {
    id: Option<u64>,
    #[serde(borrow, default)]
    method: Option<&'a str>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: Option<&'a str>,
}

#[derive(Deserialize, Default)]
struct TargetParams {
    #[serde(rename = "targetId", default)]
    target_id: Option<String>,
    #[serde(rename = "targetInfo", default)]
    target_info: Option<TargetInfo>,
}

#[derive(Deserialize, Default)]
struct TargetInfo {
    #[serde(rename = "targetId", default)]
    target_id: String,
    #[serde(rename = "openerId", default)]
    opener_id: Option<String>,
    #[serde(rename = "type", default)]
    kind: String,
}

/// Per connection: the answers it waits for, and target events held until a `createTarget`
/// answer says whose target they are (Chrome announces a new target before it answers).
struct TargetFilter {
    shared: Arc<Shared>,
    token: String,
    pending: HashMap<u64, Pending>,
    held: VecDeque<(String, Message)>,
}

/// Methods a scoped client never runs: they reach every target or end the browser.
const REFUSED: &[&str] = &[
    "Browser.close",
    "Browser.crash",
    "Browser.crashGpuProcess",
    "Target.attachToBrowserTarget",
    "Target.exposeDevToolsProtocol",
];

fn error_reply(id: u64, session: Option<&str>, message: &str) -> String {
    let mut reply = serde_json::json!({
        "id": id,
        "error": {"code": -32000, "message": message},
    });
    if let Some(session) = session {
        reply["sessionId"] = serde_json::Value::String(session.to_string());
    }
    reply.to_string()
}

impl TargetFilter {
    fn outgoing(&mut self, text: &str) -> Outgoing {
        let Ok(command) = serde_json::from_str::<Command<'_>>(text) else {
            return Outgoing::Text(text.to_string());
        };
        let (Some(id), Some(method)) = (command.id, command.method) else {
            return Outgoing::Text(text.to_string());
        };
        let refuse = |message: &str| Outgoing::Refuse(error_reply(id, command.session_id, message));
        if REFUSED.contains(&method)
            || (method == "Target.setAutoAttach" && command.session_id.is_none())
        {
            return refuse(&format!("{method} is not allowed on this endpoint"));
        }
        if let Some(params) = command.params
            && params.get().contains("\"targetId\"")
            && let Ok(parsed) = serde_json::from_str::<TargetParams>(params.get())
            && let Some(target) = parsed.target_id
            && !self.shared.owns(&self.token, &target)
        {
            // Chrome's own words for an id it does not know: another stage's tab does not exist here.
            return refuse("No target with given id found");
        }
        if command.session_id.is_none() {
            match method {
                "Target.getTargets" => {
                    self.pending.insert(id, Pending::GetTargets);
                }
                "Target.createTarget" => {
                    self.pending.insert(id, Pending::CreateTarget);
                }
                _ => {}
            }
        }
        Outgoing::Text(text.to_string())
    }

    /// Whether a browser-level target event may pass now: `Some(true)` yes, `Some(false)`
    /// never, `None` not yet known (held while a `createTarget` is answered).
    fn decide(&mut self, method: &str, params: &TargetParams) -> Option<bool> {
        let info = params.target_info.as_ref();
        let target = info
            .map(|i| i.target_id.as_str())
            .or(params.target_id.as_deref())
            .unwrap_or("");
        if target.is_empty() || self.shared.owns(&self.token, target) {
            return Some(true);
        }
        if let Some(info) = info {
            if info.kind == "browser" {
                return Some(true);
            }
            if let Some(opener) = &info.opener_id
                && self.shared.owns(&self.token, opener)
            {
                self.shared.own(&self.token, target);
                return Some(true);
            }
        }
        let creating = self.pending.values().any(|p| *p == Pending::CreateTarget);
        if creating && matches!(method, "Target.targetCreated" | "Target.targetInfoChanged") {
            return None;
        }
        Some(false)
    }

    fn incoming(&mut self, text: &str, original: Message) -> Vec<Message> {
        let Ok(incoming) = serde_json::from_str::<Incoming<'_>>(text) else {
            return vec![original];
        };
        if let Some(id) = incoming.id {
            if incoming.session_id.is_some() {
                return vec![original];
            }
            let Some(pending) = self.pending.remove(&id) else {
                return vec![original];
            };
            return match pending {
                Pending::GetTargets => vec![self.filtered_targets(text).unwrap_or(original)],
                Pending::CreateTarget => {
                    if let Ok(reply) = serde_json::from_str::<serde_json::Value>(text)
                        && let Some(target) = reply["result"]["targetId"].as_str()
                    {
                        self.shared.own(&self.token, target);
                    }
                    let mut out = self.release_held();
                    out.push(original);
                    out
                }
            };
        }
        let Some(method) = incoming.method else {
            return vec![original];
        };
        if incoming.session_id.is_some()
            || !matches!(
                method,
                "Target.targetCreated"
                    | "Target.targetInfoChanged"
                    | "Target.targetDestroyed"
                    | "Target.targetCrashed"
            )
        {
            return vec![original];
        }
        let params = serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| serde_json::from_value::<TargetParams>(v["params"].clone()).ok())
            .unwrap_or_default();
        match self.decide(method, &params) {
            Some(true) => vec![original],
            Some(false) => Vec::new(),
            None => {
                self.held.push_back((method.to_string(), original));
                Vec::new()
            }
        }
    }

    /// Held events, decided again now that a `createTarget` was answered.
    fn release_held(&mut self) -> Vec<Message> {
        let held: Vec<_> = self.held.drain(..).collect();
        let mut out = Vec::new();
        for (method, message) in held {
            let params = message
                .to_text()
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
                .and_then(|v| serde_json::from_value::<TargetParams>(v["params"].clone()).ok())
                .unwrap_or_default();
            match self.decide(&method, &params) {
                Some(true) => out.push(message),
                Some(false) => {}
                None => self.held.push_back((method, message)),
            }
        }
        out
    }

    fn filtered_targets(&self, text: &str) -> Option<Message> {
        let mut reply: serde_json::Value = serde_json::from_str(text).ok()?;
        let infos = reply["result"]["targetInfos"].as_array_mut()?;
        infos.retain(|info| {
            info["type"] == "browser"
                || info["targetId"]
                    .as_str()
                    .is_some_and(|t| self.shared.owns(&self.token, t))
        });
        Some(Message::text(reply.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter() -> TargetFilter {
        let shared = Arc::new(Shared {
            upstream: Upstream::default(),
            clients: Mutex::new(HashMap::new()),
            stop: CancellationToken::new(),
        });
        shared.clients().insert(
            "stage".into(),
            Client {
                scope: ClientScope::OwnTargets,
                owned: HashSet::new(),
            },
        );
        TargetFilter {
            shared,
            token: "stage".into(),
            pending: HashMap::new(),
            held: VecDeque::new(),
        }
    }

    fn text(messages: &[Message]) -> Vec<String> {
        messages
            .iter()
            .map(|m| m.to_text().unwrap_or_default().to_string())
            .collect()
    }

    fn created(target: &str, opener: Option<&str>) -> String {
        let mut info =
            serde_json::json!({"targetId": target, "type": "page", "url": "about:blank"});
        if let Some(opener) = opener {
            info["openerId"] = opener.into();
        }
        serde_json::json!({"method": "Target.targetCreated", "params": {"targetInfo": info}})
            .to_string()
    }

    fn upstream(filter: &mut TargetFilter, text: &str) -> Vec<Message> {
        filter.incoming(text, Message::text(text.to_string()))
    }

    #[test]
    fn a_created_target_is_announced_once_its_creator_is_known() {
        let mut filter = filter();
        assert!(matches!(
            filter.outgoing(
                r#"{"id":1,"method":"Target.createTarget","params":{"url":"about:blank"}}"#
            ),
            Outgoing::Text(_)
        ));
        // Chrome announces the target before it answers: held, then released in order.
        assert!(upstream(&mut filter, &created("MINE", None)).is_empty());
        let answer = r#"{"id":1,"result":{"targetId":"MINE"}}"#;
        let out = text(&upstream(&mut filter, answer));
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(out[0].contains("targetCreated"));
        assert_eq!(out[1], answer);
        // Another client's target never shows; a popup of ours does.
        assert!(upstream(&mut filter, &created("THEIRS", None)).is_empty());
        assert_eq!(
            upstream(&mut filter, &created("POPUP", Some("MINE"))).len(),
            1
        );
        assert!(filter.shared.owns("stage", "POPUP"));
    }

    #[test]
    fn the_target_list_shows_only_own_targets() {
        let mut filter = filter();
        filter.shared.own("stage", "MINE");
        filter.outgoing(r#"{"id":7,"method":"Target.getTargets"}"#);
        let listed = serde_json::json!({"id": 7, "result": {"targetInfos": [
            {"targetId": "MINE", "type": "page"},
            {"targetId": "THEIRS", "type": "page"},
            {"targetId": "B", "type": "browser"},
        ]}});
        let out = text(&upstream(&mut filter, &listed.to_string()));
        assert!(
            out[0].contains("MINE") && out[0].contains("\"B\""),
            "{out:?}"
        );
        assert!(!out[0].contains("THEIRS"), "{out:?}");
    }

    #[test]
    fn commands_on_other_targets_or_the_whole_browser_are_refused() {
        let mut filter = filter();
        filter.shared.own("stage", "MINE");
        for command in [
            r#"{"id":2,"method":"Target.attachToTarget","params":{"targetId":"THEIRS","flatten":true}}"#,
            r#"{"id":3,"method":"Target.closeTarget","params":{"targetId":"THEIRS"}}"#,
            r#"{"id":4,"method":"Target.setAutoAttach","params":{"autoAttach":true,"waitForDebuggerOnStart":false,"flatten":true}}"#,
            r#"{"id":5,"method":"Browser.close"}"#,
            r#"{"id":6,"method":"Target.attachToBrowserTarget"}"#,
        ] {
            let Outgoing::Refuse(reply) = filter.outgoing(command) else {
                panic!("passed: {command}");
            };
            assert!(reply.contains("\"error\""), "{reply}");
        }
        for command in [
            r#"{"id":8,"method":"Target.attachToTarget","params":{"targetId":"MINE","flatten":true}}"#,
            r#"{"id":9,"sessionId":"S","method":"Target.setAutoAttach","params":{"autoAttach":true,"waitForDebuggerOnStart":false,"flatten":true}}"#,
            r#"{"id":10,"method":"Browser.getVersion"}"#,
        ] {
            assert!(
                matches!(filter.outgoing(command), Outgoing::Text(_)),
                "{command}"
            );
        }
    }
}
