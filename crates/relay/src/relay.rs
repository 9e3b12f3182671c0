//! The relay core: one screencast of one session's streamed tab, fanned out to any number of
//! viewers.
//!
//! A controller task decides what to stream: nothing while no viewer is attached; otherwise the
//! session's active tab, or a popup that tab opened (until it closes). When that choice changes
//! it stops the old cast and starts a new one. A cast task per tab starts `Page.startScreencast`
//! on the tab's own CDP session (the one that enabled `Page` when the session attached, so it
//! sees and can answer every dialog), acknowledges every frame the moment it arrives (viewers
//! never slow Chrome), wraps it once into the wire message and puts it in the latest-wins slot,
//! and turns the tab's events into [`LiveEvent`]s.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use abx_cdp::protocol::browser_protocol::{emulation, page};
use abx_cdp::{Command, EventFilter, Method, MethodId};
use abx_engine::{Dialog, DialogEvent, PageEvent, Session, Tab, TabListing};
use serde::Serialize;
use tokio::sync::{Notify, broadcast, watch};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::error::RelayError;
use crate::frame::{Frame, FrameReceiver, FrameSlot};
use crate::input::Input;
use crate::protocol::{LiveEvent, RetargetReason, Status, now_ms};

/// How the relay screencasts.
///
/// ```
/// let options = abx_relay::RelayOptions { quality: 60, max_width: Some(800), ..Default::default() };
/// assert!(options.follow_popups && options.activate_hidden_tab);
/// ```
#[derive(Clone, Debug)]
pub struct RelayOptions {
    /// JPEG quality 0–100 (`AGENT_BROWSER_STREAM_QUALITY`, default 80).
    pub quality: u8,
    /// Frame width cap in pixels (`AGENT_BROWSER_STREAM_MAX_WIDTH`); `None` = the viewport.
    pub max_width: Option<u32>,
    /// Frame height cap in pixels (`AGENT_BROWSER_STREAM_MAX_HEIGHT`); `None` = the viewport.
    pub max_height: Option<u32>,
    /// Chrome's unacknowledged-frame window (`maxFramesInFlight`, Chrome 128+); `None` keeps
    /// Chrome's default (3). Frames are acknowledged on receipt, so the window only fills when
    /// this process is starved of CPU; then a smaller window drops frames at the source instead
    /// of queueing them.
    pub max_frames_in_flight: Option<u32>,
    /// Follow popups the streamed tab opens (`retarget` to the popup, back when it closes).
    pub follow_popups: bool,
    /// While a tab is streamed, tell Chrome to treat it as focused and visible
    /// (`Emulation.setFocusEmulationEnabled` on the tab's own session, turned off when the cast
    /// stops). A background tab then paints and screencasts at its own rate although another tab
    /// of its window is in front, so every stage tab of a shared anchor can be watched at once
    /// (ADR 0009). The page sees `visibilityState == "visible"` while it is watched.
    pub emulate_focus: bool,
    /// When Chrome reports the streamed tab hidden (a background tab renders no frames), bring
    /// it to the front once per cast. In a window shared with other tabs this hides the tab that
    /// was in front; with [`RelayOptions::emulate_focus`] Chrome does not report it hidden.
    pub activate_hidden_tab: bool,
    /// How long a viewer waits for Chrome's first frame before the relay nudges Chrome once.
    pub first_frame_grace: Duration,
    /// Capacity of the event channel; a viewer that falls further behind skips events (and is
    /// resynchronized with a fresh status, tabs and dialog).
    pub event_capacity: usize,
}

impl Default for RelayOptions {
    fn default() -> Self {
        Self {
            quality: 80,
            max_width: None,
            max_height: None,
            max_frames_in_flight: None,
            follow_popups: true,
            emulate_focus: true,
            activate_hidden_tab: true,
            first_frame_grace: Duration::from_millis(60),
            event_capacity: 1024,
        }
    }
}

impl RelayOptions {
    /// `Page.startScreencast` parameters.
    pub(crate) fn screencast_params(&self) -> StartScreencast {
        StartScreencast {
            format: page::StartScreencastFormat::Jpeg,
            quality: self.quality.min(100).into(),
            every_nth_frame: 1,
            max_width: self.max_width.map(i64::from),
            max_height: self.max_height.map(i64::from),
            max_frames_in_flight: self.max_frames_in_flight.map(|w| i64::from(w.max(1))),
        }
    }
}

/// `Page.startScreencast` with Chrome 156's `maxFramesInFlight`, which the pinned protocol types
/// (`page::StartScreencastParams`) lack: our own command, under the generated method name.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StartScreencast {
    format: page::StartScreencastFormat,
    quality: i64,
    every_nth_frame: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_width: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_height: Option<i64>,
    /// How many frames Chrome sends before it waits for an acknowledgement (Chrome's default 3).
    #[serde(skip_serializing_if = "Option::is_none")]
    max_frames_in_flight: Option<i64>,
}

