//! `abx-host`: the Host kit ([`abx_host`]) for Hosts written in any language, as JSON lines
//! over stdio or a Unix socket.
//!
//! [`Front`] owns one [`abx_host::Host`] and serves its verbs (prepare, resume and end a stage,
//! end a run, sweep, shutdown, login check, live-view tickets and viewers, status) as requests
//! `{"id":1,"op":"prepare_stage","args":{…}}` with replies `{"id":1,"result":{…}}` or
//! `{"id":1,"error":{"code","message"}}`. Host events stream on the same channel
//! (`{"event":"anchor_started",…}`), and the kit's run liveness is asked of the Host there
//! (`{"ask":"run_state","ask_id":7,"run":"r1"}`, answered with the `answer` operation; no
//! answer in time counts as live). A person's viewer is carried on its own loopback
//! WebSocket, or on the channel. The schema, versioned by [`protocol::PROTOCOL`], is in
//! `docs/host.md` ("JSON front").
//!
//! ```no_run
//! # async fn demo(stream: tokio::net::UnixStream) -> Result<(), abx_host_front::protocol::FrontError> {
//! use std::time::Duration;
//! use abx_host_front::{Front, FrontConfig};
//! let front = Front::new(FrontConfig {
//!     host: abx_host::HostConfig::new("/var/lib/my-host/browser"),
//!     agent_browser: "agent-browser".into(),
//!     liveness_timeout: Duration::from_secs(5),
//!     drain: Duration::from_secs(60),
//! })?;
//! let (input, output) = stream.into_split(); // a Host connected on a Unix socket
//! let connection = front.serve(tokio::io::BufReader::new(input), output).await; // until EOF
//! front.host_gone().await; // runs closed, except those waiting at a gate
//! front.close(connection).await; // the last replies go out
//! # Ok(()) }
//! ```

mod clients;
mod front;
mod liveness;
pub mod protocol;
mod viewers;

pub use front::{Connection, Front, FrontConfig, OPERATIONS};
