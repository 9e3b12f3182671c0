//! The `AGENT_BROWSER_*` environment of a session (seed §6). A stage's env is built once,
//! persisted, and read back byte for byte by every later command, attempt and resume (seed
//! invariant 1): a different launch env would make the daemon relaunch the browser.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{HostError, Result};
use crate::names::{ProfileKey, RunId, StageId, capped, short_hash};

/// Unix socket paths are limited to 103 usable bytes (macOS; Linux allows 107).
pub const SOCKET_PATH_LIMIT: usize = 103;
/// Longest session name we build.
pub const SESSION_NAME_LIMIT: usize = 48;

/// Variable names.
pub mod var {
    /// Session name.
    pub const SESSION: &str = "AGENT_BROWSER_SESSION";
    /// Socket dir.
    pub const SOCKET_DIR: &str = "AGENT_BROWSER_SOCKET_DIR";
    /// `1` for a window.
    pub const HEADED: &str = "AGENT_BROWSER_HEADED";
    /// `0`: the daemon never idles out (a gate may wait for hours).
    pub const IDLE_TIMEOUT_MS: &str = "AGENT_BROWSER_IDLE_TIMEOUT_MS";
    /// Pinned config file (ignores `./agent-browser.json` in the stage's folder).
    pub const CONFIG: &str = "AGENT_BROWSER_CONFIG";
    /// The anchor's profile folder.
    pub const PROFILE: &str = "AGENT_BROWSER_PROFILE";
    /// The anchor's CDP address.
    pub const CDP: &str = "AGENT_BROWSER_CDP";
    /// Headers for a remote CDP endpoint (JSON object).
    pub const CDP_HEADERS: &str = "AGENT_BROWSER_CDP_HEADERS";
    /// `1`: the session keeps its own tab.
    pub const PIN_TAB: &str = "AGENT_BROWSER_PIN_TAB";
    /// Hard allowlist (enforced by abx, also with a profile or CDP).
    pub const ALLOWED_DOMAINS: &str = "AGENT_BROWSER_ALLOWED_DOMAINS";
    /// Chrome arguments (launching sessions only).
    pub const ARGS: &str = "AGENT_BROWSER_ARGS";
    /// Chrome binary (launching sessions only).
    pub const EXECUTABLE_PATH: &str = "AGENT_BROWSER_EXECUTABLE_PATH";
    /// Token the session's stream server requires (the live view's way in).
    pub const STREAM_TOKEN: &str = "AGENT_BROWSER_STREAM_TOKEN";
    /// Sites the stage's daemon refuses at every navigation (read once, when it starts).
    pub const BLOCKED_SITES: &str = "ABX_BLOCKED_SITES";
    /// `1`: the stage's daemon records refused navigations for the kit (`<session>.blocked`).
    pub const BLOCKED_LOG: &str = "ABX_BLOCKED_LOG";
}

/// A session's environment: sorted, so its JSON is the same bytes every time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BrowserEnv(BTreeMap<String, String>);

impl BrowserEnv {
    /// An empty env.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a variable.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        self.0.insert(name.to_string(), value.into());
    }

    /// A variable.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every variable, sorted.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// The session name.
    pub fn session(&self) -> Option<&str> {
        self.get(var::SESSION)
    }

    /// The socket dir.
    pub fn socket_dir(&self) -> Option<&Path> {
        self.get(var::SOCKET_DIR).map(Path::new)
    }

    /// The CDP address (profile and remote stages).
    pub fn cdp(&self) -> Option<&str> {
        self.get(var::CDP)
    }

    /// `<socket_dir>/<session>.<suffix>`.
    pub fn session_file(&self, suffix: &str) -> Option<PathBuf> {
        Some(
            self.socket_dir()?
                .join(format!("{}.{suffix}", self.session()?)),
        )
    }

    /// Sets these variables on a worker's command, after removing every `AGENT_BROWSER_*` the
    /// Host's own environment would pass on (the agent must not choose them; seed §6).
    pub fn apply_to(&self, command: &mut std::process::Command) {
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("AGENT_BROWSER_") {
                command.env_remove(&name);
            }
        }
        command.envs(self.iter());
    }

    /// The env as pretty JSON (what `browser-env.json` holds).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Where a session lives: its name and socket dir.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SessionPlace {
    pub session: String,
    pub socket_dir: PathBuf,
}

impl SessionPlace {
    /// Checks the 103-byte rule for the session's socket.
    fn checked(self) -> Result<Self> {
        let path = self.socket_dir.join(format!("{}.sock", self.session));
        let len = path.as_os_str().len();
        if len > SOCKET_PATH_LIMIT {
            return Err(HostError::SocketPathTooLong {
                path,
                len,
                limit: SOCKET_PATH_LIMIT,
            });
        }
        Ok(self)
    }

