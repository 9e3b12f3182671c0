//! The drop-in binary, black-box: core commands' text and `--json` output, exit codes, bad
//! input, deadlines and the priority close — against real Chromium and the fixture site.

use std::time::Duration;

use abx_tests::cli::{Cli, finish};
use abx_tests::wait_until;

mod common;
use common::site;

#[test]
fn open_get_and_navigation_commands_print_upstreams_text() {
    let site = site();
    let ab = Cli::new();
    let page1 = site.url("/page1.html");
    let page2 = site.url("/page2.html");

    let out = ab.run(&["open", &page1]).success();
    assert_eq!(out.out(), format!("✓ Page One\n  {page1}"));
    assert_eq!(ab.run(&["get", "url"]).success().out(), page1);
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Page One");
    assert_eq!(
        ab.run(&["goto", &page2]).success().out(),
        format!("✓ Page Two\n  {page2}")
    );
    assert_eq!(ab.run(&["back"]).success().out(), page1);
    assert_eq!(ab.run(&["forward"]).success().out(), page2);
    assert_eq!(ab.run(&["reload"]).success().out(), page2);
    assert_eq!(ab.run(&["get", "text", "h1"]).success().out(), "Page Two");
    assert_eq!(
        ab.run(&["get", "html", "#to1"]).success().out(),
        "Go to page one"
    );
    assert_eq!(
        ab.run(&["get", "attr", "#to1", "href"]).success().out(),
        "/page1.html"
    );
    assert_eq!(ab.run(&["get", "count", "a"]).success().out(), "1");
    let cdp = ab.run(&["get", "cdp-url"]).success();
    assert!(
        cdp.out().starts_with("ws://127.0.0.1:") && cdp.out().contains("/devtools/browser/"),
        "{cdp:?}"
    );
    let boxed = ab.run(&["get", "box", "h1"]).success();
    assert!(boxed.out().starts_with("x:"), "{boxed:?}");
    assert!(boxed.out().contains("\nwidth:"), "{boxed:?}");

    // --json: one line, upstream's envelope, lifecycle injected.
    let json = ab.run(&["--json", "get", "url"]).success().json();
    assert_eq!(json["success"], true);
    assert_eq!(json["data"]["url"], page2.as_str());
    assert_eq!(json["error"], serde_json::Value::Null);
    // Upstream: `launched` only on the command that started the browser.
    assert_eq!(json["data"]["lifecycle"]["launched"], false);
    assert_eq!(json["data"]["lifecycle"]["reused"], true);
    let json = ab.run(&["--json", "open", &page1]).success().json();
    assert_eq!(json["data"]["title"], "Page One");

    assert_eq!(ab.run(&["close"]).success().out(), "✓ Browser closed");
    assert!(ab.daemon_pid().is_none(), "pid file removed by close");
    assert!(!ab.file("sock").exists(), "socket removed by close");
}

#[test]
fn form_values_eval_and_waits() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/form.html")]).success();
    ab.run(&["eval", "document.querySelector('#name').value = 'Ada'"])
        .success();
    assert_eq!(ab.run(&["get", "value", "#name"]).success().out(), "Ada");
    assert_eq!(ab.run(&["eval", "1 + 1"]).success().out(), "2");
    assert_eq!(ab.run(&["eval", "'x'"]).success().out(), "\"x\"");
    let json = ab
        .run(&["--json", "eval", "({a: [1, 2]})"])
        .success()
        .json();
    assert_eq!(json["data"]["result"], serde_json::json!({"a": [1, 2]}));
    let json = ab.run(&["--json", "eval", "NaN"]).success().json();
    assert_eq!(json["data"]["unserializable"], "NaN");
    let err = ab.run(&["eval", "throw new Error('boom')"]).failure();
    assert!(
        err.stderr.starts_with("✗ Evaluation error: Error: boom"),
        "{err:?}"
    );

    // #late appears after 500 ms.
    ab.run(&["wait", "#late"]).success();
    ab.run(&["wait", "--fn", "window.__keys !== undefined"])
        .success();
    assert_eq!(ab.run(&["wait", "--text", "Late"]).success().out(), "Late");
    let timed_out = ab
        .run(&["wait", "#never-there", "--timeout", "700"])
        .failure();
    assert!(
        timed_out.stderr.contains("Wait timed out after 700ms"),
        "{timed_out:?}"
    );
    assert!(timed_out.took < Duration::from_secs(5), "{timed_out:?}");
    ab.run(&["wait", "300"]).success();
    ab.run(&["wait", "--load", "networkidle"]).success();
    let url = ab.run(&["wait", "--url", "**/form.html"]).success();
    assert!(url.out().ends_with("/form.html"), "{url:?}");
    ab.run(&["close"]).success();
}

