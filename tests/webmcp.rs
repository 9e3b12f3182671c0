//! `webmcp list|invoke|result|cancel` against real Chromium: the fixture page's tools are found
//! through Chrome's WebMCP domain, invoked, awaited, canceled; a page without tools, unknown
//! tools and invocations, and `--no-webmcp` answer as upstream does.

use abx_tests::cli::Cli;
use serde_json::Value;

mod common;

fn names(list: &Value) -> Vec<String> {
    list["data"]["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn webmcp_lists_and_invokes_the_tools_the_page_registers() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/webmcp.html")]).success();

    let list = ab.run(&["--json", "webmcp", "list"]).success().json();
    assert_eq!(names(&list), ["add", "broken", "wait"], "{list}");
    assert_eq!(list["data"]["untrusted"], true);
    let add = &list["data"]["tools"][0];
    assert_eq!(add["description"], "Adds two numbers");
    assert_eq!(add["origin"], site.url("").trim_end_matches('/'));
    assert_eq!(
        add["inputSchema"]["required"],
        serde_json::json!(["a", "b"])
    );
    let frame = add["frameId"].as_str().expect("frame id").to_string();

    let text = ab.run(&["webmcp", "list"]).success();
    assert!(
        text.out().starts_with(&format!(
            "add [{frame}]\n  Adds two numbers\n  http://127.0.0.1:"
        )),
        "{}",
        text.out()
    );
    let one = ab
        .run(&["--json", "webmcp", "list", "add"])
        .success()
        .json();
    assert_eq!(names(&one), ["add"]);

    let done = ab
        .run(&[
            "--json",
            "webmcp",
            "invoke",
            "add",
            "--params",
            r#"{"a":2,"b":3}"#,
        ])
        .success()
        .json();
    assert_eq!(done["data"]["status"], "completed", "{done}");
    assert_eq!(done["data"]["output"], 5, "{done}");
    assert_eq!(done["data"]["toolName"], "add");
    assert_eq!(done["data"]["frameId"], frame.as_str());
    // The tool really ran in the page.
    let log = ab.run(&["get", "text", "#log"]).success();
    assert_eq!(log.out(), "add 2 3");
    let text = ab
        .run(&[
            "webmcp",
            "invoke",
            "add",
            "--frame",
            &frame,
            "--params",
            r#"{"a":1,"b":1}"#,
        ])
        .success();
    let lines: Vec<&str> = text.out().lines().collect();
    assert!(lines[0].ends_with(": completed"), "{lines:?}");
    assert_eq!(lines[1], "2");

    let failed = ab
        .run(&["--json", "webmcp", "invoke", "broken"])
        .success()
        .json();
    assert_eq!(failed["data"]["status"], "failed", "{failed}");
    assert_eq!(failed["data"]["rawStatus"], "Error");
    assert!(
        failed["data"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("broken on purpose")),
        "{failed}"
    );

    let timed = ab
        .run(&[
            "--json",
            "webmcp",
            "invoke",
            "wait",
            "--params",
            r#"{"ms":20000}"#,
            "--timeout",
            "300",
        ])
        .success()
        .json();
    assert_eq!(timed["data"]["status"], "timed_out", "{timed}");
    ab.run(&["close"]).success();
}

#[test]
fn webmcp_detached_invocations_are_awaited_and_canceled() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/webmcp.html")]).success();

    let started = ab
        .run(&[
            "--json",
            "webmcp",
            "invoke",
            "wait",
            "--params",
            r#"{"ms":300}"#,
            "--detach",
        ])
        .success()
        .json();
    assert_eq!(started["data"]["status"], "pending", "{started}");
    let id = started["data"]["invocationId"]
        .as_str()
        .expect("id")
        .to_string();
    let result = ab
        .run(&["--json", "webmcp", "result", &id])
        .success()
        .json();
    assert_eq!(result["data"]["status"], "completed", "{result}");
    assert_eq!(result["data"]["output"], "waited 300");
    // A finished invocation stays readable.
    let again = ab.run(&["webmcp", "result", &id]).success();
    assert_eq!(again.out(), format!("{id}: completed\n\"waited 300\""));

    let long = ab
        .run(&[
            "--json",
            "webmcp",
            "invoke",
            "wait",
            "--params",
            r#"{"ms":60000}"#,
            "--detach",
        ])
        .success()
        .json();
    let long_id = long["data"]["invocationId"]
        .as_str()
        .expect("id")
        .to_string();
    let canceled = ab
        .run(&["--json", "webmcp", "cancel", &long_id])
        .success()
        .json();
    assert_eq!(canceled["data"]["status"], "canceled", "{canceled}");
    assert_eq!(canceled["data"]["rawStatus"], "Canceled");
    let twice = ab
        .run(&["--json", "webmcp", "cancel", &long_id])
        .failure()
        .json();
    assert_eq!(twice["code"], "webmcp_invocation_not_active", "{twice}");
    assert_eq!(
        twice["error"],
        format!("webmcp_invocation_not_active: WebMCP invocation '{long_id}' is already canceled")
    );
    ab.run(&["close"]).success();
}

