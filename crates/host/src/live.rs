//! Live-view sessions: who may watch or control a stage's browser, and one relay per
//! (run, stage) shared by its viewers.
//!
//! A person gets a one-use **ticket** (60 s) for a stage and a mode; redeeming it gives a
//! **credential** (24 h) bound to the same scope, run, stage and mode. Both are random 256-bit
//! tokens, stored only as SHA-256 digests, revocable per stage (optionally only control), per
//! run, or all; a revocation also ends the viewers attached with them.
//!
//! The relay is one WebSocket to the stage session's stream server (its port in the socket
//! dir's `<session>.stream`, its token in the stage env), opened on the first viewer and closed
//! a few seconds after the last one leaves, and always before the stage's browser teardown
//! (seed invariant 31). Frames go to viewers latest-wins (a slow viewer skips frames, never
//! slows the others); other messages are broadcast, and the last `status`, `tabs` and open
//! `dialog` are replayed to a viewer that joins late. Only a **control** viewer sends input,
//! dialog answers and tab reopen, and by default one control viewer per stage at a time (the
//! seed's "single controller"); watchers are read-only. Viewer messages are checked with
//! [`abx_relay::parse_client_message`] and never logged.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use crate::names::{RunId, Scope, StageId, random_token};

/// Watch (read-only) or control (input, dialogs, reopen tab).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViewMode {
    /// Frames and events only.
    Watch,
    /// Frames, events, and input back to the page.
    Control,
}

/// What a ticket or credential allows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grant {
    /// The owner scope of the run.
    pub scope: Scope,
    /// The run.
    pub run: RunId,
    /// The stage.
    pub stage: StageId,
    /// Watch or control.
    pub mode: ViewMode,
}

/// Why live-view access was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LiveViewError {
    /// Unknown, already used, expired or revoked.
    #[error("the live view ticket or credential is not valid (unknown, used, expired or revoked)")]
    Denied,
    /// The grant is for another scope than the caller's.
    #[error("the live view credential belongs to another owner")]
    WrongScope,
    /// Another person controls this stage.
    #[error("someone else controls this stage's browser; watch, or wait until they leave")]
    ControllerBusy,
    /// A watcher tried to send input.
    #[error("this live view is read-only (watch mode)")]
    ReadOnly,
    /// The viewer message is malformed.
    #[error("invalid live view message: {0}")]
    BadMessage(String),
    /// The stage has no running browser to show.
    #[error("stage {stage} of run {run} has no browser to show: {reason}")]
    NoBrowser {
        /// The run.
        run: String,
        /// The stage.
        stage: String,
        /// Why.
        reason: String,
    },
    /// The relay to the stage ended.
    #[error("the live view of this stage has ended")]
    Closed,
}

struct Entry {
    grant: Grant,
    expires: Instant,
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Tickets and credentials.
pub struct LiveViewTickets {
    ticket_ttl: Duration,
    credential_ttl: Duration,
    tickets: Mutex<HashMap<[u8; 32], Entry>>,
    credentials: Mutex<HashMap<[u8; 32], Entry>>,
}

impl fmt::Debug for LiveViewTickets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveViewTickets").finish_non_exhaustive()
    }
}

/// A redeemed ticket.
#[derive(Clone)]
pub struct Credential {
    /// The secret to present on every viewer connection.
    pub token: String,
    /// What it allows.
    pub grant: Grant,
    /// When it stops working.
    pub expires: Instant,
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credential")
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}

impl Default for LiveViewTickets {
    fn default() -> Self {
        Self::new(Duration::from_secs(60), Duration::from_secs(24 * 3600))
    }
}

impl LiveViewTickets {
    /// Tickets valid for `ticket_ttl`, credentials for `credential_ttl`.
    pub fn new(ticket_ttl: Duration, credential_ttl: Duration) -> Self {
        Self {
            ticket_ttl,
            credential_ttl,
            tickets: Mutex::new(HashMap::new()),
            credentials: Mutex::new(HashMap::new()),
        }
    }

    /// A one-use ticket for `grant`.
    pub fn issue(&self, grant: Grant) -> String {
        let token = random_token();
        let mut tickets = self
            .tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = Instant::now();
        tickets.retain(|_, e| e.expires > now);
        tickets.insert(
            digest(&token),
            Entry {
                grant,
                expires: now + self.ticket_ttl,
            },
        );
        token
    }