impl Method for StartScreencast {
    fn identifier(&self) -> MethodId {
        page::StartScreencastParams::IDENTIFIER.into()
    }
}

impl Command for StartScreencast {
    type Response = page::StartScreencastReturns;
}

struct Popup {
    tab: Arc<Tab>,
    opener: String,
}

struct CastInfo {
    target_id: Arc<str>,
    tab: Arc<Tab>,
    generation: u64,
    want_frame: Arc<Notify>,
}

struct State {
    session: Option<Arc<Session>>,
    popup: Option<Popup>,
    cast: Option<CastInfo>,
    generation: u64,
    status: Status,
    next_reason: Option<RetargetReason>,
    last_tabs: Vec<TabListing>,
    /// A reopen is in progress: listing tabs now would number the half-made replacement.
    reopening: bool,
}

impl Default for State {
    fn default() -> Self {
        Self {
            session: None,
            popup: None,
            cast: None,
            generation: 0,
            // Upstream's assumed viewport until the first frame reports the real one.
            status: Status {
                viewport_width: 1280,
                viewport_height: 720,
                ..Status::default()
            },
            next_reason: None,
            last_tabs: Vec::new(),
            reopening: false,
        }
    }
}

pub(crate) struct Shared {
    options: RelayOptions,
    state: Mutex<State>,
    frames: FrameSlot,
    events: broadcast::Sender<LiveEvent>,
    wake: Notify,
    viewers: AtomicUsize,
    stop: CancellationToken,
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn emit(&self, event: LiveEvent) {
        // No receiver is fine: nobody is watching.
        let _ = self.events.send(event);
    }

    fn update_status(&self, change: impl FnOnce(&mut Status)) {
        let changed = {
            let mut state = self.state();
            let before = state.status.clone();
            change(&mut state.status);
            (state.status != before).then(|| state.status.clone())
        };
        if let Some(status) = changed {
            self.emit(LiveEvent::Status(status));
        }
    }

    /// Publishes a frame of the cast `generation`; frames of a cast that was replaced are dropped.
    fn publish_frame(&self, generation: u64, frame: Frame) {
        let width = frame.metadata().device_width.round().max(0.0) as u32;
        let height = frame.metadata().device_height.round().max(0.0) as u32;
        let status = {
            let mut state = self.state();
            if state.cast.as_ref().map(|c| c.generation) != Some(generation) {
                return;
            }
            let before = state.status.clone();
            if width > 0 && height > 0 {
                state.status.viewport_width = width;
                state.status.viewport_height = height;
            }
            state.status.visible = true;
            self.frames.publish(frame);
            (state.status != before).then(|| state.status.clone())
        };
        if let Some(status) = status {
            self.emit(LiveEvent::Status(status));
        }
    }

    fn session(&self) -> Option<Arc<Session>> {
        self.state().session.clone()
    }

    /// The tab input and dialog answers go to: the streamed tab, else the session's active tab.
    fn input_tab(&self) -> Result<Arc<Tab>, RelayError> {
        let (cast, session) = {
            let state = self.state();
            (
                state.cast.as_ref().map(|c| c.tab.clone()),
                state.session.clone(),
            )
        };
        if let Some(tab) = cast.filter(|t| !t.read(|st| st.detached)) {
            return Ok(tab);
        }
        let session = session.ok_or(RelayError::NoBrowser)?;
        session
            .active_target()
            .and_then(|id| session.attached_tab(&id))
            .filter(|t| !t.read(|st| st.detached))
            .ok_or(RelayError::NoTab)
    }

    fn tabs(&self) -> Vec<TabListing> {
        self.session().map(|s| s.tabs()).unwrap_or_default()
    }
}

/// The relay of one session: screencast, fan-out, input, dialogs, tabs.
///
/// Cheap to clone; the controller task stops when the last clone is dropped. Must be created
/// inside a tokio runtime.
///
/// ```no_run
/// # async fn demo(session: std::sync::Arc<abx_engine::Session>) {
/// let relay = abx_relay::Relay::new(abx_relay::RelayOptions::default());
/// relay.set_session(Some(session));
/// let viewer = relay.viewer(); // the screencast runs while a viewer exists
/// let mut frames = viewer.frames();
/// let frame = frames.next().await;
/// # }
/// ```
#[derive(Clone)]
pub struct Relay {
    handle: Arc<Handle>,
}

struct Handle {
    shared: Arc<Shared>,
    controller: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.stop.cancel();
    }
}

impl std::fmt::Debug for Relay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relay")
            .field("viewers", &self.viewers())
            .field("status", &self.status())
            .finish()
    }
}

