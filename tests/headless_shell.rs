//! The headless shell as the default headless binary (docs/adr/0007-headless-shell.md): which
//! binary a session runs and says it runs, full Chrome whenever something needs it, a profile
//! that keeps its binary, a launch hash that includes it, and what the shell does differently.
//!
//! `probe_*` are the measurements behind the ADR's feature table: the same CDP and page probes
//! against `chromium-headless-shell` and full `chromium --headless=new`, printed instead of
//! asserted (Chrome's behaviour is the subject), so they are `#[ignore]`d:
//! `cargo test -p abx-tests --test headless_shell -- --ignored --nocapture --test-threads=1`.

#![allow(clippy::unwrap_used)] // probes: a failed call is itself the finding

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use abx_cdp::{Connection, EventFilter, Session};
use abx_chrome::{BrowserKind, Choice, Chrome, LaunchError, LaunchOptions, Transport};
use abx_fixtures::FixtureServer;
use abx_tests::cli::Cli;
use abx_tests::{Page, launch_options, pids_alive, wait_for};
use serde_json::{Value, json};

const SHELL: &str = "/usr/bin/chromium-headless-shell";
const FULL: &str = "/usr/bin/chromium";

fn cli() -> Cli {
    Cli::new()
}

fn shell_installed() -> PathBuf {
    let found = abx_chrome::HEADLESS_SHELL_CANDIDATES
        .iter()
        .find_map(|name| which(name));
    let found = found
        .expect("chromium-headless-shell is not installed: scripts/ensure-chromium.sh installs it");
    abx_chrome::skip_passthrough_wrapper(&found)
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
    })
}

fn browser_of(json: &Value) -> Value {
    json["data"]["lifecycle"]["effectiveLaunch"]["browser"].clone()
}

/// The real executable of a process (`/proc/<pid>/exe`).
fn exe_of(pid: i32) -> PathBuf {
    std::fs::read_link(format!("/proc/{pid}/exe")).expect("exe link")
}

/// The Chrome the daemon started (its child with a debugging port).
fn chrome_pid_of(ab: &Cli) -> i32 {
    let daemon = ab.daemon_pid().expect("daemon pid");
    let parent_of = |pid: i32| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let rest = &stat[stat.rfind(')')? + 2..];
        rest.split_whitespace().nth(1)?.parse::<i32>().ok()
    };
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| parent_of(*pid) == Some(daemon))
        .find(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.contains("--remote-debugging"))
        })
        .expect("the daemon's Chrome")
}

#[test]
fn a_default_headless_session_runs_the_shell_and_says_which_binary_runs() {
    let shell = shell_installed();
    let site = common::site();
    let ab = cli();
    let open = ab
        .run(&["--json", "open", &site.url("/page1.html")])
        .success()
        .json();
    let browser = browser_of(&open);
    assert_eq!(browser["kind"], "headless-shell", "{open}");
    assert_eq!(browser["choice"], "headless-shell", "{open}");
    assert_eq!(browser["executablePath"], json!(shell), "{open}");
    assert_eq!(browser["needsFullChrome"], json!([]));
    // The process we own is the shell itself, not a launcher script around it.
    let pid = chrome_pid_of(&ab);
    assert_eq!(exe_of(pid), shell);
    let ua = ab.run(&["eval", "navigator.userAgent"]).success();
    assert!(ua.out().contains("HeadlessChrome/"), "{ua:?}");
    // Every later answer names the same binary.
    let title = ab.run(&["--json", "get", "title"]).success().json();
    assert_eq!(browser_of(&title), browser);
    assert_eq!(title["data"]["title"], "Page One");
    ab.run(&["close"]).success();
    assert!(pids_alive(&[pid]).is_empty(), "Chrome {pid} survived close");
}

#[test]
fn an_explicit_executable_path_still_wins_and_runs_full_chromium_headless() {
    let site = common::site();
    let ab = cli().env("AGENT_BROWSER_EXECUTABLE_PATH", "chromium");
    let open = ab
        .run(&["--json", "open", &site.url("/page1.html")])
        .success()
        .json();
    let browser = browser_of(&open);
    assert_eq!(browser["kind"], "chrome", "{open}");
    assert_eq!(browser["choice"], "explicit", "{open}");
    assert_eq!(open["data"]["title"], "Page One");
    // Full Chrome's own features are there: its PDF viewer plugin.
    let plugins = ab.run(&["eval", "navigator.plugins.length"]).success();
    assert_ne!(plugins.out(), "0", "{plugins:?}");
    ab.run(&["close"]).success();
}

