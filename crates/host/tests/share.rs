//! Two Hosts on one machine: every owner record names the Host process that wrote it, and a
//! sweep closes only its own records or those of a Host that is provably gone, never an
//! unknown run (issue 37, part 4). Real Chromium, a local fixture site.

mod common;

use std::sync::Arc;
use std::time::Duration;

use abx_fixtures::FixtureServer;
use abx_host::{
    Host, HostEvent, HostIdentity, OwnerKind, OwnerRecord, ProfileName, RunRef, RunState, StageId,
    StageSpec,
};
use common::{Place, Runs, ab_ok, daemon_pid, wait_gone};

fn stage(name: &str) -> StageId {
    StageId::new(name).expect("stage id")
}

/// The identity of a process that has ended: a child we started and reaped.
fn dead_host(id: &str) -> HostIdentity {
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    let pid = child.id() as i32;
    child.wait().expect("reap true");
    HostIdentity {
        id: id.into(),
        pid,
        started: 1,
    }
}

/// Rewrites the owner records of `run` as if `host` had written them.
fn reown(place: &Place, run: &RunRef, host: &HostIdentity) -> usize {
    let mut count = 0;
    for (dir, mut owner) in place.owners() {
        if owner.run != run.id {
            continue;
        }
        owner.host = Some(host.clone());
        let text = serde_json::to_string(&owner).expect("json");
        std::fs::write(dir.join("owner.json"), text).expect("rewrite owner.json");
        count += 1;
    }
    count
}

fn records_of(place: &Place, run: &RunRef) -> Vec<OwnerRecord> {
    place
        .owners()
        .into_iter()
        .filter(|(_, o)| o.run == run.id)
        .map(|(_, o)| o)
        .collect()
}

