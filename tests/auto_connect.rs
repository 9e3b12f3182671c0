//! `profiles` (the Chrome user-data directory under HOME and its profiles) and `--auto-connect`
//! (a running Chrome found through the `DevToolsActivePort` file in a known user-data directory).
//! The test starts its own Chromium with `--remote-debugging-port=0` in `$HOME/.config/chromium`,
//! where upstream and abx both look, and ends it by its process group at the end.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use abx_tests::cli::Cli;
use abx_tests::{kill_group, pids_alive, wait_gone_blocking, wait_until};

mod common;

/// A Chromium we started ourselves, killed (its whole group) when dropped.
struct ExternalChrome {
    child: Child,
}

impl ExternalChrome {
    fn start(user_data_dir: &Path) -> ExternalChrome {
        let binary = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"]
            .into_iter()
            .find(|b| Path::new(b).exists())
            .expect("a Chromium on this machine");
        let child = Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", user_data_dir.display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start chromium");
        ExternalChrome { child }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }
}

impl Drop for ExternalChrome {
    fn drop(&mut self) {
        kill_group(self.pid());
        let _ = self.child.wait();
    }
}

fn wait_for_file(path: &Path, within: Duration) {
    assert!(
        wait_until(within, || path.exists()),
        "{} did not appear within {within:?}",
        path.display()
    );
}

#[test]
fn auto_connect_attaches_to_a_running_chrome_through_devtools_active_port() {
    let site = common::site();
    // As an agent would: the setting in the environment, so every command attaches.
    let ab = Cli::new()
        .session("auto1")
        .env("AGENT_BROWSER_AUTO_CONNECT", "1");
    let user_data = ab.home().join(".config/chromium");
    std::fs::create_dir_all(&user_data).expect("user data dir");
    let chrome = ExternalChrome::start(&user_data);
    wait_for_file(
        &user_data.join("DevToolsActivePort"),
        Duration::from_secs(30),
    );

    ab.run(&["open", &site.url("/page1.html")]).success();
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Page One");
    // The page is in the Chrome we started: the session launched none of its own.
    assert!(
        !ab.file("engine").exists(),
        "auto-connect launched a browser instead of attaching"
    );
    // The session's browser is the one we started: its CDP endpoint is our Chromium's port.
    let port = std::fs::read_to_string(user_data.join("DevToolsActivePort")).expect("port file");
    let port = port.lines().next().unwrap_or_default().to_string();
    let cdp = ab.run(&["get", "cdp-url"]).success().out().to_string();
    assert!(
        cdp.contains(&format!(":{port}/")),
        "{cdp} is not port {port}"
    );
    ab.run(&["close"]).success();
    // Closing an attached session detaches: the browser we own keeps running.
    assert_eq!(pids_alive(&[chrome.pid()]), vec![chrome.pid()]);
    let pid = chrome.pid();
    drop(chrome);
    assert!(
        wait_gone_blocking(&[pid], Duration::from_secs(10)).is_some(),
        "the test's Chromium survived"
    );
}

#[test]
fn auto_connect_without_a_running_chrome_is_a_clear_error() {
    let ab = Cli::new().session("auto2");
    let failed = ab.run(&["--auto-connect", "get", "url"]).failure();
    assert_eq!(failed.code, 1);
    assert!(
        failed.stderr.contains("No running Chrome instance found"),
        "{failed:?}"
    );
    let json = ab
        .run(&["--json", "--auto-connect", "get", "url"])
        .failure()
        .json();
    assert!(
        json["error"]
            .as_str()
            .is_some_and(|e| e.contains("--remote-debugging-port")),
        "{json}"
    );
    ab.run(&["close"]).success();
}

#[test]
fn profiles_lists_the_user_data_dir_profiles_like_upstream() {
    let ab = Cli::new().session("prof1");
    let missing = ab.run(&["profiles"]).failure();
    assert_eq!(missing.code, 1);
    assert_eq!(missing.stderr, "No Chrome user data directory found\n");
    let missing = ab.run(&["--json", "profiles"]).failure().json();
    assert_eq!(missing["success"], false);

    let dir = ab.home().join(".config/chromium");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::write(dir.join("Local State"), r#"{"profile":{}}"#).expect("write");
    assert_eq!(
        ab.run(&["profiles"]).success().out(),
        "No Chrome profiles found"
    );

    std::fs::write(
        dir.join("Local State"),
        r#"{"profile":{"info_cache":{"Profile 1":{"name":"Work"},"Default":{"name":"Person 1"}}}}"#,
    )
    .expect("write");
    assert_eq!(
        ab.run(&["profiles"]).success().stdout,
        format!(
            "Chrome profiles ({}):\n\n  Default  (Person 1)\n  Profile 1  (Work)\n",
            dir.display()
        )
    );
    let json = ab.run(&["--json", "profiles"]).success().json();
    assert_eq!(json["data"][1]["directory"], "Profile 1");
    assert_eq!(json["data"][1]["name"], "Work");
    // Google Chrome's directory comes first when both exist.
    let chrome = ab.home().join(".config/google-chrome");
    std::fs::create_dir_all(&chrome).expect("dir");
    std::fs::write(
        chrome.join("Local State"),
        r#"{"profile":{"info_cache":{"Default":{"name":"Chrome user"}}}}"#,
    )
    .expect("write");
    assert!(
        ab.run(&["profiles"])
            .success()
            .stdout
            .contains("google-chrome"),
    );
    assert!(ab.daemon_pid().is_none(), "profiles started a daemon");
}
