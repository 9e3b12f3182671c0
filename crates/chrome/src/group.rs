//! Process groups: signalling a group and finding who is still in it.

use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Live (non-zombie) processes whose process group is `pgid`, read from `/proc`.
pub fn members(pgid: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the command (which may contain spaces and parens): state ppid pgrp ...
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = after.split_whitespace();
        let state = fields.next().unwrap_or("");
        let _ppid = fields.next();
        let pgrp = fields.next().and_then(|s| s.parse::<i32>().ok());
        if pgrp == Some(pgid) && state != "Z" && state != "X" {
            found.push(pid);
        }
    }
    found
}

/// Sends `signal` to every process of the group; `false` when the group no longer exists.
pub fn signal(pgid: i32, signal: Signal) -> bool {
    killpg(Pid::from_raw(pgid), signal).is_ok()
}

/// Waits until the group has no live member, polling every 10 ms, up to `within`.
pub async fn wait_empty(pgid: i32, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if members(pgid).is_empty() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// SIGTERM, a grace period, then SIGKILL, then verification. Returns the signals sent and
/// whether the group ended up empty.
pub async fn terminate(pgid: i32, grace: Duration) -> (Vec<&'static str>, bool) {
    let mut sent = Vec::new();
    if members(pgid).is_empty() {
        return (sent, true);
    }
    if signal(pgid, Signal::SIGTERM) {
        sent.push("SIGTERM");
    }
    if wait_empty(pgid, grace).await {
        return (sent, true);
    }
    if signal(pgid, Signal::SIGKILL) {
        sent.push("SIGKILL");
    }
    let empty = wait_empty(pgid, Duration::from_secs(2)).await;
    (sent, empty)
}
