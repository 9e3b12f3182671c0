//! Permission prompts and proxies, through the binary against real Chromium.
//!
//! Permission prompts must resolve as *denied* for every session, launched or attached, with or
//! without `--deny-permission-prompts` in the args. Headless Chrome denies them by itself, so these
//! run headed (a private Xvfb), where an unanswered prompt would hang until the page's 3 s timeout
//! marker. Proxies: `AGENT_BROWSER_PROXY` with credentials (answered on `Fetch.authRequired`),
//! `AGENT_BROWSER_PROXY_BYPASS`, and a PAC script given as a `data:` URL, each through a small
//! recording proxy in the test.

use std::time::Duration;

use abx_tests::cli::Cli;
use abx_tests::raw::{RawCdp, TestProxy};
use base64::Engine as _;
use serde_json::json;

mod common;

/// Clicks `#request` on a permission page and returns the settled `#result`.
fn permission_outcome(cli: &Cli, url: &str) -> String {
    cli.run(&["open", url]).success();
    cli.run(&["eval", "document.getElementById('request').click(); 1"])
        .success();
    cli.run(&[
        "wait",
        "--fn",
        "!document.getElementById('result').textContent.endsWith(':pending')",
    ])
    .success();
    cli.run(&["get", "text", "#result"])
        .success()
        .out()
        .to_string()
}

fn assert_all_denied(cli: &Cli, site: &abx_fixtures::FixtureServer) {
    assert_eq!(
        permission_outcome(cli, &site.url("/geo.html")),
        "geo:denied"
    );
    assert_eq!(
        permission_outcome(cli, &site.url("/notify.html")),
        "notify:denied"
    );
    assert_eq!(
        permission_outcome(cli, &site.url("/clipboard.html")),
        "clipboard:error:NotAllowedError"
    );
}

#[test]
fn permission_prompts_are_denied_in_a_launched_headed_session() {
    let site = common::site();
    let cli = Cli::new()
        .session("perm-launch")
        .env("AGENT_BROWSER_HEADED", "1");
    assert_all_denied(&cli, &site);
    cli.run(&["close"]).success();
}

#[test]
fn permission_prompts_are_denied_in_a_stage_attached_to_a_chrome_without_the_flag() {
    let site = common::site();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    // A headed Chrome we did not launch through a session: no --deny-permission-prompts.
    let options = abx_chrome::LaunchOptions {
        headless: false,
        ..abx_tests::launch_options(None)
    };
    let chrome = rt
        .block_on(abx_chrome::Chrome::launch(options))
        .expect("launch headed Chrome");
    let cdp = chrome.ws_url().to_string();
    let raw = RawCdp::connect(&cdp);

    // Without a policy the prompt stays pending: the page gives up after 3 s.
    let conn = raw.connection().clone();
    let unanswered = raw.block_on(async {
        let page = abx_tests::Page::open(&conn).await;
        page.goto(&site.url("/geo.html")).await;
        page.eval("document.getElementById('request').click()")
            .await;
        page.wait_for(
            "!document.getElementById('result').textContent.endsWith(':pending')",
            Duration::from_secs(10),
        )
        .await;
        let outcome = page
            .eval("document.getElementById('result').textContent")
            .await;
        let _ = conn
            .browser()
            .call_json("Target.closeTarget", json!({"targetId": page.target_id}))
            .await;
        outcome
    });
    assert_eq!(
        unanswered,
        json!("geo:timeout"),
        "the control case must hang"
    );

    let stage = Cli::new()
        .session("perm-stage")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", &cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1");
    assert_all_denied(&stage, &site);
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    let receipt = rt.block_on(chrome.close(Some(raw.connection())));
    assert!(receipt.verified, "{receipt:?}");
}

#[test]
fn an_authenticating_proxy_and_its_bypass_list_are_used() {
    let site = common::site();
    let proxy = TestProxy::start(site.port(), Some(("ada", "s3cret")));
    let server = proxy.url().replace("http://", "http://ada:s3cret@");
    let cli = Cli::new()
        .session("proxied")
        .env("AGENT_BROWSER_PROXY", &server)
        // Chrome never proxies loopback unless told so; b.localhost goes direct.
        .env("AGENT_BROWSER_PROXY_BYPASS", "<-loopback>;b.localhost");
    let through = site.url_on_host("a.localhost", "/page1.html?via=proxy");
    cli.run(&["open", &through]).success();
    assert_eq!(cli.run(&["get", "title"]).success().out(), "Page One");
    let seen = proxy.requests();
    assert!(
        seen.iter().any(|r| r.target == through && r.authorized),
        "the page went through the proxy with credentials: {seen:?}"
    );
    assert!(
        seen.iter().any(|r| r.target == through && !r.authorized),
        "the first attempt was challenged (so Fetch.authRequired answered): {seen:?}"
    );

    // A stage attached to this browser has no credentials of its own: the owner answers.
    let cdp = cli.run(&["get", "cdp-url"]).success().out().to_string();
    let stage = Cli::new()
        .session("proxied-stage")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", &cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1");
    let from_stage = site.url_on_host("a.localhost", "/page2.html?via=stage");
    stage.run(&["open", &from_stage]).success();
    assert_eq!(stage.run(&["get", "title"]).success().out(), "Page Two");
    assert!(
        proxy
            .requests()
            .iter()
            .any(|r| r.target == from_stage && r.authorized),
        "the stage's page went through the proxy with the owner's credentials"
    );
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();

    let direct = site.url_on_host("b.localhost", "/page2.html?via=direct");
    cli.run(&["open", &direct]).success();
    assert_eq!(cli.run(&["get", "title"]).success().out(), "Page Two");
    assert!(
        !proxy
            .requests()
            .iter()
            .any(|r| r.target.contains("b.localhost")),
        "the bypass list was ignored"
    );
    assert!(
        site.requests()
            .iter()
            .any(|r| r.path == "/page2.html?via=direct")
    );
    cli.run(&["close"]).success();
}

#[test]
fn a_pac_script_given_as_a_data_url_routes_requests() {
    let site = common::site();
    let proxy = TestProxy::start(site.port(), None);
    let script = format!(
        "function FindProxyForURL(url, host) {{ if (host == 'pac.test') return 'PROXY 127.0.0.1:{}'; return 'DIRECT'; }}",
        proxy.port()
    );
    let pac = format!(
        "data:application/x-ns-proxy-autoconfig;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(script)
    );
    let cli = Cli::new().session("pac").env("AGENT_BROWSER_PROXY", &pac);
    // Chrome never sends loopback names through a PAC proxy; `pac.test` does not resolve, so it
    // loads only if the PAC script routed it through the proxy (which forwards to the fixture).
    let through = format!("http://pac.test:{}/page1.html?via=pac", site.port());
    cli.run(&["open", &through]).success();
    assert_eq!(cli.run(&["get", "title"]).success().out(), "Page One");
    let direct = site.url_on_host("b.localhost", "/page2.html?via=pac-direct");
    cli.run(&["open", &direct]).success();
    let seen = proxy.requests();
    assert!(seen.iter().any(|r| r.target == through), "{seen:?}");
    assert!(
        !seen.iter().any(|r| r.target.contains("b.localhost")),
        "{seen:?}"
    );
    assert!(
        site.requests()
            .iter()
            .any(|r| r.path == "/page2.html?via=pac-direct")
    );
    cli.run(&["close"]).success();
}
