//! Periodic autosave of `--restore` state: while the daemon runs, the restore key's state is
//! saved every `AGENT_BROWSER_AUTOSAVE_INTERVAL_MS` (default 30 s, `0` only on close), so a
//! daemon that is killed loses at most one interval of logins. Like upstream, a save is skipped
//! while a command runs, within 2 s of the last one, and while a JavaScript dialog is open.

use std::sync::Arc;
use std::time::Duration;

use abx_wire::env;

use crate::daemon::Daemon;

/// Upstream's default interval.
pub(crate) const DEFAULT_INTERVAL: Duration = Duration::from_secs(30);

/// Quiet time after a command before a periodic save.
const QUIET: Duration = Duration::from_secs(2);

/// The interval from the environment: `None` for `0` (only on close).
pub(crate) fn interval_from_env(var: &dyn Fn(&str) -> Option<String>) -> Option<Duration> {
    match var(env::AUTOSAVE_INTERVAL_MS).map(|v| v.trim().parse::<u64>()) {
        Some(Ok(0)) => None,
        Some(Ok(ms)) => Some(Duration::from_millis(ms)),
        _ => Some(DEFAULT_INTERVAL),
    }
}

/// Saves the restore state every interval until the daemon shuts down.
pub(crate) async fn watch(daemon: Arc<Daemon>) {
    let Some(interval) = interval_from_env(&|name| std::env::var(name).ok()) else {
        return;
    };
    loop {
        tokio::select! {
            _ = daemon.shutdown.cancelled() => return,
            _ = tokio::time::sleep(interval) => {}
        }
        if !daemon.restore.has_key() || daemon.in_flight() > 0 || daemon.idle_for() < QUIET {
            continue;
        }
        let Some(live) = daemon.live() else {
            continue;
        };
        if crate::daemon::dialog_warning(&live.session).is_some() {
            continue;
        }
        daemon
            .restore
            .save_before_close(&live.session, &daemon.config.session)
            .await;
        tracing::debug!("restore state autosaved");
    }
}