#[test]
fn headed_runs_full_chrome_without_being_asked() {
    let ab = cli().env("AGENT_BROWSER_HEADED", "1");
    let open = ab.run(&["--json", "open", "about:blank"]).success().json();
    let browser = browser_of(&open);
    assert_eq!(browser["kind"], "chrome", "{open}");
    assert_eq!(browser["choice"], "needs-full-chrome", "{open}");
    assert_eq!(browser["needsFullChrome"], json!(["headed"]), "{open}");
    let ua = ab.run(&["eval", "navigator.userAgent"]).success();
    assert!(!ua.out().contains("Headless"), "{ua:?}");
    ab.run(&["close"]).success();
}

#[test]
fn one_session_never_runs_two_binaries_without_a_relaunch() {
    shell_installed();
    let site = common::site();
    let ab = cli();
    let first = ab
        .run(&["--json", "open", &site.url("/page1.html")])
        .success()
        .json();
    assert_eq!(browser_of(&first)["kind"], "headless-shell");
    let hash = first["data"]["lifecycle"]["effectiveLaunch"]["launchHash"].clone();
    // The same settings again: the same browser.
    let same = ab
        .run(&["--json", "--user-agent", "abx-same", "get", "url"])
        .success()
        .json();
    let same_hash = same["data"]["lifecycle"]["effectiveLaunch"]["launchHash"].clone();
    assert_ne!(same_hash, hash, "a user agent is a launch setting");
    assert_eq!(browser_of(&same)["kind"], "headless-shell");
    let page = site.url("/page1.html");
    let again = ab
        .run(&["--json", "--user-agent", "abx-same", "open", &page])
        .success()
        .json();
    assert_eq!(
        again["data"]["lifecycle"]["effectiveLaunch"]["launchHash"],
        same_hash
    );
    assert_eq!(
        ab.run(&["--user-agent", "abx-same", "get", "url"])
            .success()
            .out(),
        page,
        "not relaunched"
    );
    // Another binary is another launch hash and a visible relaunch.
    let full = ab
        .run(&[
            "--json",
            "--user-agent",
            "abx-same",
            "--executable-path",
            "chromium",
            "get",
            "url",
        ])
        .success()
        .json();
    assert_eq!(full["data"]["url"], "about:blank", "relaunched: {full}");
    assert_ne!(
        full["data"]["lifecycle"]["effectiveLaunch"]["launchHash"],
        same_hash
    );
    assert_eq!(browser_of(&full)["kind"], "chrome");
    ab.run(&["close"]).success();
}

