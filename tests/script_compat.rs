//! Differences from upstream 0.41.2 that broke scripts, each fixed to upstream's behaviour and
//! guarded here through the binary against real Chromium.
use abx_tests::cli::Cli;
use abx_tests::raw::RawCdp;
use serde_json::{Value, json};

mod common;

#[test]
fn session_info_prints_upstreams_lines_and_json_shape() {
    let site = common::site();
    let cli = Cli::new().session("info");
    let idle = cli.run(&["session", "info"]).success();
    assert!(idle.out().contains("Daemon: not running"), "{idle:?}");
    cli.run(&["open", &site.url("/fixture.html")]).success();
    let text = cli.run(&["session", "info"]).success();
    let lines: Vec<&str> = text.out().lines().collect();
    assert_eq!(lines[0], "Session: info");
    assert!(lines[1].starts_with("Socket dir: "), "{lines:?}");
    assert!(lines[2].starts_with("Daemon: running (pid "), "{lines:?}");
    for needle in [
        "Restore status: not_configured",
        "Save status: not_attempted",
        "Engine: chrome",
        "Browser launched: true",
    ] {
        assert!(lines.contains(&needle), "{needle} missing: {lines:?}");
    }
    let json = cli.run(&["--json", "session", "info"]).success().json();
    let data = &json["data"];
    assert_eq!(json["success"], true);
    assert_eq!(data["session"], "info");
    assert_eq!(data["active"], true);
    assert_eq!(data["pid"], json!(cli.daemon_pid()));
    assert!(data["version"].is_string());
    assert_eq!(data["runtimeError"], Value::Null);
    assert_eq!(data["runtime"]["browserLaunched"], true);
    assert_eq!(data["runtime"]["restoreStatus"], "not_configured");
    assert_eq!(data["runtime"]["pageCount"], 1);
    cli.run(&["close"]).success();
}

#[test]
fn eval_prints_javascript_tokens_for_values_without_json() {
    let cli = Cli::new().session("tokens");
    cli.run(&["open", "about:blank"]).success();
    for (script, token) in [
        ("NaN", "NaN"),
        ("-Infinity", "-Infinity"),
        ("undefined", "undefined"),
        ("-0", "-0"),
        ("10n", "10n"),
    ] {
        assert_eq!(
            cli.run(&["eval", script]).success().out(),
            token,
            "{script}"
        );
    }
    let json = cli.run(&["--json", "eval", "undefined"]).success().json();
    assert_eq!(json["data"]["result"], Value::Null);
    assert_eq!(json["data"]["unserializable"], "undefined");
    assert_eq!(cli.run(&["eval", "1 + 1"]).success().out(), "2");
    cli.run(&["close"]).success();
}

#[test]
fn window_new_opens_a_real_window_and_prints_upstreams_line() {
    let site = common::site();
    let cli = Cli::new().session("window");
    cli.run(&["open", &site.url("/page1.html")]).success();
    let opened = cli.run(&["window", "new"]).success();
    assert_eq!(opened.out(), "✓ Window opened [t2] (2 total)");
    let tabs = cli.run(&["--json", "tab", "list"]).success().json();
    let list = tabs["data"]["tabs"].as_array().cloned().unwrap_or_default();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["active"], true, "{list:?}");
    let cdp = cli.run(&["get", "cdp-url"]).success().out().to_string();
    let raw = RawCdp::connect(&cdp);
    let window = |target: &Value| {
        raw.call_json("Browser.getWindowForTarget", json!({"targetId": target}))["windowId"].clone()
    };
    let (first, second) = (window(&list[0]["targetId"]), window(&list[1]["targetId"]));
    assert!(first.is_number() && second.is_number(), "{first} {second}");
    assert_ne!(first, second, "window new opened a tab in the same window");
    cli.run(&["close"]).success();
}

#[test]
fn tab_close_of_the_active_tab_makes_the_next_tab_active() {
    let site = common::site();
    let cli = Cli::new().session("succ");
    cli.run(&["open", &site.url("/page1.html")]).success();
    cli.run(&["tab", "new", &site.url("/page2.html")]).success();
    cli.run(&["tab", "new", &site.url("/fixture.html")])
        .success();
    cli.run(&["tab", "t2"]).success();
    assert_eq!(
        cli.run(&["tab", "close"]).success().out(),
        "✓ Tab [t2] closed"
    );
    // The tab that took t2's place (t3) is active, so a bare `tab close` works again.
    assert_eq!(
        cli.run(&["get", "url"]).success().out(),
        site.url("/fixture.html")
    );
    assert_eq!(
        cli.run(&["tab", "close"]).success().out(),
        "✓ Tab [t3] closed"
    );
    // The last one closed: the previous tab.
    assert_eq!(
        cli.run(&["get", "url"]).success().out(),
        site.url("/page1.html")
    );
    let list = cli.run(&["tab", "list"]).success();
    assert!(list.out().starts_with("→ [t1]"), "{list:?}");
    cli.run(&["close"]).success();
}

