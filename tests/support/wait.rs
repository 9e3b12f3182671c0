//! Waiting for a condition instead of sleeping for a guessed time: the one polling helper of the
//! test packages (abx-tests re-exports it; the Host kit's tests include this file with `#[path]`).
//!
//! A test that sleeps "long enough" for something to happen passes or fails with the machine's
//! load; one that waits for the thing itself is as fast as the code and fails with a message
//! when it never happens. Callers assert on the returned `bool` with their own message.

// Included by path into other crates' tests too, where the module is private.
#![allow(unreachable_pub)]

use std::future::Future;
use std::time::{Duration, Instant};

/// How long between two looks: short against the conditions waited for (a command reaching the
/// daemon, a process going away), long enough not to busy the two cores the suite shares.
pub const POLL: Duration = Duration::from_millis(20);

/// Polls `condition` every [`POLL`] until it holds; whether it did within `within` (it is
/// checked once more at the deadline).
pub fn wait_until(within: Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if condition() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(POLL);
    }
}

/// [`wait_until`] that fails the test, naming `what` was awaited, when the condition does not
/// hold within `within`.
#[track_caller]
pub fn wait_for(within: Duration, what: &str, condition: impl FnMut() -> bool) {
    assert!(
        wait_until(within, condition),
        "{what}: not within {within:?}"
    );
}

/// [`wait_until`] for async tests: awaits `condition()` every [`POLL`] without blocking the
/// runtime.
pub async fn wait_until_async<F>(within: Duration, mut condition: impl FnMut() -> F) -> bool
where
    F: Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    loop {
        if condition().await {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL).await;
    }
}
