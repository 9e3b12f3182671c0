//! One attached page target: its flat CDP session, an event pump, and the state the pump keeps
//! (URL, loader and lifecycle, dialog, console, errors, crash/detach).
//!
//! The pump decodes each CDP event of the tab's session into a [`TabEvent`](reduce::TabEvent),
//! applies the pure reducer ([`reduce`]) to the state, and runs the effects it returns (accept
//! an auto-accepted dialog, tell dialog and page listeners). Commands never wait on events
//! directly: they wait on the state, kept in a `watch` channel, and test their condition on a
//! borrow of it (no copy per event), so a dialog opening, the tab closing or the renderer
//! crashing wakes every waiter at once and turns into a typed error instead of a hang.

mod reduce;
pub(crate) mod settle;

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use abx_cdp::protocol::browser_protocol::{input, page, target};
use abx_cdp::protocol::js_protocol::runtime;
use abx_cdp::{Command, Connection, EventFilter, Session as CdpSession};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{broadcast, watch};

use crate::error::{EngineError, Result};
use reduce::{Effect, TabEvent};

/// A JavaScript dialog the tab is showing.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Dialog {
    /// `alert`, `confirm`, `prompt`, `beforeunload`, or `unknown` (seen only by probing).
    #[serde(rename = "type")]
    pub kind: String,
    /// The dialog's message.
    pub message: String,
    /// The prompt's default text.
    pub default_prompt: Option<String>,
    /// The URL of the frame that raised it.
    pub url: String,
    /// Whether this session can answer it (false when it opened before we attached).
    pub answerable: bool,
    /// Epoch milliseconds when it was seen.
    pub opened_at_ms: u64,
}

/// What happened to a dialog, for the live view and the library.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum DialogEvent {
    /// A dialog opened and waits for an answer.
    Opened {
        /// The dialog.
        dialog: Dialog,
    },
    /// A dialog closed.
    Closed {
        /// Whether it was accepted.
        accepted: bool,
        /// Prompt text entered, if any.
        user_input: String,
        /// Who closed it: `auto` (alert/beforeunload auto-accept), `command`, `viewer`, `page`.
        by: String,
    },
}

/// A console message (`Runtime.consoleAPICalled`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ConsoleMessage {
    /// `log`, `warning`, `error`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// The arguments rendered as text, space separated: strings as they are, other primitives
    /// as JSON, objects and arrays by their preview (`{a: 1}`, `[0: 7]`), else their description.
    /// The one rendering of console messages (`console`, the live view and the library).
    pub text: String,
    /// The raw `RemoteObject` arguments.
    pub args: Vec<Value>,
    /// Epoch milliseconds.
    pub timestamp: u64,
}

/// An uncaught page error (`Runtime.exceptionThrown`).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PageError {
    /// The error text (e.g. `Uncaught Error: boom`).
    pub text: String,
    /// Same text under upstream's name, so both readers find it.
    pub message: String,
    /// Line number.
    pub line: i64,
    /// Column number.
    pub column: i64,
    /// Script URL.
    pub url: String,
    /// Epoch milliseconds.
    pub timestamp: u64,
}

