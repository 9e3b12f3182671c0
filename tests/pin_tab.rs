//! The Host's shared anchor with pinned stage sessions, through the binary against real Chromium:
//! parallel stages on one anchor, shared cookies, popups that never steal a stage's tab, tab
//! ownership across socket dirs (beyond upstream #1790), `tab_gone` after an outside close (also
//! the anchor's `tab close <targetId>`), stage teardown, attach that never launches and never touches other tabs, and `--cdp-headers`.

use std::time::{Duration, Instant};

use abx_tests::cli::Cli;
use abx_tests::raw::{DevToolsForwarder, RawCdp};
use abx_tests::wait_for;
use serde_json::{Value, json};

mod common;

/// An anchor session that owns Chrome (the Host's `sf-<profile>`), and its CDP URL.
fn anchor() -> (Cli, String) {
    let anchor = Cli::new()
        .session("anchor")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    anchor.run(&["open", "about:blank"]).success();
    let cdp = anchor.run(&["get", "cdp-url"]).success().out().to_string();
    (anchor, cdp)
}

/// A stage session as the Host builds it: its own HOME and socket dir, CDP + pin-tab.
fn stage(name: &str, cdp: &str) -> Cli {
    Cli::new()
        .session(name)
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_CDP", cdp)
        .env("AGENT_BROWSER_PIN_TAB", "1")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0")
}

/// The target id in a session's `.target` sidecar.
fn bound_target(cli: &Cli) -> Value {
    let text = std::fs::read_to_string(cli.file("target")).expect(".target sidecar");
    serde_json::from_str(&text).expect(".target is JSON")
}

