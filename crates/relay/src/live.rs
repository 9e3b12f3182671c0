//! [`LiveView`]: the relay as a library, for a Host that links abx without the CLI or a daemon.

use std::sync::Arc;

use abx_engine::{Dialog, Session, TabListing};
use tokio::sync::broadcast;

use crate::error::RelayError;
use crate::frame::FrameReceiver;
use crate::input::Input;
use crate::protocol::{LiveEvent, Status};
use crate::relay::{Relay, RelayOptions, Viewer};

/// Options of a [`LiveView`].
///
/// ```
/// let options = abx_relay::LiveViewOptions {
///     relay: abx_relay::RelayOptions { quality: 70, ..Default::default() },
/// };
/// # let _ = options;
/// ```
#[derive(Clone, Debug, Default)]
pub struct LiveViewOptions {
    /// Screencast settings.
    pub relay: RelayOptions,
}

/// A live view of one session: frames of its active tab (following tab changes, popups and
/// reopens), ordered input back to it, its JavaScript dialogs, and a way to replace a stuck tab.
///
/// The screencast runs while the `LiveView` exists; [`LiveView::close`] (or dropping it) stops
/// it. Any number of frame receivers and event receivers can be taken; they share one
/// screencast.
///
/// ```no_run
/// # async fn demo(session: std::sync::Arc<abx_engine::Session>) -> Result<(), abx_relay::RelayError> {
/// use abx_relay::{Input, LiveEvent, LiveView, LiveViewOptions, MouseInput};
/// let view = LiveView::open(session, LiveViewOptions::default()).await?;
/// let mut frames = view.frames();
/// let mut events = view.events();
/// if let Some(frame) = frames.next().await {
///     // frame.data() is the base64 JPEG; frame.metadata().image_size its pixel size.
///     println!("frame {} of {}", frame.seq(), frame.target_id());
/// }
/// view.send_input(&Input::Mouse(MouseInput::left("mousePressed", 100.0, 80.0))).await?;
/// view.send_input(&Input::Mouse(MouseInput::left("mouseReleased", 100.0, 80.0))).await?;
/// if let Ok(LiveEvent::Dialog { dialog }) = events.recv().await {
///     println!("the page asks: {}", dialog.message);
///     view.answer_dialog(true, None).await?;
/// }
/// view.close().await;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct LiveView {
    relay: Relay,
    viewer: Option<Viewer>,
}

impl LiveView {
    /// Starts a live view of `session`. Fails with [`RelayError::NoBrowser`] when the session's
    /// browser is gone.
    ///
    /// ```no_run
    /// # async fn demo(session: std::sync::Arc<abx_engine::Session>) -> Result<(), abx_relay::RelayError> {
    /// let view = abx_relay::LiveView::open(session, Default::default()).await?;
    /// # Ok(()) }
    /// ```
    pub async fn open(
        session: Arc<Session>,
        options: LiveViewOptions,
    ) -> Result<LiveView, RelayError> {
        if !session.browser().is_alive() {
            return Err(RelayError::NoBrowser);
        }
        let relay = Relay::new(options.relay);
        relay.set_session(Some(session));
        let viewer = relay.viewer();
        Ok(LiveView {
            relay,
            viewer: Some(viewer),
        })
    }

    /// A latest-wins receiver of frames (each receiver skips frames it was too slow for).
    ///
    /// ```no_run
    /// # async fn demo(view: &abx_relay::LiveView) {
    /// let mut frames = view.frames();
    /// if let Some(frame) = frames.next().await { println!("{:?}", frame.metadata().image_size); }
    /// # }
    /// ```
    pub fn frames(&self) -> FrameReceiver {
        self.relay.frames()
    }

    /// Events from now on: status, tabs, url, console, page errors, dialogs, retarget.
    ///
    /// ```no_run
    /// # async fn demo(view: &abx_relay::LiveView) {
    /// use abx_relay::LiveEvent;
    /// let mut events = view.events();
    /// while let Ok(event) = events.recv().await {
    ///     match event {
    ///         LiveEvent::Dialog { dialog } => println!("page asks: {}", dialog.message),
    ///         LiveEvent::Retarget { target_id, reason, .. } => println!("now {target_id} ({reason:?})"),
    ///         _ => {}
    ///     }
    /// }
    /// # }
    /// ```
    pub fn events(&self) -> broadcast::Receiver<LiveEvent> {
        self.relay.events()
    }