#[test]
fn a_profile_keeps_the_binary_it_first_ran_with_and_switches_only_visibly() {
    shell_installed();
    let root = tempfile::tempdir().expect("root");
    let profile = root.path().join("profile");
    let profile_arg = profile.to_str().expect("utf8");
    let record = profile.join(abx_chrome::PROFILE_RECORD);
    let kind_recorded = || {
        let text = std::fs::read_to_string(&record).expect("profile record");
        serde_json::from_str::<Value>(&text).expect("json")["kind"].clone()
    };
    let run = |ab: &Cli, extra: &[&str]| {
        let mut args = vec!["--json", "--profile", profile_arg];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["get", "url"]);
        ab.run(&args).success()
    };

    // First run: a new profile headless gets the shell, and remembers it.
    let ab = cli();
    let first = run(&ab, &[]);
    let first_json = first.json();
    assert_eq!(browser_of(&first_json)["kind"], "headless-shell");
    assert_eq!(kind_recorded(), "headless-shell");
    // Its next command does not relaunch: the record changes the reason, not the binary.
    let next = run(&ab, &[]).json();
    assert_eq!(
        next["data"]["lifecycle"]["relaunchedBrowser"], false,
        "{next}"
    );
    assert_eq!(
        next["data"]["lifecycle"]["effectiveLaunch"]["launchHash"],
        first_json["data"]["lifecycle"]["effectiveLaunch"]["launchHash"]
    );
    ab.run(&["close"]).success();

    // A later run (a new daemon) with the same profile: the same binary, by the record.
    let ab = cli();
    let second = run(&ab, &[]);
    let browser = browser_of(&second.json());
    assert_eq!(browser["kind"], "headless-shell");
    assert_eq!(browser["choice"], "profile");
    assert!(!second.stderr.contains("⚠"), "{second:?}");
    ab.run(&["close"]).success();

    // Headed needs full Chrome: the switch is made, said on stderr and in the lifecycle.
    let ab = cli();
    let headed = run(&ab, &["--headed"]);
    let browser = browser_of(&headed.json());
    assert_eq!(browser["kind"], "chrome");
    assert_eq!(browser["switchedFrom"], "headless-shell", "{headed:?}");
    assert!(
        headed
            .stderr
            .contains("the profile ran with headless-shell")
            && headed.stderr.contains("headed"),
        "{headed:?}"
    );
    assert_eq!(kind_recorded(), "chrome");
    ab.run(&["close"]).success();

    // From then on the profile stays on full Chrome, headless too, without a warning.
    let ab = cli();
    let after = run(&ab, &[]);
    let browser = browser_of(&after.json());
    assert_eq!(browser["kind"], "chrome");
    assert_eq!(browser["choice"], "profile");
    assert!(browser.get("switchedFrom").is_none(), "{after:?}");
    assert!(!after.stderr.contains("⚠"), "{after:?}");
    ab.run(&["close"]).success();

    // Only an explicit executable moves it back, visibly.
    let ab = cli();
    let shell = shell_installed();
    let back = run(&ab, &["--executable-path", shell.to_str().expect("utf8")]);
    let browser = browser_of(&back.json());
    assert_eq!(browser["kind"], "headless-shell");
    assert_eq!(browser["switchedFrom"], "chrome");
    assert!(back.stderr.contains("explicitly"), "{back:?}");
    assert_eq!(kind_recorded(), "headless-shell");
    ab.run(&["close"]).success();
}

#[test]
fn a_dialog_left_open_by_a_session_that_goes_away_is_dismissed_by_the_shell() {
    shell_installed();
    let site = common::site();
    let anchor = cli().session("anchor");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    let stage = || {
        anchor
            .sibling("stage")
            .without("AGENT_BROWSER_ARGS")
            .env("AGENT_BROWSER_CDP", &cdp)
            .env("AGENT_BROWSER_PIN_TAB", "1")
    };
    let first = stage();
    first.run(&["open", &site.url("/dialogs.html")]).success();
    first
        .run(&[
            "eval",
            "setTimeout(() => document.querySelector('#confirm').click(), 20); true",
        ])
        .success();
    wait_for(Duration::from_secs(5), "the confirm opening", || {
        first.run(&["--json", "dialog", "status"]).success().json()["data"]["hasDialog"] == true
    });
    // The session that saw it goes away; full Chrome would keep the confirm open (ADR 0003),
    // the shell dismisses it, and the next session finds a usable tab.
    first.run(&["close"]).success();
    let late = stage();
    let status = late.run(&["--json", "dialog", "status"]).success().json();
    assert_eq!(status["data"]["hasDialog"], false, "{status}");
    assert_eq!(
        late.run(&["get", "text", "#result"]).success().out(),
        "confirm:false"
    );
    late.run(&["close"]).success();
    anchor.run(&["close"]).success();
}

#[tokio::test]
async fn the_library_reports_the_binary_and_refuses_a_shell_for_headed() {
    let shell = shell_installed();
    let chrome = Chrome::launch(launch_options(None)).await.expect("launch");
    assert_eq!(chrome.binary().kind, BrowserKind::HeadlessShell);
    assert_eq!(chrome.binary().choice, Choice::HeadlessShell);
    assert_eq!(chrome.executable(), shell);
    assert_eq!(exe_of(chrome.pid()), shell, "we own the shell's pid");
    assert!(chrome.close(None).await.verified);

    // Headed with an explicit shell: refused before anything starts.
    let err = Chrome::launch(LaunchOptions {
        executable: Some(shell.clone()),
        headless: false,
        ..launch_options(None)
    })
    .await
    .expect_err("a shell cannot run headed");
    assert!(matches!(err, LaunchError::NeedsFullChrome { .. }), "{err}");
    assert!(err.to_string().contains("headed"), "{err}");
    // Extensions pick full Chrome by themselves.
    let ext = tempfile::tempdir().expect("ext");
    write_extension(ext.path());
    let chrome = Chrome::launch(LaunchOptions {
        args: vec![format!("--load-extension={}", ext.path().display())],
        ..launch_options(None)
    })
    .await
    .expect("launch with an extension");
    assert_eq!(chrome.binary().kind, BrowserKind::Chrome);
    assert_eq!(chrome.binary().needs_full_chrome, vec!["extensions"]);
    assert!(chrome.close(None).await.verified);
}