#[test]
fn console_and_errors_clear_print_one_line() {
    let cli = Cli::new().session("clear");
    cli.run(&["open", "about:blank"]).success();
    cli.run(&[
        "eval",
        "console.log('hello'); setTimeout(() => { throw new Error('boom') }); 1",
    ])
    .success();
    cli.run(&["wait", "200"]).success();
    assert!(cli.run(&["console"]).success().out().contains("hello"));
    assert_eq!(
        cli.run(&["console", "--clear"]).success().out(),
        "✓ Console log cleared"
    );
    assert_eq!(
        cli.run(&["--json", "console"]).success().json()["data"]["messages"],
        json!([])
    );
    assert_eq!(
        cli.run(&["errors", "--clear"]).success().out(),
        "✓ Page errors cleared"
    );
    assert_eq!(
        cli.run(&["--json", "errors"]).success().json()["data"]["errors"],
        json!([])
    );
    cli.run(&["close"]).success();
}

#[test]
fn get_styles_reports_every_computed_property() {
    let site = common::site();
    let cli = Cli::new().session("styles");
    cli.run(&["open", &site.url("/fixture.html")]).success();
    let json = cli.run(&["--json", "get", "styles", "h1"]).success().json();
    let styles = json["data"]["styles"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    assert!(styles.len() > 200, "only {} properties", styles.len());
    for key in ["margin-top", "display", "font-size", "-webkit-box-align"] {
        assert!(styles.contains_key(key), "{key} missing");
    }
    assert_eq!(styles["display"], "block");
    cli.run(&["close"]).success();
}

#[test]
fn get_cdp_url_without_a_browser_fails_and_launches_nothing() {
    let cli = Cli::new().session("nocdp");
    let failed = cli.run(&["get", "cdp-url"]).failure();
    assert_eq!(failed.code, 1);
    assert!(failed.stderr.contains("Browser not launched"), "{failed:?}");
    let info = cli.run(&["--json", "session", "info"]).success().json();
    assert_eq!(info["data"]["runtime"]["browserLaunched"], false, "{info}");
    cli.run(&["close"]).success();
}

#[test]
fn connect_keeps_later_commands_on_the_attached_browsers_page() {
    let site = common::site();
    let host = Cli::new()
        .session("cdp-host")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    host.run(&["open", &site.url("/page1.html")]).success();
    let cdp = host.run(&["get", "cdp-url"]).success().out().to_string();
    // Local launch settings (AGENT_BROWSER_ARGS) ride along with every command of this session.
    let attached = Cli::new().session("attached");
    attached.run(&["connect", &cdp]).success();
    assert_eq!(
        attached.run(&["get", "url"]).success().out(),
        site.url("/page1.html")
    );
    assert_eq!(attached.run(&["get", "title"]).success().out(), "Page One");
    let info = attached.run(&["--json", "get", "cdp-url"]).success().json();
    assert_eq!(
        info["data"]["cdpUrl"], cdp,
        "a local Chrome replaced the attached one"
    );
    attached.run(&["close"]).success();
    host.run(&["close"]).success();
}

#[test]
fn lifecycle_launched_is_false_on_a_reused_browser() {
    let cli = Cli::new().session("reused");
    cli.run(&["open", "about:blank"]).success();
    let again = cli.run(&["--json", "get", "url"]).success().json();
    assert_eq!(again["data"]["lifecycle"]["launched"], false, "{again}");
    assert_eq!(again["data"]["lifecycle"]["reused"], true, "{again}");
    cli.run(&["close"]).success();
}

#[test]
fn whole_numbers_print_as_integers() {
    let site = common::site();
    let cli = Cli::new().session("ints");
    cli.run(&["open", &site.url("/fixture.html")]).success();
    let out = cli.run(&["--json", "get", "box", "h1"]).success();
    assert!(
        !out.stdout.contains(".0,") && !out.stdout.contains(".0}"),
        "{}",
        out.stdout
    );
    let json = out.json();
    assert!(
        json["data"]["x"].is_i64() || json["data"]["x"].is_f64(),
        "{json}"
    );
    cli.run(&["close"]).success();
}

#[test]
fn dblclick_is_one_press_with_click_count_two() {
    let site = common::site();
    let cli = Cli::new().session("dbl");
    cli.run(&["open", &site.url("/events.html")]).success();
    cli.run(&[
        "eval",
        "window.__seen = []; for (const k of ['mousedown', 'mouseup', 'click', 'dblclick']) \
         document.addEventListener(k, (e) => window.__seen.push(k + ':' + e.detail), true); 0",
    ])
    .success();
    cli.run(&["dblclick", "#target"]).success();
    let seen = cli.run(&["eval", "window.__seen.join(' ')"]).success();
    // As upstream: one press and release with clickCount 2, so the page sees one click and one
    // dblclick, both with detail 2 (not click, click, dblclick).
    assert_eq!(
        seen.out().trim_matches('"'),
        "mousedown:2 mouseup:2 click:2 dblclick:2",
        "{seen:?}"
    );
    cli.run(&["close"]).success();
}

#[test]
fn find_without_a_match_uses_upstreams_wording() {
    let site = common::site();
    let cli = Cli::new().session("findmiss");
    cli.run(&["open", &site.url("/fixture.html")]).success();
    let miss = cli
        .run(&["find", "text", "No such text", "click"])
        .failure();
    assert_eq!(miss.code, 1);
    assert!(
        miss.stderr
            .starts_with("✗ No element found by text 'No such text'. Verify the selector"),
        "{miss:?}"
    );
    cli.run(&["close"]).success();
}

#[test]
fn session_id_git_root_outside_a_git_tree_fails() {
    let outside = tempfile::tempdir().expect("dir");
    let cli = Cli::new().without("AGENT_BROWSER_ARGS");
    let run = |args: &[&str]| {
        let output = cli
            .command(args)
            .current_dir(outside.path())
            .output()
            .expect("run");
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).to_string(),
            String::from_utf8_lossy(&output.stderr).to_string(),
        )
    };
    let (code, _, stderr) = run(&["session", "id", "--scope", "git-root"]);
    assert_eq!(code, Some(1));
    assert_eq!(stderr.trim(), "✗ Not inside a Git working tree");
    let (code, _, stderr) = run(&["session", "id", "--scope", "nowhere"]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("Unknown session id scope 'nowhere'"),
        "{stderr}"
    );
    // The default scope falls back to the directory.
    let (code, stdout, _) = run(&["session", "id"]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout.trim().len(), 12, "{stdout}");
}

