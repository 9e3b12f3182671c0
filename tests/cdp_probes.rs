//! Measurements behind `docs/adr/0004-allowlist.md`: what Chromium does with popups under each
//! auto-attach mode, the cost of browser-level interception, WebSocket interception, permission
//! overrides and background tabs. They print findings instead of asserting (Chrome behaviour is
//! the subject), so they are `#[ignore]`d:
//! `cargo test -p abx-tests --test cdp_probes -- --ignored --nocapture --test-threads=1`.
#![allow(clippy::unwrap_used)] // probes: a failed call is itself the finding

use std::time::{Duration, Instant};

use abx_cdp::{Connection, EventFilter, Session};
use abx_chrome::Chrome;
use abx_fixtures::FixtureServer;
use abx_tests::launch_options;
use serde_json::{Value, json};

async fn drain(sub: &mut abx_cdp::Subscription, within: Duration, label: &str, t0: Instant) {
    let deadline = tokio::time::Instant::now() + within;
    while let Ok(Some(ev)) = tokio::time::timeout_at(deadline, sub.recv()).await {
        let p: Value = ev.parse().unwrap_or_default();
        let info = p.get("targetInfo").cloned().unwrap_or_default();
        println!(
            "[{label} +{:>4}ms] {} sess={:?} type={} url={} opener={} waiting={}",
            t0.elapsed().as_millis(),
            ev.method(),
            p.get("sessionId"),
            info["type"],
            info["url"],
            info["openerId"],
            p["waitingForDebugger"]
        );
    }
}

/// Fails every request to b.localhost on `s`.
fn spawn_blocker(s: Session, label: &'static str) {
    let mut ev = s.subscribe(EventFilter::methods(["Fetch.requestPaused"]), 1024);
    tokio::spawn(async move {
        while let Some(e) = ev.recv().await {
            let p: Value = e.parse().unwrap_or_default();
            let url = p["request"]["url"].as_str().unwrap_or("").to_string();
            let id = p["requestId"].clone();
            if url.contains("b.localhost") {
                println!("[{label}] blocked {url}");
                let _ = s
                    .send_json(
                        "Fetch.failRequest",
                        &json!({"requestId": id, "errorReason": "BlockedByClient"}),
                    )
                    .await;
            } else {
                let _ = s
                    .send_json("Fetch.continueRequest", &json!({"requestId": id}))
                    .await;
            }
        }
    });
}

