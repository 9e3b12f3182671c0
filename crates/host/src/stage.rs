//! Stages: what a stage asks for, its persisted env, and closing a session for good.

use std::fs;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::display::{DisplayChoice, Headed};
use crate::env::BrowserEnv;
use crate::login::{LoginCheck, LoginResult};
use crate::names::{ProfileKey, ProfileName};
use crate::owner::OWNER_FILE;
use crate::process::{pid_alive, read_pid};
use crate::runner::BrowserRunner;

/// `<stage_dir>/browser-env.json`: the env, built once.
pub const ENV_FILE: &str = "browser-env.json";
/// `<stage_dir>/browser-login-check.json`: the Host's login check result.
pub const LOGIN_CHECK_FILE: &str = "browser-login-check.json";
/// `<stage_dir>/browser-closed.json`: the stage's session is closed (stops a second teardown).
pub const CLOSED_FILE: &str = "browser-closed.json";

/// What a stage's browser is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageSpec {
    /// A profile (a saved login): the stage attaches to the run's anchor of it, in its own
    /// pinned tab. `None`: a throw-away browser of its own, no lease, no anchor.
    pub profile: Option<ProfileName>,
    /// Headed or headless.
    pub headed: Headed,
    /// Hosts the stage may open (`example.com`, `*.example.com`); enforced by abx for both kinds.
    pub allowed_domains: Vec<String>,
    /// Sites the stage may never reach (`example.com` blocks it and its subdomains), in
    /// addition to `HostConfig::blocked_sites`; enforced by the stage's daemon at every
    /// navigation (main frame, frames, popups) whatever `allowed_domains` says.
    #[serde(default)]
    pub blocked_sites: Vec<String>,
    /// A login check to run before the agent starts.
    pub login_check: Option<LoginCheck>,
    /// A stage where a person logs in: forced headed (or a live view), the page opened for them.
    pub human_login: Option<String>,
}

impl StageSpec {
    /// A stage on `profile`.
    pub fn with_profile(profile: ProfileName) -> Self {
        Self {
            profile: Some(profile),
            ..Self::default()
        }
    }

    /// A stage with a throw-away browser.
    pub fn throwaway() -> Self {
        Self::default()
    }
}

/// `browser-env.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageRecord {
    /// The profile the stage attaches to.
    pub profile: Option<ProfileKey>,
    /// The env every command of the stage runs with.
    pub env: BrowserEnv,
}

/// A prepared stage: give [`StageBrowser::env`] to the agent's process.
#[derive(Clone, Debug)]
pub struct StageBrowser {
    /// The stage's env (also persisted).
    pub env: BrowserEnv,
    /// The browser's display mode and why.
    pub display: DisplayChoice,
    /// The login check result, when the stage has a check.
    pub login: Option<LoginResult>,
    /// The anchor was started by this call.
    pub anchor_started: bool,
    /// A dead anchor was replaced by this call (open pages are lost; cookies stay).
    pub anchor_restarted: bool,
}

/// How a stage teardown went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StageTeardown {
    /// The session is verified gone (daemon exited, socket and pid files removed).
    pub gone: bool,
    /// `close` attempts made.
    pub attempts: u32,
    /// It had been torn down before (nothing done).
    pub already: bool,
}

/// Whether the session of `env` is gone: no live daemon, and no socket, or only the leftover
/// socket of a daemon that was killed (its pid file names a dead process; `close` leaves those
/// files, and the teardown removes them with the socket dir).
pub(crate) fn session_gone(env: &BrowserEnv, pid: Option<i32>) -> bool {
    let sock = env.session_file("sock");
    let pid_now = env.session_file("pid").and_then(|p| read_pid(&p));
    let daemon_alive = pid.or(pid_now).is_some_and(pid_alive);
    let killed = pid_now.is_some_and(|p| !pid_alive(p));
    !daemon_alive && (killed || !sock.is_some_and(|s| s.exists()))
}

/// `agent-browser close`, retried until the session is verified gone (seed invariant 3,
/// limitation 12). Never signals: a daemon that does not close is left for the next teardown
/// or the sweep.
pub(crate) async fn close_session(
    runner: &dyn BrowserRunner,
    env: &BrowserEnv,
    attempts: u32,
    timeout: Duration,
) -> bool {
    let pid = env.session_file("pid").and_then(|p| read_pid(&p));
    for attempt in 1..=attempts.max(1) {
        let output = runner.run(env, &["close"], timeout).await;
        if session_gone(env, pid) {
            return true;
        }
        tracing::warn!(
            attempt,
            code = output.code,
            session = env.session().unwrap_or(""),
            "close did not end the session; retrying"
        );
        // The daemon may be finishing its own exit; look again before the next close.
        let deadline = tokio::time::Instant::now() + Duration::from_millis(500 * attempt as u64);
        while tokio::time::Instant::now() < deadline {
            if session_gone(env, pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    false
}

/// Removes a closed session's socket dir (its leftover files and `owner.json`).
pub(crate) fn remove_session_dir(dir: &Path) {
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        // Files, links, and the socket a killed daemon left (a socket is neither a file nor a
        // link).
        if entry.file_type().is_ok_and(|t| !t.is_dir()) {
            let _ = fs::remove_file(entry.path());
        }
    }
    let _ = fs::remove_file(dir.join(OWNER_FILE));
    let _ = fs::remove_dir(dir);
}
