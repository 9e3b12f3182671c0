//! Chrome we own: launch, navigate, graceful close with cookie persistence, verified cleanup,
//! the orphan guard, and launch failures — against real Chromium.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use abx_cdp::Connection;
use abx_chrome::{Chrome, LaunchError, LaunchOptions};
use abx_fixtures::FixtureServer;
use abx_tests::{
    Page, group_members, kill_group, launch_options, pids_alive, wait_gone, wait_until_async,
};

#[tokio::test]
async fn launch_headless_navigate_and_read_the_title() {
    let site = FixtureServer::start().await.expect("fixture server");
    let chrome = Chrome::launch(launch_options(None)).await.expect("launch");
    assert!(
        chrome.ws_url().starts_with("ws://127.0.0.1:"),
        "{}",
        chrome.ws_url()
    );
    assert!(chrome.ws_url().contains("/devtools/browser/"));
    let conn = Connection::connect(chrome.ws_url()).await.expect("connect");
    let page = Page::open(&conn).await;
    page.goto(&site.url("/page1.html")).await;
    assert_eq!(page.eval("document.title").await, "Page One");
    // The http:// form resolves through /json/version to the same browser.
    let via_http = Connection::connect(&format!("http://127.0.0.1:{}", chrome.port()))
        .await
        .expect("connect over http discovery");
    let targets = via_http
        .browser()
        .call_json("Target.getTargets", serde_json::json!({}))
        .await
        .expect("targets");
    assert!(
        targets["targetInfos"]
            .as_array()
            .expect("array")
            .iter()
            .any(|t| t["targetId"] == page.target_id.as_str()),
        "the http-resolved connection sees the same tab"
    );
    let pgid = chrome.pid();
    let profile = chrome.user_data_dir().expect("profile").to_path_buf();
    let receipt = chrome.close(Some(&conn)).await;
    assert!(
        receipt.graceful,
        "Browser.close should end Chrome on its own: {receipt:?}"
    );
    assert!(receipt.verified, "{receipt:?}");
    assert!(
        group_members(pgid).is_empty(),
        "processes of the group survived the close"
    );
    assert!(
        !profile.exists(),
        "temp profile {} left behind",
        profile.display()
    );
}

/// Logs in on the fixture site, closes gracefully, relaunches on the same profile.
async fn login_close_reopen_cycle(site: &FixtureServer, profile: &std::path::Path, cycle: usize) {
    let chrome = Chrome::launch(launch_options(Some(profile.to_path_buf())))
        .await
        .expect("launch");
    let conn = Connection::connect(chrome.ws_url()).await.expect("connect");
    let page = Page::open(&conn).await;
    if cycle > 0 {
        // What the previous cycle left: the persistent cookie only.
        page.goto(&site.url("/account")).await;
        let persist = page
            .eval("document.querySelector('#persist').textContent")
            .await;
        let session = page
            .eval("document.querySelector('#session').textContent")
            .await;
        assert_eq!(
            persist,
            format!("user{}", cycle - 1),
            "persistent cookie lost after graceful close (cycle {cycle})"
        );
        assert_eq!(
            session, "none",
            "session cookie survived a browser restart (cycle {cycle})"
        );
    }
    page.goto(&site.url("/login.html")).await;
    page.eval(&format!(
        "document.querySelector('#username').value = 'user{cycle}';
         document.querySelector('#password').value = 'pw';
         setTimeout(() => document.querySelector('#signin').click(), 0); true"
    ))
    .await;
    page.wait_for(
        "location.pathname === '/account' && document.readyState === 'complete'",
        Duration::from_secs(10),
    )
    .await;
    assert_eq!(
        page.eval("document.querySelector('#session').textContent")
            .await,
        format!("user{cycle}-s")
    );
    let pgid = chrome.pid();
    let receipt = chrome.close(Some(&conn)).await;
    assert!(receipt.graceful && receipt.verified, "{receipt:?}");
    assert!(group_members(pgid).is_empty());
    assert!(profile.exists(), "a persistent profile must be kept");
}

#[tokio::test]
async fn graceful_close_keeps_persistent_cookies_and_drops_session_cookies() {
    let site = FixtureServer::start().await.expect("fixture server");
    let dir = tempfile::tempdir().expect("temp dir");
    let profile = dir.path().join("profile");
    for cycle in 0..3 {
        login_close_reopen_cycle(&site, &profile, cycle).await;
    }
}

#[tokio::test]
#[ignore = "soak: 20 cycles, run with --ignored"]
async fn graceful_close_keeps_cookies_over_20_cycles() {
    let site = FixtureServer::start().await.expect("fixture server");
    let dir = tempfile::tempdir().expect("temp dir");
    let profile = dir.path().join("profile");
    for cycle in 0..21 {
        login_close_reopen_cycle(&site, &profile, cycle).await;
    }
}

