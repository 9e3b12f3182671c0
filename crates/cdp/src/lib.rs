//! CDP transport: one WebSocket (or pipe) to Chrome, many flat sessions over it.
//!
//! [`Connection`] owns the socket through two tasks: a reader that routes every message and a
//! writer fed by a bounded queue. [`Session`] is a cheap handle bound to one target's flat session
//! id (or to the browser); `session.call(cmd)` sends a typed command (the generated
//! chromiumoxide_cdp types, re-exported as [`protocol`]) and waits for its typed reply or its
//! deadline; `session.send(&cmd)` queues one without waiting. Methods or parameters the pinned
//! protocol revision lacks go through `session.call_json(method, json)` / `send_json`, and
//! generated events are decoded with [`Event::decode`].
//! Events are delivered per session on bounded channels ([`Subscription`]); the reader never
//! waits for a slow subscriber. When the socket dies, every pending call fails with
//! [`Error::ConnectionClosed`] at once; when a target detaches or its renderer crashes, the calls
//! pending on its session fail with [`Error::SessionDetached`] / [`Error::TargetCrashed`].
//!
//! `Page.screencastFrame` events take a fast path: the reader parses only the envelope and the
//! frame's small fields, and [`ScreencastFrame::data`] is a slice of the received buffer (the
//! base64 text, never decoded or copied).
//!
//! ```no_run
//! # async fn demo(url: &str) -> Result<(), abx_cdp::Error> {
//! use abx_cdp::protocol::browser_protocol::browser::GetVersionParams;
//! let conn = abx_cdp::Connection::connect(url).await?;
//! let version = conn.browser().call(GetVersionParams::default()).await?;
//! println!("{}", version.product);
//! // A parameter newer than the pinned protocol types (Chrome 156's screencast window):
//! let page = conn.attach("TARGET-ID").await?;
//! page.send_json("Page.startScreencast", &serde_json::json!({"maxFramesInFlight": 6})).await?;
//! # Ok(()) }
//! ```

mod connection;
mod discovery;
mod error;
mod event;
pub mod forward;
mod session;
#[cfg(feature = "tls")]
mod tls;

pub use connection::{ConnectOptions, Connection, ConnectionStats, EventFilter, Subscription};
pub use discovery::{browser_ws_url, http_get};
pub use error::Error;
pub use event::{Event, FrameMetadata, RawJson, ScreencastFrame};
pub use session::Session;

/// Generated CDP protocol types (chromiumoxide_cdp), e.g.
/// `protocol::browser_protocol::page::NavigateParams`.
pub use chromiumoxide_cdp::cdp as protocol;
/// The `Command` and `Method` traits the protocol types implement.
pub use chromiumoxide_types::{Command, Method, MethodId, MethodType};