    /// Trades a ticket for a credential; the ticket is used up even when it fails.
    pub fn redeem(&self, ticket: &str) -> Result<Credential, LiveViewError> {
        let entry = self
            .tickets
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&digest(ticket))
            .ok_or(LiveViewError::Denied)?;
        let now = Instant::now();
        if entry.expires <= now {
            return Err(LiveViewError::Denied);
        }
        let token = random_token();
        let expires = now + self.credential_ttl;
        self.credentials
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(
                digest(&token),
                Entry {
                    grant: entry.grant.clone(),
                    expires,
                },
            );
        Ok(Credential {
            token,
            grant: entry.grant,
            expires,
        })
    }

    /// What a credential allows, if it is valid.
    pub fn verify(&self, credential: &str) -> Result<Grant, LiveViewError> {
        let mut credentials = self
            .credentials
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = digest(credential);
        match credentials.get(&key) {
            Some(entry) if entry.expires > Instant::now() => Ok(entry.grant.clone()),
            Some(_) => {
                credentials.remove(&key);
                Err(LiveViewError::Denied)
            }
            None => Err(LiveViewError::Denied),
        }
    }

    fn revoke_where(&self, matches: impl Fn(&Grant) -> bool) -> usize {
        let mut n = 0;
        for map in [&self.tickets, &self.credentials] {
            let mut map = map
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let before = map.len();
            map.retain(|_, e| !matches(&e.grant));
            n += before - map.len();
        }
        n
    }
}

/// One message for a viewer: the stream protocol's JSON text, as the stage's stream server
/// sent it (frames are never decoded or copied per viewer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ViewerMessage {
    /// A `frame` message (base64 JPEG inside).
    Frame(Arc<str>),
    /// Any other message (`status`, `tabs`, `url`, `dialog`, `retarget`, ...).
    Event(Arc<str>),
}

impl ViewerMessage {
    /// The JSON text.
    pub fn text(&self) -> &str {
        match self {
            ViewerMessage::Frame(t) | ViewerMessage::Event(t) => t,
        }
    }
}

/// The last message of each replayed type (`status`, `tabs`, an open `dialog`).
type Replay = Arc<Mutex<Vec<(String, Arc<str>)>>>;

/// One connection to a stage's stream server, fanned out to the Host's viewers.
struct StageRelay {
    frames: watch::Sender<Option<Arc<str>>>,
    events: broadcast::Sender<Arc<str>>,
    /// The last `status`, `tabs` and (while open) `dialog`, for late viewers.
    replay: Replay,
    outgoing: mpsc::Sender<String>,
    stop: CancellationToken,
    ended: CancellationToken,
    task: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

fn message_type(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Typed {
        #[serde(rename = "type")]
        kind: String,
    }
    serde_json::from_str::<Typed>(text).ok().map(|t| t.kind)
}

impl StageRelay {
    async fn connect(port: u16, token: Option<&str>) -> Result<StageRelay, String> {
        let url = match token {
            Some(token) => format!("ws://127.0.0.1:{port}/?token={token}"),
            None => format!("ws://127.0.0.1:{port}/"),
        };
        let (socket, _) = tokio::time::timeout(
            Duration::from_secs(5),
            tokio_tungstenite::connect_async(url),
        )
        .await
        .map_err(|_| "the stream server did not answer within 5 s".to_string())?
        .map_err(|e| format!("cannot reach the stream server: {e}"))?;
        let (mut sink, mut source) = socket.split();
        let (frames, _) = watch::channel(None);
        let (events, _) = broadcast::channel(256);
        let (outgoing, mut queue) = mpsc::channel::<String>(256);
        let stop = CancellationToken::new();
        let ended = CancellationToken::new();
        let replay: Replay = Arc::default();
        let task = {
            let (frames, events, stop, ended, replay) = (
                frames.clone(),
                events.clone(),
                stop.clone(),
                ended.clone(),
                replay.clone(),
            );
            tokio::spawn(async move {
                loop {
                    tokio::select! {
                        _ = stop.cancelled() => {
                            let _ = sink.send(Message::Close(None)).await;
                            break;
                        }
                        out = queue.recv() => match out {
                            // In arrival order: one queue, one writer.
                            Some(text) => if sink.send(Message::Text(text.into())).await.is_err() { break },
                            None => break,
                        },
                        incoming = source.next() => match incoming {
                            Some(Ok(Message::Text(text))) => {
                                let text: Arc<str> = Arc::from(text.as_str());
                                if text.starts_with(r#"{"type":"frame""#) {
                                    frames.send_replace(Some(text));
                                    continue;
                                }
                                if let Some(kind) = message_type(&text) {
                                    let mut replay = replay.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                                    match kind.as_str() {
                                        "status" | "tabs" | "dialog" => {
                                            replay.retain(|(k, _)| *k != kind);
                                            replay.push((kind, text.clone()));
                                        }
                                        "dialog_closed" => replay.retain(|(k, _)| k != "dialog"),
                                        _ => {}
                                    }
                                }
                                let _ = events.send(text);
                            }
                            Some(Ok(Message::Close(_))) | None | Some(Err(_)) => break,
                            Some(Ok(_)) => {}
                        },
                    }
                }
                ended.cancel();
            })
        };
        Ok(StageRelay {
            frames,
            events,
            replay,
            outgoing,
            stop,
            ended,
            task: Mutex::new(Some(task)),
        })
    }