impl Relay {
    /// A relay with no session yet (see [`Relay::set_session`]).
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// let relay = abx_relay::Relay::new(abx_relay::RelayOptions::default());
    /// assert!(relay.session().is_none() && relay.tabs().is_empty());
    /// assert!(!relay.status().connected);
    /// # }
    /// ```
    pub fn new(options: RelayOptions) -> Relay {
        let (events, _) = broadcast::channel(options.event_capacity.max(16));
        let shared = Arc::new(Shared {
            options,
            state: Mutex::new(State::default()),
            frames: FrameSlot::new(),
            events,
            wake: Notify::new(),
            viewers: AtomicUsize::new(0),
            stop: CancellationToken::new(),
        });
        let controller = tokio::spawn(control(shared.clone()));
        Relay {
            handle: Arc::new(Handle {
                shared,
                controller: Mutex::new(Some(controller)),
            }),
        }
    }

    fn shared(&self) -> &Arc<Shared> {
        &self.handle.shared
    }

    /// Sets (or clears) the session whose active tab is streamed. Called again whenever the
    /// session's active tab may have changed; the relay follows it.
    ///
    /// ```no_run
    /// # fn demo(relay: &abx_relay::Relay, session: std::sync::Arc<abx_engine::Session>) {
    /// relay.set_session(Some(session)); // after a launch, `tab new`, `tab <ref>`...
    /// relay.set_session(None); // the browser closed: screencast stops, status says so
    /// # }
    /// ```
    pub fn set_session(&self, session: Option<Arc<Session>>) {
        let shared = self.shared();
        {
            let mut state = shared.state();
            let same = match (&state.session, &session) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            };
            if !same && let Some(old) = state.popup.take() {
                release_popup(old.tab);
            }
            state.session = session;
        }
        shared.wake.notify_one();
    }

    /// The session, if one is set.
    ///
    /// ```no_run
    /// # fn demo(relay: &abx_relay::Relay) {
    /// if let Some(session) = relay.session() { println!("{:?}", session.active_target()); }
    /// # }
    /// ```
    pub fn session(&self) -> Option<Arc<Session>> {
        self.shared().session()
    }

    /// Registers a viewer: the screencast runs while at least one [`Viewer`] exists.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// let relay = abx_relay::Relay::new(Default::default());
    /// let viewer = relay.viewer();
    /// assert_eq!(relay.viewers(), 1);
    /// drop(viewer);
    /// assert_eq!(relay.viewers(), 0);
    /// # }
    /// ```
    pub fn viewer(&self) -> Viewer {
        Viewer::new(self.shared().clone())
    }

    /// How many viewers are attached.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// assert_eq!(abx_relay::Relay::new(Default::default()).viewers(), 0);
    /// # }
    /// ```
    pub fn viewers(&self) -> usize {
        self.shared().viewers.load(Ordering::Relaxed)
    }

    /// The current status.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// let status = abx_relay::Relay::new(Default::default()).status();
    /// assert_eq!((status.viewport_width, status.viewport_height), (1280, 720)); // until a frame says
    /// # }
    /// ```
    pub fn status(&self) -> Status {
        self.shared().state().status.clone()
    }

    /// The session's tabs (no CDP call; titles as last reported).
    ///
    /// ```no_run
    /// # fn demo(relay: &abx_relay::Relay) {
    /// for tab in relay.tabs() { println!("{} {} {}", tab.tab_id, tab.title, tab.url); }
    /// # }
    /// ```
    pub fn tabs(&self) -> Vec<TabListing> {
        self.shared().tabs()
    }

    /// The dialog pending on the streamed tab, if any.
    ///
    /// ```no_run
    /// # fn demo(relay: &abx_relay::Relay) {
    /// if let Some(dialog) = relay.dialog() { println!("{}: {}", dialog.kind, dialog.message); }
    /// # }
    /// ```
    pub fn dialog(&self) -> Option<Dialog> {
        self.shared().input_tab().ok().and_then(|t| t.dialog())
    }

    /// The newest frame, if any.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// assert!(abx_relay::Relay::new(Default::default()).latest_frame().is_none());
    /// # }
    /// ```
    pub fn latest_frame(&self) -> Option<Frame> {
        self.shared().frames.latest()
    }

    /// A latest-wins frame receiver (it does not count as a viewer; see [`Relay::viewer`]).
    ///
    /// ```no_run
    /// # async fn demo(relay: &abx_relay::Relay) {
    /// let _watching = relay.viewer();
    /// let mut frames = relay.frames();
    /// while let Some(frame) = frames.next().await { println!("{}", frame.seq()); }
    /// # }
    /// ```
    pub fn frames(&self) -> FrameReceiver {
        self.shared().frames.subscribe()
    }

    /// Events (status, tabs, url, console, dialogs, retarget...).
    ///
    /// ```no_run
    /// # async fn demo(relay: &abx_relay::Relay) {
    /// let mut events = relay.events();
    /// while let Ok(event) = events.recv().await { println!("{}", event.to_json()); }
    /// # }
    /// ```
    pub fn events(&self) -> broadcast::Receiver<LiveEvent> {
        self.shared().events.subscribe()
    }

    /// Sends an event to every viewer (the daemon uses it for `command` and `result`).
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// let relay = abx_relay::Relay::new(Default::default());
    /// let mut events = relay.events();
    /// relay.publish(abx_relay::LiveEvent::Error { message: "maintenance".into() });
    /// assert!(matches!(events.recv().await, Ok(abx_relay::LiveEvent::Error { .. })));
    /// # }
    /// ```
    pub fn publish(&self, event: LiveEvent) {
        self.shared().emit(event);
    }

    /// Whether anything receives the events [`Relay::publish`] sends (a viewer, a recorder):
    /// a caller can skip building an event nobody would read, such as a large command result.
    pub fn has_listeners(&self) -> bool {
        self.shared().events.receiver_count() > 0
    }

    /// Sends the session's tabs to every viewer.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// let relay = abx_relay::Relay::new(Default::default());
    /// let mut events = relay.events();
    /// relay.publish_tabs();
    /// assert!(matches!(events.recv().await, Ok(abx_relay::LiveEvent::Tabs { .. })));
    /// # }
    /// ```
    pub fn publish_tabs(&self) {
        let tabs = self.tabs();
        self.shared().state().last_tabs = tabs.clone();
        self.shared().emit(LiveEvent::Tabs {
            tabs,
            timestamp: now_ms(),
        });
    }

    /// Sends one input event to the streamed tab without waiting for Chrome's reply; events sent
    /// through one caller reach Chrome in call order.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// use abx_relay::{Input, MouseInput, RelayError};
    /// let relay = abx_relay::Relay::new(Default::default());
    /// let moved = relay.send_input(&Input::Mouse(MouseInput::default())).await;
    /// assert!(matches!(moved, Err(RelayError::NoBrowser)));
    /// # }
    /// ```
    pub async fn send_input(&self, input: &Input) -> Result<(), RelayError> {
        let tab = self.shared().input_tab()?;
        tab.send_input(&input.to_event()?).await?;
        Ok(())
    }

    /// Sends input events to the streamed tab in order and waits until Chrome has handled the
    /// last one, or until one of them opened a dialog (`Ok(true)`).
    ///
    /// ```no_run
    /// # async fn demo(relay: &abx_relay::Relay) -> Result<(), abx_relay::RelayError> {
    /// use abx_relay::{Input, MouseInput};
    /// let dialog_opened = relay.deliver_inputs(&[
    ///     Input::Mouse(MouseInput::left("mousePressed", 10.0, 10.0)),
    ///     Input::Mouse(MouseInput::left("mouseReleased", 10.0, 10.0)),
    /// ]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn deliver_inputs(&self, inputs: &[Input]) -> Result<bool, RelayError> {
        let tab = self.shared().input_tab()?;
        let events = inputs
            .iter()
            .map(Input::to_event)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(tab.deliver_inputs(&events, INPUT_DELIVERY_TIMEOUT).await?)
    }

    /// Answers the dialog pending on the streamed tab (`by` = `viewer` in the dialog events).
    ///
    /// ```no_run
    /// # async fn demo(relay: &abx_relay::Relay) -> Result<(), abx_relay::RelayError> {
    /// relay.answer_dialog(true, Some("Ada")).await?; // OK on a prompt, with text
    /// # Ok(()) }
    /// ```
    pub async fn answer_dialog(
        &self,
        accept: bool,
        prompt_text: Option<&str>,
    ) -> Result<(), RelayError> {
        let tab = self.shared().input_tab()?;
        tab.answer_dialog(accept, prompt_text, "viewer").await?;
        Ok(())
    }

    /// Replaces the session's tab with a fresh one at the same URL
    /// ([`abx_engine::Session::reopen_tab`]); viewers get `retarget` (reason `reopened`),
    /// `status` and `tabs`.
    ///
    /// ```no_run
    /// # async fn demo(relay: &abx_relay::Relay) -> Result<(), abx_relay::RelayError> {
    /// let tab = relay.reopen_tab().await?;
    /// println!("now on {} at {}", tab.target_id, tab.url);
    /// # Ok(()) }
    /// ```
    pub async fn reopen_tab(&self) -> Result<TabListing, RelayError> {
        let shared = self.shared();
        let session = shared.session().ok_or(RelayError::NoBrowser)?;
        {
            let mut state = shared.state();
            if let Some(old) = state.popup.take() {
                release_popup(old.tab);
            }
            state.next_reason = Some(RetargetReason::Reopened);
            state.reopening = true;
        }
        let result = session.reopen_tab().await;
        {
            let mut state = shared.state();
            state.reopening = false;
            if result.is_err() {
                state.next_reason = None;
            }
        }
        let listing = result?;
        shared.wake.notify_one();
        self.publish_tabs();
        Ok(listing)
    }

    /// Stops streaming and ends the controller (also happens when the last clone is dropped).
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// let relay = abx_relay::Relay::new(Default::default());
    /// relay.shutdown();
    /// # }
    /// ```
    pub fn shutdown(&self) {
        self.shared().stop.cancel();
    }

    /// [`Relay::shutdown`], then waits (bounded) until the screencast is stopped.
    ///
    /// ```
    /// # #[tokio::main] async fn main() {
    /// abx_relay::Relay::new(Default::default()).stop().await;
    /// # }
    /// ```
    pub async fn stop(&self) {
        self.shutdown();
        let task = self
            .handle
            .controller
            .lock()
            .ok()
            .and_then(|mut t| t.take());
        if let Some(task) = task {
            let _ = tokio::time::timeout(Duration::from_secs(3), task).await;
        }
    }
}