#[test]
fn tabs_new_switch_list_close() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let new = ab.run(&["tab", "new", &site.url("/page2.html")]).success();
    assert_eq!(
        new.out(),
        site.url("/page2.html"),
        "upstream prints just the URL for tab new"
    );
    let list = ab.run(&["tab", "list"]).success();
    assert_eq!(
        list.out(),
        format!(
            "  [t1] Page One - {}\n→ [t2] Page Two - {}",
            site.url("/page1.html"),
            site.url("/page2.html")
        )
    );
    assert_eq!(
        ab.run(&["tab", "t1"]).success().out(),
        format!("✓ Page One\n  {}", site.url("/page1.html"))
    );
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Page One");
    let bad = ab.run(&["tab", "2"]).failure();
    assert!(
        bad.stderr.contains("positional integers are not accepted"),
        "{bad:?}"
    );
    assert_eq!(
        ab.run(&["tab", "close", "t2"]).success().out(),
        "✓ Tab [t2] closed"
    );
    let json = ab.run(&["--json", "tab", "list"]).success().json();
    let tabs = json["data"]["tabs"].as_array().expect("tabs");
    assert_eq!(tabs.len(), 1);
    assert_eq!(tabs[0]["tabId"], "t1");
    assert!(tabs[0]["targetId"].as_str().is_some_and(|t| !t.is_empty()));
    ab.run(&["tab", "new", "--label", "docs"]).success();
    assert!(
        ab.run(&["tab", "list"])
            .success()
            .out()
            .contains("[t3] docs"),
        "tab ids are never reused"
    );
    ab.run(&["close"]).success();
}

#[test]
fn screenshots_are_written_where_asked() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/scroll.html")]).success();
    let path = ab.home().join("out.png");
    let out = ab
        .run(&["screenshot", path.to_str().expect("utf8")])
        .success();
    assert_eq!(
        out.out(),
        format!("✓ Screenshot saved to {}", path.display())
    );
    let bytes = std::fs::read(&path).expect("screenshot file");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let full = ab.home().join("full.png");
    ab.run(&["screenshot", full.to_str().expect("utf8"), "--full"])
        .success();
    let height = |png: &[u8]| u32::from_be_bytes([png[20], png[21], png[22], png[23]]);
    let full_bytes = std::fs::read(&full).expect("full screenshot");
    assert!(
        height(&full_bytes) > height(&bytes) * 2,
        "full page must be taller than the viewport"
    );
    let default = ab.run(&["screenshot"]).success();
    let default_path = default.out().trim_start_matches("✓ Screenshot saved to ");
    assert!(
        default_path.contains(".agent-browser/tmp/screenshots/screenshot-"),
        "{default:?}"
    );
    assert!(std::path::Path::new(default_path).exists());
    ab.run(&["close"]).success();
}

/// The compression level of a PNG's image data: the FLEVEL bits of its zlib header (0 fastest,
/// 2 default).
fn png_zlib_level(png: &[u8]) -> u8 {
    let mut at = 8;
    while at + 12 <= png.len() {
        let len = u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]) as usize;
        if &png[at + 4..at + 8] == b"IDAT" {
            return png[at + 9] >> 6;
        }
        at += 12 + len;
    }
    panic!("no IDAT chunk in the PNG");
}

