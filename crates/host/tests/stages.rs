//! Stages against real Chromium through the `agent-browser` binary: one anchor shared by
//! parallel stages, the persisted env, teardown order, throw-away browsers with a hard
//! allowlist, the login check, and a close that fails once.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use abx_fixtures::FixtureServer;
use abx_host::{
    BoxFuture, BrowserEnv, BrowserRunner, CliRunner, DisplayReason, FileLease, FileProfileStore,
    Host, LoginCheck, LoginState, OwnerKind, ProfileName, RunOutput, RunRef, RunState, StageId,
    StageSpec, var,
};
use common::{Place, Runs, ab, ab_ok, alive, cdp_answers, daemon_pid};

fn stage(name: &str) -> StageId {
    StageId::new(name).expect("stage id")
}

async fn page_count(cdp: &str) -> usize {
    common::pages(cdp).await.len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_stages_share_one_anchor_keep_their_env_and_end_in_order() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let run = RunRef::parse("local", "run-1").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec::with_profile(ProfileName::new("site").expect("name"));
    let (sa, sb) = (stage("work-a"), stage("work-b"));

    let (a, b) = tokio::join!(
        host.prepare_stage(&run, &sa, &spec),
        host.prepare_stage(&run, &sb, &spec)
    );
    let (a, b) = (a.expect("stage a"), b.expect("stage b"));
    assert_eq!(a.env.cdp(), b.env.cdp(), "one anchor for both stages");
    assert_eq!(
        [a.anchor_started, b.anchor_started]
            .iter()
            .filter(|s| **s)
            .count(),
        1,
        "exactly one caller started the anchor"
    );
    let anchors = place
        .owners()
        .into_iter()
        .filter(|(_, o)| o.kind == OwnerKind::Anchor)
        .count();
    assert_eq!(anchors, 1);
    assert!(!a.display.headed);
    assert_eq!(
        a.display.reason,
        DisplayReason::NoScreen,
        "the choice says why"
    );
    assert_eq!(a.env.get(var::PIN_TAB), Some("1"));
    assert_eq!(a.env.get(var::IDLE_TIMEOUT_MS), Some("0"));
    assert_eq!(
        a.env.get(var::PROFILE),
        None,
        "only the anchor owns the profile"
    );
    let config = a.env.get(var::CONFIG).expect("config pinned");
    assert_eq!(
        std::fs::read_to_string(config).expect("config file").trim(),
        "{}"
    );
    assert_ne!(a.env.session(), b.env.session());

    // The stages work as an agent would; the login of one is the other's (one Chrome).
    ab_ok(&a.env, &["open", &site.url("/login.html")]);
    ab_ok(&a.env, &["fill", "#username", "ada"]);
    ab_ok(&a.env, &["fill", "#password", "pw"]);
    ab_ok(&a.env, &["click", "#signin"]);
    ab_ok(&a.env, &["wait", "--url", "**/account"]);
    ab_ok(&b.env, &["open", &site.url("/account")]);
    assert_eq!(ab_ok(&b.env, &["get", "text", "#session"]), "ada-s");

    // Byte-identical: preparing again (a retry, another attempt) reads the same env back,
    // whatever the Host's own environment says now.
    let env_file = host.stage_dir(&run.id, &sa).join(abx_host::ENV_FILE);
    let before = std::fs::read(&env_file).expect("env file");
    let again = host.prepare_stage(&run, &sa, &spec).await.expect("again");
    assert_eq!(again.env, a.env);
    assert_eq!(std::fs::read(&env_file).expect("env file"), before);
    assert_eq!(
        ab_ok(&a.env, &["get", "url"]),
        site.url("/account"),
        "the page survived"
    );

    // Stage teardown: its tab and session go, the anchor and the other stage stay.
    let cdp = a.env.cdp().expect("cdp").to_string();
    let pages = page_count(&cdp).await;
    let a_pid = daemon_pid(&a.env).expect("stage a daemon");
    let torn = host.end_stage(&run.id, &sa).await.expect("end a");
    assert!(torn.gone && !torn.already);
    assert!(!alive(a_pid), "stage a's daemon is gone");
    assert!(
        !a.env.socket_dir().expect("dir").exists(),
        "its socket dir is removed"
    );
    assert!(
        host.stage_dir(&run.id, &sa)
            .join(abx_host::CLOSED_FILE)
            .exists()
    );
    assert_eq!(
        page_count(&cdp).await,
        pages - 1,
        "exactly its tab was closed"
    );
    assert!(
        host.end_stage(&run.id, &sa).await.expect("again").already,
        "a second teardown does nothing"
    );
    assert_eq!(ab_ok(&b.env, &["get", "text", "#persist"]), "ada");

    // Run teardown: stage b, then the anchor (gracefully), then the lease.
    let report = host.end_run(&run.id).await.expect("end run");
    assert!(report.complete(), "{report:?}");
    assert_eq!((report.anchors_closed, report.leases_released), (1, 1));
    assert!(!cdp_answers(&cdp).await, "the anchor's Chrome is gone");
    assert!(
        place.sockets_empty(),
        "no socket dir left: {:?}",
        place.owners()
    );
    assert!(host.leases().leases().expect("leases").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stage_without_profile_gets_its_own_browser_and_a_hard_allowlist() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let run = RunRef::parse("local", "run-t").expect("run");
    let spec = StageSpec {
        allowed_domains: vec!["127.0.0.1".into()],
        ..StageSpec::throwaway()
    };
    let scrape = host
        .prepare_stage(&run, &stage("scrape"), &spec)
        .await
        .expect("prepare");
    assert_eq!(scrape.env.cdp(), None, "its own browser, no anchor");
    assert_eq!(scrape.env.get(var::PROFILE), None);
    assert_eq!(scrape.env.get(var::HEADED), Some("0"));
    assert_eq!(scrape.env.get(var::ALLOWED_DOMAINS), Some("127.0.0.1"));
    assert!(scrape.env.session().expect("session").starts_with("abx-t-"));
    assert!(
        host.leases().leases().expect("leases").is_empty(),
        "no lease taken"
    );
    ab_ok(&scrape.env, &["open", &site.url("/page1.html")]);
    let blocked = ab(
        &scrape.env,
        &["open", &site.url_on_host("localhost", "/page2.html")],
    );
    assert!(
        !blocked.status.success(),
        "a host outside the allowlist must be refused"
    );
    assert_eq!(ab_ok(&scrape.env, &["get", "title"]), "Page One");
    let pid = daemon_pid(&scrape.env).expect("daemon");
    let torn = host
        .end_stage(&run.id, &stage("scrape"))
        .await
        .expect("end");
    assert!(torn.gone);
    assert!(!alive(pid));
    assert!(host.end_run(&run.id).await.expect("end run").complete());
    assert!(place.sockets_empty());
}

/// Fails the first `close` it is asked to run, as a daemon that did not answer in time would.
struct FirstCloseFails {
    inner: CliRunner,
    closes: AtomicU32,
}

impl BrowserRunner for FirstCloseFails {
    fn run<'a>(
        &'a self,
        env: &'a BrowserEnv,
        args: &'a [&'a str],
        timeout: Duration,
    ) -> BoxFuture<'a, RunOutput> {
        Box::pin(async move {
            if args == ["close"] && self.closes.fetch_add(1, Ordering::SeqCst) == 0 {
                return RunOutput {
                    code: 1,
                    stdout: String::new(),
                    stderr: "✗ Failed to connect (injected)".into(),
                };
            }
            self.inner.run(env, args, timeout).await
        })
    }
}