    async fn close(&self) {
        self.stop.cancel();
        let task = self
            .task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(task) = task
            && tokio::time::timeout(Duration::from_secs(3), task)
                .await
                .is_err()
        {
            tracing::warn!("live view relay did not end within 3 s");
        }
    }
}

struct StageViews {
    relay: Arc<StageRelay>,
    viewers: Vec<(u64, Grant, CancellationToken)>,
    linger: Option<tokio::task::JoinHandle<()>>,
}

/// Where a stage's stream server is: its port and token.
#[derive(Clone, Debug)]
pub(crate) struct StreamAddress {
    pub port: u16,
    pub token: Option<String>,
}

/// The Host's live views: tickets, credentials, and the relays of watched stages.
pub struct LiveViews {
    tickets: LiveViewTickets,
    linger: Duration,
    max_controllers: usize,
    stages: Arc<Mutex<HashMap<(RunId, StageId), StageViews>>>,
    next_viewer: Mutex<u64>,
    /// Serializes opening and closing of relays.
    gate: tokio::sync::Mutex<()>,
}

impl fmt::Debug for LiveViews {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LiveViews").finish_non_exhaustive()
    }
}

/// Options of [`LiveViews`].
#[derive(Clone, Debug)]
pub struct LiveViewSettings {
    /// How long a relay stays after its last viewer left (a reload should not restart it).
    pub linger: Duration,
    /// Control viewers per stage at a time.
    pub max_controllers: usize,
    /// Ticket lifetime.
    pub ticket_ttl: Duration,
    /// Credential lifetime.
    pub credential_ttl: Duration,
}

impl Default for LiveViewSettings {
    fn default() -> Self {
        Self {
            linger: Duration::from_secs(5),
            max_controllers: 1,
            ticket_ttl: Duration::from_secs(60),
            credential_ttl: Duration::from_secs(24 * 3600),
        }
    }
}

/// A person's view of a stage.
pub struct Viewer {
    id: u64,
    grant: Grant,
    frames: watch::Receiver<Option<Arc<str>>>,
    events: broadcast::Receiver<Arc<str>>,
    replay: std::collections::VecDeque<Arc<str>>,
    outgoing: mpsc::Sender<String>,
    cancel: CancellationToken,
    ended: CancellationToken,
    leave: Option<Box<dyn FnOnce(u64) + Send + Sync>>,
}

impl fmt::Debug for Viewer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Viewer")
            .field("grant", &self.grant)
            .finish_non_exhaustive()
    }
}

impl Viewer {
    /// What this viewer may do.
    pub fn grant(&self) -> &Grant {
        &self.grant
    }

    /// The next message; `None` when the view ended (revoked, stage torn down, stream gone).
    pub async fn next(&mut self) -> Option<ViewerMessage> {
        if let Some(text) = self.replay.pop_front() {
            return Some(ViewerMessage::Event(text));
        }
        loop {
            tokio::select! {
                biased;
                _ = self.cancel.cancelled() => return None,
                _ = self.ended.cancelled() => return None,
                event = self.events.recv() => match event {
                    Ok(text) => return Some(ViewerMessage::Event(text)),
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
                changed = self.frames.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                    if let Some(frame) = self.frames.borrow_and_update().clone() {
                        return Some(ViewerMessage::Frame(frame));
                    }
                }
            }
        }
    }

