//! Spare tabs against real Chromium: a stage prepared on an anchor is handed a blank tab made
//! ahead of time and its first command takes it; the next spare is made behind it; a spare no
//! stage took is closed at its teardown; other sessions cannot adopt a waiting spare; a handed
//! tab that is no longer blank is ignored; nothing (tabs, claims) is left after the run.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_fixtures::FixtureServer;
use abx_host::{BrowserEnv, ProfileName, RunRef, RunState, StageId, StageSpec};
use common::{Place, Runs, ab_ok, cdp_answers, pages};
use serde_json::{Value, json};

fn stage(name: &str) -> StageId {
    StageId::new(name).expect("stage id")
}

/// Waits (bounded) until the anchor's pages satisfy `ok`; returns them.
async fn pages_until(
    cdp: &str,
    what: &str,
    ok: impl Fn(&[(String, String, bool)]) -> bool,
) -> Vec<(String, String, bool)> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let now = pages(cdp).await;
        if ok(&now) {
            return now;
        }
        assert!(Instant::now() < deadline, "{what}: pages are {now:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn binding(env: &BrowserEnv) -> Option<Value> {
    let text = std::fs::read_to_string(env.session_file("target")?).ok()?;
    serde_json::from_str(&text).ok()
}

fn handed_spare(env: &BrowserEnv) -> String {
    let binding = binding(env).expect("the prepared stage names a tab in <session>.target");
    assert_eq!(binding["fresh"], true, "{binding}");
    binding["targetId"].as_str().expect("targetId").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_stage_takes_the_spare_tab_and_the_next_one_is_made_behind_it() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let run = RunRef::parse("local", "run-spare").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec::with_profile(ProfileName::new("site").expect("name"));

    // The first stage on a new anchor waits for the spare being made and is handed it.
    let a = host
        .prepare_stage(&run, &stage("a"), &spec)
        .await
        .expect("stage a");
    let cdp = a.env.cdp().expect("cdp").to_string();
    let spare_a = handed_spare(&a.env);
    let listed = pages(&cdp).await;
    assert!(
        listed
            .iter()
            .any(|(id, url, attached)| *id == spare_a && url == "about:blank" && !attached),
        "the spare is an unattached blank tab of the anchor: {listed:?}"
    );

    // The stage's first command takes it: no tab of its own is created.
    ab_ok(&a.env, &["open", &site.url("/page1.html")]);
    assert_eq!(ab_ok(&a.env, &["get", "url"]), site.url("/page1.html"));
    let bound = binding(&a.env).expect("binding after the first command");
    assert_eq!(bound["targetId"], spare_a.as_str(), "{bound}");
    assert_eq!(bound.get("fresh"), None, "the daemon rewrote the binding");
    let listed = pages(&cdp).await;
    assert!(
        listed
            .iter()
            .any(|(id, url, _)| *id == spare_a && *url == site.url("/page1.html")),
        "the stage navigated the spare: {listed:?}"
    );

    // The next spare is made behind it, and nobody else adopts it: an unpinned session on the
    // anchor binds to another tab and leaves the spare unattached and blank.
    let listed = pages_until(&cdp, "a new spare", |p| {
        p.iter()
            .any(|(id, url, attached)| *id != spare_a && url == "about:blank" && !attached)
    })
    .await;
    let next: Vec<String> = listed
        .iter()
        .filter(|(id, url, attached)| *id != spare_a && url == "about:blank" && !attached)
        .map(|(id, _, _)| id.clone())
        .collect();
    assert_eq!(next.len(), 1, "one spare per anchor: {listed:?}");
    let spare_b = next[0].clone();
    let outsider_dir = tempfile::tempdir().expect("outsider dir");
    let mut outsider = BrowserEnv::new();
    outsider.set(
        "AGENT_BROWSER_SOCKET_DIR",
        outsider_dir.path().to_string_lossy(),
    );
    outsider.set("AGENT_BROWSER_SESSION", "outsider");
    outsider.set("AGENT_BROWSER_CDP", cdp.clone());
    outsider.set("AGENT_BROWSER_NO_VERSION_CHECK", "1");
    ab_ok(&outsider, &["get", "url"]);
    let listed = pages(&cdp).await;
    assert!(
        listed
            .iter()
            .any(|(id, url, attached)| *id == spare_b && url == "about:blank" && !attached),
        "the waiting spare was not adopted by another session: {listed:?}"
    );
    ab_ok(&outsider, &["close"]);

    // A second stage is handed that spare; its teardown before it ever ran closes it.
    let b = host
        .prepare_stage(&run, &stage("b"), &spec)
        .await
        .expect("stage b");
    assert_eq!(handed_spare(&b.env), spare_b);
    let torn = host.end_stage(&run.id, &stage("b")).await.expect("end b");
    assert!(torn.gone, "{torn:?}");
    pages_until(&cdp, "the untaken spare closed", |p| {
        !p.iter().any(|(id, _, _)| *id == spare_b)
    })
    .await;

    // A handed tab that is no longer blank is ignored: the stage opens its own tab and leaves
    // that page alone.
    let c = host
        .prepare_stage(&run, &stage("c"), &spec)
        .await
        .expect("stage c");
    let spare_c = handed_spare(&c.env);
    let outside = abx_cdp::Connection::connect(&cdp).await.expect("cdp");
    let created = outside
        .browser()
        .call_json(
            "Target.createTarget",
            json!({"url": site.url("/form.html"), "background": true}),
        )
        .await
        .expect("create");
    let busy = created["targetId"].as_str().expect("targetId").to_string();
    pages_until(&cdp, "the outside page loaded", |p| {
        p.iter()
            .any(|(id, url, _)| *id == busy && *url == site.url("/form.html"))
    })
    .await;
    let path = c.env.session_file("target").expect("target file");
    std::fs::write(
        &path,
        json!({"targetId": busy, "url": "about:blank", "pinned": true, "fresh": true}).to_string(),
    )
    .expect("rewrite binding");
    ab_ok(&c.env, &["open", &site.url("/page2.html")]);
    let bound = binding(&c.env).expect("binding");
    assert_ne!(bound["targetId"], busy.as_str(), "{bound}");
    let listed = pages(&cdp).await;
    assert!(
        listed
            .iter()
            .any(|(id, url, _)| *id == busy && *url == site.url("/form.html")),
        "the outside page was left alone: {listed:?}"
    );
    outside
        .browser()
        .call_json("Target.closeTarget", json!({"targetId": busy}))
        .await
        .expect("close the outside page");
    outside.close();
    // The spare named for c before the rewrite was never taken; it stays a spare-like blank tab
    // until the run ends (the anchor goes with it).
    assert!(pages(&cdp).await.iter().any(|(id, _, _)| *id == spare_c));

    // Run teardown: stages, anchor, spares; no claim file is left for any spare.
    let report = host.end_run(&run.id).await.expect("end run");
    assert!(report.complete(), "{report:?}");
    assert!(!cdp_answers(&cdp).await, "the anchor's Chrome is gone");
    assert!(
        place.sockets_empty(),
        "no socket dir left: {:?}",
        place.owners()
    );
    let claims = abx_engine::ClaimDir::for_current_user();
    for spare in [&spare_a, &spare_b, &spare_c] {
        let leftover = walk(claims.path())
            .into_iter()
            .filter(|p| p.to_string_lossy().contains(spare.as_str()))
            .collect::<Vec<_>>();
        assert!(leftover.is_empty(), "claim files left: {leftover:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spare_tabs_off_leaves_the_stage_to_open_its_own_tab() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.spare_tabs = 0;
    let host = abx_host::Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "run-nospare").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec::with_profile(ProfileName::new("site").expect("name"));
    let a = host
        .prepare_stage(&run, &stage("a"), &spec)
        .await
        .expect("stage a");
    assert!(binding(&a.env).is_none(), "no tab is named for the stage");
    let cdp = a.env.cdp().expect("cdp").to_string();
    let before = pages(&cdp).await.len();
    ab_ok(&a.env, &["open", &site.url("/page1.html")]);
    assert_eq!(
        pages(&cdp).await.len(),
        before + 1,
        "the stage made its tab"
    );
    let report = host.end_run(&run.id).await.expect("end run");
    assert!(report.complete(), "{report:?}");
    assert!(!cdp_answers(&cdp).await);
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