#[tokio::test]
#[ignore]
async fn probe_popups() {
    let site = FixtureServer::start().await.expect("fixture");
    let chrome = Chrome::launch(launch_options(None)).await.expect("launch");
    let conn = Connection::connect(chrome.ws_url()).await.expect("conn");
    let b = conn.browser();
    b.call_json("Target.setDiscoverTargets", json!({"discover": true}))
        .await
        .unwrap();
    let tabs = b
        .call_json("Target.getTargets", json!({"filter": [{"type": "tab"}]}))
        .await
        .unwrap();
    println!("tab targets: {tabs}");

    // M0: page-level auto-attach and autoAttachRelated: is the popup attached (and paused)?
    for mode in ["page-level setAutoAttach", "autoAttachRelated", "nothing"] {
        let created = b
            .call_json("Target.createTarget", json!({"url":"about:blank"}))
            .await
            .unwrap();
        let opener = created["targetId"].as_str().unwrap().to_string();
        let os = conn.attach(&opener).await.unwrap();
        let mut on_tab = os.subscribe(EventFilter::methods(["Target.attachedToTarget"]), 64);
        let mut on_browser = b.subscribe(EventFilter::methods(["Target.attachedToTarget"]), 64);
        os.call_json("Page.enable", json!({})).await.unwrap();
        match mode {
            "page-level setAutoAttach" => {
                os.call_json(
                    "Target.setAutoAttach",
                    json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
                )
                .await
                .unwrap();
            }
            "autoAttachRelated" => {
                b.call_json(
                    "Target.autoAttachRelated",
                    json!({"targetId": opener, "waitForDebuggerOnStart": true}),
                )
                .await
                .unwrap();
            }
            _ => {}
        }
        // autoAttachRelated attaches the opener itself: only later attaches count.
        tokio::time::sleep(Duration::from_millis(200)).await;
        while on_tab.try_recv().is_some() || on_browser.try_recv().is_some() {}
        site.clear_requests();
        let url = site.url_on_host("b.localhost", "/log?m0");
        os.call_json(
            "Runtime.evaluate",
            json!({"expression": format!("!!window.open('{url}')"), "userGesture": true}),
        )
        .await
        .unwrap();
        let reached = site
            .wait_for_request(|r| r.path.contains("m0"), Duration::from_secs(2))
            .await
            .is_some();
        let attached = on_tab.try_recv().is_some() || on_browser.try_recv().is_some();
        println!(
            "== M0 {mode}: popup auto-attached: {attached}; its request reached the server: {reached}"
        );
    }

    // M1: does the opener's Fetch see the popup's navigation?
    let created = b
        .call_json("Target.createTarget", json!({"url":"about:blank"}))
        .await
        .unwrap();
    let tid = created["targetId"].as_str().unwrap().to_string();
    let s = conn.attach(&tid).await.unwrap();
    s.call_json("Page.enable", json!({})).await.unwrap();
    s.call_json("Fetch.enable", json!({"patterns":[{"urlPattern":"*"}]}))
        .await
        .unwrap();
    spawn_blocker(s.clone(), "opener-fetch");
    s.call_json("Page.navigate", json!({"url": site.url("/popup.html")}))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    site.clear_requests();
    let url = site.url_on_host("b.localhost", "/log?m1");
    s.call_json(
        "Runtime.evaluate",
        json!({"expression": format!("!!window.open('{url}')"), "userGesture": true}),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    println!(
        "== M1 opener Fetch only: popup request reached server: {}",
        site.requests().iter().any(|r| r.path.contains("m1"))
    );

    // M2: race: attach on targetCreated(openerId) + Fetch.enable, 20 tries.
    let mut leaks = 0;
    let mut created_ev = b.subscribe(EventFilter::methods(["Target.targetCreated"]), 64);
    for i in 0..20 {
        site.clear_requests();
        let url = site.url_on_host("b.localhost", &format!("/log?m2={i}"));
        s.call_json(
            "Runtime.evaluate",
            json!({"expression": format!("!!window.open('{url}')"), "userGesture": true}),
        )
        .await
        .unwrap();
        let t0 = Instant::now();
        loop {
            let e = tokio::time::timeout(Duration::from_secs(2), created_ev.recv())
                .await
                .unwrap()
                .unwrap();
            let p: Value = e.parse().unwrap();
            if p["targetInfo"]["openerId"] == tid.as_str() {
                let pid = p["targetInfo"]["targetId"].as_str().unwrap().to_string();
                let ps = conn.attach(&pid).await.unwrap();
                ps.call_json("Fetch.enable", json!({"patterns":[{"urlPattern":"*"}]}))
                    .await
                    .unwrap();
                spawn_blocker(ps.clone(), "popup-fetch");
                let _ = ps
                    .send_json("Runtime.runIfWaitingForDebugger", &json!({}))
                    .await;
                println!("   attached+fetch in {} ms", t0.elapsed().as_millis());
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(400)).await;
        if site.requests().iter().any(|r| r.path.contains("m2=")) {
            leaks += 1;
        }
    }
    println!("== M2 attach-on-targetCreated race: leaked {leaks}/20");

    // M4: browser-level Fetch, Document requests only.
    let fb = b
        .call_json(
            "Fetch.enable",
            json!({"patterns":[{"urlPattern":"*","resourceType":"Document"}]}),
        )
        .await;
    println!("browser-level Fetch.enable -> {fb:?}");
    spawn_blocker(b.clone(), "browser-fetch");
    site.clear_requests();
    let url = site.url_on_host("b.localhost", "/log?m4");
    s.call_json(
        "Runtime.evaluate",
        json!({"expression": format!("!!window.open('{url}')"), "userGesture": true}),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    println!(
        "== M4 browser-level Document Fetch: popup request reached server: {}",
        site.requests().iter().any(|r| r.path.contains("m4"))
    );
    let _ = b.call_json("Fetch.disable", json!({})).await;

    // M5: browser-level auto-attach to tab targets only, paused.
    let person = b
        .call_json(
            "Target.createTarget",
            json!({"url": site.url("/page1.html")}),
        )
        .await
        .unwrap();
    let person_id = person["targetId"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut br = b.subscribe(EventFilter::methods(["Target.attachedToTarget"]), 256);
    let r = b.call_json("Target.setAutoAttach", json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true, "filter": [{"type":"tab"}]})).await;
    println!("browser setAutoAttach(tab) -> {r:?}");
    drain(
        &mut br,
        Duration::from_millis(200),
        "m5-existing",
        Instant::now(),
    )
    .await;
    let info = b
        .call_json("Target.getTargetInfo", json!({"targetId": person_id}))
        .await
        .unwrap();
    println!("person page attached={}", info["targetInfo"]["attached"]);
    site.clear_requests();
    let url = site.url_on_host("b.localhost", "/log?m5");
    let t0 = Instant::now();
    let opened = s
        .call_json_within(
            "Runtime.evaluate",
            json!({"expression": format!("!!window.open('{url}')"), "userGesture": true}),
            Duration::from_secs(3),
        )
        .await;
    println!(
        "== M5 window.open in the opener while the new tab target is paused: {:?} after {} ms",
        opened.map(|r| r["result"]["value"].clone()),
        t0.elapsed().as_millis()
    );
    let e = tokio::time::timeout(Duration::from_secs(2), br.recv()).await;
    match e {
        Ok(Some(e)) => {
            let p: Value = e.parse().unwrap();
            println!("m5 +{}ms attached {}", t0.elapsed().as_millis(), p);
            tokio::time::sleep(Duration::from_millis(500)).await;
            println!(
                "== M5 before resume: popup request reached server: {}",
                site.requests().iter().any(|r| r.path.contains("m5"))
            );
            let ts = conn.session(p["sessionId"].as_str().unwrap());
            let mut sub = ts.subscribe(EventFilter::methods(["Target.attachedToTarget"]), 16);
            let r = ts
                .call_json(
                    "Target.setAutoAttach",
                    json!({"autoAttach": true, "waitForDebuggerOnStart": true, "flatten": true}),
                )
                .await;
            println!("tab-level setAutoAttach -> {r:?}");
            if let Ok(Some(pe)) = tokio::time::timeout(Duration::from_millis(500), sub.recv()).await
            {
                let pp: Value = pe.parse().unwrap();
                println!("page under tab: {}", pp);
                let ps = conn.session(pp["sessionId"].as_str().unwrap());
                ps.call_json("Fetch.enable", json!({"patterns":[{"urlPattern":"*"}]}))
                    .await
                    .unwrap();
                spawn_blocker(ps.clone(), "popup-page-fetch");
                let _ = ps
                    .call_json("Runtime.runIfWaitingForDebugger", json!({}))
                    .await;
            }
            let r = ts
                .call_json("Runtime.runIfWaitingForDebugger", json!({}))
                .await;
            println!("resume tab -> {r:?}");
            tokio::time::sleep(Duration::from_millis(800)).await;
            println!(
                "== M5 after resume: popup request reached server: {}",
                site.requests().iter().any(|r| r.path.contains("m5"))
            );
        }
        other => println!("m5: no attach event: {other:?}"),
    }
    chrome.close(Some(&conn)).await;
}

#[tokio::test]
#[ignore]
async fn probe_costs_and_permissions() {
    let site = FixtureServer::start().await.expect("fixture");
    let chrome = Chrome::launch(launch_options(None)).await.expect("launch");
    let conn = Connection::connect(chrome.ws_url()).await.expect("conn");
    let b = conn.browser();
    let created = b
        .call_json("Target.createTarget", json!({"url":"about:blank"}))
        .await
        .unwrap();
    let tid = created["targetId"].as_str().unwrap().to_string();
    let s = conn.attach(&tid).await.unwrap();
    s.call_json("Page.enable", json!({})).await.unwrap();
    s.call_json("Runtime.enable", json!({})).await.unwrap();
    let mut loads = s.subscribe(EventFilter::methods(["Page.loadEventFired"]), 64);
    async fn load_n(s: &Session, loads: &mut abx_cdp::Subscription, url: &str, n: u32) -> f64 {
        let t0 = Instant::now();
        for _ in 0..n {
            s.call_json("Page.navigate", json!({"url": url}))
                .await
                .unwrap();
            tokio::time::timeout(Duration::from_secs(10), loads.recv())
                .await
                .unwrap()
                .unwrap();
        }
        t0.elapsed().as_secs_f64() * 1000.0 / n as f64
    }
    let page = site.url("/fixture.html");
    load_n(&s, &mut loads, &page, 5).await;
    let base = load_n(&s, &mut loads, &page, 30).await;
    let mut others = Vec::new();
    for _ in 0..8 {
        let c = Connection::connect(chrome.ws_url()).await.unwrap();
        let cb = c.browser();
        cb.call_json("Fetch.enable", json!({"patterns":[{"urlPattern":"*"}]}))
            .await
            .unwrap();
        let mut ev = cb.subscribe(EventFilter::methods(["Fetch.requestPaused"]), 1024);
        let cb2 = cb.clone();
        tokio::spawn(async move {
            while let Some(e) = ev.recv().await {
                let p: Value = e.parse().unwrap_or_default();
                let _ = cb2
                    .send_json(
                        "Fetch.continueRequest",
                        &json!({"requestId": p["requestId"]}),
                    )
                    .await;
            }
        });
        others.push(c);
    }
    let all8 = load_n(&s, &mut loads, &page, 30).await;
    for c in &others {
        c.browser()
            .call_json("Fetch.disable", json!({}))
            .await
            .unwrap();
    }
    for c in &others {
        c.browser()
            .call_json(
                "Fetch.enable",
                json!({"patterns":[{"urlPattern":"*","resourceType":"Document"}]}),
            )
            .await
            .unwrap();
    }
    let doc8 = load_n(&s, &mut loads, &page, 30).await;
    for c in &others {
        c.browser()
            .call_json("Fetch.disable", json!({}))
            .await
            .unwrap();
    }
    let again = load_n(&s, &mut loads, &page, 30).await;
    println!(
        "== load /fixture.html avg ms: none {base:.1}, 8 browser-level all-type interceptors {all8:.1}, 8 Document-only {doc8:.1}, none again {again:.1}"
    );

    // WebSocket: does tab-level Fetch see the handshake?
    s.call_json("Fetch.enable", json!({"patterns":[{"urlPattern":"*"}]}))
        .await
        .unwrap();
    spawn_blocker(s.clone(), "ws-tab-fetch");
    site.clear_requests();
    let ws = site
        .url_on_host("b.localhost", "/log?ws")
        .replace("http://", "ws://");
    s.call_json(
        "Runtime.evaluate",
        json!({"expression": format!("new WebSocket('{ws}'); 1")}),
    )
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    println!(
        "== WebSocket handshake reached server despite tab Fetch: {}",
        site.requests().iter().any(|r| r.path.contains("ws"))
    );
    // Guard script in about:blank iframes
    s.call_json(
        "Page.addScriptToEvaluateOnNewDocument",
        json!({"source": "window.__guarded = true;"}),
    )
    .await
    .unwrap();
    s.call_json("Page.navigate", json!({"url": site.url("/page1.html")}))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), loads.recv())
        .await
        .unwrap()
        .unwrap();
    let r = s.call_json("Runtime.evaluate", json!({"expression": "const f = document.createElement('iframe'); document.body.appendChild(f); [window.__guarded, f.contentWindow.__guarded]", "returnByValue": true})).await.unwrap();
    println!(
        "== guard in top / about:blank iframe: {}",
        r["result"]["value"]
    );
    s.call_json("Fetch.disable", json!({})).await.unwrap();

    // Permissions: Browser.setPermission denied from two connections, one detaches.
    for (name, page) in [
        ("geolocation", "/geo.html"),
        ("notifications", "/notify.html"),
        ("clipboard-read", "/clipboard.html"),
    ] {
        println!(
            "perm {name}: default headless -> {}",
            perm_outcome(&s, &mut loads, &site.url(page)).await
        );
    }
    let other = Connection::connect(chrome.ws_url()).await.unwrap();
    for name in ["geolocation", "notifications", "clipboard-read"] {
        let r1 = b
            .call_json(
                "Browser.setPermission",
                json!({"permission": {"name": name}, "setting": "granted"}),
            )
            .await;
        let r2 = other
            .browser()
            .call_json(
                "Browser.setPermission",
                json!({"permission": {"name": name}, "setting": "granted"}),
            )
            .await;
        println!("setPermission {name} granted: {r1:?} {r2:?}");
    }
    println!(
        "perm geolocation granted by two -> {}",
        perm_outcome(&s, &mut loads, &site.url("/notify.html")).await
    );
    other.close();
    tokio::time::sleep(Duration::from_millis(300)).await;
    println!(
        "perm notifications after the other client left -> {}",
        perm_outcome(&s, &mut loads, &site.url("/notify.html")).await
    );
    for name in ["geolocation", "notifications", "clipboard-read"] {
        let r1 = b
            .call_json(
                "Browser.setPermission",
                json!({"permission": {"name": name}, "setting": "denied"}),
            )
            .await;
        println!("setPermission {name} denied: {r1:?}");
    }
    for (name, page) in [
        ("geolocation", "/geo.html"),
        ("notifications", "/notify.html"),
        ("clipboard-read", "/clipboard.html"),
    ] {
        println!(
            "perm {name}: denied override -> {}",
            perm_outcome(&s, &mut loads, &site.url(page)).await
        );
    }
    chrome.close(Some(&conn)).await;
}