/// The state the event pump maintains for one tab.
#[derive(Clone, Debug, Default)]
pub struct TabState {
    /// Main-frame URL.
    pub url: String,
    /// Main-frame loader (document) id.
    pub loader_id: String,
    /// How many main-frame documents were committed since attach.
    pub documents: u64,
    /// Lifecycle events seen, as (loader id, name), most recent last.
    pub lifecycle: VecDeque<(String, String)>,
    /// The pending dialog.
    pub dialog: Option<Dialog>,
    /// Console messages (bounded).
    pub console: VecDeque<ConsoleMessage>,
    /// Page errors (bounded).
    pub errors: VecDeque<PageError>,
    /// The renderer crashed.
    pub crashed: bool,
    /// The target is gone (closed or detached).
    pub detached: bool,
    /// Requests in flight (only tracked while `Network` is enabled).
    pub inflight: i64,
    /// Who is answering the pending dialog (so the close event names them, not "page").
    pub closing_by: Option<String>,
    /// The main frame is loading a new document (`frameStartedLoading` .. `frameStoppedLoading`).
    pub loading: bool,
    /// How many main-frame navigations started since attach (requested by the page, started by
    /// Chrome or by us), for [`settle`]'s marks.
    pub navigation_starts: u64,
    /// How many same-document navigations (fragment, History API) the main frame made.
    pub same_document_navigations: u64,
    /// The current document moved within itself (fragment, History API) since it committed:
    /// Chrome's title for the tab is then the history entry's, which can differ from the
    /// document's.
    pub moved_within_document: bool,
    /// The main frame's newest navigation, from its start until it commits or ends.
    pub pending: Option<PendingNavigation>,
    /// The main frame has a navigation scheduled to start now (`Page.frameScheduledNavigation`
    /// with no delay, until `frameClearedScheduledNavigation`).
    pub scheduled: bool,
    /// The default (main-world) execution context of each same-process frame, by frame id:
    /// `(contextId, uniqueId)`, kept from `Runtime.executionContext*` events (see [`crate::frame`]).
    pub frame_contexts: std::collections::HashMap<String, (i64, String)>,
    /// The snapshot's isolated world in each same-process frame's current document, by frame
    /// id: `(contextId, uniqueId, main-frame loader id when it was reported)`. Chrome makes it
    /// as each document is created ([`crate::snapshot::watch::world_on_new_documents`]), so a
    /// snapshot need not. The loader lets a reader tell the main frame's world from one of an
    /// older document whose end was not reported (yet).
    pub snapshot_worlds: std::collections::HashMap<String, (i64, String, String)>,
    /// How many times a snapshot watcher in this session's documents told of a change
    /// (`Runtime.bindingCalled` of [`crate::snapshot::watch::BINDING`]); a stored snapshot is
    /// answered without asking the page only while this has not moved since it was armed.
    pub snapshot_pushes: u64,
}

/// How a navigation wait ended ([`Tab::settle`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Settled {
    /// The navigation reached the milestone (or ended without a new document).
    Done,
    /// The new document was parsed, but its `load` did not come within the grace.
    LoadHeld,
    /// A dialog opened.
    Dialog,
}

/// A main-frame navigation that started and has not committed or ended yet.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PendingNavigation {
    /// Its loader (the document it will commit), once Chrome named it; `None` between the
    /// page's request and Chrome's start.
    pub loader_id: Option<String>,
    /// The URL it started with (redirects may change it).
    pub url: String,
    /// A fragment or History API navigation: it commits no new document.
    pub same_document: bool,
    /// A move in session history (`back`, `forward`, `history.go`): restored from the
    /// back/forward cache, it stops loading before it commits.
    pub history: bool,
}

impl TabState {
    /// Whether the lifecycle event `name` was seen for `loader`.
    pub fn has_lifecycle(&self, loader: &str, name: &str) -> bool {
        self.lifecycle.iter().any(|(l, n)| l == loader && n == name)
    }
}

/// What happened in a tab's page, for live views: main-frame navigations, console messages and
/// uncaught errors, in the order the tab's event pump saw them ([`Tab::page_events`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PageEvent {
    /// The main frame committed a document (`Page.frameNavigated`).
    Navigated {
        /// Its URL (with the fragment).
        url: String,
    },
    /// A console message, rendered (see [`ConsoleMessage::text`]).
    Console(ConsoleMessage),
    /// An uncaught error.
    Error(PageError),
}

/// How many page events a slow listener may fall behind before it loses the oldest.
const PAGE_EVENTS: usize = 1024;

pub(crate) struct TabCell {
    target_id: String,
    auto_dialog: bool,
    state: watch::Sender<TabState>,
    /// Bumped with every state change, for [`Tab::changes`].
    version: watch::Sender<u64>,
    dialogs: broadcast::Sender<DialogEvent>,
    page: broadcast::Sender<PageEvent>,
}

