//! The tab's state machine: `reduce(state, event)` updates a [`TabState`] and returns the effects
//! the event calls for, without any I/O, clock or channel (the time comes in the [`Context`]).
//! The event pump decodes CDP events into [`TabEvent`]s, reduces them, and runs the effects
//! ([`Tab`](super::Tab) does: answer a dialog, tell dialog and page listeners).

use abx_cdp::Event;
use abx_cdp::protocol::browser_protocol::{inspector, network, page};
use abx_cdp::protocol::js_protocol::runtime;
use serde::Deserialize;
use serde_json::Value;

use super::{
    ConsoleMessage, Dialog, DialogEvent, PageError, PageEvent, PendingNavigation, TabState,
};

/// How many console messages and page errors a tab keeps.
pub(crate) const MAX_LOG: usize = 1000;
/// How many lifecycle events a tab keeps.
pub(crate) const MAX_LIFECYCLE: usize = 200;
/// The lifecycle a document restored from the back/forward cache has already been through.
const RESTORED_LIFECYCLE: &[&str] = &[
    "DOMContentLoaded",
    "load",
    "networkAlmostIdle",
    "networkIdle",
];

/// What the reducer needs besides the state: the tab's identity, its dialog policy and the time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Context<'a> {
    /// The tab's target id, which is also its main frame's id.
    pub(crate) target_id: &'a str,
    /// Accept `alert` and `beforeunload` at once.
    pub(crate) auto_dialog: bool,
    /// Epoch milliseconds, for the timestamps of dialogs, messages and errors.
    pub(crate) now_ms: u64,
}

/// A console call: the arguments stay the `RemoteObject` JSON Chrome sent, since `console --json`
/// prints them as they came (generated types would reorder and drop fields).
#[derive(Clone, Debug, Default, Deserialize)]
pub(crate) struct ConsoleCall {
    #[serde(rename = "type", default = "log")]
    kind: String,
    #[serde(default)]
    args: Vec<Value>,
}

fn log() -> String {
    "log".into()
}

/// `Page.frameScheduledNavigation`'s params.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ScheduledNavigation {
    frame_id: String,
    /// Seconds until it starts.
    #[serde(default)]
    delay: f64,
}

/// The params of an event that only names its frame.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameOnly {
    frame_id: String,
}

/// Something that changes a tab's state: a CDP event of its session, or a note from the engine.
#[derive(Debug)]
pub(crate) enum TabEvent {
    /// `Page.frameRequestedNavigation`.
    NavigationRequested(page::EventFrameRequestedNavigation),
    /// `Page.frameStartedNavigating` (Chrome 130 and later).
    NavigationStarted(page::EventFrameStartedNavigating),
    /// `Page.frameScheduledNavigation` (raw: deprecated, missing from the pinned types, still
    /// sent): the frame will navigate after `delay` seconds unless something cancels it.
    NavigationScheduled(ScheduledNavigation),
    /// `Page.frameClearedScheduledNavigation`: the scheduled navigation started or was cancelled.
    ScheduleCleared(FrameOnly),
    /// `Page.frameStartedLoading`.
    LoadingStarted(page::EventFrameStartedLoading),
    /// `Page.frameStoppedLoading`.
    LoadingStopped(page::EventFrameStoppedLoading),
    /// `Page.frameNavigated`.
    Navigated(Box<page::EventFrameNavigated>),
    /// `Page.navigatedWithinDocument`.
    NavigatedWithinDocument(page::EventNavigatedWithinDocument),
    /// `Page.lifecycleEvent`.
    Lifecycle(page::EventLifecycleEvent),
    /// `Page.javascriptDialogOpening`.
    DialogOpening(Box<page::EventJavascriptDialogOpening>),
    /// `Page.javascriptDialogClosed`; `None` when its params did not decode (still a close).
    DialogClosed(Option<page::EventJavascriptDialogClosed>),
    /// `Runtime.consoleAPICalled`.
    Console(ConsoleCall),
    /// `Runtime.exceptionThrown`; `None` when its params did not decode (still an error).
    Exception(Option<Box<runtime::EventExceptionThrown>>),
    /// `Runtime.executionContextCreated` of a frame's default world: (frame id, context id, unique id).
    ContextCreated(String, i64, String),
    /// `Runtime.executionContextCreated` of the snapshot's isolated world in a frame (made in
    /// every new document, see [`crate::snapshot::watch::world_on_new_documents`]): (frame id,
    /// context id, unique id).
    SnapshotWorldCreated(String, i64, String),
    /// `Runtime.bindingCalled` of the snapshot watcher's binding: a watched page changed.
    SnapshotWatchPushed,
    /// `Runtime.executionContextDestroyed`: its unique id.
    ContextDestroyed(String),
    /// `Runtime.executionContextsCleared`.
    ContextsCleared,
    /// `Inspector.targetCrashed`.
    Crashed,
    /// `Inspector.detached`, or the session's event stream ended.
    Detached,
    /// `Network.requestWillBeSent` (counted while `Network` is enabled).
    RequestStarted,
    /// `Network.loadingFinished` / `Network.loadingFailed`.
    RequestEnded,
    /// The attach-time probe read `location.href`; `only_if_unknown` keeps a URL already known.
    UrlProbed {
        /// The URL.
        url: String,
        /// Keep a URL the pump already reported.
        only_if_unknown: bool,
    },
    /// The main frame as the frame tree reports it at attach.
    FrameTreeRead {
        /// Its current loader (kept if the pump already knows one).
        loader_id: String,
        /// Its URL (ignored when empty).
        url: String,
    },
    /// A dialog found by probing (opened before we attached), or `None` to forget it.
    DialogProbed(Option<Dialog>),
    /// We are answering the pending dialog on behalf of `by`.
    AnswerSent {
        /// Who answers.
        by: String,
    },
    /// Our answer was refused: the dialog is still pending.
    AnswerFailed,
    /// Our answer went through (Chrome's `javascriptDialogClosed` may follow; one close event).
    Answered {
        /// Accepted or dismissed.
        accepted: bool,
        /// The prompt text.
        user_input: String,
        /// Who answered.
        by: String,
    },
}

