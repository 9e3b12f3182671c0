//! abx wire types: what the `agent-browser` CLI and its session daemon say to each other, with no
//! I/O, so the two sides cannot drift apart.
//!
//! * [`Request`]: one NDJSON request line, `{"id", "action", ...params}`. The CLI builds a typed
//!   request struct and turns it into the line's object with [`encode`]; the daemon reads the
//!   same struct back with [`Request::decode`].
//! * [`Response`]: one reply line, `{"success", "data", "error", "code", "warning"}`.
//! * [`LaunchRequest`]: the `launch` request, the one request two crates build and read (the
//!   CLI's launch planning and the daemon's launch settings).
//! * [`env`](mod@env): every `AGENT_BROWSER_*` (and `ABX_*`) variable name.
//! * [`extras`]: the fields the CLI adds to every request (plugins, pin-tab, restore).
//! * [`split_proxy`]: a proxy URL's server and credentials, read the same on both sides.
//!
//! Per-command request types live next to their command (one module per command in the
//! `agent-browser` crate); this crate holds what more than one crate needs.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Serialize, Deserialize)]
//! struct Fill { selector: Option<String>, value: String }
//!
//! let line = abx_wire::encode("fill", &Fill { selector: Some("#name".into()), value: "Ada".into() });
//! assert_eq!(line.to_string(), r##"{"action":"fill","selector":"#name","value":"Ada"}"##);
//!
//! let request = abx_wire::Request::from_object(line.as_object().cloned().unwrap_or_default()).expect("has an action");
//! let fill: Fill = request.decode().expect("decodes");
//! assert_eq!(fill.value, "Ada");
//! ```

pub mod env;
mod envelope;
mod launch;
mod proxy;

pub use envelope::{DecodeError, NoParams, Request, Response, encode, extras};
pub use launch::{LaunchRequest, ProxyRequest};
pub use proxy::{ProxyParts, split_proxy};