#[test]
fn batch_omit_command_names_results_by_index() {
    let site = common::site();
    let cli = Cli::new().session("omit");
    cli.run(&["open", &site.url("/fixture.html")]).success();
    let out = cli
        .run(&[
            "batch",
            "--json",
            "--omit-command",
            "get title",
            "click #missing",
        ])
        .failure();
    let results: Value = serde_json::from_str(out.stdout.trim()).expect("json");
    let list = results.as_array().cloned().unwrap_or_default();
    assert_eq!(list.len(), 2, "{results}");
    assert_eq!(list[0]["index"], 0);
    assert_eq!(list[1]["index"], 1);
    assert!(list.iter().all(|r| r.get("command").is_none()), "{results}");
    assert_eq!(list[0]["result"]["title"], "Fixture Page");
    assert_eq!(list[1]["success"], false);
    cli.run(&["close"]).success();
}

#[test]
fn highlight_outlines_the_element_in_place_for_three_seconds() {
    let site = common::site();
    let cli = Cli::new().session("highlight");
    cli.run(&["open", &site.url("/scroll.html")]).success();
    let out = cli.run(&["highlight", "#bottom"]).success();
    assert_eq!(out.out(), "✓ Done");
    // As upstream: a red inline outline on the element, and the page stays where it was.
    let drawn = cli
        .run(&[
            "eval",
            "[scrollY, getComputedStyle(document.querySelector('#bottom')).outline].join(' | ')",
        ])
        .success();
    assert_eq!(
        drawn.out().trim_matches('"'),
        "0 | rgb(255, 0, 0) solid 2px",
        "{drawn:?}"
    );
    cli.run(&[
        "wait",
        "--fn",
        "document.querySelector('#bottom').style.outline === ''",
        "--timeout",
        "6000",
    ])
    .success();
    cli.run(&["close"]).success();
}
