//! One attached page target: its flat CDP session, an event pump, and the state the pump keeps
//! (URL, loader and lifecycle, dialog, console, errors, crash/detach).
//!
//! Commands never wait on events directly: they read [`TabState`] and wait for its version to
//! change, so a dialog opening, the tab closing or the renderer crashing wakes every waiter at
//! once and turns into a typed error instead of a hang.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use abx_cdp::{Connection, Event, EventFilter, Session as CdpSession};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::{broadcast, watch};

use crate::error::{EngineError, Result};

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
#[derive(Clone, Debug, Serialize)]
pub struct ConsoleMessage {
    /// `log`, `warning`, `error`, ...
    #[serde(rename = "type")]
    pub kind: String,
    /// The arguments rendered as text, space separated.
    pub text: String,
    /// The raw `RemoteObject` arguments.
    pub args: Vec<Value>,
    /// Epoch milliseconds.
    pub timestamp: u64,
}

/// An uncaught page error (`Runtime.exceptionThrown`).
#[derive(Clone, Debug, Serialize)]
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
    /// How many main-frame loads started since attach (tells "this action navigated").
    pub loads_started: u64,
}

impl TabState {
    /// Whether the lifecycle event `name` was seen for `loader`.
    pub fn has_lifecycle(&self, loader: &str, name: &str) -> bool {
        self.lifecycle.iter().any(|(l, n)| l == loader && n == name)
    }
}

const MAX_LOG: usize = 1000;

pub(crate) struct TabCell {
    state: Mutex<TabState>,
    version: watch::Sender<u64>,
    dialogs: broadcast::Sender<DialogEvent>,
}

