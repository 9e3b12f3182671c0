//! Helpers for the Host kit's tests: an isolated Host (own home, own short socket root), a
//! settable run table, a fresh `agent-browser` binary, and a guard that closes every session
//! the Host left (by its owner record, never by process name).

#![allow(dead_code, missing_docs)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use abx_host::{
    BrowserEnv, DisplayProbe, Host, HostConfig, LaunchSettings, OwnerRecord, RunId, RunLiveness,
    RunRef, RunState, Screen,
};

// The one helper that gives every test package a fresh `agent-browser` (abx-host cannot depend
// on abx-tests, which depends on the CLI, which depends on abx-host).
#[path = "../../../../tests/support/fresh_binary.rs"]
mod fresh_binary;

// The test packages' one wait-for-a-condition helper, shared the same way.
#[path = "../../../../tests/support/wait.rs"]
pub(crate) mod wait;

/// The `agent-browser` binary, built first when it is missing or older than its sources (a
/// `cargo test -p abx-host` does not build it).
pub(crate) fn agent_browser() -> PathBuf {
    fresh_binary::agent_browser()
}

/// A run table the test sets.
#[derive(Default)]
pub(crate) struct Runs(Mutex<HashMap<RunId, RunState>>);

impl Runs {
    pub(crate) fn set(&self, run: &RunRef, state: RunState) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(run.id.clone(), state);
    }
}

impl RunLiveness for Runs {
    fn state(&self, run: &RunId) -> RunState {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(run)
            .copied()
            .unwrap_or(RunState::Unknown)
    }
}

/// Folders of one test: the Host home and a short socket root, both removed at the end.
pub(crate) struct Place {
    pub home: tempfile::TempDir,
    pub sockets: tempfile::TempDir,
}

impl Place {
    pub(crate) fn new() -> Place {
        Place {
            home: tempfile::Builder::new()
                .prefix("abxh-home")
                .tempdir()
                .expect("home"),
            sockets: tempfile::Builder::new()
                .prefix("abxs")
                .tempdir_in("/tmp")
                .expect("socket root"),
        }
    }

    /// A headless-only config (tests run without a screen; the choice says so).
    pub(crate) fn config(&self) -> HostConfig {
        let mut config = HostConfig::new(self.home.path());
        config.socket_root = self.sockets.path().join("s");
        config.display = DisplayProbe::fixed(Screen::None);
        config.launch = LaunchSettings {
            args: vec!["--disable-quic".into(), "--disable-gpu".into()],
            executable_path: None,
        };
        config.command_timeout = Duration::from_secs(60);
        config
    }

    pub(crate) fn socket_root(&self) -> PathBuf {
        self.sockets.path().join("s")
    }

    /// Every owner record under the socket root.
    pub(crate) fn owners(&self) -> Vec<(PathBuf, OwnerRecord)> {
        owners(&self.socket_root())
    }

    /// Whether nothing is left under the socket root.
    pub(crate) fn sockets_empty(&self) -> bool {
        std::fs::read_dir(self.socket_root()).map_or(true, |mut d| d.next().is_none())
    }
}

pub(crate) fn owners(root: &Path) -> Vec<(PathBuf, OwnerRecord)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(root).into_iter().flatten().flatten() {
        if let Ok(text) = std::fs::read_to_string(entry.path().join("owner.json"))
            && let Ok(owner) = serde_json::from_str::<OwnerRecord>(&text)
        {
            out.push((entry.path(), owner));
        }
    }
    out
}

impl Drop for Place {
    /// A test that failed half way: close what it left, stage sessions first.
    fn drop(&mut self) {
        let mut left = self.owners();
        left.sort_by_key(|(_, o)| o.kind != abx_host::OwnerKind::Stage);
        for (_, owner) in left {
            if let Some(env) = owner.env {
                close_blocking(&env);
            }
        }
    }
}

/// `agent-browser close` with `env`, synchronously.
pub(crate) fn close_blocking(env: &BrowserEnv) {
    let mut command = Command::new(agent_browser());
    command.arg("close").env_clear();
    for key in ["PATH", "HOME", "TMPDIR"] {
        if let Ok(value) = std::env::var(key) {
            command.env(key, value);
        }
    }
    command.envs(env.iter());
    let _ = command.output();
}

/// A Host on `place` with the real `agent-browser`.
pub(crate) fn host(place: &Place, runs: Arc<Runs>) -> Host {
    Host::local(place.config(), runs, agent_browser()).expect("host")
}

/// Runs `agent-browser <args>` with a stage env, as the agent would in bash.
pub(crate) fn ab(env: &BrowserEnv, args: &[&str]) -> std::process::Output {
    let mut command = Command::new(agent_browser());
    command.args(args).env_clear();
    for key in ["PATH", "HOME", "TMPDIR"] {
        if let Ok(value) = std::env::var(key) {
            command.env(key, value);
        }
    }
    command.envs(env.iter());
    command.output().expect("run agent-browser")
}

/// stdout of a successful command.
#[track_caller]
pub(crate) fn ab_ok(env: &BrowserEnv, args: &[&str]) -> String {
    let output = ab(env, args);
    assert!(
        output.status.success(),
        "agent-browser {args:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .trim_end_matches('\n')
        .to_string()
}

/// The daemon pid of a session env.
pub(crate) fn daemon_pid(env: &BrowserEnv) -> Option<i32> {
    std::fs::read_to_string(env.session_file("pid")?)
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Whether a pid is a live process (zombies count as gone).
pub(crate) fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rfind(')')
                .map(|i| stat[i + 1..].trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
}

/// Waits until `pid` is gone.
pub(crate) fn wait_gone(pid: i32, within: Duration) -> bool {
    wait::wait_until(within, || !alive(pid))
}

/// Whether a CDP address answers.
pub(crate) async fn cdp_answers(cdp: &str) -> bool {
    let options = abx_cdp::ConnectOptions {
        connect_timeout: Duration::from_secs(2),
        ..abx_cdp::ConnectOptions::default()
    };
    match abx_cdp::Connection::connect_with(cdp, options).await {
        Ok(connection) => {
            connection.close();
            true
        }
        Err(_) => false,
    }
}

/// The anchor's pages: (target id, url, attached).
pub(crate) async fn pages(cdp: &str) -> Vec<(String, String, bool)> {
    let connection = abx_cdp::Connection::connect(cdp).await.expect("cdp");
    let listed = connection
        .browser()
        .call_json("Target.getTargets", serde_json::json!({}))
        .await
        .expect("targets");
    connection.close();
    listed["targetInfos"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|t| t["type"] == "page")
        .map(|t| {
            (
                t["targetId"].as_str().unwrap_or_default().to_string(),
                t["url"].as_str().unwrap_or_default().to_string(),
                t["attached"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}