/// Decodes `T`; a failure is logged once per tab and method and gives `None`.
fn typed<T: serde::de::DeserializeOwned>(event: &Event, failed: &mut Vec<String>) -> Option<T> {
    match event.parse::<T>() {
        Ok(decoded) => Some(decoded),
        Err(err) => {
            if !failed.iter().any(|m| m == event.method()) {
                failed.push(event.method().to_string());
                tracing::warn!(method = event.method(), %err,
                    "cannot decode a CDP event (Chrome may be newer than the pinned protocol types)");
            }
            None
        }
    }
}

impl TabEvent {
    /// The tab event a CDP event of the tab's session is, if any. `failed` remembers the
    /// methods whose decoding already failed (logged once each).
    pub(crate) fn from_cdp(event: &Event, failed: &mut Vec<String>) -> Option<TabEvent> {
        Some(match event.method() {
            page::EventFrameRequestedNavigation::IDENTIFIER => {
                TabEvent::NavigationRequested(typed(event, failed)?)
            }
            page::EventFrameStartedNavigating::IDENTIFIER => {
                TabEvent::NavigationStarted(typed(event, failed)?)
            }
            "Page.frameScheduledNavigation" => TabEvent::NavigationScheduled(typed(event, failed)?),
            "Page.frameClearedScheduledNavigation" => {
                TabEvent::ScheduleCleared(typed(event, failed)?)
            }
            page::EventFrameStartedLoading::IDENTIFIER => {
                TabEvent::LoadingStarted(typed(event, failed)?)
            }
            page::EventFrameStoppedLoading::IDENTIFIER => {
                TabEvent::LoadingStopped(typed(event, failed)?)
            }
            page::EventFrameNavigated::IDENTIFIER => TabEvent::Navigated(typed(event, failed)?),
            page::EventNavigatedWithinDocument::IDENTIFIER => {
                TabEvent::NavigatedWithinDocument(typed(event, failed)?)
            }
            page::EventLifecycleEvent::IDENTIFIER => TabEvent::Lifecycle(typed(event, failed)?),
            page::EventJavascriptDialogOpening::IDENTIFIER => {
                TabEvent::DialogOpening(typed(event, failed)?)
            }
            page::EventJavascriptDialogClosed::IDENTIFIER => {
                TabEvent::DialogClosed(typed(event, failed))
            }
            // Raw on purpose: see `ConsoleCall`.
            runtime::EventConsoleApiCalled::IDENTIFIER => {
                TabEvent::Console(event.parse().unwrap_or_default())
            }
            runtime::EventExceptionThrown::IDENTIFIER => TabEvent::Exception(typed(event, failed)),
            runtime::EventExecutionContextCreated::IDENTIFIER => {
                let created: runtime::EventExecutionContextCreated = typed(event, failed)?;
                let aux = created.context.aux_data.unwrap_or_default();
                let frame = aux.get("frameId").and_then(Value::as_str)?.to_string();
                let id = *created.context.id.inner();
                if aux.get("isDefault").and_then(Value::as_bool) == Some(true) {
                    TabEvent::ContextCreated(frame, id, created.context.unique_id)
                } else if created.context.name == crate::snapshot::watch::WORLD {
                    TabEvent::SnapshotWorldCreated(frame, id, created.context.unique_id)
                } else {
                    return None;
                }
            }
            runtime::EventBindingCalled::IDENTIFIER => {
                let called: runtime::EventBindingCalled = typed(event, failed)?;
                if called.name != crate::snapshot::watch::BINDING {
                    return None;
                }
                TabEvent::SnapshotWatchPushed
            }
            runtime::EventExecutionContextDestroyed::IDENTIFIER => {
                let destroyed: runtime::EventExecutionContextDestroyed = typed(event, failed)?;
                TabEvent::ContextDestroyed(destroyed.execution_context_unique_id)
            }
            runtime::EventExecutionContextsCleared::IDENTIFIER => TabEvent::ContextsCleared,
            inspector::EventTargetCrashed::IDENTIFIER => TabEvent::Crashed,
            inspector::EventDetached::IDENTIFIER => TabEvent::Detached,
            // Only counted: their params are never read.
            network::EventRequestWillBeSent::IDENTIFIER => TabEvent::RequestStarted,
            network::EventLoadingFinished::IDENTIFIER | network::EventLoadingFailed::IDENTIFIER => {
                TabEvent::RequestEnded
            }
            _ => return None,
        })
    }
}