fn options(executable: &str, profile: Option<PathBuf>, extra: &[&str]) -> LaunchOptions {
    let mut options = launch_options(profile);
    options.executable = Some(PathBuf::from(executable));
    options.args.extend(extra.iter().map(ToString::to_string));
    options
}

async fn try_call(session: &Session, method: &str, params: Value) -> String {
    match session
        .call_json_within(method, params, Duration::from_secs(10))
        .await
    {
        Ok(reply) => {
            let text = reply.to_string();
            if text.len() > 120 {
                format!("ok ({} bytes)", text.len())
            } else {
                format!("ok {text}")
            }
        }
        Err(err) => format!("ERROR {err}"),
    }
}

async fn js(page: &Page, expression: &str) -> String {
    match page
        .session
        .call_json_within("Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true, "userGesture": true}),
            Duration::from_secs(10),
        )
        .await
    {
        Ok(reply) => match reply.get("exceptionDetails") {
            Some(e) => format!(
                "THROWS {}",
                e["exception"]["description"]
                    .as_str()
                    .unwrap_or("?")
                    .lines()
                    .next()
                    .unwrap_or("")
            ),
            None => reply["result"]["value"].to_string(),
        },
        Err(err) => format!("ERROR {err}"),
    }
}

async fn screencast_frames(page: &Page, within: Duration) -> usize {
    let mut frames = page
        .session
        .subscribe(EventFilter::methods(["Page.screencastFrame"]), 256);
    page.session
        .call_json(
            "Page.startScreencast",
            json!({"format": "jpeg", "quality": 80, "maxWidth": 1280, "maxHeight": 720}),
        )
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + within;
    let mut count = 0;
    while let Ok(Some(frame)) = tokio::time::timeout_at(deadline, frames.recv()).await {
        count += 1;
        let p: Value = frame.parse().unwrap_or_default();
        let _ = page
            .session
            .send_json(
                "Page.screencastFrameAck",
                &json!({"sessionId": p["sessionId"]}),
            )
            .await;
    }
    let _ = page
        .session
        .call_json("Page.stopScreencast", json!({}))
        .await;
    count
}

fn write_extension(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("manifest.json"),
        r#"{"manifest_version":3,"name":"abx probe","version":"1.0",
            "content_scripts":[{"matches":["<all_urls>"],"js":["content.js"],"run_at":"document_start"}]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("content.js"),
        "document.documentElement.dataset.abxExtension = 'ran';",
    )
    .unwrap();
}