    /// The current status (streamed tab, viewport, visibility...).
    ///
    /// ```no_run
    /// # fn demo(view: &abx_relay::LiveView) {
    /// let status = view.status();
    /// println!("{}x{} visible={}", status.viewport_width, status.viewport_height, status.visible);
    /// # }
    /// ```
    pub fn status(&self) -> Status {
        self.relay.status()
    }

    /// The session's tabs.
    ///
    /// ```no_run
    /// # fn demo(view: &abx_relay::LiveView) {
    /// let active = view.tabs().into_iter().find(|t| t.active);
    /// # }
    /// ```
    pub fn tabs(&self) -> Vec<TabListing> {
        self.relay.tabs()
    }

    /// The dialog pending on the streamed tab, if any.
    ///
    /// ```no_run
    /// # fn demo(view: &abx_relay::LiveView) {
    /// let pending = view.dialog().map(|d| d.kind);
    /// # }
    /// ```
    pub fn dialog(&self) -> Option<Dialog> {
        self.relay.dialog()
    }

    /// Sends one input event to the streamed tab (not waiting for Chrome's reply; calls from one
    /// task reach Chrome in order).
    ///
    /// ```no_run
    /// # async fn demo(view: &abx_relay::LiveView) -> Result<(), abx_relay::RelayError> {
    /// use abx_relay::{Input, KeyInput};
    /// for key in KeyInput::typed('x') { view.send_input(&Input::Keyboard(key)).await?; }
    /// # Ok(()) }
    /// ```
    pub async fn send_input(&self, input: &Input) -> Result<(), RelayError> {
        self.relay.send_input(input).await
    }

    /// Sends a batch of input events in order and returns once Chrome has handled them (or one
    /// of them opened a dialog, which then waits for [`LiveView::answer_dialog`]), so what the
    /// caller reads from the page next already reflects them.
    ///
    /// ```no_run
    /// # async fn demo(view: &abx_relay::LiveView) -> Result<(), abx_relay::RelayError> {
    /// use abx_relay::{Input, MouseInput};
    /// view.send_inputs(&[
    ///     Input::Mouse(MouseInput::left("mousePressed", 10.0, 10.0)),
    ///     Input::Mouse(MouseInput::left("mouseReleased", 10.0, 10.0)),
    /// ]).await?;
    /// # Ok(()) }
    /// ```
    pub async fn send_inputs(&self, inputs: &[Input]) -> Result<(), RelayError> {
        self.relay.deliver_inputs(inputs).await.map(|_| ())
    }

    /// Answers the pending dialog: accept (OK) or dismiss, with text for a `prompt`.
    ///
    /// ```no_run
    /// # async fn demo(view: &abx_relay::LiveView) -> Result<(), abx_relay::RelayError> {
    /// view.answer_dialog(false, None).await?; // Cancel
    /// # Ok(()) }
    /// ```
    pub async fn answer_dialog(
        &self,
        accept: bool,
        prompt_text: Option<&str>,
    ) -> Result<(), RelayError> {
        self.relay.answer_dialog(accept, prompt_text).await
    }

    /// Replaces a stuck tab with a fresh one at the same URL (see
    /// [`abx_engine::Session::reopen_tab`]); the view follows the new tab.
    ///
    /// ```no_run
    /// # async fn demo(view: &abx_relay::LiveView) -> Result<(), abx_relay::RelayError> {
    /// let fresh = view.reopen_tab().await?;
    /// # Ok(()) }
    /// ```
    pub async fn reopen_tab(&self) -> Result<TabListing, RelayError> {
        self.relay.reopen_tab().await
    }

    /// The relay underneath (to serve it over WebSocket with [`crate::StreamServer`] as well).
    ///
    /// ```no_run
    /// # fn demo(view: &abx_relay::LiveView) -> Result<(), abx_relay::RelayError> {
    /// use std::sync::Arc;
    /// let server = abx_relay::StreamServer::start(view.relay().clone(), Default::default(), Arc::new(abx_relay::NoHooks))?;
    /// # Ok(()) }
    /// ```
    pub fn relay(&self) -> &Relay {
        &self.relay
    }

    /// Stops the screencast and ends the view.
    ///
    /// ```no_run
    /// # async fn demo(view: abx_relay::LiveView) {
    /// view.close().await; // before closing the session (the relay never outlives its stage)
    /// # }
    /// ```
    pub async fn close(mut self) {
        self.viewer.take();
        // Waits for stopScreencast to be sent, so the session can be closed right after.
        self.relay.stop().await;
    }
}