impl TabCell {
    /// Reduces `event` into the state, wakes waiters if it changed, and returns the effects.
    fn apply(&self, event: TabEvent) -> Vec<Effect> {
        let ctx = reduce::Context {
            target_id: &self.target_id,
            auto_dialog: self.auto_dialog,
            now_ms: now_ms(),
        };
        let mut effects = Vec::new();
        let changed = self.state.send_if_modified(|state| {
            let reduced = reduce::reduce(state, event, &ctx);
            effects = reduced.effects;
            reduced.changed
        });
        if changed {
            self.version.send_modify(|v| *v = v.wrapping_add(1));
        }
        effects
    }

    /// Runs effects: the broadcasts here, a dialog answer on `cdp`.
    async fn run(&self, cdp: &CdpSession, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::AcceptDialog => {
                    let _ = cdp
                        .send(&page::HandleJavaScriptDialogParams::new(true))
                        .await;
                }
                Effect::Dialog(event) => {
                    let _ = self.dialogs.send(event);
                }
                Effect::Page(event) => {
                    let _ = self.page.send(event);
                }
            }
        }
    }

    /// [`TabCell::apply`] then [`TabCell::run`], for changes a command notes.
    async fn note(&self, cdp: &CdpSession, event: TabEvent) {
        let effects = self.apply(event);
        self.run(cdp, effects).await;
    }
}

/// Options the pump needs.
#[derive(Clone, Debug)]
pub struct TabOptions {
    /// Accept `alert` and `beforeunload` at once (upstream default).
    pub auto_dialog: bool,
    /// The tab was created by us moments ago (or is the first tab of a Chrome we launched): it
    /// cannot show a dialog from before our attach, so a slow first answer is just a slow start.
    pub fresh: bool,
}

/// An attached page target.
pub struct Tab {
    target_id: String,
    cdp: CdpSession,
    cell: Arc<TabCell>,
    pump: tokio::task::JoinHandle<()>,
    /// Round trips to the main frame's renderer that completed after input was handled (see
    /// [`Tab::note_sync`]).
    syncs: std::sync::atomic::AtomicU64,
    /// A navigation an action started and left for the next command to wait for (see
    /// [`SessionOptions::settle_later`](crate::SessionOptions::settle_later)).
    deferred: std::sync::Mutex<Option<settle::NavigationMark>>,
}

impl std::fmt::Debug for Tab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tab")
            .field("target_id", &self.target_id)
            .finish_non_exhaustive()
    }
}

impl Drop for Tab {
    fn drop(&mut self) {
        self.pump.abort();
    }
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// How long the attach-time probe waits for the renderer (docs/adr/0003-dialog-at-attach.md).
const PROBE_DEADLINE: Duration = Duration::from_millis(300);
/// How long a tab we just created may take to answer its first call.
const FRESH_DEADLINE: Duration = Duration::from_secs(5);
/// The confirmation probe after input was acknowledged: a slow but healthy renderer answers
/// within this; one stuck in a dialog does not.
const CONFIRM_DEADLINE: Duration = Duration::from_millis(1000);

/// `location.href`, by value.
fn href() -> runtime::EvaluateParams {
    runtime::EvaluateParams {
        return_by_value: Some(true),
        ..runtime::EvaluateParams::new("location.href")
    }
}

/// The string value of an evaluation, if it produced one.
fn string_value(reply: &runtime::EvaluateReturns) -> Option<String> {
    reply
        .result
        .value
        .as_ref()
        .and_then(Value::as_str)
        .map(str::to_string)
}

impl Tab {
    /// Attaches to `target_id`, starts the event pump and enables what the engine needs.
    pub async fn attach(
        connection: &Connection,
        target_id: &str,
        options: TabOptions,
    ) -> Result<Arc<Tab>> {
        let cdp = connection
            .attach(target_id)
            .await
            .map_err(|err| match err {
                abx_cdp::Error::Protocol { .. } => EngineError::TabGone {
                    target_id: target_id.to_string(),
                    last_url: None,
                },
                other => other.into(),
            })?;
        let fresh = options.fresh;
        let events = cdp.subscribe(EventFilter::All, 8192);
        let cell = Arc::new(TabCell {
            target_id: target_id.to_string(),
            auto_dialog: options.auto_dialog,
            state: watch::Sender::new(TabState::default()),
            version: watch::Sender::new(0),
            dialogs: broadcast::channel(64).0,
            page: broadcast::channel(PAGE_EVENTS).0,
        });
        let pump = tokio::spawn(pump(events, cell.clone(), cdp.clone()));
        let tab = Arc::new(Tab {
            target_id: target_id.to_string(),
            cdp,
            cell,
            pump,
            syncs: std::sync::atomic::AtomicU64::new(0),
            deferred: std::sync::Mutex::new(None),
        });
        tab.enable(fresh).await;
        Ok(tab)
    }