async fn probe(executable: &str, site: &FixtureServer) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut row = |k: &str, v: String| out.push((k.to_string(), v));
    let chrome = Chrome::launch(options(executable, None, &[]))
        .await
        .unwrap();
    let conn = Connection::connect(chrome.ws_url()).await.unwrap();
    let b = conn.browser();
    let version = b.call_json("Browser.getVersion", json!({})).await.unwrap();
    row("Browser.getVersion product", version["product"].to_string());
    row(
        "Browser.getVersion userAgent",
        version["userAgent"].to_string(),
    );
    let page = Page::open(&conn).await;
    page.goto(&site.url("/fixture.html")).await;
    for (label, expr) in [
        ("navigator.userAgent", "navigator.userAgent"),
        (
            "userAgentData.brands",
            "JSON.stringify(navigator.userAgentData && navigator.userAgentData.brands.map(b => b.brand))",
        ),
        ("navigator.webdriver", "navigator.webdriver"),
        ("navigator.plugins.length", "navigator.plugins.length"),
        ("navigator.pdfViewerEnabled", "navigator.pdfViewerEnabled"),
        (
            "window.chrome keys",
            "Object.keys(window.chrome || {}).join(',')",
        ),
        (
            "inner/outer size",
            "`${innerWidth}x${innerHeight} / ${outerWidth}x${outerHeight}`",
        ),
        ("screen", "`${screen.width}x${screen.height}`"),
        ("document.hasFocus()", "document.hasFocus()"),
        ("visibilityState", "document.visibilityState"),
        ("Notification.permission", "Notification.permission"),
        (
            "WebGL renderer",
            "(() => { const g = document.createElement('canvas').getContext('webgl'); if (!g) return 'no webgl'; const e = g.getExtension('WEBGL_debug_renderer_info'); return e ? g.getParameter(e.UNMASKED_RENDERER_WEBGL) : 'no ext'; })()",
        ),
        ("typeof navigator.gpu", "typeof navigator.gpu"),
        (
            "h264 MSE",
            "MediaSource.isTypeSupported('video/mp4; codecs=\"avc1.42E01E\"')",
        ),
        (
            "vp9 canPlayType",
            "document.createElement('video').canPlayType('video/webm; codecs=\"vp9\"')",
        ),
        (
            "speechSynthesis voices",
            "speechSynthesis.getVoices().length",
        ),
        (
            "service worker",
            "navigator.serviceWorker.register('/worker.js').then(r => navigator.serviceWorker.ready).then(r => r.active ? r.active.state : 'none').catch(e => 'error ' + e.message)",
        ),
        (
            "Notification.requestPermission",
            "Notification.requestPermission()",
        ),
    ] {
        row(label, js(&page, expr).await);
    }
    row(
        "Page.printToPDF",
        try_call(&page.session, "Page.printToPDF", json!({})).await,
    );
    row(
        "Page.captureScreenshot",
        try_call(&page.session, "Page.captureScreenshot", json!({})).await,
    );
    row(
        "captureScreenshot beyond viewport",
        try_call(
            &page.session,
            "Page.captureScreenshot",
            json!({"captureBeyondViewport": true}),
        )
        .await,
    );
    row(
        "Tracing.start",
        try_call(&page.session, "Tracing.start", json!({})).await,
    );
    row(
        "Tracing.end",
        try_call(&page.session, "Tracing.end", json!({})).await,
    );
    // Clipboard through the async API with the permissions granted.
    row(
        "Browser.grantPermissions clipboard",
        try_call(
            &b,
            "Browser.grantPermissions",
            json!({"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": site.origin()}),
        )
        .await,
    );
    row(
        "clipboard write+read",
        js(
            &page,
            "navigator.clipboard.writeText('abx-clip').then(() => navigator.clipboard.readText())",
        )
        .await,
    );
    for (method, params) in [
        (
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 400, "height": 300, "deviceScaleFactor": 2, "mobile": true}),
        ),
        (
            "Emulation.setUserAgentOverride",
            json!({"userAgent": "abx-probe"}),
        ),
        (
            "Emulation.setGeolocationOverride",
            json!({"latitude": 1.0, "longitude": 2.0, "accuracy": 1}),
        ),
        (
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": "dark"}]}),
        ),
        (
            "Emulation.setTimezoneOverride",
            json!({"timezoneId": "Asia/Tokyo"}),
        ),
        ("Emulation.setLocaleOverride", json!({"locale": "de-DE"})),
        (
            "Emulation.setTouchEmulationEnabled",
            json!({"enabled": true}),
        ),
        (
            "Emulation.setFocusEmulationEnabled",
            json!({"enabled": true}),
        ),
    ] {
        row(method, try_call(&page.session, method, params).await);
    }
    row(
        "emulation effect",
        js(
            &page,
            "`${innerWidth}x${innerHeight} dpr=${devicePixelRatio} ua=${navigator.userAgent} dark=${matchMedia('(prefers-color-scheme: dark)').matches} tz=${Intl.DateTimeFormat().resolvedOptions().timeZone}`",
        )
        .await,
    );
    let _ = page
        .session
        .call_json("Emulation.clearDeviceMetricsOverride", json!({}))
        .await;
    // Downloads.
    let dl_dir = tempfile::tempdir().unwrap();
    row(
        "Browser.setDownloadBehavior",
        try_call(
            &b,
            "Browser.setDownloadBehavior",
            json!({"behavior": "allow", "downloadPath": dl_dir.path(), "eventsEnabled": true}),
        )
        .await,
    );
    let mut dl_events = b.subscribe(EventFilter::methods(["Browser.downloadProgress"]), 64);
    page.goto(&site.url("/download.html")).await;
    js(&page, "document.getElementById('dl').click()").await;
    let mut state = "no event".to_string();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while let Ok(Some(ev)) = tokio::time::timeout_at(deadline, dl_events.recv()).await {
        let p: Value = ev.parse().unwrap_or_default();
        state = p["state"].as_str().unwrap_or("?").to_string();
        if state != "inProgress" {
            break;
        }
    }
    row(
        "download (click, file on disk)",
        format!(
            "{state}; files: {:?}",
            std::fs::read_dir(dl_dir.path())
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.file_name()))
                .collect::<Vec<_>>()
        ),
    );
    // Windows.
    let win = try_call(
        &b,
        "Target.createTarget",
        json!({"url": "about:blank", "newWindow": true}),
    )
    .await;
    row("Target.createTarget newWindow", win.clone());
    let target = b
        .call_json("Target.createTarget", json!({"url": "about:blank"}))
        .await
        .unwrap();
    let target_id = target["targetId"].as_str().unwrap().to_string();
    let window = b
        .call_json_within(
            "Browser.getWindowForTarget",
            json!({"targetId": target_id}),
            Duration::from_secs(5),
        )
        .await;
    row(
        "Browser.getWindowForTarget",
        match &window {
            Ok(w) => format!("ok {w}"),
            Err(e) => format!("ERROR {e}"),
        },
    );
    if let Ok(w) = &window {
        row(
            "Browser.setWindowBounds",
            try_call(
                &b,
                "Browser.setWindowBounds",
                json!({"windowId": w["windowId"], "bounds": {"width": 900, "height": 700}}),
            )
            .await,
        );
        row(
            "Browser.getWindowBounds after",
            try_call(
                &b,
                "Browser.getWindowBounds",
                json!({"windowId": w["windowId"]}),
            )
            .await,
        );
        row(
            "setWindowBounds minimized",
            try_call(
                &b,
                "Browser.setWindowBounds",
                json!({"windowId": w["windowId"], "bounds": {"windowState": "minimized"}}),
            )
            .await,
        );
    }
    row(
        "Target.createBrowserContext",
        try_call(&b, "Target.createBrowserContext", json!({})).await,
    );
    row(
        "Target.activateTarget",
        try_call(&b, "Target.activateTarget", json!({"targetId": target_id})).await,
    );
    row(
        "SystemInfo.getInfo gpu",
        match b
            .call_json_within("SystemInfo.getInfo", json!({}), Duration::from_secs(5))
            .await
        {
            Ok(v) => v["gpu"]["devices"][0].to_string(),
            Err(e) => format!("ERROR {e}"),
        },
    );
    row(
        "HeadlessExperimental.enable",
        try_call(&page.session, "HeadlessExperimental.enable", json!({})).await,
    );
    row(
        "Extensions.loadUnpacked (no flag)",
        try_call(
            &b,
            "Extensions.loadUnpacked",
            json!({"path": "/nonexistent"}),
        )
        .await,
    );
    let chrome_url = match page
        .session
        .call_json("Page.navigate", json!({"url": "chrome://version"}))
        .await
    {
        Ok(v) => format!("errorText={}", v["errorText"]),
        Err(e) => format!("ERROR {e}"),
    };
    row("navigate chrome://version", chrome_url);
    tokio::time::sleep(Duration::from_millis(500)).await; // probe only: let the page render
    row(
        "chrome://version body",
        js(
            &page,
            "document.body ? document.body.innerText.slice(0, 40) : 'none'",
        )
        .await,
    );
    // Screencast on the animated page.
    page.goto(&site.url("/animated.html")).await;
    row(
        "screencast frames in 3 s",
        screencast_frames(&page, Duration::from_secs(3))
            .await
            .to_string(),
    );
    // Processes of the group.
    let members = abx_tests::group_members(chrome.pid());
    let cmdlines: Vec<String> = members
        .iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/cmdline")).ok())
        .map(|c| {
            let mut parts = c.split('\0');
            let exe = parts
                .next()
                .unwrap_or("")
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string();
            let kind = c
                .split('\0')
                .find(|a| a.starts_with("--type="))
                .unwrap_or("--type=browser")
                .trim_start_matches("--type=")
                .to_string();
            format!("{exe}:{kind}")
        })
        .collect();
    row("processes", format!("{} {:?}", members.len(), cmdlines));
    conn.close();
    chrome.close(None).await;

    // Persistence of cookies and localStorage across a graceful close.
    let profile = tempfile::tempdir().unwrap();
    let chrome = Chrome::launch(options(executable, Some(profile.path().to_path_buf()), &[]))
        .await
        .unwrap();
    let conn = Connection::connect(chrome.ws_url()).await.unwrap();
    let page = Page::open(&conn).await;
    page.goto(&site.url("/storage.html")).await;
    js(
        &page,
        "document.cookie = 'persist=yes; max-age=86400; path=/'; localStorage.setItem('persist', 'yes'); 1",
    )
    .await;
    conn.close();
    let receipt = chrome.close(None).await;
    let chrome = Chrome::launch(options(executable, Some(profile.path().to_path_buf()), &[]))
        .await
        .unwrap();
    let conn = Connection::connect(chrome.ws_url()).await.unwrap();
    let page = Page::open(&conn).await;
    page.goto(&site.url("/storage.html")).await;
    row(
        "profile: cookie + localStorage after relaunch",
        format!(
            "graceful={} {}",
            receipt.graceful,
            js(
                &page,
                "document.cookie + ' / ' + localStorage.getItem('persist')"
            )
            .await
        ),
    );
    conn.close();
    chrome.close(None).await;

    // Extensions by flag.
    let ext = tempfile::tempdir().unwrap();
    write_extension(ext.path());
    let flag_load = format!("--load-extension={}", ext.path().display());
    let flag_only = format!("--disable-extensions-except={}", ext.path().display());
    // (abx refuses an explicit shell with extensions; the shell itself loads none: before that
    // check, this probe saw the content script not run.)
    match Chrome::launch(options(executable, None, &[&flag_load, &flag_only])).await {
        Ok(chrome) => {
            let conn = Connection::connect(chrome.ws_url()).await.unwrap();
            let page = Page::open(&conn).await;
            page.goto(&site.url("/fixture.html")).await;
            row(
                "--load-extension content script",
                js(
                    &page,
                    "document.documentElement.dataset.abxExtension || 'not run'",
                )
                .await,
            );
            conn.close();
            chrome.close(None).await;
        }
        Err(err) => row("--load-extension content script", format!("refused: {err}")),
    }

    // WebGPU with upstream's --webgpu preset.
    let mut webgpu = options(executable, None, &[]);
    webgpu.args.retain(|a| a != "--disable-gpu");
    webgpu.args.extend(
        [
            "--enable-unsafe-webgpu",
            "--enable-features=NetworkService,NetworkServiceInProcess,Vulkan",
            "--use-angle=vulkan",
            "--use-vulkan=swiftshader",
            "--use-webgpu-adapter=swiftshader",
            "--disable-vulkan-surface",
        ]
        .map(String::from),
    );
    let chrome = Chrome::launch(webgpu).await.unwrap();
    let conn = Connection::connect(chrome.ws_url()).await.unwrap();
    let page = Page::open(&conn).await;
    page.goto(&site.url("/fixture.html")).await;
    row(
        "WebGPU adapter (--webgpu preset)",
        js(
            &page,
            "navigator.gpu ? navigator.gpu.requestAdapter().then(a => a ? 'adapter ' + (a.info ? a.info.vendor + '/' + a.info.architecture : '') : 'null adapter') : 'no navigator.gpu'",
        )
        .await,
    );
    conn.close();
    chrome.close(None).await;

    // Pipe transport.
    let mut piped = options(executable, None, &[]);
    piped.transport = Transport::Pipe;
    let mut chrome = Chrome::launch(piped).await.unwrap();
    let (read, write) = chrome.take_pipe().unwrap();
    let conn = Connection::over_pipe(read, write, &abx_cdp::ConnectOptions::default());
    row(
        "--remote-debugging-pipe Browser.getVersion",
        try_call(&conn.browser(), "Browser.getVersion", json!({})).await,
    );
    chrome.close(Some(&conn)).await;
    out
}