/// What the event pump (or the command that noted a change) must do after a reduction.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Effect {
    /// Accept the dialog that just opened (`Page.handleJavaScriptDialog {accept: true}`).
    AcceptDialog,
    /// Tell dialog listeners.
    Dialog(DialogEvent),
    /// Tell page-event listeners (live views).
    Page(PageEvent),
}

/// The outcome of one reduction.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Reduced {
    /// The state changed: waiters must look again.
    pub(crate) changed: bool,
    /// What to do, in order.
    pub(crate) effects: Vec<Effect>,
}

impl Reduced {
    fn changed() -> Reduced {
        Reduced {
            changed: true,
            effects: Vec::new(),
        }
    }

    fn unchanged() -> Reduced {
        Reduced::default()
    }

    fn with(mut self, effect: Effect) -> Reduced {
        self.effects.push(effect);
        self
    }
}

fn push_bounded<T>(queue: &mut std::collections::VecDeque<T>, item: T, max: usize) {
    queue.push_back(item);
    while queue.len() > max {
        queue.pop_front();
    }
}

/// Clears the pending dialog; one `Closed` event, whoever (our answer or Chrome's
/// `javascriptDialogClosed`) gets here first.
fn close_dialog(state: &mut TabState, accepted: bool, user_input: String, by: String) -> Reduced {
    let had = state.dialog.take().is_some();
    let reduced = Reduced::changed();
    if had {
        reduced.with(Effect::Dialog(DialogEvent::Closed {
            accepted,
            user_input,
            by,
        }))
    } else {
        reduced
    }
}