    async fn note(&self, event: TabEvent) {
        self.cell.note(&self.cdp, event).await;
    }

    async fn enable(&self, fresh: bool) {
        // Sent in order without waiting on each; then one bounded wait on the last. A page that
        // shows a dialog from before our attach blocks these: we keep going and report it.
        let s = &self.cdp;
        let _ = s.send(&page::EnableParams::default()).await;
        let _ = s
            .send(&page::SetLifecycleEventsEnabledParams::new(true))
            .await;
        let _ = s.send(&runtime::EnableParams::default()).await;
        // The binding first, so the worlds made below have it too.
        let _ = s.send(&crate::snapshot::watch::binding_in_world()).await;
        let _ = s
            .send(&crate::snapshot::watch::world_on_new_documents())
            .await;
        let _ = s
            .send(&runtime::RunIfWaitingForDebuggerParams::default())
            .await;
        // A healthy page answers in 1-2 ms. A renderer that does not answer within the probe
        // deadline is either busy or stuck in a dialog that opened before we attached.
        // The main frame's id equals the target id; its current loader comes from the frame tree,
        // which does not block on a dialog.
        let tree = page::GetFrameTreeParams::default();
        let (probe, tree) = if fresh {
            // A tab we just created shows no dialog and its renderer may still be starting: both
            // reads go out at once (one wait for the renderer instead of two round trips).
            let (probe, tree) = tokio::join!(
                s.call_within(href(), FRESH_DEADLINE),
                s.call_within(tree, FRESH_DEADLINE)
            );
            (probe, Some(tree))
        } else {
            (s.call_within(href(), PROBE_DEADLINE).await, None)
        };
        match probe {
            Ok(reply) => {
                if let Some(url) = string_value(&reply) {
                    self.note(TabEvent::UrlProbed {
                        url,
                        only_if_unknown: true,
                    })
                    .await;
                }
            }
            Err(err) if err.is_timeout() && !fresh => {
                self.probe_blocked().await;
                return;
            }
            Err(err) => {
                tracing::debug!(%err, target = %self.target_id, "tab did not answer at attach");
            }
        }
        let tree = match tree {
            Some(tree) => tree,
            None => {
                s.call_within(
                    page::GetFrameTreeParams::default(),
                    Duration::from_millis(500),
                )
                .await
            }
        };
        if let Ok(tree) = tree {
            let frame = tree.frame_tree.frame;
            self.note(TabEvent::FrameTreeRead {
                loader_id: frame.loader_id.into(),
                url: frame.url,
            })
            .await;
        }
    }