/// A registered viewer; the screencast runs while at least one exists.
///
/// Dropping it unregisters the viewer (the last one stops the screencast).
///
/// ```no_run
/// # async fn demo(relay: &abx_relay::Relay) {
/// let viewer = relay.viewer();
/// let (mut frames, mut events) = (viewer.frames(), viewer.events());
/// tokio::select! {
///     frame = frames.next() => println!("frame {:?}", frame.map(|f| f.seq())),
///     event = events.recv() => println!("event {:?}", event.map(|e| e.to_json())),
/// }
/// # }
/// ```
pub struct Viewer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Viewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Viewer").finish_non_exhaustive()
    }
}

impl Viewer {
    fn new(shared: Arc<Shared>) -> Viewer {
        shared.viewers.fetch_add(1, Ordering::Relaxed);
        // A newcomer with nothing cached to show asks the running cast for a fresh frame.
        let want = {
            let state = shared.state();
            let cached = shared.frames.latest();
            match &state.cast {
                Some(cast) if cached.is_none_or(|f| f.target_id() != &*cast.target_id) => {
                    Some(cast.want_frame.clone())
                }
                _ => None,
            }
        };
        if let Some(want) = want {
            want.notify_one();
        }
        shared.wake.notify_one();
        Viewer { shared }
    }