async fn perm_outcome(s: &Session, loads: &mut abx_cdp::Subscription, url: &str) -> Value {
    s.call_json("Page.navigate", json!({"url": url}))
        .await
        .unwrap();
    tokio::time::timeout(Duration::from_secs(10), loads.recv())
        .await
        .unwrap()
        .unwrap();
    s.call_json(
        "Runtime.evaluate",
        json!({"expression": "document.getElementById('request').click()", "userGesture": true}),
    )
    .await
    .unwrap();
    let r = s.call_json("Runtime.evaluate", json!({"expression": "new Promise(r => { const t = Date.now(); const f = () => { const v = document.getElementById('result').textContent; if (!v.endsWith(':pending') || Date.now() - t > 4000) r(v); else setTimeout(f, 20); }; f(); })", "awaitPromise": true, "returnByValue": true})).await.unwrap();
    r["result"]["value"].clone()
}

#[tokio::test]
#[ignore]
async fn probe_headed_permissions() {
    let site = FixtureServer::start().await.expect("fixture");
    let options = abx_chrome::LaunchOptions {
        headless: false,
        ..launch_options(None)
    };
    let chrome = Chrome::launch(options).await.expect("launch");
    let conn = Connection::connect(chrome.ws_url()).await.expect("conn");
    let b = conn.browser();
    let created = b
        .call_json("Target.createTarget", json!({"url":"about:blank"}))
        .await
        .unwrap();
    let tid = created["targetId"].as_str().unwrap().to_string();
    let s = conn.attach(&tid).await.unwrap();
    s.call_json("Page.enable", json!({})).await.unwrap();
    s.call_json("Runtime.enable", json!({})).await.unwrap();
    let mut loads = s.subscribe(EventFilter::methods(["Page.loadEventFired"]), 64);
    for variant in ["plain", "origin", "context"] {
        for name in ["geolocation", "notifications", "clipboard-read"] {
            let mut params = json!({"permission": {"name": name}, "setting": "denied"});
            if variant == "origin" {
                params["origin"] = json!(site.origin());
            }
            if variant == "context" {
                let info = b
                    .call_json("Target.getTargetInfo", json!({"targetId": tid}))
                    .await
                    .unwrap();
                params["browserContextId"] = info["targetInfo"]["browserContextId"].clone();
            }
            let r = b.call_json("Browser.setPermission", params).await;
            println!("{variant} setPermission {name}: {r:?}");
        }
        for page in ["/geo.html", "/notify.html", "/clipboard.html"] {
            println!(
                "{variant} {page} -> {}",
                perm_outcome(&s, &mut loads, &site.url(page)).await
            );
        }
        let q = s.call_json("Runtime.evaluate", json!({"expression": "navigator.permissions.query({name:'geolocation'}).then(p => p.state)", "awaitPromise": true, "returnByValue": true})).await.unwrap();
        println!(
            "{variant} permissions.query geolocation: {}",
            q["result"]["value"]
        );
    }
    chrome.close(Some(&conn)).await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn probe_engine_permissions() {
    use std::sync::Arc;
    let site = FixtureServer::start().await.expect("fixture");
    let options = abx_chrome::LaunchOptions {
        headless: false,
        ..launch_options(None)
    };
    let chrome = Chrome::launch(options).await.expect("launch");
    let browser = Arc::new(
        abx_engine::Browser::attach(chrome.ws_url(), Default::default())
            .await
            .unwrap(),
    );
    let opts = abx_engine::SessionOptions {
        pin_tab: true,
        ..Default::default()
    };
    let session = abx_engine::Session::start(browser.clone(), opts)
        .await
        .unwrap();
    session
        .navigate(&site.url("/geo.html"), abx_engine::WaitUntil::Load, None)
        .await
        .unwrap();
    session
        .page(None)
        .await
        .expect("page")
        .evaluate("document.getElementById('request').click()")
        .await
        .unwrap();
    session
        .page(Some(Duration::from_secs(6)))
        .await
        .expect("page")
        .wait_for_function(
            "!document.getElementById('result').textContent.endsWith(':pending')",
            "w",
        )
        .await
        .unwrap();
    println!(
        "engine: outcome {:?}",
        session
            .page(None)
            .await
            .expect("page")
            .evaluate("document.getElementById('result').textContent")
            .await
            .unwrap()
            .value
    );
    let t = session.active_target().unwrap();
    let r = browser
        .connection()
        .browser()
        .call_json("Target.activateTarget", json!({"targetId": t}))
        .await;
    println!("activate: {r:?}");
    let r = browser
        .connection()
        .browser()
        .call_json(
            "Browser.setPermission",
            json!({"permission": {"name": "geolocation"}, "setting": "denied"}),
        )
        .await;
    println!("direct setPermission: {r:?}");
    session
        .navigate(&site.url("/geo.html"), abx_engine::WaitUntil::Load, None)
        .await
        .unwrap();
    session
        .page(None)
        .await
        .expect("page")
        .evaluate("document.getElementById('request').click()")
        .await
        .unwrap();
    session
        .page(Some(Duration::from_secs(6)))
        .await
        .expect("page")
        .wait_for_function(
            "!document.getElementById('result').textContent.endsWith(':pending')",
            "w",
        )
        .await
        .unwrap();
    println!(
        "engine: outcome after direct {:?}",
        session
            .page(None)
            .await
            .expect("page")
            .evaluate("document.getElementById('result').textContent")
            .await
            .unwrap()
            .value
    );
    session.close().await;
    chrome.kill().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore]
async fn probe_flag_background_tab() {
    let site = FixtureServer::start().await.expect("fixture");
    let options = abx_chrome::LaunchOptions {
        headless: false,
        deny_permission_prompts: true,
        ..launch_options(None)
    };
    let chrome = Chrome::launch(options).await.expect("launch");
    let conn = Connection::connect(chrome.ws_url()).await.expect("conn");
    for background in [true, false] {
        let created = conn
            .browser()
            .call_json(
                "Target.createTarget",
                json!({"url":"about:blank", "background": background}),
            )
            .await
            .unwrap();
        let tid = created["targetId"].as_str().unwrap().to_string();
        let s = conn.attach(&tid).await.unwrap();
        s.call_json("Page.enable", json!({})).await.unwrap();
        s.call_json("Runtime.enable", json!({})).await.unwrap();
        let mut loads = s.subscribe(EventFilter::methods(["Page.loadEventFired"]), 64);
        for page in ["/geo.html", "/notify.html", "/clipboard.html"] {
            println!(
                "flag, background={background} {page} -> {}",
                perm_outcome(&s, &mut loads, &site.url(page)).await
            );
        }
    }
    chrome.close(Some(&conn)).await;
}