    /// Tells a dialog that opened before we attached from a busy renderer: while a dialog shows,
    /// the browser drops input and acknowledges it at once; a busy renderer does not answer.
    /// Only dismissal is possible for such a dialog (Chrome gives the answer callback only to the
    /// session that had Page enabled when it opened).
    async fn probe_blocked(&self) {
        let moved = input::DispatchMouseEventParams::new(
            input::DispatchMouseEventType::MouseMoved,
            0.0,
            0.0,
        );
        if self.cdp.call_within(moved, PROBE_DEADLINE).await.is_err() {
            return; // a busy renderer, not a dialog
        }
        if let Ok(reply) = self.cdp.call_within(href(), CONFIRM_DEADLINE).await {
            if let Some(url) = string_value(&reply) {
                self.note(TabEvent::UrlProbed {
                    url,
                    only_if_unknown: false,
                })
                .await;
            }
            return; // just slow
        }
        tracing::debug!(target = %self.target_id, "a dialog was open before we attached");
        self.set_unanswerable_dialog(Some(Dialog {
            kind: "unknown".into(),
            message: String::new(),
            default_prompt: None,
            url: String::new(),
            answerable: false,
            opened_at_ms: now_ms(),
        }));
    }

    /// Records that a call to the main frame's renderer completed after input was handled: a
    /// navigation the input requested has been reported by then (its event travels the same
    /// DevTools channel ahead of the reply), so waiting for one needs no extra round trip.
    pub(crate) fn note_sync(&self) {
        self.syncs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    /// Leaves the navigation followed since `mark` for the next command to wait for.
    pub(crate) fn defer_settle(&self, mark: settle::NavigationMark) {
        *self
            .deferred
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(mark);
    }

    /// Puts back a navigation taken with [`Tab::take_deferred`] that is still underway, unless
    /// a newer one was left meanwhile.
    pub(crate) fn restore_deferred(&self, mark: settle::NavigationMark) {
        self.deferred
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get_or_insert(mark);
    }

    /// Takes the navigation left for the next command, if any.
    pub(crate) fn take_deferred(&self) -> Option<settle::NavigationMark> {
        self.deferred
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// How many [`Tab::note_sync`] calls there have been.
    pub(crate) fn syncs(&self) -> u64 {
        self.syncs.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The CDP target id.
    pub fn target_id(&self) -> &str {
        &self.target_id
    }

    /// The flat CDP session of the tab.
    pub fn cdp(&self) -> &CdpSession {
        &self.cdp
    }

    /// A copy of the current state (its console and error buffers included; [`Tab::read`]
    /// reads a field without copying the rest).
    pub fn state(&self) -> TabState {
        self.cell.state.borrow().clone()
    }

    /// Reads the current state in place: `tab.read(|st| st.url.clone())`. Keep `read` short
    /// (the event pump waits for it) and do not read the tab again inside it.
    pub fn read<T>(&self, read: impl FnOnce(&TabState) -> T) -> T {
        read(&self.cell.state.borrow())
    }

    /// A receiver of the state: `changed().await` wakes on every change, `borrow()` reads it in
    /// place.
    pub fn watch_state(&self) -> watch::Receiver<TabState> {
        self.cell.state.subscribe()
    }

    /// The pending dialog, if any.
    pub fn dialog(&self) -> Option<Dialog> {
        self.read(|st| st.dialog.clone())
    }

    /// Records a dialog found by probing (opened before we attached).
    pub fn set_unanswerable_dialog(&self, dialog: Option<Dialog>) {
        // Broadcasts only: no effect of this change needs the session.
        let effects = self.cell.apply(TabEvent::DialogProbed(dialog));
        for effect in effects {
            if let Effect::Dialog(event) = effect {
                let _ = self.cell.dialogs.send(event);
            }
        }
    }

    /// Marks the pending dialog closed by us (the `Page.javascriptDialogClosed` event follows).
    pub(crate) async fn note_dialog_closed(&self, accepted: bool, user_input: &str, by: &str) {
        self.note(TabEvent::Answered {
            accepted,
            user_input: user_input.to_string(),
            by: by.to_string(),
        })
        .await;
    }

    /// Dialog events of this tab.
    pub fn dialog_events(&self) -> broadcast::Receiver<DialogEvent> {
        self.cell.dialogs.subscribe()
    }

    /// Page events of this tab from now on: main-frame navigations, console messages, uncaught
    /// errors. A listener more than 1024 events behind loses the oldest (`Lagged`).
    pub fn page_events(&self) -> broadcast::Receiver<PageEvent> {
        self.cell.page.subscribe()
    }

    /// A receiver that changes whenever the state changes.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.cell.version.subscribe()
    }

    /// Console messages; `clear` empties the buffer after reading.
    pub fn console(&self, clear: bool) -> Vec<ConsoleMessage> {
        let mut out = Vec::new();
        // Reading (and clearing) a log wakes no waiter: no condition depends on it.
        self.cell.state.send_if_modified(|st| {
            out = st.console.iter().cloned().collect();
            if clear {
                st.console.clear();
            }
            false
        });
        out
    }

    /// Page errors; `clear` empties the buffer after reading.
    pub fn errors(&self, clear: bool) -> Vec<PageError> {
        let mut out = Vec::new();
        self.cell.state.send_if_modified(|st| {
            out = st.errors.iter().cloned().collect();
            if clear {
                st.errors.clear();
            }
            false
        });
        out
    }

    /// Fails when the tab cannot take page commands: gone, crashed, or blocked by a dialog.
    pub fn check_usable(&self, command: &str) -> Result<()> {
        self.read(|st| self.state_error(st, command))
            .map_or(Ok(()), Err)
    }

    fn state_error(&self, st: &TabState, command: &str) -> Option<EngineError> {
        // A session that ended because the whole connection died is a lost browser, not a
        // closed tab.
        if st.detached && self.cdp.connection().is_closed() {
            return Some(EngineError::BrowserLost {
                reason: "the CDP connection to the browser closed".into(),
            });
        }
        if st.detached {
            return Some(EngineError::TabGone {
                target_id: self.target_id.clone(),
                last_url: Some(st.url.clone()).filter(|u| !u.is_empty()),
            });
        }
        if st.crashed {
            return Some(EngineError::TargetCrashed {
                target_id: self.target_id.clone(),
            });
        }
        if let Some(dialog) = &st.dialog {
            return Some(EngineError::DialogBlocking {
                kind: dialog.kind.clone(),
                message: dialog.message.clone(),
                command: command.to_string(),
            });
        }
        None
    }

    /// Runs `work` (CDP calls on this tab) unless the tab is unusable, and abandons it the moment
    /// a dialog opens, the tab goes away or the renderer crashes.
    pub async fn guarded<T>(
        &self,
        command: &str,
        work: impl Future<Output = Result<T>>,
    ) -> Result<T> {
        self.check_usable(command)?;
        let mut changes = self.watch_state();
        tokio::pin!(work);
        loop {
            // Work first: its reply was read off the socket before any event that came after it,
            // so a reply and a dialog that opened right after it (a timer in the page) are both
            // ready here; the finished work wins, not a coin toss (CI flake in
            // `the_library_streams_dialog_events_and_answers_them`).
            tokio::select! {
                biased;
                outcome = &mut work => {
                    return outcome.map_err(|err| self.translate(err, command));
                }
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Err(EngineError::TabGone { target_id: self.target_id.clone(), last_url: None });
                    }
                    let failed = self.state_error(&changes.borrow_and_update(), command);
                    if let Some(err) = failed {
                        return Err(err);
                    }
                }
            }
        }
    }