#[tokio::test]
async fn a_missing_executable_is_a_clear_error_and_leaves_nothing() {
    let temp_root = tempfile::tempdir().expect("temp root");
    let options = LaunchOptions {
        executable: Some(PathBuf::from("/nonexistent/abx/chromium")),
        temp_dir: Some(temp_root.path().to_path_buf()),
        ..launch_options(None)
    };
    let err = Chrome::launch(options).await.expect_err("must fail");
    assert!(
        matches!(err, LaunchError::ExecutableNotFound { .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("/nonexistent/abx/chromium"),
        "{err}"
    );
    assert_eq!(
        entries(temp_root.path()),
        Vec::<PathBuf>::new(),
        "a failed launch must not leave a temp profile"
    );
}

#[tokio::test]
async fn chrome_that_exits_early_reports_its_stderr_and_leaves_nothing() {
    // `false` exits at once with status 1, like a Chrome that cannot start.
    let fake = tempfile::tempdir().expect("temp dir");
    let script = fake.path().join("fake-chrome");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'FATAL: cannot open display: sandbox says no' >&2\nexit 3\n",
    )
    .expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let temp_root = tempfile::tempdir().expect("temp root");
    let err = Chrome::launch(LaunchOptions {
        executable: Some(script),
        temp_dir: Some(temp_root.path().to_path_buf()),
        ..launch_options(None)
    })
    .await
    .expect_err("must fail");
    let text = err.to_string();
    assert!(matches!(err, LaunchError::ExitedEarly { .. }), "{text}");
    assert!(
        text.contains("cannot open display"),
        "stderr must be carried: {text}"
    );
    assert_eq!(
        entries(temp_root.path()),
        Vec::<PathBuf>::new(),
        "a failed launch must not leave a temp profile"
    );
}

fn entries(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|e| e.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    found
}

/// Entry point of the owning helper process: launches Chrome, prints `pid profile`, waits.
#[tokio::test]
#[ignore = "helper process for owner_killed_with_sigkill_takes_chrome_down"]
async fn holder_entry() {
    if std::env::var("ABX_TEST_HOLDER").is_err() {
        return;
    }
    let chrome = Chrome::launch(launch_options(None)).await.expect("launch");
    println!(
        "HOLDER {} {} {}",
        chrome.pid(),
        chrome.user_data_dir().expect("profile").display(),
        chrome.guard_pid().unwrap_or(0)
    );
    tokio::time::sleep(Duration::from_secs(120)).await;
    drop(chrome);
}

#[tokio::test]
async fn owner_killed_with_sigkill_takes_chrome_down() {
    use tokio::io::AsyncBufReadExt;
    let exe = std::env::current_exe().expect("test exe");
    let mut holder = tokio::process::Command::new(exe)
        .args([
            "holder_entry",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("ABX_TEST_HOLDER", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn holder");
    let stdout = holder.stdout.take().expect("stdout");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(at) = line.find("HOLDER ") {
                return Some(line[at..].to_string());
            }
        }
        None
    })
    .await
    .expect("holder reports within 30 s")
    .expect("holder line");
    let mut parts = line.split_whitespace().skip(1);
    let pgid: i32 = parts.next().and_then(|p| p.parse().ok()).expect("pid");
    let profile = PathBuf::from(parts.next().expect("profile"));
    let members = group_members(pgid);
    assert!(!members.is_empty(), "Chrome should be running");
    assert!(profile.exists());

    holder.start_kill().expect("SIGKILL the owner");
    let _ = holder.wait().await;
    let took = wait_gone(&members, Duration::from_secs(2)).await;
    if took.is_none() {
        kill_group(pgid);
    }
    assert!(
        took.is_some(),
        "Chrome survived its owner's SIGKILL: {:?} alive",
        pids_alive(&members)
    );
    assert!(
        wait_until_async(Duration::from_secs(2), || std::future::ready(
            !profile.exists()
        ))
        .await,
        "the orphan guard must remove the temp profile"
    );
}

#[tokio::test]
async fn headed_without_a_display_gets_a_private_xvfb_that_goes_away_with_chrome() {
    // A requirement, not an option: without Xvfb this test would check nothing.
    assert!(
        which_xvfb().is_some(),
        "Xvfb is not installed: scripts/ensure-chromium.sh installs it (Debian package xvfb)"
    );
    let site = FixtureServer::start().await.expect("fixture server");
    let options = LaunchOptions {
        headless: false,
        display: None,
        ..launch_options(None)
    };
    let chrome = Chrome::launch(options)
        .await
        .expect("headed launch under Xvfb");
    let display = chrome
        .xvfb_display()
        .expect("a private display")
        .to_string();
    assert!(display.starts_with(':'), "{display}");
    let xvfb_pid = chrome.xvfb_pid().expect("xvfb pid") as i32;
    let conn = Connection::connect(chrome.ws_url()).await.expect("connect");
    let page = Page::open(&conn).await;
    page.goto(&site.url("/page2.html")).await;
    assert_eq!(page.eval("document.title").await, "Page Two");
    assert_eq!(
        page.eval("navigator.userAgent.includes('Headless')").await,
        false,
        "must be headed"
    );
    let receipt = chrome.close(Some(&conn)).await;
    assert!(receipt.verified && receipt.xvfb_stopped, "{receipt:?}");
    assert!(
        wait_gone(&[xvfb_pid], Duration::from_secs(2))
            .await
            .is_some(),
        "Xvfb survived the close"
    );
}

fn which_xvfb() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("Xvfb"))
            .find(|p| p.is_file())
    })
}