fn tabs(cli: &Cli) -> Vec<Value> {
    cli.run(&["--json", "tab", "list"]).success().json()["data"]["tabs"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn eight_stages_share_one_anchor_and_keep_their_own_tabs() {
    let site = common::site();
    let (anchor, cdp) = anchor();
    let raw = RawCdp::connect(&cdp);
    // A person's tab, opened before any stage attached.
    let person_url = site.url("/page2.html?person=1");
    let person = raw.open_unattached(&person_url);

    let stages: Vec<Cli> = (0..8).map(|i| stage(&format!("st{i}"), &cdp)).collect();
    let url_of = |i: usize| site.url(&format!("/page1.html?stage={i}"));
    std::thread::scope(|scope| {
        for (i, stage) in stages.iter().enumerate() {
            let url = url_of(i);
            scope.spawn(move || {
                stage.run(&["open", &url]).success();
                assert_eq!(stage.run(&["get", "url"]).success().out(), url);
            });
        }
    });
    for (i, stage) in stages.iter().enumerate() {
        assert_eq!(
            stage.run(&["get", "url"]).success().out(),
            url_of(i),
            "stage {i} drifted"
        );
        assert_eq!(bound_target(stage)["pinned"], json!(true));
    }
    let targets: std::collections::HashSet<String> = stages
        .iter()
        .map(|s| {
            bound_target(s)["targetId"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(targets.len(), 8, "every stage has its own tab");

    // Cookies set in one stage (persistent and session-only) are seen by the others.
    stages[0]
        .run(&["eval", "document.cookie = 'pin_session=s0; path=/'; document.cookie = 'pin_persist=p0; max-age=3600; path=/'; document.cookie"])
        .success();
    for stage in &stages[1..] {
        let cookies = stage.run(&["eval", "document.cookie"]).success();
        assert!(
            cookies.out().contains("pin_session=s0") && cookies.out().contains("pin_persist=p0"),
            "{cookies:?}"
        );
    }

    // A popup opened by stage 0's page does not move stage 0 off its tab.
    let popup_page = site.url("/popup.html");
    stages[0].run(&["open", &popup_page]).success();
    let before = tabs(&stages[0]).len();
    stages[0]
        .run(&["eval", "document.getElementById('open-popup').click(); 1"])
        .success();
    wait_for(Duration::from_secs(10), "the popup opened its tab", || {
        tabs(&stages[0]).len() > before
    });
    assert_eq!(stages[0].run(&["get", "url"]).success().out(), popup_page);
    let listed = tabs(&stages[0]);
    let active: Vec<&Value> = listed.iter().filter(|t| t["active"] == true).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0]["url"], json!(popup_page));
    let popup = raw
        .pages()
        .into_iter()
        .find(|t| t["openerId"] == active[0]["targetId"])
        .expect("the popup is a tab whose opener is stage 0's tab");
    let popup = popup["targetId"].as_str().unwrap_or("").to_string();

    // Another stage cannot take stage 0's pinned tab by target id, nor close it.
    let stage0_target = bound_target(&stages[0])["targetId"]
        .as_str()
        .expect("target id")
        .to_string();
    let taken = stages[1].run(&["tab", &stage0_target]).failure();
    assert!(
        taken.stderr.contains("pinned by another session") && taken.stderr.contains("st0"),
        "{taken:?}"
    );
    let taken = stages[1].run(&["--json", "tab", &stage0_target]).failure();
    assert_eq!(taken.json()["code"], json!("tab_pinned"), "{taken:?}");
    stages[1].run(&["tab", "close", &stage0_target]).failure();
    assert_eq!(stages[1].run(&["get", "url"]).success().out(), url_of(1));
    assert!(raw.target(&stage0_target).is_some());

    // Stage teardown: its tab (and the popup its page opened), then its session; nothing else
    // goes, the rest keep working.
    let pages_before = raw.pages().len();
    stages[0].run(&["tab", "close"]).success();
    stages[0].run(&["close"]).success();
    assert!(stages[0].daemon_pid().is_none());
    assert!(raw.target(&stage0_target).is_none());
    raw.wait_for(Duration::from_secs(5), || raw.target(&popup).is_none());
    assert_eq!(raw.pages().len(), pages_before - 2);
    std::thread::scope(|scope| {
        for (i, stage) in stages.iter().enumerate().skip(1) {
            let url = url_of(i);
            scope.spawn(move || {
                assert_eq!(stage.run(&["get", "url"]).success().out(), url);
                assert_eq!(stage.run(&["get", "title"]).success().out(), "Page One");
            });
        }
    });
    // The claim went with stage 0: its (closed) tab's id is no longer reported as pinned.
    assert_eq!(anchor.run(&["get", "cdp-url"]).success().out(), cdp);

    // The person's tab was never attached by any stage and is where the person left it.
    let info = raw.target(&person).expect("the person's tab is still open");
    assert_eq!(info["attached"], json!(false), "{info}");
    assert_eq!(info["url"], json!(person_url));

    std::thread::scope(|scope| {
        for stage in stages.iter().skip(1) {
            scope.spawn(move || {
                stage.run(&["tab", "close"]).success();
                stage.run(&["close"]).success();
            });
        }
    });
    // Stage teardown never ended the browser; the owning session's close does.
    assert!(
        !raw.connection().is_closed(),
        "Chrome went down with a stage"
    );
    assert_eq!(
        raw.pages().len(),
        2,
        "the anchor's tab and the person's tab"
    );
    anchor.run(&["close"]).success();
    raw.wait_for(Duration::from_secs(10), || raw.connection().is_closed());
}

#[test]
fn an_outside_close_gives_tab_gone_and_tab_new_rebinds() {
    let site = common::site();
    let (anchor, cdp) = anchor();
    let stage = stage("gone", &cdp);
    let page = site.url("/page1.html");
    stage.run(&["open", &page]).success();
    let target = bound_target(&stage)["targetId"]
        .as_str()
        .expect("target id")
        .to_string();

    let raw = RawCdp::connect(&cdp);
    raw.call_json("Target.closeTarget", json!({"targetId": target}));
    raw.wait_for(Duration::from_secs(5), || raw.target(&target).is_none());

    let text = stage.run(&["get", "url"]);
    assert_eq!(text.code, 1, "{text:?}");
    assert!(
        text.stderr.contains(&format!(
            "tab_gone: bound tab is gone (target {target}, last url {page}). Run `agent-browser tab new <url>` to bind a new tab, or `agent-browser tab list` to pick an existing one"
        )),
        "{text:?}"
    );
    let json_out = stage.run(&["--json", "get", "url"]);
    assert_eq!(json_out.code, 1);
    let body = json_out.json();
    assert_eq!(body["success"], json!(false));
    assert_eq!(body["code"], json!("tab_gone"));
    assert_eq!(body["data"]["targetId"], json!(target));
    assert_eq!(body["data"]["lastUrl"], json!(page));
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("tab_gone: ")),
        "{body}"
    );
    // Other page commands fail the same way instead of drifting to another tab.
    assert_eq!(
        stage.run(&["--json", "eval", "1"]).json()["code"],
        json!("tab_gone")
    );

    let next = site.url("/page2.html");
    stage.run(&["tab", "new", &next]).success();
    assert_eq!(stage.run(&["get", "url"]).success().out(), next);
    let binding = bound_target(&stage);
    assert_eq!(binding["pinned"], json!(true));
    assert_ne!(binding["targetId"], json!(target));
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    anchor.run(&["close"]).success();
}

/// Child processes of `pid` (all its threads).
fn children(pid: i32) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                out.extend(text.split_whitespace().map(str::to_string));
            }
        }
    }
    out
}