#[test]
fn viewport_and_element_screenshots_are_encoded_for_speed_and_a_full_page_is_not() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/article.html")]).success();
    let shot = |name: &str, extra: &[&str]| {
        let path = ab.home().join(name);
        let mut args = vec!["screenshot"];
        args.extend_from_slice(extra);
        args.push(path.to_str().expect("utf8"));
        ab.run(&args).success();
        std::fs::read(&path).expect("screenshot file")
    };
    let viewport = shot("viewport.png", &[]);
    let element = shot("element.png", &["h1"]);
    let full = shot("full.png", &["--full"]);
    assert_eq!(
        png_zlib_level(&viewport),
        0,
        "viewport shot not fast-encoded"
    );
    assert_eq!(png_zlib_level(&element), 0, "element shot not fast-encoded");
    // A full page has no bound on its size: it keeps Chrome's default compression.
    assert_eq!(png_zlib_level(&full), 2, "full-page shot fast-encoded");
    ab.run(&["close"]).success();
}

#[test]
fn bad_input_gets_a_clear_error_and_exit_1() {
    let ab = Cli::new();
    let unknown = ab.run(&["bogus"]).failure();
    assert_eq!(unknown.code, 1);
    assert!(
        unknown.stderr.contains("Unknown command: bogus"),
        "{unknown:?}"
    );
    let json = ab.run(&["--json", "bogus"]).failure().json();
    assert_eq!(json["type"], "unknown_command");
    let missing = ab.run(&["click"]).failure();
    assert!(
        missing.stderr.contains("Missing arguments for: click"),
        "{missing:?}"
    );
    // A socket path over 103 bytes.
    let long = "x".repeat(200);
    let too_long = ab.sibling(&long).run(&["get", "url"]).failure();
    assert!(too_long.stderr.contains("too long"), "{too_long:?}");
    // No daemon was started for any of these.
    assert!(ab.daemon_pid().is_none());
}

#[test]
fn the_tests_run_an_agent_browser_built_from_the_current_sources() {
    // Without `binary()` building it, a `cargo test -p abx-tests` after an edit ran the
    // binary of the last `cargo build`.
    let binary = abx_tests::cli::binary();
    assert!(
        abx_tests::cli::binary_is_fresh(&binary),
        "{} is older than its sources: the tests would run stale code",
        binary.display()
    );
}

#[test]
fn device_list_answers_like_upstream_on_linux() {
    // Without launch flags no `launch` goes first, so nothing starts a browser.
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    let listed = ab.run(&["device", "list"]).failure();
    assert_eq!(
        listed.stderr,
        "✗ device_list is only available on macOS with Xcode\n"
    );
    let json = ab.run(&["--json", "device"]).failure().json();
    assert_eq!(
        json["error"],
        "device_list is only available on macOS with Xcode"
    );
    // It needs no browser: none was launched for it.
    assert!(
        !ab.file("engine").exists(),
        "device list launched a browser"
    );
    ab.run(&["close"]).success();
}

#[test]
fn version_help_and_close_without_a_daemon() {
    let ab = Cli::new();
    assert_eq!(
        ab.run(&["--version"]).success().out(),
        "agent-browser 0.41.2"
    );
    assert!(ab.run(&["--help"]).success().stdout.contains("snapshot"));
    let closed = ab.run(&["close"]).success();
    assert_eq!(closed.out(), "✓ Browser closed");
    assert!(
        closed.took < Duration::from_secs(2),
        "close with no daemon returns at once"
    );
    assert!(ab.daemon_pid().is_none(), "close must not start a daemon");
}

#[test]
fn a_hung_page_does_not_block_close_and_the_hung_command_fails() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/spin.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    // A synchronous request first, so the fixture server sees the eval running in the page
    // before it spins: what follows happens while the page command hangs, not before it started.
    let hung = ab.spawn(&[
        "eval",
        "const x = new XMLHttpRequest(); x.open('GET', '/log?eval=spinning', false); x.send(); \
         while (true) {}",
    ]);
    assert!(
        wait_until(Duration::from_secs(30), || site
            .requests()
            .iter()
            .any(|r| r.path == "/log?eval=spinning")),
        "the hung eval never started"
    );
    // Control commands are served while the page command hangs.
    ab.run(&["tab", "list"]).success();
    ab.run(&["get", "cdp-url"]).success();
    let closed = ab.run(&["close"]).success();
    assert!(
        closed.took < Duration::from_secs(5),
        "close took {:?}",
        closed.took
    );
    let outcome = finish(hung);
    assert_ne!(
        outcome.code, 0,
        "the hung eval must not report success: {outcome:?}"
    );
    assert!(
        abx_tests::pids_alive(&[daemon]).is_empty(),
        "daemon still running after close"
    );
}

