//! `network requests|request|route|unroute|har` through the binary against real Chromium on
//! `/network.html` (which fetches `/api/items` on load and on `#refetch`, and POSTs JSON to
//! `/api/echo` on `#post`).

use abx_fixtures::FixtureServer;
use abx_tests::cli::Cli;
use serde_json::Value;

mod common;

/// Waits until `#<id>` is no longer `pending` and returns its text.
fn settled(cli: &Cli, id: &str) -> String {
    cli.run(&[
        "wait",
        "--fn",
        &format!("document.getElementById('{id}').textContent !== 'pending'"),
    ])
    .success();
    cli.run(&["get", "text", &format!("#{id}")])
        .success()
        .out()
        .to_string()
}

/// Clicks `#refetch` and returns what the page shows for `/api/items`.
fn refetch(cli: &Cli) -> String {
    cli.run(&["click", "#refetch"]).success();
    settled(cli, "result")
}

/// Opens the network page and waits for its first fetch; then posts the echo.
fn load_network_page(cli: &Cli, site: &FixtureServer) {
    cli.run(&["open", &site.url("/network.html")]).success();
    assert_eq!(settled(cli, "result"), r#"200:{"items":["alpha","beta"]}"#);
    cli.run(&["click", "#post"]).success();
    assert!(settled(cli, "post-result").starts_with("200:"));
}

fn requests(cli: &Cli, args: &[&str]) -> Vec<Value> {
    let mut argv = vec!["--json", "network", "requests"];
    argv.extend_from_slice(args);
    let reply = cli.run(&argv).success().json();
    reply["data"]["requests"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn paths(list: &[Value]) -> Vec<String> {
    list.iter()
        .map(|r| {
            let url = r["url"].as_str().unwrap_or_default();
            url.splitn(4, '/')
                .nth(3)
                .map(|p| format!("/{p}"))
                .unwrap_or_default()
        })
        .collect()
}

#[test]
fn requests_are_logged_from_the_first_navigation_and_filtered() {
    let site = common::site();
    let cli = Cli::new().session("netlog");
    load_network_page(&cli, &site);

    let all = requests(&cli, &[]);
    assert_eq!(
        paths(&all),
        ["/network.html", "/api/items", "/api/echo?from=network"],
        "{all:#?}"
    );
    assert_eq!(all[0]["resourceType"], "Document");
    assert_eq!(all[1]["status"], 200);
    assert_eq!(all[1]["mimeType"], "application/json");
    assert!(all[1]["timestamp"].as_u64().is_some_and(|t| t > 0));

    assert_eq!(paths(&requests(&cli, &["--filter", "api/"])).len(), 2);
    assert_eq!(
        paths(&requests(&cli, &["--type", "document"])),
        ["/network.html"]
    );
    assert_eq!(
        paths(&requests(
            &cli,
            &["--type", "xhr,fetch", "--method", "post"]
        )),
        ["/api/echo?from=network"]
    );
    assert_eq!(paths(&requests(&cli, &["--status", "2xx"])).len(), 3);
    assert!(requests(&cli, &["--status", "400-499"]).is_empty());

    // Text: upstream's line per request.
    let text = cli
        .run(&["network", "requests", "--method", "POST"])
        .success();
    let id = all[2]["requestId"].as_str().unwrap_or_default();
    assert_eq!(
        text.out(),
        format!(
            "[{id}] POST {} (Fetch) 200",
            site.url("/api/echo?from=network")
        )
    );

    // A bad status filter is refused, not an empty list.
    let bad = cli
        .run(&["network", "requests", "--status", "abc"])
        .failure();
    assert_eq!(bad.code, 1);
    assert!(
        bad.stderr.contains("Invalid status filter 'abc'"),
        "{bad:?}"
    );

    let cleared = cli.run(&["network", "requests", "--clear"]).success();
    assert_eq!(cleared.out(), "✓ Request log cleared");
    assert_eq!(
        cli.run(&["network", "requests"]).success().out(),
        "No requests captured"
    );
    cli.run(&["close"]).success();
}

#[test]
fn request_detail_shows_headers_and_both_bodies_of_a_post() {
    let site = common::site();
    let cli = Cli::new().session("netdetail");
    load_network_page(&cli, &site);
    let post = requests(&cli, &["--method", "POST"]);
    let id = post[0]["requestId"]
        .as_str()
        .unwrap_or_default()
        .to_string();

    let detail = cli
        .run(&["--json", "network", "request", &id])
        .success()
        .json();
    let d = &detail["data"];
    assert_eq!(d["method"], "POST");
    assert_eq!(d["headers"]["X-Fixture"], "network");
    assert_eq!(d["headers"]["Content-Type"], "application/json");
    assert_eq!(d["postData"], r#"{"q":"abx"}"#);
    assert_eq!(d["status"], 200);
    assert_eq!(d["responseHeaders"]["Content-Type"], "application/json");
    let body: Value =
        serde_json::from_str(d["responseBody"].as_str().unwrap_or("null")).expect("json body");
    assert_eq!(body["method"], "POST");
    assert_eq!(body["body"], r#"{"q":"abx"}"#);

    let text = cli.run(&["network", "request", &id]).success();
    let out = text.out();
    assert!(
        out.starts_with(&format!(
            "POST {} (Fetch) 200",
            site.url("/api/echo?from=network")
        )),
        "{out}"
    );
    for needle in [
        "Request headers:",
        "  X-Fixture: network",
        "Request body:\n{\"q\":\"abx\"}",
        "Response headers:",
        "Response body:\n{\"method\":\"POST\"",
    ] {
        assert!(out.contains(needle), "{needle:?} missing in:\n{out}");
    }
    cli.run(&["close"]).success();
}

#[test]
fn an_unknown_request_id_is_a_clear_error() {
    let site = common::site();
    let cli = Cli::new().session("netunknown");
    cli.run(&["open", &site.url("/network.html")]).success();
    let missing = cli.run(&["network", "request", "no-such-id"]).failure();
    assert_eq!(missing.code, 1);
    assert_eq!(missing.stderr.trim(), "✗ Request not found");
    let missing = cli.run(&["network", "request"]).failure();
    assert_eq!(missing.code, 1);
    assert!(
        missing.stderr.contains("network request <requestId>"),
        "{missing:?}"
    );
    cli.run(&["close"]).success();
}

#[test]
fn routes_mock_fail_and_set_the_status_and_unroute_restores() {
    let site = common::site();
    let cli = Cli::new().session("netroute");
    load_network_page(&cli, &site);
    site.clear_requests();

    let routed = cli
        .run(&[
            "--json",
            "network",
            "route",
            "**/api/items",
            "--body",
            r#"{"mocked":true}"#,
        ])
        .success()
        .json();
    assert_eq!(routed["data"]["routed"], "**/api/items");
    assert_eq!(refetch(&cli), r#"200:{"mocked":true}"#);

    // The same pattern again replaces the route.
    cli.run(&[
        "network",
        "route",
        "**/api/items",
        "--body",
        "down",
        "--status",
        "503",
    ])
    .success();
    assert_eq!(refetch(&cli), "503:down");

    cli.run(&["network", "route", "**/api/items", "--abort"])
        .success();
    assert_eq!(refetch(&cli), "blocked:TypeError");
    // Mocked and aborted requests never reached the server.
    assert!(
        !site.requests().iter().any(|r| r.path == "/api/items"),
        "{:?}",
        site.requests()
    );
    // The log shows the mocked ones with their status.
    let logged = requests(&cli, &["--filter", "/api/items", "--status", "503"]);
    assert_eq!(logged.len(), 1, "{logged:#?}");

    // A route narrowed to scripts leaves fetches alone.
    cli.run(&["network", "unroute", "**/api/items"]).success();
    cli.run(&[
        "network",
        "route",
        "**/api/items",
        "--abort",
        "--resource-type",
        "script",
    ])
    .success();
    assert_eq!(refetch(&cli), r#"200:{"items":["alpha","beta"]}"#);

    let unrouted = cli.run(&["--json", "network", "unroute"]).success().json();
    assert_eq!(unrouted["data"]["unrouted"], "all");
    assert_eq!(refetch(&cli), r#"200:{"items":["alpha","beta"]}"#);
    cli.run(&["close"]).success();
}

#[test]
fn bad_route_and_har_input_is_refused() {
    let cli = Cli::new().session("netbad").without("AGENT_BROWSER_ARGS");
    for argv in [
        &["network", "route"][..],
        &["network", "route", "**/x", "--status", "abc"],
        &["network", "route", "**/x", "--status", "99"],
        &["network", "route", "**/x", "--body"],
        &["network", "route", "**/x", "--abort", "--body", "x"],
        &["network", "har", "start", "--content", "bogus"],
        &["network", "har"],
    ] {
        let refused = cli.run(argv).failure();
        assert_eq!(refused.code, 1, "{argv:?}: {refused:?}");
        assert!(!refused.stderr.is_empty(), "{argv:?}");
    }
    assert!(!cli.file("engine").exists(), "bad input launched a browser");
    cli.run(&["close"]).success();
}

fn read_har(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).expect("har written");
    serde_json::from_str(&text).expect("har is JSON")
}

fn entry<'a>(har: &'a Value, suffix: &str) -> &'a Value {
    har["log"]["entries"]
        .as_array()
        .and_then(|e| {
            e.iter().find(|e| {
                e["request"]["url"]
                    .as_str()
                    .is_some_and(|u| u.ends_with(suffix))
            })
        })
        .unwrap_or_else(|| panic!("no entry for {suffix}: {har:#}"))
}

#[test]
fn har_holds_the_fixture_requests_as_har_1_2() {
    let site = common::site();
    let cli = Cli::new().session("nethar");
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("capture.har");

    assert_eq!(
        cli.run(&["network", "har", "start"]).success().out(),
        "✓ HAR recording started"
    );
    load_network_page(&cli, &site);
    let saved = cli
        .run(&["network", "har", "stop", path.to_str().expect("utf8")])
        .success();
    assert_eq!(
        saved.out(),
        format!("✓ HAR saved to {} (3 requests)", path.display())
    );
    let har = read_har(&path);
    let log = &har["log"];
    assert_eq!(log["version"], "1.2");
    // As upstream 0.41.2 writes it (checked side by side): the CLI's name and version.
    assert_eq!(
        log["creator"],
        serde_json::json!({"name": "agent-browser", "version": "0.41.2"})
    );
    assert_eq!(log["entries"].as_array().map(Vec::len), Some(3));
    for e in log["entries"].as_array().into_iter().flatten() {
        assert!(
            e["startedDateTime"]
                .as_str()
                .is_some_and(|d| d.ends_with('Z')),
            "{e:#}"
        );
        assert!(e["time"].as_f64().is_some_and(|t| t >= 0.0));
        for key in [
            "method",
            "url",
            "httpVersion",
            "cookies",
            "headers",
            "queryString",
        ] {
            assert!(!e["request"][key].is_null(), "request.{key}: {e:#}");
        }
        for key in ["status", "statusText", "headers", "content", "redirectURL"] {
            assert!(!e["response"][key].is_null(), "response.{key}: {e:#}");
        }
        for key in ["send", "wait", "receive"] {
            assert!(
                e["timings"][key].as_f64().is_some_and(|t| t >= 0.0),
                "timings.{key}: {e:#}"
            );
        }
    }
    let items = entry(&har, "/api/items");
    assert_eq!(items["response"]["status"], 200);
    assert_eq!(
        items["response"]["content"]["text"],
        r#"{"items":["alpha","beta"]}"#
    );
    let echo = entry(&har, "/api/echo?from=network");
    assert_eq!(echo["request"]["postData"]["text"], r#"{"q":"abx"}"#);
    assert_eq!(echo["request"]["postData"]["mimeType"], "application/json");
    assert_eq!(echo["request"]["queryString"][0]["name"], "from");
    assert_eq!(echo["request"]["queryString"][0]["value"], "network");

    // --content none: sizes and types, no bodies.
    cli.run(&["network", "har", "start", "--content", "none"])
        .success();
    assert_eq!(refetch(&cli), r#"200:{"items":["alpha","beta"]}"#);
    let bare = dir.path().join("bare.har");
    cli.run(&["network", "har", "stop", bare.to_str().expect("utf8")])
        .success();
    let har = read_har(&bare);
    let items = entry(&har, "/api/items");
    assert!(items["response"]["content"]["text"].is_null(), "{items:#}");
    assert_eq!(items["response"]["content"]["mimeType"], "application/json");
    cli.run(&["close"]).success();
}

#[test]
fn har_stop_without_start_or_to_an_unwritable_path_fails_and_keeps_the_recording() {
    let site = common::site();
    let cli = Cli::new().session("netharerr");
    let dir = tempfile::tempdir().expect("dir");
    cli.run(&["open", &site.url("/network.html")]).success();

    let never = dir.path().join("never.har");
    let refused = cli
        .run(&["network", "har", "stop", never.to_str().expect("utf8")])
        .failure();
    assert_eq!(refused.code, 1);
    assert!(refused.stderr.contains("No HAR recording"), "{refused:?}");
    assert!(!never.exists());

    cli.run(&["network", "har", "start"]).success();
    assert_eq!(refetch(&cli), r#"200:{"items":["alpha","beta"]}"#);
    let unwritable = dir.path().join("missing-dir").join("x.har");
    let failed = cli
        .run(&["network", "har", "stop", unwritable.to_str().expect("utf8")])
        .failure();
    assert_eq!(failed.code, 1);
    assert!(failed.stderr.contains("Failed to write HAR"), "{failed:?}");
    // The recording survived: a good path gets it.
    let good = dir.path().join("good.har");
    cli.run(&["network", "har", "stop", good.to_str().expect("utf8")])
        .success();
    entry(&read_har(&good), "/api/items");
    cli.run(&["close"]).success();
}

#[test]
fn routes_compose_with_the_allowlist() {
    let site = common::site();
    let cli = Cli::new().session("netfenced");
    let page = site.url_on_host("a.localhost", "/network.html");
    cli.run(&["--allowed-domains", "a.localhost", "open", &page])
        .success();
    assert_eq!(settled(&cli, "result"), r#"200:{"items":["alpha","beta"]}"#);

    // An allowed URL gets the route.
    cli.run(&["network", "route", "**/api/items", "--body", "routed"])
        .success();
    assert_eq!(refetch(&cli), "200:routed");

    // A blocked URL stays blocked, whatever a route says.
    let outside = site.url_on_host("b.localhost", "/api/items?via=route");
    cli.run(&["network", "route", "*b.localhost*", "--body", "let me out"])
        .success();
    let fetched = cli
        .run(&[
            "eval",
            &format!("fetch({outside:?}).then(r => r.text()).catch(e => 'blocked:' + e.name)"),
        ])
        .success();
    assert_eq!(fetched.out(), "\"blocked:TypeError\"");
    assert!(
        !site.requests().iter().any(|r| r
            .host
            .as_deref()
            .is_some_and(|h| h.starts_with("b.localhost"))),
        "a blocked request went out"
    );
    cli.run(&["network", "unroute"]).success();
    assert_eq!(refetch(&cli), r#"200:{"items":["alpha","beta"]}"#);
    cli.run(&["close"]).success();
}

#[test]
fn a_stage_on_a_shared_anchor_routes_and_logs_only_its_own_tab() {
    let site = common::site();
    let anchor = Cli::new()
        .session("net-anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", &site.url("/network.html")]).success();
    assert_eq!(
        settled(&anchor, "result"),
        r#"200:{"items":["alpha","beta"]}"#
    );
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();

    let stage = Cli::new()
        .session("net-stage")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", &cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1");
    stage
        .run(&["open", &site.url("/network.html?stage=1")])
        .success();
    stage
        .run(&["network", "route", "**/api/items", "--abort"])
        .success();
    assert_eq!(refetch(&stage), "blocked:TypeError");

    // The anchor's tab is neither routed nor in the stage's log.
    assert_eq!(refetch(&anchor), r#"200:{"items":["alpha","beta"]}"#);
    let logged = requests(&stage, &["--type", "document"]);
    assert_eq!(paths(&logged), ["/network.html?stage=1"], "{logged:#?}");

    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    anchor.run(&["close"]).success();
}
