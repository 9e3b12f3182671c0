//! The Host's sequence (seed 000 §4/§6): an anchor session owning Chrome with a profile, stage
//! sessions attached over CDP with a pinned tab each, stage teardown (`tab close`, `close`),
//! anchor close, and the persistent cookie after reopening.

use std::time::Duration;

use abx_tests::cli::Cli;
use abx_tests::{group_members, wait_gone_blocking};

mod common;

#[test]
fn anchor_and_stage_sessions_follow_the_hosts_lifecycle() {
    let site = common::site();
    let root = tempfile::tempdir().expect("root");
    let profile = root.path().join("profile");
    let empty_config = root.path().join("agent-browser.empty.json");
    std::fs::write(&empty_config, "{}").expect("config");
    let anchor = Cli::new()
        .session("sf-work")
        .env("AGENT_BROWSER_PROFILE", profile.to_str().expect("utf8"))
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0")
        .env("AGENT_BROWSER_CONFIG", empty_config.to_str().expect("utf8"));
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    assert!(
        cdp.starts_with("ws://127.0.0.1:") && cdp.contains("/devtools/browser/"),
        "{cdp}"
    );
    let chrome_pid = chrome_pid_of(&cdp).expect("the anchor's Chrome");

    let stage = anchor
        .sibling("sf-work-a1b2c3")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", &cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0")
        .env("AGENT_BROWSER_CONFIG", empty_config.to_str().expect("utf8"));
    stage.run(&["open", &site.url("/login.html")]).success();
    assert_eq!(
        stage.run(&["get", "url"]).success().out(),
        site.url("/login.html")
    );
    // Log in through the page (the form posts and redirects to /account).
    stage.run(&["fill", "#username", "ada"]).success();
    stage.run(&["fill", "#password", "pw"]).success();
    stage.run(&["click", "#signin"]).success();
    stage.run(&["wait", "--url", "**/account"]).success();
    assert_eq!(
        stage.run(&["get", "text", "#persist"]).success().out(),
        "ada"
    );

    // The anchor's own tab is untouched by the stage.
    assert_eq!(anchor.run(&["get", "url"]).success().out(), "about:blank");

    // Stage teardown: its tab, then its session. The anchor keeps running.
    let tabs_before = anchor.run(&["--json", "tab", "list"]).success().json()["data"]["tabs"]
        .as_array()
        .map(Vec::len);
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    assert!(stage.daemon_pid().is_none());
    assert_eq!(
        anchor.run(&["get", "cdp-url"]).success().out(),
        cdp,
        "the anchor survives stage teardown"
    );
    let tabs_after = anchor.run(&["--json", "tab", "list"]).success().json()["data"]["tabs"]
        .as_array()
        .map(Vec::len);
    assert_eq!(
        tabs_after,
        tabs_before.map(|n| n - 1),
        "exactly the stage's tab was closed"
    );

    // Closing the anchor ends Chrome gracefully.
    anchor.run(&["close"]).success();
    let members = vec![chrome_pid];
    assert!(
        wait_gone_blocking(&members, Duration::from_secs(5)).is_some(),
        "Chrome survived the anchor's close"
    );
    assert!(group_members(chrome_pid).is_empty());

    // Reopen the anchor on the same profile: the persistent cookie is there, the session one not.
    anchor.run(&["open", &site.url("/account")]).success();
    assert_eq!(
        anchor.run(&["get", "text", "#persist"]).success().out(),
        "ada"
    );
    assert_eq!(
        anchor.run(&["get", "text", "#session"]).success().out(),
        "none"
    );
    anchor.run(&["close"]).success();
}

/// The pid listening on the CDP port of `ws_url`, from /proc/net/tcp (our Chrome).
fn chrome_pid_of(ws_url: &str) -> Option<i32> {
    let port: u16 = ws_url
        .trim_start_matches("ws://127.0.0.1:")
        .split('/')
        .next()?
        .parse()
        .ok()?;
    let tcp = std::fs::read_to_string("/proc/net/tcp").ok()?;
    let inode = tcp.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local = fields.get(1)?;
        let state = fields.get(3)?;
        let local_port = u16::from_str_radix(local.rsplit(':').next()?, 16).ok()?;
        (local_port == port && *state == "0A").then(|| fields.get(9).map(ToString::to_string))?
    })?;
    let needle = format!("socket:[{inode}]");
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            if std::fs::read_link(fd.path()).is_ok_and(|l| l.to_string_lossy() == needle) {
                return Some(pid);
            }
        }
    }
    None
}
