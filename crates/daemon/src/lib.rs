//! The abx session daemon: one process per `agent-browser` session.
//!
//! [`run`] takes the session's ownership lock (`<s>.lock`, an exclusive `flock` the kernel drops
//! when the daemon dies), binds `<socket-dir>/<session>.sock`, writes upstream's sidecar files,
//! and serves the NDJSON protocol ([`protocol`]). It knows no command by name: the binary hands
//! it a table of [`dispatch::Route`]s (one per wire action, from its command registry), and each
//! request is scheduled on its route's lane ([`dispatch::Lane`]): `close` cancels whatever runs
//! and ends the daemon; control commands (`tab list`, `get url`, `dialog`…) are served at once;
//! page commands run FIFO, each under a deadline. Handlers get a [`dispatch::Ctx`]. Engine
//! errors become upstream's texts and codes in [`errors`].
//!
//! ```no_run
//! # async fn demo(routes: Vec<abx_daemon::dispatch::Route>) -> Result<(), abx_daemon::DaemonError> {
//! let config = abx_daemon::DaemonConfig::from_env(&|name| std::env::var(name).ok());
//! abx_daemon::run(config, abx_daemon::dispatch::Routes::new(routes)).await
//! # }
//! ```

use abx_wire::env;
pub mod action_policy;
mod autosave;
pub mod config;
pub mod daemon;
pub mod dispatch;
pub mod errors;
pub mod pages;
pub mod protocol;
pub mod restore;
mod server;
pub mod shared_text;
pub mod sidecar;
pub mod state_files;
mod stream;
pub mod vault;

pub use config::{DaemonConfig, LaunchSpec};
pub use server::{DaemonError, VERSION, run};

/// Sends the daemon's tracing output to `<dir>/<session>.log` when `AGENT_BROWSER_DEBUG` is on.
/// Values typed or filled, cookies and viewer input are never logged (only actions and ids).
pub fn init_logging(config: &DaemonConfig) {
    if !config.debug {
        return;
    }
    let path = config.socket_dir.join(format!("{}.log", config.session));
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    else {
        return;
    };
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600));
    }
    let filter = tracing_subscriber::EnvFilter::try_from_env(env::ABX_LOG)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("debug"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
}