    /// Maps transport errors about this tab's session to tab errors.
    pub fn translate(&self, err: EngineError, command: &str) -> EngineError {
        match err {
            EngineError::Cdp(abx_cdp::Error::SessionDetached { .. }) => EngineError::TabGone {
                target_id: self.target_id.clone(),
                last_url: self.read(|st| Some(st.url.clone()).filter(|u| !u.is_empty())),
            },
            EngineError::Cdp(abx_cdp::Error::TargetCrashed { .. }) => EngineError::TargetCrashed {
                target_id: self.target_id.clone(),
            },
            other => self
                .read(|st| self.state_error(st, command))
                .unwrap_or(other),
        }
    }

    /// Waits until `ready` holds on the state, failing at `deadline` or when the tab becomes
    /// unusable (`allow_dialog` lets waiters that expect a dialog keep going). `ready` is tested
    /// on the state in place after every change (so it must not read the tab itself); the state
    /// is copied once, for the result.
    pub async fn wait_state(
        &self,
        what: &str,
        deadline: Instant,
        allow_dialog: bool,
        mut ready: impl FnMut(&TabState) -> bool,
    ) -> Result<TabState> {
        let mut changes = self.watch_state();
        loop {
            {
                let st = changes.borrow_and_update();
                if ready(&st) {
                    return Ok(st.clone());
                }
                if let Some(err) = self.state_error(&st, what) {
                    let dialog_only = matches!(err, EngineError::DialogBlocking { .. });
                    if !(allow_dialog && dialog_only) {
                        return Err(err);
                    }
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineError::Timeout {
                    what: what.to_string(),
                    after: Duration::ZERO,
                });
            }
            let remaining = deadline - now;
            match tokio::time::timeout(remaining, changes.changed()).await {
                Ok(Ok(())) => {}
                Ok(Err(_)) => {
                    return Err(EngineError::TabGone {
                        target_id: self.target_id.clone(),
                        last_url: None,
                    });
                }
                Err(_) => {}
            }
        }
    }