/// Applies `event` to `state`.
pub(crate) fn reduce(state: &mut TabState, event: TabEvent, ctx: &Context<'_>) -> Reduced {
    let main = |frame_id: &page::FrameId| frame_id.as_ref() == ctx.target_id;
    match event {
        TabEvent::NavigationRequested(req) => {
            // Requested before the renderer acks the input that caused it: the earliest sign
            // that an action navigates (a new-tab disposition does not move this tab).
            if main(&req.frame_id)
                && req.disposition == page::ClientNavigationDisposition::CurrentTab
            {
                state.loading = true;
                state.navigation_starts += 1;
                state.pending = Some(PendingNavigation {
                    loader_id: None,
                    url: req.url,
                    same_document: false,
                    history: false,
                });
                return Reduced::changed();
            }
            Reduced::unchanged()
        }
        TabEvent::NavigationStarted(started) => {
            if !main(&started.frame_id) {
                return Reduced::unchanged();
            }
            use page::FrameStartedNavigatingNavigationType as Kind;
            let same_document = matches!(
                started.navigation_type,
                Kind::SameDocument | Kind::HistorySameDocument
            );
            // The start of a navigation requested just before is the same navigation.
            let follows_request = state
                .pending
                .as_ref()
                .is_some_and(|p| p.loader_id.is_none() && !same_document);
            if !follows_request {
                state.navigation_starts += 1;
            }
            let history = matches!(
                started.navigation_type,
                Kind::HistoryDifferentDocument | Kind::HistorySameDocument
            );
            state.pending = Some(PendingNavigation {
                loader_id: Some(started.loader_id.into()),
                url: started.url,
                same_document,
                history,
            });
            state.scheduled = false;
            Reduced::changed()
        }
        TabEvent::NavigationScheduled(scheduled) => {
            // Only a navigation due now holds a wait (`location.replace` while parsing, a
            // `<meta http-equiv=refresh content=0>` at load); a later one is a future page.
            if scheduled.frame_id != ctx.target_id || scheduled.delay > 0.0 {
                return Reduced::unchanged();
            }
            state.scheduled = true;
            Reduced::changed()
        }
        TabEvent::ScheduleCleared(cleared) => {
            if cleared.frame_id != ctx.target_id || !state.scheduled {
                return Reduced::unchanged();
            }
            state.scheduled = false;
            Reduced::changed()
        }
        TabEvent::LoadingStarted(started) => {
            if !main(&started.frame_id) {
                return Reduced::unchanged();
            }
            // A start right after a request is the same navigation: count it once.
            if !state.loading {
                state.navigation_starts += 1;
            }
            state.loading = true;
            Reduced::changed()
        }
        TabEvent::LoadingStopped(stopped) => {
            if !main(&stopped.frame_id) {
                return Reduced::unchanged();
            }
            state.loading = false;
            // Nothing is loading any more: a navigation that did not commit (a 204, a
            // download, one cancelled or failed) is over. Not a history move: a document
            // restored from the back/forward cache stops loading first and commits after.
            if state.pending.as_ref().is_none_or(|p| !p.history) {
                state.pending = None;
            }
            Reduced::changed()
        }
        TabEvent::Navigated(nav) => {
            let frame = nav.frame;
            if frame.parent_id.is_some() {
                return Reduced::unchanged();
            }
            let url = match frame.url_fragment {
                Some(fragment) => format!("{}{fragment}", frame.url),
                None => frame.url,
            };
            let loader: String = frame.loader_id.into();
            if state.loader_id != loader {
                state.documents += 1;
            }
            // A back/forward-cache restore brings back a document that loaded long ago, under
            // its old loader, and Chrome sends no lifecycle events for it. The events of its
            // first load may have left the bounded log since (a `back` after a few dozen
            // navigations then waited for a `load` that would never come): record the restored
            // document as loaded and idle again.
            if nav.r#type == page::NavigationType::BackForwardCacheRestore {
                for name in RESTORED_LIFECYCLE {
                    push_bounded(
                        &mut state.lifecycle,
                        (loader.clone(), (*name).to_string()),
                        MAX_LIFECYCLE,
                    );
                }
            }
            // The commit ends the pending navigation, unless a newer one already started (its
            // loader is not this one).
            // A back/forward-cache restore commits the restored document's old loader, not the
            // one its history move started with.
            let restored = nav.r#type == page::NavigationType::BackForwardCacheRestore;
            if state.pending.as_ref().is_none_or(|p| {
                p.loader_id.as_deref().is_none_or(|l| l == loader) || (restored && p.history)
            }) {
                state.pending = None;
            }
            // The old document's scheduled navigation went with it.
            state.scheduled = false;
            state.moved_within_document = false;
            state.loader_id = loader;
            state.url = url.clone();
            Reduced::changed().with(Effect::Page(PageEvent::Navigated { url }))
        }
        TabEvent::NavigatedWithinDocument(nav) => {
            // The main frame's id is the target id; child frames are ignored.
            if !main(&nav.frame_id) {
                return Reduced::unchanged();
            }
            state.url = nav.url;
            state.same_document_navigations += 1;
            state.moved_within_document = true;
            if state
                .pending
                .as_ref()
                .is_some_and(|p| p.same_document || p.loader_id.is_none())
            {
                state.pending = None;
            }
            Reduced::changed()
        }
        TabEvent::Lifecycle(lc) => {
            if !main(&lc.frame_id) {
                return Reduced::unchanged();
            }
            push_bounded(
                &mut state.lifecycle,
                (lc.loader_id.into(), lc.name),
                MAX_LIFECYCLE,
            );
            Reduced::changed()
        }
        TabEvent::DialogOpening(d) => {
            let kind = d.r#type.as_ref().to_string();
            if ctx.auto_dialog && (kind == "alert" || kind == "beforeunload") {
                tracing::debug!(%kind, "[auto-dismiss] accepting dialog");
                return Reduced::unchanged()
                    .with(Effect::AcceptDialog)
                    .with(Effect::Dialog(DialogEvent::Closed {
                        accepted: true,
                        user_input: String::new(),
                        by: "auto".into(),
                    }));
            }
            let dialog = Dialog {
                kind,
                message: d.message,
                default_prompt: d.default_prompt,
                url: d.url,
                answerable: true,
                opened_at_ms: ctx.now_ms,
            };
            state.dialog = Some(dialog.clone());
            Reduced::changed().with(Effect::Dialog(DialogEvent::Opened { dialog }))
        }
        TabEvent::DialogClosed(closed) => {
            let by = state.closing_by.take().unwrap_or_else(|| "page".into());
            let (accepted, user_input) =
                closed.map_or((false, String::new()), |c| (c.result, c.user_input));
            close_dialog(state, accepted, user_input, by)
        }
        TabEvent::Console(call) => {
            let message = ConsoleMessage {
                text: render_args(&call.args),
                kind: call.kind,
                args: call.args,
                timestamp: ctx.now_ms,
            };
            push_bounded(&mut state.console, message.clone(), MAX_LOG);
            Reduced::changed().with(Effect::Page(PageEvent::Console(message)))
        }
        TabEvent::Exception(thrown) => {
            let details = thrown.map(|t| t.exception_details);
            let description = details
                .as_ref()
                .and_then(|d| {
                    d.exception
                        .as_ref()
                        .and_then(|e| e.description.clone())
                        .or_else(|| Some(d.text.clone()))
                })
                .unwrap_or_default();
            let error = PageError {
                text: description.clone(),
                message: description,
                line: details.as_ref().map_or(0, |d| d.line_number),
                column: details.as_ref().map_or(0, |d| d.column_number),
                url: details.and_then(|d| d.url).unwrap_or_default(),
                timestamp: ctx.now_ms,
            };
            push_bounded(&mut state.errors, error.clone(), MAX_LOG);
            Reduced::changed().with(Effect::Page(PageEvent::Error(error)))
        }
        // Nobody waits on contexts: they are read when a command resolves its frame.
        TabEvent::ContextCreated(frame, id, unique) => {
            state.frame_contexts.insert(frame, (id, unique));
            Reduced::unchanged()
        }
        TabEvent::SnapshotWorldCreated(frame, id, unique) => {
            let document = state.loader_id.clone();
            state.snapshot_worlds.insert(frame, (id, unique, document));
            // A frame got a new document: its watcher (if it had one) is gone with the old
            // one, and could not tell.
            state.snapshot_pushes += 1;
            Reduced::unchanged()
        }
        TabEvent::SnapshotWatchPushed => {
            state.snapshot_pushes += 1;
            Reduced::unchanged()
        }
        TabEvent::ContextDestroyed(unique) => {
            state.frame_contexts.retain(|_, (_, u)| *u != unique);
            let worlds = state.snapshot_worlds.len();
            state.snapshot_worlds.retain(|_, (_, u, _)| *u != unique);
            if state.snapshot_worlds.len() != worlds {
                state.snapshot_pushes += 1;
            }
            Reduced::unchanged()
        }
        TabEvent::ContextsCleared => {
            state.frame_contexts.clear();
            state.snapshot_worlds.clear();
            state.snapshot_pushes += 1;
            Reduced::unchanged()
        }
        TabEvent::Crashed => {
            state.crashed = true;
            Reduced::changed()
        }
        TabEvent::Detached => {
            state.detached = true;
            Reduced::changed()
        }
        TabEvent::RequestStarted => {
            state.inflight += 1;
            Reduced::changed()
        }
        TabEvent::RequestEnded => {
            state.inflight = (state.inflight - 1).max(0);
            Reduced::changed()
        }
        TabEvent::UrlProbed {
            url,
            only_if_unknown,
        } => {
            if !only_if_unknown || state.url.is_empty() {
                state.url = url;
            }
            Reduced::changed()
        }
        TabEvent::FrameTreeRead { loader_id, url } => {
            if state.loader_id.is_empty() {
                state.loader_id = loader_id;
            }
            if !url.is_empty() {
                state.url = url;
            }
            Reduced::changed()
        }
        TabEvent::DialogProbed(dialog) => {
            state.dialog = dialog.clone();
            let reduced = Reduced::changed();
            match dialog {
                Some(dialog) => reduced.with(Effect::Dialog(DialogEvent::Opened { dialog })),
                None => reduced,
            }
        }
        TabEvent::AnswerSent { by } => {
            state.closing_by = Some(by);
            Reduced::changed()
        }
        TabEvent::AnswerFailed => {
            state.closing_by = None;
            Reduced::changed()
        }
        TabEvent::Answered {
            accepted,
            user_input,
            by,
        } => close_dialog(state, accepted, user_input, by),
    }
}