/// Limitation 12: a close that fails is retried in the same teardown, and the marker is
/// written only once the session is verified gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_close_is_retried_until_the_session_is_gone() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let config = place.config();
    let runner = Arc::new(FirstCloseFails {
        inner: CliRunner::new(common::agent_browser()),
        closes: AtomicU32::new(0),
    });
    let host = Host::new(
        config.clone(),
        Arc::new(FileProfileStore::new(config.home.join("profiles"))),
        Arc::new(FileLease::new(config.home.join("locks"))),
        Arc::new(Runs::default()),
        runner.clone(),
    )
    .expect("host");
    let run = RunRef::parse("local", "run-c").expect("run");
    let prepared = host
        .prepare_stage(&run, &stage("s"), &StageSpec::throwaway())
        .await
        .expect("prepare");
    ab_ok(&prepared.env, &["open", &site.url("/page1.html")]);
    let pid = daemon_pid(&prepared.env).expect("daemon");
    let torn = host.end_stage(&run.id, &stage("s")).await.expect("end");
    assert!(torn.gone, "the retry closed it: {torn:?}");
    assert_eq!(
        runner.closes.load(Ordering::SeqCst),
        2,
        "one failed close, one retry"
    );
    assert!(!alive(pid));
    assert!(
        host.stage_dir(&run.id, &stage("s"))
            .join(abx_host::CLOSED_FILE)
            .exists()
    );
    assert!(host.end_run(&run.id).await.expect("end run").complete());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_check_decides_from_the_settled_url_and_is_persisted() {
    let site = FixtureServer::start().await.expect("site");
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let host = common::host(&place, runs.clone());
    let run = RunRef::parse("local", "run-l").expect("run");
    let check = LoginCheck::new(site.url("/members"), &["**/members"], &["**/login.html*"]);
    let spec = StageSpec {
        login_check: Some(check.clone()),
        ..StageSpec::with_profile(ProfileName::new("site").expect("name"))
    };
    let checked = host
        .prepare_stage(&run, &stage("check"), &spec)
        .await
        .expect("prepare");
    let login = checked.login.clone().expect("a result");
    assert_eq!(login.state, LoginState::LoggedOut, "{login:?}");
    assert!(!login.logged_in);
    assert!(login.url.contains("/login.html?next="), "{}", login.url);
    assert_eq!(
        host.stage_login(&run.id, &stage("check")).expect("read"),
        Some(login)
    );
    // The stage's tab is on the login form now; a person (here: the test) signs in.
    ab_ok(&checked.env, &["fill", "#username", "grace"]);
    ab_ok(&checked.env, &["fill", "#password", "pw"]);
    ab_ok(&checked.env, &["click", "#signin"]);
    ab_ok(&checked.env, &["wait", "--url", "**/account"]);
    let again = host
        .login_check(&run, &stage("check"), &check)
        .await
        .expect("re-check");
    assert_eq!(again.state, LoginState::LoggedIn, "{again:?}");
    assert!(again.url.ends_with("/members"));
    assert!(host.end_run(&run.id).await.expect("end run").complete());
}

fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

/// Two Hosts (processes) preparing stages of one run at once start one anchor: the second
/// waits on the first's `anchor.lock` and reuses its record. Records are 0600, folders 0700.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hosts_ensuring_one_anchor_start_it_once_and_keep_records_private() {
    let place = Place::new();
    let runs = Arc::new(Runs::default());
    let one = common::host(&place, runs.clone());
    let two = common::host(&place, runs.clone());
    let run = RunRef::parse("local", "run-x").expect("run");
    runs.set(&run, RunState::Running);
    let spec = StageSpec::with_profile(ProfileName::new("site").expect("name"));
    let (sa, sb) = (stage("a"), stage("b"));
    let (a, b) = tokio::join!(
        one.prepare_stage(&run, &sa, &spec),
        two.prepare_stage(&run, &sb, &spec)
    );
    let (a, b) = (a.expect("a"), b.expect("b"));
    assert_eq!(a.env.cdp(), b.env.cdp(), "one anchor");
    assert_eq!(
        [a.anchor_started, b.anchor_started]
            .iter()
            .filter(|s| **s)
            .count(),
        1,
        "started once across both Hosts"
    );
    let home = place.home.path();
    let anchor_json = home.join("runs/run-x/browser/local/site/anchor.json");
    for file in [
        anchor_json.clone(),
        home.join("runs/run-x/stages/a/browser-env.json"),
        home.join("locks/local/site.lock"),
        home.join("agent-browser.empty.json"),
    ] {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    for (dir, _) in place.owners() {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
        assert_eq!(mode(&dir.join("owner.json")), 0o600);
    }
    assert_eq!(mode(&place.socket_root()), 0o700);
    assert_eq!(mode(&home.join("profiles/local/site/profile")), 0o700);
    assert!(one.end_run(&run.id).await.expect("end").complete());
    assert!(!anchor_json.exists(), "the record goes with the anchor");
    assert!(place.sockets_empty());
}