#[test]
fn a_command_on_a_hung_page_fails_at_its_deadline() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_DEFAULT_TIMEOUT", "1500");
    ab.run(&["open", &site.url("/spin.html")]).success();
    let hung = ab.run(&["eval", "while (true) {}"]).failure();
    assert!(hung.stderr.contains("timed out"), "{hung:?}");
    assert!(hung.took < Duration::from_secs(10), "{:?}", hung.took);
    // The session still serves (and closes) afterwards.
    ab.run(&["get", "url"]).success();
    ab.run(&["close"]).success();
}

#[test]
fn session_list_shows_live_sessions_and_cleans_stale_files() {
    let site = site();
    let a = Cli::new().session("alpha");
    let b = a.sibling("beta");
    a.run(&["open", &site.url("/page1.html")]).success();
    b.run(&["open", &site.url("/page2.html")]).success();
    // Stale files of a dead daemon.
    std::fs::write(a.socket_dir().join("ghost.pid"), "999999999").expect("pid");
    std::fs::write(a.socket_dir().join("ghost.sock"), "").expect("sock");
    let list = a.run(&["session", "list"]).success();
    assert!(
        list.stdout.contains("alpha") && list.stdout.contains("beta"),
        "{list:?}"
    );
    assert!(!list.stdout.contains("ghost"), "{list:?}");
    assert!(
        !a.socket_dir().join("ghost.pid").exists(),
        "stale files cleaned"
    );
    a.run(&["close"]).success();
    b.run(&["close"]).success();
}

#[test]
fn sidecar_files_match_upstream() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    for suffix in ["sock", "pid", "version", "config", "engine", "target"] {
        assert!(ab.file(suffix).exists(), "{suffix} missing");
    }
    assert_eq!(
        std::fs::read_to_string(ab.file("version")).expect("version"),
        "0.41.2"
    );
    assert_eq!(
        std::fs::read_to_string(ab.file("engine")).expect("engine"),
        "chrome"
    );
    let target: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ab.file("target")).expect("target"))
            .expect("json");
    assert_eq!(target["url"], site.url("/page1.html"));
    assert_eq!(target["pinned"], false);
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(mode(ab.socket_dir()), 0o700);
    assert_eq!(mode(&ab.file("pid")), 0o600);
    assert_eq!(mode(&ab.file("sock")), 0o600);
    ab.run(&["close"]).success();
    assert!(
        ab.file("target").exists(),
        ".target survives close, like upstream"
    );
    assert!(!ab.file("version").exists());
}

/// Regression: a page restored from the back/forward cache gets no lifecycle events, so `back`
/// waited for a `load` that had long left the tab's bounded event log once a session had made a
/// few dozen navigations (the `cli_latency` bench's 20-command loop timed out after 25 s).
#[test]
fn back_to_a_cached_page_returns_after_many_navigations() {
    let site = site();
    // Full Chromium: the headless shell keeps no back/forward cache. A short deadline, so the
    // regression fails in seconds, not 25 s per `back`.
    let ab = Cli::new()
        .env("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium")
        .env("AGENT_BROWSER_DEFAULT_TIMEOUT", "5000");
    let page1 = site.url("/page1.html");
    let page2 = site.url("/page2.html");
    ab.run(&["open", &page1]).success();
    ab.run(&["eval", "window.restored = 'from the cache'"])
        .success();
    // Each round leaves ~5–10 lifecycle events of page 2 in the log; 60 rounds overflow it.
    for round in 0..60 {
        ab.run(&["open", &page2]).success();
        let back = ab.run(&["back"]);
        assert!(
            back.code == 0 && back.out() == page1,
            "round {round}: {back:?}"
        );
    }
    // The page came back from the cache (the same window object), not reloaded.
    assert_eq!(
        ab.run(&["eval", "window.restored"]).success().out(),
        "\"from the cache\""
    );
    ab.run(&["close"]).success();
}