/// Two Hosts (own homes, own ids) on one socket root, with one run table that calls the other
/// Host's run ended: neither sweep touches the other Host's sessions. Then Host B "dies" (its
/// records name a dead process under its id): A's sweep leaves B's run while A cannot tell
/// whether it ended, and closes it once A knows it has.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hosts_on_one_socket_root_sweep_only_their_own_or_a_gone_hosts_sessions() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let other_home = tempfile::Builder::new()
        .prefix("abxh-home-b")
        .tempdir()
        .expect("home b");
    let runs = Arc::new(Runs::default());
    let host_a = Host::local(place.config(), runs.clone(), common::agent_browser()).expect("a");
    let mut config_b = place.config();
    config_b.home = other_home.path().to_path_buf();
    config_b.host_id = abx_host::HostConfig::new(other_home.path()).host_id;
    let host_b = Host::local(config_b, runs.clone(), common::agent_browser()).expect("b");
    assert_ne!(host_a.identity().id, host_b.identity().id);
    assert_eq!(host_a.config().socket_root, host_b.config().socket_root);

    let (run_a, run_b) = (
        RunRef::parse("local", "run-a").expect("run"),
        RunRef::parse("local", "run-b").expect("run"),
    );
    runs.set(&run_a, RunState::Running);
    runs.set(&run_b, RunState::Running);
    let on_a = host_a
        .prepare_stage(
            &run_a,
            &stage("work"),
            &StageSpec::with_profile(ProfileName::new("site").expect("name")),
        )
        .await
        .expect("stage of A");
    ab_ok(&on_a.env, &["open", &site.url("/page1.html")]);
    let on_b = host_b
        .prepare_stage(
            &run_b,
            &stage("scrape"),
            &StageSpec {
                blocked_sites: vec!["blocked.localhost".into()],
                ..StageSpec::throwaway()
            },
        )
        .await
        .expect("stage of B");
    ab_ok(&on_b.env, &["open", &site.url("/page2.html")]);
    let refused = common::ab(
        &on_b.env,
        &["open", &site.url_on_host("blocked.localhost", "/?b")],
    );
    assert!(!refused.status.success());
    let a_records = records_of(&place, &run_a);
    assert_eq!(a_records.len(), 2, "anchor and stage of A: {a_records:?}");
    assert!(
        a_records
            .iter()
            .all(|o| o.host.as_ref() == Some(host_a.identity())),
        "A's records name A: {a_records:?}"
    );
    let b_records = records_of(&place, &run_b);
    assert_eq!(b_records.len(), 1);
    assert_eq!(b_records[0].host.as_ref(), Some(host_b.identity()));
    let a_pids: Vec<i32> = a_records
        .iter()
        .filter_map(|o| o.env.as_ref().and_then(daemon_pid))
        .collect();
    let b_pid = daemon_pid(&on_b.env).expect("B's daemon");

    // The shared table calls A's run ended; B's sweep still leaves A alone (A runs).
    runs.set(&run_a, RunState::Ended);
    let swept_by_b = host_b.sweep().await.expect("sweep b");
    assert_eq!(
        (
            swept_by_b.stages_closed,
            swept_by_b.anchors_closed,
            swept_by_b.skipped_other_host,
            swept_by_b.skipped_live
        ),
        (0, 0, 2, 1),
        "{swept_by_b:?}"
    );
    assert_eq!(
        ab_ok(&on_a.env, &["get", "title"]),
        "Page One",
        "A's stage survived B's sweep"
    );
    // A's sweep closes its own ended run, and leaves B's.
    let swept_by_a = host_a.sweep().await.expect("sweep a");
    assert_eq!(
        (
            swept_by_a.stages_closed,
            swept_by_a.anchors_closed,
            swept_by_a.skipped_other_host
        ),
        (1, 1, 1),
        "{swept_by_a:?}"
    );
    for pid in a_pids {
        assert!(wait_gone(pid, Duration::from_secs(5)), "A's daemon {pid}");
    }
    assert_eq!(ab_ok(&on_b.env, &["get", "title"]), "Page Two");

    // B dies: its record now names a process that has ended.
    assert_eq!(reown(&place, &run_b, &dead_host(&host_b.identity().id)), 1);
    runs.set(&run_b, RunState::Unknown);
    let unknown = host_a.sweep().await.expect("sweep unknown");
    assert_eq!(
        (unknown.stages_closed, unknown.skipped_live),
        (0, 1),
        "an unknown run is never closed: {unknown:?}"
    );
    assert_eq!(ab_ok(&on_b.env, &["get", "title"]), "Page Two");
    runs.set(&run_b, RunState::Ended);
    let mut heard_by_a = host_a.events();
    let gone = host_a.sweep().await.expect("sweep gone");
    assert_eq!(
        (gone.stages_closed, gone.left, gone.skipped_other_host),
        (1, 0, 0),
        "{gone:?}"
    );
    assert!(wait_gone(b_pid, Duration::from_secs(5)), "B's daemon");
    // What B's stage was refused reaches the sweeping Host (B died before telling anyone).
    let mut reported = false;
    while let Ok(event) = heard_by_a.try_recv() {
        if let HostEvent::BlockedNavigation { run, host, .. } = event {
            reported |= run == run_b.id && host == "blocked.localhost";
        }
    }
    assert!(
        reported,
        "the sweep reports a dead Host's refused navigations"
    );
    assert!(place.owners().is_empty(), "{:?}", place.owners());
    assert!(
        place
            .owners()
            .iter()
            .all(|(_, o)| o.kind != OwnerKind::Anchor)
    );
}

/// A record without a Host (an older kit's) is never swept: nobody can tell whose it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_that_names_no_host_is_left_alone() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let run = RunRef::parse("local", "old").expect("run");
    runs.set(&run, RunState::Running);
    let prepared = host
        .prepare_stage(&run, &stage("s"), &StageSpec::throwaway())
        .await
        .expect("stage");
    ab_ok(&prepared.env, &["open", &site.url("/page1.html")]);
    for (dir, mut owner) in place.owners() {
        owner.host = None;
        std::fs::write(
            dir.join("owner.json"),
            serde_json::to_string(&owner).expect("json"),
        )
        .expect("rewrite");
    }
    runs.set(&run, RunState::Ended);
    let report = host.sweep().await.expect("sweep");
    assert_eq!(
        (report.stages_closed, report.skipped_other_host),
        (0, 1),
        "{report:?}"
    );
    assert_eq!(ab_ok(&prepared.env, &["get", "title"]), "Page One");
    // end_stage still closes it: the Host that has the stage's env is its owner.
    assert!(
        host.end_stage(&run.id, &stage("s"))
            .await
            .expect("end")
            .gone
    );
}