    /// Waits until the navigation followed since `mark` is over at `milestone`
    /// ([`settle::progress`]), failing at `deadline` like [`Tab::wait_state`]. With
    /// `load_grace`, a wait for `load` accepts a new document that was parsed
    /// (`DOMContentLoaded`) but whose `load` has not come `load_grace` later (a request that
    /// never finishes): [`Settled::LoadHeld`]. With `dialog_ends`, a dialog ends the wait
    /// ([`Settled::Dialog`]) instead of failing it.
    pub(crate) async fn settle(
        &self,
        what: &str,
        mark: &settle::NavigationMark,
        milestone: settle::Milestone,
        deadline: Instant,
        load_grace: Option<Duration>,
        dialog_ends: bool,
    ) -> Result<Settled> {
        use settle::{Milestone, progress};
        let parsed_enough = |st: &TabState| {
            load_grace.is_some()
                && milestone == Milestone::Load
                && progress(st, mark, Milestone::DomContentLoaded).is_over()
        };
        let first = self
            .wait_state(what, deadline, dialog_ends, |st| {
                (dialog_ends && st.dialog.is_some())
                    || progress(st, mark, milestone).is_over()
                    || parsed_enough(st)
            })
            .await?;
        if dialog_ends && first.dialog.is_some() {
            return Ok(Settled::Dialog);
        }
        if progress(&first, mark, milestone).is_over() {
            return Ok(Settled::Done);
        }
        let grace = load_grace.unwrap_or_default();
        let held = deadline.min(Instant::now() + grace);
        match self
            .wait_state(what, held, dialog_ends, |st| {
                (dialog_ends && st.dialog.is_some()) || progress(st, mark, milestone).is_over()
            })
            .await
        {
            Ok(st) if dialog_ends && st.dialog.is_some() => Ok(Settled::Dialog),
            Ok(_) => Ok(Settled::Done),
            // The grace ran out before the command's own deadline: the page is parsed and
            // usable, its `load` is held back.
            Err(EngineError::Timeout { .. }) if held < deadline => Ok(Settled::LoadHeld),
            Err(err) => Err(err),
        }
    }

    /// Dispatches input events (`Input.dispatchMouseEvent` and friends, in order) and returns
    /// once Chrome has handled the last one, or as soon as one of them opened a dialog (then
    /// `Ok(true)`; the page waits for an answer). For callers that need to know the input
    /// landed before they read the page; a live view's stream of viewer input does not wait.
    ///
    /// Untyped form of [`Tab::deliver_inputs`]: each `(method, params)` must be an input method
    /// ([`InputEvent::from_json`](crate::InputEvent::from_json)); anything else is refused
    /// before any event is sent.
    pub async fn dispatch_inputs(
        &self,
        events: &[(&str, Value)],
        timeout: Duration,
    ) -> Result<bool> {
        let events = events
            .iter()
            .map(|(method, params)| crate::InputEvent::from_json(method, params))
            .collect::<Result<Vec<_>>>()?;
        self.deliver_inputs(&events, timeout).await
    }