#[test]
fn every_core_command_has_upstreams_json_envelope() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["navigate".into(), site.url("/page2.html")], "title"),
        (vec!["back".into()], "url"),
        (vec!["forward".into()], "url"),
        (vec!["reload".into()], "url"),
        (vec!["get".into(), "url".into()], "url"),
        (vec!["get".into(), "title".into()], "title"),
        (vec!["get".into(), "text".into(), "h1".into()], "text"),
        (vec!["get".into(), "html".into(), "h1".into()], "html"),
        (
            vec!["get".into(), "attr".into(), "#to1".into(), "href".into()],
            "value",
        ),
        (vec!["get".into(), "count".into(), "a".into()], "count"),
        (vec!["get".into(), "box".into(), "h1".into()], "width"),
        (vec!["get".into(), "cdp-url".into()], "cdpUrl"),
        (vec!["eval".into(), "1".into()], "result"),
        (vec!["wait".into(), "h1".into()], "waited"),
        (vec!["wait".into(), "50".into()], "waited"),
        (vec!["wait".into(), "--load".into(), "load".into()], "state"),
        (
            vec!["wait".into(), "--url".into(), "**/page2.html".into()],
            "url",
        ),
        (vec!["wait".into(), "--fn".into(), "true".into()], "result"),
        (vec!["tab".into(), "list".into()], "tabs"),
        (vec!["tab".into(), "new".into()], "tabId"),
        (vec!["tab".into(), "t1".into()], "tabId"),
        (vec!["tab".into(), "close".into(), "t2".into()], "closed"),
    ];
    for (args, key) in cases {
        let argv: Vec<&str> = std::iter::once("--json")
            .chain(args.iter().map(String::as_str))
            .collect();
        let json = ab.run(&argv).success().json();
        assert_eq!(json["success"], true, "{args:?}: {json}");
        assert!(
            json["data"].get(key).is_some(),
            "{args:?}: no `{key}` in {json}"
        );
        assert!(json["data"]["lifecycle"].is_object(), "{args:?}: {json}");
        assert_eq!(json["error"], serde_json::Value::Null, "{args:?}");
    }
    let closed = ab.run(&["--json", "close"]).success().json();
    assert_eq!(closed["data"]["closed"], true);
}

#[test]
fn the_idle_timeout_ends_the_daemon_and_its_chrome() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "1500");
    ab.run(&["open", &site.url("/page1.html")]).success();
    let daemon = ab.daemon_pid().expect("daemon");
    let started = std::time::Instant::now();
    let gone = abx_tests::wait_gone_blocking(&[daemon], Duration::from_secs(10));
    assert!(
        gone.is_some(),
        "daemon still running after its idle timeout"
    );
    assert!(
        started.elapsed() >= Duration::from_millis(1200),
        "exited before the idle timeout: {:?}",
        started.elapsed()
    );
    assert!(
        !ab.file("sock").exists() && !ab.file("pid").exists(),
        "socket files left after idle exit"
    );
}

#[test]
fn user_agent_and_namespace_settings_apply() {
    let site = site();
    let ab = Cli::new()
        .env("AGENT_BROWSER_USER_AGENT", "abx-test-agent/1.0")
        .env("AGENT_BROWSER_NAMESPACE", "Worktree: One");
    ab.run(&["open", &site.url("/page1.html")]).success();
    assert_eq!(
        ab.run(&["eval", "navigator.userAgent"]).success().out(),
        "\"abx-test-agent/1.0\""
    );
    let namespaced = ab
        .socket_dir()
        .join("namespaces")
        .join("worktree-one")
        .join("run")
        .join("t.sock");
    assert!(
        namespaced.exists(),
        "namespaced socket missing at {}",
        namespaced.display()
    );
    ab.run(&["close"]).success();
}

