//! When a session daemon ends, black-box against real Chromium: never in the middle of a
//! command (the idle timeout counts from the end of the last one), and it still ends by itself
//! once idle.

use std::time::{Duration, Instant};

use abx_tests::cli::Cli;
use abx_tests::wait_for;

mod common;
use common::site;

#[test]
fn the_idle_timeout_never_ends_the_daemon_while_a_command_runs() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "800");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    // One command that takes three idle timeouts: the page answers only after 2.5 s.
    let started = Instant::now();
    let out = ab
        .run(&[
            "eval",
            "new Promise((resolve) => setTimeout(() => resolve(document.title), 2500))",
        ])
        .success();
    assert_eq!(out.out(), "\"Page One\"");
    assert!(started.elapsed() >= Duration::from_millis(2400));
    // The same daemon and browser answer right after it.
    assert_eq!(ab.daemon_pid(), Some(daemon));
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Page One");
    assert_eq!(ab.daemon_pid(), Some(daemon), "the daemon was replaced");
    // And once nothing runs, the idle timeout still ends it, and its files go with it.
    assert!(
        abx_tests::wait_gone_blocking(&[daemon], Duration::from_secs(10)).is_some(),
        "daemon still running after its idle timeout"
    );
    assert!(!ab.file("sock").exists() && !ab.file("pid").exists());
}

/// Guards the daemon's exit after `close` (it waits for its connections, no longer for a fixed
/// pause): a command still running when `close` arrives gets its answer, an error naming the
/// closed browser, before the daemon is gone; `close` itself succeeds and leaves no daemon.
#[test]
fn a_command_running_when_close_arrives_is_answered_before_the_daemon_exits() {
    let site = site();
    let ab = Cli::new()
        .env("AGENT_BROWSER_DEBUG", "1")
        .env("ABX_LOG", "abx_daemon=debug");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    let slow = ab.spawn(&[
        "eval",
        "new Promise((resolve) => setTimeout(() => resolve(document.title), 5000))",
    ]);
    // The eval is running once the daemon logged it.
    wait_for(
        Duration::from_secs(10),
        "the eval reaching the daemon",
        || {
            std::fs::read_to_string(ab.file("log"))
                .unwrap_or_default()
                .contains("action=evaluate")
        },
    );
    ab.run(&["close"]).success();
    let answered = abx_tests::cli::finish(slow);
    assert_eq!(answered.code, 1, "{answered:?}");
    assert!(
        answered.stderr.contains("the session is closing"),
        "the running eval got no answer of its own: {answered:?}"
    );
    assert!(
        abx_tests::wait_gone_blocking(&[daemon], Duration::from_secs(5)).is_some(),
        "daemon still running after close"
    );
    assert!(!ab.file("sock").exists() && !ab.file("pid").exists());
}

/// A daemon killed by SIGKILL cannot remove its files. The next `close` removes them, as
/// upstream's does, and keeps `.target`; `session list` then shows no session.
#[test]
fn close_after_the_daemon_was_killed_removes_the_files_it_left() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let pid: i32 = std::fs::read_to_string(ab.file("pid"))
        .expect("pid file")
        .trim()
        .parse()
        .expect("a pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill the daemon");
    assert!(
        abx_tests::wait_gone_blocking(&[pid], Duration::from_secs(10)).is_some(),
        "the daemon outlived SIGKILL"
    );
    // The main thread shows as a zombie before the other threads have exited and the listening
    // socket is closed; until then a connection is still taken (and reset): wait for the
    // refusal that a dead daemon's socket gives.
    let socket = ab.file("sock");
    assert!(
        abx_tests::wait_until(Duration::from_secs(10), || {
            std::os::unix::net::UnixStream::connect(&socket).is_err()
        }),
        "the killed daemon's socket still takes connections"
    );
    assert!(socket.exists(), "nothing was left to clean");

    let closed = ab.run(&["close"]).success();
    assert!(closed.out().contains("Browser closed"), "{closed:?}");
    for suffix in ["sock", "pid", "version", "stream", "engine", "config"] {
        assert!(!ab.file(suffix).exists(), ".{suffix} left after close");
    }
    assert!(
        ab.file("target").exists(),
        ".target is kept, as upstream keeps it"
    );
    let listed = ab.run(&["session", "list"]).success();
    assert!(listed.out().contains("No active sessions"), "{listed:?}");
}
