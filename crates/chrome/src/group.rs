//! Process groups: signalling a group and finding who is still in it.
//!
//! A process group id of 0 or 1 is never signalled: `killpg(0, …)` signals the caller's own
//! group and `killpg(1, …)` init's (and `kill(-1, …)` every process we may signal). Such an id
//! only reaches us by mistake (a child whose pid could not be read is recorded as 0), so
//! [`signal`] refuses it with [`SignalError::UnsafeGroup`].

use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Why a process group was not signalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignalError {
    /// The id is 0, 1 or negative: signalling it would reach our own process group, init, or
    /// every process we may signal.
    #[error(
        "refusing to signal process group {pgid}: only a launched child's own group (id > 1) may be signalled"
    )]
    UnsafeGroup {
        /// The refused id.
        pgid: i32,
    },
    /// No process of the group is left.
    #[error("process group {pgid} no longer exists")]
    Gone {
        /// The group id.
        pgid: i32,
    },
    /// The kernel refused the signal (for example `EPERM`).
    #[error("cannot signal process group {pgid}: {errno}")]
    Os {
        /// The group id.
        pgid: i32,
        /// The error `killpg` returned.
        errno: Errno,
    },
}

/// Whether `pgid` names a process group we may signal (a launched child's own group).
pub fn is_signallable(pgid: i32) -> bool {
    pgid > 1
}

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

/// Sends `signal` to every process of the group. Refuses ids 0, 1 and negative ones (see the
/// module docs) without calling `killpg`.
pub fn signal(pgid: i32, signal: Signal) -> Result<(), SignalError> {
    if !is_signallable(pgid) {
        return Err(SignalError::UnsafeGroup { pgid });
    }
    killpg(Pid::from_raw(pgid), signal).map_err(|errno| match errno {
        Errno::ESRCH => SignalError::Gone { pgid },
        errno => SignalError::Os { pgid, errno },
    })
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
        // Helpers leave within a few ms of the main process; `close` waits on this.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// SIGTERM, a grace period, then SIGKILL, then verification. Returns the signals sent and
/// whether the group ended up empty. A group id that may not be signalled (see [`signal`]) gets
/// no signal and is not reported empty.
pub async fn terminate(pgid: i32, grace: Duration) -> (Vec<&'static str>, bool) {
    let mut sent = Vec::new();
    if !is_signallable(pgid) {
        tracing::warn!(pgid, "not terminating an unsafe process group id");
        return (sent, false);
    }
    if members(pgid).is_empty() {
        return (sent, true);
    }
    if signal(pgid, Signal::SIGTERM).is_ok() {
        sent.push("SIGTERM");
    }
    if wait_empty(pgid, grace).await {
        return (sent, true);
    }
    if signal(pgid, Signal::SIGKILL).is_ok() {
        sent.push("SIGKILL");
    }
    let empty = wait_empty(pgid, Duration::from_secs(2)).await;
    (sent, empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a pid of 0 (a child whose pid could not be read) or 1 must never reach
    /// `killpg`, which would signal our own process group or init's. SIGCONT keeps the test
    /// harmless if the guard is missing: the assertion fails instead of the test run.
    #[test]
    fn group_signal_refuses_our_own_group_init_and_negative_ids() {
        for pgid in [0, 1, -1, -42] {
            assert_eq!(
                signal(pgid, Signal::SIGCONT),
                Err(SignalError::UnsafeGroup { pgid }),
                "pgid {pgid}"
            );
        }
        assert!(!is_signallable(1));
        assert!(is_signallable(2));
    }

    #[tokio::test]
    async fn terminate_never_signals_an_unsafe_group() {
        // Our own group has live members (this test process): an unguarded terminate(0) would
        // SIGTERM the test run.
        assert!(!members(nix::unistd::getpgrp().as_raw()).is_empty());
        let (signals, empty) = terminate(0, Duration::from_millis(10)).await;
        assert!(signals.is_empty(), "{signals:?}");
        assert!(!empty);
    }

    #[test]
    fn a_group_that_is_gone_is_reported_gone() {
        // Pids near the top of the range are practically never in use.
        let pgid = 4_194_000;
        if members(pgid).is_empty() {
            assert_eq!(
                signal(pgid, Signal::SIGCONT),
                Err(SignalError::Gone { pgid })
            );
        }
    }
}