/// Writes a cookie and localStorage with `first`, closes gracefully, reads them with `second`.
async fn cross_profile(first: &str, second: &str, site: &FixtureServer) -> String {
    let profile = tempfile::tempdir().unwrap();
    let chrome = Chrome::launch(options(first, Some(profile.path().to_path_buf()), &[]))
        .await
        .unwrap();
    let conn = Connection::connect(chrome.ws_url()).await.unwrap();
    let page = Page::open(&conn).await;
    page.goto(&site.url("/storage.html")).await;
    js(
        &page,
        "document.cookie = 'persist=yes; max-age=86400; path=/'; localStorage.setItem('persist', 'yes'); 1",
    )
    .await;
    conn.close();
    chrome.close(None).await;
    let chrome = Chrome::launch(options(second, Some(profile.path().to_path_buf()), &[]))
        .await
        .unwrap();
    let conn = Connection::connect(chrome.ws_url()).await.unwrap();
    let page = Page::open(&conn).await;
    page.goto(&site.url("/storage.html")).await;
    let seen = js(
        &page,
        "document.cookie + ' / ' + localStorage.getItem('persist')",
    )
    .await;
    conn.close();
    chrome.close(None).await;
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn probe_profile_across_binaries() {
    let site = FixtureServer::start().await.expect("fixture server");
    println!(
        "shell -> chromium: {}",
        cross_profile(SHELL, FULL, &site).await
    );
    println!(
        "chromium -> shell: {}",
        cross_profile(FULL, SHELL, &site).await
    );
    site.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn probe_features() {
    let site = FixtureServer::start().await.expect("fixture server");
    let shell = Box::pin(probe(SHELL, &site)).await;
    let full = Box::pin(probe(FULL, &site)).await;
    println!("| probe | chromium-headless-shell | chromium --headless=new |");
    println!("|---|---|---|");
    for ((key, s), (_, f)) in shell.iter().zip(full.iter()) {
        let mark = if s == f { "" } else { " **≠**" };
        println!(
            "| {key}{mark} | {} | {} |",
            s.replace('|', "\\|"),
            f.replace('|', "\\|")
        );
    }
    site.shutdown().await;
}

/// A confirm seen by one CDP client, which then disconnects: what does a later client see?
async fn dialog_after_detach(executable: &str, site: &FixtureServer) -> String {
    let chrome = Chrome::launch(options(executable, None, &[]))
        .await
        .unwrap();
    let first = Connection::connect(chrome.ws_url()).await.unwrap();
    let page = Page::open(&first).await;
    page.goto(&site.url("/dialogs.html")).await;
    let mut opened = page
        .session
        .subscribe(EventFilter::methods(["Page.javascriptDialogOpening"]), 8);
    js(
        &page,
        "setTimeout(() => document.querySelector('#confirm').click(), 20); true",
    )
    .await;
    let seen = tokio::time::timeout(Duration::from_secs(5), opened.recv())
        .await
        .is_ok();
    let target = page.target_id.clone();
    first.close();
    let second = Connection::connect(chrome.ws_url()).await.unwrap();
    let session = second.attach(&target).await.unwrap();
    let eval = session
        .call_json_within("Runtime.evaluate",
            json!({"expression": "document.getElementById('result').textContent", "returnByValue": true}),
            Duration::from_secs(2),
        )
        .await;
    let mut late = session.subscribe(EventFilter::methods(["Page.javascriptDialogOpening"]), 8);
    let _ = session.send_json("Page.enable", &json!({})).await;
    let late_event = tokio::time::timeout(Duration::from_secs(1), late.recv())
        .await
        .is_ok();
    let out = format!(
        "first saw dialog: {seen}; later eval: {}; later Page.enable re-sends the dialog: {late_event}",
        match eval {
            Ok(v) => format!("answers {}", v["result"]["value"]),
            Err(e) => format!("blocked ({e})"),
        }
    );
    second.close();
    chrome.close(None).await;
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore]
async fn probe_dialog_after_detach() {
    let site = FixtureServer::start().await.expect("fixture server");
    println!("shell: {}", dialog_after_detach(SHELL, &site).await);
    println!("full:  {}", dialog_after_detach(FULL, &site).await);
    site.shutdown().await;
}