#[test]
fn attach_never_launches_a_local_chrome() {
    // Nothing listens on this port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let lonely = stage("nolaunch", &format!("http://127.0.0.1:{port}"));
    let failed = lonely.run(&["open", "about:blank"]).failure();
    assert!(
        failed.stderr.contains("All CDP discovery methods failed"),
        "{failed:?}"
    );
    if let Some(pid) = lonely.daemon_pid() {
        assert!(
            children(pid).is_empty(),
            "the daemon started processes: {:?}",
            children(pid)
        );
    }
    lonely.run(&["close"]);

    // Attached to an anchor that then goes away: commands fail, nothing is launched.
    let (anchor, cdp) = anchor();
    let orphan = stage("orphaned", &cdp);
    orphan.run(&["open", "about:blank"]).success();
    anchor.run(&["close"]).success();
    for args in [["--json", "get", "url"], ["--json", "open", "about:blank"]] {
        let lost = orphan.run(&args);
        assert_eq!(lost.code, 1, "{lost:?}");
        let error = lost.json()["error"].as_str().unwrap_or("").to_string();
        assert!(error.contains("browser_lost"), "{lost:?}");
    }
    let pid = orphan.daemon_pid().expect("the stage daemon stays up");
    assert!(children(pid).is_empty(), "{:?}", children(pid));
    orphan.run(&["close"]).success();
}

#[test]
fn attach_does_not_touch_dialog_blocked_or_frozen_foreign_tabs() {
    let site = common::site();
    let (anchor, cdp) = anchor();
    let raw = RawCdp::connect(&cdp);
    let conn = raw.connection().clone();
    // A foreign tab with a confirm() nobody answers (renderer-bound calls to it block), and a
    // frozen one (like a Memory-Saver-discarded tab, it does not answer).
    let (dialog_session, frozen_session) = raw.block_on(async {
        let dialog = abx_tests::Page::open(&conn).await;
        let mut opening = dialog.session.subscribe(
            abx_cdp::EventFilter::methods(["Page.javascriptDialogOpening"]),
            4,
        );
        let _ = dialog
            .session
            .send_json(
                "Page.navigate",
                &json!({"url": site.url("/dialogs.html?auto=confirm")}),
            )
            .await;
        tokio::time::timeout(Duration::from_secs(10), opening.recv())
            .await
            .expect("the confirm opens")
            .expect("session alive");
        let frozen = abx_tests::Page::open(&conn).await;
        frozen.goto(&site.url("/static.html")).await;
        frozen
            .session
            .call_json("Page.setWebLifecycleState", json!({"state": "frozen"}))
            .await
            .expect("freeze");
        (dialog.session, frozen.session)
    });
    let stage = stage("polite", &cdp);
    let started = Instant::now();
    let page = site.url("/page1.html");
    stage.run(&["open", &page]).success();
    assert_eq!(stage.run(&["get", "title"]).success().out(), "Page One");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "attach took {:?}",
        started.elapsed()
    );
    // The confirm is still open (untouched) and can still be answered by its own client.
    raw.block_on(dialog_session.call_json("Page.handleJavaScriptDialog", json!({"accept": true})))
        .expect("the foreign dialog was still pending");
    let _ = raw.block_on(
        frozen_session.call_json("Page.setWebLifecycleState", json!({"state": "active"})),
    );
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    anchor.run(&["close"]).success();
}