/// Renders console arguments the way DevTools does for primitives and short previews. The one
/// formatter of console messages: `console`, the live view and the library all read its text.
pub(crate) fn render_args(args: &[Value]) -> String {
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
        .map(Vec::as_slice)
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TAB: &str = "MAIN";

    fn ctx(auto_dialog: bool) -> Context<'static> {
        Context {
            target_id: TAB,
            auto_dialog,
            now_ms: 42,
        }
    }

    /// A CDP event as Chrome 156 sends it, decoded as the pump decodes it.
    fn cdp(method: &str, params: Value) -> TabEvent {
        let text = json!({"method": method, "params": params}).to_string();
        let event = Event::from_message(text).expect("an event message");
        TabEvent::from_cdp(&event, &mut Vec::new()).expect("a tab event")
    }

    fn frame(id: &str, parent: Option<&str>, loader: &str, url: &str) -> Value {
        let mut frame = json!({
            "id": id, "loaderId": loader, "url": url, "domainAndRegistry": "", "securityOrigin": "://",
            "mimeType": "text/html", "secureContextType": "InsecureScheme",
            "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": [],
        });
        if let Some(parent) = parent {
            frame["parentId"] = json!(parent);
        }
        frame
    }

    fn navigated(parent: Option<&str>, loader: &str, url: &str) -> TabEvent {
        let id = if parent.is_some() { "CHILD" } else { TAB };
        cdp(
            "Page.frameNavigated",
            json!({"frame": frame(id, parent, loader, url), "type": "Navigation"}),
        )
    }

    fn dialog_opening(kind: &str) -> TabEvent {
        cdp(
            "Page.javascriptDialogOpening",
            json!({"url": "http://a/", "frameId": TAB, "message": "sure?", "type": kind,
                   "hasBrowserHandler": true, "defaultPrompt": ""}),
        )
    }

    #[test]
    fn a_main_frame_navigation_counts_a_new_document_and_tells_page_listeners() {
        let mut st = TabState::default();
        let r = reduce(&mut st, navigated(None, "L1", "http://a/x"), &ctx(true));
        assert!(r.changed);
        assert_eq!(
            r.effects,
            vec![Effect::Page(PageEvent::Navigated {
                url: "http://a/x".into()
            })]
        );
        assert_eq!(
            (st.url.as_str(), st.loader_id.as_str(), st.documents),
            ("http://a/x", "L1", 1)
        );
        // The same document again (a history restore of it) is not a new one.
        reduce(&mut st, navigated(None, "L1", "http://a/x"), &ctx(true));
        assert_eq!(st.documents, 1);
        // A child frame changes nothing.
        let r = reduce(&mut st, navigated(Some(TAB), "L9", "http://b/"), &ctx(true));
        assert_eq!(r, Reduced::unchanged());
        assert_eq!(st.url, "http://a/x");
    }

    fn context_created(id: i64, unique: &str, name: &str, frame: &str, default: bool) -> TabEvent {
        let kind = if default { "default" } else { "isolated" };
        cdp(
            "Runtime.executionContextCreated",
            json!({"context": {"id": id, "origin": "http://a", "name": name, "uniqueId": unique,
                   "auxData": {"isDefault": default, "type": kind, "frameId": frame}}}),
        )
    }

    #[test]
    fn the_snapshot_world_is_kept_per_frame_with_the_document_it_was_reported_in() {
        let mut st = TabState::default();
        reduce(&mut st, navigated(None, "L1", "http://a/x"), &ctx(true));
        let world = crate::snapshot::watch::WORLD;
        reduce(&mut st, context_created(1, "u1", "", TAB, true), &ctx(true));
        reduce(
            &mut st,
            context_created(2, "u2", world, TAB, false),
            &ctx(true),
        );
        reduce(
            &mut st,
            context_created(3, "u3", world, "CHILD", false),
            &ctx(true),
        );
        // Another isolated world (a page-setup script's, DevTools') is not the snapshot's.
        let other = json!({"method": "Runtime.executionContextCreated", "params": {"context": {
            "id": 4, "origin": "http://a", "name": "other", "uniqueId": "u4",
            "auxData": {"isDefault": false, "type": "isolated", "frameId": TAB}}}});
        let other = Event::from_message(other.to_string()).expect("an event message");
        assert!(TabEvent::from_cdp(&other, &mut Vec::new()).is_none());
        assert_eq!(st.frame_contexts.get(TAB), Some(&(1, "u1".to_string())));
        assert_eq!(
            st.snapshot_worlds.get(TAB),
            Some(&(2, "u2".to_string(), "L1".to_string()))
        );
        assert_eq!(st.snapshot_worlds.get("CHILD").map(|w| w.0), Some(3));
        assert_eq!(st.snapshot_worlds.len(), 2);
        // Its end forgets it; the end of another context does not.
        let destroyed = |unique: &str| {
            cdp(
                "Runtime.executionContextDestroyed",
                json!({"executionContextId": 9, "executionContextUniqueId": unique}),
            )
        };
        // A world made or gone is a document made or gone: a watched page changed.
        let pushes = st.snapshot_pushes;
        assert_eq!(pushes, 2, "two worlds made");
        reduce(&mut st, destroyed("u3"), &ctx(true));
        assert_eq!(st.snapshot_pushes, pushes + 1);
        reduce(&mut st, destroyed("u9"), &ctx(true));
        assert_eq!(st.snapshot_pushes, pushes + 1, "not a snapshot world");
        assert!(!st.snapshot_worlds.contains_key("CHILD"));
        assert!(st.snapshot_worlds.contains_key(TAB));
        let cleared = cdp("Runtime.executionContextsCleared", json!({}));
        reduce(&mut st, cleared, &ctx(true));
        assert!(st.snapshot_worlds.is_empty() && st.frame_contexts.is_empty());
    }

    #[test]
    fn a_snapshot_watcher_push_is_counted_and_other_bindings_are_not() {
        let mut st = TabState::default();
        let called = |name: &str| {
            json!({"method": "Runtime.bindingCalled",
                   "params": {"name": name, "payload": "", "executionContextId": 3}})
        };
        let ours = Event::from_message(called(crate::snapshot::watch::BINDING).to_string())
            .expect("an event message");
        let event = TabEvent::from_cdp(&ours, &mut Vec::new()).expect("a tab event");
        assert_eq!(reduce(&mut st, event, &ctx(true)), Reduced::unchanged());
        let event = TabEvent::from_cdp(&ours, &mut Vec::new()).expect("a tab event");
        reduce(&mut st, event, &ctx(true));
        assert_eq!(st.snapshot_pushes, 2);
        let theirs = Event::from_message(called("pageBinding").to_string()).expect("a message");
        assert!(TabEvent::from_cdp(&theirs, &mut Vec::new()).is_none());
    }

    #[test]
    fn a_url_fragment_is_part_of_the_url() {
        let mut st = TabState::default();
        let mut f = frame(TAB, None, "L1", "http://a/x");
        f["urlFragment"] = json!("#top");
        reduce(
            &mut st,
            cdp(
                "Page.frameNavigated",
                json!({"frame": f, "type": "Navigation"}),
            ),
            &ctx(true),
        );
        assert_eq!(st.url, "http://a/x#top");
    }

    #[test]
    fn a_requested_navigation_and_its_start_count_as_one_load() {
        let mut st = TabState::default();
        let requested = |disposition: &str| {
            cdp(
                "Page.frameRequestedNavigation",
                json!({"frameId": TAB, "reason": "anchorClick", "url": "http://a/2", "disposition": disposition}),
            )
        };
        reduce(&mut st, requested("newTab"), &ctx(true));
        assert_eq!(
            st.navigation_starts, 0,
            "a new-tab navigation does not move this tab"
        );
        reduce(&mut st, requested("currentTab"), &ctx(true));
        assert!(st.loading);
        reduce(
            &mut st,
            cdp("Page.frameStartedLoading", json!({"frameId": TAB})),
            &ctx(true),
        );
        assert_eq!(st.navigation_starts, 1);
        reduce(
            &mut st,
            cdp("Page.frameStoppedLoading", json!({"frameId": TAB})),
            &ctx(true),
        );
        assert!(!st.loading);
        // A start without a request (a reload from the page) is a load of its own.
        reduce(
            &mut st,
            cdp("Page.frameStartedLoading", json!({"frameId": TAB})),
            &ctx(true),
        );
        assert_eq!(st.navigation_starts, 2);
        // Child frames are not the tab.
        let r = reduce(
            &mut st,
            cdp("Page.frameStoppedLoading", json!({"frameId": "CHILD"})),
            &ctx(true),
        );
        assert!(!r.changed && st.loading);
    }

    #[test]
    fn lifecycle_events_of_the_main_frame_are_kept_bounded() {
        let mut st = TabState::default();
        for i in 0..(MAX_LIFECYCLE + 5) {
            reduce(
                &mut st,
                cdp(
                    "Page.lifecycleEvent",
                    json!({"frameId": TAB, "loaderId": "L1", "name": format!("e{i}"), "timestamp": 1.0}),
                ),
                &ctx(true),
            );
        }
        assert_eq!(st.lifecycle.len(), MAX_LIFECYCLE);
        assert!(st.has_lifecycle("L1", &format!("e{}", MAX_LIFECYCLE + 4)));
        assert!(!st.has_lifecycle("L1", "e0"));
        let r = reduce(
            &mut st,
            cdp(
                "Page.lifecycleEvent",
                json!({"frameId": "CHILD", "loaderId": "L2", "name": "load", "timestamp": 1.0}),
            ),
            &ctx(true),
        );
        assert!(!r.changed && !st.has_lifecycle("L2", "load"));
    }

    #[test]
    fn a_back_forward_cache_restore_counts_as_loaded_after_its_first_load_left_the_log() {
        let mut st = TabState::default();
        let lifecycle = |loader: &str, name: &str| {
            cdp(
                "Page.lifecycleEvent",
                json!({"frameId": TAB, "loaderId": loader, "name": name, "timestamp": 1.0}),
            )
        };
        reduce(&mut st, navigated(None, "P", "http://a/p1"), &ctx(true));
        reduce(&mut st, lifecycle("P", "load"), &ctx(true));
        // Dozens of later navigations push P's `load` out of the bounded log.
        for i in 0..MAX_LIFECYCLE {
            reduce(&mut st, lifecycle(&format!("L{i}"), "load"), &ctx(true));
        }
        assert!(!st.has_lifecycle("P", "load"));
        // `back` restores P from the cache: Chrome sends frameNavigated, no lifecycle events.
        let f = frame(TAB, None, "P", "http://a/p1");
        reduce(
            &mut st,
            cdp(
                "Page.frameNavigated",
                json!({"frame": f, "type": "BackForwardCacheRestore"}),
            ),
            &ctx(true),
        );
        assert_eq!(st.loader_id, "P");
        assert!(st.has_lifecycle("P", "load"));
        assert!(st.has_lifecycle("P", "networkIdle"));
    }

    #[test]
    fn an_alert_is_accepted_at_once_and_a_confirm_waits() {
        let mut st = TabState::default();
        let r = reduce(&mut st, dialog_opening("alert"), &ctx(true));
        assert!(!r.changed && st.dialog.is_none());
        assert_eq!(r.effects[0], Effect::AcceptDialog);
        assert!(
            matches!(&r.effects[1], Effect::Dialog(DialogEvent::Closed { by, accepted: true, .. }) if by == "auto")
        );

        let r = reduce(&mut st, dialog_opening("confirm"), &ctx(true));
        let dialog = st.dialog.clone().expect("pending");
        assert_eq!(
            (dialog.kind.as_str(), dialog.message.as_str()),
            ("confirm", "sure?")
        );
        assert!(dialog.answerable);
        assert_eq!(dialog.opened_at_ms, 42);
        assert_eq!(
            r.effects,
            vec![Effect::Dialog(DialogEvent::Opened { dialog })]
        );

        // Without auto-accept, an alert waits too.
        let mut st = TabState::default();
        let r = reduce(&mut st, dialog_opening("alert"), &ctx(false));
        assert!(st.dialog.is_some() && !r.effects.contains(&Effect::AcceptDialog));
    }

    #[test]
    fn a_dialog_closes_once_and_names_who_answered() {
        let mut st = TabState::default();
        reduce(&mut st, dialog_opening("prompt"), &ctx(true));
        reduce(
            &mut st,
            TabEvent::AnswerSent {
                by: "viewer".into(),
            },
            &ctx(true),
        );
        let ours = reduce(
            &mut st,
            TabEvent::Answered {
                accepted: true,
                user_input: "Ada".into(),
                by: "viewer".into(),
            },
            &ctx(true),
        );
        assert_eq!(
            ours.effects,
            vec![Effect::Dialog(DialogEvent::Closed {
                accepted: true,
                user_input: "Ada".into(),
                by: "viewer".into()
            })]
        );
        // Chrome's own close event follows: no second close.
        let chrome = reduce(
            &mut st,
            cdp(
                "Page.javascriptDialogClosed",
                json!({"frameId": TAB, "result": true, "userInput": "Ada"}),
            ),
            &ctx(true),
        );
        assert!(chrome.effects.is_empty());
        assert!(st.closing_by.is_none() && st.dialog.is_none());

        // Closed by the page itself (navigation): `page`.
        reduce(&mut st, dialog_opening("confirm"), &ctx(true));
        let r = reduce(
            &mut st,
            cdp(
                "Page.javascriptDialogClosed",
                json!({"frameId": TAB, "result": false, "userInput": ""}),
            ),
            &ctx(true),
        );
        assert!(
            matches!(&r.effects[0], Effect::Dialog(DialogEvent::Closed { by, accepted: false, .. }) if by == "page")
        );
    }

    #[test]
    fn a_close_event_that_does_not_decode_still_closes_the_dialog() {
        let mut st = TabState::default();
        reduce(&mut st, dialog_opening("confirm"), &ctx(true));
        let r = reduce(
            &mut st,
            cdp("Page.javascriptDialogClosed", json!({"unexpected": true})),
            &ctx(true),
        );
        assert!(st.dialog.is_none());
        assert_eq!(r.effects.len(), 1);
    }

    #[test]
    fn console_messages_are_rendered_once_and_reach_page_listeners() {
        let mut st = TabState::default();
        let args = json!([
            {"type": "string", "value": "hello"},
            {"type": "object", "className": "Object", "description": "Object",
             "preview": {"type": "object", "overflow": false, "properties": [{"name": "a", "type": "number", "value": "1"}]}},
            {"type": "number", "unserializableValue": "NaN", "description": "NaN"},
            {"type": "object", "subtype": "array", "description": "Array(1)",
             "preview": {"type": "object", "subtype": "array", "overflow": false, "properties": [{"name": "0", "type": "number", "value": "7"}]}},
        ]);
        let r = reduce(
            &mut st,
            cdp(
                "Runtime.consoleAPICalled",
                json!({"type": "warning", "args": args, "executionContextId": 1, "timestamp": 1.5}),
            ),
            &ctx(true),
        );
        let message = st.console.back().cloned().expect("kept");
        assert_eq!(message.text, "hello {a: 1} NaN [0: 7]");
        assert_eq!(message.kind, "warning");
        assert_eq!(
            message.args,
            args.as_array().cloned().unwrap_or_default(),
            "args as sent"
        );
        assert!(
            matches!(&r.effects[0], Effect::Page(PageEvent::Console(m)) if m.text == message.text)
        );
    }

    #[test]
    fn uncaught_errors_keep_their_description_and_position() {
        let mut st = TabState::default();
        reduce(
            &mut st,
            cdp(
                "Runtime.exceptionThrown",
                json!({"timestamp": 1.0, "exceptionDetails": {"exceptionId": 1, "text": "Uncaught",
                       "lineNumber": 12, "columnNumber": 3, "url": "http://a/app.js",
                       "exception": {"type": "object", "subtype": "error", "description": "Error: boom\n    at x"}}}),
            ),
            &ctx(true),
        );
        let error = st.errors.back().cloned().expect("kept");
        assert_eq!(error.text, "Error: boom\n    at x");
        assert_eq!(
            (error.line, error.column, error.url.as_str()),
            (12, 3, "http://a/app.js")
        );
        // No exception object: the text.
        reduce(
            &mut st,
            cdp(
                "Runtime.exceptionThrown",
                json!({"timestamp": 1.0, "exceptionDetails": {"exceptionId": 2, "text": "Script error.", "lineNumber": 0, "columnNumber": 0}}),
            ),
            &ctx(true),
        );
        assert_eq!(
            st.errors.back().map(|e| e.text.as_str()),
            Some("Script error.")
        );
    }

    #[test]
    fn crash_detach_and_request_counting() {
        let mut st = TabState::default();
        reduce(
            &mut st,
            cdp("Network.requestWillBeSent", json!({})),
            &ctx(true),
        );
        reduce(&mut st, cdp("Network.loadingFailed", json!({})), &ctx(true));
        reduce(
            &mut st,
            cdp("Network.loadingFinished", json!({})),
            &ctx(true),
        );
        assert_eq!(st.inflight, 0, "never negative");
        reduce(
            &mut st,
            cdp("Inspector.targetCrashed", json!({})),
            &ctx(true),
        );
        reduce(
            &mut st,
            cdp("Inspector.detached", json!({"reason": "target_closed"})),
            &ctx(true),
        );
        assert!(st.crashed && st.detached);
        let text =
            json!({"method": "Page.loadEventFired", "params": {"timestamp": 1.0}}).to_string();
        let other = Event::from_message(text).expect("event");
        assert!(TabEvent::from_cdp(&other, &mut Vec::new()).is_none());
    }

    #[test]
    fn an_event_that_does_not_decode_is_skipped_and_logged_once() {
        let text =
            json!({"method": "Page.frameNavigated", "params": {"frame": {"id": 1}}}).to_string();
        let event = Event::from_message(text).expect("event");
        let mut failed = Vec::new();
        assert!(TabEvent::from_cdp(&event, &mut failed).is_none());
        assert!(TabEvent::from_cdp(&event, &mut failed).is_none());
        assert_eq!(failed, ["Page.frameNavigated"]);
    }

    #[test]
    fn probes_fill_in_what_events_did_not_report() {
        let mut st = TabState::default();
        reduce(
            &mut st,
            TabEvent::UrlProbed {
                url: "http://a/".into(),
                only_if_unknown: true,
            },
            &ctx(true),
        );
        reduce(
            &mut st,
            TabEvent::UrlProbed {
                url: "http://b/".into(),
                only_if_unknown: true,
            },
            &ctx(true),
        );
        assert_eq!(st.url, "http://a/");
        reduce(
            &mut st,
            TabEvent::FrameTreeRead {
                loader_id: "L7".into(),
                url: String::new(),
            },
            &ctx(true),
        );
        assert_eq!(
            (st.url.as_str(), st.loader_id.as_str()),
            ("http://a/", "L7")
        );
    }
}
