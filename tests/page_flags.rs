//! Page flags and settings that must have an effect: `set credentials`, `--headers`,
//! `--init-script` with `addinitscript`/`removeinitscript`, `--color-scheme` and `--extension`,
//! each against real Chromium on fixture pages, and each one's bad input.

#![allow(clippy::unwrap_used)] // Test setup: a failing unwrap is a failing test.

use abx_tests::cli::Cli;

mod common;

const DARK: &str = "matchMedia('(prefers-color-scheme: dark)').matches";

#[test]
fn set_credentials_answers_the_servers_basic_auth_challenge() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/static.html")]).success();
    ab.run(&["set", "credentials", "alice", "secret"]).success();
    ab.run(&["open", &site.url("/basic-auth")]).success();
    assert_eq!(ab.run(&["get", "text", "#who"]).success().out(), "alice");
    // A new tab of the session is answered too.
    ab.run(&["tab", "new", &site.url("/basic-auth")]).success();
    assert_eq!(ab.run(&["get", "title"]).success().out(), "Authorized");
    ab.run(&["close"]).success();
}

#[test]
fn wrong_credentials_get_the_servers_refusal_not_a_loop() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/static.html")]).success();
    ab.run(&["set", "credentials", "alice", "wrong"]).success();
    let opened = ab.run(&["open", &site.url("/basic-auth")]).success();
    assert!(opened.out().contains("401"), "{opened:?}");
    let missing = ab.run(&["set", "credentials", "alice"]).failure();
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("set credentials"), "{missing:?}");
    ab.run(&["close"]).success();
}

#[test]
fn credentials_work_alongside_the_allowlist_interception() {
    let site = common::site();
    let ab = Cli::new().env("AGENT_BROWSER_ALLOWED_DOMAINS", "127.0.0.1");
    ab.run(&["open", &site.url("/static.html")]).success();
    ab.run(&["set", "credentials", "alice", "secret"]).success();
    ab.run(&["open", &site.url("/basic-auth")]).success();
    assert_eq!(ab.run(&["get", "text", "#who"]).success().out(), "alice");
    // The allowlist still blocks.
    ab.run(&["open", &site.url_on_host("localhost", "/static.html")])
        .failure();
    ab.run(&["close"]).success();
}

