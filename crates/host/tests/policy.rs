//! Policy and evidence (issue 37, part 5): `blocked_sites` enforced by the stage's daemon at
//! every navigation and reported to the Host; the audit trail; the lifecycle receipts of the
//! kit's commands kept per stage. Real Chromium, the fixture site (`*.localhost` names reach it).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use abx_fixtures::FixtureServer;
use abx_host::{
    AuditEntry, AuditRecord, AuditSink, BlockRule, BlockedBy, BrowserEnv, HostEvent, MemoryAudit,
    ProfileKey, ProfileName, RunRef, RunState, StageId, StageSpec,
};
use common::{Place, Runs, ab, ab_ok};
use tokio::sync::broadcast;

fn stage(name: &str) -> StageId {
    StageId::new(name).expect("stage id")
}

/// Waits (bounded) for the next blocked navigation whose URL contains `needle`.
async fn next_blocked(
    events: &mut broadcast::Receiver<HostEvent>,
    needle: &str,
) -> Option<(String, BlockRule, BlockedBy)> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let event = tokio::time::timeout_at(deadline, events.recv())
            .await
            .ok()?;
        if let Ok(HostEvent::BlockedNavigation {
            url,
            rule,
            by,
            host,
            ..
        }) = event
            && url.contains(needle)
        {
            return Some((host, rule, by));
        }
    }
}

/// Whether the fixture server ever saw a request for `host`.
fn reached(site: &FixtureServer, host: &str) -> bool {
    site.requests()
        .iter()
        .any(|r| r.host.as_deref().is_some_and(|h| h.starts_with(host)))
}

/// The env an agent gets after `unset ABX_BLOCKED_SITES` in its bash.
fn without_blocklist(env: &BrowserEnv) -> BrowserEnv {
    let mut lifted = BrowserEnv::new();
    for (name, value) in env.iter() {
        if name != abx_host::var::BLOCKED_SITES {
            lifted.set(name, value);
        }
    }
    lifted
}

/// A profile stage (attached to the run's anchor, in its own pinned tab) with `blocked_sites`:
/// a command's navigation fails with the policy's error, and the page's own navigations — main
/// frame, an iframe, a popup — never reach the blocked host; each refusal reaches the Host as
/// an event and an audit record (host only). Dropping the variable from the agent's env does
/// not lift it from the running session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocked_sites_are_refused_at_every_navigation_and_reported_to_the_host() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let audit = Arc::new(MemoryAudit::new());
    let host = common::host(&place, runs.clone()).with_audit(audit.clone());
    let mut events = host.events();
    let run = RunRef::parse("local", "policy").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec {
        blocked_sites: vec!["blocked.localhost".into()],
        ..StageSpec::with_profile(ProfileName::new("site").expect("name"))
    };
    let work = host
        .prepare_stage(&run, &stage("work"), &spec)
        .await
        .expect("prepare");
    assert_eq!(
        work.env.get(abx_host::var::BLOCKED_SITES),
        Some("blocked.localhost")
    );
    let blocked = |path: &str| site.url_on_host("blocked.localhost", path);
    ab_ok(&work.env, &["open", &site.url("/page1.html")]);

    // A command: refused before the tab moves, with the policy's error.
    let refused = ab(&work.env, &["open", &blocked("/page2.html?cmd")]);
    assert!(
        !refused.status.success(),
        "open of a blocked site succeeded"
    );
    let said = String::from_utf8_lossy(&refused.stderr).to_string()
        + &String::from_utf8_lossy(&refused.stdout);
    assert!(
        said.contains("Site 'blocked.localhost' is blocked"),
        "the agent is told why: {said}"
    );
    assert_eq!(
        next_blocked(&mut events, "?cmd").await,
        Some((
            "blocked.localhost".into(),
            BlockRule::BlockedSites,
            BlockedBy::Command
        ))
    );
    // The same from an env without the variable (the agent unset it): the session keeps it.
    let lifted = ab(
        &without_blocklist(&work.env),
        &["open", &blocked("/page2.html?lifted")],
    );
    assert!(
        !lifted.status.success(),
        "the blocklist was lifted from bash"
    );

    // The page's own main-frame navigation.
    ab_ok(
        &work.env,
        &[
            "eval",
            &format!("location.href = {:?}; 1", blocked("/page2.html?main")),
        ],
    );
    assert_eq!(
        next_blocked(&mut events, "?main").await.map(|b| b.2),
        Some(BlockedBy::Page)
    );
    // An iframe.
    ab_ok(&work.env, &["open", &site.url("/page1.html")]);
    ab_ok(
        &work.env,
        &[
            "eval",
            &format!(
                "const f = document.createElement('iframe'); f.src = {:?}; document.body.append(f); 1",
                blocked("/page2.html?frame")
            ),
        ],
    );
    assert_eq!(
        next_blocked(&mut events, "?frame").await.map(|b| b.2),
        Some(BlockedBy::Page)
    );
    // A popup.
    ab_ok(
        &work.env,
        &[
            "eval",
            &format!("window.open({:?}); 1", blocked("/page2.html?popup")),
        ],
    );
    assert_eq!(
        next_blocked(&mut events, "?popup").await.map(|b| b.2),
        Some(BlockedBy::Page)
    );
    // An HTTP read through the daemon.
    let read = ab(&work.env, &["read", &blocked("/page2.html?read")]);
    assert!(!read.status.success(), "read of a blocked site succeeded");

    assert!(
        !reached(&site, "blocked.localhost"),
        "a request reached the blocked host: {:?}",
        site.requests()
    );
    assert_eq!(
        ab_ok(&work.env, &["get", "url"]),
        site.url("/page1.html"),
        "the stage's tab stayed on its page"
    );

    assert!(host.end_run(&run.id).await.expect("end").complete());
    let records: Vec<AuditRecord> = audit.entries().into_iter().map(|e| e.record).collect();
    let blocked_records = records
        .iter()
        .filter(|r| matches!(r, AuditRecord::BlockedNavigation { .. }))
        .count();
    assert!(
        blocked_records >= 4,
        "every refusal is audited: {records:?}"
    );
    let trail = serde_json::to_string(&records).expect("json");
    assert!(
        !trail.contains("page2.html"),
        "audit records name hosts, never URLs: {trail}"
    );
    assert!(place.sockets_empty());
}

