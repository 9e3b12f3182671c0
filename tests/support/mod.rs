//! Shared helpers for the black-box and library tests against real Chromium.
//!
//! - [`launch_options`]: Chrome options for this machine (root needs `--no-sandbox`, the network is
//!   closed), with an optional persistent profile.
//! - [`Page`]: a minimal raw-CDP page driver used by the transport/launcher tests (navigate, eval).
//! - [`pids_alive`], [`wait_gone`]: leak checks by PID, never by process name.
//! - [`cli`]: a runner for the `agent-browser` binary with its own socket dir and HOME.
//! - [`raw`]: someone else on a shared browser (raw CDP client, DevTools forwarder, HTTP proxy).
//! - [`tls`]: a test CA and a one-page HTTPS server it signs.
//! - [`wait_until`], [`wait_for`], [`wait_until_async`]: wait for a condition, never for a guessed
//!   time.
//! - [`fresh_binary`]: the `agent-browser` binary, rebuilt when older than its sources.

#![allow(missing_docs)]

pub mod cli;
pub mod fresh_binary;
pub mod raw;
pub mod tls;
mod wait;

pub use wait::{POLL, wait_for, wait_until, wait_until_async};

use std::path::PathBuf;
use std::time::{Duration, Instant};

use abx_cdp::{Connection, EventFilter, Session};
use serde_json::{Value, json};

/// Arguments every test Chrome gets: the machine has no network.
pub const TEST_CHROME_ARGS: &[&str] = &["--disable-quic", "--disable-gpu"];

/// Launch options for a headless test Chrome.
pub fn launch_options(profile: Option<PathBuf>) -> abx_chrome::LaunchOptions {
    abx_chrome::LaunchOptions {
        profile,
        args: TEST_CHROME_ARGS.iter().map(ToString::to_string).collect(),
        ..Default::default()
    }
}

impl std::fmt::Debug for Page {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Page").finish_non_exhaustive()
    }
}

/// A page target driven over raw CDP.
pub struct Page {
    pub session: Session,
    pub target_id: String,
}

impl Page {
    /// Opens a new tab at about:blank and attaches to it.
    pub async fn open(conn: &Connection) -> Page {
        let created = conn
            .browser()
            .call_json("Target.createTarget", json!({"url": "about:blank"}))
            .await
            .expect("Target.createTarget");
        let target_id = created["targetId"].as_str().expect("targetId").to_string();
        let session = conn.attach(&target_id).await.expect("attach");
        session
            .call_json("Page.enable", json!({}))
            .await
            .expect("Page.enable");
        session
            .call_json("Runtime.enable", json!({}))
            .await
            .expect("Runtime.enable");
        Page { session, target_id }
    }

    /// Navigates and waits for the load event.
    pub async fn goto(&self, url: &str) {
        let mut loads = self
            .session
            .subscribe(EventFilter::methods(["Page.loadEventFired"]), 8);
        let reply = self
            .session
            .call_json("Page.navigate", json!({"url": url}))
            .await
            .expect("navigate");
        assert!(
            reply.get("errorText").is_none(),
            "navigation to {url} failed: {reply}"
        );
        tokio::time::timeout(Duration::from_secs(15), loads.recv())
            .await
            .expect("load event within 15 s")
            .expect("session alive");
    }

    /// Evaluates an expression and returns its JSON value.
    pub async fn eval(&self, expression: &str) -> Value {
        let reply = self
            .session
            .call_json(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await
            .expect("Runtime.evaluate");
        if let Some(exception) = reply.get("exceptionDetails") {
            panic!("{expression} threw: {exception}");
        }
        reply["result"]["value"].clone()
    }

    /// Polls `expression` until it is truthy (a navigation in between is tolerated).
    pub async fn wait_for(&self, expression: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let reply = self
                .session
                .call_json(
                    "Runtime.evaluate",
                    json!({"expression": expression, "returnByValue": true}),
                )
                .await;
            if let Ok(reply) = reply
                && reply["result"]["value"].as_bool() == Some(true)
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{expression} not true within {within:?}"
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

/// Which of `pids` are still alive (zombies count as gone).
pub fn pids_alive(pids: &[i32]) -> Vec<i32> {
    pids.iter()
        .copied()
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|stat| {
                    stat.rfind(')')
                        .map(|i| stat[i + 1..].trim_start().to_string())
                })
                .is_some_and(|rest| !rest.starts_with('Z') && !rest.starts_with('X'))
        })
        .collect()
}

/// Waits until every pid is gone; returns how long it took, or `None` on timeout.
pub async fn wait_gone(pids: &[i32], within: Duration) -> Option<Duration> {
    let started = Instant::now();
    loop {
        if pids_alive(pids).is_empty() {
            return Some(started.elapsed());
        }
        if started.elapsed() > within {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Every live process of a process group (by `/proc`).
pub fn group_members(pgid: i32) -> Vec<i32> {
    abx_chrome::group::members(pgid)
}

/// Kills the given process group (cleanup for a test that failed half way).
pub fn kill_group(pgid: i32) {
    let _ = abx_chrome::group::signal(pgid, nix::sys::signal::Signal::SIGKILL);
}

/// [`wait_gone`] for synchronous tests.
pub fn wait_gone_blocking(pids: &[i32], within: Duration) -> Option<Duration> {
    let started = Instant::now();
    loop {
        if pids_alive(pids).is_empty() {
            return Some(started.elapsed());
        }
        if started.elapsed() > within {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Processes whose parent is `pid` (direct children), from /proc.
pub fn children(pid: i32) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 2..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(1).and_then(|p| p.parse::<i32>().ok()) == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// A process's command line with spaces for NULs (empty when it is gone).
pub fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

// Here rather than in `fresh_binary.rs`, which several test crates include: run once.
#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::fresh_binary::dep_info_sources;

    #[test]
    fn dep_info_lists_every_prerequisite() {
        let text = "/t/debug/agent-browser: /w/cli/src/main.rs /w/a\\ b.rs \\\n /w/c.rs\n\n/w/cli/src/main.rs:\n";
        assert_eq!(
            dep_info_sources(text),
            vec![
                PathBuf::from("/w/cli/src/main.rs"),
                PathBuf::from("/w/a b.rs"),
                PathBuf::from("/w/c.rs"),
            ]
        );
    }
}
