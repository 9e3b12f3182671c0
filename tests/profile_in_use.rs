//! A second session on a persistent profile that a live session's Chrome holds, black-box
//! against real Chromium (the headless shell, which takes no `SingletonLock`, and full Chrome,
//! which does): it fails at once naming the holder, leaves no daemon and no socket files, its
//! `close` succeeds, and the first session is untouched. More generally, a daemon whose launch
//! failed exits.

use std::path::Path;
use std::time::{Duration, Instant};

use abx_tests::cli::Cli;
use abx_tests::wait_until;

mod common;
use common::site;

/// The files a live daemon keeps in the socket directory.
const DAEMON_FILES: &[&str] = &[
    "sock", "pid", "version", "stream", "engine", "config", "port",
];

/// Waits (up to 5 s) for the daemon's exit to remove its files, then asserts they are gone.
fn assert_no_daemon_files(ab: &Cli) {
    wait_until(Duration::from_secs(5), || {
        !DAEMON_FILES.iter().any(|s| ab.file(s).exists())
    });
    for suffix in DAEMON_FILES {
        assert!(
            !ab.file(suffix).exists(),
            "{}.{suffix} left behind",
            ab.session_name()
        );
    }
}

/// The pid named in `… (pid N…`.
fn named_pid(text: &str) -> i32 {
    text.split("(pid ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no pid in {text:?}"))
}

fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

fn second_session_fails_fast_and_leaves_nothing(executable: Option<&str>, profile: &Path) {
    let with_exe = |cli: Cli| match executable {
        Some(exe) => cli.env("AGENT_BROWSER_EXECUTABLE_PATH", exe),
        None => cli,
    };
    let first = with_exe(Cli::new());
    let site = site();
    let page = site.url("/page1.html");
    let profile_arg = profile.to_string_lossy().to_string();
    first
        .run(&["--profile", &profile_arg, "open", &page])
        .success();

    let second = with_exe(first.sibling("second"));
    let started = Instant::now();
    let out = second
        .run(&["--profile", &profile_arg, "open", &page])
        .failure();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("is in use by another Chrome"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains(&profile_arg), "{}", out.stderr);
    assert!(out.stderr.contains("session \"t\""), "{}", out.stderr);
    assert!(
        out.stderr.contains("agent-browser --session t close"),
        "{}",
        out.stderr
    );
    let holder = named_pid(&out.stderr);
    assert!(
        cmdline(holder).contains(&format!("--user-data-dir={profile_arg}")),
        "pid {holder} is not the profile's Chrome: {}",
        cmdline(holder)
    );
    // No daemon for the second session lives on, and none of its files stay.
    assert_no_daemon_files(&second);
    let listed = first.run(&["session", "list"]).success();
    assert!(!listed.stdout.contains("second"), "{}", listed.stdout);
    let closed = second.run(&["close"]).success();
    assert!(closed.took < Duration::from_secs(5));
    assert_no_daemon_files(&second);

    // The first session is untouched.
    assert_eq!(first.run(&["get", "title"]).success().out(), "Page One");
    first.run(&["close"]).success();
    // Once it is closed, the profile is free for the other session.
    second
        .run(&["--profile", &profile_arg, "open", &page])
        .success();
    second.run(&["close"]).success();
}

#[test]
fn a_second_session_on_a_profile_in_use_by_the_headless_shell_fails_at_once() {
    let profile = tempfile::tempdir().expect("profile");
    second_session_fails_fast_and_leaves_nothing(None, profile.path());
}

#[test]
fn a_second_session_on_a_profile_in_use_by_full_chrome_fails_at_once() {
    let profile = tempfile::tempdir().expect("profile");
    second_session_fails_fast_and_leaves_nothing(Some("/usr/bin/chromium"), profile.path());
}

#[test]
fn a_daemon_whose_launch_failed_exits_and_leaves_no_files() {
    let ab = Cli::new().env("AGENT_BROWSER_EXECUTABLE_PATH", "/nonexistent/chromium");
    let out = ab.run(&["open", "about:blank"]).failure();
    assert!(out.stderr.contains("Auto-launch failed"), "{}", out.stderr);
    assert_no_daemon_files(&ab);
    ab.run(&["close"]).success();
    // A later command starts afresh (and fails the same clear way).
    let again = ab.run(&["--json", "open", "about:blank"]).failure().json();
    assert!(
        again["error"]
            .as_str()
            .is_some_and(|e| e.contains("/nonexistent/chromium")),
        "{again}"
    );
}
