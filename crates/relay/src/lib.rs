//! abx live view: one screencast of a session's tab, fanned out to any number of viewers.
//!
//! [`Relay`] is the core. While at least one viewer is attached it runs `Page.startScreencast`
//! on the session's active tab (through the tab's own CDP session, the one that enabled `Page`
//! when the session attached, so every JavaScript dialog is seen and can be answered), follows
//! the active tab when it changes, follows popups the tab opens, and stops at zero viewers.
//! Every frame is acknowledged the moment it arrives, wrapped once into the wire `frame` message
//! (the base64 JPEG is copied once and never decoded) and put in a latest-wins slot: each viewer
//! sends the newest frame at its own pace, a slow viewer skips frames and never slows Chrome or
//! the other viewers. Input goes back to the tab in arrival order without waiting for replies.
//!
//! [`LiveView`] is the same as a library for a Host: [`LiveView::open`] on an
//! `Arc<abx_engine::Session>`, then [`LiveView::frames`], [`LiveView::events`],
//! [`LiveView::send_input`], [`LiveView::answer_dialog`], [`LiveView::reopen_tab`].
//!
//! [`DashboardServer`] serves the dashboard page for people: every session's live view at once,
//! with input, dialogs and reopen, relayed to each session's own stream server.
//!
//! [`StreamServer`] serves a relay over WebSocket with upstream agent-browser's stream protocol
//! (messages in [`protocol`]) plus its small HTTP API; the session daemon runs one.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//! use abx_engine::{Browser, Session, SessionOptions, WaitUntil};
//! use abx_relay::{LiveView, LiveViewOptions};
//!
//! let browser = Arc::new(Browser::launch(abx_engine::LaunchOptions::default()).await?);
//! let session = Arc::new(Session::start(browser, SessionOptions::default()).await?);
//! session.navigate("http://127.0.0.1:8080/animated.html", WaitUntil::Load, None).await?;
//!
//! let view = LiveView::open(session.clone(), LiveViewOptions::default()).await?;
//! let mut frames = view.frames();
//! let frame = frames.next().await.expect("a frame");
//! println!("{}x{:?} px, {} base64 bytes", frame.metadata().device_width,
//!     frame.metadata().image_size, frame.data().len());
//! view.close().await;
//! session.close().await;
//! # Ok(()) }
//! ```
//!
//! Beyond upstream (all additive): `dialog`, `dialog_closed` and `retarget` messages,
//! `dialog_answer` and `reopen_tab` viewer messages, `imageWidth`/`imageHeight` in frame
//! metadata, `visible`/`targetId` in `status`, a correct `success` in `result`, and an optional
//! access token (`AGENT_BROWSER_STREAM_TOKEN`).

mod dashboard;
mod error;
mod frame;
mod http;
mod input;
mod live;
pub mod protocol;
mod record;
mod relay;
mod server;
mod viewer;

pub use dashboard::{
    DEFAULT_DASHBOARD_PORT, DashboardHooks, DashboardOptions, DashboardServer, DashboardSession,
    InvalidOrigin, normalize_origin,
};
pub use error::RelayError;
pub use frame::{Frame, FrameMetadata, FrameReceiver, jpeg_size, jpeg_size_from_base64};
pub use input::{Input, KeyInput, MouseInput, TouchInput, legacy_key_code};
pub use live::{LiveView, LiveViewOptions};
pub use protocol::{
    ClientMessage, LiveEvent, Pacing, ProtocolError, RetargetReason, Status, ViewerConfig,
    parse_client_message,
};
pub use record::{RecordError, RecordOptions, Recorder, RecordingStarted, RecordingSummary};
pub use relay::{Relay, RelayOptions, Viewer};
pub use server::{
    CommandReply, NoHooks, ServerHooks, ServerOptions, StreamServer, origin_allowed, same_origin,
    token_ok,
};