    /// The anchor of `run` on `profile`: `<prefix>-<profile>`, its dir hashed from the identity.
    pub(crate) fn anchor(
        root: &Path,
        prefix: &str,
        run: &RunId,
        profile: &ProfileKey,
    ) -> Result<Self> {
        let identity = format!("anchor/{}/{}/{run}", profile.scope, profile.name);
        Self {
            session: capped(&format!("{prefix}-{}", profile.name), SESSION_NAME_LIMIT),
            socket_dir: root.join(short_hash(&identity, 8)),
        }
        .checked()
    }

    /// A stage attached to a profile's anchor: `<prefix>-<profile>-<hash6>`.
    pub(crate) fn stage(
        root: &Path,
        prefix: &str,
        run: &RunId,
        stage: &StageId,
        profile: Option<&ProfileKey>,
    ) -> Result<Self> {
        let identity = format!("stage/{run}/{stage}");
        let session = match profile {
            Some(profile) => {
                let hash = short_hash(&identity, 6);
                let head = capped(
                    &format!("{prefix}-{}", profile.name),
                    SESSION_NAME_LIMIT - hash.len() - 1,
                );
                format!("{head}-{hash}")
            }
            None => format!("{prefix}-t-{}", short_hash(&identity, 12)),
        };
        Self {
            session,
            socket_dir: root.join(short_hash(&identity, 8)),
        }
        .checked()
    }
}

/// Settings the Host applies to every browser it launches (never from a pipeline or the
/// ambient env).
#[derive(Clone, Debug, Default)]
pub struct LaunchSettings {
    /// Chrome arguments for launching sessions (anchors, throw-away stages).
    pub args: Vec<String>,
    /// The Chrome binary, when not found on `PATH`.
    pub executable_path: Option<PathBuf>,
}

pub(crate) fn common(env: &mut BrowserEnv, place: &SessionPlace, config_file: &Path) {
    env.set(var::SESSION, place.session.clone());
    env.set(var::SOCKET_DIR, place.socket_dir.to_string_lossy());
    env.set(var::IDLE_TIMEOUT_MS, "0");
    env.set(var::CONFIG, config_file.to_string_lossy());
}

pub(crate) fn launching(env: &mut BrowserEnv, launch: &LaunchSettings, headed: bool) {
    env.set(var::HEADED, if headed { "1" } else { "0" });
    let args: Vec<&str> = launch
        .args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.is_empty())
        .collect();
    if !args.is_empty() {
        env.set(var::ARGS, args.join(","));
    }
    if let Some(path) = &launch.executable_path {
        env.set(var::EXECUTABLE_PATH, path.to_string_lossy());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_keep_the_socket_path_within_the_limit() {
        let root = Path::new("/tmp/abxh-0");
        let run = RunId::new("r".repeat(120)).expect("valid");
        let stage = StageId::new("s".repeat(120)).expect("valid");
        let profile = ProfileKey::parse("local", &"p".repeat(64)).expect("valid");
        let place = SessionPlace::stage(root, "abx", &run, &stage, Some(&profile)).expect("valid");
        assert!(
            place.session.len() <= SESSION_NAME_LIMIT,
            "{}",
            place.session
        );
        let anchor = SessionPlace::anchor(root, "abx", &run, &profile).expect("valid");
        assert!(anchor.session.len() <= SESSION_NAME_LIMIT);
        let deep = Path::new("/tmp").join("d".repeat(80));
        assert!(matches!(
            SessionPlace::stage(&deep, "abx", &run, &stage, Some(&profile)),
            Err(HostError::SocketPathTooLong { .. })
        ));
    }

    #[test]
    fn stages_of_one_run_get_distinct_sessions_and_dirs() {
        let root = Path::new("/tmp/abxh-0");
        let run = RunId::new("run-1").expect("valid");
        let profile = ProfileKey::parse("local", "site").expect("valid");
        let a = SessionPlace::stage(
            root,
            "abx",
            &run,
            &StageId::new("a").expect("valid"),
            Some(&profile),
        )
        .expect("valid");
        let b = SessionPlace::stage(
            root,
            "abx",
            &run,
            &StageId::new("b").expect("valid"),
            Some(&profile),
        )
        .expect("valid");
        assert_ne!(a.session, b.session);
        assert_ne!(a.socket_dir, b.socket_dir);
        assert!(a.session.starts_with("abx-site-"));
    }
}
