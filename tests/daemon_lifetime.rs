//! When a session daemon ends, black-box against real Chromium: never in the middle of a
//! command (the idle timeout counts from the end of the last one), and it still ends by itself
//! once idle.

use std::time::{Duration, Instant};

use abx_tests::cli::Cli;

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
