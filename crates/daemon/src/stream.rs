//! The live-view hookup: starts the session's stream server (when available) and registers it as
//! the daemon's [`crate::daemon::StreamHooks`].

use std::sync::Arc;

use crate::daemon::Daemon;

/// Starts the stream server for `daemon` (no-op until the relay lands).
pub async fn install(_daemon: &Arc<Daemon>) {}