/// A stage with its own browser and both lists: the blocklist wins over the allowlist, a host
/// outside the allowlist is reported as the allowlist's refusal, and an HTTP `read` of a
/// blocked site is refused and reported as well.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_throwaway_stage_reports_both_lists_refusals_and_blocked_reads() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let mut events = host.events();
    let run = RunRef::parse("local", "own-browser").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec {
        allowed_domains: vec!["127.0.0.1".into(), "*.localhost".into()],
        blocked_sites: vec!["blocked.localhost".into()],
        ..StageSpec::throwaway()
    };
    let scrape = host
        .prepare_stage(&run, &stage("scrape"), &spec)
        .await
        .expect("prepare");
    ab_ok(&scrape.env, &["open", &site.url("/page1.html")]);
    ab_ok(
        &scrape.env,
        &["open", &site.url_on_host("fine.localhost", "/page2.html")],
    );
    let blocked = ab(
        &scrape.env,
        &[
            "open",
            &site.url_on_host("blocked.localhost", "/page1.html?own"),
        ],
    );
    assert!(!blocked.status.success());
    assert_eq!(
        next_blocked(&mut events, "?own").await,
        Some((
            "blocked.localhost".into(),
            BlockRule::BlockedSites,
            BlockedBy::Command
        ))
    );
    let outside = ab(&scrape.env, &["open", "http://example.invalid/?outside"]);
    assert!(!outside.status.success());
    assert_eq!(
        next_blocked(&mut events, "?outside").await.map(|b| b.1),
        Some(BlockRule::AllowedDomains)
    );
    let read = ab(
        &scrape.env,
        &[
            "read",
            &site.url_on_host("blocked.localhost", "/page2.html?read"),
        ],
    );
    assert!(!read.status.success(), "read of a blocked site succeeded");
    assert_eq!(
        next_blocked(&mut events, "?read").await.map(|b| b.1),
        Some(BlockRule::BlockedSites)
    );
    assert!(!reached(&site, "blocked.localhost"));
    assert!(reached(&site, "fine.localhost"));
    assert!(host.end_run(&run.id).await.expect("end").complete());
    assert!(place.sockets_empty());
}