/// Regression: a Chrome with no window (`--no-startup-window`) refuses a plain new tab ("no
/// browser is open"); the session opens its tab in a new window instead.
#[test]
fn open_works_on_a_chrome_started_without_a_window() {
    let site = site();
    let args = format!(
        "{},--no-startup-window",
        abx_tests::TEST_CHROME_ARGS.join(",")
    );
    let ab = Cli::new().env("AGENT_BROWSER_ARGS", &args);
    let page1 = site.url("/page1.html");
    let out = ab.run(&["open", &page1]).success();
    assert_eq!(out.out(), format!("✓ Page One\n  {page1}"));
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Page One");
    ab.run(&["close"]).success();
}

/// Regression: a headless full-Chrome session used Chrome's startup tab, whose infobar (the
/// unsupported-flag warning) took 56 px off the viewport: screenshots were 1280×577 where
/// upstream's, and every other tab's, are 1280×633.
#[test]
fn a_headless_chrome_session_s_first_tab_has_the_viewport_of_any_other_tab() {
    let site = site();
    let ab = Cli::new().env("AGENT_BROWSER_EXECUTABLE_PATH", "/usr/bin/chromium");
    let page1 = site.url("/page1.html");
    ab.run(&["open", &page1]).success();
    let size = "innerWidth + 'x' + innerHeight";
    let first = ab.run(&["eval", size]).success().out().to_string();
    ab.run(&["tab", "new", &page1]).success();
    let second = ab.run(&["eval", size]).success().out().to_string();
    assert_eq!(first, second, "first tab and a new tab differ in viewport");
    assert_eq!(first, "\"1280x633\"");
    assert_eq!(ab.run(&["tab", "list"]).success().out().lines().count(), 2);
    ab.run(&["close"]).success();
}

/// Upstream prints `[agent-browser] launched browser` on stderr when a command started the
/// browser (and nothing when it reused one); agents and wrappers filter on that line.
#[test]
fn a_command_that_starts_the_browser_says_so_on_stderr_once() {
    // Without AGENT_BROWSER_ARGS no `launch` precedes the command: the command itself starts
    // the browser (as root the daemon adds --no-sandbox).
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    let first = ab.run(&["get", "url"]).success();
    assert_eq!(first.out(), "about:blank");
    assert_eq!(first.stderr, "[agent-browser] launched browser\n");
    let second = ab.run(&["get", "url"]).success();
    assert_eq!(second.stderr, "");
    ab.run(&["close"]).success();
}

/// Regression: `connect` (or `--cdp`) to a port where nothing listens said `browser_lost: the
/// browser is gone`, as if a browser had been there; it is a discovery failure, in upstream's
/// opening words, with no `browser_lost` code.
#[test]
fn connect_to_a_closed_port_is_a_discovery_failure_not_a_lost_browser() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port");
    let ab = Cli::new();
    let out = ab.run(&["connect", &port.to_string()]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.starts_with(&format!(
            "✗ All CDP discovery methods failed for 127.0.0.1:{port}: "
        )),
        "{out:?}"
    );
    let json = ab
        .run(&["--json", "--cdp", &port.to_string(), "get", "url"])
        .json();
    assert_eq!(json["success"], false, "{json}");
    assert!(
        json.get("code").is_none_or(serde_json::Value::is_null),
        "{json}"
    );
    ab.run(&["close"]).success();
}

/// A `wait --fn` (or `--text`, a selector) polled while the page navigates to a server that
/// answers late: Chrome holds the old document's scripts until the new one commits, so a poll
/// gets no answer for seconds. That is "not yet", never an error (a form POST to a loaded
/// Django took over 3 s under CI load and failed the wait with a CDP timeout).
#[test]
fn a_wait_polled_across_a_navigation_to_a_slow_server_waits_for_the_new_page() {
    let site = site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/page1.html")]).success();
    ab.run(&[
        "eval",
        "setTimeout(() => { location.href = '/slow?ms=4500'; }, 10); 1",
    ])
    .success();
    let waited = ab
        .run(&["wait", "--fn", "location.pathname === '/slow'"])
        .success();
    assert_eq!(waited.out(), "true");
    assert_eq!(
        ab.run(&["get", "url"]).success().out(),
        site.url("/slow?ms=4500")
    );
    ab.run(&["close"]).success();
}