    /// The next frame, skipping other messages.
    pub async fn next_frame(&mut self) -> Option<Arc<str>> {
        loop {
            if let ViewerMessage::Frame(frame) = self.next().await? {
                return Some(frame);
            }
        }
    }

    /// Sends a viewer message (`input_mouse`, `input_keyboard`, `input_touch`, `dialog_answer`,
    /// `reopen_tab`) to the stage, in order. Watchers may only send `config` and `ack`, which
    /// the Host's latest-wins delivery does not need and drops.
    pub async fn send(&self, message: &str) -> Result<(), LiveViewError> {
        use abx_relay::ClientMessage;
        let parsed = abx_relay::parse_client_message(message)
            .map_err(|e| LiveViewError::BadMessage(e.to_string()))?;
        if matches!(
            parsed,
            ClientMessage::Config { .. } | ClientMessage::Ack { .. }
        ) {
            return Ok(());
        }
        if self.grant.mode != ViewMode::Control {
            return Err(LiveViewError::ReadOnly);
        }
        if self.cancel.is_cancelled() || self.ended.is_cancelled() {
            return Err(LiveViewError::Closed);
        }
        self.outgoing
            .send(message.to_string())
            .await
            .map_err(|_| LiveViewError::Closed)
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        if let Some(leave) = self.leave.take() {
            leave(self.id);
        }
    }
}

impl LiveViews {
    pub(crate) fn new(settings: LiveViewSettings) -> Self {
        Self {
            tickets: LiveViewTickets::new(settings.ticket_ttl, settings.credential_ttl),
            linger: settings.linger,
            max_controllers: settings.max_controllers.max(1),
            stages: Arc::default(),
            next_viewer: Mutex::new(0),
            gate: tokio::sync::Mutex::new(()),
        }
    }

    /// The tickets and credentials.
    pub fn tickets(&self) -> &LiveViewTickets {
        &self.tickets
    }

    /// Stages with an open relay.
    pub fn open_relays(&self) -> Vec<(RunId, StageId)> {
        let stages = self
            .stages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut keys: Vec<_> = stages.keys().cloned().collect();
        keys.sort();
        keys
    }