/// The default audit trail (`<home>/audit.jsonl`, 0600) records a profile's creation and use,
/// a lease wait, the anchor's start, each teardown with its close receipt, and the profile's
/// deletion; the kit's commands keep their lifecycle receipts per stage.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_trail_records_profiles_leases_anchors_and_teardown_receipts() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let mut config = place.config();
    config.lease_wait.wait_limit = Some(Duration::from_millis(300));
    let runs = Arc::new(Runs::default());
    let host = abx_host::Host::local(config, runs.clone(), common::agent_browser()).expect("host");
    let (first, second) = (
        RunRef::parse("local", "first").expect("run"),
        RunRef::parse("local", "second").expect("run"),
    );
    runs.set(&first, RunState::Running);
    runs.set(&second, RunState::Running);
    let spec = StageSpec::with_profile(ProfileName::new("site").expect("name"));
    let work = host
        .prepare_stage(&first, &stage("work"), &spec)
        .await
        .expect("prepare");
    ab_ok(&work.env, &["open", &site.url("/page1.html")]);
    let waited = host.prepare_stage(&second, &stage("work"), &spec).await;
    assert!(
        matches!(waited, Err(abx_host::HostError::LeaseWaitTimedOut { .. })),
        "{waited:?}"
    );
    assert!(host.end_run(&first.id).await.expect("end").complete());
    let receipts = host.stage_receipts(&first.id, &stage("work"));
    let close = receipts
        .iter()
        .rev()
        .find(|r| r["command"] == "close")
        .expect("the close command's receipt is kept");
    assert_eq!(close["code"], 0, "{close}");
    assert!(close["receipt"].is_object(), "{close}");
    let key = ProfileKey::parse("local", "site").expect("key");
    assert!(host.delete_profile(&key).expect("delete"));

    let path = place.home.path().join(abx_host::AUDIT_FILE);
    let mode = std::fs::metadata(&path)
        .expect("audit file")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let entries: Vec<AuditEntry> = std::fs::read_to_string(&path)
        .expect("read")
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit line"))
        .collect();
    let kinds: Vec<String> = entries
        .iter()
        .map(|e| {
            serde_json::to_value(&e.record).expect("json")["record"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    for kind in [
        "profile_created",
        "profile_used",
        "lease_wait",
        "anchor_started",
        "stage_teardown",
        "run_teardown",
        "profile_deleted",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} in {kinds:?}");
    }
    assert!(
        entries
            .iter()
            .all(|e| e.host == host.config().host_id && e.ts_ms > 0)
    );
    let teardown = entries
        .iter()
        .find_map(|e| match &e.record {
            AuditRecord::StageTeardown { gone, cleanup, .. } => Some((*gone, cleanup.clone())),
            _ => None,
        })
        .expect("stage teardown");
    assert!(teardown.0);
    assert!(teardown.1.is_some(), "the close receipt is in the audit");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(!text.contains("http://"), "no URLs in the audit: {text}");
    assert!(
        !text.contains(&place.home.path().to_string_lossy().to_string()),
        "no paths in the audit"
    );
}

/// An audit sink that fails.
struct BrokenAudit;

impl AuditSink for BrokenAudit {
    fn write(&self, _: &AuditEntry) -> std::io::Result<()> {
        Err(std::io::Error::other("audit store unreachable"))
    }
}

/// Audit never breaks a run (seed 000 §26): a failing sink is reported as an event and the
/// run's browsers are prepared and torn down as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_audit_sink_never_fails_a_run() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone()).with_audit(Arc::new(BrokenAudit));
    let mut events = host.events();
    let run = RunRef::parse("local", "audited").expect("run");
    runs.set(&run, RunState::Running);
    let work = host
        .prepare_stage(
            &run,
            &stage("work"),
            &StageSpec::with_profile(ProfileName::new("site").expect("name")),
        )
        .await
        .expect("prepare despite the audit");
    ab_ok(&work.env, &["open", &site.url("/page1.html")]);
    assert!(host.end_run(&run.id).await.expect("end").complete());
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut failed = false;
    while Instant::now() < deadline {
        match events.try_recv() {
            Ok(HostEvent::AuditFailed { reason }) => {
                assert!(reason.contains("unreachable"), "{reason}");
                failed = true;
                break;
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    assert!(failed, "the Host hears that audit records were lost");
    assert!(place.sockets_empty());
}