#[test]
fn webmcp_without_tools_and_unknown_names_answer_like_upstream() {
    let site = common::site();
    let ab = Cli::new();
    ab.run(&["open", &site.url("/static.html")]).success();
    let list = ab.run(&["--json", "webmcp", "list"]).success().json();
    assert_eq!(list["data"]["tools"], serde_json::json!([]), "{list}");
    assert_eq!(list["data"]["experimental"], true);
    let text = ab.run(&["webmcp", "list"]).success();
    assert_eq!(text.out(), "No WebMCP tools registered on the current page");

    let missing = ab
        .run(&["--json", "webmcp", "invoke", "foo"])
        .failure()
        .json();
    assert_eq!(missing["code"], "webmcp_tool_not_found");
    assert_eq!(
        missing["error"],
        "webmcp_tool_not_found: No WebMCP tool named 'foo'"
    );
    let missing = ab.run(&["webmcp", "list", "foo"]).failure();
    assert_eq!(
        missing.stderr,
        "✗ webmcp_tool_not_found: No WebMCP tool named 'foo'\n"
    );
    for sub in ["result", "cancel"] {
        let unknown = ab.run(&["--json", "webmcp", sub, "abc"]).failure().json();
        assert_eq!(unknown["code"], "webmcp_invocation_not_found", "{unknown}");
        assert_eq!(
            unknown["error"],
            "webmcp_invocation_not_found: Unknown WebMCP invocation 'abc'"
        );
    }
    ab.run(&["close"]).success();
}

#[test]
fn webmcp_bad_arguments_are_refused_before_the_daemon() {
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    let cases: &[(&[&str], &str)] = &[
        (&["webmcp"], "Missing arguments for: webmcp"),
        (&["webmcp", "foo"], "Unknown subcommand: foo"),
        (
            &["webmcp", "invoke"],
            "Missing arguments for: webmcp invoke",
        ),
        (
            &["webmcp", "result"],
            "Missing arguments for: webmcp result",
        ),
        (
            &["webmcp", "invoke", "x", "--params", "nope"],
            "Invalid JSON for --params",
        ),
        (
            &["webmcp", "invoke", "x", "--params", "[1]"],
            "webmcp_invalid_input",
        ),
        (
            &["webmcp", "invoke", "x", "--timeout", "abc"],
            "--timeout expects a number in ms, got 'abc'",
        ),
        (
            &["webmcp", "list", "a", "b"],
            "Unknown webmcp list option: b",
        ),
    ];
    for (args, message) in cases {
        let out = ab.run(args).failure();
        assert!(out.stderr.contains(message), "{args:?}: {}", out.stderr);
    }
    assert!(ab.daemon_pid().is_none(), "a parse error started a daemon");
}

#[test]
fn no_webmcp_launches_chrome_without_webmcp() {
    let site = common::site();
    for ab in [
        Cli::new().session("flag"),
        Cli::new()
            .session("env")
            .env("AGENT_BROWSER_NO_WEBMCP", "1"),
    ] {
        let open: &[&str] = if ab.run(&["session"]).out() == "flag" {
            &["--no-webmcp", "open"]
        } else {
            &["open"]
        };
        let mut args = open.to_vec();
        let url = site.url("/webmcp.html");
        args.push(&url);
        ab.run(&args).success();
        let state = ab.run(&["get", "attr", "body", "data-webmcp"]).success();
        assert_eq!(
            state.out(),
            "off",
            "the page still has document.modelContext"
        );
        let list = ab.run(&["--json", "webmcp", "list"]).success().json();
        assert_eq!(list["data"]["tools"], serde_json::json!([]), "{list}");
        ab.run(&["close"]).success();
    }
}

/// Regression: `--no-webmcp` on a session attached to a running browser (`--cdp`, a Host's
/// stage on an anchor launched with WebMCP) did nothing: the launch flag had no launch to act
/// on, so the stage still saw and could call the page's tools. It now keeps WebMCP off in the
/// session's own tabs.
#[test]
fn no_webmcp_on_an_attached_session_keeps_webmcp_off_in_its_tabs() {
    let site = common::site();
    let anchor = Cli::new()
        .session("anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    let stage = |name: &str| {
        Cli::new()
            .session(name)
            .without("AGENT_BROWSER_ARGS")
            .env("AGENT_BROWSER_CDP", &cdp)
            .env("AGENT_BROWSER_PIN_TAB", "1")
    };
    let url = site.url("/webmcp.html");
    let with = stage("with");
    with.run(&["open", &url]).success();
    let list = with.run(&["--json", "webmcp", "list"]).success().json();
    assert_eq!(names(&list), ["add", "broken", "wait"], "{list}");

    let without = stage("without").env("AGENT_BROWSER_NO_WEBMCP", "1");
    without.run(&["open", &url]).success();
    let list = without.run(&["--json", "webmcp", "list"]).success().json();
    assert_eq!(list["data"]["tools"], serde_json::json!([]), "{list}");

    with.run(&["close"]).success();
    without.run(&["close"]).success();
    anchor.run(&["close"]).success();
}