    /// Sends input events in order and returns once Chrome has handled the last one, or as
    /// soon as one of them opened a dialog (then `Ok(true)`).
    pub async fn deliver_inputs(
        &self,
        events: &[crate::InputEvent],
        timeout: Duration,
    ) -> Result<bool> {
        crate::input::dispatch(self, &self.cdp, "input", events, Instant::now() + timeout).await
    }

    /// Queues one input event without waiting for Chrome's reply; events sent through one
    /// caller reach the page in call order (a live view's stream of viewer input).
    pub async fn send_input(&self, event: &crate::InputEvent) -> Result<()> {
        event.send(&self.cdp).await?;
        Ok(())
    }

    /// Answers the pending dialog through the session that saw it open.
    pub async fn answer_dialog(
        &self,
        accept: bool,
        prompt_text: Option<&str>,
        by: &str,
    ) -> Result<()> {
        let Some(dialog) = self.dialog() else {
            return Err(EngineError::NoDialog);
        };
        if !dialog.answerable {
            return Err(EngineError::DialogUnanswerable(
                crate::Unanswerable::OpenedBeforeAttach,
            ));
        }
        let answer = page::HandleJavaScriptDialogParams {
            prompt_text: prompt_text.map(str::to_string),
            ..page::HandleJavaScriptDialogParams::new(accept)
        };
        self.note(TabEvent::AnswerSent { by: by.to_string() }).await;
        if let Err(err) = self.cdp.call_within(answer, Duration::from_secs(5)).await {
            self.note(TabEvent::AnswerFailed).await;
            return Err(err.into());
        }
        self.note_dialog_closed(accept, prompt_text.unwrap_or(""), by)
            .await;
        Ok(())
    }

    /// Sends a CDP call on the tab's session, guarded like [`Tab::guarded`]. Raw JSON: prefer
    /// [`Tab::request`], whose method and fields are checked at compile time.
    pub async fn call(
        &self,
        command: &str,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value> {
        self.guarded(command, async {
            Ok(self.cdp.call_json_within(method, params, timeout).await?)
        })
        .await
    }

    /// Sends a typed CDP command on the tab's session, guarded like [`Tab::guarded`] (a dialog,
    /// a closed tab or a crash ends it with that error), and returns its typed reply.
    pub async fn request<C: Command>(
        &self,
        command: &str,
        cdp_command: C,
        timeout: Duration,
    ) -> Result<C::Response> {
        self.guarded(command, async {
            Ok(self.cdp.call_within(cdp_command, timeout).await?)
        })
        .await
    }

    /// Brings the tab to the front of its window (`Target.activateTarget`): Chrome renders, and
    /// screencasts, only the visible tab of a window.
    pub async fn activate(&self) -> Result<()> {
        crate::browser::activate_target(self.cdp.connection(), &self.target_id).await
    }

    /// Ends this attachment (`Target.detachFromTarget`); the tab stays open and its event pump
    /// ends. Another attachment of the tab (the session's own, a live view's) is not affected.
    pub async fn detach(&self) -> Result<()> {
        let Some(session_id) = self.cdp.id() else {
            return Ok(());
        };
        let detach = target::DetachFromTargetParams {
            session_id: Some(session_id.to_string().into()),
        };
        self.cdp
            .connection()
            .browser()
            .call_within(detach, Duration::from_secs(2))
            .await?;
        Ok(())
    }
}

async fn pump(mut events: abx_cdp::Subscription, cell: Arc<TabCell>, cdp: CdpSession) {
    // Methods whose params failed to decode (each is logged once).
    let mut failed = Vec::new();
    while let Some(event) = events.recv().await {
        if let Some(event) = TabEvent::from_cdp(&event, &mut failed) {
            let effects = cell.apply(event);
            cell.run(&cdp, effects).await;
        }
    }
    // The session ended: detached (tab closed) or the connection died.
    cell.note(&cdp, TabEvent::Detached).await;
}