#[test]
fn headers_go_to_the_opened_origin_only() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&[
        "--headers",
        r#"{"X-Abx-Test":"yes"}"#,
        "open",
        &site.url("/echo-headers"),
    ])
    .success();
    let body = ab.run(&["get", "text", "body"]).success();
    assert!(body.out().contains(r#""x-abx-test": "yes""#), "{body:?}");
    // Another origin (another host name of the same server) does not get them.
    ab.run(&["open", &site.url_on_host("localhost", "/echo-headers")])
        .success();
    let other = ab.run(&["get", "text", "body"]).success();
    assert!(!other.out().contains("x-abx-test"), "{other:?}");
    let bad = ab
        .run(&["--headers", "not json", "open", &site.url("/static.html")])
        .failure();
    assert_eq!(bad.code, 1);
    ab.run(&["close"]).success();
}

/// Guards against two interceptions answering one paused request: with a route set, a plain
/// `continue` from the routes raced the headers' `continue` (the headers went missing on some
/// loads), and `unroute` turned the tab's interception off under the headers and credentials.
#[test]
fn headers_and_credentials_survive_routes_and_unroute() {
    let site = common::site();
    let ab = Cli::new();
    let has_header = |ab: &Cli| {
        ab.run(&["open", &site.url("/echo-headers")]).success();
        let body = ab.run(&["get", "text", "body"]).success();
        body.out().contains(r#""x-abx-test": "yes""#)
    };
    ab.run(&[
        "--headers",
        r#"{"X-Abx-Test":"yes"}"#,
        "open",
        &site.url("/static.html"),
    ])
    .success();
    ab.run(&["set", "credentials", "alice", "secret"]).success();
    ab.run(&["network", "route", "**/never-requested", "--abort"])
        .success();
    ab.run(&[
        "network",
        "route",
        "**/mocked-by-route",
        "--body",
        "from the route",
    ])
    .success();
    for load in 0..6 {
        assert!(
            has_header(&ab),
            "load {load}: the extra header went missing"
        );
    }
    // The route still answers the requests it matches.
    ab.run(&["open", &site.url("/mocked-by-route")]).success();
    assert_eq!(
        ab.run(&["get", "text", "body"]).success().out(),
        "from the route"
    );
    ab.run(&["open", &site.url("/basic-auth")]).success();
    assert_eq!(ab.run(&["get", "text", "#who"]).success().out(), "alice");
    // Without routes the headers and credentials stay.
    ab.run(&["network", "unroute"]).success();
    assert!(has_header(&ab), "unroute dropped the extra header");
    ab.run(&["open", &site.url("/basic-auth")]).success();
    assert_eq!(ab.run(&["get", "text", "#who"]).success().out(), "alice");
    ab.run(&["close"]).success();
}

#[test]
fn init_scripts_run_before_the_page_and_can_be_removed() {
    let site = common::site();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("init.js");
    std::fs::write(&file, "window.__fromFile = 'init file';").unwrap();
    let ab = Cli::new();
    ab.run(&[
        "--init-script",
        file.to_str().unwrap(),
        "open",
        &site.url("/static.html"),
    ])
    .success();
    assert_eq!(
        ab.run(&["eval", "window.__fromFile"]).success().out(),
        "\"init file\""
    );
    let added = ab
        .run(&["addinitscript", "window.__added = 6 * 7"])
        .success();
    assert_eq!(added.out(), "✓ Init script added: 1");
    ab.run(&["open", &site.url("/page1.html")]).success();
    assert_eq!(ab.run(&["eval", "window.__added"]).success().out(), "42");
    ab.run(&["removeinitscript", "1"]).success();
    ab.run(&["reload"]).success();
    assert_eq!(
        ab.run(&["eval", "typeof window.__added"]).success().out(),
        "\"undefined\""
    );
    let unknown = ab.run(&["removeinitscript", "99"]).failure();
    assert_eq!(unknown.code, 1);
    assert!(unknown.stderr.contains("No init script with identifier 99"));
    assert_eq!(ab.run(&["addinitscript"]).failure().code, 1);
    ab.run(&["close"]).success();

    let missing = Cli::new();
    let failed = missing
        .run(&[
            "--init-script",
            "/nonexistent/abx-init.js",
            "open",
            &site.url("/static.html"),
        ])
        .failure();
    assert_eq!(failed.code, 1);
    assert!(
        failed
            .stderr
            .contains("Cannot read init script /nonexistent/abx-init.js"),
        "{failed:?}"
    );
    missing.run(&["close"]).success();
}

#[test]
fn color_scheme_is_emulated_on_every_tab() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["--color-scheme", "dark", "open", &site.url("/static.html")])
        .success();
    assert_eq!(ab.run(&["eval", DARK]).success().out(), "true");
    ab.run(&["tab", "new", &site.url("/page1.html")]).success();
    assert_eq!(ab.run(&["eval", DARK]).success().out(), "true");
    // Changing it relaunches with the new one.
    ab.run(&["--color-scheme", "light", "open", &site.url("/static.html")])
        .success();
    assert_eq!(ab.run(&["eval", DARK]).success().out(), "false");
    ab.run(&["close"]).success();

    let bad = Cli::new();
    let failed = bad
        .run(&[
            "--color-scheme",
            "purple",
            "open",
            &site.url("/static.html"),
        ])
        .failure();
    assert_eq!(failed.code, 1);
    assert!(
        failed.stderr.contains("Invalid color scheme: purple"),
        "{failed:?}"
    );
    bad.run(&["close"]).success();
}

#[test]
fn extension_content_script_marks_the_page() {
    let site = common::site();
    let extension = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/extension")
        .canonicalize()
        .unwrap();
    let ab = Cli::new();
    ab.run(&[
        "--extension",
        extension.to_str().unwrap(),
        "open",
        &site.url("/static.html"),
    ])
    .success();
    assert_eq!(
        ab.run(&["eval", "document.documentElement.dataset.abxExtension"])
            .success()
            .out(),
        "\"loaded\""
    );
    ab.run(&["close"]).success();

    let bad = Cli::new();
    let failed = bad
        .run(&[
            "--extension",
            "/nonexistent/ext",
            "open",
            &site.url("/static.html"),
        ])
        .failure();
    assert_eq!(failed.code, 1);
    assert!(failed.stderr.contains("Extension not found"), "{failed:?}");
    bad.run(&["close"]).success();
}
