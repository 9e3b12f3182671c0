//! Live-view sessions: tickets and credentials, one relay per stage, a single controller,
//! read-only watchers, revocation, the linger after the last viewer, and the relay closed before
//! the stage's teardown.

mod common;

use std::sync::Arc;
use std::time::Duration;

use abx_fixtures::FixtureServer;
use abx_host::{
    Grant, LiveViewError, LiveViewTickets, RunId, RunRef, Scope, StageId, StageSpec, ViewMode,
};
use common::wait::wait_until_async;
use common::{Place, Runs, ab_ok};

fn grant(stage: &str, mode: ViewMode) -> Grant {
    Grant {
        scope: Scope::new("local").expect("scope"),
        run: RunId::new("run-1").expect("run"),
        stage: StageId::new(stage).expect("stage"),
        mode,
    }
}

#[tokio::test(start_paused = true)]
async fn tickets_are_one_use_short_lived_and_credentials_expire_and_revoke() {
    let tickets = LiveViewTickets::default();
    let ticket = tickets.issue(grant("login", ViewMode::Control));
    let credential = tickets.redeem(&ticket).expect("first use");
    assert_eq!(credential.grant, grant("login", ViewMode::Control));
    assert_eq!(
        tickets.redeem(&ticket).err(),
        Some(LiveViewError::Denied),
        "one use"
    );
    assert_eq!(
        tickets.verify(&credential.token),
        Ok(grant("login", ViewMode::Control))
    );
    assert_eq!(tickets.verify("guess").err(), Some(LiveViewError::Denied));

    let late = tickets.issue(grant("login", ViewMode::Watch));
    tokio::time::advance(Duration::from_secs(61)).await;
    assert_eq!(
        tickets.redeem(&late).err(),
        Some(LiveViewError::Denied),
        "tickets live 60 s"
    );
    assert!(
        tickets.verify(&credential.token).is_ok(),
        "credentials outlive tickets"
    );
    tokio::time::advance(Duration::from_secs(24 * 3600)).await;
    assert_eq!(
        tickets.verify(&credential.token).err(),
        Some(LiveViewError::Denied),
        "credentials live 24 h"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_relay_per_stage_one_controller_watchers_read_only_closed_before_teardown() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let mut config = place.config();
    config.live_view.linger = Duration::from_millis(300);
    let host = abx_host::Host::local(config, runs, common::agent_browser()).expect("host");
    let run = RunRef::parse("local", "run-1").expect("run");
    let stage = StageId::new("login").expect("stage");
    let other_scope = Scope::new("tenant-b").expect("scope");
    let prepared = host
        .prepare_stage(&run, &stage, &StageSpec::throwaway())
        .await
        .expect("prepare");
    ab_ok(&prepared.env, &["open", &site.url("/animated.html")]);

    let control = host
        .redeem_live_view_ticket(&host.live_view_ticket(&run, &stage, ViewMode::Control))
        .expect("control credential");
    assert_eq!(
        host.open_viewer(&other_scope, &control.token).await.err(),
        Some(LiveViewError::WrongScope),
        "a credential works only for its owner"
    );
    let mut controller = host
        .open_viewer(&run.scope, &control.token)
        .await
        .expect("controller");
    assert!(
        controller.next_frame().await.is_some(),
        "frames reach the controller"
    );

    let second = host
        .redeem_live_view_ticket(&host.live_view_ticket(&run, &stage, ViewMode::Control))
        .expect("second control credential");
    assert_eq!(
        host.open_viewer(&run.scope, &second.token).await.err(),
        Some(LiveViewError::ControllerBusy),
        "one controller per stage"
    );
    let watch = host
        .redeem_live_view_ticket(&host.live_view_ticket(&run, &stage, ViewMode::Watch))
        .expect("watch credential");
    let mut watcher = host
        .open_viewer(&run.scope, &watch.token)
        .await
        .expect("watcher");
    assert_eq!(
        host.live_views().open_relays().len(),
        1,
        "both share one relay"
    );
    // A late viewer is told the status before its first frame.
    let mut before_frame = Vec::new();
    loop {
        match watcher.next().await.expect("a message") {
            abx_host::ViewerMessage::Frame(_) => break,
            abx_host::ViewerMessage::Event(text) => before_frame.push(text),
        }
    }
    assert!(
        before_frame
            .iter()
            .any(|t| t.contains("\"type\":\"status\"")),
        "no status before the first frame: {} messages",
        before_frame.len()
    );
    let click = r#"{"type":"input_mouse","eventType":"mousePressed","x":120,"y":140,"button":"left","clickCount":1}"#;
    assert_eq!(
        watcher.send(click).await.err(),
        Some(LiveViewError::ReadOnly)
    );
    assert!(matches!(
        controller.send("{nope").await,
        Err(LiveViewError::BadMessage(_))
    ));
    controller.send(click).await.expect("press");
    controller
        .send(&click.replace("mousePressed", "mouseReleased"))
        .await
        .expect("release");
    assert!(
        wait_until_async(Duration::from_secs(10), || std::future::ready(
            ab_ok(&prepared.env, &["eval", "window.__clicks.length"]) == "1"
        ))
        .await,
        "the controller's click did not land"
    );

    // Revoking control (the gate closed) ends the controller; the watcher stays.
    assert!(
        host.live_views()
            .revoke_stage(&run.scope, &run.id, &stage, true)
            >= 1
    );
    assert!(
        tokio::time::timeout(Duration::from_secs(5), async {
            while controller.next().await.is_some() {}
        })
        .await
        .is_ok(),
        "the revoked controller's view ends"
    );
    assert_eq!(
        host.open_viewer(&run.scope, &control.token).await.err(),
        Some(LiveViewError::Denied)
    );
    assert!(
        watcher.next_frame().await.is_some(),
        "the watcher still sees frames"
    );

    // The last viewer leaves: the relay lingers, then closes.
    drop(controller);
    drop(watcher);
    assert!(
        wait_until_async(Duration::from_secs(10), || std::future::ready(
            host.live_views().open_relays().is_empty()
        ))
        .await,
        "the relay outlived its last viewer"
    );

    // A viewer again, then the stage ends: the relay closes first, the viewer's view ends.
    let mut watcher = host
        .open_viewer(&run.scope, &watch.token)
        .await
        .expect("watch again");
    assert!(watcher.next_frame().await.is_some());
    let torn = host.end_stage(&run.id, &stage).await.expect("end stage");
    assert!(torn.gone);
    assert!(
        host.live_views().open_relays().is_empty(),
        "the relay closed before the teardown"
    );
    assert!(
        tokio::time::timeout(Duration::from_secs(5), async {
            while watcher.next().await.is_some() {}
        })
        .await
        .is_ok()
    );
    assert!(
        matches!(
            host.open_viewer(&run.scope, &watch.token).await.err(),
            Some(LiveViewError::NoBrowser { .. })
        ),
        "a closed stage has nothing to show"
    );
    assert!(host.end_run(&run.id).await.expect("end run").complete());
}