    /// Attaches a viewer with a credential; `scope` is the caller's (a credential of another
    /// owner is refused).
    pub(crate) async fn attach(
        &self,
        scope: &Scope,
        credential: &str,
        address: impl AsyncFnOnce(&Grant) -> Result<StreamAddress, LiveViewError>,
    ) -> Result<Viewer, LiveViewError> {
        let grant = self.tickets.verify(credential)?;
        if &grant.scope != scope {
            return Err(LiveViewError::WrongScope);
        }
        let _gate = self.gate.lock().await;
        let key = (grant.run.clone(), grant.stage.clone());
        let existing = {
            let stages = self
                .stages
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            stages.get(&key).map(|views| {
                let controllers = views
                    .viewers
                    .iter()
                    .filter(|(_, g, _)| g.mode == ViewMode::Control)
                    .count();
                (
                    views.relay.clone(),
                    controllers,
                    views.relay.ended.is_cancelled(),
                )
            })
        };
        if let Some((_, controllers, _)) = &existing
            && grant.mode == ViewMode::Control
            && *controllers >= self.max_controllers
        {
            return Err(LiveViewError::ControllerBusy);
        }
        let relay = match existing {
            Some((relay, _, false)) => relay,
            stale => {
                if let Some((relay, _, _)) = stale {
                    relay.close().await;
                    self.stages
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .remove(&key);
                }
                let stream = address(&grant).await?;
                let relay = StageRelay::connect(stream.port, stream.token.as_deref())
                    .await
                    .map_err(|reason| LiveViewError::NoBrowser {
                        run: grant.run.to_string(),
                        stage: grant.stage.to_string(),
                        reason,
                    })?;
                let relay = Arc::new(relay);
                self.stages
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(
                        key.clone(),
                        StageViews {
                            relay: relay.clone(),
                            viewers: Vec::new(),
                            linger: None,
                        },
                    );
                relay
            }
        };
        let id = {
            let mut next = self
                .next_viewer
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            *next += 1;
            *next
        };
        let cancel = CancellationToken::new();
        {
            let mut stages = self
                .stages
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(views) = stages.get_mut(&key) {
                if let Some(linger) = views.linger.take() {
                    linger.abort();
                }
                views.viewers.push((id, grant.clone(), cancel.clone()));
            }
        }
        let replay = relay
            .replay
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|(_, t)| t.clone())
            .collect();
        let mut frames = relay.frames.subscribe();
        // A frame already there counts as new for this viewer.
        frames.mark_changed();
        let stages = self.stages.clone();
        let linger = self.linger;
        let leave_key = key.clone();
        let leave = move |id: u64| {
            let mut map = stages
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let Some(views) = map.get_mut(&leave_key) else {
                return;
            };
            views.viewers.retain(|(v, _, _)| *v != id);
            if !views.viewers.is_empty() || views.linger.is_some() {
                return;
            }
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                return;
            };
            let relay = views.relay.clone();
            let stages = stages.clone();
            let key = leave_key.clone();
            views.linger = Some(runtime.spawn(async move {
                tokio::time::sleep(linger).await;
                let removed = {
                    let mut map = stages
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    let idle = map
                        .get(&key)
                        .is_some_and(|v| v.viewers.is_empty() && Arc::ptr_eq(&v.relay, &relay));
                    if idle { map.remove(&key) } else { None }
                };
                if removed.is_some() {
                    relay.close().await;
                }
            }));
        };
        Ok(Viewer {
            id,
            grant,
            frames,
            events: relay.events.subscribe(),
            replay,
            outgoing: relay.outgoing.clone(),
            cancel,
            ended: relay.ended.clone(),
            leave: Some(Box::new(leave)),
        })
    }

    async fn close_where(&self, matches: impl Fn(&(RunId, StageId)) -> bool) -> usize {
        let _gate = self.gate.lock().await;
        let removed: Vec<StageViews> = {
            let mut stages = self
                .stages
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let keys: Vec<_> = stages.keys().filter(|k| matches(k)).cloned().collect();
            keys.iter().filter_map(|k| stages.remove(k)).collect()
        };
        let n = removed.len();
        for views in removed {
            if let Some(linger) = views.linger {
                linger.abort();
            }
            for (_, _, cancel) in &views.viewers {
                cancel.cancel();
            }
            views.relay.close().await;
        }
        n
    }

    /// Closes the stage's relay and ends its viewers (before its browser teardown).
    pub async fn close_stage(&self, run: &RunId, stage: &StageId) -> usize {
        self.close_where(|(r, s)| r == run && s == stage).await
    }

    /// Closes every relay of a run.
    pub async fn close_run(&self, run: &RunId) -> usize {
        self.close_where(|(r, _)| r == run).await
    }

    /// Closes every relay.
    pub async fn close_all(&self) -> usize {
        self.close_where(|_| true).await
    }

    fn end_viewers(&self, matches: impl Fn(&Grant) -> bool) {
        let stages = self
            .stages
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for views in stages.values() {
            for (_, grant, cancel) in &views.viewers {
                if matches(grant) {
                    cancel.cancel();
                }
            }
        }
    }

    /// Revokes the stage's tickets and credentials (only control ones when `control_only`, e.g.
    /// when its gate closed) and ends the viewers that used them. Returns how many were revoked.
    pub fn revoke_stage(
        &self,
        scope: &Scope,
        run: &RunId,
        stage: &StageId,
        control_only: bool,
    ) -> usize {
        let matches = |g: &Grant| {
            &g.scope == scope
                && &g.run == run
                && &g.stage == stage
                && (!control_only || g.mode == ViewMode::Control)
        };
        self.end_viewers(matches);
        self.tickets.revoke_where(matches)
    }

    /// Revokes everything of a run.
    pub fn revoke_run(&self, scope: &Scope, run: &RunId) -> usize {
        let matches = |g: &Grant| &g.scope == scope && &g.run == run;
        self.end_viewers(matches);
        self.tickets.revoke_where(matches)
    }

    /// Revokes everything.
    pub fn revoke_all(&self) -> usize {
        self.end_viewers(|_| true);
        self.tickets.revoke_where(|_| true)
    }
}