    /// A latest-wins frame receiver.
    ///
    /// ```no_run
    /// # async fn demo(viewer: &abx_relay::Viewer) {
    /// let newest = viewer.frames().latest();
    /// # }
    /// ```
    pub fn frames(&self) -> FrameReceiver {
        self.shared.frames.subscribe()
    }

    /// Events from now on.
    ///
    /// ```no_run
    /// # async fn demo(viewer: &abx_relay::Viewer) {
    /// let next = viewer.events().recv().await;
    /// # }
    /// ```
    pub fn events(&self) -> broadcast::Receiver<LiveEvent> {
        self.shared.events.subscribe()
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        self.shared.viewers.fetch_sub(1, Ordering::Relaxed);
        self.shared.wake.notify_one();
    }
}

/// A running cast, owned by the controller.
struct Cast {
    target_id: Arc<str>,
    tab: Arc<Tab>,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Cast {
    async fn stop(self) {
        self.stop.cancel();
        // A task that ended on its own (its tab closed) was already awaited by the controller;
        // awaiting its handle again would panic.
        if self.task.is_finished() {
            return;
        }
        // The task sends stopScreencast and exits at once; bounded in case CDP is wedged.
        let _ = tokio::time::timeout(Duration::from_secs(2), self.task).await;
    }
}

/// What the controller wants streamed.
fn desired(shared: &Shared) -> Option<(Arc<Tab>, bool)> {
    if shared.viewers.load(Ordering::Relaxed) == 0 {
        return None;
    }
    let mut state = shared.state();
    let session = state.session.clone()?;
    if !session.browser().is_alive() {
        return None;
    }
    let active = session.active_target();
    let popup_valid = state.popup.as_ref().is_some_and(|p| {
        !p.tab.read(|st| st.detached)
            && session.browser().target(p.tab.target_id()).is_some()
            && active.as_deref() == Some(p.opener.as_str())
    });
    if !popup_valid && let Some(old) = state.popup.take() {
        release_popup(old.tab);
    }
    if let Some(popup) = &state.popup {
        return Some((popup.tab.clone(), true));
    }
    let tab = active
        .and_then(|id| session.attached_tab(&id))
        .filter(|t| !t.read(|st| st.detached))?;
    Some((tab, false))
}

async fn control(shared: Arc<Shared>) {
    let mut cast: Option<Cast> = None;
    let mut last_streamed: Option<(Arc<str>, bool)> = None;
    // Target changes of the session's browser (popups, tab titles, closed tabs).
    let mut targets: Option<(usize, watch::Receiver<u64>)> = None;
    // The targets seen on the last watched pass; `None` after an unwatched one.
    let mut known_targets: Option<HashSet<String>> = None;
    loop {
        let session = shared.session();
        let session_key = session.as_ref().map(|s| Arc::as_ptr(s) as usize);
        if targets.as_ref().map(|t| t.0) != session_key {
            targets = session
                .as_ref()
                .map(|s| (Arc::as_ptr(s) as usize, s.browser().target_changes()));
        }
        let watching = shared.viewers.load(Ordering::Relaxed) > 0;

        if watching
            && let (Some(session), Some(running), Some(known)) = (&session, &cast, &known_targets)
            && shared.options.follow_popups
        {
            adopt_popup(&shared, session, running, known).await;
        }
        // Only a watched cast adopts popups. Unwatched, skip the copy: on a shared anchor every
        // stage's navigation wakes every other stage's controller, and the copy is O(tabs). After
        // an unwatched pass nothing is adopted until a watched pass has looked, so a tab opened
        // while nobody watched never looks new.
        known_targets = match &session {
            Some(session) if watching => Some(
                session
                    .browser()
                    .targets()
                    .into_iter()
                    .map(|t| t.target_id)
                    .collect(),
            ),
            _ => None,
        };

        let want = desired(&shared);
        let same = match (&cast, &want) {
            (Some(c), Some((tab, _))) => Arc::ptr_eq(&c.tab, tab) && !c.task.is_finished(),
            (None, None) => true,
            _ => false,
        };
        if !same {
            tracing::debug!(
                viewers = shared.viewers.load(Ordering::Relaxed),
                from = cast.as_ref().map(|c| &*c.target_id),
                to = want.as_ref().map(|(t, _)| t.target_id()),
                "live view: screencast moves"
            );
            if let Some(old) = cast.take() {
                old.stop().await;
                shared.state().cast = None;
            }
            if let Some((tab, is_popup)) = want {
                let target: Arc<str> = Arc::from(tab.target_id());
                let reason = {
                    let mut state = shared.state();
                    let next = state.next_reason.take();
                    match &last_streamed {
                        Some((prev, _)) if *prev == target => None,
                        None => None,
                        Some((_, was_popup)) => Some(if is_popup {
                            RetargetReason::Popup
                        } else if let Some(next) = next {
                            next
                        } else if *was_popup {
                            RetargetReason::PopupClosed
                        } else {
                            RetargetReason::TabChanged
                        }),
                    }
                };
                let changed_target = last_streamed.as_ref().is_none_or(|(p, _)| *p != target);
                if changed_target {
                    // The cached image shows another tab; a newcomer must not see it as this one.
                    shared.frames.clear();
                }
                cast = Some(start_cast(&shared, tab.clone(), target.clone()));
                last_streamed = Some((target.clone(), is_popup));
                if let Some(reason) = reason {
                    let url = retarget_url(&tab, session.as_deref(), is_popup).await;
                    tracing::debug!(target = %target, reason = reason.as_str(), "live view: retarget");
                    shared.emit(LiveEvent::Retarget {
                        target_id: target.to_string(),
                        url,
                        reason,
                        timestamp: now_ms(),
                    });
                }
            }
        }
        // Status: connected, screencasting, streamed tab.
        let connected = session.as_ref().is_some_and(|s| s.browser().is_alive());
        let streamed = cast.as_ref().map(|c| c.target_id.to_string());
        let screencasting = cast.is_some();
        shared.update_status(|s| {
            s.connected = connected;
            s.screencasting = screencasting;
            if s.target_id != streamed {
                s.target_id = streamed;
                s.visible = false;
            }
        });
        let reopening = shared.state().reopening;
        if watching
            && !reopening
            && let Some(session) = &session
        {
            // `tabs()` numbers tabs it sees for the first time (as `tab list` would); during a
            // reopen the replacement tab must not get a number of its own.
            let tabs = session.tabs();
            let changed = {
                let mut state = shared.state();
                let changed = state.last_tabs != tabs;
                if changed {
                    state.last_tabs = tabs.clone();
                }
                changed
            };
            if changed {
                shared.emit(LiveEvent::Tabs {
                    tabs,
                    timestamp: now_ms(),
                });
            }
        }

        let finished = async {
            match &mut cast {
                Some(c) if !c.task.is_finished() => {
                    let _ = (&mut c.task).await;
                }
                _ => std::future::pending::<()>().await,
            }
        };
        let target_change = async {
            match &mut targets {
                Some((_, rx)) => {
                    if rx.changed().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            _ = shared.stop.cancelled() => break,
            _ = shared.wake.notified() => {}
            _ = finished => {}
            _ = target_change => {}
        }
    }
    if let Some(old) = cast.take() {
        old.stop().await;
    }
    shared.state().cast = None;
    shared.update_status(|s| s.screencasting = false);
}

/// Streams a popup the streamed tab opened after we last looked.
async fn adopt_popup(
    shared: &Arc<Shared>,
    session: &Arc<Session>,
    running: &Cast,
    known: &HashSet<String>,
) {
    let popup = session
        .popups_of(&running.target_id)
        .into_iter()
        .find(|t| !known.contains(&t.target_id));
    let Some(popup) = popup else { return };
    match session.attach_popup(&popup.target_id).await {
        Ok(tab) => {
            // The root opener: the session's tab (a popup's own popup replaces the first one).
            let opener = session
                .active_target()
                .unwrap_or_else(|| running.tab.target_id().to_string());
            let previous = shared.state().popup.replace(Popup { tab, opener });
            if let Some(previous) = previous {
                release_popup(previous.tab);
            }
        }
        Err(err) => tracing::debug!(%err, "cannot attach to the popup; staying on the opener"),
    }
}

/// Detaches our session from a popup we no longer stream (an attached DevTools session changes
/// how Chrome treats a tab, e.g. for dialogs; we leave none behind).
fn release_popup(tab: Arc<Tab>) {
    if tab.read(|st| st.detached) {
        return;
    }
    tokio::spawn(async move {
        let _ = tab.detach().await;
    });
}

fn start_cast(shared: &Arc<Shared>, tab: Arc<Tab>, target_id: Arc<str>) -> Cast {
    let stop = CancellationToken::new();
    let want_frame = Arc::new(Notify::new());
    let generation = {
        let mut state = shared.state();
        state.generation += 1;
        state.cast = Some(CastInfo {
            target_id: target_id.clone(),
            tab: tab.clone(),
            generation: state.generation,
            want_frame: want_frame.clone(),
        });
        state.generation
    };
    let task = tokio::spawn(run_cast(
        shared.clone(),
        tab.clone(),
        target_id.clone(),
        generation,
        stop.clone(),
        want_frame,
    ));
    Cast {
        target_id,
        tab,
        stop,
        task,
    }
}

/// Frames are acknowledged on this subscription; its capacity only matters if this process is
/// starved, and a dropped frame is still acknowledged (see `run_cast`).
const FRAME_QUEUE: usize = 64;

/// How long a retarget to a popup waits for the popup's first URL.
const POPUP_URL_PATIENCE: Duration = Duration::from_secs(1);

/// The URL a `retarget` names. A fresh tab may not have committed its first navigation yet;
/// Chrome's target info may already name the URL it is loading. A popup that has neither yet
/// (window.open attaches before the first commit) gets a moment to commit, so the viewer is
/// told where it goes rather than an empty or `about:blank` URL.
async fn retarget_url(tab: &Tab, session: Option<&Session>, is_popup: bool) -> String {
    let real = |url: &str| !url.is_empty() && url != "about:blank";
    let url = tab.read(|st| st.url.clone());
    if real(&url) {
        return url;
    }
    if let Some(loading) = session
        .and_then(|s| s.browser().target(tab.target_id()))
        .map(|t| t.url)
        .filter(|u| real(u))
    {
        return loading;
    }
    if is_popup {
        let deadline = std::time::Instant::now() + POPUP_URL_PATIENCE;
        if let Ok(state) = tab
            .wait_state("popup URL", deadline, true, |st| real(&st.url))
            .await
        {
            return state.url;
        }
    }
    url
}

/// How long [`Relay::deliver_inputs`] waits for Chrome to handle the input.
const INPUT_DELIVERY_TIMEOUT: Duration = Duration::from_secs(10);

async fn run_cast(
    shared: Arc<Shared>,
    tab: Arc<Tab>,
    target_id: Arc<str>,
    generation: u64,
    stop: CancellationToken,
    want_frame: Arc<Notify>,
) {
    // The screencast itself runs on the tab's CDP session: frames take the transport's zero-copy
    // fast path (`Event::screencast_frame`, the data a slice of the received buffer).
    let cdp = tab.cdp().clone();
    let mut frames = cdp.subscribe(
        EventFilter::methods([page::EventScreencastFrame::IDENTIFIER]),
        FRAME_QUEUE,
    );
    let mut visibility = cdp.subscribe(
        EventFilter::methods([page::EventScreencastVisibilityChanged::IDENTIFIER]),
        16,
    );
    // Navigations, console messages and page errors: the tab's own (one decoding, one rendering).
    let mut page_events = tab.page_events();
    let mut dialogs = tab.dialog_events();
    let params = shared.options.screencast_params();
    let emulate_focus = shared.options.emulate_focus;
    if emulate_focus {
        // Before the screencast starts, so its first frame is already a painted one.
        let _ = cdp
            .send(&emulation::SetFocusEmulationEnabledParams::new(true))
            .await;
    }
    if let Err(err) = cdp.send(&params).await {
        tracing::debug!(%err, "cannot start the screencast");
        return;
    }
    let grace = shared.options.first_frame_grace;
    let mut nudge_at: Option<Instant> = Some(Instant::now() + grace);
    let mut nudged = false;
    let mut activated = false;
    let mut visible: Option<bool> = None;
    let mut dropped_seen = 0u64;
    let started = Instant::now();
    let mut first_frame = true;
    loop {
        let nudge_due = async {
            match nudge_at {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            biased;
            _ = stop.cancelled() => {
                let _ = cdp.send(&page::StopScreencastParams::default()).await;
                if emulate_focus {
                    // An unwatched background tab goes back to being hidden, as before.
                    let _ = cdp
                        .send(&emulation::SetFocusEmulationEnabledParams::new(false))
                        .await;
                }
                return;
            }
            event = frames.recv() => {
                let Some(event) = event else { return };
                let Some(frame) = event.screencast_frame() else { continue };
                // Acknowledge first, always: Chrome stops encoding when its window is full.
                let ack = page::ScreencastFrameAckParams::new(frame.ack_id);
                let _ = cdp.send(&ack).await;
                // A frame dropped because this queue was full was never acknowledged; Chrome
                // counts acks per screencast (the id is the screencast's, not the frame's), so
                // one more ack per dropped frame keeps its window from shrinking for good.
                let dropped = frames.dropped();
                while dropped_seen < dropped {
                    let _ = cdp.send(&ack).await;
                    dropped_seen += 1;
                }
                nudge_at = None;
                if first_frame {
                    first_frame = false;
                    tracing::debug!(after_ms = started.elapsed().as_millis() as u64, nudged, activated, "live view: first frame of the cast");
                }
                if let Some(built) = Frame::build(frame, target_id.clone()) {
                    shared.publish_frame(generation, built);
                }
            }
            event = visibility.recv() => {
                let Some(event) = event else { return };
                let now_visible = match event.decode::<page::EventScreencastVisibilityChanged>() {
                    Some(Ok(changed)) => changed.visible,
                    _ => true,
                };
                visible = Some(now_visible);
                shared.update_status(|s| s.visible = now_visible);
                if !now_visible && shared.options.activate_hidden_tab && !activated {
                    activated = true;
                    activate(&tab).await;
                }
            }
            event = page_events.recv() => match event {
                Ok(event) => page_event(&shared, event),
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            },
            dialog = dialogs.recv() => match dialog {
                Ok(DialogEvent::Opened { dialog }) => shared.emit(LiveEvent::Dialog { dialog }),
                Ok(DialogEvent::Closed { accepted, user_input, by }) => {
                    // Auto-accepted alerts were never announced; nothing to close for viewers.
                    if by != "auto" {
                        shared.emit(LiveEvent::DialogClosed { accepted, user_input, by });
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => {
                    dialogs = tab.dialog_events();
                }
            },
            _ = want_frame.notified() => {
                if nudge_at.is_none() {
                    nudged = false;
                    nudge_at = Some(Instant::now() + grace);
                }
            }
            _ = nudge_due => {
                nudge_at = None;
                tracing::debug!(after_ms = started.elapsed().as_millis() as u64, ?visible, "live view: no frame yet, nudging");
                if nudged {
                    continue;
                }
                nudged = true;
                if visible == Some(false) {
                    if shared.options.activate_hidden_tab && !activated {
                        activated = true;
                        activate(&tab).await;
                    }
                } else {
                    // Chrome sends a frame when a screencast starts and then only when the page
                    // paints; a static page paints nothing. Restarting the screencast is the one
                    // thing that makes Chrome capture the current image again (measured on
                    // Chromium 156: evaluate, rAF, a background override, a mouse move or an
                    // extra ack produce no frame). It touches neither the page nor its state.
                    let _ = cdp.send(&page::StopScreencastParams::default()).await;
                    let _ = cdp.send(&params).await;
                }
            }
        }
    }
}

/// Brings a background tab to the front so Chrome renders it (one-shot per cast).
async fn activate(tab: &Tab) {
    tracing::debug!(target = %tab.target_id(), "streamed tab is hidden; activating it once");
    if let Err(err) = tab.activate().await {
        tracing::debug!(%err, "cannot activate the streamed tab");
    }
}

fn page_event(shared: &Shared, event: PageEvent) {
    match event {
        PageEvent::Navigated { url } => shared.emit(LiveEvent::Url {
            url,
            timestamp: now_ms(),
        }),
        PageEvent::Console(message) => shared.emit(LiveEvent::Console {
            level: message.kind,
            text: message.text,
            args: message.args,
            timestamp: message.timestamp,
        }),
        PageEvent::Error(error) => shared.emit(LiveEvent::PageError {
            text: error.text,
            line: error.line,
            column: error.column,
            timestamp: error.timestamp,
        }),
        _ => {}
    }
}
