//! The active tab is the one Chrome shows, on both binaries abx runs, as upstream has it: a tab
//! opened by `tab new` or switched to by `tab <ref>` is visible and focused, the tab it replaces
//! in front of the window is hidden, and a tab in another window stays visible. A stage of a
//! shared anchor never takes the front.
//!
//! Before: on full Chrome every tab abx opened stayed a background tab, so the active tab after
//! `tab new` reported `hidden`, and no page had focus; on the headless shell every tab stayed
//! shown, so the tab left behind never saw `visibilitychange`.

use abx_tests::cli::Cli;

mod common;

/// What the page says of itself: visibility and focus.
const SHOWN: &str = "document.visibilityState + '/' + document.hasFocus()";
/// Starts a log of the page's visibility changes.
const LOG_START: &str = "window.__seen = [document.visibilityState]; \
    document.addEventListener('visibilitychange', () => __seen.push(document.visibilityState)); 1";
const LOG: &str = "JSON.stringify(window.__seen)";

fn eval(cli: &Cli, script: &str) -> String {
    cli.run(&["eval", script]).success().out().to_string()
}

fn session(executable: Option<&str>) -> Cli {
    let cli = Cli::new();
    match executable {
        Some(path) => cli.env("AGENT_BROWSER_EXECUTABLE_PATH", path),
        None => cli.without("AGENT_BROWSER_EXECUTABLE_PATH"),
    }
}

#[test]
fn the_active_tab_is_shown_and_the_one_it_replaces_hidden_on_the_headless_shell() {
    active_tab_is_the_shown_one(session(None));
}

#[test]
fn the_active_tab_is_shown_and_the_one_it_replaces_hidden_on_full_chrome() {
    active_tab_is_the_shown_one(session(Some("/usr/bin/chromium")));
}

fn active_tab_is_the_shown_one(cli: Cli) {
    let site = common::site();
    cli.run(&["open", &site.url("/page1.html")]).success();
    assert_eq!(eval(&cli, SHOWN), r#""visible/true""#, "the first tab");
    eval(&cli, LOG_START);

    cli.run(&["tab", "new", &site.url("/page2.html")]).success();
    assert_eq!(
        eval(&cli, SHOWN),
        r#""visible/true""#,
        "a tab opened by tab new"
    );

    cli.run(&["tab", "t1"]).success();
    assert_eq!(eval(&cli, SHOWN), r#""visible/true""#, "a tab switched to");
    assert_eq!(
        eval(&cli, LOG),
        r#""[\"visible\",\"hidden\",\"visible\"]""#,
        "the first tab was hidden behind the second, and shown again"
    );

    // Another window hides nothing of this one.
    cli.run(&["window", "new"]).success();
    assert_eq!(eval(&cli, SHOWN), r#""visible/true""#, "a new window's tab");
    cli.run(&["tab", "t1"]).success();
    assert_eq!(
        eval(&cli, LOG),
        r#""[\"visible\",\"hidden\",\"visible\"]""#,
        "a tab in another window stays shown"
    );

    // Closing the active tab shows the one that takes its place.
    cli.run(&["tab", "close"]).success();
    assert_eq!(eval(&cli, "location.pathname"), r#""/page2.html""#);
    assert_eq!(
        eval(&cli, SHOWN),
        r#""visible/true""#,
        "the tab after a close"
    );
    cli.run(&["close"]).success();
}

#[test]
fn a_stage_tab_opened_by_tab_new_stays_in_the_background_of_a_shell_anchor() {
    let site = common::site();
    let anchor = session(None)
        .session("anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", &site.url("/page1.html")]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    let stage = Cli::new()
        .session("stage")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", &cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    stage.run(&["open", &site.url("/page2.html")]).success();
    assert_eq!(eval(&stage, "document.visibilityState"), r#""hidden""#);

    stage
        .run(&["tab", "new", &site.url("/static.html")])
        .success();
    assert_eq!(eval(&stage, "location.pathname"), r#""/static.html""#);
    assert_eq!(
        eval(&stage, "document.visibilityState"),
        r#""hidden""#,
        "a stage's new tab is a background tab too"
    );
    assert_eq!(
        eval(&anchor, "document.visibilityState"),
        r#""visible""#,
        "the anchor's own tab keeps the front"
    );
    stage.run(&["close"]).success();
    anchor.run(&["close"]).success();
}
