//! The dashboard page in a real browser (issue 17): `dashboard start` serves it, headless
//! Chromium driven by our own engine opens it, watches two stages of one anchor, types into a
//! fixture form and answers a confirm through the page (real mouse and key events on the
//! dashboard, relayed by it to the stage), and saves a screenshot of the dashboard that must not
//! be blank. Plus the command's own behaviour (already running, other port, stop) and its access
//! rules.

use std::sync::Arc;
use std::time::Duration;

use abx_engine::{Browser, ScreenshotOptions, Session, SessionOptions, WaitUntil};
use abx_tests::cli::Cli;
use serde_json::{Value, json};

mod common;

const WAIT: Duration = Duration::from_secs(20);

/// Stops the dashboard of a socket dir when the test ends, passed or failed.
struct StopDashboard<'a>(&'a Cli);

impl Drop for StopDashboard<'_> {
    fn drop(&mut self) {
        let _ = self.0.run(&["dashboard", "stop"]);
    }
}

fn anchor() -> (Cli, String) {
    let anchor = Cli::new()
        .session("anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    (anchor, cdp)
}

/// A free port on 127.0.0.1 (bound and released; the dashboard takes it right after).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Runs `script` in the dashboard page.
async fn eval(page: &Session, script: &str) -> Value {
    page.page(Some(WAIT))
        .await
        .expect("page")
        .evaluate(script)
        .await
        .unwrap_or_else(|e| panic!("evaluate {script}: {e}"))
        .value
}

async fn wait_for(page: &Session, expression: &str, what: &str) -> Value {
    page.page(Some(WAIT))
        .await
        .expect("page")
        .wait_for_function(expression, what)
        .await
        .unwrap_or_else(|e| panic!("dashboard: {what}: {e}"))
}

fn card(session: &str) -> String {
    format!("document.querySelector('section.card[data-session=\"{session}\"]')")
}

/// Centre of `selector` in the stage page, in CSS pixels.
fn centre_in_stage(stage: &Cli, selector: &str) -> (f64, f64) {
    let script = format!(
        "(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
    );
    let value = stage.run(&["--json", "eval", &script]).success().json()["data"]["result"].clone();
    (value[0].as_f64().expect("x"), value[1].as_f64().expect("y"))
}

/// Clicks the stage page at CSS point `(x, y)` by clicking the dashboard's image of it.
async fn click_through(page: &Session, session: &str, (x, y): (f64, f64)) {
    let script = format!(
        "(() => {{ const img = {card}.querySelector('.frame'); const r = img.getBoundingClientRect(); const s = r.width / img.naturalWidth; return [r.left + {x} * s, r.top + {y} * s]; }})()",
        card = card(session)
    );
    let at = eval(page, &script).await;
    let (px, py) = (at[0].as_f64().expect("x"), at[1].as_f64().expect("y"));
    page.page(Some(WAIT))
        .await
        .expect("page")
        .mouse_move(px, py)
        .await
        .expect("move");
    page.page(Some(WAIT))
        .await
        .expect("page")
        .mouse_down(None)
        .await
        .expect("down");
    page.page(Some(WAIT))
        .await
        .expect("page")
        .mouse_up(None)
        .await
        .expect("up");
}

/// Polls the stage until `script` evaluates to `want`.
async fn stage_until(stage: &Arc<Cli>, script: &str, want: Value) -> Value {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let (stage2, script2) = (stage.clone(), script.to_string());
        let got = tokio::task::spawn_blocking(move || {
            stage2.run(&["--json", "eval", &script2]).json()["data"]["result"].clone()
        })
        .await
        .expect("eval task");
        if got == want || std::time::Instant::now() > deadline {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Mean and variance of the grey level of a decoded image.
fn grey_stats(image: &image::DynamicImage) -> (f64, f64) {
    let grey = image.to_luma8();
    let n = f64::from(grey.width() * grey.height());
    let mean = grey.pixels().map(|p| f64::from(p.0[0])).sum::<f64>() / n;
    let var = grey
        .pixels()
        .map(|p| (f64::from(p.0[0]) - mean).powi(2))
        .sum::<f64>()
        / n;
    (mean, var)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_types_and_answers_a_confirm_through_the_dashboard() {
    let t0 = std::time::Instant::now();
    let step = |what: &str| println!("[{:>6.1} s] {what}", t0.elapsed().as_secs_f64());
    let site = common::site();
    let (anchor, cdp) = anchor();
    let stage = |name: &str| {
        Arc::new(
            Cli::new()
                .session(name)
                .without("AGENT_BROWSER_ARGS")
                .env(
                    "AGENT_BROWSER_SOCKET_DIR",
                    anchor.socket_dir().to_str().expect("dir"),
                )
                .env("AGENT_BROWSER_CDP", &cdp)
                .env("AGENT_BROWSER_PIN_TAB", "1")
                .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0"),
        )
    };
    let form = stage("stage-form");
    let ticker = stage("stage-ticker");
    form.run(&["open", &site.url("/form.html")]).success();
    ticker.run(&["open", &site.url("/ticker.html")]).success();

    step("start the dashboard");
    let port = free_port();
    let started = anchor
        .run(&["dashboard", "start", "--port", &port.to_string()])
        .success();
    let _stop = StopDashboard(&anchor);
    assert_eq!(
        started.out(),
        format!("Dashboard started at http://localhost:{port}")
    );

    let browser = Arc::new(
        Browser::launch(abx_tests::launch_options(None))
            .await
            .expect("launch Chrome for the dashboard"),
    );
    let page = Session::start(browser, SessionOptions::default())
        .await
        .expect("session");
    page.navigate(
        &format!("http://127.0.0.1:{port}/"),
        WaitUntil::Load,
        Some(WAIT),
    )
    .await
    .expect("open the dashboard");

    step("sessions listed");
    // Every session of the socket dir is listed and live at once, the first viewer controls.
    for session in ["anchor", "stage-form", "stage-ticker"] {
        wait_for(
            &page,
            &format!(
                "{c} && Number({c}.dataset.frames || 0) >= 1",
                c = card(session)
            ),
            &format!("frames of {session}"),
        )
        .await;
        assert_eq!(
            eval(&page, &format!("{}.dataset.mode", card(session))).await,
            json!("control"),
            "{session}"
        );
    }
    wait_for(
        &page,
        &format!(
            "{}.querySelector('.url').textContent.endsWith('/form.html')",
            card("stage-form")
        ),
        "the stage's URL",
    )
    .await;
    let tabs = eval(
        &page,
        &format!("{}.querySelector('.tabs').textContent", card("stage-form")),
    )
    .await;
    assert!(
        tabs.as_str().is_some_and(|t| t.contains("/form.html")),
        "tabs: {tabs}"
    );

    step("type through the page");
    // Type into the form through the page: a click on the image focuses the field, keys follow
    // (a typo fixed with Backspace, which only works with its legacy key code), Enter submits.
    click_through(&page, "stage-form", centre_in_stage(&form, "#name")).await;
    page.page(Some(WAIT))
        .await
        .expect("page")
        .keyboard_type("Adx", None)
        .await
        .expect("type");
    page.page(Some(WAIT))
        .await
        .expect("page")
        .press("Backspace")
        .await
        .expect("backspace");
    page.page(Some(WAIT))
        .await
        .expect("page")
        .keyboard_type("a Lovelace", None)
        .await
        .expect("type");
    let typed = stage_until(
        &form,
        "document.querySelector('#name').value",
        json!("Ada Lovelace"),
    )
    .await;
    assert_eq!(
        typed,
        json!("Ada Lovelace"),
        "the form field through the dashboard"
    );
    page.page(Some(WAIT))
        .await
        .expect("page")
        .press("Enter")
        .await
        .expect("enter");
    let submitted = stage_until(
        &form,
        "JSON.parse(document.querySelector('#result').textContent || '{}').name || null",
        json!("Ada Lovelace"),
    )
    .await;
    assert_eq!(submitted, json!("Ada Lovelace"), "Enter submitted the form");

    step("confirm");
    // A confirm raised by the page shows in the dashboard and is answered there.
    form.run(&["open", &site.url("/dialogs.html")]).success();
    wait_for(
        &page,
        &format!(
            "{}.querySelector('.url').textContent.endsWith('/dialogs.html')",
            card("stage-form")
        ),
        "the stage moved to the dialogs page",
    )
    .await;
    // The click lands on the stage's current page whatever picture the card shows.
    click_through(&page, "stage-form", centre_in_stage(&form, "#confirm")).await;
    wait_for(
        &page,
        &format!("{}.dataset.dialog === 'confirm'", card("stage-form")),
        "the confirm in the dashboard",
    )
    .await;
    let text = eval(
        &page,
        &format!(
            "{}.querySelector('.dialog-text').textContent",
            card("stage-form")
        ),
    )
    .await;
    assert_eq!(text, json!("confirm: sure?"));

    step("screenshot");
    // The screenshot a person sees (dialog bar included).
    let shot = page
        .page(Some(WAIT))
        .await
        .expect("page")
        .screenshot(&ScreenshotOptions {
            format: Some("jpeg".into()),
            quality: Some(90),
            ..Default::default()
        })
        .await
        .expect("screenshot of the dashboard");
    let target = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target");
    std::fs::create_dir_all(&target).expect("target dir");
    let path = target.join("dashboard.jpg");
    std::fs::write(&path, &shot).expect("save the screenshot");
    let decoded = image::open(&path).expect("decode the saved screenshot");
    let (mean, variance) = grey_stats(&decoded);
    println!(
        "dashboard screenshot {}: {}x{}, grey mean {mean:.1}, variance {variance:.1}",
        path.display(),
        decoded.width(),
        decoded.height()
    );
    assert!(
        variance > 100.0,
        "the dashboard screenshot looks blank (variance {variance:.1})"
    );

    step("accept");
    page.page(Some(WAIT))
        .await
        .expect("page")
        .click(
            "section.card[data-session=\"stage-form\"] .dialog-accept",
            &Default::default(),
        )
        .await
        .expect("click Accept");
    let answered = stage_until(
        &form,
        "document.querySelector('#result').textContent",
        json!("confirm:true"),
    )
    .await;
    assert_eq!(
        answered,
        json!("confirm:true"),
        "accepted through the dashboard"
    );
    wait_for(
        &page,
        &format!("{}.querySelector('.dialog').hidden", card("stage-form")),
        "the dialog bar closes",
    )
    .await;

    step("second viewer");
    // A second viewer of the same session is watch-only, marked so, and its input stops at
    // the dashboard.
    let second = format!("http://127.0.0.1:{port}/");
    let tab = page.tab_new(Some(&second), None).await.expect("second tab");
    let _ = tab;
    wait_for(
        &page,
        &format!(
            "{c} && {c}.dataset.mode === 'watch'",
            c = card("stage-form")
        ),
        "the second viewer watches",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            &format!("{}.querySelector('.mode').textContent", card("stage-form"))
        )
        .await,
        json!("watch only")
    );

    step("close the page");
    page.close().await;
    step("stop the dashboard");
    let stopped = anchor.run(&["dashboard", "stop"]).success();
    assert_eq!(stopped.out(), "✓ Dashboard stopped");
    assert!(!anchor.socket_dir().join("dashboard.pid").exists());
    for cli in [&form, &ticker] {
        cli.run(&["close"]).success();
    }
    anchor.run(&["close"]).success();
    step("done");
}

#[test]
fn dashboard_start_and_stop_behave_like_upstream() {
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    let stopped = ab.run(&["dashboard", "stop"]).success();
    assert_eq!(stopped.out(), "Dashboard is not running");
    let port = free_port();
    ab.run(&["dashboard", "start", "--port", &port.to_string()])
        .success();
    let _stop = StopDashboard(&ab);
    let again = ab
        .run(&["dashboard", "--port", &port.to_string()])
        .success();
    assert_eq!(
        again.out(),
        format!("Dashboard already running at http://localhost:{port}")
    );
    let json = ab
        .run(&["--json", "dashboard", "start", "--port", &port.to_string()])
        .success()
        .json();
    assert_eq!(json["data"]["already_running"], true);
    assert_eq!(json["data"]["port"], port);
    let other = ab
        .run(&["dashboard", "start", "--port", &free_port().to_string()])
        .failure();
    assert!(
        other
            .stderr
            .contains("Dashboard is already running with port"),
        "{other:?}"
    );
    let bad = ab.run(&["dashboard", "start", "--port", "abc"]).failure();
    assert_eq!(
        bad.stderr,
        "✗ Invalid dashboard port 'abc'. Expected an integer from 1 to 65535.\n"
    );
    ab.run(&["dashboard", "bogus"]).failure();
    let stopped = ab.run(&["--json", "dashboard", "stop"]).success().json();
    assert_eq!(stopped["data"]["stopped"], true);
}

#[test]
fn the_dashboard_wants_its_token_and_its_own_origin() {
    let ab = Cli::new()
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_DASHBOARD_TOKEN", "s3cret");
    let port = free_port();
    ab.run(&["dashboard", "start", "--port", &port.to_string()])
        .success();
    let _stop = StopDashboard(&ab);
    let get = |path: &str, headers: &[(&str, &str)]| -> u16 {
        use std::io::{Read, Write};
        let mut tcp = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let mut request = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        tcp.write_all(request.as_bytes()).expect("write");
        let mut reply = String::new();
        let _ = tcp.read_to_string(&mut reply);
        reply
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0)
    };
    let host = format!("127.0.0.1:{port}");
    let origin = format!("http://127.0.0.1:{port}");
    // The page itself loads without the token (it asks for one).
    assert_eq!(get("/", &[("Host", &host)]), 200);
    assert_eq!(get("/api/sessions", &[("Host", &host)]), 401);
    assert_eq!(get("/api/sessions?token=s3cret", &[("Host", &host)]), 200);
    assert_eq!(
        get(
            "/api/sessions",
            &[("Host", &host), ("Authorization", "Bearer s3cret")]
        ),
        200
    );
    assert_eq!(
        get(
            "/api/sessions?token=s3cret",
            &[("Host", &host), ("Origin", &origin)]
        ),
        200
    );
    // Another site's page, or a DNS name rebound to 127.0.0.1, gets nothing.
    assert_eq!(
        get(
            "/api/sessions?token=s3cret",
            &[("Host", &host), ("Origin", "http://evil.example")]
        ),
        403
    );
    assert_eq!(get("/", &[("Host", "evil.example:80")]), 403);
    ab.run(&["dashboard", "stop"]).success();
}

/// Sends `GET path` to `addr` with `headers`; returns the status code (0: no answer).
fn status_of(addr: std::net::SocketAddr, path: &str, headers: &[(&str, &str)]) -> u16 {
    use std::io::{Read, Write};
    let Ok(mut tcp) = std::net::TcpStream::connect(addr) else {
        return 0;
    };
    let mut request = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    tcp.write_all(request.as_bytes()).expect("write");
    let mut reply = String::new();
    let _ = tcp.read_to_string(&mut reply);
    reply
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
fn allowed_origins_need_the_access_token_and_ipv6_loopback_is_served() {
    let ab = Cli::new().without("AGENT_BROWSER_ARGS");
    let port = free_port();
    let started = ab
        .run(&[
            "--json",
            "dashboard",
            "start",
            "--port",
            &port.to_string(),
            "--allowed-origins",
            "https://dash.example.com",
        ])
        .success()
        .json();
    let _stop = StopDashboard(&ab);
    let config: Value = serde_json::from_str(
        &std::fs::read_to_string(ab.socket_dir().join("dashboard.config")).expect("config"),
    )
    .expect("config json");
    let token = config["access_token"].as_str().expect("token").to_string();
    assert_eq!(token.len(), 64);
    assert_eq!(
        started["data"]["access_urls"],
        serde_json::json!([format!(
            "https://dash.example.com/#dashboard-access-token={token}"
        )])
    );
    // Same settings: already running; other origins: refused until stopped.
    let again = ab
        .run(&[
            "--json",
            "dashboard",
            "--port",
            &port.to_string(),
            "--allowed-origins",
            "https://DASH.example.com:443/",
        ])
        .success()
        .json();
    assert_eq!(again["data"]["already_running"], true);
    let other = ab
        .run(&[
            "dashboard",
            "--port",
            &port.to_string(),
            "--allowed-origins",
            "https://other.example.com",
        ])
        .failure();
    assert!(other.stderr.contains("dashboard stop"), "{other:?}");

    let v4 = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let proxied = [
        ("Host", "dash.example.com"),
        ("Origin", "https://dash.example.com"),
    ];
    assert_eq!(status_of(v4, "/", &proxied[..1]), 200);
    assert_eq!(status_of(v4, "/api/sessions", &proxied), 403);
    assert_eq!(
        status_of(v4, &format!("/api/sessions?token={token}"), &proxied),
        200
    );
    assert_eq!(
        status_of(
            v4,
            &format!("/api/sessions?token={token}"),
            &[("Host", "evil.example"), ("Origin", "https://evil.example")]
        ),
        403
    );
    if std::net::TcpListener::bind((std::net::Ipv6Addr::LOCALHOST, 0)).is_ok() {
        let v6 = std::net::SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, port));
        let host = format!("[::1]:{port}");
        let origin = format!("http://[::1]:{port}");
        assert_eq!(
            status_of(v6, "/api/sessions", &[("Host", &host), ("Origin", &origin)]),
            200
        );
    }
    ab.run(&["dashboard", "stop"]).success();
    assert!(!ab.socket_dir().join("dashboard.config").exists());
    assert!(!ab.socket_dir().join("dashboard.pid").exists());
}