impl TabCell {
    fn lock(&self) -> MutexGuard<'_, TabState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, change: impl FnOnce(&mut TabState)) {
        change(&mut self.lock());
        self.version.send_modify(|v| *v += 1);
    }

    /// Clears the pending dialog and emits one `Closed` event — once, whoever (our answer or
    /// Chrome's `javascriptDialogClosed` event) gets here first.
    fn close_dialog(&self, accepted: bool, user_input: &str, by: &str) {
        let had = self.lock().dialog.take().is_some();
        self.version.send_modify(|v| *v += 1);
        if had {
            let _ = self.dialogs.send(DialogEvent::Closed {
                accepted,
                user_input: user_input.to_string(),
                by: by.to_string(),
            });
        }
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
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// How long the attach-time probe waits for the renderer (docs/adr/0003-dialog-at-attach.md).
const PROBE_DEADLINE: Duration = Duration::from_millis(300);
/// How long a tab we just created may take to answer its first call.
const FRESH_DEADLINE: Duration = Duration::from_secs(5);
/// The confirmation probe after input was acknowledged: a slow but healthy renderer answers
/// within this; one stuck in a dialog does not.
const CONFIRM_DEADLINE: Duration = Duration::from_millis(1000);

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
        let (version, _) = watch::channel(0);
        let (dialogs, _) = broadcast::channel(64);
        let cell = Arc::new(TabCell {
            state: Mutex::new(TabState::default()),
            version,
            dialogs,
        });
        let pump = tokio::spawn(pump(
            events,
            cell.clone(),
            cdp.clone(),
            options,
            target_id.to_string(),
        ));
        let tab = Arc::new(Tab {
            target_id: target_id.to_string(),
            cdp,
            cell,
            pump,
            syncs: std::sync::atomic::AtomicU64::new(0),
        });
        tab.enable(fresh).await;
        Ok(tab)
    }

    async fn enable(&self, fresh: bool) {
        // Sent in order without waiting on each; then one bounded wait on the last. A page that
        // shows a dialog from before our attach blocks these: we keep going and report it.
        let s = &self.cdp;
        let _ = s.send_json("Page.enable", &json!({})).await;
        let _ = s
            .send_json("Page.setLifecycleEventsEnabled", &json!({"enabled": true}))
            .await;
        let _ = s.send_json("Runtime.enable", &json!({})).await;
        let _ = s
            .send_json("Runtime.runIfWaitingForDebugger", &json!({}))
            .await;
        // A healthy page answers in 1-2 ms. A renderer that does not answer within the probe
        // deadline is either busy or stuck in a dialog that opened before we attached.
        let probe = s
            .call_json_within(
                "Runtime.evaluate",
                json!({"expression": "location.href", "returnByValue": true}),
                if fresh {
                    FRESH_DEADLINE
                } else {
                    PROBE_DEADLINE
                },
            )
            .await;
        match probe {
            Ok(reply) => {
                if let Some(url) = reply.pointer("/result/value").and_then(Value::as_str) {
                    let url = url.to_string();
                    self.cell.update(|st| {
                        if st.url.is_empty() {
                            st.url = url;
                        }
                    });
                }
            }
            Err(err) if err.is_timeout() && !fresh => {
                self.probe_blocked().await;
                return;
            }
            Err(err) => {
                tracing::debug!(%err, target = %self.target_id, "tab did not answer at attach")
            }
        }
        // The main frame's id equals the target id; its current loader comes from the frame tree,
        // which is browser-side and does not block on a dialog.
        if let Ok(tree) = s
            .call_json_within("Page.getFrameTree", json!({}), Duration::from_millis(500))
            .await
            && let Some(frame) = tree.pointer("/frameTree/frame")
        {
            let loader = frame
                .get("loaderId")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let url = frame
                .get("url")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            self.cell.update(|st| {
                if st.loader_id.is_empty() {
                    st.loader_id = loader;
                }
                if !url.is_empty() {
                    st.url = url;
                }
            });
        }
    }

    /// Tells a dialog that opened before we attached from a busy renderer: while a dialog shows,
    /// the browser drops input and acknowledges it at once; a busy renderer does not answer.
    /// Only dismissal is possible for such a dialog (Chrome gives the answer callback only to the
    /// session that had Page enabled when it opened).
    async fn probe_blocked(&self) {
        let ack = self
            .cdp
            .call_json_within(
                "Input.dispatchMouseEvent",
                json!({"type": "mouseMoved", "x": 0, "y": 0}),
                PROBE_DEADLINE,
            )
            .await;
        if ack.is_err() {
            return; // a busy renderer, not a dialog
        }
        let again = self
            .cdp
            .call_json_within(
                "Runtime.evaluate",
                json!({"expression": "location.href", "returnByValue": true}),
                CONFIRM_DEADLINE,
            )
            .await;
        if let Ok(reply) = again {
            if let Some(url) = reply.pointer("/result/value").and_then(Value::as_str) {
                let url = url.to_string();
                self.cell.update(|st| st.url = url);
            }
            return; // just slow
        }
        {
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
    }

    /// Records that a call to the main frame's renderer completed after input was handled: a
    /// navigation the input requested has been reported by then (its event travels the same
    /// DevTools channel ahead of the reply), so waiting for one needs no extra round trip.
    pub(crate) fn note_sync(&self) {
        self.syncs
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

    /// A copy of the current state.
    pub fn state(&self) -> TabState {
        self.cell.lock().clone()
    }

    /// The pending dialog, if any.
    pub fn dialog(&self) -> Option<Dialog> {
        self.cell.lock().dialog.clone()
    }

    /// Records a dialog found by probing (opened before we attached).
    pub fn set_unanswerable_dialog(&self, dialog: Option<Dialog>) {
        let opened = dialog.clone();
        self.cell.update(|st| st.dialog = dialog);
        if let Some(dialog) = opened {
            let _ = self.cell.dialogs.send(DialogEvent::Opened { dialog });
        }
    }

    /// Marks the pending dialog closed by us (the `Page.javascriptDialogClosed` event follows).
    pub(crate) fn note_dialog_closed(&self, accepted: bool, user_input: &str, by: &str) {
        self.cell.close_dialog(accepted, user_input, by);
    }

    /// Dialog events of this tab.
    pub fn dialog_events(&self) -> broadcast::Receiver<DialogEvent> {
        self.cell.dialogs.subscribe()
    }

    /// A receiver that changes whenever the state changes.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.cell.version.subscribe()
    }

    /// Console messages; `clear` empties the buffer after reading.
    pub fn console(&self, clear: bool) -> Vec<ConsoleMessage> {
        let mut st = self.cell.lock();
        let out = st.console.iter().cloned().collect();
        if clear {
            st.console.clear();
        }
        out
    }

    /// Page errors; `clear` empties the buffer after reading.
    pub fn errors(&self, clear: bool) -> Vec<PageError> {
        let mut st = self.cell.lock();
        let out = st.errors.iter().cloned().collect();
        if clear {
            st.errors.clear();
        }
        out
    }

    /// Fails when the tab cannot take page commands: gone, crashed, or blocked by a dialog.
    pub fn check_usable(&self, command: &str) -> Result<()> {
        let st = self.cell.lock();
        self.state_error(&st, command).map_or(Ok(()), Err)
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
        let mut changes = self.changes();
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
                    let st = self.cell.lock().clone();
                    if let Some(err) = self.state_error(&st, command) {
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
                last_url: Some(self.cell.lock().url.clone()).filter(|u| !u.is_empty()),
            },
            EngineError::Cdp(abx_cdp::Error::TargetCrashed { .. }) => EngineError::TargetCrashed {
                target_id: self.target_id.clone(),
            },
            other => {
                let st = self.cell.lock().clone();
                self.state_error(&st, command).unwrap_or(other)
            }
        }
    }

    /// Waits until `ready` holds on the state, failing at `deadline` or when the tab becomes
    /// unusable (`allow_dialog` lets waiters that expect a dialog keep going).
    pub async fn wait_state(
        &self,
        what: &str,
        deadline: Instant,
        allow_dialog: bool,
        mut ready: impl FnMut(&TabState) -> bool,
    ) -> Result<TabState> {
        let mut changes = self.changes();
        loop {
            {
                let st = self.cell.lock().clone();
                if ready(&st) {
                    return Ok(st);
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

    /// Dispatches input events (`Input.dispatchMouseEvent` and friends, in order) and returns
    /// once Chrome has handled the last one, or as soon as one of them opened a dialog (then
    /// `Ok(true)`; the page waits for an answer). For callers that need to know the input
    /// landed before they read the page; a live view's stream of viewer input does not wait.
    pub async fn dispatch_inputs(
        &self,
        events: &[(&str, serde_json::Value)],
        timeout: Duration,
    ) -> Result<bool> {
        crate::input::dispatch(self, &self.cdp, "input", events, Instant::now() + timeout).await
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
                "this dialog opened before this session attached to the tab; Chrome only lets the \
                 client that was attached when it opened answer it, so it can be dismissed \
                 (`dialog dismiss`) but not accepted"
                    .into(),
            ));
        }
        let mut params = json!({"accept": accept});
        if let Some(text) = prompt_text {
            params["promptText"] = json!(text);
        }
        self.cell.update(|st| st.closing_by = Some(by.to_string()));
        let answered = self
            .cdp
            .call_json_within(
                "Page.handleJavaScriptDialog",
                params,
                Duration::from_secs(5),
            )
            .await;
        if let Err(err) = answered {
            self.cell.update(|st| st.closing_by = None);
            return Err(err.into());
        }
        self.note_dialog_closed(accept, prompt_text.unwrap_or(""), by);
        Ok(())
    }

    /// Sends a CDP call on the tab's session, guarded like [`Tab::guarded`].
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
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameNavigated {
    frame: FrameInfo,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameInfo {
    #[serde(default)]
    parent_id: Option<String>,
    #[serde(default)]
    url: String,
    #[serde(default)]
    url_fragment: Option<String>,
    #[serde(default)]
    loader_id: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Lifecycle {
    frame_id: String,
    loader_id: String,
    name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WithinDocument {
    frame_id: String,
    url: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DialogOpening {
    url: String,
    message: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    default_prompt: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DialogClosed {
    result: bool,
    #[serde(default)]
    user_input: String,
}

/// Renders console arguments the way DevTools does for primitives and short previews.
fn render_args(args: &[Value]) -> String {
    args.iter()
        .map(|arg| {
            if let Some(value) = arg.get("value") {
                match value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }
            } else if let Some(unser) = arg.get("unserializableValue").and_then(Value::as_str) {
                unser.to_string()
            } else if let Some(preview) = arg.get("preview") {
                render_preview(preview)
            } else {
                arg.get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn render_preview(preview: &Value) -> String {
    let props = preview
        .get("properties")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let inner = props
        .iter()
        .map(|p| {
            let name = p.get("name").and_then(Value::as_str).unwrap_or("");
            let value = p.get("value").and_then(Value::as_str).unwrap_or("");
            format!("{name}: {value}")
        })
        .collect::<Vec<_>>()
        .join(", ");
    if preview.get("subtype").and_then(Value::as_str) == Some("array") {
        format!("[{inner}]")
    } else {
        format!("{{{inner}}}")
    }
}

async fn pump(
    mut events: abx_cdp::Subscription,
    cell: Arc<TabCell>,
    cdp: CdpSession,
    options: TabOptions,
    target_id: String,
) {
    while let Some(event) = events.recv().await {
        handle(&event, &cell, &cdp, &options, &target_id).await;
    }
    // The session ended: detached (tab closed) or the connection died.
    cell.update(|st| st.detached = true);
}

async fn handle(
    event: &Event,
    cell: &TabCell,
    cdp: &CdpSession,
    options: &TabOptions,
    target_id: &str,
) {
    match event.method() {
        "Page.frameRequestedNavigation" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct Requested {
                frame_id: String,
                #[serde(default)]
                disposition: String,
            }
            // Requested before the renderer acks the input that caused it: the earliest sign
            // that an action navigates (a new-tab disposition does not move this tab).
            if let Ok(req) = event.parse::<Requested>()
                && req.frame_id == target_id
                && (req.disposition.is_empty() || req.disposition == "currentTab")
            {
                tracing::debug!("navigation requested");
                cell.update(|st| {
                    st.loading = true;
                    st.loads_started += 1;
                });
            }
        }
        "Page.frameStartedLoading" | "Page.frameStoppedLoading" => {
            #[derive(Deserialize)]
            #[serde(rename_all = "camelCase")]
            struct FrameId {
                frame_id: String,
            }
            if let Ok(frame) = event.parse::<FrameId>()
                && frame.frame_id == target_id
            {
                let started = event.method() == "Page.frameStartedLoading";
                tracing::debug!(started, "main frame loading");
                cell.update(|st| {
                    // A start right after a request is the same navigation: count it once.
                    if started && !st.loading {
                        st.loads_started += 1;
                    }
                    st.loading = started;
                });
            }
        }
        "Page.frameNavigated" => {
            if let Ok(nav) = event.parse::<FrameNavigated>()
                && nav.frame.parent_id.is_none()
            {
                let url = match nav.frame.url_fragment {
                    Some(fragment) => format!("{}{}", nav.frame.url, fragment),
                    None => nav.frame.url,
                };
                cell.update(|st| {
                    st.url = url;
                    if st.loader_id != nav.frame.loader_id {
                        st.documents += 1;
                    }
                    st.loader_id = nav.frame.loader_id;
                });
            }
        }
        "Page.navigatedWithinDocument" => {
            // The main frame's id is the target id; child frames are ignored.
            if let Ok(nav) = event.parse::<WithinDocument>()
                && nav.frame_id == target_id
            {
                cell.update(|st| st.url = nav.url);
            }
        }
        "Page.lifecycleEvent" => {
            if let Ok(lc) = event.parse::<Lifecycle>()
                && lc.frame_id == target_id
            {
                cell.update(|st| {
                    st.lifecycle.push_back((lc.loader_id, lc.name));
                    while st.lifecycle.len() > 200 {
                        st.lifecycle.pop_front();
                    }
                });
            }
        }
        "Page.javascriptDialogOpening" => {
            if let Ok(d) = event.parse::<DialogOpening>() {
                let auto = options.auto_dialog && (d.kind == "alert" || d.kind == "beforeunload");
                if auto {
                    tracing::debug!(kind = %d.kind, "[auto-dismiss] accepting dialog");
                    let _ = cdp
                        .send_json("Page.handleJavaScriptDialog", &json!({"accept": true}))
                        .await;
                    let _ = cell.dialogs.send(DialogEvent::Closed {
                        accepted: true,
                        user_input: String::new(),
                        by: "auto".into(),
                    });
                    return;
                }
                let dialog = Dialog {
                    kind: d.kind,
                    message: d.message,
                    default_prompt: d.default_prompt,
                    url: d.url,
                    answerable: true,
                    opened_at_ms: now_ms(),
                };
                cell.update(|st| st.dialog = Some(dialog.clone()));
                let _ = cell.dialogs.send(DialogEvent::Opened { dialog });
            }
        }
        "Page.javascriptDialogClosed" => {
            let closed = event.parse::<DialogClosed>().ok();
            let by = cell
                .lock()
                .closing_by
                .take()
                .unwrap_or_else(|| "page".into());
            let (accepted, input) = closed
                .map(|c| (c.result, c.user_input))
                .unwrap_or((false, String::new()));
            cell.close_dialog(accepted, &input, &by);
        }
        "Runtime.consoleAPICalled" => {
            let params: Value = event.parse().unwrap_or(Value::Null);
            let args = params
                .get("args")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let kind = params
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("log")
                .to_string();
            let message = ConsoleMessage {
                kind,
                text: render_args(&args),
                args,
                timestamp: now_ms(),
            };
            cell.update(|st| {
                st.console.push_back(message);
                while st.console.len() > MAX_LOG {
                    st.console.pop_front();
                }
            });
        }
        "Runtime.exceptionThrown" => {
            let params: Value = event.parse().unwrap_or(Value::Null);
            let details = params
                .get("exceptionDetails")
                .cloned()
                .unwrap_or(Value::Null);
            let description = details
                .pointer("/exception/description")
                .and_then(Value::as_str)
                .or_else(|| details.get("text").and_then(Value::as_str))
                .unwrap_or("")
                .to_string();
            let error = PageError {
                text: description.clone(),
                message: description,
                line: details
                    .get("lineNumber")
                    .and_then(Value::as_i64)
                    .unwrap_or(0),
                column: details
                    .get("columnNumber")
                    .and_then(Value::as_i64)
                    .unwrap_or(0),
                url: details
                    .get("url")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                timestamp: now_ms(),
            };
            cell.update(|st| {
                st.errors.push_back(error);
                while st.errors.len() > MAX_LOG {
                    st.errors.pop_front();
                }
            });
        }
        "Inspector.targetCrashed" => cell.update(|st| st.crashed = true),
        "Inspector.detached" => cell.update(|st| st.detached = true),
        "Network.requestWillBeSent" => cell.update(|st| st.inflight += 1),
        "Network.loadingFinished" | "Network.loadingFailed" => {
            cell.update(|st| st.inflight = (st.inflight - 1).max(0))
        }
        _ => {}
    }
}