#[test]
fn cdp_headers_reach_discovery_and_the_websocket_handshake() {
    let site = common::site();
    let (anchor, cdp) = anchor();
    let chrome_port: u16 = cdp
        .trim_start_matches("ws://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .expect("port in the cdp url");
    let forwarder = DevToolsForwarder::start(chrome_port);
    let stage = stage("headers", &forwarder.url())
        .env("AGENT_BROWSER_CDP_HEADERS", r#"{"X-Abx-Token":"t0k3n"}"#);
    stage.run(&["open", &site.url("/page1.html")]).success();
    let seen = forwarder.seen();
    let has_token = |path_prefix: &str| {
        seen.requests.iter().any(|(path, headers)| {
            path.starts_with(path_prefix)
                && headers
                    .iter()
                    .any(|(k, v)| k == "x-abx-token" && v == "t0k3n")
        })
    };
    assert!(has_token("/json/version"), "discovery: {seen:?}");
    assert!(has_token("/devtools/browser/"), "handshake: {seen:?}");
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    anchor.run(&["close"]).success();
}

#[test]
fn an_unpinned_session_never_falls_back_to_a_tab_pinned_by_another() {
    let site = common::site();
    let (anchor, cdp) = anchor();
    let stage = stage("kept", &cdp);
    let page = site.url("/page1.html");
    stage.run(&["open", &page]).success();
    let pinned = bound_target(&stage)["targetId"]
        .as_str()
        .expect("target id")
        .to_string();
    // The anchor loses its own tab; upstream would drift to any other tab (#1867).
    anchor.run(&["tab", "close"]).success();
    assert_eq!(anchor.run(&["get", "url"]).success().out(), "about:blank");
    let active: Vec<Value> = tabs(&anchor)
        .into_iter()
        .filter(|t| t["active"] == true)
        .collect();
    assert_eq!(active.len(), 1);
    assert_ne!(active[0]["targetId"], json!(pinned));
    // An explicit switch to the pinned tab is refused as well.
    let refused = anchor.run(&["--json", "tab", &pinned]);
    assert_eq!(refused.json()["code"], json!("tab_pinned"), "{refused:?}");
    assert_eq!(stage.run(&["get", "url"]).success().out(), page);
    stage.run(&["tab", "close"]).success();
    stage.run(&["close"]).success();
    anchor.run(&["close"]).success();
}

#[test]
fn the_anchor_closes_a_stage_tab_by_target_id_and_the_stage_reports_tab_gone() {
    let site = common::site();
    let (anchor, cdp) = anchor();
    // A session that has bound no tab yet has no `.target` (only `stream status` ran).
    let victim = Cli::new()
        .session("victim")
        .without("AGENT_BROWSER_ARGS")
        .env("AGENT_BROWSER_IDLE_TIMEOUT_MS", "0");
    victim.run(&["--json", "stream", "status"]).success();
    let pid = victim
        .daemon_pid()
        .expect("stream status started the daemon");
    assert!(!victim.file("target").exists(), "a .target before any tab");

    // The same daemon attaches and pins; the binding and `lastUrl` drop query and fragment.
    let page = site.url("/page1.html");
    let secret = format!("{page}?token=secret#fragment");
    victim
        .run(&["--cdp", &cdp, "--pin-tab", "open", &secret])
        .success();
    assert_eq!(victim.daemon_pid(), Some(pid));
    let binding = bound_target(&victim);
    assert_eq!(binding["pinned"], json!(true));
    assert_eq!(binding["url"], json!(page));
    let target = binding["targetId"].as_str().expect("target id").to_string();

    // Another stage still may not close it...
    let other = stage("other", &cdp);
    other.run(&["open", &site.url("/page2.html")]).success();
    let refused = other.run(&["--json", "tab", "close", &target]).failure();
    assert_eq!(refused.json()["code"], json!("tab_pinned"), "{refused:?}");
    // ...but the anchor, which is not pinned, may.
    let closed = anchor
        .run(&["--json", "tab", "close", &target])
        .success()
        .json();
    assert_eq!(closed["data"]["targetId"], json!(target), "{closed}");

    let single = victim.run(&["--json", "get", "url"]);
    assert_eq!(single.code, 1, "{single:?}");
    let body = single.json();
    assert_eq!(body["code"], json!("tab_gone"), "{body}");
    assert_eq!(body["data"]["targetId"], json!(target));
    assert_eq!(body["data"]["lastUrl"], json!(page));
    let batch = victim.run(&["--json", "batch", "get url"]);
    assert_eq!(batch.code, 1, "{batch:?}");
    let batch = batch.json();
    assert_eq!(batch[0]["code"], json!("tab_gone"), "{batch}");
    assert_eq!(batch[0]["result"]["targetId"], json!(target));
    assert_eq!(batch[0]["result"]["lastUrl"], json!(page));
    // The anchor's own tab and the other stage are untouched.
    assert_eq!(
        other.run(&["get", "url"]).success().out(),
        site.url("/page2.html")
    );

    victim.run(&["close"]).success();
    other.run(&["tab", "close"]).success();
    other.run(&["close"]).success();
    anchor.run(&["close"]).success();
}
